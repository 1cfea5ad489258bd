// Input readers of the abloom command: records from files, FIFOs or stdin, turned into keys.
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace abloom_cli {

// Every failure the user should see: main() prints "abloom: <what>" and exits with status 2.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The reason for an errno value, as strerror words it.
std::string errno_text(int err);

// How a record becomes a key. Keys are the exact bytes of the record (or of its field), so a key
// added here is found by the same bytes from every binding.
struct InputFormat {
  bool nul = false;      // -0: records end with NUL instead of newline (no \r is stripped)
  unsigned column = 0;   // --column N (1-based); 0: the whole record
  char delimiter = ',';  // --delimiter C, for --column
  bool hex = false;      // --hex: the field is hex digits, the key is the bytes they spell
  bool u64 = false;      // --u64: the field is a decimal uint64, the key its 8 little-endian bytes
};

// A batch of records: the keys packed for abloom_add_packed/abloom_test_packed (key i is
// keys[offsets[i] .. offsets[i+1])), and, when asked for, the records as read (without their
// terminator), for the commands that print them.
struct Batch {
  std::string keys;
  std::vector<uint64_t> offsets{0};
  std::string records;
  std::vector<uint64_t> record_offsets{0};

  size_t size() const { return offsets.size() - 1; }
  void clear() {
    keys.clear();
    offsets.assign(1, 0);
    records.clear();
    record_offsets.assign(1, 0);
  }
  std::string_view key(size_t i) const {
    return std::string_view(keys).substr(offsets[i], offsets[i + 1] - offsets[i]);
  }
  std::string_view record(size_t i) const {
    return std::string_view(records).substr(record_offsets[i],
                                            record_offsets[i + 1] - record_offsets[i]);
  }
};

// Reads one input ("-" is stdin) record by record. The buffer grows as needed, so no record is too
// long (a 1 MB key is one record like any other).
class RecordReader {
 public:
  RecordReader(const std::string& path, const InputFormat& format);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // Appends up to `max` records to `batch` (records too when keep_records); false at the end.
  bool read(Batch& batch, size_t max, bool keep_records);
  // Bytes read so far, for the progress line.
  uint64_t bytes_read() const { return bytes_; }
  const std::string& name() const { return name_; }

 private:
  void append_key(Batch& batch, std::string_view record);

  std::string name_;
  InputFormat format_;
  bool refill();

  int fd_ = 0;
  bool owned_ = false;
  bool eof_ = false;
  std::vector<char> buf_;
  size_t begin_ = 0;  // the unread bytes are buf_[begin_, end_)
  size_t end_ = 0;
  uint64_t record_no_ = 0;
  uint64_t bytes_ = 0;
};

// The number of records in a regular file (a cheap first pass, to size a filter), or -1 when
// `path` is stdin, a FIFO or anything else that cannot be read twice.
int64_t count_records(const std::string& path, const InputFormat& format);

// The size of a regular file, or 0 (unknown) for stdin and FIFOs.
uint64_t file_size(const std::string& path);

}  // namespace abloom_cli
