// The blocked kind's in-block layouts through the C API (ABLOOM_LAYOUT_*): options and their
// errors, plans and info, membership through every form, set operations, estimates, every way
// in and out of the format (the header's layout id), answers that do not depend on the kernel,
// and the model.

#include <abloom.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "capi_test_support.hpp"

#if defined(ABLOOM_TEST_HAVE_XXHASH)
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

namespace {

using capi_test::AddAll;
using capi_test::Batch;
using capi_test::CountOnes;
using capi_test::DistinctKeys;
using capi_test::Filter;
using capi_test::Hashes;
using capi_test::InfoOf;
using capi_test::IsaRestore;
using capi_test::KeysOfAllLengths;
using capi_test::LoadInto;
using capi_test::Make;
using capi_test::Options;
using capi_test::PlanOf;
using capi_test::Serialize;
using capi_test::TempDir;
using capi_test::TestMany;

abloom_options SplitOptions(uint64_t capacity, double fpr = 0.01, uint32_t shards = 0,
                            uint64_t seed = 0) {
  abloom_options o = Options(capacity, fpr, ABLOOM_KIND_BLOCKED, shards, seed);
  o.layout = ABLOOM_LAYOUT_SPLIT;
  return o;
}

abloom_options HalfOptions(uint64_t capacity, double fpr = 0.01, uint32_t shards = 0,
                           uint64_t seed = 0) {
  abloom_options o = Options(capacity, fpr, ABLOOM_KIND_BLOCKED, shards, seed);
  o.layout = ABLOOM_LAYOUT_HALF;
  return o;
}

uint32_t LayoutIdOf(const std::vector<unsigned char> &bytes) {
  uint32_t id = 0;
  for (int i = 3; i >= 0; --i) id = id << 8 | bytes[20 + i];
  return id;
}

// The default is split wherever its k suffices, distinct elsewhere; the filter records the choice.
TEST(CapiLayout, DefaultIsSplitWhereItsKSufficesAndEveryValueIsChecked) {
  struct Case {
    uint32_t kind;
    double fpr;
    uint64_t bits;
    uint32_t k;
    uint32_t want;
  };
  const Case cases[] = {
      {ABLOOM_KIND_BLOCKED, 0.5, 0, 0, ABLOOM_LAYOUT_SPLIT},
      {ABLOOM_KIND_BLOCKED, 0.01, 0, 0, ABLOOM_LAYOUT_SPLIT},
      {ABLOOM_KIND_BLOCKED, 0.001, 0, 0, ABLOOM_LAYOUT_SPLIT},
      {ABLOOM_KIND_BLOCKED, 1e-6, 0, 0, ABLOOM_LAYOUT_SPLIT},     // distinct k 16: split's too
      {ABLOOM_KIND_BLOCKED, 1e-7, 0, 0, ABLOOM_LAYOUT_DISTINCT},  // distinct k 18
      {ABLOOM_KIND_BLOCKED, 1e-9, 0, 0, ABLOOM_LAYOUT_DISTINCT},
      {ABLOOM_KIND_BLOCKED, 0.01, 0, ABLOOM_SPLIT_MAX_K, ABLOOM_LAYOUT_SPLIT},
      {ABLOOM_KIND_BLOCKED, 0.01, 0, ABLOOM_SPLIT_MAX_K + 1, ABLOOM_LAYOUT_DISTINCT},
      {ABLOOM_KIND_BLOCKED, 0.01, 10 * 100000, 0, ABLOOM_LAYOUT_SPLIT},     // 10 bits/key: k 7
      {ABLOOM_KIND_BLOCKED, 0.01, 60 * 100000, 0, ABLOOM_LAYOUT_DISTINCT},  // 60: k 20+
      {ABLOOM_KIND_CLASSIC, 0.01, 0, 0, ABLOOM_LAYOUT_DISTINCT},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("kind " + std::to_string(c.kind) + " fpr " + std::to_string(c.fpr) + " bits " +
                 std::to_string(c.bits) + " k " + std::to_string(c.k));
    abloom_options o = Options(100000, c.fpr, c.kind);
    o.bits = c.bits;
    o.k = c.k;
    EXPECT_EQ(o.layout, ABLOOM_LAYOUT_DEFAULT);
    const abloom_plan p = PlanOf(o);
    EXPECT_EQ(p.layout, c.want);
    o.layout = c.want;  // the same plan as asking for that layout
    const abloom_plan same = PlanOf(o);
    EXPECT_EQ(same.k, p.k);
    EXPECT_EQ(same.bits, p.bits);
    o.layout = ABLOOM_LAYOUT_DEFAULT;
    Filter f = Make(o);
    EXPECT_EQ(InfoOf(f.get()).layout, c.want);
    EXPECT_EQ(LayoutIdOf(Serialize(f.get())), c.want);
  }

  abloom_options o = Options(1000);
  o.layout = ABLOOM_LAYOUT_DISTINCT;
  EXPECT_EQ(PlanOf(o).layout, ABLOOM_LAYOUT_DISTINCT);
  o.layout = ABLOOM_LAYOUT_SPLIT;
  EXPECT_EQ(PlanOf(o).layout, ABLOOM_LAYOUT_SPLIT);
  abloom_filter *f = nullptr;
  abloom_plan plan{};
  plan.struct_size = sizeof plan;
  for (uint32_t bad : {4u, 5u, 0x80000000u, 0xFFFFFFFFu}) {
    o.layout = bad;
    EXPECT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_ERR_INVALID) << bad;
    EXPECT_EQ(abloom_create(&o, &f), ABLOOM_ERR_INVALID) << bad;
    EXPECT_EQ(f, nullptr);
  }
  // The split layout is the blocked kind's, with at most ABLOOM_SPLIT_MAX_K bits per key.
  o = SplitOptions(1000);
  o.kind = ABLOOM_KIND_CLASSIC;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_ERR_INVALID);
  o = SplitOptions(1000);
  o.k = ABLOOM_SPLIT_MAX_K + 1;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_ERR_INVALID);
  o.k = ABLOOM_SPLIT_MAX_K;
  EXPECT_EQ(PlanOf(o).k, static_cast<uint32_t>(ABLOOM_SPLIT_MAX_K));
  EXPECT_EQ(f, nullptr);
}

