// Files: crash-safe save (temporary file, fsync, rename, directory fsync) and O(1) open by mmap.
#pragma once

#include <cstdint>
#include <memory>

#include "errc.hpp"
#include "filter/filter.hpp"
#include "filter/growing_filter.hpp"

namespace abloom {

enum class OpenMode { read_only, copy_on_write, read_write };

// How save_file makes its temporary file: unnamed (O_TMPFILE) where the file system allows,
// else named (the only way on some file systems; tests force it to check that path).
enum class SaveMethod { automatic, named_temporary };

// Saves crash-safely, writing through symbolic links to their target. Errc::io with errno set on
// failure; no temporary file is left behind, and a crash leaves at most one, which the next save
// of the same path removes (file_io.cpp, "Saving").
Errc save_file(const Filter& filter, const char* path,
               SaveMethod method = SaveMethod::automatic) noexcept;

// The same for a growing filter: the stages it has when the save starts.
Errc save_file(const GrowingFilter& chain, const char* path,
               SaveMethod method = SaveMethod::automatic) noexcept;

// Maps `path` and validates its header (and, when verify, its checksum).
Errc open_file(const char* path, OpenMode mode, bool verify, std::unique_ptr<Filter>* out);
// The same, and a growing filter's file into *chain_out (its stages mapped in place, load_chain's
// checks; read-write, new stages are appended to the file: file_io.cpp, "A growing filter's file,
// read-write"; Errc::unsupported there for the first chains' form, with no place to append): one
// of *out and *chain_out is set.
Errc open_file(const char* path, OpenMode mode, bool verify, std::unique_ptr<Filter>* out,
               std::unique_ptr<GrowingFilter>* chain_out);

// Seals a stale file (abloom_seal): checks what can be checked without its checksum (header,
// size, the fill against the stored estimate), then rewrites the estimate and both checksums,
// clears the stale flag and flushes durably. A file that is not stale has its checksum verified
// and is never written (Errc::ok or Errc::checksum). Errc::corrupt, nothing written, when the
// bits estimate fewer keys than the header stored.
Errc seal_file(const char* path);

}  // namespace abloom
