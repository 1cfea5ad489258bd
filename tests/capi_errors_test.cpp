// Error paths of the abloom C API (capi/abloom.h): NULL arguments, out-of-domain options, sizes
// that are too large, shape mismatches, malformed bulk input, abloom_strerror, and the "on
// failure nothing is changed" rule.

#include <abloom.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "capi_test_support.hpp"

namespace {

using capi_test::Clone;
using capi_test::Filter;
using capi_test::FilterDeleter;
using capi_test::Make;
using capi_test::Options;

// A value no successful call would ever write into an out-handle.
abloom_filter *const kSentinel = reinterpret_cast<abloom_filter *>(uintptr_t{0x5EA1ED});

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A filter of the default options for `capacity` and `fpr`.
Filter MakeFilter(uint64_t capacity = 1000, double fpr = 0.01) {
  return Make(Options(capacity, fpr));
}

// An explicit layout, so that each shape component can be varied on its own.
abloom_options ShapeOptions(uint32_t kind = ABLOOM_KIND_BLOCKED, uint32_t k = 6,
                            uint32_t shards = 2, uint64_t bits = 8 * 512, uint64_t seed = 7) {
  abloom_options o = Options(100);
  o.kind = kind;
  o.k = k;
  o.shards = shards;
  o.bits = bits;
  o.seed = seed;
  return o;
}

double EstimateCount(const abloom_filter *f) {
  double d = -1;
  EXPECT_EQ(abloom_estimate_count(f, &d), ABLOOM_OK);
  return d;
}

// Expects abloom_create, abloom_plan_compute to reject `o` with `code`, leaving outputs alone.
void ExpectRejected(const abloom_options &o, int code) {
  abloom_filter *f = kSentinel;
  EXPECT_EQ(abloom_create(&o, &f), code);
  EXPECT_EQ(f, kSentinel);
  if (f != kSentinel) abloom_free(f);

  abloom_plan plan;
  std::memset(&plan, 0xA5, sizeof plan);
  plan.struct_size = sizeof plan;
  abloom_plan before = plan;
  EXPECT_EQ(abloom_plan_compute(&o, &plan), code);
  EXPECT_EQ(std::memcmp(&plan, &before, sizeof plan), 0) << "plan written on failure";
}

void ExpectAccepted(const abloom_options &o) {
  abloom_plan plan{};
  plan.struct_size = sizeof plan;
  EXPECT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_OK);
  abloom_filter *f = nullptr;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_OK);
  EXPECT_NE(f, nullptr);
  abloom_free(f);
}

const int kAllCodes[] = {ABLOOM_OK,          ABLOOM_ERR_NULL,  ABLOOM_ERR_INVALID,
                         ABLOOM_ERR_RANGE,   ABLOOM_ERR_NOMEM, ABLOOM_ERR_MISMATCH,
                         ABLOOM_ERR_INTERNAL};

}  // namespace

// ---- abloom_strerror / version ---------------------------------------------------------------

TEST(CapiErrors, ErrorCodeValuesAreAsDocumented) {
  EXPECT_EQ(ABLOOM_OK, 0);
  EXPECT_EQ(ABLOOM_ERR_NULL, -1);
  EXPECT_EQ(ABLOOM_ERR_INVALID, -2);
  EXPECT_EQ(ABLOOM_ERR_RANGE, -3);
  EXPECT_EQ(ABLOOM_ERR_NOMEM, -4);
  EXPECT_EQ(ABLOOM_ERR_MISMATCH, -5);
  EXPECT_EQ(ABLOOM_ERR_INTERNAL, -6);
}

TEST(CapiErrors, StrerrorGivesDistinctNonEmptyMessages) {
  std::set<std::string> seen;
  for (int code : kAllCodes) {
    const char *msg = abloom_strerror(code);
    ASSERT_NE(msg, nullptr) << "code " << code;
    EXPECT_GT(std::strlen(msg), 0u) << "code " << code;
    EXPECT_TRUE(seen.insert(msg).second) << "duplicate message for code " << code << ": " << msg;
    // Static storage: the same call returns the same text.
    EXPECT_STREQ(abloom_strerror(code), msg);
  }
}