// The sizing rules hold for the split layout on its own model, within its k range.
TEST(CapiLayout, SplitPlansMeetTheTargetInTheirOwnModel) {
  for (double fpr : {0.1, 0.01, 0.001, 1e-4, 1e-5}) {
    const abloom_plan split = PlanOf(SplitOptions(1'000'000, fpr));
    const abloom_plan distinct = PlanOf(Options(1'000'000, fpr));
    SCOPED_TRACE(fpr);
    EXPECT_LE(split.expected_fpr, fpr);
    EXPECT_LE(split.k, static_cast<uint32_t>(ABLOOM_SPLIT_MAX_K));
    double model = 0;
    ASSERT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, split.bits_per_key,
                                      split.k, &model),
              ABLOOM_OK);
    EXPECT_DOUBLE_EQ(model, split.expected_fpr);
    EXPECT_GE(split.bits, distinct.bits) << "the split layout never needs fewer bits";
    if (fpr >= 1e-3) {
      EXPECT_LT(split.bits, distinct.bits * 1.03) << "within 3% at 1% and 0.1%";
    }
  }
  // Explicit bits: the best k of the split model, at most 16.
  abloom_options o = SplitOptions(1000);
  o.bits = 1000 * 40;
  EXPECT_EQ(PlanOf(o).k, static_cast<uint32_t>(ABLOOM_SPLIT_MAX_K));
}

