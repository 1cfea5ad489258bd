// Deterministic key streams for the core tests.
#pragma once

#include <cstdint>

namespace abloom::testing {

// SplitMix64's output function: a well-mixed 64-bit value of z (a bijection, so distinct inputs
// give distinct keys). mix(s) is the first value of SplitMix(s).
inline uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// SplitMix64: a fixed-seed stream of well-mixed 64-bit values (test data only; the filter's
// hash is XXH3).
class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    const uint64_t z = mix(s_);
    s_ += 0x9E3779B97F4A7C15ull;
    return z;
  }

 private:
  uint64_t s_;
};

}  // namespace abloom::testing
