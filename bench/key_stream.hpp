// The key stream every benchmark program draws its keys from: SplitMix64, a fixed-seed stream of
// well-mixed 64-bit values (test data only; the filter's hash is XXH3).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Keys handed out per call by for_stream_keys.
inline constexpr size_t kStreamChunk = size_t{1} << 16;

// Calls fn(words, count) for the first n 16-byte keys of the stream from `seed` (key i is
// words[2i], words[2i+1]), kStreamChunk keys a call: the same keys for every filter given the
// same seed.
template <class Fn>
void for_stream_keys(uint64_t seed, uint64_t n, Fn fn) {
  std::vector<uint64_t> w(2 * kStreamChunk);
  uint64_t s = seed;
  for (uint64_t done = 0; done < n; done += kStreamChunk) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kStreamChunk, n - done));
    for (size_t i = 0; i < 2 * m; ++i) w[i] = splitmix64(s);
    fn(w.data(), m);
  }
}

// The offsets of n packed keys of len bytes each (n + 1 of them).
inline std::vector<uint64_t> packed_offsets(size_t n, size_t len) {
  std::vector<uint64_t> o(n + 1);
  for (size_t i = 0; i <= n; ++i) o[i] = i * len;
  return o;
}

}  // namespace bench
