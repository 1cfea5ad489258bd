#include "parallel_input.hpp"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "decompress.hpp"
#include "system.hpp"

namespace abloom_cli {

namespace {

// The bytes of a part. Large enough that handing it out is short next to the work on it (1 MiB of
// 16-byte keys is ~60,000 keys), small enough to stay in a core's L2 cache between the read and
// the parse, and to share an input between many threads.
constexpr size_t kPartBytes = size_t{1} << 20;
// How much more a part of a regular file reads at a time to reach the end of its last record.
constexpr size_t kTailBytes = size_t{1} << 10;

// A regular file read by ranges: open while any of its parts is (its parts share it).
struct RangedFile {
  RangedFile(int fd_, std::string name_, uint64_t size_)
      : fd(fd_), name(std::move(name_)), size(size_) {}
  ~RangedFile() { sys::close_fd(fd); }
  RangedFile(const RangedFile&) = delete;
  RangedFile& operator=(const RangedFile&) = delete;
  int fd;
  std::string name;
  uint64_t size;  // as opened: the file is read up to here (and to the end of the record there)
};

// A part of one input: whole records, buf[begin, size) (the input's last one may lack its
// terminator).
struct Part {
  std::unique_ptr<char[]> buf;
  size_t capacity = 0;
  size_t begin = 0;
  size_t size = 0;
  size_t input = 0;  // index into the paths
  uint64_t seq = 0;  // place in input order, from 0, over all inputs
  // A range [from, to) of a regular file, which the part's own thread reads (read_range): the
  // part is the records that start in the range.
  std::shared_ptr<RangedFile> file;
  uint64_t from = 0;
  uint64_t to = 0;

  std::string_view records() const { return {buf.get() + begin, size - begin}; }

  // Room for `more` bytes after `size`; the bytes so far are kept.
  void reserve_more(size_t more) {
    if (capacity - size >= more) return;
    const size_t wanted = std::max(capacity * 2, size + more);
    auto bigger = std::make_unique_for_overwrite<char[]>(wanted);
    if (size > 0) std::memcpy(bigger.get(), buf.get(), size);
    buf = std::move(bigger);
    capacity = wanted;
  }
};

// The last `terminator` in [p, p + n), or nullptr. Not memrchr, which macOS lacks: the loop
// crosses only the bytes after the last record end, one record's length or less.
const char* last_terminator(const char* p, size_t n, char terminator) {
  for (size_t i = n; i > 0; --i) {
    if (p[i - 1] == terminator) return p + i - 1;
  }
  return nullptr;
}

// Reads `n` bytes at `offset` of `file` to the end of `part`'s bytes (fewer at the end of the
// file); returns how many.
size_t pread_into(Part& part, const RangedFile& file, uint64_t offset, size_t n) {
  part.reserve_more(n);
  const int64_t got = sys::read_at(file.fd, part.buf.get() + part.size, n, offset);
  if (got < 0) {
    const int err = errno;  // before the message's allocations, which may change it
    throw InputError(file.name + ": " + errno_text(err));
  }
  part.size += static_cast<size_t>(got);
  return static_cast<size_t>(got);
}

// Fills a part of a regular file with the records that start in its range [from, to): those
// after the first terminator at or after from - 1 (from 0 at the file's start), through the first
// terminator at or after to - 1 (reading on past the range for it), or the end of the file. So
// each record belongs to exactly one range, the one its first byte is in, and threads read their
// ranges at once without looking at each other's.
void read_range(Part& part, char terminator) {
  const RangedFile& file = *part.file;
  const uint64_t start = part.from == 0 ? 0 : part.from - 1;
  part.begin = part.size = 0;
  part.reserve_more(kPartBytes + 1 + kTailBytes);  // once: the range, the byte before, a tail
  const size_t got = pread_into(part, file, start, static_cast<size_t>(part.to - start));
  const char* buf = part.buf.get();
  if (part.from > 0) {
    const char* first = static_cast<const char*>(std::memchr(buf, terminator, got));
    // No record starts in the range (a record longer than it crosses it): an empty part.
    if (first == nullptr || static_cast<uint64_t>(first - buf) >= part.to - 1 - start) {
      part.size = 0;
      return;
    }
    part.begin = static_cast<size_t>(first - buf) + 1;
  }
  if (got < part.to - start || buf[part.size - 1] == terminator) return;  // the end, or a record's
  for (;;) {
    const size_t before = part.size;
    if (pread_into(part, file, start + before, kTailBytes) == 0) return;  // the end of the file
    const char* hit = static_cast<const char*>(
        std::memchr(part.buf.get() + before, terminator, part.size - before));
    if (hit != nullptr) {
      part.size = static_cast<size_t>(hit - part.buf.get()) + 1;
      return;
    }
  }
}

// Hands out the inputs part by part, in order, to whichever thread asks next. A regular file is
// handed out as ranges of bytes, which each thread reads itself (read_range), all at once. Other
// inputs (FIFOs, pipes, stdin, files that claim to be empty such as /proc's) are read in turn,
// one read(2) per part into the asking thread's buffer; the bytes after the part's last record
// end are carried to the start of the next part.
class PartFeeder {
 public:
  PartFeeder(const std::vector<std::string>& paths, char terminator, Progress& progress)
      : paths_(paths), terminator_(terminator), progress_(progress) {}
  ~PartFeeder() { close_input(); }
  PartFeeder(const PartFeeder&) = delete;
  PartFeeder& operator=(const PartFeeder&) = delete;

