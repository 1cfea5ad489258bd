// The key stream every benchmark program draws its keys from: SplitMix64, a fixed-seed stream of
// well-mixed 64-bit values (test data only; the filter's hash is XXH3).
#pragma once

#include <cstdint>

namespace bench {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace bench
