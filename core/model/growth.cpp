#include "model/growth.hpp"

#include <cmath>

// Stage targets and capacities go into files (each stage's plan): the same doubles on every
// machine, so no multiply-add is fused (see there).
#include "model/no_fp_contract.hpp"

namespace abloom {
namespace {

constexpr uint32_t kRampStages = 5;                        // m
constexpr double kRampShare = 0.2;                         // R
constexpr double kTailScale = 4.0;                         // s
constexpr uint64_t kMaxStageCapacity = uint64_t{1} << 53;  // exact in a double

double growth_of(const GrowthRequest& req) noexcept {
  return req.growth == 0.0 ? kDefaultGrowth : req.growth;
}

uint64_t initial_of(const GrowthRequest& req) noexcept {
  return req.initial_capacity == 0 ? kDefaultInitialCapacity : req.initial_capacity;
}

}  // namespace

double stage_fpr_share(uint32_t stage) noexcept {
  if (stage >= kMaxStages) return 0.0;
  if (stage < kRampStages) {
    // R 2^(i-m) / (1 - 2^-m): powers of two, exact.
    const double pow2 = std::ldexp(1.0, static_cast<int>(stage) - static_cast<int>(kRampStages));
    const double ramp_sum = 1.0 - std::ldexp(1.0, -static_cast<int>(kRampStages));
    return kRampShare * pow2 / ramp_sum;
  }
  const double j = static_cast<double>(stage - kRampStages);
  return (1.0 - kRampShare) * kTailScale / ((j + kTailScale) * (j + kTailScale + 1.0));
}

double stage_fpr_share_sum(uint32_t stages) noexcept {
  double sum = 0.0;
  for (uint32_t i = 0; i < stages && i < kMaxStages; ++i) sum += stage_fpr_share(i);
  return sum;
}

Errc check_growth(const GrowthRequest& req) noexcept {
  if (!(req.fpr > 0.0 && req.fpr < 1.0)) return Errc::invalid;  // NaN too
  const double g = growth_of(req);
  if (!(g > 1.0 && g <= kMaxGrowth)) return Errc::invalid;
  // With the layout left to the library, distinct stands for it: every kind has that layout.
  const Layout layout = req.layout_auto ? Layout::distinct : req.layout;
  if (Errc e = check_kind_layout_shards(req.kind, layout, req.shards); e != Errc::ok) return e;
  if (initial_of(req) > kMaxStageCapacity) return Errc::range;
  return Errc::ok;
}

Errc stage_capacity(const GrowthRequest& req, uint32_t stage, uint64_t* out) noexcept {
  if (Errc e = check_growth(req); e != Errc::ok) return e;
  if (stage >= kMaxStages) return Errc::range;
  const double g = growth_of(req);
  uint64_t c = initial_of(req);
  for (uint32_t i = 0; i < stage; ++i) {
    // One rounded multiply per step (no pow: libms differ in its last bit), then at least one
    // key more, so that any growth > 1 grows.
    const double next = std::ceil(static_cast<double>(c) * g);
    if (!(next <= static_cast<double>(kMaxStageCapacity))) return Errc::range;
    const uint64_t grown = static_cast<uint64_t>(next);
    c = grown > c ? grown : c + 1;
    if (c > kMaxStageCapacity) return Errc::range;
  }
  *out = c;
  return Errc::ok;
}

Errc plan_stage(const GrowthRequest& req, uint32_t stage, Plan* out) noexcept {
  uint64_t capacity = 0;
  if (Errc e = stage_capacity(req, stage, &capacity); e != Errc::ok) return e;
  SizingRequest sr;
  sr.kind = req.kind;
  sr.capacity = capacity;
  sr.fpr = req.fpr * stage_fpr_share(stage);
  sr.shards = req.shards;
  sr.layout = req.layout_auto ? default_layout(sr) : req.layout;
  return make_plan(sr, out);
}

Errc growth_footprint(const GrowthRequest& req, uint64_t keys, GrowthFootprint* out) noexcept {
  if (Errc e = check_growth(req); e != Errc::ok) return e;
  GrowthFootprint fp;
  do {
    Plan plan;
    uint64_t capacity = 0;
    if (Errc e = stage_capacity(req, fp.stages, &capacity); e != Errc::ok) return e;
    if (Errc e = plan_stage(req, fp.stages, &plan); e != Errc::ok) return e;
    fp.bytes += plan.bytes();
    fp.capacity += capacity;
    fp.fpr_bound += plan.expected_fpr;
    ++fp.stages;
  } while (fp.capacity < keys);
  *out = fp;
  return Errc::ok;
}

}  // namespace abloom