TEST(CapiLayout, LayoutModelFprArguments) {
  double out = -1;
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 10, 7, nullptr),
            ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 10, 17, &out),
            ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_SPLIT, 10, 7, &out),
            ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, 4, 10, 7, &out), ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 0, 7, &out),
            ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 10, 0, &out),
            ABLOOM_ERR_INVALID);
  EXPECT_EQ(out, -1);
  ASSERT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 10, 7, &out),
            ABLOOM_OK);
  EXPECT_NEAR(out, 0.010555, 0.000001);  // the in-block study's exact value, on the measurements
  double distinct = 0, same = 0;
  ASSERT_EQ(abloom_model_fpr(ABLOOM_KIND_BLOCKED, 10, 7, &distinct), ABLOOM_OK);
  EXPECT_GT(out, distinct);
  // ABLOOM_LAYOUT_DEFAULT: the layout options with that kind and k get.
  ASSERT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DEFAULT, 10, 7, &same),
            ABLOOM_OK);
  EXPECT_EQ(same, out);
  ASSERT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DEFAULT, 40, 20, &same),
            ABLOOM_OK);
  ASSERT_EQ(abloom_model_fpr(ABLOOM_KIND_BLOCKED, 40, 20, &distinct), ABLOOM_OK);
  EXPECT_EQ(same, distinct);
  ASSERT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT, 10, 7, &same),
            ABLOOM_OK);
  ASSERT_EQ(abloom_model_fpr(ABLOOM_KIND_CLASSIC, 10, 7, &distinct), ABLOOM_OK);
  EXPECT_EQ(same, distinct);
}

// Every key length and every input form finds every key added through any other form, and the
// filters built through every form are equal.
TEST(CapiLayout, SplitMembershipThroughEveryForm) {
  for (uint32_t shards : {1u, 4u}) {
    const abloom_options o = SplitOptions(20000, 0.01, shards, 99);
    const auto keys = KeysOfAllLengths(300, 3, 5);
    const auto more = DistinctKeys(5000, 1);
    Filter single = Make(o), many = Make(o), packed = Make(o), hashed = Make(o);
    EXPECT_EQ(InfoOf(single.get()).layout, ABLOOM_LAYOUT_SPLIT);
    for (const auto *set : {&keys, &more}) {
      AddAll(single.get(), *set);
      const Batch b(*set);
      ASSERT_EQ(abloom_add_many(many.get(), b.ptrs.data(), b.lens.data(), b.size(), nullptr),
                ABLOOM_OK);
      ASSERT_EQ(abloom_add_packed(packed.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                  b.size(), nullptr),
                ABLOOM_OK);
      const auto h = Hashes(hashed.get(), *set);
      ASSERT_EQ(abloom_add_hashes(hashed.get(), h.data(), h.size(), nullptr), ABLOOM_OK);
    }
    for (const Filter *f : {&single, &many, &packed, &hashed}) {
      EXPECT_EQ(abloom_equal(f->get(), single.get()), 1);
      EXPECT_EQ(CountOnes(TestMany(f->get(), keys)), keys.size());
      EXPECT_EQ(CountOnes(TestMany(f->get(), more)), more.size());
      for (const auto &k : keys) ASSERT_EQ(abloom_test(f->get(), k.data(), k.size()), 1);
    }
  }
}

