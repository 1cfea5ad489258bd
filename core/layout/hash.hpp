// The one hash per key: XXH3-64 with a per-filter seed, from the system's xxHash used header-only.
#pragma once

#include <cstddef>
#include <cstdint>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace abloom {

// Keys longer than kInlineHashMax bytes: XXH3 out of line (hash.cpp).
uint64_t hash_key_long(uint64_t seed, const void* key, size_t len) noexcept;

inline constexpr size_t kInlineHashMax = 16;

// hash_key for keys of at most kInlineHashMax bytes only (XXH3_len_0to16_64b, see below).
[[gnu::always_inline]] inline uint64_t hash_key_short(uint64_t seed, const void* key,
                                                      size_t len) noexcept {
  return XXH3_len_0to16_64b(static_cast<const xxh_u8*>(key), len, XXH3_kSecret, seed);
}

// XXH3_64bits_withSeed(key, len, seed). Keys of up to 16 bytes (64-bit ids, UUIDs, short
// strings) take XXH3's short path inline, so a single-key call has no call and about 25
// instructions for its hash. Every instruction counts there: out of cache, a single-key test is
// bound by how many keys' misses the reorder buffer holds at once, i.e. by its instructions per
// key (bench/JOURNAL.md, "What bounds a single-key call out of cache"). Longer keys call out of
// line, where the hash itself costs more than the call.
//
// The short path is xxHash's own XXH3_len_0to16_64b with its default secret: the very function
// XXH3_64bits_withSeed runs for these lengths, named directly because compilers will not inline
// XXH3_64bits_withSeed whole (its long-key paths make it too big). It is internal to xxhash.h
// (visible under XXH_INLINE_ALL); tests/core_layout_test.cpp checks hash_key against
// XXH3_64bits_withSeed for every length from 0 to 300 with random seeds.
[[gnu::always_inline]] inline uint64_t hash_key(uint64_t seed, const void* key,
                                                size_t len) noexcept {
  if (len <= kInlineHashMax) [[likely]]
    return hash_key_short(seed, key, len);
  return hash_key_long(seed, key, len);
}

}  // namespace abloom
