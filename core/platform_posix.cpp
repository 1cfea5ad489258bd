#include "platform.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>

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

// fsync everywhere but macOS (and iOS). There fsync only hands the data to the drive, which may
// keep it in its volatile cache across a power loss and reorder it with the rename that follows:
// F_FULLFSYNC asks the drive to flush its cache too (Apple's fsync(2) man page). Some file
// systems refuse it (network and FUSE ones: ENOTSUP, EINVAL); fsync is then the most there is,
// the same promise as fsync on those file systems anywhere.
int sync_durably(int fd) noexcept {
#if defined(ABLOOM_HAVE_F_FULLFSYNC)
  if (::fcntl(fd, F_FULLFSYNC) == 0) return 0;
#endif
  return ::fsync(fd);
}

bool mapping_sync_needs_descriptor() noexcept {
#if defined(ABLOOM_HAVE_F_FULLFSYNC)
  return true;  // msync stops where fsync does (above): the drive's cache needs the descriptor
#else
  return false;
#endif
}

// msync(MS_SYNC) writes the pages and waits as fsync does (Linux: it is fsync of the range).
// Where sync_durably goes further (macOS), it follows, on the file's descriptor.
int sync_mapping(void* base, size_t len, int fd) noexcept {
  if (::msync(base, len, MS_SYNC) != 0) return -1;
#if defined(ABLOOM_HAVE_F_FULLFSYNC)
  if (fd >= 0) return sync_durably(fd);
#else
  (void)fd;
#endif
  return 0;
}

// Linux's O_TMPFILE (3.11; ext4, XFS, btrfs, tmpfs, ...). Elsewhere, and on file systems that
// refuse it, there is none: the caller creates a named temporary file instead, which a crash
// may leave behind (file_io.cpp, "Saving", says how the next save removes it).
int open_unnamed(const char* dir) noexcept {
#if defined(ABLOOM_HAVE_O_TMPFILE)
  return ::open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#else
  (void)dir;
  errno = EOPNOTSUPP;
  return -1;
#endif
}

// linkat through /proc/self/fd (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
int link_unnamed(int fd, const char* path) noexcept {
#if defined(ABLOOM_HAVE_O_TMPFILE)
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) return 0;
  // No /proc (ENOENT), or a file system that cannot link (EOPNOTSUPP, EPERM): nothing was named.
  if (errno == ENOENT || errno == EPERM) errno = EOPNOTSUPP;
  return -1;
#else
  (void)fd;
  (void)path;
  errno = EOPNOTSUPP;
  return -1;
#endif
}

// Linux's transparent huge pages. Elsewhere nothing: macOS has no such advice for anonymous
// memory (its superpages are asked for at mmap time, and only on x86-64), and pages of the base
// size work the same, with more TLB misses.
void advise_huge_pages(void* p, size_t len) noexcept {
#if defined(ABLOOM_HAVE_MADV_HUGEPAGE)
  (void)::madvise(p, len, MADV_HUGEPAGE);  // a refusal changes nothing
#else
  (void)p;
  (void)len;
#endif
}

}  // namespace abloom::platform
