// The Windows side of platform.hpp (Windows 10 and later, x86-64 and arm64). POSIX systems have
// platform_posix.cpp; this file compiles to nothing there.
//
// What differs from POSIX, and how each difference is met:
//  - Files are opened shared for reading, writing and deletion, so that an open here never
//    blocks another program's rename or delete of the same file (DuckDB, LMDB and realm-core
//    each hit the opposite).
//  - There are no unnamed files (O_TMPFILE): saves take the named-temporary way, with its
//    clean-up of the files a killed writer leaves (file_io.cpp, "Saving").
//  - A rename over a file that another process holds open without FILE_SHARE_DELETE, or has
//    mapped, is refused; antivirus programs and indexers also hold new files for a moment. The
//    replace is retried for about a second (as Go's renameio does), then fails with the old file
//    whole and the temporary removed.
//  - Mapping: CreateFileMappingW + MapViewOfFile; a durable sync is FlushViewOfFile (which only
//    starts the writes) and FlushFileBuffers on the file, which is kept open with the mapping.
//  - An empty file cannot be mapped: file_io.cpp refuses any file shorter than a header first.
//  - Anonymous memory is VirtualAlloc'd: zeroed pages, committed lazily. Large pages need a
//    privilege that services rarely hold, and are not asked for.
#if defined(_WIN32)

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "platform/platform.hpp"

namespace abloom::platform {
namespace {

constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

HANDLE handle_of(const File& file) noexcept { return reinterpret_cast<HANDLE>(file.native()); }
File file_of(HANDLE h) noexcept {
  return h == INVALID_HANDLE_VALUE ? File() : File(reinterpret_cast<NativeFile>(h));
}

// The errno value for a Windows error code: the one a POSIX system gives for the same cause.
int errno_for(DWORD error) noexcept {
  switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
      return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT:
    case ERROR_PRIVILEGE_NOT_HELD:
    case ERROR_NETWORK_ACCESS_DENIED:
      return EACCES;
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_USER_MAPPED_FILE:
    case ERROR_BUSY:
      return EBUSY;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return EEXIST;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
      return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_COMMITMENT_LIMIT:
      return ENOMEM;
    case ERROR_DIRECTORY:
      return ENOTDIR;
    case ERROR_FILENAME_EXCED_RANGE:
      return ENAMETOOLONG;
    case ERROR_NOT_SAME_DEVICE:
      return EXDEV;
    case ERROR_CANT_RESOLVE_FILENAME:
      return ELOOP;
    case ERROR_INVALID_HANDLE:
      return EBADF;
    case ERROR_NOT_SUPPORTED:
    case ERROR_INVALID_FUNCTION:
      return EOPNOTSUPP;
    case ERROR_INVALID_NAME:
    case ERROR_INVALID_PARAMETER:
    case ERROR_FILE_INVALID:
      return EINVAL;
    default:
      return EIO;
  }
}

// Sets errno from GetLastError() and returns false: the failure return of most calls here.
bool fail() noexcept {
  errno = errno_for(GetLastError());
  return false;
}

// UTF-8 to UTF-16 for the system: false with errno EILSEQ for bytes that are not UTF-8.
bool widen(const std::string& s, std::wstring* out) {
  out->clear();
  if (s.empty()) return true;
  if (s.size() > INT_MAX) {
    errno = ENAMETOOLONG;
    return false;
  }
  const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s.data(),
                                    static_cast<int>(s.size()), nullptr, 0);
  if (n <= 0) {
    errno = EILSEQ;
    return false;
  }
  out->resize(static_cast<size_t>(n));
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s.data(), static_cast<int>(s.size()),
                      out->data(), n);
  return true;
}

// UTF-16 from the system to UTF-8 (unpaired surrogates become U+FFFD).
std::string narrow(const wchar_t* s, size_t len) {
  if (len == 0) return {};
  const int n =
      WideCharToMultiByte(CP_UTF8, 0, s, static_cast<int>(len), nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<size_t>(std::max(n, 0)), '\0');
  if (n > 0) {
    WideCharToMultiByte(CP_UTF8, 0, s, static_cast<int>(len), out.data(), n, nullptr, nullptr);
  }
  return out;
}

