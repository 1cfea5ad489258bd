// Sizing: the models agree with the reference model (tests/tools/fpr_model.py), plans are
// minimal, and every domain error is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "model/sizing.hpp"

namespace abloom {
namespace {

// Reference values of tests/tools/fpr_model.py (ctest abloom_fpr_model_check recomputes them):
// fpr_blocked(c, k) with 512-bit blocks and fpr_classic(c, k).
struct ModelPoint {
  double c;
  uint32_t k;
  double blocked;
  double classic;
};
constexpr ModelPoint kOracle[] = {
    {10, 6, 0.009575669482801178, 0.008436209268438546},
    {16, 9, 0.000825634634519132, 0.00050488178194274},
    {5, 3, 0.09288544765573574, 0.09184883923294047},
    {24, 12, 5.121552908904191e-05, 1.376989934741612e-05},
    {8, 5, 0.023121193546560642, 0.021679217053751712},
};

TEST(Sizing, ModelsMatchOracle) {
  for (const auto& p : kOracle) {
    EXPECT_NEAR(fpr_blocked(p.c, p.k), p.blocked, p.blocked * 1e-9) << p.c << " " << p.k;
    EXPECT_NEAR(fpr_classic(p.c, p.k), p.classic, p.classic * 1e-12) << p.c << " " << p.k;
  }
}

// The half layout's model, fpr_half(c, 8), from the reference model (its k is fixed, so it has
// no row in kNeeds).
struct HalfPoint {
  double c;
  double half;
};
constexpr HalfPoint kHalfOracle[] = {
    {6.0, 0.09933874170970962},   {8.0, 0.03321186370875318},     {10.53, 0.009996655933097686},
    {16.0, 0.001315573402850644}, {24.0, 0.00016269388014037453}, {40.0, 1.1337909772613115e-05},
};

TEST(HalfSizing, ModelMatchesOracle) {
  for (const auto& p : kHalfOracle) {
    EXPECT_NEAR(fpr_half(p.c, kHalfK), p.half, p.half * 1e-9) << p.c;
    EXPECT_EQ(fpr_model(Kind::blocked, Layout::half, p.c, kHalfK), fpr_half(p.c, kHalfK));
  }
  // No other k: the layout sets exactly one bit in each of its 8 words.
  EXPECT_EQ(fpr_half(10, kHalfK - 1), 1.0);
  EXPECT_EQ(fpr_half(10, kHalfK + 1), 1.0);
  EXPECT_EQ(fpr_half(0, kHalfK), 1.0);
  EXPECT_EQ(fpr_half(-1, kHalfK), 1.0);
}

// Its plans: k is always kHalfK, the fewest blocks meet the target, and an explicit k must be 0 or
// kHalfK.
TEST(HalfSizing, PlansTakeItsOneKAndTheFewestBlocks) {
  for (double p : {0.1, 0.01, 1e-3, 1e-4}) {
    for (uint32_t shards : {1u, 4u}) {
      SizingRequest req;
      req.capacity = 1'000'000;
      req.fpr = p;
      req.layout = Layout::half;
      req.shards = shards;
      Plan plan;
      ASSERT_EQ(make_plan(req, &plan), Errc::ok) << p;
      EXPECT_EQ(plan.layout, Layout::half);
      EXPECT_EQ(plan.k, kHalfK);
      EXPECT_LE(plan.expected_fpr, p);
      const double fewer = static_cast<double>((plan.blocks_per_shard - 1) * shards) * kBlockBits /
                           static_cast<double>(req.capacity);
      EXPECT_GT(fpr_half(fewer, kHalfK), p) << "a block fewer per shard misses the target";
    }
  }
  SizingRequest req;
  req.capacity = 1000;
  req.layout = Layout::half;
  Plan plan;
  for (uint32_t k : {1u, 7u, 9u, 16u}) {
    req.k = k;
    EXPECT_EQ(make_plan(req, &plan), Errc::invalid) << k;
  }
  req.k = kHalfK;
  EXPECT_EQ(make_plan(req, &plan), Errc::ok);
  req.k = 0;
  req.bits = 1000 * 12;
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_EQ(plan.k, kHalfK) << "explicit bits: still its one k";
  req.bits = 0;
  req.kind = Kind::classic;
  EXPECT_EQ(make_plan(req, &plan), Errc::invalid) << "the classic kind has one layout";
  // Never the library's choice.
  req.kind = Kind::blocked;
  for (uint32_t k : {0u, 8u}) {
    req.k = k;
    EXPECT_NE(default_layout(req), Layout::half) << k;
  }
}

// Bits per key and k needed per target, from the reference model's bits_needed().
struct Need {
  double p;
  double blocked_c;
  uint32_t blocked_k;
  double classic_c;
  uint32_t classic_k;
};
constexpr Need kNeeds[] = {
    {0.1, 4.8315407907974315, 3, 4.808327361093108, 3},
    {0.01, 9.895900414629363, 6, 9.592954717083106, 7},
    {0.001, 15.488338792010023, 9, 14.377639338619488, 10},
    {1e-4, 21.914045388814277, 12, 19.172954796335294, 13},
    {1e-5, 29.475094088690746, 14, 23.96658611439845, 17},
    {1e-6, 38.512966486284206, 16, 28.755278677238977, 20},
};

TEST(Sizing, PlansSitOnTheModelForEveryTarget) {
  const uint64_t n = 1'000'000;
  for (const auto& need : kNeeds) {
    for (Kind kind : {Kind::blocked, Kind::classic}) {
      const double model_c = kind == Kind::blocked ? need.blocked_c : need.classic_c;
      const uint32_t model_k = kind == Kind::blocked ? need.blocked_k : need.classic_k;
      SizingRequest req;
      req.kind = kind;
      req.capacity = n;
      req.fpr = need.p;
      req.shards = 1;
      Plan plan;
      ASSERT_EQ(make_plan(req, &plan), Errc::ok);
      // Never more bits than the model needs, plus the rounding to whole 512-bit blocks.
      const double model_bits = model_c * n;
      EXPECT_LE(static_cast<double>(plan.bits()), std::ceil(model_bits / 512) * 512 + 512)
          << need.p;
      // And never fewer: the model FPR of the plan meets the target.
      EXPECT_LE(plan.expected_fpr, need.p);
      EXPECT_GE(static_cast<double>(plan.bits()), model_bits - 512);
      EXPECT_EQ(plan.k, model_k) << need.p;
    }
  }
}

// The minimality tests' request: 123'457 keys over 4 shards at target p.
constexpr uint64_t kMinimalityKeys = 123'457;
Plan minimality_plan(Kind kind, Layout layout, double p) {
  SizingRequest req;
  req.kind = kind;
  req.layout = layout;
  req.capacity = kMinimalityKeys;
  req.fpr = p;
  req.shards = 4;
  Plan plan;
  EXPECT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_LE(plan.expected_fpr, p);
  return plan;
}
// The bits per key of that plan with one block per shard fewer.
double bits_per_key_one_block_less(const Plan& plan) {
  return static_cast<double>((plan.blocks_per_shard - 1) * 4 * 512) / kMinimalityKeys;
}

TEST(Sizing, PlanIsMinimal) {
  for (Kind kind : {Kind::blocked, Kind::classic}) {
    for (double p : {0.2, 0.05, 0.01, 0.003, 1e-4}) {
      const Plan plan = minimality_plan(kind, Layout::distinct, p);
      // One block per shard fewer would miss the target with any k.
      const double c_less = bits_per_key_one_block_less(plan);
      EXPECT_GT(fpr_model(kind, Layout::distinct, c_less, best_k(kind, Layout::distinct, c_less)),
                p);
    }
  }
}

TEST(Sizing, BestKIsTheArgmin) {
  for (Kind kind : {Kind::blocked, Kind::classic}) {
    for (double c = 1.0; c < 60; c *= 1.37) {
      uint32_t brute = 1;
      for (uint32_t k = 2; k <= kMaxK; ++k) {
        if (fpr_model(kind, Layout::distinct, c, k) < fpr_model(kind, Layout::distinct, c, brute)) {
          brute = k;
        }
      }
      EXPECT_DOUBLE_EQ(fpr_model(kind, Layout::distinct, c, best_k(kind, Layout::distinct, c)),
                       fpr_model(kind, Layout::distinct, c, brute))
          << c;
    }
  }
}

TEST(Sizing, ExplicitBitsAndK) {
  SizingRequest req;
  req.capacity = 1000;
  req.bits = 10'000;  // rounds up to 20 blocks = 10240 bits
  req.shards = 1;
  Plan plan;
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_EQ(plan.bits(), 10'240u);
  EXPECT_EQ(plan.k, best_k(Kind::blocked, Layout::distinct, 10.24));
  req.k = 3;
  req.shards = 8;  // 20 blocks over 8 shards: 3 blocks each
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_EQ(plan.k, 3u);
  EXPECT_EQ(plan.blocks_per_shard, 3u);
  EXPECT_EQ(plan.bits(), 8u * 3 * 512);
  EXPECT_DOUBLE_EQ(plan.expected_fpr, fpr_blocked(8.0 * 3 * 512 / 1000, 3));
}

TEST(Sizing, FixedKMeetsTargetWithFewestBits) {
  SizingRequest req;
  req.capacity = 50'000;
  req.fpr = 0.01;
  req.k = 3;
  req.shards = 1;
  req.kind = Kind::classic;
  Plan plan;
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_EQ(plan.k, 3u);
  EXPECT_LE(plan.expected_fpr, 0.01);
  EXPECT_GT(fpr_classic(static_cast<double>(plan.bits() - 512) / 50'000, 3), 0.01);
}

TEST(Sizing, DefaultShardsFollowSize) {
  SizingRequest req;
  req.capacity = 1'000'000;  // ~1.2 MB: one shard
  req.fpr = 0.01;
  Plan plan;
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_EQ(plan.shards(), 1u);
  req.capacity = 100'000'000;  // ~124 MB: 8 shards of at most 16 MiB
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_EQ(plan.shards(), 8u);
  EXPECT_LE(plan.bytes() / plan.shards(), kDefaultShardBytes);
  req.capacity = 10'000'000'000ull;  // ~12 GB: capped
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  EXPECT_EQ(plan.shards(), kDefaultMaxShards);
}

TEST(Sizing, ShardingKeepsTheBitsPerKey) {
  SizingRequest req;
  req.capacity = 10'000'000;
  req.fpr = 0.001;
  Plan one, many;
  req.shards = 1;
  ASSERT_EQ(make_plan(req, &one), Errc::ok);
  req.shards = 64;
  ASSERT_EQ(make_plan(req, &many), Errc::ok);
  EXPECT_EQ(one.k, many.k);
  EXPECT_LE(many.bits() - one.bits(), 64u * 512);  // only rounding to whole blocks per shard
}

TEST(Sizing, DomainErrors) {
  Plan plan;
  SizingRequest ok;
  ok.capacity = 10;
  ASSERT_EQ(make_plan(ok, &plan), Errc::ok);
  auto with = [&](auto edit) {
    SizingRequest r = ok;
    edit(r);
    return make_plan(r, &plan);
  };
  EXPECT_EQ(with([](SizingRequest& r) { r.capacity = 0; }), Errc::invalid);
  for (double bad : {0.0, 1.0, -0.5, 2.0, std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    EXPECT_EQ(with([&](SizingRequest& r) { r.fpr = bad; }), Errc::invalid) << bad;
  }
  // With explicit bits the FPR is not used.
  EXPECT_EQ(with([](SizingRequest& r) {
              r.fpr = 0;
              r.bits = 4096;
            }),
            Errc::ok);
  EXPECT_EQ(with([](SizingRequest& r) { r.k = kMaxK + 1; }), Errc::invalid);
  EXPECT_EQ(with([](SizingRequest& r) { r.shards = 3; }), Errc::invalid);
  EXPECT_EQ(with([](SizingRequest& r) { r.shards = kMaxShards * 2; }), Errc::invalid);
  EXPECT_EQ(with([](SizingRequest& r) { r.kind = static_cast<Kind>(7); }), Errc::invalid);
  EXPECT_EQ(with([](SizingRequest& r) { r.bits = UINT64_MAX; }), Errc::range);
  EXPECT_EQ(with([](SizingRequest& r) { r.bits = kMaxBytes * 8 + 1; }), Errc::range);
  EXPECT_EQ(with([](SizingRequest& r) {
              r.capacity = UINT64_MAX;
              r.fpr = 1e-9;
            }),
            Errc::range);
  EXPECT_EQ(with([](SizingRequest& r) {  // k = 1 would need 1e18 bits for 1e-12
              r.capacity = 1'000'000;
              r.fpr = 1e-12;
              r.k = 1;
            }),
            Errc::range);
}

}  // namespace
}  // namespace abloom

namespace abloom {
namespace {

// The split layout's exact model (sizing.hpp) against closed forms it must reduce to: with k = 1
// a key sets one uniform bit of the block, as in the distinct layout (and Putze's model is exact
// there); with k = 16 every key covers every word, so a block of i keys answers (1 - q^i)^16.
TEST(SplitSizing, ModelReducesToClosedFormsAtKOneAndSixteen) {
  for (double c : {2.0, 5.0, 9.5, 10.0, 16.0, 24.0, 40.0}) {
    EXPECT_NEAR(fpr_split(c, 1), fpr_blocked(c, 1), 1e-12 * fpr_blocked(c, 1)) << c;
    const double lam = 512.0 / c, q = 31.0 / 32.0;
    double sum = 0, pmf = std::exp(-lam);
    for (int i = 0; i < 2000; ++i) {
      sum += pmf * std::pow(1 - std::pow(q, i), 16);
      pmf *= lam / (i + 1);
    }
    // The alternating sum cancels down to an absolute error near 1e-15 (sizing.cpp).
    EXPECT_NEAR(fpr_split(c, 16), sum, std::max(1e-9 * sum, 1e-14)) << c;
  }
}

// Values of the in-block study's exact model (bench/studies/inblock_schemes, WindowModel), which
// matched the measured FPRs: the two independent implementations agree.
TEST(SplitSizing, ModelMatchesTheStudy) {
  EXPECT_NEAR(fpr_split(8, 5), 0.025095, 0.000001);
  EXPECT_NEAR(fpr_split(10, 7), 0.010555, 0.000001);
  EXPECT_NEAR(fpr_split(16, 10), 0.000900, 0.0000005);
  // The bits per key it needs at 1% and 0.1%, at most 3% above the distinct layout's.
  for (double target : {0.01, 0.001}) {
    SizingRequest req;
    req.capacity = 10'000'000;
    req.fpr = target;
    req.shards = 1;
    Plan split_plan, distinct_plan;
    req.layout = Layout::split;
    ASSERT_EQ(make_plan(req, &split_plan), Errc::ok);
    req.layout = Layout::distinct;
    ASSERT_EQ(make_plan(req, &distinct_plan), Errc::ok);
    EXPECT_EQ(split_plan.layout, Layout::split);
    EXPECT_LE(split_plan.expected_fpr, target);
    const double ratio = static_cast<double>(split_plan.bits()) / distinct_plan.bits();
    EXPECT_GT(ratio, 1.0) << target;
    EXPECT_LT(ratio, 1.03) << target;
  }
}

TEST(SplitSizing, BestKIsTheArgminUpToSixteen) {
  for (double c = 1.0; c < 60; c *= 1.37) {
    uint32_t brute = 1;
    for (uint32_t k = 2; k <= kSplitMaxK; ++k) {
      if (fpr_split(c, k) < fpr_split(c, brute)) brute = k;
    }
    const uint32_t k = best_k(Kind::blocked, Layout::split, c);
    EXPECT_LE(k, kSplitMaxK);
    EXPECT_DOUBLE_EQ(fpr_split(c, k), fpr_split(c, brute)) << c;
  }
}

TEST(SplitSizing, PlanIsMinimal) {
  for (double p : {0.1, 0.01, 0.001, 1e-4}) {
    const Plan plan = minimality_plan(Kind::blocked, Layout::split, p);
    EXPECT_DOUBLE_EQ(plan.expected_fpr,
                     fpr_split(static_cast<double>(plan.bits()) / kMinimalityKeys, plan.k));
    const double c_less = bits_per_key_one_block_less(plan);
    EXPECT_GT(fpr_split(c_less, best_k(Kind::blocked, Layout::split, c_less)), p);
  }
}

TEST(SplitSizing, DomainErrors) {
  Plan plan;
  SizingRequest req;
  req.capacity = 1000;
  req.layout = Layout::split;
  req.k = kSplitMaxK;
  EXPECT_EQ(make_plan(req, &plan), Errc::ok);
  req.k = kSplitMaxK + 1;
  EXPECT_EQ(make_plan(req, &plan), Errc::invalid) << "one bit per 32-bit word: k <= 16";
  req.k = 0;
  req.kind = Kind::classic;
  EXPECT_EQ(make_plan(req, &plan), Errc::invalid) << "the classic kind has one layout";
  req.kind = Kind::blocked;
  req.layout = static_cast<Layout>(4);
  EXPECT_EQ(make_plan(req, &plan), Errc::invalid);
  req.layout = static_cast<Layout>(0);
  EXPECT_EQ(make_plan(req, &plan), Errc::invalid);
  EXPECT_EQ(fpr_split(10, 0), 1.0);
  EXPECT_EQ(fpr_split(10, 17), 1.0);
}

}  // namespace
// The planner's search (an estimate, then a gallop and a bisection around it) finds exactly the
// block count that bisecting the whole range finds (how plans were made before, and what every
// file written so far records), over kinds, layouts, shard counts, explicit k and a spread of
// capacities and targets.
TEST(Sizing, SearchFindsWhatFullBisectionFinds) {
  const auto reference = [](const SizingRequest& req, uint32_t shards) {
    const uint64_t max_blocks = kMaxBytes / 64 / shards;
    const auto meets = [&](uint64_t b) {
      const double c = static_cast<double>(b) * shards * 512 / static_cast<double>(req.capacity);
      const uint32_t k = req.k ? req.k : best_k(req.kind, req.layout, c);
      return fpr_model(req.kind, req.layout, c, k) <= req.fpr;
    };
    uint64_t lo = 0, hi = max_blocks;
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (meets(mid) ? hi : lo) = mid;
    }
    return hi;
  };
  uint64_t state = 0x5EEDull;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
  };
  for (int i = 0; i < 120; ++i) {
    SizingRequest req;
    req.kind = i % 5 == 4 ? Kind::classic : Kind::blocked;
    req.layout = req.kind == Kind::blocked && i % 2 ? Layout::split : Layout::distinct;
    req.capacity = 1 + next() % (uint64_t{1} << (4 + i % 33));                 // 1 .. 2^36
    req.fpr = std::pow(10.0, -0.3 - static_cast<double>(next() % 900) / 100);  // 0.5 .. 1e-9
    req.shards = uint32_t{1} << (i % 7);
    if (i % 6 == 5) req.k = 1 + static_cast<uint32_t>(next() % 12);
    // ::testing, GoogleTest's: inside namespace abloom a bare testing:: would find abloom::testing
    // (test_keys.hpp) where a unity batch has declared it before this file.
    SCOPED_TRACE(::testing::Message() << "request " << i << ": capacity " << req.capacity << " fpr "
                                      << req.fpr << " shards " << req.shards << " k " << req.k);
    Plan plan;
    ASSERT_EQ(make_plan(req, &plan), Errc::ok);
    EXPECT_EQ(plan.blocks_per_shard, reference(req, req.shards));
  }
}

// best_k from any start gives best_k's k (the walk is downhill on a unimodal function), except
// from a start on a plateau where the FPR rounds to 1 (k far too large for c), where no step
// goes down; the planner's walks start from the k of a nearby size, never there.
TEST(Sizing, BestKFromAnyStartIsBestK) {
  for (Layout layout : {Layout::distinct, Layout::split}) {
    for (double c = 1.0; c < 80; c *= 1.6) {
      const uint32_t want = best_k(Kind::blocked, layout, c);
      for (uint32_t start = 0; start <= max_k(Kind::blocked, layout) + 2; ++start) {
        const uint32_t from = std::clamp(start, 1u, max_k(Kind::blocked, layout));
        if (fpr_model(Kind::blocked, layout, c, from) >= 1) continue;
        EXPECT_EQ(best_k_from(Kind::blocked, layout, c, start), want) << c << " from " << start;
      }
    }
  }
}

// Each thread remembers its last plans: asking again, in any order and past the memo's size,
// and from several threads at once, always gives the plan computed afresh.
TEST(Sizing, RepeatedRequestsGiveTheSamePlans) {
  std::vector<SizingRequest> reqs;
  std::vector<Plan> want;
  for (int i = 0; i < 20; ++i) {
    SizingRequest req;
    req.layout = i % 2 ? Layout::split : Layout::distinct;
    req.capacity = 1000 + 7919 * static_cast<uint64_t>(i);
    req.fpr = i % 3 == 0 ? 0.01 : 0.001;
    Plan p;
    ASSERT_EQ(make_plan(req, &p), Errc::ok);
    reqs.push_back(req);
    want.push_back(p);
  }
  const auto check = [&](int rounds) {
    for (int r = 0; r < rounds; ++r) {
      for (size_t j = 0; j < reqs.size(); ++j) {
        const size_t i = (j * 7 + static_cast<size_t>(r)) % reqs.size();
        Plan p;
        if (make_plan(reqs[i], &p) != Errc::ok || p.blocks_per_shard != want[i].blocks_per_shard ||
            p.k != want[i].k || p.layout != want[i].layout || p.shard_bits != want[i].shard_bits ||
            p.expected_fpr != want[i].expected_fpr) {
          return false;
        }
      }
    }
    return true;
  };
  EXPECT_TRUE(check(3));
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) threads.emplace_back([&] { bad += check(2) ? 0 : 1; });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  // A request differing in one field only is not taken for a remembered one.
  SizingRequest req = reqs[0];
  Plan a, b;
  ASSERT_EQ(make_plan(req, &a), Errc::ok);
  req.fpr = std::nextafter(req.fpr, 0.0);
  ASSERT_EQ(make_plan(req, &b), Errc::ok);
  req.fpr = 0.0001;
  ASSERT_EQ(make_plan(req, &b), Errc::ok);
  EXPECT_GT(b.blocks_per_shard, a.blocks_per_shard);
}

}  // namespace abloom