  // Fills `part` with the next part and its place; false at the end of the inputs or once
  // stop() was called. On a read error throws, with part.seq the error's place in the order.
  bool next(Part& part) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return false;
    try {
      if (!fill(part)) return false;
    } catch (...) {
      part.seq = next_seq_++;
      stopped_ = true;
      throw;
    }
    part.seq = next_seq_++;
    return true;
  }

  void stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }

  // A part's `keys` are done: counted on the progress line, which is drawn here (with the bytes
  // read so far), under the lock that keeps it to one thread at a time.
  void done(uint64_t keys) {
    std::lock_guard<std::mutex> lock(mu_);
    keys_ += keys;
    progress_.update(keys_, bytes_);
  }

 private:
  bool fill(Part& part) {
    part.begin = part.size = 0;
    part.file.reset();
    for (;;) {
      if (fd_ < 0 && !ranged_) {
        if (input_ == paths_.size()) return false;
        open_next();
        continue;
      }
      if (ranged_) {
        part.input = input_;
        part.file = ranged_;
        part.from = offset_;
        part.to = std::min<uint64_t>(offset_ + kPartBytes, ranged_->size);
        bytes_ += part.to - part.from;
        offset_ = part.to;
        if (offset_ == ranged_->size) {
          ranged_.reset();
          ++input_;
        }
        return true;
      }
      if (part.size == 0 && !carry_.empty()) {
        part.reserve_more(carry_.size());
        std::memcpy(part.buf.get(), carry_.data(), carry_.size());
        part.size = carry_.size();
        carry_.clear();
      }
      part.input = input_;
      // A part holds whole records: one longer than a part's buffer grows it until it ends.
      part.reserve_more(part.size < kPartBytes / 2 ? kPartBytes - part.size : part.size);
      const size_t got = read_some(part.buf.get() + part.size, part.capacity - part.size);
      if (got == 0) {
        // The end of this input: what the part holds ends with its last record.
        close_input();
        ++input_;
        if (part.size > 0) return true;
        continue;
      }
      const size_t before = part.size;
      part.size += got;
      bytes_ += got;
      if (first_read_) {
        look_at_first_bytes(part, before);
        if (part.size == before) continue;  // compressed: read again, through the decompressor
      }
      // The carried bytes hold no terminator: only the new ones are looked at.
      const char* last = last_terminator(part.buf.get() + before, got, terminator_);
      if (last == nullptr) continue;  // no record ends yet: read more into this part
      const size_t end = static_cast<size_t>(last - part.buf.get()) + 1;
      carry_.assign(part.buf.get() + end, part.size - end);
      part.size = end;
      return true;
    }
  }

  // Opens the next input: by ranges if it is a regular file with bytes in it, unless they are
  // compressed (decompress.hpp): a gzip file is read in turn, through zlib.
  void open_next() {
    const std::string& path = paths_[input_];
    const int fd = open_input(path);
    first_read_ = true;
    sys::FileKind kind;
    if (path != "-" && sys::kind_of_fd(fd, kind) == 0 && kind.regular && kind.size > 0) {
      char head[8];
      const int64_t got = sys::read_at(fd, head, sizeof head, 0);
      const Compression c =
          compression_of(std::string_view(head, got > 0 ? static_cast<size_t>(got) : 0));
      if (c == Compression::none) {
        ranged_ = std::make_shared<RangedFile>(fd, display_name(path), kind.size);
        offset_ = 0;
        return;
      }
      fd_ = fd;  // closed by close_input(), also when the check below throws
      check_readable(c, display_name(path));
      gzip_ = std::make_unique<GzipReader>(fd, display_name(path), std::string_view());
      first_read_ = false;
      return;
    }
    fd_ = fd;
  }

