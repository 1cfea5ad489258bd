// Honest sizing: exact FPR models of each kind, and the plan (bits, k, shards) that meets a
// target FPR at a capacity with the fewest bits.
#pragma once

#include <cstdint>

#include "errc.hpp"
#include "layout/layout.hpp"

namespace abloom {

inline constexpr uint32_t kMaxK = 64;
static_assert(kMaxK == kMaxProbeK, "the probe power table covers every k");
inline constexpr uint32_t kMaxShards = 65536;
inline constexpr uint64_t kMaxBytes = uint64_t{1} << 48;
inline constexpr uint32_t kMaxThreads = 256;
// Default sharding: one shard per this many bytes of filter, up to kDefaultMaxShards.
inline constexpr uint64_t kDefaultShardBytes = uint64_t{16} << 20;
inline constexpr uint32_t kDefaultMaxShards = 64;

// Classic Bloom filter: (1 - e^(-k/c))^k at c bits per key.
double fpr_classic(double bits_per_key, uint32_t k) noexcept;
// One-block-per-key filter with 512-bit blocks: keys fall into blocks by a Poisson law of mean
// 512/c; a block holding i keys answers a foreign key positive with (1 - (1 - 1/512)^(ik))^k
// (Putze, Sanders, Singler 2007). Measured on our layout (k distinct probes per key) it is
// exact to within sampling error at k = 3..12 (bench/JOURNAL.md, "FPR of the default sizing").
double fpr_blocked(double bits_per_key, uint32_t k) noexcept;
// The blocked kind's split layout (layout.hpp), exactly: a block of 16 32-bit words holding a
// Poisson(512/c) number of keys, each key one uniform bit in each of k consecutive words from a
// uniform start. A query's words are 0..k-1 by symmetry, and word j misses the query's bit unless
// one of the m_j keys covering it set it, so FPR = E[prod_j (1 - q^m_j)], q = 31/32. By
// inclusion-exclusion over subsets S of the query's words, with Poisson keys,
//   FPR = sum_S (-1)^|S| exp(-(512/c) (1 - phi(S))),  phi(S) = mean over the 16 starts of
//         q^|(that start's k words) & S|.
// 2^k terms (k <= 16). Measured FPRs match it to within sampling error (bench/JOURNAL.md, "FPR:
// the split layout's model against measurement").
double fpr_split(double bits_per_key, uint32_t k) noexcept;
// The half layout (layout.hpp): a half holds Poisson(256 / c) keys, and a query's bit in each of
// its 8 words stays clear through each of them with probability 31/32, independently, so
//   FPR = sum_i Pois(i; 256 / c) (1 - (31/32)^i)^8.
// k must be kHalfK (1 otherwise: no such layout).
double fpr_half(double bits_per_key, uint32_t k) noexcept;
double fpr_model(Kind kind, Layout layout, double bits_per_key, uint32_t k) noexcept;
// The largest k a kind and layout allow (kMaxK; kSplitMaxK for the split layout; kHalfK, its
// only k, for the half layout).
uint32_t max_k(Kind kind, Layout layout) noexcept;
// The k in [1, max_k] with the lowest model FPR at c bits per key.
uint32_t best_k(Kind kind, Layout layout, double bits_per_key) noexcept;
// The same, walking from `start` instead of the classic optimum: any start where the FPR is
// below 1 gives the same k, the model being unimodal in k (where it rounds to 1, for k far too
// large, the walk cannot tell which way is down); a start near the answer takes fewer steps.
uint32_t best_k_from(Kind kind, Layout layout, double bits_per_key, uint32_t start) noexcept;

struct SizingRequest {
  Kind kind = Kind::blocked;
  Layout layout = Layout::distinct;  // blocked kind only (the classic kind has one layout)
  uint64_t capacity = 0;             // > 0
  double fpr = 0.01;                 // used when bits == 0
  uint32_t shards = 0;               // 0: default rule; else a power of two <= kMaxShards
  uint64_t bits = 0;                 // 0: derive
  uint32_t k = 0;                    // 0: optimum
};

struct Plan {
  Kind kind = Kind::blocked;
  Layout layout = Layout::distinct;
  uint32_t k = 0;
  uint32_t shard_bits = 0;
  uint64_t blocks_per_shard = 0;
  double expected_fpr = 0;  // model FPR at capacity

  uint32_t shards() const noexcept { return 1u << shard_bits; }
  uint64_t bits() const noexcept { return (blocks_per_shard * kBlockBits) << shard_bits; }
  uint64_t bytes() const noexcept { return bits() / 8; }
  // The shape of a filter built to this plan, with `seed`.
  Shape shape(uint64_t seed) const noexcept {
    Shape s;
    s.kind = kind;
    s.layout = layout;
    s.k = k;
    s.shard_bits = shard_bits;
    s.blocks_per_shard = blocks_per_shard;
    s.seed = seed;
    return s;
  }
};

// Errc::invalid unless `kind` is known, `layout` is one of its layouts and `shards` is 0 (the
// default rule) or a power of two up to kMaxShards: the shape fields every request checks.
Errc check_kind_layout_shards(Kind kind, Layout layout, uint32_t shards) noexcept;

// Validates the request and computes the plan. Errc::invalid for a domain error, Errc::range
// when the filter would exceed kMaxBytes.
Errc make_plan(const SizingRequest& req, Plan* out) noexcept;

// The library's choice of layout for a request whose caller left it to us (req.layout ignored).
// Split, whose adds are faster (no repeat check, fewer words touched; bench/RESULTS.md, "C
// library: the distinct layout and the classic kind") for 1-2.3% more bits at the same FPR,
// wherever its k (at most kSplitMaxK) is enough: an explicit k up to kSplitMaxK, or a target whose
// best distinct k is no higher (targets down to about 1e-6). Distinct for the classic kind, a
// larger explicit k, and lower targets, where split's capped k would cost 3-14% more bits
// (bench/JOURNAL.md, "Split becomes the default layout"). An invalid request gets distinct, and
// make_plan then reports the error.
Layout default_layout(const SizingRequest& req) noexcept;

}  // namespace abloom
