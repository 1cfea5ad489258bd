#include "layout/hash.hpp"

namespace abloom {

uint64_t hash_key_long(uint64_t seed, const void* key, size_t len) noexcept {
  return XXH3_64bits_withSeed(key, len, seed);
}

}  // namespace abloom
