// cli/system.hpp on Windows. Paths arrive as UTF-8 and go to the UCRT's wide-character calls as
// UTF-16; errno is the UCRT's, which those calls set.
// Compiled everywhere, empty but on Windows (as core/platform/platform_win32.cpp), so that one list
// of sources serves every system and clang-tidy's run on Linux has a compile command for it.
#if defined(_WIN32)

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include <fcntl.h>
#include <io.h>
#include <share.h>
#include <sys/stat.h>
#include <windows.h>

#include "system.hpp"
// After windows.h, which it needs.
#include <shellapi.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <cstdio>

namespace abloom_cli::sys {

namespace {

// `text` in UTF-16; empty for text that is not UTF-8 (or empty), which no call then finds.
std::wstring utf16(const std::string& text) {
  if (text.empty() || text.size() > INT_MAX) return {};
  const int n = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text.data(),
                                      static_cast<int>(text.size()), nullptr, 0);
  if (n <= 0) return {};
  std::wstring out(static_cast<size_t>(n), L'\0');
  ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text.data(), static_cast<int>(text.size()),
                        out.data(), n);
  return out;
}

std::string utf8(const wchar_t* text) {
  const int n = ::WideCharToMultiByte(CP_UTF8, 0, text, -1, nullptr, 0, nullptr, nullptr);
  if (n <= 1) return {};
  std::string out(static_cast<size_t>(n), '\0');
  ::WideCharToMultiByte(CP_UTF8, 0, text, -1, out.data(), n, nullptr, nullptr);
  out.pop_back();  // the terminating NUL
  return out;
}

FileKind kind_of(const struct _stat64& st) {
  FileKind kind;
  kind.directory = (st.st_mode & _S_IFMT) == _S_IFDIR;
  kind.regular = (st.st_mode & _S_IFMT) == _S_IFREG;
  kind.size = kind.regular ? static_cast<uint64_t>(st.st_size) : 0;
  return kind;
}

}  // namespace

int kind_of_path(const std::string& path, FileKind& kind) {
  const std::wstring wide = utf16(path);
  if (wide.empty()) return ENOENT;
  struct _stat64 st {};
  if (::_wstat64(wide.c_str(), &st) != 0) return errno;
  kind = kind_of(st);
  return 0;
}

int kind_of_fd(int fd, FileKind& kind) {
  struct _stat64 st {};
  if (::_fstat64(fd, &st) != 0) return errno;
  kind = kind_of(st);
  return 0;
}

int open_read(const std::string& path) {
  const std::wstring wide = utf16(path);
  if (wide.empty()) {
    errno = ENOENT;
    return -1;
  }
  // Windows opens no directory for reading (EACCES): say what POSIX says of one.
  struct _stat64 st {};
  if (::_wstat64(wide.c_str(), &st) == 0 && (st.st_mode & _S_IFMT) == _S_IFDIR) {
    errno = EISDIR;
    return -1;
  }
  int fd = -1;
  const errno_t err =
      ::_wsopen_s(&fd, wide.c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT, _SH_DENYNO, 0);
  if (err != 0) {
    errno = err;
    return -1;
  }
  return fd;
}

int64_t read_some(int fd, char* to, size_t n) {
  // _read takes an unsigned int, and returns an int.
  const int got = ::_read(fd, to, static_cast<unsigned>(n > INT_MAX ? INT_MAX : n));
  return got;
}

int64_t read_at(int fd, char* to, size_t n, uint64_t offset) {
  const auto handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) {
    errno = EBADF;
    return -1;
  }
  size_t done = 0;
  while (done < n) {
    // An offset in the OVERLAPPED makes ReadFile read there: a pread, thread for thread.
    OVERLAPPED at{};
    const uint64_t where = offset + done;
    at.Offset = static_cast<DWORD>(where);
    at.OffsetHigh = static_cast<DWORD>(where >> 32);
    const size_t left = n - done;
    DWORD got = 0;
    if (!::ReadFile(handle, to + done, left > 0x40000000u ? 0x40000000u : static_cast<DWORD>(left),
                    &got, &at)) {
      if (::GetLastError() == ERROR_HANDLE_EOF) break;
      errno = EIO;
      return -1;
    }
    if (got == 0) break;
    done += got;
  }
  return static_cast<int64_t>(done);
}

void close_fd(int fd) { ::_close(fd); }

namespace {

// The id of an open handle: the volume's serial number and the file's index on it, which NTFS
// keeps for the file's life (hard links share it).
int file_id_of_handle(HANDLE handle, FileId& id) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(handle, &info)) return EIO;
  id.device = info.dwVolumeSerialNumber;
  id.file = (static_cast<uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  return 0;
}

}  // namespace

int file_id_of_path(const std::string& path, FileId& id) {
  const std::wstring wide = utf16(path);
  if (wide.empty()) return ENOENT;
  // Attributes only, shared every way, so that a file another program holds is still looked at;
  // FILE_FLAG_BACKUP_SEMANTICS opens directories too. Links are followed, as stat(2) does.
  const HANDLE handle = ::CreateFileW(wide.c_str(), FILE_READ_ATTRIBUTES,
                                      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                      nullptr, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    const DWORD error = ::GetLastError();
    return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ? ENOENT
           : error == ERROR_ACCESS_DENIED                                 ? EACCES
                                                                          : EIO;
  }
  const int err = file_id_of_handle(handle, id);
  ::CloseHandle(handle);
  return err;
}

int file_id_of_fd(int fd, FileId& id) {
  const auto handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) return EBADF;
  return file_id_of_handle(handle, id);
}

bool stderr_is_terminal() {
  // A console, not a file or pipe (and not NUL, which _isatty takes for a terminal), whose
  // escape processing (Windows 10 and later) can be had.
  const HANDLE err = ::GetStdHandle(STD_ERROR_HANDLE);
  DWORD mode = 0;
  if (err == INVALID_HANDLE_VALUE || err == nullptr || !::GetConsoleMode(err, &mode)) return false;
  return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0 ||
         ::SetConsoleMode(err, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
}

bool stdout_is_terminal() {
  DWORD mode = 0;
  const HANDLE out = ::GetStdHandle(STD_OUTPUT_HANDLE);
  return out != INVALID_HANDLE_VALUE && out != nullptr && ::GetConsoleMode(out, &mode) != 0;
}

uint64_t free_memory() {
  MEMORYSTATUSEX status{};
  status.dwLength = sizeof status;
  return ::GlobalMemoryStatusEx(&status) ? status.ullAvailPhys : 0;
}

unsigned usable_cpus() {
  DWORD_PTR process = 0;
  DWORD_PTR system = 0;
  if (!::GetProcessAffinityMask(::GetCurrentProcess(), &process, &system)) return 0;
  return static_cast<unsigned>(std::popcount(static_cast<uint64_t>(process)));
}

void populate_for_writes(void* from, size_t bytes) {
  (void)from;
  (void)bytes;
}

void binary_stdio() {
  (void)::_setmode(::_fileno(stdin), _O_BINARY);
  (void)::_setmode(::_fileno(stdout), _O_BINARY);
}

std::vector<std::string> utf8_arguments(int argc, char** argv) {
  int n = 0;
  wchar_t** wide = ::CommandLineToArgvW(::GetCommandLineW(), &n);
  if (wide == nullptr) return {argv, argv + argc};
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(utf8(wide[i]));
  ::LocalFree(wide);
  return out;
}

}  // namespace abloom_cli::sys

#endif  // _WIN32