  // A stream's first bytes, just read to `part`'s end: if they start compressed data, they go to
  // a GzipReader (or are refused), which reads the rest.
  void look_at_first_bytes(Part& part, size_t before) {
    first_read_ = false;
    const std::string_view head(part.buf.get() + before, part.size - before);
    const Compression c = compression_of(head);
    if (c == Compression::none) return;
    const std::string name = display_name(paths_[input_]);
    check_readable(c, name);
    gzip_ = std::make_unique<GzipReader>(fd_, name, head);
    bytes_ -= head.size();
    part.size = before;
  }

  size_t read_some(char* to, size_t room) {
    if (gzip_) return gzip_->read_some(to, room);
    const int64_t got = sys::read_some(fd_, to, room);
    if (got < 0) {
      const int err = errno;  // before the message's allocations, which may change it
      throw InputError(display_name(paths_[input_]) + ": " + errno_text(err));
    }
    return static_cast<size_t>(got);
  }

  void close_input() {
    gzip_.reset();
    if (fd_ > 0) sys::close_fd(fd_);  // fd 0 is stdin, which stays open
    fd_ = -1;
  }

  const std::vector<std::string>& paths_;
  const char terminator_;
  Progress& progress_;
  std::mutex mu_;
  bool stopped_ = false;
  size_t input_ = 0;
  int fd_ = -1;                         // the input being read in turn, or -1
  bool first_read_ = false;             // its first bytes are yet to be read (and looked at)
  std::unique_ptr<GzipReader> gzip_;    // what reads it when it is gzip data
  std::shared_ptr<RangedFile> ranged_;  // the input being handed out by ranges, or null
  uint64_t offset_ = 0;                 // where its next range starts
  std::string carry_;  // the start of a record that the last part did not hold whole
  uint64_t next_seq_ = 0;
  uint64_t bytes_ = 0;
  uint64_t keys_ = 0;
};

class ParallelRun {
 public:
  ParallelRun(const std::vector<std::string>& paths, const InputFormat& format, Progress& progress,
              const ParallelJob& job)
      : paths_(paths),
        format_(format),
        job_(job),
        feeder_(paths, format.nul ? '\0' : '\n', progress) {}

  uint64_t run(unsigned threads) {
    std::vector<PartScratch> scratches(threads);
    for (unsigned t = 0; t < threads; ++t) scratches[t].thread = t;
    std::vector<std::thread> others;
    for (unsigned t = 1; t < threads; ++t) {
      try {
        others.emplace_back([this, &scratches, t] { work(scratches[t]); });
      } catch (const std::system_error&) {
        break;  // no more threads to be had: those started do the work
      }
    }
    work(scratches[0]);
    for (auto& t : others) t.join();
    if (error_) rethrow_first_error();
    uint64_t count = 0;
    for (unsigned t = 0; t < threads; ++t) count += scratches[t].count;
    return count;
  }

 private:
  // One thread's loop. Nothing escapes it (an exception leaving a thread would end the process):
  // every failure is kept by fail() at the place of the part it came from.
  void work(PartScratch& scratch) {
    Part part;
    Batch batch;
    try {
      while (feeder_.next(part)) {
        if (!work_on(part, scratch, batch)) return;
        if (job_.commit && !commit_in_order(part.seq, scratch)) return;
        scratch.out.clear();
      }
    } catch (...) {
      fail(part.seq, std::current_exception());
      return;
    }
    if (!job_.finish || failed()) return;
    try {
      job_.finish(scratch);
    } catch (...) {
      fail(kAfterEveryPart, std::current_exception());
    }
  }

