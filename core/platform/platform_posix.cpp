// The POSIX side of platform.hpp: Linux (glibc and musl), macOS and the BSDs. Windows has
// platform_win32.cpp; this file compiles to nothing there.
#if !defined(_WIN32)

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "platform/platform.hpp"

// Which calls exist. ABLOOM_PORTABLE_PLATFORM turns every one off (platform.hpp).
#if !defined(ABLOOM_PORTABLE_PLATFORM) && defined(__linux__) && defined(O_TMPFILE)
#define ABLOOM_HAVE_O_TMPFILE 1
#endif
#if !defined(ABLOOM_PORTABLE_PLATFORM) && defined(MADV_HUGEPAGE)
#define ABLOOM_HAVE_MADV_HUGEPAGE 1
#endif
#if !defined(ABLOOM_PORTABLE_PLATFORM) && defined(__APPLE__) && defined(F_FULLFSYNC)
#define ABLOOM_HAVE_F_FULLFSYNC 1
#endif

namespace abloom::platform {
namespace {

int fd_of(const File& file) noexcept { return static_cast<int>(file.native()); }

// fsync everywhere but macOS (and iOS). There fsync only hands the data to the drive, which may
// keep it in its volatile cache across a power loss and reorder it with the rename that follows:
// F_FULLFSYNC asks the drive to flush its cache too (Apple's fsync(2) man page). Some file
// systems refuse it (network and FUSE ones: ENOTSUP, EINVAL); fsync is then the most there is,
// the same promise as fsync on those file systems anywhere.
bool sync_fd(int fd) noexcept {
#if defined(ABLOOM_HAVE_F_FULLFSYNC)
  if (::fcntl(fd, F_FULLFSYNC) == 0) return true;
#endif
  return ::fsync(fd) == 0;
}

}  // namespace

// ---- Open files ---------------------------------------------------------------------------------

bool close_file(NativeFile file) noexcept {
  return file == kNoFile || ::close(static_cast<int>(file)) == 0;
}

void File::reset() noexcept {
  if (file_ == kNoFile) return;
  const int saved = errno;
  close_file(std::exchange(file_, kNoFile));
  errno = saved;
}

// ---- Paths --------------------------------------------------------------------------------------

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + '/' + name;
}

// ---- Saving a file ------------------------------------------------------------------------------

bool resolve_save_target(const char* path, SaveTarget* out) {
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) return false;
      out->mode = 0644;
      break;  // a new file (a dangling link's target is created, as editors do)
    }
    if (S_ISLNK(st.st_mode)) {
      if (hops == 40) {  // the kernel's own limit (SYMLOOP_MAX)
        errno = ELOOP;
        return false;
      }
      std::string link(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
      const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
      if (n < 0) return false;
      if (static_cast<size_t>(n) == link.size()) continue;  // grew under us: read it again
      link.resize(static_cast<size_t>(n));
      p = link.front() == '/' ? std::move(link) : join(directory_of(p), link);
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      errno = EISDIR;
      return false;
    }
    if (!S_ISREG(st.st_mode)) {  // a FIFO, socket or device is never replaced by a file
      errno = ENODEV;
      return false;
    }
    out->mode = st.st_mode & 07777;
    break;
  }
  out->path = std::move(p);
  return true;
}

File create_new(const std::string& path) noexcept {
  return File(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
}

// Linux's O_TMPFILE (3.11; ext4, XFS, btrfs, tmpfs, ...). Elsewhere, and on file systems that
// refuse it, there is none: the caller creates a named temporary file instead, which a crash
// may leave behind (file_io.cpp, "Saving", says how the next save removes it).
File open_unnamed(const std::string& dir) noexcept {
#if defined(ABLOOM_HAVE_O_TMPFILE)
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) errno = EOPNOTSUPP;  // any refusal: the named way reports a real error again
  return File(fd);
#else
  (void)dir;
  errno = EOPNOTSUPP;
  return File();
#endif
}

// linkat through /proc/self/fd (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
bool link_unnamed(const File& file, const std::string& path) noexcept {
#if defined(ABLOOM_HAVE_O_TMPFILE)
  try {
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_of(file));
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      return true;
    }
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
  // No /proc (ENOENT), or a file system that cannot link (EOPNOTSUPP, EPERM): nothing was named.
  if (errno == ENOENT || errno == EPERM) errno = EOPNOTSUPP;
  return false;
#else
  (void)file;
  (void)path;
  errno = EOPNOTSUPP;
  return false;
#endif
}

bool write_at(const File& file, const unsigned char* bytes, size_t len, uint64_t offset) noexcept {
  while (len > 0) {
    const ssize_t w = ::pwrite(fd_of(file), bytes, len, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes += w;
    len -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return true;
}

bool set_permissions(const File& file, unsigned mode) noexcept {
  return ::fchmod(fd_of(file), static_cast<mode_t>(mode)) == 0;
}

bool sync_durably(const File& file) noexcept { return sync_fd(fd_of(file)); }

bool replace_file(const std::string& from, const std::string& to) noexcept {
  return ::rename(from.c_str(), to.c_str()) == 0;
}

bool sync_directory(const std::string& dir) noexcept {
  const File d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  return d.is_open() && sync_durably(d);
}

bool list_directory(const std::string& dir, std::vector<std::string>* names) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  try {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): readdir is safe on a stream no other thread uses
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names->push_back(name);
    }
  } catch (...) {
    ::closedir(d);
    throw;
  }
  ::closedir(d);
  return true;
}

