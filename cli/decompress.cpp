#include "decompress.hpp"

#include <cerrno>
#include <cstring>

#include "input.hpp"
#include "system.hpp"

#if ABLOOM_CLI_HAVE_ZLIB
#include <zlib.h>
#endif

namespace abloom_cli {

namespace {

bool starts_with(std::string_view head, std::string_view magic) {
  return head.size() >= magic.size() && head.substr(0, magic.size()) == magic;
}

// What to say of a format, and the command that decompresses it to standard output.
struct Format {
  const char* name;
  const char* decompress;
};

Format format_of(Compression c) {
  switch (c) {
    case Compression::gzip:
      return {"gzip", "gzip -dc"};
    case Compression::zstd:
      return {"zstd", "zstd -dc"};
    case Compression::xz:
      return {"xz", "xz -dc"};
    case Compression::bzip2:
      return {"bzip2", "bzip2 -dc"};
    case Compression::lz4:
      return {"lz4", "lz4 -dc"};
    case Compression::none:
      break;
  }
  return {"none", "cat"};
}

}  // namespace

Compression compression_of(std::string_view head) {
  using namespace std::string_view_literals;
  if (starts_with(head, "\x1f\x8b"sv)) return Compression::gzip;
  if (starts_with(head, "\x28\xb5\x2f\xfd"sv)) return Compression::zstd;
  if (starts_with(head, "\xfd\x37\x7a\x58\x5a\x00"sv)) return Compression::xz;
  if (starts_with(head, "\x04\x22\x4d\x18"sv)) return Compression::lz4;
  // "BZh" and a block size digit: three letters alone could start a line of text.
  if (head.size() >= 4 && starts_with(head, "BZh"sv) && head[3] >= '1' && head[3] <= '9') {
    return Compression::bzip2;
  }
  return Compression::none;
}

bool reads_gzip() { return ABLOOM_CLI_HAVE_ZLIB != 0; }

void check_readable(Compression c, const std::string& name) {
  if (c == Compression::none || (c == Compression::gzip && reads_gzip())) return;
  const Format f = format_of(c);
  const std::string why = c == Compression::gzip
                              ? "this abloom was built without zlib, so it reads no gzip input"
                              : std::string("abloom reads plain or gzip input only");
  const std::string source = name == display_name("-") ? "" : " " + name;
  throw InputError(name + ": compressed with " + f.name + "; " + why + ": decompress it first (" +
                   f.decompress + source + " | abloom ...)");
}

#if ABLOOM_CLI_HAVE_ZLIB

struct GzipReader::State {
  z_stream z{};
  int fd = -1;
  std::string name;
  std::unique_ptr<unsigned char[]> in;
  static constexpr size_t kInBytes = size_t{1} << 18;
  bool input_ended = false;
  bool member_ended = false;  // the last inflate() finished a member (and no byte followed yet)
};

GzipReader::GzipReader(int fd, std::string name, std::string_view head)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.fd = fd;
  s.name = std::move(name);
  s.in = std::make_unique_for_overwrite<unsigned char[]>(std::max(State::kInBytes, head.size()));
  if (!head.empty()) std::memcpy(s.in.get(), head.data(), head.size());
  // 16 + MAX_WBITS: a gzip header and trailer (its CRC and length are checked).
  if (inflateInit2(&s.z, 16 + MAX_WBITS) != Z_OK) {
    throw InputError(s.name + ": cannot start zlib: out of memory");
  }
  s.z.next_in = s.in.get();
  s.z.avail_in = static_cast<uInt>(head.size());
}

GzipReader::~GzipReader() { inflateEnd(&state_->z); }

size_t GzipReader::read_some(char* to, size_t room) {
  State& s = *state_;
  // zlib counts in uInt: a part's buffer is far below 4 GiB, but say so.
  const uInt out_room = static_cast<uInt>(std::min<size_t>(room, 1u << 30));
  s.z.next_out = reinterpret_cast<unsigned char*>(to);
  s.z.avail_out = out_room;
  while (s.z.avail_out == out_room) {
    if (s.z.avail_in == 0 && !s.input_ended) {
      const int64_t got =
          sys::read_some(s.fd, reinterpret_cast<char*>(s.in.get()), State::kInBytes);
      if (got < 0) {
        const int err = errno;
        throw InputError(s.name + ": " + errno_text(err));
      }
      s.input_ended = got == 0;
      s.z.next_in = s.in.get();
      s.z.avail_in = static_cast<uInt>(got);
    }
    if (s.z.avail_in == 0 && s.input_ended) {
      if (!s.member_ended) {
        throw InputError(s.name + ": gzip data ends early (a truncated file?)");
      }
      break;
    }
    if (s.member_ended) {
      // More bytes after a member: the next member (gzip -d reads concatenated files).
      inflateReset(&s.z);
      s.member_ended = false;
    }
    const int rc = inflate(&s.z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      s.member_ended = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw InputError(s.name + ": not valid gzip data (" +
                       (s.z.msg != nullptr ? s.z.msg : "zlib error " + std::to_string(rc)) + ")");
    }
  }
  return out_room - s.z.avail_out;
}

#else

struct GzipReader::State {};

GzipReader::GzipReader(int, std::string name, std::string_view) {
  check_readable(Compression::gzip, name);  // throws: no zlib
}

GzipReader::~GzipReader() = default;

size_t GzipReader::read_some(char*, size_t) { return 0; }

#endif

}  // namespace abloom_cli
