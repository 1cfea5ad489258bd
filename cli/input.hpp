// Records of the abloom command's inputs turned into keys (parallel_input.hpp reads the inputs).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace abloom_cli {

// Every failure the user should see: main() prints "abloom: <what>" and exits with status 2.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An input that cannot be opened or read, or a record of it that cannot become a key: query
// reports it and goes on with the next input, as grep does.
struct InputError : CliError {
  using CliError::CliError;
};

// A record that cannot become a key: "<input>: record <N><detail>". The number counts records
// from the start of the input; a parser of one part of it counts from the start of its part, and
// renumbered() adds the records before the part.
struct RecordError : InputError {
  RecordError(std::string input, uint64_t record, std::string detail);
  RecordError renumbered(uint64_t records_before) const;

  std::string input;
  uint64_t record;
  std::string detail;
};

// The reason for an errno value, as strerror words it.
std::string errno_text(int err);

// How a record becomes a key. Keys are the exact bytes of the record (or of its field), so a key
// added here is found by the same bytes from every binding.
struct InputFormat {
  bool nul = false;       // -0: records end with NUL instead of newline (no \r is stripped)
  unsigned column = 0;    // --column N (1-based); 0: the whole record
  char delimiter = ',';   // --delimiter C, for --column
  bool hex = false;       // --hex: the field is hex digits, the key is the bytes they spell
  bool u64 = false;       // --u64: the field is a decimal uint64, the key its 8 little-endian bytes
  bool skip_bad = false;  // --skip-bad: a record that cannot become a key is counted, not an error
};

// A batch of records, for abloom_add_many/abloom_test_many: key i is keys()[i] with lens()[i]
// bytes, record i (without its terminator, for the commands that print it) is record(i). Nothing
// is copied: keys and records point into the parsed bytes, except keys that --hex or --u64
// convert, which the batch holds until the next read() into it.
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
  friend class RecordParser;
  void start(size_t max, bool keep_records, bool converted_keys);
  void finish();

  size_t n_ = 0;
  // --hex and --u64 keys are built in `converted_`, which moves as it grows: they are offsets
  // into it until finish() makes their pointers.
  bool converted_keys_ = false;
  std::string converted_;
  std::vector<size_t> converted_offsets_;
  // Sized once to the largest batch and written by index: push_back would cost more per key than
  // everything else the parser does for it.
  std::vector<const void*> keys_;
  std::vector<size_t> lens_;
  std::vector<const char*> records_;
  std::vector<size_t> record_lens_;
};

// Turns bytes that hold whole records (a part of input `name`: parallel_input.hpp) into batches.
// The bytes are borrowed, never copied: they must outlive the parser and its batches.
class RecordParser {
 public:
  RecordParser(std::string name, const InputFormat& format, std::string_view bytes);

  // Fills `batch` with up to `max` records (records too when keep_records); false once every
  // record is in a batch (the batch may still hold the last ones).
  bool read(Batch& batch, size_t max, bool keep_records);

  // The records parsed so far (those skipped among them).
  uint64_t records() const { return record_no_; }
  // With --skip-bad: the records skipped, and the error of the first.
  uint64_t skipped() const { return skipped_; }
  const std::optional<RecordError>& first_skipped() const { return first_skipped_; }

 private:
  template <bool kKeepRecords>
  void take_raw_records(Batch& batch, size_t max);
  bool next_record(size_t& start, size_t& len);
  void add_record(Batch& batch, size_t start, size_t len, bool keep_records);
  void add_key(Batch& batch, std::string_view record);
  std::string_view field_of(std::string_view record) const;
  void convert_key(Batch& batch, std::string_view field);

  std::string name_;
  InputFormat format_;
  bool raw_keys_;  // the key is the record itself: no --column, --hex or --u64
  const char* buf_;
  size_t begin_ = 0;    // the records not yet in a batch are buf_[begin_, end_)
  size_t scanned_ = 0;  // buf_[begin_, scanned_) holds no terminator
  size_t end_;
  uint64_t record_no_ = 0;
  uint64_t skipped_ = 0;
  std::optional<RecordError> first_skipped_;
};

// The number of records in a regular file (a cheap first pass, to size a filter), or -1 when
// `path` is stdin, a FIFO or anything else that cannot be read twice.
// `threads` threads count ranges of a large file at once.
int64_t count_records(const std::string& path, const InputFormat& format, unsigned threads);

// The size of a regular file, or 0 (unknown) for stdin and FIFOs.
uint64_t file_size(const std::string& path);

// "(stdin)" for "-", else the path: how messages name an input.
std::string display_name(const std::string& path);

// Opens an input for reading: "-" is stdin (fd 0, not to be closed). A directory is refused here,
// where it would otherwise fail only at the first read with a vaguer message.
int open_input(const std::string& path);

}  // namespace abloom_cli
