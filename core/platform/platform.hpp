// Every operating-system call of the engine: files, mappings, directories, processes and
// anonymous memory. Two implementations, one per family of systems:
//  - platform_posix.cpp: Linux (glibc and musl), macOS, the BSDs;
//  - platform_win32.cpp: Windows.
// Both files are in every build (the bindings compile core/**/*.cpp as one set), and each compiles
// to nothing on the other family, so no build system chooses between them. The rest of core/
// calls only what this header declares, and has no #ifdef for a system.
//
// One error convention on both: a failed call returns false (or an empty File, or nullptr) with
// errno set. On Windows the system's error codes are translated to errno values
// (platform_win32.cpp, errno_for), so the C API reports the same errno for the same cause.
// Paths are UTF-8 everywhere; on Windows they are converted to UTF-16 for the system.
//
// Built with ABLOOM_PORTABLE_PLATFORM defined, the POSIX implementation takes its portable
// fallbacks even on Linux: the musl test run of scripts/platform-builds.sh does, so that the
// paths macOS takes are exercised by the whole test suite on a machine that can run it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace abloom::platform {

// ---- Open files ---------------------------------------------------------------------------------

// A system file: a POSIX descriptor, or a Windows HANDLE. -1 is "none" on both
// (INVALID_HANDLE_VALUE is (HANDLE)-1).
using NativeFile = intptr_t;
inline constexpr NativeFile kNoFile = -1;

// Closes `file`. true, or false with errno (some file systems, NFS among them, report a failed
// write only here).
bool close_file(NativeFile file) noexcept;

