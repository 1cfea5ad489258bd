// Behaviour of the abloom C API (capi/abloom.h): versions, defaults and sizing, membership over
// every input form, set operations, estimates, seeds and multi-threaded bulk calls.

#include <abloom.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "capi_test_support.hpp"

#if defined(ABLOOM_TEST_HAVE_XXHASH)
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

namespace {

using capi_test::Clone;
using capi_test::Filter;
using capi_test::FilterDeleter;
using capi_test::Serialize;

using capi_test::KindName;
using capi_test::Make;
using capi_test::Options;
using capi_test::PlanOf;

using capi_test::InfoOf;

double Count(const abloom_filter *f) {
  double d = -1;
  EXPECT_EQ(abloom_estimate_count(f, &d), ABLOOM_OK);
  return d;
}

double Fpr(const abloom_filter *f) {
  double d = -1;
  EXPECT_EQ(abloom_estimate_fpr(f, &d), ABLOOM_OK);
  return d;
}

double Model(uint32_t kind, double bpk, uint32_t k) {
  double d = -1;
  EXPECT_EQ(abloom_model_fpr(kind, bpk, k, &d), ABLOOM_OK) << "bpk " << bpk << " k " << k;
  return d;
}

// The model of a plan's layout (plans of the default options use split or distinct).
double Model(uint32_t kind, uint32_t layout, double bpk, uint32_t k) {
  double d = -1;
  EXPECT_EQ(abloom_layout_model_fpr(kind, layout, bpk, k, &d), ABLOOM_OK)
      << "layout " << layout << " bpk " << bpk << " k " << k;
  return d;
}

// The largest k of a layout.
uint32_t MaxK(uint32_t layout) {
  return layout == ABLOOM_LAYOUT_SPLIT ? ABLOOM_SPLIT_MAX_K : ABLOOM_MAX_K;
}

using capi_test::AddAll;
using capi_test::AddMany;
using capi_test::Batch;
using capi_test::CountOnes;
using capi_test::DistinctKeys;
using capi_test::Hashes;
using capi_test::KeysOfAllLengths;
using capi_test::RandomBytes;
using capi_test::TestMany;

using KindShards = std::tuple<uint32_t, uint32_t>;

std::string KindShardsName(const ::testing::TestParamInfo<KindShards> &info) {
  return std::string(KindName(std::get<0>(info.param))) + "_Shards" +
         std::to_string(std::get<1>(info.param));
}

}  // namespace

// ---- Version and defaults --------------------------------------------------------------------

TEST(CapiVersion, MacrosAgreeWithRuntime) {
  EXPECT_EQ(abloom_version_number(), static_cast<unsigned>(ABLOOM_VERSION_NUMBER));
  EXPECT_EQ(ABLOOM_VERSION_NUMBER,
            ABLOOM_VERSION_MAJOR * 10000 + ABLOOM_VERSION_MINOR * 100 + ABLOOM_VERSION_PATCH);
  ASSERT_NE(abloom_version_string(), nullptr);
  EXPECT_STREQ(abloom_version_string(), ABLOOM_VERSION_STRING);
  std::string expect = std::to_string(ABLOOM_VERSION_MAJOR) + "." +
                       std::to_string(ABLOOM_VERSION_MINOR) + "." +
                       std::to_string(ABLOOM_VERSION_PATCH);
  EXPECT_EQ(std::string(ABLOOM_VERSION_STRING), expect);
}

TEST(CapiOptions, InitSetsDefaults) {
  abloom_options o;
  std::memset(&o, 0xC3, sizeof o);
  ASSERT_EQ(abloom_options_init(&o), ABLOOM_OK);
  EXPECT_EQ(o.struct_size, sizeof(abloom_options));
  EXPECT_EQ(o.capacity, 0u);
  EXPECT_EQ(o.fpr, 0.01);
  EXPECT_EQ(o.kind, static_cast<uint32_t>(ABLOOM_KIND_BLOCKED));
  EXPECT_EQ(o.shards, 0u);
  EXPECT_EQ(o.seed, 0u);
  EXPECT_EQ(o.bits, 0u);
  EXPECT_EQ(o.k, 0u);
  EXPECT_LE(o.threads, 1u);
}

TEST(CapiOptions, NewIsCreateWithDefaults) {
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_new(5000, 0.001, &raw), ABLOOM_OK);
  Filter a(raw);
  Filter b = Make(Options(5000, 0.001));
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 1);
  abloom_info ia = InfoOf(a.get()), ib = InfoOf(b.get());
  EXPECT_EQ(ia.kind, static_cast<uint32_t>(ABLOOM_KIND_BLOCKED));
  EXPECT_EQ(ia.capacity, 5000u);
  EXPECT_EQ(ia.target_fpr, 0.001);
  EXPECT_EQ(ia.seed, 0u);
  EXPECT_EQ(ia.bits, ib.bits);
  EXPECT_EQ(ia.k, ib.k);
}

// ---- Sizing ----------------------------------------------------------------------------------

TEST(CapiModel, ClassicIsTheTextbookFormula) {
  for (double c : {1.0, 4.5, 10.0, 20.0}) {
    for (uint32_t k : {1u, 3u, 7u, 14u, 64u}) {
      double expect = std::pow(1.0 - std::exp(-static_cast<double>(k) / c), k);
      double got = Model(ABLOOM_KIND_CLASSIC, c, k);
      EXPECT_NEAR(got, expect, expect * 1e-9 + 1e-300) << "c " << c << " k " << k;
    }
  }
}

TEST(CapiModel, BlockedIsThePoissonMixture) {
  // Putze, Sanders, Singler: keys per block ~ Poisson(512/c); a block with i keys has FPR
  // (1 - (1 - 1/512)^(ik))^k. Compared loosely: variants of the inner term differ by < 1%.
  for (double c : {4.0, 8.0, 10.0, 16.0}) {
    for (uint32_t k : {2u, 5u, 7u, 11u}) {
      double lambda = 512.0 / c, expect = 0.0, log_p = -lambda;  // log Poisson(0)
      for (int i = 0; i < 2000; ++i) {
        if (i > 0) log_p += std::log(lambda) - std::log(static_cast<double>(i));
        expect += std::exp(log_p) * std::pow(1.0 - std::pow(1.0 - 1.0 / 512, i * k), k);
      }
      double got = Model(ABLOOM_KIND_BLOCKED, c, k);
      EXPECT_NEAR(got, expect, expect * 0.03) << "c " << c << " k " << k;
      // Blocking costs accuracy compared with the classic filter at sensible k (far above the
      // optimum the convexity of the mixture can flip this).
      if (k <= c * std::log(2.0) + 1) {
        EXPECT_GT(got, Model(ABLOOM_KIND_CLASSIC, c, k)) << "c " << c << " k " << k;
      }
    }
  }
}

TEST(CapiModel, DecreasesWithMoreBits) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    double prev = 1.0;
    for (double c = 2.0; c <= 30.0; c += 2.0) {
      double f = Model(kind, c, 6);
      EXPECT_GT(f, 0.0);
      EXPECT_LT(f, prev) << KindName(kind) << " c " << c;
      prev = f;
    }
  }
}