// Filters of different layouts never combine, even with the same size, k and seed.
TEST(CapiLayout, LayoutsDoNotMix) {
  abloom_options split = SplitOptions(10000, 0.01, 1, 7);
  split.bits = 10000 * 10;
  split.k = 7;
  abloom_options distinct = split;
  distinct.layout = ABLOOM_LAYOUT_DISTINCT;
  Filter a = Make(split), b = Make(distinct);
  EXPECT_EQ(InfoOf(a.get()).bits, InfoOf(b.get()).bits);
  EXPECT_EQ(abloom_union(a.get(), b.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_intersect(b.get(), a.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 0);
  Filter c = Make(split);
  AddAll(c.get(), DistinctKeys(100, 2));
  EXPECT_EQ(abloom_union(a.get(), c.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a.get(), c.get()), 1);
}

// Serialize, deserialize, view, save and open keep the layout (header layout id 2) and the
// bits, byte for byte; estimates follow the split model at capacity.
TEST(CapiLayout, SplitFilesRoundTripAndRecordTheLayout) {
  const uint64_t n = 50000;
  Filter f = Make(SplitOptions(n, 0.01, 4, 3));
  const auto keys = DistinctKeys(n, 3);
  AddAll(f.get(), keys);
  const auto bytes = Serialize(f.get());
  EXPECT_EQ(LayoutIdOf(bytes), 2u);
  abloom_options distinct = Options(n);
  distinct.layout = ABLOOM_LAYOUT_DISTINCT;
  EXPECT_EQ(LayoutIdOf(Serialize(Make(distinct).get())), 1u);

  Filter copy;
  ASSERT_EQ(
      LoadInto(
          [&](abloom_filter **out) { return abloom_deserialize(bytes.data(), bytes.size(), out); },
          &copy),
      ABLOOM_OK);
  EXPECT_EQ(InfoOf(copy.get()).layout, ABLOOM_LAYOUT_SPLIT);
  EXPECT_EQ(Serialize(copy.get()), bytes);
  EXPECT_EQ(CountOnes(TestMany(copy.get(), keys)), keys.size());

  TempDir dir;
  const std::string path = dir / "split.abloom";
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM, ABLOOM_OPEN_COPY_ON_WRITE}) {
    Filter opened;
    ASSERT_EQ(LoadInto([&](abloom_filter **out) { return abloom_open(path.c_str(), flags, out); },
                       &opened),
              ABLOOM_OK);
    EXPECT_EQ(InfoOf(opened.get()).layout, ABLOOM_LAYOUT_SPLIT);
    EXPECT_EQ(abloom_equal(opened.get(), f.get()), 1);
    EXPECT_EQ(CountOnes(TestMany(opened.get(), keys)), keys.size());
  }
  double count = 0, fpr = 0;
  ASSERT_EQ(abloom_estimate_count(f.get(), &count), ABLOOM_OK);
  ASSERT_EQ(abloom_estimate_fpr(f.get(), &fpr), ABLOOM_OK);
  EXPECT_NEAR(count, static_cast<double>(n), 0.02 * n);
  EXPECT_NEAR(fpr, InfoOf(f.get()).expected_fpr, 0.25 * InfoOf(f.get()).expected_fpr);
}

// A split filter's bytes and answers do not depend on the kernel: scalar against the best.
TEST(CapiLayout, SplitFilesAreTheSameUnderEveryKernel) {
  const IsaRestore restore;
  const auto keys = DistinctKeys(30000, 4);
  const auto absent = DistinctKeys(30000, 5);
  std::vector<std::vector<unsigned char>> built;
  std::vector<std::vector<uint8_t>> answers;
  const std::vector<uint32_t> isas = capi_test::RunnableIsas();
  for (uint32_t isa : isas) {
    ASSERT_EQ(abloom_set_isa(isa), ABLOOM_OK);
    Filter f = Make(SplitOptions(30000, 0.01, 2, 11));
    AddAll(f.get(), std::vector<std::string>(keys.begin(), keys.begin() + 10000));
    const Batch b(std::vector<std::string>(keys.begin() + 10000, keys.end()));
    ASSERT_EQ(abloom_add_packed(f.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                b.size(), nullptr),
              ABLOOM_OK);
    built.push_back(Serialize(f.get()));
    answers.push_back(TestMany(f.get(), absent));
  }
  for (size_t i = 1; i < built.size(); ++i) {
    EXPECT_EQ(built[i], built[0]) << abloom_isa_name(isas[i]);
    EXPECT_EQ(answers[i], answers[0]) << abloom_isa_name(isas[i]);
  }
}