TEST(CapiErrors, StrerrorOfUnknownCodeIsNonNullAndDistinctFromKnownCodes) {
  const int unknown[] = {
      1, 2, -7, -100, 12345, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
  std::set<std::string> known;
  for (int code : kAllCodes) known.insert(abloom_strerror(code));
  for (int code : unknown) {
    const char *msg = abloom_strerror(code);
    ASSERT_NE(msg, nullptr) << "code " << code;
    EXPECT_GT(std::strlen(msg), 0u);
    EXPECT_EQ(known.count(msg), 0u) << "unknown code " << code << " got a known message: " << msg;
  }
  EXPECT_STREQ(abloom_strerror(-100), "unknown error code");
}

// ---- Options, plan, model --------------------------------------------------------------------

TEST(CapiErrors, OptionsInitNull) { EXPECT_EQ(abloom_options_init(nullptr), ABLOOM_ERR_NULL); }

TEST(CapiErrors, PlanComputeNullArguments) {
  abloom_options o = Options(1000);
  abloom_plan plan{};
  plan.struct_size = sizeof plan;
  EXPECT_EQ(abloom_plan_compute(nullptr, &plan), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_plan_compute(&o, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_plan_compute(nullptr, nullptr), ABLOOM_ERR_NULL);
}

TEST(CapiErrors, PlanStructSizeWrong) {
  abloom_options o = Options(1000);
  for (size_t size : {size_t{0}, size_t{1}, sizeof(size_t), sizeof(abloom_plan) - 1,
                      sizeof(abloom_plan) + 1, sizeof(abloom_plan) + 8, SIZE_MAX}) {
    abloom_plan plan;
    std::memset(&plan, 0x5A, sizeof plan);
    plan.struct_size = size;
    abloom_plan before = plan;
    EXPECT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_ERR_INVALID) << "struct_size " << size;
    EXPECT_EQ(std::memcmp(&plan, &before, sizeof plan), 0) << "struct_size " << size;
  }
}

TEST(CapiErrors, OptionsStructSizeWrong) {
  // Any size but the first header's struct (which ended before `layout`) and today's, larger
  // ones included: a caller from a newer header would set fields this library cannot honour.
  const size_t v1 = offsetof(abloom_options, layout);
  for (size_t size : {size_t{0}, size_t{1}, sizeof(size_t), v1 - 1, v1 + 1, v1 + 3,
                      sizeof(abloom_options) + 1, sizeof(abloom_options) + 8, SIZE_MAX}) {
    abloom_options o = Options(1000);
    o.struct_size = size;
    SCOPED_TRACE("struct_size " + std::to_string(size));
    ExpectRejected(o, ABLOOM_ERR_INVALID);
  }
}

// A caller built against the first header passes its shorter struct_size: the fields it has are
// used, and `layout`, which it does not have (here: garbage past its end), is the default.
TEST(CapiErrors, OptionsFromTheFirstHeaderGetTheDefaultLayout) {
  const size_t v1 = offsetof(abloom_options, layout);
  for (size_t size : {v1}) {
    abloom_options o = Options(1000);
    o.struct_size = size;
    o.layout = 0xDEADBEEF;  // beyond the caller's struct: never read
    abloom_plan plan{};
    plan.struct_size = sizeof plan;
    ASSERT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_OK) << size;
    EXPECT_EQ(plan.layout, ABLOOM_LAYOUT_DISTINCT);
    abloom_filter *f = nullptr;
    ASSERT_EQ(abloom_create(&o, &f), ABLOOM_OK) << size;
    abloom_free(f);
  }
}

TEST(CapiErrors, CapacityZeroIsInvalid) {
  abloom_options o = Options(0);
  ExpectRejected(o, ABLOOM_ERR_INVALID);
  o.kind = ABLOOM_KIND_CLASSIC;
  ExpectRejected(o, ABLOOM_ERR_INVALID);
  abloom_filter *f = kSentinel;
  EXPECT_EQ(abloom_new(0, 0.01, &f), ABLOOM_ERR_INVALID);
  EXPECT_EQ(f, kSentinel);
}

TEST(CapiErrors, FprOutsideOpenUnitIntervalIsInvalid) {
  const double bad[] = {0.0, -0.0, 1.0, kNaN, -kNaN, -0.01, -1.0, 1.0000001, 2.0, kInf, -kInf};
  for (double fpr : bad) {
    SCOPED_TRACE("fpr " + std::to_string(fpr));
    for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
      abloom_options o = Options(1000, fpr);
      o.kind = kind;
      ExpectRejected(o, ABLOOM_ERR_INVALID);
      // A fixed k does not make the fpr acceptable when it is used for sizing.
      o.k = 4;
      ExpectRejected(o, ABLOOM_ERR_INVALID);
    }
    abloom_filter *f = kSentinel;
    EXPECT_EQ(abloom_new(1000, fpr, &f), ABLOOM_ERR_INVALID);
    EXPECT_EQ(f, kSentinel);
  }
}

TEST(CapiErrors, FprJustInsideTheIntervalIsAccepted) {
  ExpectAccepted(Options(1000, 0.999));
  ExpectAccepted(Options(1000, 1e-12));
}

TEST(CapiErrors, UnknownKindIsInvalid) {
  for (uint32_t kind : {2u, 3u, 100u, 0xFFFFFFFFu}) {
    abloom_options o = Options(1000);
    o.kind = kind;
    SCOPED_TRACE("kind " + std::to_string(kind));
    ExpectRejected(o, ABLOOM_ERR_INVALID);
  }
}