struct SizingCase {
  uint64_t capacity;
  double fpr;
};

class CapiPlan : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t, SizingCase>> {};

// Default sizing: plan == what create builds; the fewest whole blocks per shard meeting the
// target, with the FPR-minimising k.
TEST_P(CapiPlan, MatchesCreateAndIsMinimal) {
  const auto [kind, shards, sc] = GetParam();
  abloom_options o = Options(sc.capacity, sc.fpr, kind, shards, 1234);
  abloom_plan p = PlanOf(o);

  // The default layout: split wherever its k suffices (the distinct plan's k is no higher).
  abloom_options distinct = o;
  distinct.layout = ABLOOM_LAYOUT_DISTINCT;
  const bool split_suffices =
      kind == ABLOOM_KIND_BLOCKED && PlanOf(distinct).k <= uint32_t{ABLOOM_SPLIT_MAX_K};
  EXPECT_EQ(p.layout, split_suffices ? ABLOOM_LAYOUT_SPLIT : ABLOOM_LAYOUT_DISTINCT);
  EXPECT_EQ(p.struct_size, sizeof(abloom_plan));
  EXPECT_EQ(p.kind, kind);
  EXPECT_GE(p.k, 1u);
  EXPECT_LE(p.k, uint32_t{ABLOOM_MAX_K});
  if (shards != 0) {
    EXPECT_EQ(p.shards, shards);
  }
  EXPECT_EQ(p.shards & (p.shards - 1), 0u);
  EXPECT_GE(p.blocks_per_shard, 1u);
  EXPECT_EQ(p.bits, uint64_t{p.shards} * p.blocks_per_shard * 512);
  EXPECT_EQ(p.bytes, p.bits / 8);
  EXPECT_DOUBLE_EQ(p.bits_per_key, static_cast<double>(p.bits) / sc.capacity);
  EXPECT_LE(p.expected_fpr, sc.fpr);
  EXPECT_GT(p.expected_fpr, 0.0);
  EXPECT_NEAR(p.expected_fpr, Model(kind, p.layout, p.bits_per_key, p.k), p.expected_fpr * 1e-6);
  for (uint32_t k = 1; k <= MaxK(p.layout); ++k)
    EXPECT_GE(Model(kind, p.layout, p.bits_per_key, k), p.expected_fpr * (1 - 1e-9))
        << "k " << k << " beats " << p.k;
  if (shards != 0 && p.blocks_per_shard > 1) {
    double smaller =
        static_cast<double>(uint64_t{p.shards} * (p.blocks_per_shard - 1) * 512) / sc.capacity;
    double best = 1.0;
    for (uint32_t k = 1; k <= MaxK(p.layout); ++k)
      best = std::min(best, Model(kind, p.layout, smaller, k));
    EXPECT_GT(best, sc.fpr) << "one block fewer per shard would do";
  }

  Filter f = Make(o);
  abloom_info i = InfoOf(f.get());
  EXPECT_EQ(i.struct_size, sizeof(abloom_info));
  EXPECT_EQ(i.kind, p.kind);
  EXPECT_EQ(i.layout, p.layout);
  EXPECT_EQ(i.k, p.k);
  EXPECT_EQ(i.shards, p.shards);
  EXPECT_EQ(i.blocks_per_shard, p.blocks_per_shard);
  EXPECT_EQ(i.bits, p.bits);
  EXPECT_EQ(i.bytes, p.bytes);
  EXPECT_EQ(i.capacity, sc.capacity);
  EXPECT_EQ(i.seed, 1234u);
  EXPECT_EQ(i.target_fpr, sc.fpr);
  EXPECT_EQ(i.expected_fpr, p.expected_fpr);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, CapiPlan,
    ::testing::Combine(
        ::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED}, uint32_t{ABLOOM_KIND_CLASSIC}),
        ::testing::Values(0u, 1u, 2u, 8u, 64u),
        ::testing::Values(SizingCase{1000, 0.01}, SizingCase{100000, 0.001},
                          SizingCase{12345, 0.05}, SizingCase{777, 1e-6}, SizingCase{5000, 1e-9})),
    [](const auto &info) {
      const SizingCase sc = std::get<2>(info.param);
      return std::string(KindName(std::get<0>(info.param))) + "_Shards" +
             std::to_string(std::get<1>(info.param)) + "_Cap" + std::to_string(sc.capacity);
    });

TEST(CapiPlanRules, FixedKGetsTheFewestBitsForThatK) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    for (uint32_t k : {1u, 3u, 12u}) {
      SCOPED_TRACE(std::string(KindName(kind)) + " k " + std::to_string(k));
      abloom_options o = Options(20000, 0.01, kind, 1);
      o.k = k;
      abloom_plan p = PlanOf(o);
      EXPECT_EQ(p.k, k);
      EXPECT_LE(p.expected_fpr, 0.01);
      EXPECT_NEAR(p.expected_fpr, Model(kind, p.layout, p.bits_per_key, k), p.expected_fpr * 1e-6);
      ASSERT_GT(p.blocks_per_shard, 1u);
      EXPECT_GT(Model(kind, p.layout, (p.bits - 512.0) / 20000, k), 0.01);
      Filter f = Make(o);
      EXPECT_EQ(InfoOf(f.get()).k, k);
      EXPECT_EQ(InfoOf(f.get()).bits, p.bits);
    }
  }
}

TEST(CapiPlanRules, ExplicitBitsRoundUpToWholeBlocksPerShard) {
  struct Case {
    uint64_t bits;
    uint32_t shards;
    uint64_t want_bits;
    uint64_t want_blocks_per_shard;
  };
  const Case cases[] = {
      {1, 1, 512, 1},
      {511, 1, 512, 1},
      {512, 1, 512, 1},
      {513, 1, 1024, 2},
      {1, 8, 4096, 1},
      {4096, 8, 4096, 1},
      {4097, 8, 8192, 2},
      {20480, 4, 20480, 10},
      {20481, 4, 22528, 11},
      {1000000, 2, 1000448, 977},
      {1 << 20, 64, 1 << 20, 32},
  };
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    for (const Case &c : cases) {
      SCOPED_TRACE(std::string(KindName(kind)) + " bits " + std::to_string(c.bits) + " shards " +
                   std::to_string(c.shards));
      abloom_options o = Options(1000, 0.01, kind, c.shards);
      o.bits = c.bits;
      abloom_plan p = PlanOf(o);
      EXPECT_EQ(p.bits, c.want_bits);
      EXPECT_EQ(p.blocks_per_shard, c.want_blocks_per_shard);
      EXPECT_EQ(p.shards, c.shards);
      // k == 0: the k minimising the model FPR for this layout at `capacity`.
      for (uint32_t k = 1; k <= MaxK(p.layout); ++k)
        EXPECT_GE(Model(kind, p.layout, p.bits_per_key, k), p.expected_fpr * (1 - 1e-9));
      Filter f = Make(o);
      abloom_info i = InfoOf(f.get());
      EXPECT_EQ(i.bits, c.want_bits);
      EXPECT_EQ(i.k, p.k);
      EXPECT_EQ(i.target_fpr, 0.0) << "explicit layout reports target_fpr 0";
    }
  }
}