// The half layout: asked for, never the default; k 0 (its one k, ABLOOM_HALF_K) or ABLOOM_HALF_K;
// the blocked kind's only; plans meet the target in its model, at a few percent more bits than
// the split layout's.
TEST(CapiLayout, HalfOptionsAndPlans) {
  abloom_filter *f = nullptr;
  for (double fpr : {0.1, 0.01, 0.001, 1e-4}) {
    SCOPED_TRACE(fpr);
    const abloom_plan half = PlanOf(HalfOptions(1'000'000, fpr));
    const abloom_plan split = PlanOf(SplitOptions(1'000'000, fpr));
    EXPECT_EQ(half.layout, ABLOOM_LAYOUT_HALF);
    EXPECT_EQ(half.k, static_cast<uint32_t>(ABLOOM_HALF_K));
    EXPECT_LE(half.expected_fpr, fpr);
    double model = 0;
    ASSERT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_HALF, half.bits_per_key,
                                      ABLOOM_HALF_K, &model),
              ABLOOM_OK);
    EXPECT_DOUBLE_EQ(model, half.expected_fpr);
    EXPECT_GE(half.bits, split.bits) << "fixed k and a smaller block cost bits";
    if (fpr == 0.01) {
      EXPECT_LT(half.bits, split.bits * 1.06) << "within 6% at 1%";
    }
  }
  abloom_options o = HalfOptions(1000);
  o.k = ABLOOM_HALF_K;
  EXPECT_EQ(PlanOf(o).k, static_cast<uint32_t>(ABLOOM_HALF_K));
  for (uint32_t k : {1u, 7u, 9u, 16u}) {
    o.k = k;
    EXPECT_EQ(abloom_create(&o, &f), ABLOOM_ERR_INVALID) << k;
    EXPECT_EQ(f, nullptr);
  }
  o = HalfOptions(1000);
  o.bits = 1000 * 30;
  EXPECT_EQ(PlanOf(o).k, static_cast<uint32_t>(ABLOOM_HALF_K)) << "explicit bits: its one k";
  o = HalfOptions(1000);
  o.kind = ABLOOM_KIND_CLASSIC;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_ERR_INVALID);
  EXPECT_EQ(f, nullptr);
  // The default never picks it.
  o = Options(1000);
  o.layout = ABLOOM_LAYOUT_DEFAULT;
  o.k = ABLOOM_HALF_K;
  EXPECT_EQ(PlanOf(o).layout, ABLOOM_LAYOUT_SPLIT);

  double out = -1;
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_HALF, 10, 7, &out),
            ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_HALF, 10, 9, &out),
            ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_HALF, 10, 8, &out),
            ABLOOM_ERR_INVALID);
  EXPECT_EQ(out, -1);
  ASSERT_EQ(abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_HALF, 10.53, 8, &out),
            ABLOOM_OK);
  EXPECT_NEAR(out, 0.009996655933097686, 1e-12);  // tests/tools/fpr_model.py's fpr_half
}

