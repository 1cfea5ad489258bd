#include "input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <system_error>

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

RecordReader::RecordReader(const std::string& path, const InputFormat& format)
    : name_(display_name(path)), format_(format), buf_(1 << 20) {
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

// Moves the unread bytes to the front, grows the buffer when one record fills it (so no record is
// too long), and reads more. False at the end of the input.
bool RecordReader::refill() {
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
  for (;;) {
    ssize_t got = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
    if (got > 0) {
      end_ += static_cast<size_t>(got);
      return true;
    }
    if (got == 0) return false;
    if (errno != EINTR) fail_errno(name_, errno);
  }
}

bool RecordReader::read(Batch& batch, size_t max, bool keep_records) {
  // Whole blocks with read(2) and memchr for the ends: several times faster per line than
  // getdelim, which locks the stream and copies each line once more.
  const char delim = format_.nul ? '\0' : '\n';
  for (size_t n = 0; n < max; ++n) {
    std::string_view record;
    for (;;) {
      const char* start = buf_.data() + begin_;
      const void* hit = std::memchr(start, delim, end_ - begin_);
      if (hit != nullptr) {
        size_t len = static_cast<size_t>(static_cast<const char*>(hit) - start);
        record = std::string_view(start, len);
        begin_ += len + 1;
        bytes_ += len + 1;
        break;
      }
      if (!eof_ && refill()) continue;
      eof_ = true;
      if (begin_ == end_) return false;
      // The last record, without its terminator.
      record = std::string_view(start, end_ - begin_);
      bytes_ += end_ - begin_;
      begin_ = end_;
      break;
    }
    ++record_no_;
    if (keep_records) {
      batch.records.append(record);
      batch.record_offsets.push_back(batch.records.size());
    }
    // Lines may end with \r\n (files from Windows): the \r is not part of the key.
    if (!format_.nul && !record.empty() && record.back() == '\r') record.remove_suffix(1);
    append_key(batch, record);
  }
  return true;
}

void RecordReader::append_key(Batch& batch, std::string_view record) {
  std::string_view field = record;
  if (format_.column > 0) {
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
    field =
        record.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  }
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
      batch.keys.push_back(static_cast<char>(hi * 16 + lo));
    }
  } else if (format_.u64) {
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
      throw CliError(name_ + ": record " + std::to_string(record_no_) +
                     ": not an unsigned 64-bit decimal integer: '" +
                     std::string(field.substr(0, 64)) + "'");
    }
    // Little-endian on every machine: the key Python's int, Java's long and Go's and Rust's
    // little-endian bytes of the same number give.
    for (int b = 0; b < 8; ++b) batch.keys.push_back(static_cast<char>((value >> (8 * b)) & 0xff));
  } else {
    batch.keys.append(field);
  }
  batch.offsets.push_back(batch.keys.size());
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
  std::vector<char> buf(1 << 20);
  int64_t count = 0;
  char last = delim;
  size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    for (const char* p = buf.data();
         (p = static_cast<const char*>(std::memchr(p, delim, buf.data() + got - p))) != nullptr;
         ++p) {
      ++count;
    }
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