TEST(CapiPlanRules, ExplicitBitsAndKAreExactAndIgnoreFpr) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    abloom_options o = Options(5000, 0.3, kind, 2);
    o.bits = 2 * 512 * 40;
    o.k = 5;
    abloom_plan p = PlanOf(o);
    EXPECT_EQ(p.k, 5u);
    EXPECT_EQ(p.bits, o.bits);
    EXPECT_EQ(p.blocks_per_shard, 40u);
    EXPECT_NEAR(p.expected_fpr, Model(kind, p.layout, static_cast<double>(o.bits) / 5000, 5),
                p.expected_fpr * 1e-6);
    abloom_options o2 = o;
    o2.fpr = 1e-9;  // not used with an explicit layout
    abloom_plan p2 = PlanOf(o2);
    EXPECT_EQ(p2.bits, p.bits);
    EXPECT_EQ(p2.k, p.k);
    Filter f = Make(o);
    abloom_info i = InfoOf(f.get());
    EXPECT_EQ(i.k, 5u);
    EXPECT_EQ(i.bits, o.bits);
    EXPECT_EQ(i.target_fpr, 0.0);
  }
}

TEST(CapiPlanRules, DefaultShardCount) {
  // Small filters get one shard; huge ones the default maximum of 64 (plan only).
  EXPECT_EQ(PlanOf(Options(1000)).shards, 1u);
  EXPECT_EQ(PlanOf(Options(1000, 0.01, ABLOOM_KIND_CLASSIC)).shards, 1u);
  abloom_plan big = PlanOf(Options(uint64_t{10} << 30, 0.01));
  EXPECT_EQ(big.shards, 64u);
  for (uint64_t cap : {uint64_t{1} << 24, uint64_t{1} << 26, uint64_t{1} << 28}) {
    abloom_plan p = PlanOf(Options(cap, 0.01));
    EXPECT_EQ(p.shards & (p.shards - 1), 0u) << cap;
    EXPECT_LE(p.shards, 64u);
    EXPECT_GE(p.shards, 1u);
  }
  // One shard per 16 MiB: roughly 128 MiB of filter has several.
  EXPECT_GT(PlanOf(Options(uint64_t{1} << 27, 0.01)).shards, 1u);
}

// ---- Membership over every input form --------------------------------------------------------

class CapiMembership : public ::testing::TestWithParam<KindShards> {
 protected:
  abloom_options Opts(uint64_t capacity, double fpr = 0.01) const {
    return Options(capacity, fpr, std::get<0>(GetParam()), std::get<1>(GetParam()), 99);
  }
};

TEST_P(CapiMembership, NoFalseNegativesForAnyKeyLengthOrForm) {
  const std::vector<std::string> keys = KeysOfAllLengths(300, 6, 0xFEED);
  const abloom_options o = Opts(keys.size());

  // Single keys.
  Filter single = Make(o);
  AddAll(single.get(), keys);
  for (size_t i = 0; i < keys.size(); ++i)
    ASSERT_EQ(abloom_test(single.get(), keys[i].data(), keys[i].size()), 1)
        << "key " << i << " len " << keys[i].size();

  // Arrays.
  Filter many = Make(o);
  Batch b(keys);
  ASSERT_EQ(abloom_add_many(many.get(), b.ptrs.data(), b.lens.data(), b.size(), nullptr),
            ABLOOM_OK);
  uint64_t found = 0;
  std::vector<uint8_t> r = TestMany(many.get(), keys, &found);
  EXPECT_EQ(CountOnes(r), keys.size());
  EXPECT_EQ(found, keys.size());

  // Packed.
  Filter packed = Make(o);
  ASSERT_EQ(abloom_add_packed(packed.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                              b.size(), nullptr),
            ABLOOM_OK);
  std::fill(r.begin(), r.end(), 0xEE);
  found = 0;
  ASSERT_EQ(abloom_test_packed(packed.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                               b.size(), r.data(), &found),
            ABLOOM_OK);
  EXPECT_EQ(CountOnes(r), keys.size());
  EXPECT_EQ(found, keys.size());

  // Hashes.
  Filter hashed = Make(o);
  std::vector<uint64_t> h = Hashes(hashed.get(), keys);
  ASSERT_EQ(abloom_add_hashes(hashed.get(), h.data(), h.size(), nullptr), ABLOOM_OK);
  std::fill(r.begin(), r.end(), 0xEE);
  found = 0;
  ASSERT_EQ(abloom_test_hashes(hashed.get(), h.data(), h.size(), r.data(), &found), ABLOOM_OK);
  EXPECT_EQ(CountOnes(r), keys.size());
  EXPECT_EQ(found, keys.size());
  for (uint64_t x : h) ASSERT_EQ(abloom_test_hash(hashed.get(), x), 1);
}

TEST_P(CapiMembership, AllFormsSetTheSameBits) {
  std::vector<std::string> keys = KeysOfAllLengths(300, 2, 0xC0FFEE);
  std::vector<std::string> more = DistinctKeys(3000, 1);
  keys.insert(keys.end(), more.begin(), more.end());
  const abloom_options o = Opts(keys.size());

  Filter single = Make(o);
  AddAll(single.get(), keys);

  Filter many = Make(o);
  Batch b(keys, /*null_for_empty=*/true);
  ASSERT_EQ(abloom_add_many(many.get(), b.ptrs.data(), b.lens.data(), b.size(), nullptr),
            ABLOOM_OK);

  Filter packed = Make(o);
  ASSERT_EQ(abloom_add_packed(packed.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                              b.size(), nullptr),
            ABLOOM_OK);

  Filter hashes = Make(o);
  std::vector<uint64_t> h = Hashes(hashes.get(), keys);
  ASSERT_EQ(abloom_add_hashes(hashes.get(), h.data(), h.size(), nullptr), ABLOOM_OK);

  Filter one_hash = Make(o);
  for (uint64_t x : h) ASSERT_EQ(abloom_add_hash(one_hash.get(), x), ABLOOM_OK);

  Filter tadd = Make(o);
  for (const auto &k : keys) ASSERT_GE(abloom_test_and_add(tadd.get(), k.data(), k.size()), 0);

  Filter tadd_hash = Make(o);
  for (uint64_t x : h) ASSERT_GE(abloom_test_and_add_hash(tadd_hash.get(), x), 0);

  EXPECT_EQ(abloom_equal(single.get(), many.get()), 1) << "add_many";
  EXPECT_EQ(abloom_equal(single.get(), packed.get()), 1) << "add_packed";
  EXPECT_EQ(abloom_equal(single.get(), hashes.get()), 1) << "add_hashes";
  EXPECT_EQ(abloom_equal(single.get(), one_hash.get()), 1) << "add_hash";
  EXPECT_EQ(abloom_equal(single.get(), tadd.get()), 1) << "test_and_add";
  EXPECT_EQ(abloom_equal(single.get(), tadd_hash.get()), 1) << "test_and_add_hash";

  // Queries over members and non-members agree across forms.
  std::vector<std::string> queries = DistinctKeys(5000, 2);
  queries.insert(queries.end(), keys.begin(), keys.begin() + 500);
  Batch q(queries);
  std::vector<uint8_t> r_single(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) {
    int t = abloom_test(single.get(), queries[i].data(), queries[i].size());
    ASSERT_GE(t, 0);
    r_single[i] = static_cast<uint8_t>(t);
  }
  uint64_t found_many = 0, found_packed = 0, found_hashes = 0;
  std::vector<uint8_t> r_many = TestMany(single.get(), queries, &found_many);
  std::vector<uint8_t> r_packed(queries.size(), 0xEE), r_hashes(queries.size(), 0xEE);
  ASSERT_EQ(abloom_test_packed(single.get(), q.packed.data(), q.packed.size(), q.offsets.data(),
                               q.size(), r_packed.data(), &found_packed),
            ABLOOM_OK);
  std::vector<uint64_t> qh = Hashes(single.get(), queries);
  ASSERT_EQ(abloom_test_hashes(single.get(), qh.data(), qh.size(), r_hashes.data(), &found_hashes),
            ABLOOM_OK);
  EXPECT_EQ(r_many, r_single);
  EXPECT_EQ(r_packed, r_single);
  EXPECT_EQ(r_hashes, r_single);
  for (size_t i = 0; i < qh.size(); ++i)
    ASSERT_EQ(abloom_test_hash(single.get(), qh[i]), r_single[i]);
  const uint64_t ones = CountOnes(r_single);
  EXPECT_EQ(found_many, ones);
  EXPECT_EQ(found_packed, ones);
  EXPECT_EQ(found_hashes, ones);
  EXPECT_GE(ones, 500u);         // the members
  EXPECT_LT(ones, 500u + 250u);  // 5000 non-members at ~1% FPR
}