// Membership through every form and key length, set operations and the file: the header's layout
// id 3, every way in and out keeping the bits; estimates on its model.
TEST(CapiLayout, HalfMembershipFilesAndEstimates) {
  for (uint32_t shards : {1u, 4u}) {
    SCOPED_TRACE(shards);
    const abloom_options o = HalfOptions(20000, 0.01, shards, 99);
    const auto keys = KeysOfAllLengths(300, 3, 5);
    const auto more = DistinctKeys(5000, 1);
    Filter single = Make(o), many = Make(o), packed = Make(o), hashed = Make(o);
    EXPECT_EQ(InfoOf(single.get()).layout, ABLOOM_LAYOUT_HALF);
    EXPECT_EQ(InfoOf(single.get()).k, static_cast<uint32_t>(ABLOOM_HALF_K));
    for (const auto *set : {&keys, &more}) {
      AddAll(single.get(), *set);
      const Batch b(*set);
      ASSERT_EQ(abloom_add_many(many.get(), b.ptrs.data(), b.lens.data(), b.size(), nullptr),
                ABLOOM_OK);
      ASSERT_EQ(abloom_add_packed(packed.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                  b.size(), nullptr),
                ABLOOM_OK);
      const auto h = Hashes(hashed.get(), *set);
      ASSERT_EQ(abloom_add_hashes(hashed.get(), h.data(), h.size(), nullptr), ABLOOM_OK);
    }
    for (const Filter *f : {&single, &many, &packed, &hashed}) {
      EXPECT_EQ(abloom_equal(f->get(), single.get()), 1);
      EXPECT_EQ(CountOnes(TestMany(f->get(), keys)), keys.size());
      EXPECT_EQ(CountOnes(TestMany(f->get(), more)), more.size());
      for (const auto &k : keys) ASSERT_EQ(abloom_test(f->get(), k.data(), k.size()), 1);
    }
    // Not with a split filter of the same size, k and seed.
    abloom_options split = SplitOptions(20000, 0.01, shards, 99);
    split.bits = InfoOf(single.get()).bits;
    split.k = ABLOOM_HALF_K;
    Filter other = Make(split);
    EXPECT_EQ(InfoOf(other.get()).bits, InfoOf(single.get()).bits);
    EXPECT_EQ(abloom_union(other.get(), single.get()), ABLOOM_ERR_MISMATCH);
    EXPECT_EQ(abloom_equal(other.get(), single.get()), 0);

    const auto bytes = Serialize(single.get());
    EXPECT_EQ(LayoutIdOf(bytes), 3u);
    Filter copy;
    ASSERT_EQ(LoadInto(
                  [&](abloom_filter **out) {
                    return abloom_deserialize(bytes.data(), bytes.size(), out);
                  },
                  &copy),
              ABLOOM_OK);
    EXPECT_EQ(InfoOf(copy.get()).layout, ABLOOM_LAYOUT_HALF);
    EXPECT_EQ(Serialize(copy.get()), bytes);
    TempDir dir;
    const std::string path = dir / "half.abloom";
    ASSERT_EQ(abloom_save(single.get(), path.c_str()), ABLOOM_OK);
    for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM, ABLOOM_OPEN_COPY_ON_WRITE}) {
      Filter opened;
      ASSERT_EQ(LoadInto([&](abloom_filter **out) { return abloom_open(path.c_str(), flags, out); },
                         &opened),
                ABLOOM_OK);
      EXPECT_EQ(InfoOf(opened.get()).layout, ABLOOM_LAYOUT_HALF);
      EXPECT_EQ(abloom_equal(opened.get(), single.get()), 1);
      EXPECT_EQ(CountOnes(TestMany(opened.get(), more)), more.size());
    }
  }
  const uint64_t n = 50000;
  Filter f = Make(HalfOptions(n, 0.01, 2, 3));
  AddAll(f.get(), DistinctKeys(n, 3));
  double count = 0, fpr = 0;
  ASSERT_EQ(abloom_estimate_count(f.get(), &count), ABLOOM_OK);
  ASSERT_EQ(abloom_estimate_fpr(f.get(), &fpr), ABLOOM_OK);
  EXPECT_NEAR(count, static_cast<double>(n), 0.02 * n);
  EXPECT_NEAR(fpr, InfoOf(f.get()).expected_fpr, 0.25 * InfoOf(f.get()).expected_fpr);
}

// A half filter's bytes and answers do not depend on the kernel, with either writer.
TEST(CapiLayout, HalfFilesAreTheSameUnderEveryKernel) {
  const IsaRestore restore;
  const auto keys = DistinctKeys(30000, 4);
  const auto absent = DistinctKeys(30000, 5);
  std::vector<std::vector<unsigned char>> built;
  std::vector<std::vector<uint8_t>> answers;
  const std::vector<uint32_t> isas = capi_test::RunnableIsas();
  for (uint32_t isa : isas) {
    ASSERT_EQ(abloom_set_isa(isa), ABLOOM_OK);
    for (uint32_t writer : {ABLOOM_WRITER_SHARED, ABLOOM_WRITER_EXCLUSIVE}) {
      Filter f = Make(HalfOptions(30000, 0.01, 2, 11));
      ASSERT_EQ(abloom_set_writer_mode(f.get(), writer), ABLOOM_OK);
      AddAll(f.get(), std::vector<std::string>(keys.begin(), keys.begin() + 10000));
      const Batch b(std::vector<std::string>(keys.begin() + 10000, keys.end()));
      ASSERT_EQ(abloom_add_packed(f.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                  b.size(), nullptr),
                ABLOOM_OK);
      built.push_back(Serialize(f.get()));
      answers.push_back(TestMany(f.get(), absent));
    }
  }
  for (size_t i = 1; i < built.size(); ++i) {
    EXPECT_EQ(built[i], built[0]) << abloom_isa_name(isas[i / 2]) << " writer " << i % 2;
    EXPECT_EQ(answers[i], answers[0]) << abloom_isa_name(isas[i / 2]) << " writer " << i % 2;
  }
}

