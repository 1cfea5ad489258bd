#include "file_io.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "format.hpp"
#include "platform.hpp"

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
  // sync_fd: the file's descriptor, owned from here on, where platform::sync_mapping needs it;
  // else -1.
  MappedFile(unsigned char* base, size_t len, bool shared_writable, int sync_fd)
      : base_(base), len_(len), shared_writable_(shared_writable), sync_fd_(sync_fd) {}
  ~MappedFile() override {
    ::munmap(base_, len_);
    if (sync_fd_ >= 0) ::close(sync_fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  Errc sync(const Filter& filter) noexcept override {
    if (!shared_writable_) return Errc::ok;
    Header h = header_for(filter);
    unsigned char header[kHeaderBytes];
    encode_header(h, header);
    h.checksum = checksum_with_body(header, base_ + kHeaderBytes, h.body_bytes());
    encode_header(h, base_);
    return platform::sync_mapping(base_, len_, sync_fd_) == 0 ? Errc::ok : Errc::io;
  }

  // Marks the header stale: the body will change under the checksum.
  Errc mark_stale(const Header& parsed) noexcept {
    Header h = parsed;
    h.flags |= kFlagChecksumStale;
    encode_header(h, base_);
    return platform::sync_mapping(base_, kHeaderBytes, sync_fd_) == 0 ? Errc::ok : Errc::io;
  }

 private:
  unsigned char* base_;
  size_t len_;
  bool shared_writable_;
  int sync_fd_;
};

// ---- Saving -------------------------------------------------------------------------------------
//
// The bytes go to a temporary file in the target's directory, which is fsynced and renamed over
// the target, and the directory fsynced: a crash leaves the old file or the new one, whole.
// What a crash may leave besides is kept to one file per killed writer, removed by the next save:
//  - The temporary is created unnamed (O_TMPFILE) where the file system allows, and named only
//    for the instant between its fsync and the rename (linkat): a crash before that leaves
//    nothing, the kernel frees the inode.
//  - Elsewhere it is named from the start. Either way the name is
//    "<target name>.tmp.<writer's pid>.<6 random characters>", and every save first removes the
//    files of that pattern, beside its target, whose writer process is gone.

// The temporary-name prefix of a target: "<target name>.tmp.".
std::string temp_prefix(const std::string& target) {
  const size_t slash = target.rfind('/');
  return (slash == std::string::npos ? target : target.substr(slash + 1)) + ".tmp.";
}

// Whether `name` is prefix + "<pid>.<6 characters>"; the pid in *pid.
bool parse_temp_name(const std::string& name, const std::string& prefix, pid_t* pid) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string rest = name.substr(prefix.size());
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot > 9 || rest.size() - dot - 1 != 6) return false;
  long value = 0;
  for (size_t i = 0; i < dot; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return false;
    value = value * 10 + (rest[i] - '0');
  }
  if (value <= 0) return false;
  *pid = static_cast<pid_t>(value);
  return true;
}

// Removes the temporary files of `target`'s earlier saves whose writer process no longer exists
// (kill(pid, 0) says ESRCH). Best effort: a failure here never fails the save. Files of live
// writers (this process's other threads included), other names and non-regular files are kept.
void remove_stale_temporaries(const std::string& target) {
  const std::string dir = dir_of(target);
  const std::string prefix = temp_prefix(target);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  const int saved = errno;
  std::vector<std::string> stale;
  // NOLINTNEXTLINE(concurrency-mt-unsafe): readdir is safe on a stream no other thread uses
  while (const dirent* e = ::readdir(d)) {
    pid_t pid = 0;
    const std::string name = e->d_name;
    if (!parse_temp_name(name, prefix, &pid)) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge (EPERM)
    std::string path = dir;
    path += '/';
    path += name;
    stale.push_back(std::move(path));
  }
  ::closedir(d);
  for (const std::string& path : stale) {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
  }
  errno = saved;
}

// A fresh temporary name for `target` in its directory (see above).
std::string temp_name(const std::string& target) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static std::atomic<uint64_t> counter{0};
  // Unique within the process by the counter, across processes by the pid; the clock only
  // spreads names so that retries after EEXIST (a name left by a writer with a reused pid) move on.
  uint64_t x = counter.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::string suffix(6, 'A');
  for (char& c : suffix) {
    c = kChars[x % 62];
    x /= 62;
  }
  return target + ".tmp." + std::to_string(::getpid()) + "." + suffix;
}

// The file a save writes: `path` itself, or where its chain of symbolic links ends (editors and
// databases write the target and keep the link). An existing target must be a regular file.
// Its permission bits, when it exists, in *mode (else 0644).
Errc resolve_target(const char* path, std::string* out, mode_t* mode) {
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) return Errc::io;
      *mode = 0644;
      break;  // a new file (a dangling link's target is created, as editors do)
    }
    if (S_ISLNK(st.st_mode)) {
      if (hops == 40) {  // the kernel's own limit (SYMLOOP_MAX)
        errno = ELOOP;
        return Errc::io;
      }
      std::string link(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
      const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
      if (n < 0) return Errc::io;
      if (static_cast<size_t>(n) == link.size()) continue;  // grew under us: read it again
      link.resize(static_cast<size_t>(n));
      if (link.front() == '/') {
        p = std::move(link);
      } else {
        std::string next = dir_of(p);
        next += '/';
        next += link;
        p = std::move(next);
      }
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      errno = EISDIR;
      return Errc::io;
    }
    if (!S_ISREG(st.st_mode)) {  // a FIFO, socket or device is never replaced by a file
      errno = ENODEV;
      return Errc::io;
    }
    *mode = st.st_mode & 07777;
    break;
  }
  *out = std::move(p);
  return Errc::ok;
}