TEST(CapiErrors, ShardsNotPowerOfTwoOrTooManyIsInvalid) {
  for (uint32_t shards : {3u, 5u, 6u, 7u, 12u, 100u, 65535u, uint32_t{ABLOOM_MAX_SHARDS} + 1,
                          uint32_t{ABLOOM_MAX_SHARDS} * 2, 0x80000000u, 0xFFFFFFFFu}) {
    abloom_options o = Options(1000);
    o.shards = shards;
    SCOPED_TRACE("shards " + std::to_string(shards));
    ExpectRejected(o, ABLOOM_ERR_INVALID);
  }
}

TEST(CapiErrors, ShardsAtTheLimitArePlannable) {
  abloom_options o = Options(1000);
  o.shards = ABLOOM_MAX_SHARDS;
  abloom_plan plan{};
  plan.struct_size = sizeof plan;
  ASSERT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_OK);
  EXPECT_EQ(plan.shards, uint32_t{ABLOOM_MAX_SHARDS});
  EXPECT_GE(plan.blocks_per_shard, 1u);
}

TEST(CapiErrors, KZeroChoosesButAboveMaxIsInvalid) {
  abloom_options o = Options(1000);
  o.k = 0;
  ExpectAccepted(o);
  o.k = ABLOOM_MAX_K;
  ExpectAccepted(o);
  for (uint32_t k : {uint32_t{ABLOOM_MAX_K} + 1, 1000u, 0xFFFFFFFFu}) {
    SCOPED_TRACE("k " + std::to_string(k));
    abloom_options bad = Options(1000);
    bad.k = k;
    ExpectRejected(bad, ABLOOM_ERR_INVALID);
    bad.bits = 4096;  // an explicit layout does not make a bad k acceptable
    ExpectRejected(bad, ABLOOM_ERR_INVALID);
  }
}

TEST(CapiErrors, TooLargeIsRange) {
  {
    SCOPED_TRACE("capacity UINT64_MAX at 1e-9");
    abloom_options o = Options(UINT64_MAX, 1e-9);
    ExpectRejected(o, ABLOOM_ERR_RANGE);
    o.kind = ABLOOM_KIND_CLASSIC;
    ExpectRejected(o, ABLOOM_ERR_RANGE);
    abloom_filter *f = kSentinel;
    EXPECT_EQ(abloom_new(UINT64_MAX, 1e-9, &f), ABLOOM_ERR_RANGE);
    EXPECT_EQ(f, kSentinel);
  }
  {
    SCOPED_TRACE("capacity 2^60 at 1%");
    ExpectRejected(Options(uint64_t{1} << 60, 0.01), ABLOOM_ERR_RANGE);
  }
  {
    SCOPED_TRACE("explicit bits UINT64_MAX");
    abloom_options o = Options(1000);
    o.bits = UINT64_MAX;
    ExpectRejected(o, ABLOOM_ERR_RANGE);
    o.k = 4;
    ExpectRejected(o, ABLOOM_ERR_RANGE);
    o.shards = 64;
    ExpectRejected(o, ABLOOM_ERR_RANGE);
  }
  {
    SCOPED_TRACE("explicit bits one above ABLOOM_MAX_BYTES");
    abloom_options o = Options(1000000);
    o.bits = ABLOOM_MAX_BYTES * 8 + 1;
    o.k = 4;
    ExpectRejected(o, ABLOOM_ERR_RANGE);
    o.bits = ABLOOM_MAX_BYTES * 16;
    ExpectRejected(o, ABLOOM_ERR_RANGE);
  }
  {
    SCOPED_TRACE("one bit below the limit rounds up to exactly ABLOOM_MAX_BYTES: accepted");
    // Plan only: nothing is allocated.
    abloom_options o = Options(1000000);
    o.bits = ABLOOM_MAX_BYTES * 8 - 1;
    o.k = 4;
    o.shards = 64;
    abloom_plan plan{};
    plan.struct_size = sizeof plan;
    ASSERT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_OK);
    EXPECT_EQ(plan.bytes, ABLOOM_MAX_BYTES);
    EXPECT_EQ(plan.bits, ABLOOM_MAX_BYTES * 8);
  }
}

TEST(CapiErrors, ModelFprArguments) {
  double out = 0.0;
  EXPECT_EQ(abloom_model_fpr(ABLOOM_KIND_BLOCKED, 10.0, 7, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_model_fpr(ABLOOM_KIND_CLASSIC, 10.0, 7, nullptr), ABLOOM_ERR_NULL);
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    for (double bpk : {0.0, -0.0, -1.0, kNaN, kInf, -kInf}) {
      out = 12345.0;
      EXPECT_EQ(abloom_model_fpr(kind, bpk, 7, &out), ABLOOM_ERR_INVALID) << "bpk " << bpk;
      EXPECT_EQ(out, 12345.0) << "output written on failure";
    }
    for (uint32_t k : {0u, uint32_t{ABLOOM_MAX_K} + 1, 0xFFFFFFFFu}) {
      out = 12345.0;
      EXPECT_EQ(abloom_model_fpr(kind, 10.0, k, &out), ABLOOM_ERR_INVALID) << "k " << k;
      EXPECT_EQ(out, 12345.0);
    }
    EXPECT_EQ(abloom_model_fpr(kind, 10.0, 1, &out), ABLOOM_OK);
    EXPECT_EQ(abloom_model_fpr(kind, 10.0, ABLOOM_MAX_K, &out), ABLOOM_OK);
  }
  out = 12345.0;
  EXPECT_EQ(abloom_model_fpr(2, 10.0, 7, &out), ABLOOM_ERR_INVALID);
  EXPECT_EQ(out, 12345.0);
}

