#include "file_io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "format.hpp"

namespace abloom {
namespace {

// Closes a descriptor on scope exit, keeping errno as it was.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
    }
  }
};

bool write_all(int fd, const unsigned char* p, size_t n, off_t at) noexcept {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, at);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += w;
  }
  return true;
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes header + body to fd: the body as write_serialized streams it, in 512 KiB writes, then
// the final header. Throws std::bad_alloc (for the chunk).
bool write_filter(int fd, const Filter& filter) {
  unsigned char header[kHeaderBytes];
  std::vector<uint64_t> chunk(size_t{64} * 1024);
  const bool body_ok = write_serialized(filter, header, chunk.data(), chunk.size(),
                                        [fd](uint64_t at, const unsigned char* bytes, size_t len) {
                                          return write_all(fd, bytes, len, static_cast<off_t>(at));
                                        });
  return body_ok && write_all(fd, header, kHeaderBytes, 0);
}

// A mapped file, unmapped (and closed) with the filter. For read-write mappings it owns the
// header: marked stale at open, rewritten by sync().
class MappedFile final : public ExternalMemory {
 public:
  MappedFile(unsigned char* base, size_t len, bool shared_writable)
      : base_(base), len_(len), shared_writable_(shared_writable) {}
  ~MappedFile() override { ::munmap(base_, len_); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  Errc sync(const Filter& filter) noexcept override {
    if (!shared_writable_) return Errc::ok;
    Header h = header_for(filter);
    unsigned char header[kHeaderBytes];
    encode_header(h, header);
    h.checksum = checksum_with_body(header, base_ + kHeaderBytes, h.body_bytes());
    encode_header(h, base_);
    return ::msync(base_, len_, MS_SYNC) == 0 ? Errc::ok : Errc::io;
  }

  // Marks the header stale: the body will change under the checksum.
  Errc mark_stale(const Header& parsed) noexcept {
    Header h = parsed;
    h.flags |= kFlagChecksumStale;
    encode_header(h, base_);
    return ::msync(base_, kHeaderBytes, MS_SYNC) == 0 ? Errc::ok : Errc::io;
  }

 private:
  unsigned char* base_;
  size_t len_;
  bool shared_writable_;
};

}  // namespace

Errc save_file(const Filter& filter, const char* path) noexcept {
  try {
    const std::string target(path);
    std::string tmp = target + ".tmp.XXXXXX";
    Fd fd;
    fd.fd = ::mkstemp(tmp.data());
    if (fd.fd < 0) return Errc::io;
    auto fail = [&] {
      const int saved = errno;
      ::unlink(tmp.c_str());
      errno = saved;
      return Errc::io;
    };
    if (::fchmod(fd.fd, 0644) != 0) return fail();
    if (!write_filter(fd.fd, filter)) return fail();
    if (::fsync(fd.fd) != 0) return fail();
    if (::close(fd.fd) != 0) {
      fd.fd = -1;
      return fail();
    }
    fd.fd = -1;
    if (::rename(tmp.c_str(), target.c_str()) != 0) return fail();
    // The rename is durable only once the directory entry is.
    Fd dir;
    dir.fd = ::open(dir_of(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir.fd < 0 || ::fsync(dir.fd) != 0) return Errc::io;
    return Errc::ok;
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return Errc::io;
  }
}

Errc open_file(const char* path, OpenMode mode, bool verify, std::unique_ptr<Filter>* out) {
  Fd fd;
  const bool writable = mode == OpenMode::read_write;
  fd.fd = ::open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd.fd < 0) return Errc::io;
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) return Errc::io;
  if (!S_ISREG(st.st_mode)) {
    errno = EINVAL;
    return Errc::io;
  }
  const auto len = static_cast<size_t>(st.st_size);
  if (len < kHeaderBytes) return Errc::truncated;  // also: mmap of an empty file fails
  const int prot = mode == OpenMode::read_only ? PROT_READ : PROT_READ | PROT_WRITE;
  const int share = mode == OpenMode::copy_on_write ? MAP_PRIVATE : MAP_SHARED;
  void* p = ::mmap(nullptr, len, prot, share, fd.fd, 0);
  if (p == MAP_FAILED) return Errc::io;
  auto* base = static_cast<unsigned char*>(p);
  auto mapping = std::make_unique<MappedFile>(base, len, writable);  // unmaps on any return

  Header h;
  if (Errc e = parse_header(base, len, &h); e != Errc::ok) return e;
  if constexpr (std::endian::native == std::endian::big) return Errc::unsupported;
  if (verify) {
    if (Errc e = verify_checksum(base, h); e != Errc::ok) return e;
  }
  if (writable) {
    if (Errc e = mapping->mark_stale(h); e != Errc::ok) return e;
  }
  ExternalShards ext;
  ext.shards = shards_in(base + kHeaderBytes, h.shape);
  ext.memory = std::move(mapping);
  ext.storage = Storage::mapped;
  ext.read_only = mode == OpenMode::read_only;
  *out = std::make_unique<Filter>(h.shape, h.params, std::move(ext));
  return Errc::ok;
}

}  // namespace abloom
