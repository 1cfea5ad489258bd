// The engine's view of the bit layout: C++ names, constant tables for the kernels, and the
// reference masks every kernel is tested against.
//
// Why a second file: capi/abloom_layout.h is THE specification (C99, installed, shared with
// abloom_inline.h and followed by the Go and Java ports), and stays plain C; this file adds what
// only the C++ kernels need (constexpr tables of powers and lane masks, BlockMask, Shape) as thin
// wrappers over it, so that every path (scalar, bulk, SIMD) derives positions from the spec's
// functions only. The steps themselves, and why they are frozen, are in abloom_layout.h; why the
// blocked layouts are what they are (distinct probes, the split layout), in bench/JOURNAL.md,
// "In-block scheme choice" and "The split layout in the library".
#pragma once

#include <array>
#include <cstdint>

#include "abloom_layout.h"

namespace abloom {

enum class Kind : uint32_t { blocked = 0, classic = 1 };

// Where a blocked key's bits go inside its block; the values are the format's layout ids. The
// classic kind has one layout, `distinct` (id 1, the format's first).
enum class Layout : uint32_t { distinct = 1, split = 2, half = 3 };

inline constexpr uint32_t kBlockBits = ABLOOM_SPEC_BLOCK_BITS;
inline constexpr uint32_t kBlockWords = ABLOOM_SPEC_BLOCK_WORDS;
static_assert(kBlockWords == kBlockBits / 64);
inline constexpr uint32_t kProbeMul32 = ABLOOM_SPEC_PROBE_MUL;

inline uint64_t mulhi64(uint64_t a, uint64_t b) noexcept { return abloom_spec_mulhi64(a, b); }

// The shape of a filter: everything that decides where a key's bits go.
struct Shape {
  Kind kind = Kind::blocked;
  uint32_t k = 0;
  Layout layout = Layout::distinct;
  uint32_t shard_bits = 0;  // shards = 1 << shard_bits
  uint64_t blocks_per_shard = 0;
  uint64_t seed = 0;

  uint32_t shards() const noexcept { return 1u << shard_bits; }
  uint64_t words_per_shard() const noexcept { return blocks_per_shard * kBlockWords; }
  uint64_t bits_per_shard() const noexcept { return blocks_per_shard * kBlockBits; }
  uint64_t total_bits() const noexcept { return bits_per_shard() << shard_bits; }
  bool operator==(const Shape&) const = default;

