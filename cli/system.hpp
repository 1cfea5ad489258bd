// The operating system's part of the abloom command: opening and reading inputs, the terminal,
// memory and CPUs, and the command line. One header, one implementation per system
// (system_posix.cpp, system_win32.cpp), so that the rest of cli/ has no #ifdef for the OS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace abloom_cli::sys {

// What the command needs to know of a path or an open file.
struct FileKind {
  bool directory = false;
  bool regular = false;  // a file that can be read twice and by ranges (not a FIFO or a device)
  uint64_t size = 0;     // of a regular file
};

// The kind of `path` (UTF-8), without opening it (opening a FIFO would wait for its writer):
// 0, or the errno of the failure.
int kind_of_path(const std::string& path, FileKind& kind);

// The kind of the open file `fd`: 0, or the errno of the failure.
int kind_of_fd(int fd, FileKind& kind);

// Opens `path` (UTF-8) for reading, in binary: a descriptor, or -1 with errno set. Not inherited
// by child processes; on Windows others may rename or delete the file meanwhile, as on POSIX.
int open_read(const std::string& path);

// Reads up to `n` bytes from the descriptor's position (0 at the end): how many, or -1 with
// errno set. Interrupted reads are retried.
int64_t read_some(int fd, char* to, size_t n);

// Reads up to `n` bytes at `offset`, leaving any position alone, so that threads can read one
// descriptor at once: how many (fewer only at the end of the file), or -1 with errno set.
int64_t read_at(int fd, char* to, size_t n, uint64_t offset);

void close_fd(int fd);

// What tells one file from every other while both exist: device and inode number on POSIX, the
// volume serial number and file index on Windows. Two names of one file (a symbolic link, a hard
// link, "./x" and "x") have equal ids, which comparing the names would miss.
struct FileId {
  uint64_t device = 0;
  uint64_t file = 0;
  bool operator==(const FileId& o) const { return device == o.device && file == o.file; }
};

// The id of the file `path` (UTF-8) names, links followed: 0, or the errno of the failure (ENOENT
// for no such file).
int file_id_of_path(const std::string& path, FileId& id);

// The id of the open file `fd` (standard input may be a redirected file): 0, or the errno.
int file_id_of_fd(int fd, FileId& id);

// Whether standard error is a terminal that the progress line's escapes (\r, erase to the end of
// the line) work on; on Windows this turns the console's escape processing on.
bool stderr_is_terminal();

// Whether standard output is a terminal (a console on Windows): query and dedupe draw no
// progress line between the records they print there.
bool stdout_is_terminal();

// Free physical memory in bytes (Linux: MemFree, not counting reclaimable caches; Windows: the
// available physical memory), or 0 when unknown.
uint64_t free_memory();

// The CPUs this process may run on (its affinity where the system has one), or 0 when unknown.
unsigned usable_cpus();

// Asks the system for writable pages under [from, from + bytes) now, where it can (Linux's
// MADV_POPULATE_WRITE); elsewhere nothing. filter.hpp's prefault_for_writes says why.
void populate_for_writes(void* from, size_t bytes);

// Standard input and output in binary: keys pass through byte for byte (Windows' text mode would
// turn \n into \r\n and stop at a ^Z); nothing to do on POSIX.
void binary_stdio();

// The command line as UTF-8: argv itself on POSIX; on Windows, whose argv is in the ANSI code
// page (where names outside it are lost), the UTF-16 command line converted.
std::vector<std::string> utf8_arguments(int argc, char** argv);

}  // namespace abloom_cli::sys
