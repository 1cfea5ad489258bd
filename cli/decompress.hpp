// Compressed inputs: gzip is read through zlib (where the command was built with it: native builds,
// see cli/CMakeLists.txt); the other common formats, and gzip without zlib, are refused by name
// rather than read as keys. Recognised by their magic bytes, whatever the file is called.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace abloom_cli {

enum class Compression { none, gzip, zstd, xz, bzip2, lz4 };

// The compression the first bytes of an input show (as many as one read gave: a stream's first
// read of fewer bytes than a magic number is taken for plain input).
Compression compression_of(std::string_view head);

// Whether this command reads gzip input (built with zlib).
bool reads_gzip();

// Throws InputError for a compression the command does not read: "<name>: compressed with <fmt>;
// ..." with what to run instead. Returns for none and (with zlib) gzip.
void check_readable(Compression c, const std::string& name);

// The decompressed bytes of a gzip input read from `fd` (not owned), the bytes in `head` first
// (those already read from it). Concatenated members are read one after another, as gzip -d does.
class GzipReader {
 public:
  GzipReader(int fd, std::string name, std::string_view head);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Up to `room` decompressed bytes (at least one unless at the end): how many, 0 at the end.
  // Throws InputError for a read error, corrupt data, or an input that ends inside a member.
  size_t read_some(char* to, size_t room);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace abloom_cli