  // Which shard h belongs to. (h >> 1) >> (63 - s) is h >> (64 - s) without the undefined
  // shift by 64 when s == 0.
  uint32_t shard_of(uint64_t h) const noexcept {
    return static_cast<uint32_t>(abloom_spec_shard(h, 63 - shard_bits));
  }
  // The word offset of h's block inside its shard.
  uint64_t block_word_offset(uint64_t h) const noexcept {
    return abloom_spec_block_index(h, shard_bits, blocks_per_shard) * kBlockWords;
  }
};

// The k-probe mask of a blocked key: mask[w] holds the bits the key sets in word w of its block.
struct BlockMask {
  uint64_t w[kBlockWords];
};

inline constexpr uint32_t max_candidates(uint32_t k) noexcept {
  return abloom_spec_max_candidates(k);
}
inline constexpr uint32_t kMaxProbeK = 64;  // = kMaxK (sizing.hpp)

// C^j mod 2^32 for j = 0 .. max_candidates(kMaxProbeK): candidate j is (h2 * C^j) >> 23, so the
// first k candidates are k independent multiplies rather than a serial chain.
inline constexpr auto kProbePowers = [] {
  std::array<uint32_t, max_candidates(kMaxProbeK) + 1> p{};
  for (uint32_t j = 0; j < p.size(); ++j) p[j] = abloom_spec_power(j);
  return p;
}();

// The probe state of a blocked key, and its candidate j (a bit index in the 512-bit block).
inline uint32_t probe_seed(uint64_t h) noexcept { return abloom_spec_probe_seed(h); }
inline uint32_t candidate(uint32_t h2, uint32_t j) noexcept {
  return abloom_spec_candidate(h2, kProbePowers[j]);
}

// Whether two of the first k candidates are equal (then the key needs candidates beyond k).
inline bool has_repeat(uint32_t h2, uint32_t k) noexcept {
  for (uint32_t i = 2; i <= k; ++i) {
    const uint32_t ci = candidate(h2, i);
    for (uint32_t j = 1; j < i; ++j) {
      if (candidate(h2, j) == ci) return true;
    }
  }
  return false;
}

inline BlockMask block_mask(uint64_t h, uint32_t k) noexcept {
  BlockMask m{};
  const uint32_t h2 = probe_seed(h);
  uint32_t set = 0;
  auto take = [&](uint32_t j) {
    const uint32_t bit = candidate(h2, j);
    const uint64_t b = uint64_t{1} << (bit & 63);
    uint64_t& word = m.w[bit >> 6];
    set += (word & b) == 0 ? 1 : 0;
    word |= b;
  };
  // The first k candidates: a fixed trip count, so no data-dependent branch in the common case.
  for (uint32_t j = 1; j <= k; ++j) take(j);
  // Rare (about k^2/1024 of keys): repeats among them; take further candidates until k distinct.
  for (uint32_t j = k + 1; set < k && j <= max_candidates(k); ++j) take(j);
  return m;
}

// The split layout: 16 words of 32 bits, at most 16 bits per key (one per word).
inline constexpr uint32_t kSplitWords = ABLOOM_SPEC_SPLIT_WORDS;
inline constexpr uint32_t kSplitMaxK = kSplitWords;  // one bit per word (= ABLOOM_SPLIT_MAX_K)
inline uint32_t split_start(uint32_t h2) noexcept {
  return abloom_spec_split_start(h2, kProbePowers[ABLOOM_SPEC_SPLIT_START_POWER]);
}
inline uint32_t split_bit(uint32_t h2, uint32_t word) noexcept {
  return abloom_spec_split_bit(h2, kProbePowers[word + 1]);
}
// Lane masks of the split layout's word window, for the SIMD kernels: row k is 32 words, word i
// all ones when i % 16 < k. The 16 words from (16 - s) on have lane w set exactly when
// (w - s) mod 16 < k, i.e. when w is one of the k words from s: one load instead of rotating a
// 16-bit mask and expanding it into lanes (about ten instructions on AVX2).
struct SplitWindows {
  alignas(64) uint32_t rows[kSplitMaxK + 1][2 * kSplitWords];
};
inline constexpr SplitWindows kSplitWindows = [] {
  SplitWindows t{};
  for (uint32_t k = 0; k <= kSplitMaxK; ++k)
    for (uint32_t i = 0; i < 2 * kSplitWords; ++i) t.rows[k][i] = abloom_spec_split_lane(i, k);
  return t;
}();
// The 16 lane masks of a key whose window starts at word s (s < 16, k <= 16). A split shape
// never has k > 16 (the options, the format and Shape's checks refuse it); saying so lets the
// compiler drop the bounds it cannot see from the kernels' generic k paths.
inline const uint32_t* split_window(uint32_t s, uint32_t k) noexcept {
  if (k > kSplitMaxK) __builtin_unreachable();
  return &kSplitWindows.rows[k][kSplitWords - s];
}

// The k-bit mask of a key in the split layout (the reference every kernel is checked against).
inline BlockMask split_mask(uint64_t h, uint32_t k) noexcept {
  BlockMask m{};
  const uint32_t h2 = probe_seed(h);
  const uint32_t s = split_start(h2);
  for (uint32_t j = 0; j < k; ++j) {
    const uint32_t w = (s + j) % kSplitWords;
    m.w[w / 2] |= uint64_t{1} << (32 * (w % 2) + split_bit(h2, w));
  }
  return m;
}

// The half layout: one bit in each of the 8 32-bit words of one half of the block, so k is 8.
inline constexpr uint32_t kHalfWords = ABLOOM_SPEC_HALF_WORDS;
inline constexpr uint32_t kHalfK = kHalfWords;

// The 8-bit mask of a key in the half layout (the reference every kernel is checked against).
inline BlockMask half_mask(uint64_t h) noexcept {
  BlockMask m{};
  const uint64_t r = abloom_spec_half_r(h);
  const uint32_t first = abloom_spec_half_index(r) * kHalfWords;  // the half's first 32-bit word
  for (uint32_t j = 0; j < kHalfWords; ++j) {
    const uint32_t w = first + j;
    m.w[w / 2] |= uint64_t{1} << (32 * (w % 2) + abloom_spec_half_bit(r, j));
  }
  return m;
}

// The classic kind has no wrapper here: core/filter.cpp steps through a key's bits with the
// spec's abloom_spec_classic_start and abloom_spec_classic_next directly.

}  // namespace abloom
