// Files: crash-safe save (temporary file, fsync, rename, directory fsync) and O(1) open by mmap.
#pragma once

#include <cstdint>
#include <memory>

#include "errc.hpp"
#include "filter.hpp"

namespace abloom {

enum class OpenMode { read_only, copy_on_write, read_write };

// Saves crash-safely. Errc::io with errno set on failure; no temporary file is left behind.
Errc save_file(const Filter& filter, const char* path) noexcept;

// Maps `path` and validates its header (and, when verify, its checksum).
Errc open_file(const char* path, OpenMode mode, bool verify, std::unique_ptr<Filter>* out);

}  // namespace abloom
