// The one hash per key: XXH3-64 with a per-filter seed, from the system's xxHash used header-only.
#pragma once

#include <cstddef>
#include <cstdint>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace abloom {

inline uint64_t hash_key(uint64_t seed, const void* key, size_t len) noexcept {
  return XXH3_64bits_withSeed(key, len, seed);
}

}  // namespace abloom
