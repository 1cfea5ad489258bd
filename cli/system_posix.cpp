// cli/system.hpp on POSIX systems (Linux, macOS, the BSDs). Compiled everywhere, empty on Windows
// (cli/system_win32.cpp).
#if !defined(_WIN32)

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "system.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

namespace abloom_cli::sys {

namespace {

FileKind kind_of(const struct stat& st) {
  FileKind kind;
  kind.directory = S_ISDIR(st.st_mode);
  kind.regular = S_ISREG(st.st_mode);
  kind.size = kind.regular ? static_cast<uint64_t>(st.st_size) : 0;
  return kind;
}

}  // namespace

int kind_of_path(const std::string& path, FileKind& kind) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  kind = kind_of(st);
  return 0;
}

int kind_of_fd(int fd, FileKind& kind) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno;
  kind = kind_of(st);
  return 0;
}

int open_read(const std::string& path) { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); }

int64_t read_some(int fd, char* to, size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd, to, n);
    if (got >= 0 || errno != EINTR) return got;
  }
}

int64_t read_at(int fd, char* to, size_t n, uint64_t offset) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd, to + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return static_cast<int64_t>(done);
}

void close_fd(int fd) { ::close(fd); }

int file_id_of_path(const std::string& path, FileId& id) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  id = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  return 0;
}

int file_id_of_fd(int fd, FileId& id) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno;
  id = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  return 0;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

uint64_t free_memory() {
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
#endif
  return 0;
}

unsigned usable_cpus() {
#if defined(__linux__)
  // The affinity mask: taskset's or a cpuset's limit, not the machine's CPUs.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
#endif
  return 0;
}

void populate_for_writes(void* from, size_t bytes) {
#if defined(MADV_POPULATE_WRITE)
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(from) / page * page;
  const auto end = reinterpret_cast<uintptr_t>(from) + bytes;
  (void)::madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE);
#else
  (void)from;
  (void)bytes;
#endif
}

void binary_stdio() {}

std::vector<std::string> utf8_arguments(int argc, char** argv) { return {argv, argv + argc}; }

}  // namespace abloom_cli::sys

#endif  // !_WIN32