// A packed batch whose keys all have one length is read as key i at offsets[0] + i * length
// (capi check_packed, core KeySource::of_fixed). It must set and answer exactly as single calls
// do, for lengths on both sides of the inline hash's 16 bytes, batches around the 16-key check
// round and the 32-key prefetch window, one that differs only in its last key, ones whose one
// moved offset makes two keys of other lengths, and a batch large enough to be split across
// threads.
TEST_P(CapiMembership, PackedKeysOfOneLengthMatchSingleCalls) {
  std::mt19937_64 rng(0x5EED5);
  for (size_t len : {size_t{0}, size_t{1}, size_t{8}, size_t{16}, size_t{17}, size_t{64}}) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{15}, size_t{16}, size_t{33},
                     size_t{1000}}) {
      SCOPED_TRACE("length " + std::to_string(len) + ", " + std::to_string(n) + " keys");
      const abloom_options o = Opts(2 * n + 10, 1e-3);
      std::string buf = "###";  // offsets start at 3
      std::vector<uint64_t> offsets{3};
      for (size_t i = 0; i < 2 * n; ++i) {
        buf += RandomBytes(rng, len);
        offsets.push_back(buf.size());
      }
      // Keys 0 .. n-1 are added; queries are keys n/2 .. n/2+n-1 (half present, half not).
      Filter single = Make(o), packed = Make(o);
      uint64_t want_added = 0;
      for (size_t i = 0; i < n; ++i) {
        const int rc = abloom_test_and_add(single.get(), buf.data() + offsets[i], len);
        ASSERT_GE(rc, 0);
        want_added += rc == 0 ? 1 : 0;
      }
      uint64_t added = 0;
      ASSERT_EQ(abloom_add_packed(packed.get(), buf.data(), buf.size(), offsets.data(), n, &added),
                ABLOOM_OK);
      EXPECT_EQ(abloom_equal(single.get(), packed.get()), 1);
      EXPECT_EQ(added, want_added);
      std::vector<uint8_t> want(n), have(n, 0xEE);
      for (size_t i = 0; i < n; ++i) {
        const int rc = abloom_test(single.get(), buf.data() + offsets[n / 2 + i], len);
        ASSERT_GE(rc, 0);
        want[i] = static_cast<uint8_t>(rc);
      }
      uint64_t found = 0;
      ASSERT_EQ(abloom_test_packed(packed.get(), buf.data(), buf.size(), offsets.data() + n / 2, n,
                                   have.data(), &found),
                ABLOOM_OK);
      EXPECT_EQ(have, want);
      EXPECT_EQ(found, CountOnes(want));
      EXPECT_GE(found, n - n / 2);  // the added half

      // The same keys with the last one a byte shorter: the general check, same answers for
      // the keys before it.
      if (len == 0) continue;
      std::vector<uint64_t> uneven(offsets.begin(), offsets.begin() + n + 1);
      uneven[n] -= 1;
      std::vector<uint8_t> have_uneven(n, 0xEE);
      ASSERT_EQ(abloom_test_packed(packed.get(), buf.data(), buf.size(), uneven.data(), n,
                                   have_uneven.data(), nullptr),
                ABLOOM_OK);
      for (size_t i = 0; i + 1 < n; ++i) ASSERT_EQ(have_uneven[i], 1) << "key " << i;
      EXPECT_EQ(have_uneven[n - 1],
                abloom_test(single.get(), buf.data() + offsets[n - 1], len - 1));
      // One key a byte shorter and the next a byte longer, at each place in a batch of 33:
      // every offset but one still follows the progression, and that one must be seen.
      if (n != 33) continue;
      for (size_t at = 1; at < n; ++at) {
        std::vector<uint64_t> moved(offsets.begin(), offsets.begin() + n + 1);
        moved[at] -= 1;
        std::vector<uint8_t> have_moved(n, 0xEE);
        ASSERT_EQ(abloom_test_packed(packed.get(), buf.data(), buf.size(), moved.data(), n,
                                     have_moved.data(), nullptr),
                  ABLOOM_OK);
        for (size_t i : {at - 1, at}) {
          EXPECT_EQ(have_moved[i],
                    abloom_test(single.get(), buf.data() + moved[i], moved[i + 1] - moved[i]))
              << "offset " << at << " moved, key " << i;
        }
      }
    }
  }

  // Threads: a batch over the parallel threshold (64Ki keys) of 16-byte keys.
  constexpr size_t kKeys = 70000;
  std::string buf;
  std::vector<uint64_t> offsets{0};
  for (size_t i = 0; i < kKeys; ++i) {
    buf += RandomBytes(rng, 16);
    offsets.push_back(buf.size());
  }
  abloom_options o1 = Opts(kKeys);
  o1.threads = 1;
  abloom_options o3 = o1;
  o3.threads = 3;
  Filter seq = Make(o1), par = Make(o3);
  uint64_t added_seq = 0, added_par = 0;
  ASSERT_EQ(abloom_add_packed(seq.get(), buf.data(), buf.size(), offsets.data(), kKeys, &added_seq),
            ABLOOM_OK);
  ASSERT_EQ(abloom_add_packed(par.get(), buf.data(), buf.size(), offsets.data(), kKeys, &added_par),
            ABLOOM_OK);
  EXPECT_EQ(abloom_equal(seq.get(), par.get()), 1);
  EXPECT_EQ(added_par, added_seq);
  std::vector<uint8_t> r(kKeys, 0xEE);
  uint64_t found = 0;
  ASSERT_EQ(abloom_test_packed(par.get(), buf.data(), buf.size(), offsets.data(), kKeys, r.data(),
                               &found),
            ABLOOM_OK);
  EXPECT_EQ(found, kKeys);
  EXPECT_EQ(CountOnes(r), kKeys);
  for (size_t i = 0; i < kKeys; i += 997)
    ASSERT_EQ(abloom_test(seq.get(), buf.data() + 16 * i, 16), 1);
}

