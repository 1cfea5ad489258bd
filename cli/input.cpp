#include "input.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

#include "decompress.hpp"
#include "system.hpp"
#include "terminators.hpp"

namespace abloom_cli {

namespace {

[[noreturn]] void fail_errno(const std::string& name, int err) {
  throw InputError(name + ": " + errno_text(err));
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string display_name(const std::string& path) { return path == "-" ? "(stdin)" : path; }

RecordError::RecordError(std::string input_name, uint64_t record_no, std::string what)
    : InputError(input_name + ": record " + std::to_string(record_no) + what),
      input(std::move(input_name)),
      record(record_no),
      detail(std::move(what)) {}

RecordError RecordError::renumbered(uint64_t records_before) const {
  return RecordError(input, record + records_before, detail);
}

int open_input(const std::string& path) {
  if (path == "-") return 0;
  const std::string name = display_name(path);
  const int fd = sys::open_read(path);
  if (fd < 0) fail_errno(name, errno);
  sys::FileKind kind;
  int err = sys::kind_of_fd(fd, kind);
  if (err == 0 && kind.directory) err = EISDIR;
  if (err != 0) {
    sys::close_fd(fd);
    fail_errno(name, err);
  }
  return fd;
}

std::string errno_text(int err) {
  // std::strerror may share a buffer between threads; the category's message does not.
  return std::generic_category().message(err);
}

void Batch::start(size_t max, bool keep_records, bool converted_keys) {
  n_ = 0;
  converted_keys_ = converted_keys;
  converted_.clear();
  if (keys_.size() < max) {
    keys_.resize(max);
    lens_.resize(max);
  }
  if (converted_keys && converted_offsets_.size() < max) converted_offsets_.resize(max);
  if (keep_records && records_.size() < max) {
    records_.resize(max);
    record_lens_.resize(max);
  }
}

void Batch::finish() {
  if (!converted_keys_) return;
  for (size_t i = 0; i < n_; ++i) keys_[i] = converted_.data() + converted_offsets_[i];
}

RecordParser::RecordParser(std::string name, const InputFormat& format, std::string_view bytes)
    : name_(std::move(name)),
      format_(format),
      raw_keys_(format.column == 0 && !format.hex && !format.u64),
      buf_(bytes.data()),
      end_(bytes.size()) {}

// The records, up to `max` in the batch, while each key is its record: the loop every key of a
// plain input goes through, so it only finds the ends and stores two pointers and two lengths.
// Stops before a last record without its terminator.
template <bool kKeepRecords>
void RecordParser::take_raw_records(Batch& batch, size_t max) {
  const bool strip_cr = !format_.nul;
  const char* const base = buf_;
  const char* const end = base + end_;
  const char* record = base + begin_;
  TerminatorFinder finder(base + scanned_, end, format_.nul ? '\0' : '\n');
  const void** keys = batch.keys_.data();
  size_t* lens = batch.lens_.data();
  const char** records = batch.records_.data();
  size_t* record_lens = batch.record_lens_.data();
  size_t n = batch.n_;
  bool whole = false;  // every byte up to `end` was looked at
  while (n < max) {
    const char* hit = finder.next();
    if (hit == nullptr) {
      whole = true;
      break;
    }
    const size_t len = static_cast<size_t>(hit - record);
    if constexpr (kKeepRecords) {
      records[n] = record;
      record_lens[n] = len;
    }
    keys[n] = record;
    // Lines may end with \r\n (files from Windows): the \r is not part of the key.
    lens[n] = len - static_cast<size_t>(strip_cr && len > 0 && hit[-1] == '\r');
    ++n;
    record = hit + 1;
  }
  record_no_ += n - batch.n_;
  batch.n_ = n;
  begin_ = static_cast<size_t>(record - base);
  scanned_ = whole ? end_ : begin_;
}

// The next record, at buf_[start, start + len) (without its terminator); false at the end.
bool RecordParser::next_record(size_t& start, size_t& len) {
  if (begin_ == end_) return false;
  const char delim = format_.nul ? '\0' : '\n';
  const void* hit = std::memchr(buf_ + scanned_, delim, end_ - scanned_);
  start = begin_;
  // No terminator: the last record of the input, without one.
  len =
      (hit != nullptr ? static_cast<size_t>(static_cast<const char*>(hit) - buf_) : end_) - begin_;
  begin_ = std::min(begin_ + len + 1, end_);
  scanned_ = begin_;
  return true;
}

void RecordParser::add_record(Batch& batch, size_t start, size_t len, bool keep_records) {
  ++record_no_;
  const char* record = buf_ + start;
  if (keep_records) {
    batch.records_[batch.n_] = record;
    batch.record_lens_[batch.n_] = len;
  }
  if (!format_.nul && len > 0 && record[len - 1] == '\r') --len;
  if (raw_keys_) {
    batch.keys_[batch.n_] = record;
    batch.lens_[batch.n_] = len;
  } else if (!format_.skip_bad) {
    add_key(batch, std::string_view(record, len));
  } else {
    // --skip-bad: the record is left out of the batch, its slot taken by the next one, and the
    // bytes a conversion wrote before it failed are dropped.
    const size_t converted = batch.converted_.size();
    try {
      add_key(batch, std::string_view(record, len));
    } catch (const RecordError& e) {
      batch.converted_.resize(converted);
      if (skipped_++ == 0) first_skipped_ = e;
      return;
    }
  }
  ++batch.n_;
}

bool RecordParser::read(Batch& batch, size_t max, bool keep_records) {
  batch.start(max, keep_records, format_.hex || format_.u64);
  size_t start = 0;
  size_t len = 0;
  while (batch.n_ < max) {
    if (raw_keys_) {
      if (keep_records) {
        take_raw_records<true>(batch, max);
      } else {
        take_raw_records<false>(batch, max);
      }
      if (batch.n_ == max) break;
    }
    if (!next_record(start, len)) {
      batch.finish();
      return false;
    }
    add_record(batch, start, len, keep_records);
  }
  batch.finish();
  return true;
}

// The key of a record with --column, --hex or --u64.
void RecordParser::add_key(Batch& batch, std::string_view record) {
  std::string_view field = field_of(record);
  if (format_.hex || format_.u64) {
    const size_t offset = batch.converted_.size();
    convert_key(batch, field);
    batch.converted_offsets_[batch.n_] = offset;
    batch.lens_[batch.n_] = batch.converted_.size() - offset;
  } else {
    // A field of the record as read: no copy either.
    batch.keys_[batch.n_] = field.data();
    batch.lens_[batch.n_] = field.size();
  }
}

std::string_view RecordParser::field_of(std::string_view record) const {
  if (format_.column == 0) return record;
  size_t start = 0;
  for (unsigned c = 1; c < format_.column; ++c) {
    size_t next = record.find(format_.delimiter, start);
    if (next == std::string_view::npos) {
      throw RecordError(name_, record_no_,
                        " has no column " + std::to_string(format_.column) + " (only " +
                            std::to_string(c) + (c == 1 ? " field)" : " fields)"));
    }
    start = next + 1;
  }
  size_t end = record.find(format_.delimiter, start);
  return record.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

// Appends the bytes --hex or --u64 make of `field` to the batch's converted keys.
void RecordParser::convert_key(Batch& batch, std::string_view field) {
  std::string& out = batch.converted_;
  if (format_.hex) {
    if (field.size() % 2 != 0) {
      throw RecordError(name_, record_no_, ": odd number of hex digits");
    }
    for (size_t i = 0; i < field.size(); i += 2) {
      int hi = hex_value(field[i]);
      int lo = hex_value(field[i + 1]);
      if (hi < 0 || lo < 0) {
        throw RecordError(name_, record_no_,
                          ": not hex: '" + std::string(field.substr(0, 64)) + "'");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
    throw RecordError(
        name_, record_no_,
        ": not an unsigned 64-bit decimal integer: '" + std::string(field.substr(0, 64)) + "'");
  }
  // Little-endian on every machine: the key Python's int, Java's long and Go's and Rust's
  // little-endian bytes of the same number give.
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((value >> (8 * b)) & 0xff));
}

namespace {

// What one thread counts of a file's byte range: its terminators, its last byte (unchanged when
// it read none) and an error's errno.
struct RangeCount {
  size_t terminators = 0;
  char last = 0;
  int err = 0;
};

// Counts bytes [from, to) of `fd`, read with pread in 1 MiB blocks. A file that shrinks meanwhile
// ends the count early: it only sizes a filter.
void count_range(int fd, uint64_t from, uint64_t to, char delim, RangeCount& out) {
  const size_t block = size_t{1} << 20;
  auto buf = std::make_unique_for_overwrite<char[]>(block);
  while (from < to) {
    const int64_t got = sys::read_at(
        fd, buf.get(), static_cast<size_t>(std::min<uint64_t>(block, to - from)), from);
    if (got < 0) out.err = errno;
    if (got <= 0) break;
    out.terminators += count_terminators(buf.get(), static_cast<size_t>(got), delim);
    out.last = buf[static_cast<size_t>(got) - 1];
    from += static_cast<uint64_t>(got);
  }
}

// The records of a gzip file, decompressed in one pass on one thread (a gzip stream cannot be cut
// into ranges).
int64_t count_gzip_records(int fd, const std::string& name, char delim) {
  GzipReader reader(fd, name, std::string_view());
  const size_t block = size_t{1} << 20;
  auto buf = std::make_unique_for_overwrite<char[]>(block);
  int64_t count = 0;
  char last = delim;  // an empty file: no record at all
  for (;;) {
    const size_t got = reader.read_some(buf.get(), block);
    if (got == 0) break;
    count += static_cast<int64_t>(count_terminators(buf.get(), got, delim));
    last = buf[got - 1];
  }
  return last != delim ? count + 1 : count;
}

}  // namespace

int64_t count_records(const std::string& path, const InputFormat& format, unsigned threads) {
  if (path == "-") return -1;
  const std::string name = display_name(path);
  // Looked at before it is opened: opening a FIFO would wait for its writer, and closing it
  // would leave the writer a broken pipe.
  sys::FileKind kind;
  if (const int err = sys::kind_of_path(path, kind); err != 0) fail_errno(name, err);
  if (kind.directory) fail_errno(name, EISDIR);
  if (!kind.regular) return -1;
  const int fd = open_input(path);
  struct Closer {
    int fd;
    ~Closer() { sys::close_fd(fd); }
  } closer{fd};
  if (const int err = sys::kind_of_fd(fd, kind); err != 0) fail_errno(name, err);
  const uint64_t size = kind.size;
  const char delim = format.nul ? '\0' : '\n';
  char head[8];
  const int64_t head_bytes = sys::read_at(fd, head, sizeof head, 0);
  const Compression compression =
      compression_of(std::string_view(head, head_bytes > 0 ? static_cast<size_t>(head_bytes) : 0));
  if (compression != Compression::none) {
    check_readable(compression, name);
    return count_gzip_records(fd, name, delim);
  }
  // One range per thread, of at least 4 MiB: below that a thread costs more than it saves.
  const uint64_t ranges = std::clamp<uint64_t>(size >> 22, 1, std::max(threads, 1u));
  std::vector<RangeCount> counts(ranges);
  counts.back().last = delim;  // an empty file: no record at all
  auto count_one = [&](uint64_t r) {
    count_range(fd, size * r / ranges, size * (r + 1) / ranges, delim, counts[r]);
  };
  std::vector<std::thread> others;
  for (uint64_t r = 1; r < ranges; ++r) {
    try {
      others.emplace_back(count_one, r);
    } catch (const std::system_error&) {
      count_one(r);  // no thread to be had: this one counts the range
    }
  }
  count_one(0);
  for (auto& t : others) t.join();
  int64_t count = 0;
  for (const RangeCount& c : counts) {
    if (c.err != 0) fail_errno(name, c.err);
    count += static_cast<int64_t>(c.terminators);
  }
  // The file's last byte is the last range's: a last record without its terminator counts too.
  if (counts.back().last != delim) ++count;
  return count;
}

uint64_t file_size(const std::string& path) {
  sys::FileKind kind;
  if (path == "-" || sys::kind_of_path(path, kind) != 0) return 0;
  return kind.size;
}

}  // namespace abloom_cli