#if defined(ABLOOM_TEST_HAVE_XXHASH)
// Headers that name the split layout where it cannot be: with the classic kind (an unknown
// combination: unsupported) or with k above 16 (inconsistent: corrupt). The header checksum is
// resealed, so only the field checks can refuse them.
TEST(CapiLayout, SplitHeadersOutOfRangeAreRefused) {
  Filter f = Make(SplitOptions(1000, 0.01, 1, 5));
  AddAll(f.get(), DistinctKeys(100, 6));
  const auto bytes = Serialize(f.get());
  auto put32 = [](unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
  };
  auto reseal = [](unsigned char *h) {
    const uint64_t c = XXH3_64bits(h, 120);
    for (int i = 0; i < 8; ++i) h[120 + i] = static_cast<unsigned char>(c >> (8 * i));
  };
  struct Case {
    const char *name;
    uint32_t offset, value;
    int want;
  };
  for (const Case &c :
       {Case{"classic kind", 16, ABLOOM_KIND_CLASSIC, ABLOOM_ERR_UNSUPPORTED},
        Case{"k 17", 28, 17, ABLOOM_ERR_CORRUPT}, Case{"k 64", 28, 64, ABLOOM_ERR_CORRUPT},
        Case{"layout 4", 20, 4, ABLOOM_ERR_UNSUPPORTED}}) {
    SCOPED_TRACE(c.name);
    auto crafted = bytes;
    put32(crafted.data() + c.offset, c.value);
    reseal(crafted.data());
    abloom_filter *g = nullptr;
    EXPECT_EQ(abloom_deserialize(crafted.data(), crafted.size(), &g), c.want);
    EXPECT_EQ(g, nullptr);
  }
  // The half layout (id 3) takes k 8 only, and the blocked kind only.
  for (const Case &c : {Case{"half layout, k 7", 20, ABLOOM_LAYOUT_HALF, ABLOOM_ERR_CORRUPT}}) {
    SCOPED_TRACE(c.name);
    auto crafted = bytes;  // a split filter of k 7 (the plan's at 1%)
    ASSERT_EQ(InfoOf(f.get()).k, 7u);
    put32(crafted.data() + c.offset, c.value);
    reseal(crafted.data());
    abloom_filter *g = nullptr;
    EXPECT_EQ(abloom_deserialize(crafted.data(), crafted.size(), &g), c.want);
    EXPECT_EQ(g, nullptr);
  }
  {
    auto crafted = bytes;
    put32(crafted.data() + 20, ABLOOM_LAYOUT_HALF);
    put32(crafted.data() + 16, ABLOOM_KIND_CLASSIC);
    reseal(crafted.data());
    abloom_filter *g = nullptr;
    EXPECT_EQ(abloom_deserialize(crafted.data(), crafted.size(), &g), ABLOOM_ERR_UNSUPPORTED)
        << "the classic kind has no half layout";
    EXPECT_EQ(g, nullptr);
  }
  // Control: k 16, in range, resealed, reads (its body checksum then fails: the body is intact
  // but the checksum covers the header too).
  auto k16 = bytes;
  put32(k16.data() + 28, 16);
  reseal(k16.data());
  abloom_filter *g = nullptr;
  EXPECT_EQ(abloom_deserialize(k16.data(), k16.size(), &g), ABLOOM_ERR_CHECKSUM);
}
#endif

}  // namespace