  bool failed() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_ != nullptr;
  }

  // The work on one part; false if it failed.
  bool work_on(Part& part, PartScratch& scratch, Batch& batch) {
    uint64_t keys = 0;
    uint64_t records = 0;  // keys and the records --skip-bad left out
    uint64_t skipped = 0;
    std::optional<RecordError> first_skipped;
    bool ok = true;
    try {
      if (part.file) read_range(part, format_.nul ? '\0' : '\n');
      RecordParser reader(display_name(paths_[part.input]), format_, part.records());
      bool more = true;
      while (more) {
        more = reader.read(batch, job_.max_keys, job_.keep_records);
        if (batch.size() == 0) continue;
        job_.work(batch, scratch);
        keys += batch.size();
      }
      records = reader.records();
      skipped = reader.skipped();
      first_skipped = reader.first_skipped();
    } catch (...) {
      fail(part.seq, std::current_exception());
      records = keys;
      ok = false;
    }
    feeder_.done(keys);
    std::lock_guard<std::mutex> lock(mu_);
    if (part_records_.size() <= part.seq) {
      part_records_.resize(part.seq + 1);
      part_inputs_.resize(part.seq + 1);
    }
    part_records_[part.seq] = records;
    part_inputs_[part.seq] = part.input;
    if (skipped > 0) {
      skipped_ += skipped;
      if (part.seq < first_skipped_seq_) {
        first_skipped_seq_ = part.seq;
        first_skipped_ = std::move(first_skipped);
      }
    }
    return ok;
  }

  // Waits until every part before this one is committed, then commits it; a part after a failed
  // one is not committed (its output would come after the error). False if it was not.
  bool commit_in_order(uint64_t seq, PartScratch& scratch) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      turn_.wait(lock, [&] { return next_commit_ == seq || failed_seq_ < seq; });
      if (failed_seq_ < seq) return false;
    }
    job_.commit(scratch.out);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++next_commit_;
    }
    turn_.notify_all();
    return true;
  }

  // Where a failure of `finish` ranks: after any part's.
  static constexpr uint64_t kAfterEveryPart = std::numeric_limits<uint64_t>::max() - 1;

  // Keeps the error first in input order, and stops the reading.
  void fail(uint64_t seq, std::exception_ptr error) {
    feeder_.stop();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (seq < failed_seq_) {
        failed_seq_ = seq;
        error_ = std::move(error);
      }
    }
    turn_.notify_all();  // the parts waiting after it give up their turn
  }

  // Every part before the failed one was worked on whole (parts are handed out in order and
  // finished even after a failure), so a record error's number, counted from its part's start,
  // becomes one from its input's start by adding their records.
  [[noreturn]] void rethrow_first_error() {
    try {
      std::rethrow_exception(error_);
    } catch (const RecordError& e) {
      throw e.renumbered(records_before(failed_seq_));
    }
  }

  // The records of the parts before part `seq` of its input.
  uint64_t records_before(uint64_t seq) const {
    uint64_t before = 0;
    const size_t input = part_inputs_.at(seq);
    for (uint64_t q = 0; q < seq; ++q) {
      if (part_inputs_[q] == input) before += part_records_[q];
    }
    return before;
  }

 public:
  // With --skip-bad, once the run is over: the records skipped, and the first one's error.
  void skipped(RunStats& stats) const {
    stats.skipped += skipped_;
    if (first_skipped_ && stats.first_skipped.empty()) {
      stats.first_skipped = first_skipped_->renumbered(records_before(first_skipped_seq_)).what();
    }
  }

 private:
  const std::vector<std::string>& paths_;
  const InputFormat& format_;
  const ParallelJob& job_;
  PartFeeder feeder_;

  std::mutex mu_;
  std::condition_variable turn_;
  uint64_t next_commit_ = 0;
  uint64_t failed_seq_ = std::numeric_limits<uint64_t>::max();
  std::exception_ptr error_;
  std::vector<uint64_t> part_records_;
  std::vector<size_t> part_inputs_;
  uint64_t skipped_ = 0;
  uint64_t first_skipped_seq_ = std::numeric_limits<uint64_t>::max();
  std::optional<RecordError> first_skipped_;
};

}  // namespace

uint64_t run_parallel(const std::vector<std::string>& paths, const InputFormat& format,
                      unsigned threads, Progress& progress, const ParallelJob& job,
                      RunStats* stats) {
  ParallelRun run(paths, format, progress, job);
  const uint64_t count = run.run(std::max(threads, 1u));
  if (stats != nullptr) run.skipped(*stats);
  return count;
}

}  // namespace abloom_cli