// ---- Lifecycle -------------------------------------------------------------------------------

TEST(CapiErrors, CreateNullArguments) {
  abloom_options o = Options(1000);
  abloom_filter *f = kSentinel;
  EXPECT_EQ(abloom_create(nullptr, &f), ABLOOM_ERR_NULL);
  EXPECT_EQ(f, kSentinel);
  EXPECT_EQ(abloom_create(&o, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_new(1000, 0.01, nullptr), ABLOOM_ERR_NULL);
}

TEST(CapiErrors, FailedCreateLeavesOutputUntouched) {
  abloom_options o = Options(1000);
  o.kind = 9;
  abloom_filter *f = kSentinel;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_ERR_INVALID);
  EXPECT_EQ(f, kSentinel);
  f = kSentinel;
  EXPECT_EQ(abloom_new(1000, kNaN, &f), ABLOOM_ERR_INVALID);
  EXPECT_EQ(f, kSentinel);
}

TEST(CapiErrors, FreeNullIsFine) {
  abloom_free(nullptr);
  SUCCEED();
}

TEST(CapiErrors, CloneNullArguments) {
  Filter f = MakeFilter();
  abloom_filter *out = kSentinel;
  EXPECT_EQ(abloom_clone(nullptr, &out), ABLOOM_ERR_NULL);
  EXPECT_EQ(out, kSentinel);
  EXPECT_EQ(abloom_clone(f.get(), nullptr), ABLOOM_ERR_NULL);
}

// ---- Single keys -----------------------------------------------------------------------------

