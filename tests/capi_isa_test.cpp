// The instruction-set controls of the C API: abloom_isa_* report and force the kernel, and a
// filter built under any kernel is byte-for-byte the same file, with the same answers.
#include <abloom.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "capi_test_support.hpp"

namespace {

using capi_test::Filter;
using capi_test::IsaRestore;
using capi_test::Make;
using capi_test::Options;

TEST(CapiIsa, ReportsAndForces) {
  IsaRestore restore;
  const uint32_t best = abloom_isa_supported();
  const std::vector<uint32_t> runnable = capi_test::RunnableIsas();
  ASSERT_FALSE(runnable.empty());
  EXPECT_EQ(runnable.front(), ABLOOM_ISA_SCALAR);
  EXPECT_EQ(runnable.back(), best) << "the best is the widest set the CPU runs";
  EXPECT_EQ(abloom_get_isa(), best) << "nothing forced yet: the best runs";
  EXPECT_EQ(abloom_set_isa(ABLOOM_ISA_SCALAR), ABLOOM_OK);
  EXPECT_EQ(abloom_get_isa(), ABLOOM_ISA_SCALAR);
  EXPECT_EQ(abloom_set_isa(best), ABLOOM_OK);
  EXPECT_EQ(abloom_get_isa(), best);
  EXPECT_EQ(abloom_set_isa(ABLOOM_ISA_NEON + 1), ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_set_isa(7), ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_set_isa(UINT32_MAX), ABLOOM_ERR_INVALID);
  // Each architecture runs its own sets only.
#if defined(__aarch64__)
  EXPECT_EQ(best, ABLOOM_ISA_NEON) << "every aarch64 CPU has NEON";
  EXPECT_EQ(runnable, (std::vector<uint32_t>{ABLOOM_ISA_SCALAR, ABLOOM_ISA_NEON}));
  const std::vector<uint32_t> refused = {ABLOOM_ISA_AVX2, ABLOOM_ISA_AVX512};
#elif defined(__x86_64__)
  std::vector<uint32_t> refused = {ABLOOM_ISA_NEON};
  for (uint32_t isa = best + 1; isa <= ABLOOM_ISA_AVX512; ++isa) refused.push_back(isa);
  if (best != ABLOOM_ISA_AVX512) {
    std::cout << "[ SKIPPED  ] forcing the kernels above " << abloom_isa_name(best)
              << ": this CPU lacks them (they answer ABLOOM_ERR_UNSUPPORTED, checked)\n";
  }
#else
  const std::vector<uint32_t> refused = {ABLOOM_ISA_AVX2, ABLOOM_ISA_AVX512, ABLOOM_ISA_NEON};
#endif
  for (uint32_t isa : refused) {
    EXPECT_EQ(abloom_set_isa(isa), ABLOOM_ERR_UNSUPPORTED) << abloom_isa_name(isa);
    EXPECT_EQ(std::count(runnable.begin(), runnable.end(), isa), 0) << abloom_isa_name(isa);
  }
  EXPECT_EQ(runnable.size() + refused.size(), 4u) << "every ABLOOM_ISA_* is one or the other";
  EXPECT_EQ(abloom_get_isa(), best) << "refused forces change nothing";
  EXPECT_STREQ(abloom_isa_name(ABLOOM_ISA_SCALAR), "scalar");
  EXPECT_STREQ(abloom_isa_name(ABLOOM_ISA_AVX2), "avx2");
  EXPECT_STREQ(abloom_isa_name(ABLOOM_ISA_AVX512), "avx512");
  EXPECT_STREQ(abloom_isa_name(ABLOOM_ISA_NEON), "neon");
  EXPECT_STREQ(abloom_isa_name(ABLOOM_ISA_NEON + 1), "unknown");
}

// The serialized bytes of a blocked filter built through every C entry point.
std::vector<unsigned char> build_and_serialize(uint32_t isa, double fpr, uint32_t shards,
                                               const std::vector<std::string> &keys,
                                               const std::vector<std::string> &absent,
                                               std::vector<uint8_t> *answers) {
  EXPECT_EQ(abloom_set_isa(isa), ABLOOM_OK);
  Filter f = Make(Options(keys.size(), fpr, ABLOOM_KIND_BLOCKED, shards, 0x5EED));
  const size_t half = keys.size() / 2;
  for (size_t i = 0; i < half; ++i) {
    EXPECT_EQ(abloom_add(f.get(), keys[i].data(), keys[i].size()), ABLOOM_OK);
  }
  std::vector<const void *> ptrs;
  std::vector<size_t> lens;
  for (size_t i = half; i < keys.size(); ++i) {
    ptrs.push_back(keys[i].data());
    lens.push_back(keys[i].size());
  }
  uint64_t added = 0;
  EXPECT_EQ(abloom_add_many(f.get(), ptrs.data(), lens.data(), ptrs.size(), &added), ABLOOM_OK);
  ptrs.clear();
  lens.clear();
  for (const auto &k : absent) {
    ptrs.push_back(k.data());
    lens.push_back(k.size());
  }
  answers->assign(absent.size(), 0);
  uint64_t found = 0;
  EXPECT_EQ(
      abloom_test_many(f.get(), ptrs.data(), lens.data(), ptrs.size(), answers->data(), &found),
      ABLOOM_OK);
  for (size_t i = 0; i < absent.size(); i += 13) {
    EXPECT_EQ(abloom_test(f.get(), absent[i].data(), absent[i].size()), (*answers)[i]);
  }
  uint64_t size = 0;
  EXPECT_EQ(abloom_serialized_size(f.get(), &size), ABLOOM_OK);
  std::vector<unsigned char> bytes(size);
  uint64_t written = 0;
  EXPECT_EQ(abloom_serialize(f.get(), bytes.data(), bytes.size(), &written), ABLOOM_OK);
  return bytes;
}

TEST(CapiIsa, EveryKernelWritesTheSameFileAndAnswers) {
  IsaRestore restore;
  const std::vector<uint32_t> runnable = capi_test::RunnableIsas();
  if (runnable.size() == 1) {
    // (ReportsAndForces fails where an architecture's vector kernel should run and does not.)
    GTEST_SKIP() << "this CPU runs only the scalar kernel (no AVX2, not aarch64): nothing to "
                    "compare";
  }
  std::vector<std::string> keys, absent;
  for (int i = 0; i < 30000; ++i) keys.push_back("key-" + std::to_string(i * 7919));
  for (int i = 0; i < 60000; ++i) absent.push_back("absent/" + std::to_string(i));
  if (runnable.back() == ABLOOM_ISA_AVX2) {
    std::cout << "[ SKIPPED  ] avx512: this CPU lacks it\n";
  }
  // k = 6, 9, 14, 18, 29 (one, two, two, three and four groups of 8 candidates in the AVX2
  // kernel; the AVX-512 one takes 16 at once; NEON 8 or 16, and the scalar path above 16), 1 and
  // 4 shards. (k above 32, the vector kernels'
  // scalar fallback, needs an explicit k: core_isa_test covers it.)
  for (double fpr : {0.01, 0.001, 0.00001, 1e-7, 1e-13}) {
    for (uint32_t shards : {1u, 4u}) {
      std::vector<uint8_t> ref_answers, answers;
      const auto ref =
          build_and_serialize(ABLOOM_ISA_SCALAR, fpr, shards, keys, absent, &ref_answers);
      for (uint32_t isa : runnable) {
        if (isa == ABLOOM_ISA_SCALAR) continue;
        const auto got = build_and_serialize(isa, fpr, shards, keys, absent, &answers);
        EXPECT_EQ(got, ref) << abloom_isa_name(isa) << " fpr=" << fpr << " shards=" << shards;
        EXPECT_EQ(answers, ref_answers) << abloom_isa_name(isa) << " fpr=" << fpr;
      }
    }
  }
}

// The estimates count set bits with the active kernel's population count: under every kernel
// they are the same doubles, for each kind and layout, empty, filled to a third of capacity and
// to twice it.
TEST(CapiIsa, EveryKernelGivesTheSameEstimates) {
  IsaRestore restore;
  const std::vector<uint32_t> runnable = capi_test::RunnableIsas();
  struct Case {
    uint32_t kind, layout, shards;
  };
  for (const Case c : {Case{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 1},
                       Case{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 4},
                       Case{ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT, 2}}) {
    abloom_options o = Options(20000, 0.01, c.kind, c.shards, 0x5EED);
    o.layout = c.layout;
    Filter f = Make(o);
    uint64_t next = 0;
    for (uint64_t fill : {uint64_t{0}, uint64_t{6667}, uint64_t{40000}}) {
      for (; next < fill; ++next) {
        ASSERT_EQ(abloom_add(f.get(), &next, sizeof next), ABLOOM_OK);
      }
      double ref_count = -1, ref_fpr = -1;
      ASSERT_EQ(abloom_set_isa(ABLOOM_ISA_SCALAR), ABLOOM_OK);
      ASSERT_EQ(abloom_estimate_count(f.get(), &ref_count), ABLOOM_OK);
      ASSERT_EQ(abloom_estimate_fpr(f.get(), &ref_fpr), ABLOOM_OK);
      if (fill == 0) {
        EXPECT_EQ(ref_count, 0.0);
        EXPECT_EQ(ref_fpr, 0.0);
      } else {
        EXPECT_NEAR(ref_count, static_cast<double>(fill), 0.05 * static_cast<double>(fill));
        EXPECT_GT(ref_fpr, 0.0);
      }
      for (uint32_t isa : runnable) {
        double count = -1, fpr = -1;
        ASSERT_EQ(abloom_set_isa(isa), ABLOOM_OK);
        ASSERT_EQ(abloom_estimate_count(f.get(), &count), ABLOOM_OK);
        ASSERT_EQ(abloom_estimate_fpr(f.get(), &fpr), ABLOOM_OK);
        EXPECT_EQ(count, ref_count) << abloom_isa_name(isa) << " kind " << c.kind << " layout "
                                    << c.layout << " keys " << fill;
        EXPECT_EQ(fpr, ref_fpr) << abloom_isa_name(isa) << " kind " << c.kind << " layout "
                                << c.layout << " keys " << fill;
      }
    }
  }
}

}  // namespace
