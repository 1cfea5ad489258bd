// Error conditions of the core engine. The C layer maps each to an ABLOOM_ERR_* code; the core
// itself throws nothing but std::bad_alloc (which the C layer turns into ABLOOM_ERR_NOMEM).
#pragma once

namespace abloom {

enum class Errc {
  ok = 0,
  invalid,      // an argument outside its domain
  range,        // a size that overflows or exceeds the limits
  mismatch,     // two filters of different shape
  read_only,    // a write to a view or a read-only mapping
  bad_magic,    // serialized data: not an abloom filter
  version,      // serialized data: unknown format version
  unsupported,  // serialized data: unknown kind, layout or hash
  truncated,    // serialized data: too short
  corrupt,      // serialized data: header checksum or inconsistent fields
  checksum,     // serialized data: header+body checksum mismatch
  alignment,    // a view over a misaligned buffer
  io,           // a file system call failed (errno is set)
  too_small,    // a caller's output buffer is too small
  stale,        // serialized data: marked stale by a read-write writer, so no checksum to check
};

}  // namespace abloom