bool is_separator(char c) noexcept { return c == '/' || c == '\\'; }

// The length of a drive prefix ("C:"), or 0.
size_t drive_length(const std::string& path) noexcept {
  return path.size() >= 2 && path[1] == ':' &&
                 ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z'))
             ? 2
             : 0;
}

// The position of the last separator, or npos.
size_t last_separator(const std::string& path) noexcept { return path.find_last_of("/\\"); }

}  // namespace

// ---- Open files ---------------------------------------------------------------------------------

bool close_file(NativeFile file) noexcept {
  return file == kNoFile || CloseHandle(reinterpret_cast<HANDLE>(file)) != 0 || fail();
}

void File::reset() noexcept {
  if (file_ == kNoFile) return;
  const int saved = errno;
  close_file(std::exchange(file_, kNoFile));
  errno = saved;
}

// ---- Paths --------------------------------------------------------------------------------------

std::string directory_of(const std::string& path) {
  const size_t drive = drive_length(path);
  const size_t sep = last_separator(path);
  if (sep == std::string::npos || sep < drive) return drive > 0 ? path.substr(0, drive) : ".";
  if (sep == drive) return path.substr(0, drive + 1);  // the root: "\" or "C:\"
  return path.substr(0, sep);
}

std::string name_of(const std::string& path) {
  const size_t sep = last_separator(path);
  if (sep != std::string::npos) return path.substr(sep + 1);
  return path.substr(drive_length(path));
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty() || is_separator(dir.back()) || drive_length(dir) == dir.size()) {
    return dir + name;
  }
  return dir + '\\' + name;
}

// ---- Saving a file ------------------------------------------------------------------------------

bool resolve_save_target(const char* path, SaveTarget* out) {
  std::wstring w;
  if (!widen(path, &w)) return false;
  out->path = path;
  out->mode = 0644;
  // Opened, not just asked for attributes: a device name (NUL, CON, COM1) has attributes of its
  // own but is no disk file, and the open follows symbolic links to what a save would replace.
  const File target = file_of(CreateFileW(w.c_str(), FILE_READ_ATTRIBUTES, kShareAll, nullptr,
                                          OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!target.is_open()) {
    const DWORD error = GetLastError();
    // None yet (a missing directory is reported by the save's own create, as on POSIX).
    if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND) return true;
    errno = errno_for(error);
    return false;
  }
  if (GetFileType(handle_of(target)) != FILE_TYPE_DISK) {
    errno = ENODEV;
    return false;
  }
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(handle_of(target), &info)) return fail();
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
    errno = EISDIR;
    return false;
  }
  // A read-only file is not replaced: Windows' own MoveFileEx refuses to, and so does every save
  // here, whichever way the rename goes (a rename by handle, or wine, would replace it).
  if (info.dwFileAttributes & FILE_ATTRIBUTE_READONLY) {
    errno = EACCES;
    return false;
  }
  // A symbolic link: the save replaces the file it leads to, not the link.
  const DWORD own = GetFileAttributesW(w.c_str());
  if (own != INVALID_FILE_ATTRIBUTES && (own & FILE_ATTRIBUTE_REPARSE_POINT)) {
    std::wstring final_path(MAX_PATH, L'\0');
    for (;;) {
      const DWORD n = GetFinalPathNameByHandleW(handle_of(target), final_path.data(),
                                                static_cast<DWORD>(final_path.size()),
                                                FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
      if (n == 0) return fail();
      if (n < final_path.size()) {
        out->path = narrow(final_path.data(), n);
        break;
      }
      final_path.resize(n);  // n counts the terminating NUL when the buffer was short
    }
  }
  return true;
}