TEST_P(CapiMembership, PackedOffsetsNeedNotStartAtZero) {
  const abloom_options o = Opts(100, 1e-4);
  Filter f = Make(o);
  const std::string buf = "#####applepearfig";
  const uint64_t offsets[] = {5, 10, 10, 14, 17};  // "apple", "", "pear", "fig"
  uint64_t added = 0;
  ASSERT_EQ(abloom_add_packed(f.get(), buf.data(), buf.size(), offsets, 4, &added), ABLOOM_OK);
  EXPECT_EQ(added, 4u);
  Filter g = Make(o);
  for (const char *k : {"apple", "", "pear", "fig"})
    ASSERT_EQ(abloom_add(g.get(), k, std::strlen(k)), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(f.get(), g.get()), 1);
  EXPECT_EQ(abloom_test(f.get(), "#####", 5), 0);
}

TEST_P(CapiMembership, HashThenAddHashEqualsAdd) {
  const abloom_options o = Opts(1000);
  Filter a = Make(o), b = Make(o);
  for (const auto &k : DistinctKeys(200, 3)) {
    uint64_t h = 0;
    ASSERT_EQ(abloom_hash(b.get(), k.data(), k.size(), &h), ABLOOM_OK);
    ASSERT_EQ(abloom_add_hash(b.get(), h), ABLOOM_OK);
    ASSERT_EQ(abloom_add(a.get(), k.data(), k.size()), ABLOOM_OK);
    ASSERT_EQ(abloom_test_hash(a.get(), h), 1);
    ASSERT_EQ(abloom_test(b.get(), k.data(), k.size()), 1);
  }
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 1);
}

INSTANTIATE_TEST_SUITE_P(KindsAndShards, CapiMembership,
                         ::testing::Combine(::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED},
                                                              uint32_t{ABLOOM_KIND_CLASSIC}),
                                            ::testing::Values(1u, 2u, 8u, 64u)),
                         KindShardsName);

// ---- Hashes and seeds ------------------------------------------------------------------------

TEST(CapiHash, DependsOnlyOnTheSeed) {
  Filter a = Make(Options(1000, 0.01, ABLOOM_KIND_BLOCKED, 1, 5));
  Filter b = Make(Options(99999, 0.0001, ABLOOM_KIND_CLASSIC, 8, 5));
  for (const auto &k : KeysOfAllLengths(70, 1, 17)) {
    uint64_t ha = 1, hb = 2;
    ASSERT_EQ(abloom_hash(a.get(), k.data(), k.size(), &ha), ABLOOM_OK);
    ASSERT_EQ(abloom_hash(b.get(), k.data(), k.size(), &hb), ABLOOM_OK);
    EXPECT_EQ(ha, hb) << "len " << k.size();
  }
}

#if defined(ABLOOM_TEST_HAVE_XXHASH)
TEST(CapiHash, IsXxh3WithTheFilterSeed) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0xDEADBEEFCAFEF00Dull}}) {
    Filter f = Make(Options(1000, 0.01, ABLOOM_KIND_BLOCKED, 0, seed));
    for (const auto &k : KeysOfAllLengths(260, 1, 23)) {
      uint64_t h = 0;
      ASSERT_EQ(abloom_hash(f.get(), k.data(), k.size(), &h), ABLOOM_OK);
      EXPECT_EQ(h, XXH3_64bits_withSeed(k.data(), k.size(), seed))
          << "seed " << seed << " len " << k.size();
    }
  }
}
#endif

TEST(CapiSeed, DifferentSeedsGiveDifferentHashesAndBits) {
  const std::vector<std::string> keys = DistinctKeys(2000, 4);
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    SCOPED_TRACE(KindName(kind));
    Filter s1 = Make(Options(2000, 0.01, kind, 1, 1));
    Filter s2 = Make(Options(2000, 0.01, kind, 1, 2));
    Filter s1b = Make(Options(2000, 0.01, kind, 1, 1));
    AddAll(s1.get(), keys);
    AddAll(s2.get(), keys);
    AddAll(s1b.get(), keys);
    EXPECT_EQ(InfoOf(s1.get()).seed, 1u);
    EXPECT_EQ(InfoOf(s2.get()).seed, 2u);
    EXPECT_EQ(abloom_equal(s1.get(), s1b.get()), 1) << "same seed, same keys: deterministic";
    EXPECT_EQ(abloom_equal(s1.get(), s2.get()), 0);

    std::vector<uint64_t> h1 = Hashes(s1.get(), keys), h2 = Hashes(s2.get(), keys);
    size_t same = 0;
    for (size_t i = 0; i < keys.size(); ++i) same += h1[i] == h2[i];
    EXPECT_EQ(same, 0u);

    // Seed-2 hashes placed in a seed-1 filter set different bits than the seed-1 hashes.
    Filter mixed = Make(Options(2000, 0.01, kind, 1, 1));
    ASSERT_EQ(abloom_add_hashes(mixed.get(), h2.data(), h2.size(), nullptr), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(mixed.get(), s1.get()), 0);
  }
}

// ---- test_and_add and counts -----------------------------------------------------------------

TEST(CapiCounts, TestAndAddReportsNewThenPresent) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    Filter f = Make(Options(100000, 1e-7, kind));
    for (const auto &k : DistinctKeys(300, 5)) {
      ASSERT_EQ(abloom_test(f.get(), k.data(), k.size()), 0);
      ASSERT_EQ(abloom_test_and_add(f.get(), k.data(), k.size()), 0);
      ASSERT_EQ(abloom_test(f.get(), k.data(), k.size()), 1);
      ASSERT_EQ(abloom_test_and_add(f.get(), k.data(), k.size()), 1);
    }
    std::vector<uint64_t> h = Hashes(f.get(), DistinctKeys(300, 6));
    for (uint64_t x : h) {
      ASSERT_EQ(abloom_test_hash(f.get(), x), 0);
      ASSERT_EQ(abloom_test_and_add_hash(f.get(), x), 0);
      ASSERT_EQ(abloom_test_and_add_hash(f.get(), x), 1);
    }
  }
}

