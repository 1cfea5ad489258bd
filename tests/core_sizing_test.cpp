// Sizing: the models agree with the reference oracle (shared/tools/fpr_model.py), plans are
// minimal, and every domain error is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sizing.hpp"

namespace abloom {
namespace {

// Reference values printed by `python3 fpr_model.py` (the oracle the project checks against):
// fpr_blocked(c, k, 512) and fpr_classic(c, k).
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

// Bits per key and k needed per target, from the oracle's bits_needed().
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

TEST(Sizing, PlanIsMinimal) {
  for (Kind kind : {Kind::blocked, Kind::classic}) {
    for (double p : {0.2, 0.05, 0.01, 0.003, 1e-4}) {
      SizingRequest req;
      req.kind = kind;
      req.capacity = 123'457;
      req.fpr = p;
      req.shards = 4;
      Plan plan;
      ASSERT_EQ(make_plan(req, &plan), Errc::ok);
      ASSERT_LE(plan.expected_fpr, p);
      // One block per shard fewer would miss the target with any k.
      const double c_less = static_cast<double>((plan.blocks_per_shard - 1) * 4 * 512) / 123'457;
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

// Values of the in-block study's exact model (bench/inblock_schemes, WindowModel), which matched
// the measured FPRs: the two independent implementations agree.
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
    SizingRequest req;
    req.layout = Layout::split;
    req.capacity = 123'457;
    req.fpr = p;
    req.shards = 4;
    Plan plan;
    ASSERT_EQ(make_plan(req, &plan), Errc::ok);
    ASSERT_LE(plan.expected_fpr, p);
    EXPECT_DOUBLE_EQ(plan.expected_fpr,
                     fpr_split(static_cast<double>(plan.bits()) / req.capacity, plan.k));
    const double c_less = static_cast<double>((plan.blocks_per_shard - 1) * 4 * 512) / 123'457;
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
  req.layout = static_cast<Layout>(3);
  EXPECT_EQ(make_plan(req, &plan), Errc::invalid);
  req.layout = static_cast<Layout>(0);
  EXPECT_EQ(make_plan(req, &plan), Errc::invalid);
  EXPECT_EQ(fpr_split(10, 0), 1.0);
  EXPECT_EQ(fpr_split(10, 17), 1.0);
}

}  // namespace
}  // namespace abloom
