// The engine's operating-system calls that are not plain POSIX, each in one function with its
// fallback (platform.cpp says what each one does where). Everything else in core/ uses POSIX
// calls that Linux (glibc and musl), macOS and the BSDs all have.
//
// Built with ABLOOM_PORTABLE_PLATFORM defined, every function takes its fallback even on Linux:
// the musl test run of scripts/platform-builds.sh does, so that the paths macOS takes are
// exercised by the whole test suite on a machine that can run it.
#pragma once

#include <cstddef>

namespace abloom::platform {

// Flushes fd's data and metadata to stable storage, as far as the system can promise it (a
// file, or a directory after a rename in it). 0, or -1 with errno.
int sync_durably(int fd) noexcept;

// Whether mapped files need their descriptor kept open to be synced durably (sync_mapping's
// `fd`); when false, sync_mapping ignores it and the descriptor may be closed once mapped.
bool mapping_sync_needs_descriptor() noexcept;

// Writes the pages of a shared mapping [base, base + len) of a file back to it and flushes them
// as sync_durably does; `fd` is the file's descriptor, or -1 where not needed (above). 0, or -1
// with errno.
int sync_mapping(void* base, size_t len, int fd) noexcept;

// Opens an unnamed regular file in directory `dir`, for writing, close-on-exec, that vanishes
// with its descriptor unless link_unnamed names it. The descriptor, or -1 with errno: where
// this system has no such files (EOPNOTSUPP), where the file system refuses them, or for any
// other error; the caller then uses a named temporary file, which reports a real error again.
int open_unnamed(const char* dir) noexcept;

// Gives the file of an open_unnamed descriptor the name `path` (which must not exist). 0, or -1
// with errno: EEXIST when path exists; EOPNOTSUPP when this system cannot name it (nothing was
// named; the caller falls back to a named temporary file).
int link_unnamed(int fd, const char* path) noexcept;

// Advises the system to back the anonymous mapping [p, p + len) with huge pages. Advice only:
// nothing changes but speed whether it is taken or not.
void advise_huge_pages(void* p, size_t len) noexcept;

}  // namespace abloom::platform
