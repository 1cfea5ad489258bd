// The bit layout: how one 64-bit key hash becomes a shard, a block and k bit positions.
//
// This is frozen by the file format: changing any constant or step here changes which bits a key
// sets, so files written before would answer wrongly. Every path (scalar, bulk, SIMD) must derive
// positions from these functions only. The blocked kind's steps are defined once, in C99, by
// capi/abloom_layout.h (THE specification, which abloom_inline.h shares); the helpers here are
// thin C++ wrappers over it, plus the kernels' constant tables.
//
//   shard  = top `shard_bits` bits of h                       (independent of everything below)
//   block  = mulhi64(h << shard_bits, blocks_per_shard)       ("fastrange": no division, no 2^n)
//   blocked kind: h2 = (low 32 bits of h) | 1; candidate j = 1, 2, ... is bit
//     (h2 * C^j mod 2^32) >> 23 of the 512-bit block, C = 0x9E3779B9; the key's bits are the
//     first k DISTINCT candidates (at most max_candidates(k) candidates are looked at, so the
//     loop always ends; in practice k distinct ones come within k + 1 or 2). Distinct probes
//     matter: with repeats allowed (RocksDB's FastLocalBloom) the FPR at the optimum k runs
//     0.6-3.3% above the Putze model that sizing uses; with distinct probes it sits on it
//     (bench/JOURNAL.md, "In-block scheme choice"). h2 is forced odd so the candidate
//     sequence never collapses (h2 = 0 would give one bit).
//     Bit b lives in 64-bit word b >> 6 at position b & 63, i.e. byte b >> 3, bit b & 7 in
//     little-endian storage.
//   blocked kind, split layout (layout id 2): the block is 16 32-bit words (word w = bits
//     32w .. 32w + 31); with h2 as above, the key sets one bit in each of k <= 16 consecutive
//     words, w = (s + j) mod 16 for j = 0 .. k-1, starting at s = (h2 * C^17 mod 2^32) >> 28, bit
//     (h2 * C^(w+1) mod 2^32) >> 27 of word w. Its k bits are distinct by construction, so no
//     probe needs a repeat check, and a key's 512-bit mask is one masked variable shift: adds run
//     1.5-1.9x faster in cache and 1.2-1.35x out of it, for 1.1-2.3% more bits at the same FPR
//     (bench/JOURNAL.md, "The split layout in the library").
//   classic kind: over the shard's m = blocks*512 bits, enhanced double hashing in 64-bit
//     fixed point: x = h << shard_bits, y = h * G; probe i sets bit mulhi64(x, m), then x += y,
//     y += (i+1) * G, G = 0x9E3779B97F4A7C15. (x/2^64 is the position as a fraction of m; the
//     y increments add the cubic term of enhanced double hashing in the top bits.)
#pragma once

#include <array>
#include <cstdint>

#include "abloom_layout.h"

namespace abloom {

enum class Kind : uint32_t { blocked = 0, classic = 1 };

// Where a blocked key's bits go inside its block; the values are the format's layout ids. The
// classic kind has one layout, `distinct` (id 1, the format's first).
enum class Layout : uint32_t { distinct = 1, split = 2 };

inline constexpr uint32_t kBlockBits = ABLOOM_LAYOUT_BLOCK_BITS;
inline constexpr uint32_t kBlockWords = ABLOOM_LAYOUT_BLOCK_WORDS;
static_assert(kBlockWords == kBlockBits / 64);
inline constexpr uint32_t kProbeMul32 = ABLOOM_LAYOUT_PROBE_MUL;
inline constexpr uint64_t kGolden64 = 0x9E3779B97F4A7C15ull;

inline uint64_t mulhi64(uint64_t a, uint64_t b) noexcept { return abloom_layout_mulhi64(a, b); }

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
    return static_cast<uint32_t>(abloom_layout_shard(h, 63 - shard_bits));
  }
  // The word offset of h's block inside its shard.
  uint64_t block_word_offset(uint64_t h) const noexcept {
    return abloom_layout_block_index(h, shard_bits, blocks_per_shard) * kBlockWords;
  }
};

// The k-probe mask of a blocked key: mask[w] holds the bits the key sets in word w of its block.
struct BlockMask {
  uint64_t w[kBlockWords];
};

inline constexpr uint32_t max_candidates(uint32_t k) noexcept {
  return abloom_layout_max_candidates(k);
}
inline constexpr uint32_t kMaxProbeK = 64;  // = kMaxK (sizing.hpp)

// C^j mod 2^32 for j = 0 .. max_candidates(kMaxProbeK): candidate j is (h2 * C^j) >> 23, so the
// first k candidates are k independent multiplies rather than a serial chain.
inline constexpr auto kProbePowers = [] {
  std::array<uint32_t, max_candidates(kMaxProbeK) + 1> p{};
  for (uint32_t j = 0; j < p.size(); ++j) p[j] = abloom_layout_power(j);
  return p;
}();

// The probe state of a blocked key, and its candidate j (a bit index in the 512-bit block).
inline uint32_t probe_seed(uint64_t h) noexcept { return abloom_layout_probe_seed(h); }
inline uint32_t candidate(uint32_t h2, uint32_t j) noexcept {
  return abloom_layout_candidate(h2, kProbePowers[j]);
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
inline constexpr uint32_t kSplitWords = ABLOOM_LAYOUT_SPLIT_WORDS;
inline constexpr uint32_t kSplitMaxK = ABLOOM_LAYOUT_SPLIT_MAX_K;
inline uint32_t split_start(uint32_t h2) noexcept {
  return abloom_layout_split_start(h2, kProbePowers[ABLOOM_LAYOUT_SPLIT_START_POWER]);
}
inline uint32_t split_bit(uint32_t h2, uint32_t word) noexcept {
  return abloom_layout_split_bit(h2, kProbePowers[word + 1]);
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
    for (uint32_t i = 0; i < 2 * kSplitWords; ++i) t.rows[k][i] = abloom_layout_split_lane(i, k);
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

// Iterates the classic kind's k bit positions (each in [0, bits_per_shard)) of a hash.
class ClassicProbes {
 public:
  ClassicProbes(uint64_t h, uint32_t shard_bits, uint64_t shard_bits_total) noexcept
      : x_(h << shard_bits), y_(h * kGolden64), m_(shard_bits_total) {}
  uint64_t next() noexcept {
    const uint64_t pos = mulhi64(x_, m_);
    ++i_;
    x_ += y_;
    y_ += i_ * kGolden64;
    return pos;
  }

 private:
  uint64_t x_, y_, m_;
  uint64_t i_ = 0;
};

}  // namespace abloom