// An open file, closed at scope exit with errno kept as it was.
class File {
 public:
  File() = default;
  explicit File(NativeFile file) noexcept : file_(file) {}
  File(File&& o) noexcept : file_(std::exchange(o.file_, kNoFile)) {}
  File& operator=(File&& o) noexcept {
    if (this != &o) {
      reset();
      file_ = std::exchange(o.file_, kNoFile);
    }
    return *this;
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() { reset(); }

  bool is_open() const noexcept { return file_ != kNoFile; }
  NativeFile native() const noexcept { return file_; }
  // Closes it now, reporting close's error. true, or false with errno.
  bool close_checked() noexcept { return close_file(std::exchange(file_, kNoFile)); }

 private:
  void reset() noexcept;  // closes, keeping errno
  NativeFile file_ = kNoFile;
};

// ---- Paths --------------------------------------------------------------------------------------

// The directory of `path` ("." when it names none) and its last component. On Windows both '/'
// and '\' separate, and a drive ("C:") counts as a directory.
std::string directory_of(const std::string& path);
std::string name_of(const std::string& path);
// `name` in directory `dir` (as directory_of returns it).
std::string join(const std::string& dir, const std::string& name);

// ---- Saving a file ------------------------------------------------------------------------------

// Where a save of `path` writes: the path itself, or where its chain of symbolic links ends
// (editors and databases write the target and keep the link); and the permission bits the new
// file takes (an existing file's own, else 0644; Windows has none to keep).
struct SaveTarget {
  std::string path;
  unsigned mode = 0644;
};
// Only a regular file (or none yet) may be the target: errno EISDIR for a directory, ENODEV for
// anything else (a FIFO, socket, device, or a Windows device name such as NUL), ELOOP for a loop
// of links.
bool resolve_save_target(const char* path, SaveTarget* out);

// Creates `path`, which must not exist (errno EEXIST when it does), for writing only, not
// inherited by child processes, readable by its owner only until set_permissions. On Windows it
// is shared for reading, writing and deletion, so that no other program's open blocks it.
File create_new(const std::string& path) noexcept;

// An unnamed regular file in directory `dir`, for writing, that vanishes with its File unless
// link_unnamed names it (Linux's O_TMPFILE). None (errno EOPNOTSUPP) where this system has no such
// files, where the file system refuses them, or on any other error: the caller then uses a named
// temporary file, which reports a real error again.
File open_unnamed(const std::string& dir) noexcept;

// Gives open_unnamed's file the name `path`, which must not exist. true, or false with errno:
// EEXIST when path exists; EOPNOTSUPP when this system cannot name it (nothing was named; the
// caller falls back to a named temporary file).
bool link_unnamed(const File& file, const std::string& path) noexcept;

// Writes all of [bytes, bytes + len) at `offset`, retrying short writes and interruptions.
bool write_at(const File& file, const unsigned char* bytes, size_t len, uint64_t offset) noexcept;

// Sets the file's permission bits (POSIX; nothing to do on Windows).
bool set_permissions(const File& file, unsigned mode) noexcept;

// Flushes the file's data and metadata to stable storage, as far as the system can promise it.
bool sync_durably(const File& file) noexcept;

// Renames `from` over `to` in one step: a reader sees the old file or the new one, never neither.
// On Windows, where antivirus programs and indexers hold new files briefly, and a file that a
// process has open without FILE_SHARE_DELETE, or mapped, cannot be replaced, the replace is
// retried for about a second before it fails (errno EBUSY for a file in use, EACCES otherwise).
bool replace_file(const std::string& from, const std::string& to) noexcept;

// Makes a rename in `dir` durable (POSIX: fsync of the directory; Windows: the replace was
// written through already).
bool sync_directory(const std::string& dir) noexcept;

// The names in directory `dir` (without "." and ".."); false with errno when it cannot be read.
bool list_directory(const std::string& dir, std::vector<std::string>* names);

// Removes `path` if it is a regular file (not following a link). Best effort, for clean-ups:
// true when removed.
bool remove_regular_file(const std::string& path) noexcept;

// Removes `path`, keeping errno as it was: the clean-up of a failed save, whose cause errno holds.
void remove_keeping_errno(const std::string& path) noexcept;

// This process's id, and whether the process `pid` has certainly ended (not when it runs, and
// not when this process may not ask).
uint64_t process_id() noexcept;
bool process_has_ended(uint64_t pid) noexcept;

// ---- Mapping a file -----------------------------------------------------------------------------

enum class MapMode { read_only, copy_on_write, read_write };

// Opens an existing regular file for mapping (for writing too with read_write), its size in
// *size. A directory fails with errno EISDIR and anything else that is not a regular file with
// ENODEV, at once (opening a FIFO does not wait for a writer).
File open_for_mapping(const char* path, MapMode mode, uint64_t* size) noexcept;

// Maps the first `len` bytes (len > 0) of `file`. The mapping stays valid after the File closes.
// nullptr with errno.
void* map_file(const File& file, size_t len, MapMode mode) noexcept;
void unmap_file(void* base, size_t len) noexcept;

// Grows `file` (opened for read_write) to `size` bytes, the new bytes zeros, and makes the new
// size durable before returning (a read-write chain appends a stage so: its header names the
// stage only once the bytes are there). Never shrinks: a smaller size fails with EINVAL.
bool extend_file(const File& file, uint64_t size) noexcept;

// A mapping of bytes [offset, offset + len) of `file` (len > 0), at any offset: it starts at the
// system's mapping boundary below `offset` (a page; 64 KiB on Windows). *at is byte `offset`;
// base and len are what unmap_file takes. false with errno.
struct MappedRange {
  void* base = nullptr;
  size_t len = 0;
};
bool map_file_range(const File& file, uint64_t offset, size_t len, MapMode mode, MappedRange* range,
                    unsigned char** at) noexcept;

// Whether a read-write mapping needs its File kept open to be synced durably (sync_mapping's
// `file`); when false, sync_mapping ignores it and the File may be closed once mapped.
bool mapping_sync_needs_file() noexcept;

// Writes the pages of a read-write mapping [base, base + len) back to its file and flushes them
// as sync_durably does; `file` is its File where mapping_sync_needs_file says so.
bool sync_mapping(void* base, size_t len, const File& file) noexcept;

// ---- Anonymous memory ---------------------------------------------------------------------------

// `bytes` of zeroed, page-aligned memory, faulted in on first touch, backed by huge pages where
// the system takes the advice (Linux's transparent huge pages). nullptr when it cannot be had.
void* map_zeroed(size_t bytes) noexcept;
void unmap_zeroed(void* p, size_t bytes) noexcept;

}  // namespace abloom::platform
