// Honest sizing: exact FPR models of each kind, and the plan (bits, k, shards) that meets a
// target FPR at a capacity with the fewest bits.
#pragma once

#include <cstdint>

#include "errc.hpp"
#include "layout.hpp"

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
// exact to within sampling error at k = 3..12 (bench/RESULTS.md).
double fpr_blocked(double bits_per_key, uint32_t k) noexcept;
double fpr_model(Kind kind, double bits_per_key, uint32_t k) noexcept;
// The k in [1, kMaxK] with the lowest model FPR at c bits per key.
uint32_t best_k(Kind kind, double bits_per_key) noexcept;

struct SizingRequest {
  Kind kind = Kind::blocked;
  uint64_t capacity = 0;  // > 0
  double fpr = 0.01;      // used when bits == 0
  uint32_t shards = 0;    // 0: default rule; else a power of two <= kMaxShards
  uint64_t bits = 0;      // 0: derive
  uint32_t k = 0;         // 0: optimum
};

struct Plan {
  Kind kind = Kind::blocked;
  uint32_t k = 0;
  uint32_t shard_bits = 0;
  uint64_t blocks_per_shard = 0;
  double expected_fpr = 0;  // model FPR at capacity

  uint32_t shards() const noexcept { return 1u << shard_bits; }
  uint64_t bits() const noexcept { return (blocks_per_shard * kBlockBits) << shard_bits; }
  uint64_t bytes() const noexcept { return bits() / 8; }
};

// Validates the request and computes the plan. Errc::invalid for a domain error, Errc::range
// when the filter would exceed kMaxBytes.
Errc make_plan(const SizingRequest& req, Plan* out) noexcept;

}  // namespace abloom