TEST(CapiCounts, AddedCountsNewKeysOnceAcrossAllForms) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    SCOPED_TRACE(KindName(kind));
    const abloom_options o = Options(200000, 1e-7, kind, 2);
    std::vector<std::string> distinct = DistinctKeys(1000, 7);
    // Each key three times, the copies spread over the batch; plus the empty key twice.
    std::vector<std::string> batch;
    for (int rep = 0; rep < 3; ++rep) batch.insert(batch.end(), distinct.begin(), distinct.end());
    batch.push_back("");
    batch.push_back("");
    std::swap(batch[1], batch[1500]);  // a duplicate right next to its original
    const uint64_t want = distinct.size() + 1;

    Filter a = Make(o);
    EXPECT_EQ(AddMany(a.get(), batch), want);
    EXPECT_EQ(AddMany(a.get(), batch), 0u) << "everything is present now";
    EXPECT_EQ(AddMany(a.get(), {distinct[3], "brand new"}), 1u);

    Filter p = Make(o);
    Batch b(batch);
    uint64_t added = UINT64_MAX;
    ASSERT_EQ(abloom_add_packed(p.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                b.size(), &added),
              ABLOOM_OK);
    EXPECT_EQ(added, want);
    ASSERT_EQ(abloom_add_packed(p.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                b.size(), &added),
              ABLOOM_OK);
    EXPECT_EQ(added, 0u);

    Filter h = Make(o);
    std::vector<uint64_t> hs = Hashes(h.get(), batch);
    ASSERT_EQ(abloom_add_hashes(h.get(), hs.data(), hs.size(), &added), ABLOOM_OK);
    EXPECT_EQ(added, want);
    ASSERT_EQ(abloom_add_hashes(h.get(), hs.data(), hs.size(), &added), ABLOOM_OK);
    EXPECT_EQ(added, 0u);
  }
}

TEST(CapiCounts, FoundIsTheNumberOfOnes) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    SCOPED_TRACE(KindName(kind));
    // A small, overfull filter so that there are false positives too.
    Filter f = Make(Options(1000, 0.05, kind));
    std::vector<std::string> members = DistinctKeys(3000, 8);
    AddAll(f.get(), members);
    std::vector<std::string> queries = DistinctKeys(4000, 9);
    queries.insert(queries.end(), members.begin(), members.begin() + 1000);
    uint64_t found = 0;
    std::vector<uint8_t> r = TestMany(f.get(), queries, &found);
    for (uint8_t x : r) ASSERT_TRUE(x == 0 || x == 1) << int{x};
    EXPECT_EQ(found, CountOnes(r));
    EXPECT_GT(found, 1000u) << "expected false positives in an overfull filter";
    EXPECT_LT(found, 5000u);
    for (size_t i = 4000; i < r.size(); ++i) ASSERT_EQ(r[i], 1);
  }
}

// ---- Set operations --------------------------------------------------------------------------

class CapiSetOps : public ::testing::TestWithParam<KindShards> {
 protected:
  abloom_options Opts() const {
    return Options(20000, 0.01, std::get<0>(GetParam()), std::get<1>(GetParam()), 3);
  }
};

TEST_P(CapiSetOps, UnionHoldsBothSetsAndEqualsBuildingWithBoth) {
  const auto k1 = DistinctKeys(8000, 10), k2 = DistinctKeys(8000, 11);
  Filter a = Make(Opts()), b = Make(Opts()), both = Make(Opts());
  AddAll(a.get(), k1);
  AddAll(b.get(), k2);
  AddAll(both.get(), k2);
  AddAll(both.get(), k1);
  Filter b0 = Clone(b.get());
  ASSERT_EQ(abloom_union(a.get(), b.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), both.get()), 1);
  EXPECT_EQ(abloom_equal(b.get(), b0.get()), 1) << "src changed";
  EXPECT_EQ(CountOnes(TestMany(a.get(), k1)), k1.size());
  EXPECT_EQ(CountOnes(TestMany(a.get(), k2)), k2.size());

  // dst == src: no change.
  Filter before = Clone(a.get());
  ASSERT_EQ(abloom_union(a.get(), a.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), before.get()), 1);

  // Union with an empty filter: no change.
  Filter empty = Make(Opts());
  ASSERT_EQ(abloom_union(a.get(), empty.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), before.get()), 1);
}

TEST_P(CapiSetOps, IntersectWithItselfIsUnchanged) {
  Filter a = Make(Opts());
  AddAll(a.get(), DistinctKeys(15000, 12));
  Filter copy = Clone(a.get());
  ASSERT_EQ(abloom_intersect(a.get(), copy.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), copy.get()), 1);
}

TEST_P(CapiSetOps, IntersectOfDisjointSetsDropsBits) {
  const auto k1 = DistinctKeys(10000, 13), k2 = DistinctKeys(10000, 14),
             common = DistinctKeys(1000, 15);
  Filter a = Make(Opts()), b = Make(Opts());
  AddAll(a.get(), k1);
  AddAll(a.get(), common);
  AddAll(b.get(), k2);
  AddAll(b.get(), common);
  const double before = Count(a.get());
  EXPECT_NEAR(before, 11000, 11000 * 0.05);

  Filter b0 = Clone(b.get()), a0 = Clone(a.get());
  ASSERT_EQ(abloom_intersect(a.get(), b.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(b.get(), b0.get()), 1) << "src changed";
  const double after = Count(a.get());
  EXPECT_LT(after, before * 0.5) << "before " << before;
  EXPECT_GE(after, 1000 * 0.9);

  // Keys in both survive; the result is a subset of each side.
  EXPECT_EQ(CountOnes(TestMany(a.get(), common)), common.size());
  std::vector<std::string> probe = DistinctKeys(5000, 16);
  probe.insert(probe.end(), k1.begin(), k1.begin() + 2000);
  probe.insert(probe.end(), k2.begin(), k2.begin() + 2000);
  std::vector<uint8_t> ri = TestMany(a.get(), probe), ra = TestMany(a0.get(), probe),
                       rb = TestMany(b.get(), probe);
  for (size_t i = 0; i < probe.size(); ++i) ASSERT_LE(ri[i], std::min(ra[i], rb[i])) << i;
  EXPECT_LT(CountOnes(ri), CountOnes(ra) / 2);

  // Intersect with an empty filter empties it.
  Filter empty = Make(Opts());
  ASSERT_EQ(abloom_intersect(a.get(), empty.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), empty.get()), 1);
  EXPECT_EQ(Count(a.get()), 0.0);
}

TEST_P(CapiSetOps, ClearEmptiesAndKeepsTheShape) {
  Filter f = Make(Opts());
  const auto keys = DistinctKeys(20000, 17);
  AddAll(f.get(), keys);
  ASSERT_GT(Count(f.get()), 0.0);
  abloom_info before = InfoOf(f.get());
  ASSERT_EQ(abloom_clear(f.get()), ABLOOM_OK);
  abloom_info after = InfoOf(f.get());
  EXPECT_EQ(std::memcmp(&before, &after, sizeof before), 0);
  uint64_t found = 99;
  TestMany(f.get(), keys, &found);
  EXPECT_EQ(found, 0u);
  for (size_t i = 0; i < 100; ++i)
    ASSERT_EQ(abloom_test(f.get(), keys[i].data(), keys[i].size()), 0);
  EXPECT_EQ(Count(f.get()), 0.0);
  EXPECT_EQ(Fpr(f.get()), 0.0);
  Filter fresh = Make(Opts());
  EXPECT_EQ(abloom_equal(f.get(), fresh.get()), 1);
  // Usable again.
  AddAll(f.get(), {keys[0]});
  EXPECT_EQ(abloom_test(f.get(), keys[0].data(), keys[0].size()), 1);
}

