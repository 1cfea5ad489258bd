#include "input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "terminators.hpp"

namespace abloom_cli {

namespace {

std::string display_name(const std::string& path) { return path == "-" ? "(stdin)" : path; }

[[noreturn]] void fail_errno(const std::string& name, int err) {
  throw CliError(name + ": " + errno_text(err));
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string errno_text(int err) {
  // std::strerror may share a buffer between threads; the category's message does not.
  return std::generic_category().message(err);
}

void Batch::start(size_t max, bool keep_records, bool converted_keys) {
  n_ = 0;
  keep_records_ = keep_records;
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

void Batch::rebase(const char* from, const char* to) {
  // Every pointer but a converted key's is into the moved bytes.
  if (!converted_keys_) {
    for (size_t i = 0; i < n_; ++i) keys_[i] = to + (static_cast<const char*>(keys_[i]) - from);
  }
  if (keep_records_) {
    for (size_t i = 0; i < n_; ++i) records_[i] = to + (records_[i] - from);
  }
}

void Batch::finish() {
  if (!converted_keys_) return;
  for (size_t i = 0; i < n_; ++i) keys_[i] = converted_.data() + converted_offsets_[i];
}

RecordReader::RecordReader(const std::string& path, const InputFormat& format)
    : name_(display_name(path)),
      format_(format),
      raw_keys_(format.column == 0 && !format.hex && !format.u64),
      buf_(std::make_unique_for_overwrite<char[]>(kFirstBufferSize)),
      buf_size_(kFirstBufferSize) {
  if (path == "-") return;  // fd_ is 0
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail_errno(name_, errno);
  owned_ = true;
  // A directory opens, and would fail only at the first read, with a vaguer message.
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail_errno(name_, errno);
  if (S_ISDIR(st.st_mode)) fail_errno(name_, EISDIR);
}

RecordReader::~RecordReader() {
  if (owned_) ::close(fd_);
}

// Moves the bytes of the batch being filled and the unread ones to the front of the buffer (the
// batch's pointers follow them), grows the buffer when they fill more than half of it (so no
// record is too long, and a batch's bytes move at most once per half a buffer read), and reads
// more. False at the end of the input.
bool RecordReader::refill(Batch& batch) {
  const size_t keep = end_ - batch_begin_;
  const char* from = buf_.get() + batch_begin_;
  if (buf_size_ - keep < buf_size_ / 2) {
    // Not a std::vector: its zeroing of the new bytes would cost as much as reading them.
    auto bigger = std::make_unique_for_overwrite<char[]>(buf_size_ * 2);
    std::memcpy(bigger.get(), from, keep);
    batch.rebase(from, bigger.get());
    buf_ = std::move(bigger);
    buf_size_ *= 2;
  } else if (batch_begin_ > 0) {
    std::memmove(buf_.get(), from, keep);
    batch.rebase(from, buf_.get());
  }
  begin_ -= batch_begin_;
  scanned_ -= batch_begin_;
  end_ = keep;
  batch_begin_ = 0;
  for (;;) {
    ssize_t got = ::read(fd_, buf_.get() + end_, buf_size_ - end_);
    if (got > 0) {
      end_ += static_cast<size_t>(got);
      return true;
    }
    if (got == 0) return false;
    if (errno != EINTR) fail_errno(name_, errno);
  }
}

// The records of the buffer, up to `max` in the batch, while each key is its record: the loop
// every key of a plain input goes through, so it only finds the ends and stores two pointers and
// two lengths. Stops at the first record the buffer does not hold whole.
template <bool kKeepRecords>
void RecordReader::take_raw_records(Batch& batch, size_t max) {
  const bool strip_cr = !format_.nul;
  const char* const base = buf_.get();
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
  bytes_ += static_cast<uint64_t>(record - (base + begin_));
  begin_ = static_cast<size_t>(record - base);
  scanned_ = whole ? end_ : begin_;
}

// The next record, at buf_[start, start + len) (without its terminator), reading more when the
// buffer holds no whole record; false at the end.
// Whole blocks with read(2) and memchr for the ends: several times faster per line than
// getdelim, which locks the stream and copies each line once more.
bool RecordReader::next_record(Batch& batch, size_t& start, size_t& len) {
  const char delim = format_.nul ? '\0' : '\n';
  for (;;) {
    const void* hit = std::memchr(buf_.get() + scanned_, delim, end_ - scanned_);
    if (hit != nullptr) {
      start = begin_;
      len = static_cast<size_t>(static_cast<const char*>(hit) - buf_.get()) - begin_;
      begin_ += len + 1;
      scanned_ = begin_;
      bytes_ += len + 1;
      return true;
    }
    scanned_ = end_;  // a record read in many pieces (a long one, a slow pipe) is scanned once
    if (!eof_ && refill(batch)) continue;
    eof_ = true;
    if (begin_ == end_) return false;
    // The last record, without its terminator.
    start = begin_;
    len = end_ - begin_;
    bytes_ += len;
    begin_ = scanned_ = end_;
    return true;
  }
}

void RecordReader::add_record(Batch& batch, size_t start, size_t len, bool keep_records) {
  ++record_no_;
  const char* record = buf_.get() + start;
  if (keep_records) {
    batch.records_[batch.n_] = record;
    batch.record_lens_[batch.n_] = len;
  }
  if (!format_.nul && len > 0 && record[len - 1] == '\r') --len;
  if (raw_keys_) {
    batch.keys_[batch.n_] = record;
    batch.lens_[batch.n_] = len;
  } else {
    add_key(batch, std::string_view(record, len));
  }
  ++batch.n_;
}

bool RecordReader::read(Batch& batch, size_t max, bool keep_records) {
  // The previous batch is done with: its bytes may now be moved or overwritten.
  batch_begin_ = begin_;
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
    if (!next_record(batch, start, len)) {
      batch.finish();
      return false;
    }
    add_record(batch, start, len, keep_records);
  }
  batch.finish();
  return true;
}

// The key of a record with --column, --hex or --u64.
void RecordReader::add_key(Batch& batch, std::string_view record) {
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

std::string_view RecordReader::field_of(std::string_view record) const {
  if (format_.column == 0) return record;
  size_t start = 0;
  for (unsigned c = 1; c < format_.column; ++c) {
    size_t next = record.find(format_.delimiter, start);
    if (next == std::string_view::npos) {
      throw CliError(name_ + ": record " + std::to_string(record_no_) + " has no column " +
                     std::to_string(format_.column) + " (only " + std::to_string(c) +
                     (c == 1 ? " field)" : " fields)"));
    }
    start = next + 1;
  }
  size_t end = record.find(format_.delimiter, start);
  return record.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

// Appends the bytes --hex or --u64 make of `field` to the batch's converted keys.
void RecordReader::convert_key(Batch& batch, std::string_view field) {
  std::string& out = batch.converted_;
  if (format_.hex) {
    if (field.size() % 2 != 0) {
      throw CliError(name_ + ": record " + std::to_string(record_no_) +
                     ": odd number of hex digits");
    }
    for (size_t i = 0; i < field.size(); i += 2) {
      int hi = hex_value(field[i]);
      int lo = hex_value(field[i + 1]);
      if (hi < 0 || lo < 0) {
        throw CliError(name_ + ": record " + std::to_string(record_no_) + ": not hex: '" +
                       std::string(field.substr(0, 64)) + "'");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
    throw CliError(name_ + ": record " + std::to_string(record_no_) +
                   ": not an unsigned 64-bit decimal integer: '" +
                   std::string(field.substr(0, 64)) + "'");
  }
  // Little-endian on every machine: the key Python's int, Java's long and Go's and Rust's
  // little-endian bytes of the same number give.
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((value >> (8 * b)) & 0xff));
}

int64_t count_records(const std::string& path, const InputFormat& format) {
  if (path == "-") return -1;
  std::string name = display_name(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_errno(name, errno);
  if (S_ISDIR(st.st_mode)) fail_errno(name, EISDIR);
  if (!S_ISREG(st.st_mode)) return -1;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) fail_errno(name, errno);
  const char delim = format.nul ? '\0' : '\n';
  const size_t buf_size = size_t{1} << 20;
  auto buf = std::make_unique_for_overwrite<char[]>(buf_size);
  int64_t count = 0;
  char last = delim;
  size_t got;
  while ((got = std::fread(buf.get(), 1, buf_size, f)) > 0) {
    count += static_cast<int64_t>(count_terminators(buf.get(), got, delim));
    last = buf[got - 1];
  }
  bool error = std::ferror(f) != 0;
  int err = errno;
  std::fclose(f);
  if (error) fail_errno(name, err != 0 ? err : EIO);
  if (last != delim) ++count;  // a last record without its terminator
  return count;
}

uint64_t file_size(const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace abloom_cli