TEST(CapiErrors, SingleKeyNullFilter) {
  const char key[] = "key";
  uint64_t h = 42;
  EXPECT_EQ(abloom_add(nullptr, key, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test(nullptr, key, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_and_add(nullptr, key, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_hash(nullptr, key, 3, &h), ABLOOM_ERR_NULL);
  EXPECT_EQ(h, 42u);
  EXPECT_EQ(abloom_add_hash(nullptr, 1), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_hash(nullptr, 1), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_and_add_hash(nullptr, 1), ABLOOM_ERR_NULL);
}

TEST(CapiErrors, NullKeyWithLengthIsNullAndChangesNothing) {
  Filter f = MakeFilter();
  Filter empty = Clone(f.get());
  EXPECT_EQ(abloom_add(f.get(), nullptr, 1), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add(f.get(), nullptr, 100), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test(f.get(), nullptr, 1), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_and_add(f.get(), nullptr, 5), ABLOOM_ERR_NULL);
  uint64_t h = 42;
  EXPECT_EQ(abloom_hash(f.get(), nullptr, 5, &h), ABLOOM_ERR_NULL);
  EXPECT_EQ(h, 42u);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1) << "a failed add changed the filter";
  EXPECT_EQ(EstimateCount(f.get()), 0.0);
}

TEST(CapiErrors, NullKeyWithZeroLengthIsTheEmptyKey) {
  Filter f = MakeFilter(1000, 1e-6);
  EXPECT_EQ(abloom_test(f.get(), nullptr, 0), 0);
  EXPECT_EQ(abloom_test_and_add(f.get(), nullptr, 0), 0);
  EXPECT_EQ(abloom_test(f.get(), nullptr, 0), 1);
  EXPECT_EQ(abloom_test(f.get(), "", 0), 1);
  EXPECT_EQ(abloom_test(f.get(), "x", 0), 1);  // length 0: the pointer's bytes are not read
  EXPECT_EQ(abloom_add(f.get(), nullptr, 0), ABLOOM_OK);
  EXPECT_EQ(abloom_test_and_add(f.get(), nullptr, 0), 1);

  uint64_t h_null = 1, h_empty = 2;
  EXPECT_EQ(abloom_hash(f.get(), nullptr, 0, &h_null), ABLOOM_OK);
  EXPECT_EQ(abloom_hash(f.get(), "", 0, &h_empty), ABLOOM_OK);
  EXPECT_EQ(h_null, h_empty);

  Filter g = MakeFilter(1000, 1e-6);
  EXPECT_EQ(abloom_add(g.get(), "", 0), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(f.get(), g.get()), 1);
}

TEST(CapiErrors, HashNullOutput) {
  Filter f = MakeFilter();
  EXPECT_EQ(abloom_hash(f.get(), "abc", 3, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_hash(f.get(), nullptr, 0, nullptr), ABLOOM_ERR_NULL);
}

// ---- Bulk: keys arrays -----------------------------------------------------------------------

TEST(CapiErrors, AddManyNullArguments) {
  Filter f = MakeFilter();
  Filter empty = Clone(f.get());
  const char *keys[] = {"alpha", "beta"};
  const size_t lens[] = {5, 4};
  const void *const *k = reinterpret_cast<const void *const *>(keys);
  uint64_t added = 99;
  EXPECT_EQ(abloom_add_many(nullptr, k, lens, 2, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add_many(f.get(), nullptr, lens, 2, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add_many(f.get(), k, nullptr, 2, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(added, 99u);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
}

TEST(CapiErrors, AddManyNullKeyWithLengthAddsNothing) {
  Filter f = MakeFilter(1000, 1e-6);
  Filter empty = Clone(f.get());
  // The bad key is last: the valid keys before it must not be added either.
  const void *keys[] = {"alpha", "beta", "gamma", nullptr};
  const size_t lens[] = {5, 4, 5, 3};
  uint64_t added = 99;
  EXPECT_EQ(abloom_add_many(f.get(), keys, lens, 4, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(added, 99u);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
  EXPECT_EQ(abloom_test(f.get(), "alpha", 5), 0);

  // A NULL key of length 0 is the empty key and fine.
  const size_t lens_ok[] = {5, 4, 5, 0};
  EXPECT_EQ(abloom_add_many(f.get(), keys, lens_ok, 4, &added), ABLOOM_OK);
  EXPECT_EQ(added, 4u);
  EXPECT_EQ(abloom_test(f.get(), "", 0), 1);
  EXPECT_EQ(abloom_test(f.get(), "gamma", 5), 1);
}

TEST(CapiErrors, TestManyNullArguments) {
  Filter f = MakeFilter();
  const void *keys[] = {"alpha", "beta"};
  const size_t lens[] = {5, 4};
  uint8_t results[2] = {7, 7};
  uint64_t found = 99;
  EXPECT_EQ(abloom_test_many(nullptr, keys, lens, 2, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_many(f.get(), nullptr, lens, 2, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_many(f.get(), keys, nullptr, 2, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_many(f.get(), keys, lens, 2, nullptr, &found), ABLOOM_ERR_NULL);
  const void *bad_keys[] = {"alpha", nullptr};
  EXPECT_EQ(abloom_test_many(f.get(), bad_keys, lens, 2, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(results[0], 7);
  EXPECT_EQ(results[1], 7);
  EXPECT_EQ(found, 99u);
  // found may be NULL.
  EXPECT_EQ(abloom_test_many(f.get(), keys, lens, 2, results, nullptr), ABLOOM_OK);
  EXPECT_EQ(results[0], 0);
  EXPECT_EQ(results[1], 0);
}

TEST(CapiErrors, ZeroKeysWithNullArraysIsOk) {
  Filter f = MakeFilter();
  Filter empty = Clone(f.get());
  uint64_t added = 99, found = 99;
  EXPECT_EQ(abloom_add_many(f.get(), nullptr, nullptr, 0, &added), ABLOOM_OK);
  EXPECT_EQ(added, 0u);
  EXPECT_EQ(abloom_add_many(f.get(), nullptr, nullptr, 0, nullptr), ABLOOM_OK);
  EXPECT_EQ(abloom_test_many(f.get(), nullptr, nullptr, 0, nullptr, &found), ABLOOM_OK);
  EXPECT_EQ(found, 0u);
  added = found = 99;
  EXPECT_EQ(abloom_add_packed(f.get(), nullptr, 0, nullptr, 0, &added), ABLOOM_OK);
  EXPECT_EQ(added, 0u);
  EXPECT_EQ(abloom_test_packed(f.get(), nullptr, 0, nullptr, 0, nullptr, &found), ABLOOM_OK);
  EXPECT_EQ(found, 0u);
  added = found = 99;
  EXPECT_EQ(abloom_add_hashes(f.get(), nullptr, 0, &added), ABLOOM_OK);
  EXPECT_EQ(added, 0u);
  EXPECT_EQ(abloom_test_hashes(f.get(), nullptr, 0, nullptr, &found), ABLOOM_OK);
  EXPECT_EQ(found, 0u);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
}

TEST(CapiErrors, ZeroKeysStillNeedsAFilter) {
  uint64_t added = 99, found = 99;
  EXPECT_EQ(abloom_add_many(nullptr, nullptr, nullptr, 0, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_many(nullptr, nullptr, nullptr, 0, nullptr, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add_packed(nullptr, nullptr, 0, nullptr, 0, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_packed(nullptr, nullptr, 0, nullptr, 0, nullptr, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add_hashes(nullptr, nullptr, 0, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_hashes(nullptr, nullptr, 0, nullptr, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(added, 99u);
  EXPECT_EQ(found, 99u);
}

// ---- Bulk: packed ----------------------------------------------------------------------------

TEST(CapiErrors, PackedNullArguments) {
  Filter f = MakeFilter();
  Filter empty = Clone(f.get());
  const char buf[] = "alphabeta";
  const uint64_t offsets[] = {0, 5, 9};
  uint8_t results[2] = {7, 7};
  uint64_t added = 99, found = 99;
  EXPECT_EQ(abloom_add_packed(nullptr, buf, 9, offsets, 2, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add_packed(f.get(), nullptr, 9, offsets, 2, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add_packed(f.get(), buf, 9, nullptr, 2, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_packed(nullptr, buf, 9, offsets, 2, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_packed(f.get(), nullptr, 9, offsets, 2, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_packed(f.get(), buf, 9, nullptr, 2, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_packed(f.get(), buf, 9, offsets, 2, nullptr, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(added, 99u);
  EXPECT_EQ(found, 99u);
  EXPECT_EQ(results[0], 7);
  EXPECT_EQ(results[1], 7);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
}

TEST(CapiErrors, PackedAllEmptyKeysWithNullBufferIsOk) {
  Filter f = MakeFilter(1000, 1e-6);
  const uint64_t offsets[] = {0, 0, 0};
  uint64_t added = 99;
  EXPECT_EQ(abloom_add_packed(f.get(), nullptr, 0, offsets, 2, &added), ABLOOM_OK);
  EXPECT_EQ(added, 1u);  // the empty key, twice: new once
  EXPECT_EQ(abloom_test(f.get(), nullptr, 0), 1);
}

TEST(CapiErrors, PackedDecreasingOffsetsAreInvalidAndAddNothing) {
  Filter f = MakeFilter(1000, 1e-6);
  Filter empty = Clone(f.get());
  const char buf[] = "alphabetagammadelta";
  // Keys 0 and 1 are fine; the decrease comes after them.
  const uint64_t offsets[] = {0, 5, 9, 7, 19};
  uint64_t added = 99, found = 99;
  EXPECT_EQ(abloom_add_packed(f.get(), buf, 19, offsets, 4, &added), ABLOOM_ERR_INVALID);
  EXPECT_EQ(added, 99u);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1) << "keys before the bad offset were added";
  EXPECT_EQ(abloom_test(f.get(), "alpha", 5), 0);
  EXPECT_EQ(EstimateCount(f.get()), 0.0);

  uint8_t results[4] = {7, 7, 7, 7};
  EXPECT_EQ(abloom_test_packed(f.get(), buf, 19, offsets, 4, results, &found), ABLOOM_ERR_INVALID);
  EXPECT_EQ(found, 99u);
  for (uint8_t r : results) EXPECT_EQ(r, 7);

  // Decrease at the very start.
  const uint64_t offsets2[] = {5, 0, 9};
  EXPECT_EQ(abloom_add_packed(f.get(), buf, 19, offsets2, 2, &added), ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
}

TEST(CapiErrors, PackedOffsetsPastTheBufferAreInvalidAndAddNothing) {
  Filter f = MakeFilter(1000, 1e-6);
  Filter empty = Clone(f.get());
  const char buf[] = "alphabetagammadelta";
  const uint64_t offsets[] = {0, 5, 9, 14, 20};  // offsets[n] = 20 > buf_len = 19
  uint64_t added = 99, found = 99;
  EXPECT_EQ(abloom_add_packed(f.get(), buf, 19, offsets, 4, &added), ABLOOM_ERR_INVALID);
  EXPECT_EQ(added, 99u);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
  EXPECT_EQ(abloom_test(f.get(), "alpha", 5), 0);

  uint8_t results[4] = {7, 7, 7, 7};
  EXPECT_EQ(abloom_test_packed(f.get(), buf, 19, offsets, 4, results, &found), ABLOOM_ERR_INVALID);
  EXPECT_EQ(found, 99u);
  for (uint8_t r : results) EXPECT_EQ(r, 7);

  // Huge offsets must not wrap around into "valid".
  const uint64_t huge[] = {0, UINT64_MAX};
  EXPECT_EQ(abloom_add_packed(f.get(), buf, 19, huge, 1, &added), ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);

  // offsets[n] == buf_len is fine.
  const uint64_t exact[] = {0, 5, 9, 14, 19};
  EXPECT_EQ(abloom_add_packed(f.get(), buf, 19, exact, 4, &added), ABLOOM_OK);
  EXPECT_EQ(added, 4u);
  EXPECT_EQ(abloom_test(f.get(), "delta", 5), 1);
}

// Keys all of one length take a shorter check (capi: offsets[0] + n * length must not wrap
// around or pass the buffer); every way out of it is refused like the general check's.
TEST(CapiErrors, PackedKeysOfOneLengthThatWrapOrOverrunAreInvalidAndAddNothing) {
  Filter f = MakeFilter(1000, 1e-6);
  Filter empty = Clone(f.get());
  const char buf[] = "alphabetagammadelta";
  const uint64_t two63 = uint64_t{1} << 63;
  struct Case {
    const char *what;
    std::vector<uint64_t> offsets;
  };
  const Case cases[] = {
      // Every key 8 bytes apart, but the first offset is 8 short of 2^64: the sum wraps.
      {"wraps past 2^64", {UINT64_MAX - 7, 0, 8}},
      // Every key 2^63 bytes: n * length overflows.
      {"length times count overflows", {0, two63, 0}},
      {"ends past the buffer", {0, 8, 16, 24}},
      {"starts past the buffer", {20, 25, 30}},
      {"one key longer than the buffer", {0, UINT64_MAX}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    const size_t n = c.offsets.size() - 1;
    uint64_t added = 99, found = 99;
    EXPECT_EQ(abloom_add_packed(f.get(), buf, 19, c.offsets.data(), n, &added), ABLOOM_ERR_INVALID);
    EXPECT_EQ(added, 99u);
    std::vector<uint8_t> results(n, 7);
    EXPECT_EQ(abloom_test_packed(f.get(), buf, 19, c.offsets.data(), n, results.data(), &found),
              ABLOOM_ERR_INVALID);
    EXPECT_EQ(found, 99u);
    for (uint8_t r : results) EXPECT_EQ(r, 7);
    EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
  }
  // The same length up to the buffer's last byte is fine.
  const uint64_t exact[] = {3, 7, 11, 15, 19};
  uint64_t added = 0;
  EXPECT_EQ(abloom_add_packed(f.get(), buf, 19, exact, 4, &added), ABLOOM_OK);
  EXPECT_EQ(added, 4u);
  EXPECT_EQ(abloom_test(f.get(), "delt", 4), 0);
  EXPECT_EQ(abloom_test(f.get(), "elta", 4), 1);
}

// ---- Bulk: hashes ----------------------------------------------------------------------------

TEST(CapiErrors, HashesNullArguments) {
  Filter f = MakeFilter();
  Filter empty = Clone(f.get());
  const uint64_t hashes[] = {1, 2, 3};
  uint8_t results[3] = {7, 7, 7};
  uint64_t added = 99, found = 99;
  EXPECT_EQ(abloom_add_hashes(nullptr, hashes, 3, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_add_hashes(f.get(), nullptr, 3, &added), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_hashes(nullptr, hashes, 3, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_hashes(f.get(), nullptr, 3, results, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_hashes(f.get(), hashes, 3, nullptr, &found), ABLOOM_ERR_NULL);
  EXPECT_EQ(added, 99u);
  EXPECT_EQ(found, 99u);
  for (uint8_t r : results) EXPECT_EQ(r, 7);
  EXPECT_EQ(abloom_equal(f.get(), empty.get()), 1);
}

// ---- Set operations --------------------------------------------------------------------------

TEST(CapiErrors, SetOperationsNullArguments) {
  Filter f = MakeFilter();
  EXPECT_EQ(abloom_union(nullptr, f.get()), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_union(f.get(), nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_union(nullptr, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_intersect(nullptr, f.get()), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_intersect(f.get(), nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_intersect(nullptr, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_equal(nullptr, f.get()), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_equal(f.get(), nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_equal(nullptr, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_clear(nullptr), ABLOOM_ERR_NULL);
}

struct ShapeCase {
  const char *what;
  abloom_options other;
};

class CapiShapeMismatch : public ::testing::TestWithParam<int> {};

std::vector<ShapeCase> ShapeCases() {
  return {
      {"kind", ShapeOptions(ABLOOM_KIND_CLASSIC)},
      {"k", ShapeOptions(ABLOOM_KIND_BLOCKED, 5)},
      {"shards", ShapeOptions(ABLOOM_KIND_BLOCKED, 6, 4)},
      {"bits", ShapeOptions(ABLOOM_KIND_BLOCKED, 6, 2, 16 * 512)},
      {"seed", ShapeOptions(ABLOOM_KIND_BLOCKED, 6, 2, 8 * 512, 8)},
  };
}

TEST_P(CapiShapeMismatch, UnionIntersectMismatchAndEqualIsZero) {
  const ShapeCase c = ShapeCases()[GetParam()];
  SCOPED_TRACE(std::string("differs in ") + c.what);
  Filter a = Make(ShapeOptions());
  Filter b = Make(c.other);
  // Same keys in both, so only the shape differs.
  for (int i = 0; i < 50; ++i) {
    std::string key = "key-" + std::to_string(i);
    ASSERT_EQ(abloom_add(a.get(), key.data(), key.size()), ABLOOM_OK);
    ASSERT_EQ(abloom_add(b.get(), key.data(), key.size()), ABLOOM_OK);
  }
  Filter a0 = Clone(a.get());
  Filter b0 = Clone(b.get());

  EXPECT_EQ(abloom_union(a.get(), b.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_union(b.get(), a.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_intersect(a.get(), b.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_intersect(b.get(), a.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 0);
  EXPECT_EQ(abloom_equal(b.get(), a.get()), 0);

  // Failed operations change nothing.
  EXPECT_EQ(abloom_equal(a.get(), a0.get()), 1);
  EXPECT_EQ(abloom_equal(b.get(), b0.get()), 1);

  // Sanity: the same shape combines.
  Filter a2 = Make(ShapeOptions());
  EXPECT_EQ(abloom_union(a2.get(), a.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(a2.get(), a.get()), 1);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CapiShapeMismatch, ::testing::Range(0, 5),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string(ShapeCases()[info.param].what);
                         });

TEST(CapiErrors, CapacityAndTargetFprAreNotPartOfTheShape) {
  abloom_options o1 = ShapeOptions();
  abloom_options o2 = ShapeOptions();
  o2.capacity = 5000;
  o2.fpr = 0.2;
  Filter a = Make(o1);
  Filter b = Make(o2);
  EXPECT_EQ(abloom_equal(a.get(), b.get()), 1);
  EXPECT_EQ(abloom_union(a.get(), b.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_intersect(a.get(), b.get()), ABLOOM_OK);
}

// ---- Introspection ---------------------------------------------------------------------------

TEST(CapiErrors, GetInfoNullArguments) {
  Filter f = MakeFilter();
  abloom_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(abloom_get_info(nullptr, &info), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_get_info(f.get(), nullptr), ABLOOM_ERR_NULL);
}

// The initialisers zero the struct and set struct_size, so a plan or info is one call from use.
TEST(CapiErrors, PlanAndInfoInitialisers) {
  EXPECT_EQ(abloom_plan_init(nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_info_init(nullptr), ABLOOM_ERR_NULL);
  abloom_plan plan;
  std::memset(&plan, 0x5A, sizeof plan);
  ASSERT_EQ(abloom_plan_init(&plan), ABLOOM_OK);
  EXPECT_EQ(plan.struct_size, sizeof plan);
  EXPECT_EQ(plan.k, 0u);
  EXPECT_EQ(plan.bits, 0u);
  abloom_options o = Options(1000);
  ASSERT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_OK);
  EXPECT_GT(plan.bits, 0u);

  Filter f = MakeFilter();
  abloom_info info;
  std::memset(&info, 0x5A, sizeof info);
  ASSERT_EQ(abloom_info_init(&info), ABLOOM_OK);
  EXPECT_EQ(info.struct_size, sizeof info);
  EXPECT_EQ(info.bits, 0u);
  ASSERT_EQ(abloom_get_info(f.get(), &info), ABLOOM_OK);
  EXPECT_GT(info.bits, 0u);
}

TEST(CapiErrors, GetInfoStructSizeWrong) {
  Filter f = MakeFilter();
  for (size_t size : {size_t{0}, size_t{1}, sizeof(size_t), sizeof(abloom_info) - 1,
                      sizeof(abloom_info) + 1, sizeof(abloom_info) + 8, SIZE_MAX}) {
    abloom_info info;
    std::memset(&info, 0x5A, sizeof info);
    info.struct_size = size;
    abloom_info before = info;
    EXPECT_EQ(abloom_get_info(f.get(), &info), ABLOOM_ERR_INVALID) << "struct_size " << size;
    EXPECT_EQ(std::memcmp(&info, &before, sizeof info), 0) << "struct_size " << size;
  }
}

TEST(CapiErrors, EstimatesNullArguments) {
  Filter f = MakeFilter();
  double d = 42.0;
  EXPECT_EQ(abloom_estimate_count(nullptr, &d), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_estimate_count(f.get(), nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_estimate_fpr(nullptr, &d), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_estimate_fpr(f.get(), nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(d, 42.0);
}

// Allocation failure: the largest legal filter (ABLOOM_MAX_BYTES, 256 TiB) cannot be mapped (it
// exceeds the 128 TiB user address space of x86-64), so creation must fail cleanly with
// ABLOOM_ERR_NOMEM, leave *out untouched and leak nothing (LeakSanitizer checks the shards
// allocated before the failing one, in the sharded case).
TEST(CapiAllocation, HugeFilterIsNomemNotACrash) {
  for (uint32_t shards : {1u, 64u}) {
    abloom_options o;
    ASSERT_EQ(abloom_options_init(&o), ABLOOM_OK);
    o.capacity = 1000;
    o.bits = ABLOOM_MAX_BYTES * 8;
    o.shards = shards;
    abloom_plan plan;
    plan.struct_size = sizeof plan;
    ASSERT_EQ(abloom_plan_compute(&o, &plan), ABLOOM_OK);  // legal: only the allocation fails
    EXPECT_EQ(plan.bytes, ABLOOM_MAX_BYTES);
    abloom_filter *sentinel = reinterpret_cast<abloom_filter *>(0x1);
    abloom_filter *f = sentinel;
    EXPECT_EQ(abloom_create(&o, &f), ABLOOM_ERR_NOMEM) << "shards " << shards;
    EXPECT_EQ(f, sentinel);
  }
}