TEST_P(CapiSetOps, CloneIsEqualAndIndependent) {
  Filter f = Make(Opts());
  AddAll(f.get(), DistinctKeys(5000, 18));
  Filter c = Clone(f.get());
  EXPECT_EQ(abloom_equal(f.get(), c.get()), 1);
  abloom_info fi = InfoOf(f.get()), ci = InfoOf(c.get());
  EXPECT_EQ(std::memcmp(&fi, &ci, sizeof fi), 0);
  Filter f0 = Clone(f.get());

  const auto extra = DistinctKeys(2000, 19);
  AddAll(c.get(), extra);
  EXPECT_EQ(abloom_equal(f.get(), c.get()), 0);
  EXPECT_EQ(abloom_equal(f.get(), f0.get()), 1) << "adding to the clone changed the original";
  EXPECT_LT(CountOnes(TestMany(f.get(), extra)), extra.size() / 10);

  ASSERT_EQ(abloom_clear(f.get()), ABLOOM_OK);
  EXPECT_EQ(CountOnes(TestMany(c.get(), extra)), extra.size()) << "clearing the original";

  // A clone of an empty filter is empty.
  Filter e = Make(Opts());
  Filter ec = Clone(e.get());
  EXPECT_EQ(abloom_equal(e.get(), ec.get()), 1);
  EXPECT_EQ(Count(ec.get()), 0.0);
}

TEST_P(CapiSetOps, EqualComparesBits) {
  Filter a = Make(Opts()), b = Make(Opts());
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 1) << "two empty filters";
  EXPECT_EQ(abloom_equal(a.get(), a.get()), 1);
  ASSERT_EQ(abloom_add(a.get(), "x", 1), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 0);
  EXPECT_EQ(abloom_equal(b.get(), a.get()), 0);
  ASSERT_EQ(abloom_add(b.get(), "y", 1), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 0);
  ASSERT_EQ(abloom_add(b.get(), "x", 1), ABLOOM_OK);
  ASSERT_EQ(abloom_add(a.get(), "y", 1), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 1) << "insertion order does not matter";
}

INSTANTIATE_TEST_SUITE_P(KindsAndShards, CapiSetOps,
                         ::testing::Combine(::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED},
                                                              uint32_t{ABLOOM_KIND_CLASSIC}),
                                            ::testing::Values(1u, 8u)),
                         KindShardsName);

// ---- Estimates -------------------------------------------------------------------------------

class CapiEstimates : public ::testing::TestWithParam<uint32_t> {};

TEST_P(CapiEstimates, EmptyFilterEstimatesZero) {
  for (uint32_t shards : {1u, 4u}) {
    Filter f = Make(Options(10000, 0.01, GetParam(), shards));
    EXPECT_EQ(Count(f.get()), 0.0);
    EXPECT_EQ(Fpr(f.get()), 0.0);
  }
}

TEST_P(CapiEstimates, AtCapacityCountAndFprMatchTheModel) {
  const uint32_t kind = GetParam();
  const uint64_t n = 100000;
  const abloom_options o = Options(n, 0.01, kind);
  const abloom_plan p = PlanOf(o);
  Filter f = Make(o);
  const auto keys = DistinctKeys(n, 20, 8);
  EXPECT_LE(AddMany(f.get(), keys), n);

  const double count = Count(f.get());
  EXPECT_NEAR(count, static_cast<double>(n), n * 0.03);

  const double fpr = Fpr(f.get());
  EXPECT_NEAR(fpr, p.expected_fpr, p.expected_fpr * 0.25) << "plan " << p.expected_fpr;

  // The measured rate on keys never added agrees with both.
  const auto others = DistinctKeys(200000, 21, 8);
  uint64_t found = 0;
  TestMany(f.get(), others, &found);
  const double measured = static_cast<double>(found) / others.size();
  EXPECT_NEAR(measured, fpr, fpr * 0.2) << "estimate_fpr " << fpr;
  EXPECT_NEAR(measured, p.expected_fpr, p.expected_fpr * 0.3) << "plan " << p.expected_fpr;

  // Half full: the count follows.
  Filter half = Make(o);
  AddMany(half.get(), std::vector<std::string>(keys.begin(), keys.begin() + n / 2));
  EXPECT_NEAR(Count(half.get()), n / 2.0, n / 2.0 * 0.03);
  EXPECT_LT(Fpr(half.get()), fpr);
}

TEST_P(CapiEstimates, SaturatedFilter) {
  // One 512-bit block and far more keys than bits: every bit ends up set.
  abloom_options o = Options(10, 0.01, GetParam(), 1);
  o.bits = 512;
  o.k = 8;
  Filter f = Make(o);
  AddMany(f.get(), DistinctKeys(20000, 22));
  const double count = Count(f.get());
  EXPECT_TRUE(std::isinf(count) && count > 0) << count;
  EXPECT_EQ(Fpr(f.get()), 1.0);
  EXPECT_EQ(abloom_test(f.get(), "never added", 11), 1);
}

// The count estimate is finite until every bit is set, grows with the fill, and stays close to
// the true count from a tenth of the capacity to twenty times it. The keys are random hashes
// (abloom_add_hashes: the same bits as keys with those hashes), 20 million of them at the end; at
// 20x capacity about 4 of the ~9.6 million bits are still clear, so the last checkpoint allows
// more.
TEST_P(CapiEstimates, CountFollowsTheFillUpToTwentyTimesCapacity) {
  const uint64_t capacity = 1000000;
  Filter f = Make(Options(capacity, 0.01, GetParam(), 2, 99));
  const struct {
    double times;
    double tolerance;
  } checkpoints[] = {{0.1, 0.02}, {0.5, 0.02}, {1, 0.02}, {2, 0.02},
                     {5, 0.03},   {10, 0.05},  {20, 0.2}};
  std::mt19937_64 rng(2026);
  std::vector<uint64_t> chunk;
  uint64_t added = 0;
  double previous = 0;
  for (const auto &c : checkpoints) {
    const auto target = static_cast<uint64_t>(c.times * capacity);
    while (added < target) {
      chunk.resize(std::min<uint64_t>(target - added, 1 << 20));
      for (auto &h : chunk) h = rng();
      ASSERT_EQ(abloom_add_hashes(f.get(), chunk.data(), chunk.size(), nullptr), ABLOOM_OK);
      added += chunk.size();
    }
    const double count = Count(f.get());
    SCOPED_TRACE(std::to_string(c.times) + "x capacity: estimate " + std::to_string(count));
    ASSERT_TRUE(std::isfinite(count));
    EXPECT_NEAR(count, static_cast<double>(added), c.tolerance * static_cast<double>(added));
    EXPECT_GT(count, previous);
    previous = count;
  }
}