bool remove_regular_file(const std::string& path) noexcept {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(path.c_str()) == 0;
}

void remove_keeping_errno(const std::string& path) noexcept {
  const int saved = errno;
  ::unlink(path.c_str());
  errno = saved;
}

uint64_t process_id() noexcept { return static_cast<uint64_t>(::getpid()); }

// kill(pid, 0) says ESRCH only for a process that does not exist; EPERM is one that runs as
// another user (not ours to judge).
bool process_has_ended(uint64_t pid) noexcept {
  if (pid == 0 || pid > static_cast<uint64_t>(INT32_MAX)) return false;
  const int saved = errno;
  const bool ended = ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
  errno = saved;
  return ended;
}

// ---- Mapping a file -----------------------------------------------------------------------------

File open_for_mapping(const char* path, MapMode mode, uint64_t* size) noexcept {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below); it changes
  // nothing for a regular file. A directory opened for writing fails here with EISDIR.
  File file(
      ::open(path, (mode == MapMode::read_write ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC));
  if (!file.is_open()) return file;
  struct stat st;
  if (::fstat(fd_of(file), &st) != 0) return File();
  if (!S_ISREG(st.st_mode)) {
    // Only a regular file can be mapped as a filter: EISDIR for a directory, ENODEV (mmap's
    // "cannot map this kind of file") for a FIFO, socket or device.
    errno = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
    return File();
  }
  *size = static_cast<uint64_t>(st.st_size);
  return file;
}

void* map_file(const File& file, size_t len, MapMode mode) noexcept {
  MappedRange range;
  unsigned char* at = nullptr;
  return map_file_range(file, 0, len, mode, &range, &at) ? range.base : nullptr;
}

void unmap_file(void* base, size_t len) noexcept { ::munmap(base, len); }

bool extend_file(const File& file, uint64_t size) noexcept {
  struct stat st;
  if (::fstat(fd_of(file), &st) != 0) return false;
  if (size < static_cast<uint64_t>(st.st_size) ||
      size > static_cast<uint64_t>(std::numeric_limits<off_t>::max())) {
    errno = EINVAL;
    return false;
  }
  int rc;
  do {
    rc = ::ftruncate(fd_of(file), static_cast<off_t>(size));
  } while (rc != 0 && errno == EINTR);
  return rc == 0 && sync_durably(file);
}

bool map_file_range(const File& file, uint64_t offset, size_t len, MapMode mode, MappedRange* range,
                    unsigned char** at) noexcept {
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t start = offset - offset % page;
  const auto skip = static_cast<size_t>(offset - start);
  if (len > SIZE_MAX - skip || start > static_cast<uint64_t>(std::numeric_limits<off_t>::max())) {
    errno = EINVAL;
    return false;
  }
  const int prot = mode == MapMode::read_only ? PROT_READ : PROT_READ | PROT_WRITE;
  const int share = mode == MapMode::copy_on_write ? MAP_PRIVATE : MAP_SHARED;
  void* p = ::mmap(nullptr, len + skip, prot, share, fd_of(file), static_cast<off_t>(start));
  if (p == MAP_FAILED) return false;
  range->base = p;
  range->len = len + skip;
  *at = static_cast<unsigned char*>(p) + skip;
  return true;
}

bool mapping_sync_needs_file() noexcept {
#if defined(ABLOOM_HAVE_F_FULLFSYNC)
  return true;  // msync stops where fsync does (above): the drive's cache needs the descriptor
#else
  return false;
#endif
}

// msync(MS_SYNC) writes the pages and waits as fsync does (Linux: it is fsync of the range).
// Where sync_durably goes further (macOS), it follows, on the file's descriptor.
bool sync_mapping(void* base, size_t len, const File& file) noexcept {
  if (::msync(base, len, MS_SYNC) != 0) return false;
#if defined(ABLOOM_HAVE_F_FULLFSYNC)
  if (file.is_open()) return sync_durably(file);
#else
  (void)file;
#endif
  return true;
}

// ---- Anonymous memory ---------------------------------------------------------------------------

// Linux's transparent huge pages, as advice: a refusal changes nothing. Elsewhere nothing: macOS
// has no such advice for anonymous memory (its superpages are asked for at mmap time, and only
// on x86-64), and pages of the base size work the same, with more TLB misses.
void* map_zeroed(size_t bytes) noexcept {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
#if defined(ABLOOM_HAVE_MADV_HUGEPAGE)
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

void unmap_zeroed(void* p, size_t bytes) noexcept { ::munmap(p, bytes); }

}  // namespace abloom::platform

#endif  // !_WIN32
