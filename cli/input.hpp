// Input readers of the abloom command: records from files, FIFOs or stdin, turned into keys.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
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

// A batch of records as read, for abloom_add_many/abloom_test_many: key i is keys()[i] with
// lens()[i] bytes, record i (without its terminator, for the commands that print it) is record(i).
// Nothing is copied: keys and records point into the reader's buffer, except keys that --hex or
// --u64 convert, which the batch holds. So every pointer is valid only until the next read() from
// the same reader (which may move or overwrite its buffer), and the batch must be used before it.
class Batch {
 public:
  size_t size() const { return n_; }
  const void* const* keys() const { return keys_.data(); }
  const size_t* lens() const { return lens_.data(); }
  std::string_view key(size_t i) const {
    return std::string_view(static_cast<const char*>(keys_[i]), lens_[i]);
  }
  std::string_view record(size_t i) const { return std::string_view(records_[i], record_lens_[i]); }

 private:
  friend class RecordReader;
  void start(size_t max, bool keep_records, bool converted_keys);
  // The reader moved the batch's bytes from `from` to `to`: its pointers follow them.
  void rebase(const char* from, const char* to);
  void finish();

  size_t n_ = 0;
  bool keep_records_ = false;
  // --hex and --u64 keys are built in `converted_`, which moves as it grows: they are offsets
  // into it until finish() makes their pointers.
  bool converted_keys_ = false;
  std::string converted_;
  std::vector<size_t> converted_offsets_;
  // Sized once to the largest batch and written by index: push_back would cost more per key than
  // everything else the reader does for it.
  std::vector<const void*> keys_;
  std::vector<size_t> lens_;
  std::vector<const char*> records_;
  std::vector<size_t> record_lens_;
};

// Reads one input ("-" is stdin) record by record. The buffer grows as needed, so no record is too
// long (a 1 MB key is one record like any other).
class RecordReader {
 public:
  static constexpr size_t kFirstBufferSize = size_t{1} << 20;

  RecordReader(const std::string& path, const InputFormat& format);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // Fills `batch` with up to `max` records (records too when keep_records); false at the end (the
  // batch may still hold the last records). The batch of the previous call is invalid from here.
  bool read(Batch& batch, size_t max, bool keep_records);
  // Bytes read so far, for the progress line.
  uint64_t bytes_read() const { return bytes_; }
  const std::string& name() const { return name_; }

 private:
  template <bool kKeepRecords>
  void take_raw_records(Batch& batch, size_t max);
  bool next_record(Batch& batch, size_t& start, size_t& len);
  void add_record(Batch& batch, size_t start, size_t len, bool keep_records);
  void add_key(Batch& batch, std::string_view record);
  std::string_view field_of(std::string_view record) const;
  void convert_key(Batch& batch, std::string_view field);
  bool refill(Batch& batch);

  std::string name_;
  InputFormat format_;
  bool raw_keys_;  // the key is the record itself: no --column, --hex or --u64

  int fd_ = 0;
  bool owned_ = false;
  bool eof_ = false;
  std::unique_ptr<char[]> buf_;
  size_t buf_size_;
  size_t batch_begin_ = 0;  // the batch being filled starts here; refill() keeps its bytes
  size_t begin_ = 0;        // the unread bytes are buf_[begin_, end_)
  size_t scanned_ = 0;      // buf_[begin_, scanned_) holds no terminator
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
