// Growing filters' schedule: the capacity and the FPR target of each stage of a chain of blocked
// filters, so that a filter needs no capacity up front and still meets the FPR it was asked for.
//
// A growing filter is a chain of stages 0, 1, 2, ...: each an ordinary filter (make_plan) built
// when the one before it is full, stage i with capacity c_i and FPR target f * w_i, where f is the
// FPR asked for:
//
//   c_0 = the initial capacity, c_i = max(c_{i-1} + 1, ceil(c_{i-1} * growth)) (default growth 2);
//   w_i = R 2^(i-m) / (1 - 2^-m)                 for i < m   (the ramp),
//   w_i = (1 - R) s / ((j + s) (j + s + 1))      for j = i - m >= 0   (the tail),
//   with m = 5, R = 1/5, s = 4.
//
// The bound. A key no stage holds is a false positive when one stage or more answers yes, so the
// chain's FPR is at most the sum of its stages' FPRs (the union bound), and a stage's FPR is at
// most its target while it holds at most its capacity (make_plan sizes it so; a stage stops taking
// keys when full). The shares sum to R + (1 - R) = 1 in the limit, the tail telescoping
// (s / ((j+s)(j+s+1)) = s/(j+s) - s/(j+s+1)), and every partial sum is below 1: at any count of
// keys, with any number of stages, the chain's FPR stays below f.
//
// Why these shares (bench/JOURNAL.md, "Growing filters: the FPR schedule"): for a chain that may
// grow forever the shares must sum to at most 1, and memory goes where the big stages are. Small
// early stages cost little memory whatever their target, so the ramp gives them small shares
// (doubling, as their capacities do, which is what minimising bits under a fixed FPR sum asks
// for); the tail then decays like 1/j^2, not geometrically, so that a stage's extra bits per key
// grow with log(i), not with i. Against RedisBloom's scheme (growth 2, each stage's FPR half the
// last's) this needs fewer bits from 100x the initial capacity on (bench/JOURNAL.md, "Growing
// filters: the FPR schedule").
#pragma once

#include <cstdint>

#include "errc.hpp"
#include "model/sizing.hpp"

namespace abloom {

// Stages a chain may have: past this the count of stages is not what limits a filter (a stage's
// capacity doubles 63 times past any memory first).
inline constexpr uint32_t kMaxStages = 64;
inline constexpr double kDefaultGrowth = 2.0;
inline constexpr double kMaxGrowth = 16.0;
// The initial capacity when the caller gives none: a first stage of a few kB at 1%, so that a
// filter of a few keys stays small, while 2^20 keys take 10 stages.
inline constexpr uint64_t kDefaultInitialCapacity = 1024;

struct GrowthRequest {
  Kind kind = Kind::blocked;
  bool layout_auto = true;           // each stage's layout: default_layout (else `layout`)
  Layout layout = Layout::distinct;  // when !layout_auto
  uint64_t initial_capacity = 0;     // 0: kDefaultInitialCapacity
  double fpr = 0.01;                 // the whole chain's target, in (0, 1)
  double growth = 0.0;               // 0: kDefaultGrowth; else in (1, kMaxGrowth]
  uint32_t shards = 0;               // per stage: 0 for the default rule, else a power of two
};

// The share w_i of the chain's FPR that stage i may use (see above); 0 past kMaxStages.
double stage_fpr_share(uint32_t stage) noexcept;

// The sum of the shares of stages 0 .. stages-1 (below 1 for any count).
double stage_fpr_share_sum(uint32_t stages) noexcept;

// Validates a request: Errc::invalid for a domain error (FPR outside (0, 1), growth outside
// (1, kMaxGrowth], a bad kind, layout or shard count).
Errc check_growth(const GrowthRequest& req) noexcept;

// The capacity of stage `stage`: Errc::range past kMaxStages or when it exceeds 2^53 keys.
Errc stage_capacity(const GrowthRequest& req, uint32_t stage, uint64_t* out) noexcept;

// The plan of stage `stage` (make_plan at its capacity and FPR target). Errc::range when that
// stage would exceed the limits (kMaxBytes): the chain cannot grow past it.
Errc plan_stage(const GrowthRequest& req, uint32_t stage, Plan* out) noexcept;

// What a chain reaches at `keys` keys: the stages it needs (the fewest whose capacities sum to at
// least `keys`, at least one) and their bytes together. Errc::range when it cannot hold them.
struct GrowthFootprint {
  uint32_t stages = 0;
  uint64_t bytes = 0;
  uint64_t capacity = 0;  // the stages' capacities together (>= keys)
  double fpr_bound = 0;   // the sum of those stages' model FPRs at their capacities (< fpr)
};
Errc growth_footprint(const GrowthRequest& req, uint64_t keys, GrowthFootprint* out) noexcept;

}  // namespace abloom