File create_new(const std::string& path) noexcept {
  try {
    std::wstring w;
    if (!widen(path, &w)) return File();
    File file = file_of(CreateFileW(w.c_str(), GENERIC_WRITE, kShareAll, nullptr, CREATE_NEW,
                                    FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.is_open()) fail();
    return file;
  } catch (...) {
    errno = ENOMEM;
    return File();
  }
}

File open_unnamed(const std::string& dir) noexcept {
  (void)dir;
  errno = EOPNOTSUPP;
  return File();
}

bool link_unnamed(const File& file, const std::string& path) noexcept {
  (void)file;
  (void)path;
  errno = EOPNOTSUPP;
  return false;
}

bool write_at(const File& file, const unsigned char* bytes, size_t len, uint64_t offset) noexcept {
  while (len > 0) {
    const DWORD chunk = static_cast<DWORD>(std::min<size_t>(len, DWORD{1} << 30));
    OVERLAPPED at = {};
    at.Offset = static_cast<DWORD>(offset);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    DWORD written = 0;
    if (!WriteFile(handle_of(file), bytes, chunk, &written, &at)) return fail();
    if (written == 0) {
      errno = EIO;
      return false;
    }
    bytes += written;
    len -= written;
    offset += written;
  }
  return true;
}

bool set_permissions(const File& file, unsigned mode) noexcept {
  (void)file;
  (void)mode;
  return true;  // no POSIX permission bits: the new file inherits its directory's ACL
}

bool sync_durably(const File& file) noexcept {
  return FlushFileBuffers(handle_of(file)) != 0 || fail();
}

namespace {

// Renames `from` over `to` by handle with POSIX semantics (Windows 10 1709 and later, on NTFS): the
// old file's name goes at once even while other handles or mappings hold it, as with rename(2).
// Then flushes the file, which commits the rename to NTFS's log. Returns the system's error code,
// ERROR_SUCCESS when done.
DWORD rename_posix_semantics(const std::wstring& from, const std::wstring& to) {
  HANDLE h = CreateFileW(from.c_str(), DELETE | GENERIC_WRITE, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return GetLastError();
  const File file = file_of(h);
  // FILE_RENAME_INFO ends in the name; 8-byte words keep its HANDLE aligned.
  const size_t name_bytes = (to.size() + 1) * sizeof(wchar_t);
  const size_t bytes = offsetof(FILE_RENAME_INFO, FileName) + name_bytes;
  std::vector<uint64_t> buffer((bytes + 7) / 8, 0);
  auto* info = reinterpret_cast<FILE_RENAME_INFO*>(buffer.data());
  info->Flags = FILE_RENAME_FLAG_REPLACE_IF_EXISTS | FILE_RENAME_FLAG_POSIX_SEMANTICS;
  info->RootDirectory = nullptr;
  info->FileNameLength = static_cast<DWORD>(to.size() * sizeof(wchar_t));
  std::memcpy(info->FileName, to.c_str(), name_bytes);
  if (!SetFileInformationByHandle(h, FileRenameInfoEx, info, static_cast<DWORD>(bytes))) {
    return GetLastError();
  }
  return FlushFileBuffers(h) ? ERROR_SUCCESS : GetLastError();
}

// Whether `error` says that this system or file system has no POSIX-semantics rename (older
// Windows, FAT, network shares): MoveFileExW is tried instead.
bool posix_rename_unsupported(DWORD error) {
  return error == ERROR_INVALID_PARAMETER || error == ERROR_NOT_SUPPORTED ||
         error == ERROR_INVALID_FUNCTION || error == ERROR_CALL_NOT_IMPLEMENTED;
}

}  // namespace

bool replace_file(const std::string& from, const std::string& to) noexcept {
  try {
    std::wstring wfrom;
    std::wstring wto;
    if (!widen(from, &wfrom) || !widen(to, &wto)) return false;
    // Waits of 1, 2, 4, ... 128 ms, then 128 ms, about 1.3 s in all.
    DWORD wait_ms = 1;
    bool posix_rename = true;
    for (int attempt = 0;; ++attempt) {
      DWORD error = ERROR_SUCCESS;
      if (posix_rename) {
        error = rename_posix_semantics(wfrom, wto);
        if (posix_rename_unsupported(error)) posix_rename = false;
      }
      if (!posix_rename) {
        error = MoveFileExW(wfrom.c_str(), wto.c_str(),
                            MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
                    ? ERROR_SUCCESS
                    : GetLastError();
      }
      if (error == ERROR_SUCCESS) return true;
      // Antivirus programs and indexers hold new files briefly; a target open without
      // FILE_SHARE_DELETE, or mapped (where the rename has no POSIX semantics), stays refused.
      const bool in_use = error == ERROR_ACCESS_DENIED || error == ERROR_SHARING_VIOLATION ||
                          error == ERROR_USER_MAPPED_FILE || error == ERROR_LOCK_VIOLATION;
      if (!in_use || attempt == 14) {
        errno = in_use ? EBUSY : errno_for(error);
        return false;
      }
      Sleep(wait_ms);
      wait_ms = std::min<DWORD>(wait_ms * 2, 128);
    }
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
}

bool sync_directory(const std::string& dir) noexcept {
  (void)dir;
  return true;  // MOVEFILE_WRITE_THROUGH returned only once the rename was on the disk
}

bool list_directory(const std::string& dir, std::vector<std::string>* names) {
  std::wstring pattern;
  if (!widen(join(dir, "*"), &pattern)) return false;
  WIN32_FIND_DATAW entry;
  HANDLE find = FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &entry, FindExSearchNameMatch,
                                 nullptr, FIND_FIRST_EX_LARGE_FETCH);
  if (find == INVALID_HANDLE_VALUE) return fail();
  try {
    do {
      const std::string name = narrow(entry.cFileName, wcslen(entry.cFileName));
      if (name != "." && name != "..") names->push_back(name);
    } while (FindNextFileW(find, &entry));
  } catch (...) {
    FindClose(find);
    throw;
  }
  const DWORD error = GetLastError();
  FindClose(find);
  if (error != ERROR_NO_MORE_FILES) {
    errno = errno_for(error);
    return false;
  }
  return true;
}

bool remove_regular_file(const std::string& path) noexcept {
  try {
    std::wstring w;
    if (!widen(path, &w)) return false;
    const DWORD attrs = GetFileAttributesW(w.c_str());
    if (attrs == INVALID_FILE_ATTRIBUTES ||
        (attrs &
         (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DEVICE))) {
      return false;
    }
    return DeleteFileW(w.c_str()) != 0;
  } catch (...) {
    return false;
  }
}

void remove_keeping_errno(const std::string& path) noexcept {
  const int saved = errno;
  try {
    std::wstring w;
    if (widen(path, &w)) DeleteFileW(w.c_str());
  } catch (...) {
  }
  errno = saved;
}

uint64_t process_id() noexcept { return GetCurrentProcessId(); }

// OpenProcess says ERROR_INVALID_PARAMETER for an id that no process has; a process that has
// exited but whose handle someone keeps is signalled.
bool process_has_ended(uint64_t pid) noexcept {
  if (pid == 0 || pid > UINT32_MAX) return false;
  HANDLE h =
      OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  if (h == nullptr) return GetLastError() == ERROR_INVALID_PARAMETER;
  const bool ended = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
  CloseHandle(h);
  return ended;
}

// ---- Mapping a file -----------------------------------------------------------------------------

File open_for_mapping(const char* path, MapMode mode, uint64_t* size) noexcept {
  try {
    std::wstring w;
    if (!widen(path, &w)) return File();
    // A directory opens only with FILE_FLAG_BACKUP_SEMANTICS, and says ACCESS_DENIED otherwise:
    // asked first, for POSIX's EISDIR.
    const DWORD attrs = GetFileAttributesW(w.c_str());
    if (attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY)) {
      errno = EISDIR;
      return File();
    }
    // A read-only file is not opened for writing (Windows refuses it; wine, run as root, would
    // not), as a save does not replace one.
    if (mode == MapMode::read_write && attrs != INVALID_FILE_ATTRIBUTES &&
        (attrs & FILE_ATTRIBUTE_READONLY)) {
      errno = EACCES;
      return File();
    }
    const DWORD access = mode == MapMode::read_write ? GENERIC_READ | GENERIC_WRITE : GENERIC_READ;
    File file = file_of(CreateFileW(w.c_str(), access, kShareAll, nullptr, OPEN_EXISTING,
                                    FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.is_open()) {
      fail();
      return file;
    }
    if (GetFileType(handle_of(file)) != FILE_TYPE_DISK) {  // NUL, CON, a pipe
      errno = ENODEV;
      return File();
    }
    LARGE_INTEGER bytes;
    if (!GetFileSizeEx(handle_of(file), &bytes)) {
      fail();
      return File();
    }
    *size = static_cast<uint64_t>(bytes.QuadPart);
    return file;
  } catch (...) {
    errno = ENOMEM;
    return File();
  }
}

void* map_file(const File& file, size_t len, MapMode mode) noexcept {
  MappedRange range;
  unsigned char* at = nullptr;
  return map_file_range(file, 0, len, mode, &range, &at) ? range.base : nullptr;
}

void unmap_file(void* base, size_t len) noexcept {
  (void)len;
  UnmapViewOfFile(base);
}

// The file grows through a section of the new size (CreateFileMapping extends a file to its
// maximum size): SetEndOfFile is documented to need every view of the file unmapped first, and
// a read-write chain keeps its stages mapped while it appends one.
bool extend_file(const File& file, uint64_t size) noexcept {
  LARGE_INTEGER now;
  if (!GetFileSizeEx(handle_of(file), &now)) return fail();
  if (size < static_cast<uint64_t>(now.QuadPart)) {
    errno = EINVAL;
    return false;
  }
  if (size == static_cast<uint64_t>(now.QuadPart)) return sync_durably(file);
  HANDLE section =
      CreateFileMappingW(handle_of(file), nullptr, PAGE_READWRITE, static_cast<DWORD>(size >> 32),
                         static_cast<DWORD>(size & 0xFFFFFFFFu), nullptr);
  if (section == nullptr) return fail();
  CloseHandle(section);
  return sync_durably(file);
}

bool map_file_range(const File& file, uint64_t offset, size_t len, MapMode mode, MappedRange* range,
                    unsigned char** at) noexcept {
  SYSTEM_INFO info;
  GetSystemInfo(&info);
  const uint64_t granularity = info.dwAllocationGranularity;
  const uint64_t start = offset - offset % granularity;
  const auto skip = static_cast<size_t>(offset - start);
  if (len > SIZE_MAX - skip) {
    errno = EINVAL;
    return false;
  }
  const DWORD protect = mode == MapMode::read_only       ? PAGE_READONLY
                        : mode == MapMode::copy_on_write ? PAGE_WRITECOPY
                                                         : PAGE_READWRITE;
  const DWORD access = mode == MapMode::read_only       ? FILE_MAP_READ
                       : mode == MapMode::copy_on_write ? FILE_MAP_COPY
                                                        : FILE_MAP_WRITE;
  HANDLE section = CreateFileMappingW(handle_of(file), nullptr, protect, 0, 0, nullptr);
  if (section == nullptr) return fail();
  void* view = MapViewOfFile(section, access, static_cast<DWORD>(start >> 32),
                             static_cast<DWORD>(start & 0xFFFFFFFFu), len + skip);
  if (view == nullptr) fail();
  const int saved = errno;
  CloseHandle(section);  // the view keeps the section alive
  errno = saved;
  if (view == nullptr) return false;
  range->base = view;
  range->len = len + skip;
  *at = static_cast<unsigned char*>(view) + skip;
  return true;
}

bool mapping_sync_needs_file() noexcept { return true; }

bool sync_mapping(void* base, size_t len, const File& file) noexcept {
  if (!FlushViewOfFile(base, len)) return fail();
  return !file.is_open() || sync_durably(file);
}

// ---- Anonymous memory ---------------------------------------------------------------------------

void* map_zeroed(size_t bytes) noexcept {
  return VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void unmap_zeroed(void* p, size_t bytes) noexcept {
  (void)bytes;
  VirtualFree(p, 0, MEM_RELEASE);
}

}  // namespace abloom::platform

#endif  // _WIN32
