// The 16-byte keys that abloom_bench and boost_bloom_peer share, so that both measure the same
// keys: the fill stream (what a filled filter holds), its first kPoolKeys keys (present in every
// filter of at least that many keys), and the pool of absent keys handed out in batches, renewed
// when used up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "key_stream.hpp"

namespace bench {

inline constexpr size_t kBatch = 4096;
inline constexpr size_t kPoolKeys = size_t{1} << 20;
inline constexpr size_t kFillChunk = kStreamChunk;  // fill keys per for_fill_keys call
inline constexpr uint64_t kFillSeed = 0xF111ull;
inline constexpr uint64_t kQuerySeed = 0x0E41ull;
inline constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// Calls fn(words, count) for chunks of the n fill keys (16 bytes each, 2 words per key): the
// same keys for every filter filled.
template <class Fn>
void for_fill_keys(uint64_t n, Fn fn) {
  for_stream_keys(kFillSeed, n, fn);
}

// kPoolKeys absent keys (contiguous: key i is words[2i], words[2i+1]) and a cursor that hands
// out batches of kBatch.
struct KeyPool {
  std::vector<uint64_t> words;
  size_t cursor = 0;
  KeyPool() : words(2 * kPoolKeys) {
    uint64_t s = kQuerySeed;
    for (auto& w : words) w = splitmix64(s);
  }
  // Turns every key into one never seen before.
  void renew() {
    for (size_t i = 1; i < words.size(); i += 2) words[i] += kGolden;
  }
  // The start of the next batch of kBatch keys; *wrapped when the pool was used up.
  size_t next(bool* wrapped) {
    const size_t off = cursor;
    cursor = (cursor + kBatch) % kPoolKeys;
    *wrapped = cursor == 0;
    return off;
  }
  const uint64_t* key(size_t i) const { return &words[2 * i]; }
};

// The first kPoolKeys fill keys: present in every filled filter (of at least that many keys).
inline const std::vector<uint64_t>& present_keys() {
  static const std::vector<uint64_t> w = [] {
    std::vector<uint64_t> v;
    v.reserve(2 * kPoolKeys);
    for_fill_keys(kPoolKeys, [&](const uint64_t* k, size_t m) { v.insert(v.end(), k, k + 2 * m); });
    return v;
  }();
  return w;
}

}  // namespace bench