// Writes the filter to fd, fsyncs it (platform::sync_durably) and sets its mode.
bool write_and_sync(int fd, const Filter& filter, mode_t mode) {
  return ::fchmod(fd, mode) == 0 && write_filter(fd, filter) && platform::sync_durably(fd) == 0;
}

// Closes fd (owned by the caller's Fd), reporting close's error: with some file systems (NFS) it
// is the first to see a failed write.
bool close_checked(Fd& fd) {
  const int raw = fd.fd;
  fd.fd = -1;
  return ::close(raw) == 0;
}

// Removes the temporary file of a failed save, keeping errno (the failure's cause) as it was.
void unlink_keeping_errno(const std::string& path) noexcept {
  const int saved = errno;
  ::unlink(path.c_str());
  errno = saved;
}

// The unnamed-temporary save: Errc::ok when done; Errc::unsupported when this file system or
// system cannot do it (nothing written or left; the caller falls back); else Errc::io.
Errc save_unnamed(const Filter& filter, const std::string& target, mode_t mode) {
  Fd fd;
  fd.fd = platform::open_unnamed(dir_of(target).c_str());
  if (fd.fd < 0) return Errc::unsupported;
  if (!write_and_sync(fd.fd, filter, mode)) return Errc::io;  // the inode goes with the fd
  // Name it, then rename.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string tmp = temp_name(target);
    if (platform::link_unnamed(fd.fd, tmp.c_str()) != 0) {
      if (errno == EEXIST) continue;
      return errno == EOPNOTSUPP ? Errc::unsupported : Errc::io;  // unsupported: nothing named
    }
    if (!close_checked(fd) || ::rename(tmp.c_str(), target.c_str()) != 0) {
      unlink_keeping_errno(tmp);
      return Errc::io;
    }
    return Errc::ok;
  }
  return Errc::io;  // errno is EEXIST
}

// The named-temporary save (file systems without O_TMPFILE).
Errc save_named(const Filter& filter, const std::string& target, mode_t mode) {
  Fd fd;
  std::string tmp;
  for (int attempt = 0; attempt < 16 && fd.fd < 0; ++attempt) {
    tmp = temp_name(target);
    fd.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd.fd < 0 && errno != EEXIST) return Errc::io;
  }
  if (fd.fd < 0) return Errc::io;
  if (!write_and_sync(fd.fd, filter, mode) || !close_checked(fd) ||
      ::rename(tmp.c_str(), target.c_str()) != 0) {
    unlink_keeping_errno(tmp);
    return Errc::io;
  }
  return Errc::ok;
}

}  // namespace

Errc save_file(const Filter& filter, const char* path, SaveMethod method) noexcept {
  try {
    std::string target;
    mode_t mode = 0644;
    if (Errc e = resolve_target(path, &target, &mode); e != Errc::ok) return e;
    remove_stale_temporaries(target);
    Errc e =
        method == SaveMethod::automatic ? save_unnamed(filter, target, mode) : Errc::unsupported;
    if (e == Errc::unsupported) e = save_named(filter, target, mode);
    if (e != Errc::ok) return e;
    // The rename is durable only once the directory entry is.
    Fd dir;
    dir.fd = ::open(dir_of(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir.fd < 0 || platform::sync_durably(dir.fd) != 0) return Errc::io;
    return Errc::ok;
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return Errc::io;
  }
}

Errc open_file(const char* path, OpenMode mode, bool verify, std::unique_ptr<Filter>* out) {
  Fd fd;
  const bool writable = mode == OpenMode::read_write;
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below); it changes
  // nothing for a regular file. A directory opened for writing fails here with EISDIR.
  fd.fd = ::open(path, (writable ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
  if (fd.fd < 0) return Errc::io;
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) return Errc::io;
  if (!S_ISREG(st.st_mode)) {
    // Only a regular file can be mapped as a filter: EISDIR for a directory, ENODEV (mmap's
    // "cannot map this kind of file") for a FIFO, socket or device.
    errno = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
    return Errc::io;
  }
  const auto len = static_cast<size_t>(st.st_size);
  if (len < kHeaderBytes) return Errc::truncated;  // also: mmap of an empty file fails
  const int prot = mode == OpenMode::read_only ? PROT_READ : PROT_READ | PROT_WRITE;
  const int share = mode == OpenMode::copy_on_write ? MAP_PRIVATE : MAP_SHARED;
  void* p = ::mmap(nullptr, len, prot, share, fd.fd, 0);
  if (p == MAP_FAILED) return Errc::io;
  auto* base = static_cast<unsigned char*>(p);
  // A descriptor for durable syncs of a read-write mapping, where the system needs one.
  int sync_fd = -1;
  if (writable && platform::mapping_sync_needs_descriptor()) {
    sync_fd = ::fcntl(fd.fd, F_DUPFD_CLOEXEC, 0);
    if (sync_fd < 0) {
      const int saved = errno;
      ::munmap(p, len);
      errno = saved;
      return Errc::io;
    }
  }
  // Unmaps (and closes sync_fd) on any return.
  auto mapping = std::make_unique<MappedFile>(base, len, writable, sync_fd);

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