// One full block among eight (512 of 4096 bits set) is a crowded block, not a full filter.
TEST(CapiEstimatesBlocked, OneFullBlockIsNotInfinity) {
  abloom_options o = Options(100, 0.01, ABLOOM_KIND_BLOCKED, 1);
  o.bits = 4096;
  o.k = 8;
  Filter f = Make(o);
  // Hashes that all land in block 0: the block index comes from the hash's top bits.
  std::mt19937_64 rng(7);
  std::vector<uint64_t> hashes(5000);
  for (auto &h : hashes) h = rng() >> 4;  // below 2^60: block 0 of 8
  ASSERT_EQ(abloom_add_hashes(f.get(), hashes.data(), hashes.size(), nullptr), ABLOOM_OK);
  uint64_t set_bits = 0;  // the block is full: all 512 bits, and only those
  {
    std::vector<unsigned char> bytes = Serialize(f.get());
    for (size_t i = ABLOOM_HEADER_BYTES; i < bytes.size(); ++i)
      set_bits += __builtin_popcount(bytes[i]);
  }
  ASSERT_EQ(set_bits, 512u);
  // The estimate assumes keys spread over the blocks as hashes spread them: these 5000, all in
  // one block, set the bits that about 68 spread keys would, and it says so, finitely.
  const double count = Count(f.get());
  EXPECT_TRUE(std::isfinite(count)) << count;
  EXPECT_NEAR(count, std::log1p(-512.0 / 4096) / std::log1p(-8.0 / 4096), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Kinds, CapiEstimates,
                         ::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED},
                                           uint32_t{ABLOOM_KIND_CLASSIC}),
                         [](const auto &info) { return std::string(KindName(info.param)); });

// ---- Threads ---------------------------------------------------------------------------------

class CapiThreads : public ::testing::TestWithParam<KindShards> {};

// Threads split an add by the filter's bits (bulk.cpp): every key meets the bits it would meet on
// one thread, so the bits AND the count of new keys equal the single-threaded ones exactly, at
// any fill (overfilled, at capacity, nearly empty), with duplicates in the batch, for any thread
// count, in every run.
TEST_P(CapiThreads, ThreadsGiveTheSameBitsAndCounts) {
  const auto [kind, shards] = GetParam();
  const size_t n = 300000;
  auto keys = DistinctKeys(n - 20000, 30, 8);
  const std::vector<std::string> repeats(keys.begin(), keys.begin() + 20000);
  keys.insert(keys.end(), repeats.begin(), repeats.end());  // repeats: counted once
  Batch b(keys);

  for (uint64_t capacity : {uint64_t{n / 4}, uint64_t{n}, uint64_t{10 * n}}) {
    abloom_options o1 = Options(capacity, 0.01, kind, shards, 77);
    o1.threads = 1;
    Filter seq = Make(o1);
    uint64_t added_seq = 0;
    ASSERT_EQ(abloom_add_many(seq.get(), b.ptrs.data(), b.lens.data(), n, &added_seq), ABLOOM_OK);
    if (capacity > n) {
      EXPECT_EQ(added_seq, n - 20000);  // nearly empty: only the repeats were there before
    } else if (capacity < n) {
      EXPECT_LT(added_seq, n - 20000 - 1000);  // crowded: many false positives
    }

    for (uint32_t threads : {2u, 3u, 8u}) {
      SCOPED_TRACE("capacity " + std::to_string(capacity) + ", " + std::to_string(threads) +
                   " threads");
      abloom_options o2 = o1;
      o2.threads = threads;
      Filter par = Make(o2);
      uint64_t added_par = 0;
      ASSERT_EQ(abloom_add_many(par.get(), b.ptrs.data(), b.lens.data(), n, &added_par), ABLOOM_OK);
      EXPECT_EQ(abloom_equal(seq.get(), par.get()), 1);
      EXPECT_EQ(added_par, added_seq);
      if (threads != 3) continue;
      // The other key forms, once.
      Filter par_packed = Make(o2), par_hashes = Make(o2);
      uint64_t added_packed = 0, added_hashes = 0;
      ASSERT_EQ(abloom_add_packed(par_packed.get(), b.packed.data(), b.packed.size(),
                                  b.offsets.data(), n, &added_packed),
                ABLOOM_OK);
      std::vector<uint64_t> h = Hashes(par_hashes.get(), keys);
      ASSERT_EQ(abloom_add_hashes(par_hashes.get(), h.data(), n, &added_hashes), ABLOOM_OK);
      EXPECT_EQ(abloom_equal(seq.get(), par_packed.get()), 1);
      EXPECT_EQ(abloom_equal(seq.get(), par_hashes.get()), 1);
      EXPECT_EQ(added_packed, added_seq);
      EXPECT_EQ(added_hashes, added_seq);
    }

    abloom_options o2 = o1;
    o2.threads = 2;
    Filter par = Make(o2), par_hashes = Make(o2);
    ASSERT_EQ(abloom_add_many(par.get(), b.ptrs.data(), b.lens.data(), n, nullptr), ABLOOM_OK);
    std::vector<uint64_t> h = Hashes(par_hashes.get(), keys);
    ASSERT_EQ(abloom_add_hashes(par_hashes.get(), h.data(), n, nullptr), ABLOOM_OK);

    // Threaded tests agree with sequential ones.
    const auto queries = DistinctKeys(100000, 31, 8);
    uint64_t f_seq = 0, f_par = 0;
    std::vector<uint8_t> r_seq = TestMany(seq.get(), queries, &f_seq);
    std::vector<uint8_t> r_par = TestMany(par.get(), queries, &f_par);
    EXPECT_EQ(r_par, r_seq);
    EXPECT_EQ(f_par, f_seq);
    uint64_t f_members = 0;
    TestMany(par.get(), keys, &f_members);
    EXPECT_EQ(f_members, n);
    std::vector<uint8_t> r_h(n, 0xEE);
    uint64_t f_h = 0;
    ASSERT_EQ(abloom_test_hashes(par_hashes.get(), h.data(), n, r_h.data(), &f_h), ABLOOM_OK);
    EXPECT_EQ(f_h, n);
    EXPECT_EQ(CountOnes(r_h), n);
  }
}

INSTANTIATE_TEST_SUITE_P(KindsAndShards, CapiThreads,
                         ::testing::Combine(::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED},
                                                              uint32_t{ABLOOM_KIND_CLASSIC}),
                                            ::testing::Values(1u, 4u)),
                         KindShardsName);

TEST(CapiConcurrency, ConcurrentAddsLoseNothing) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    SCOPED_TRACE(KindName(kind));
    const abloom_options o = Options(100000, 0.01, kind, 2);
    const auto k1 = DistinctKeys(50000, 40), k2 = DistinctKeys(50000, 41);
    Filter shared = Make(o);
    std::thread t1([&] {
      for (const auto &k : k1) abloom_add(shared.get(), k.data(), k.size());
    });
    std::thread t2([&] {
      Batch b(k2);
      for (size_t i = 0; i < b.size(); i += 1000)
        abloom_add_many(shared.get(), b.ptrs.data() + i, b.lens.data() + i,
                        std::min<size_t>(1000, b.size() - i), nullptr);
    });
    t1.join();
    t2.join();
    Filter seq = Make(o);
    AddAll(seq.get(), k1);
    AddAll(seq.get(), k2);
    EXPECT_EQ(abloom_equal(shared.get(), seq.get()), 1);
    EXPECT_EQ(CountOnes(TestMany(shared.get(), k1)), k1.size());
    EXPECT_EQ(CountOnes(TestMany(shared.get(), k2)), k2.size());
  }
}
