// The sizing model's doubles are stored in files (docs/FORMAT.md: the expected FPR at offset 88)
// and its comparisons pick the plan (blocks, k): the same request must give the same bits on every
// machine, compiler and libm. These are the exact 64-bit patterns of fpr_model over a grid of
// kinds, layouts, bits per key and k, and of make_plan for a few requests. The model calls no libm
// function (core/model/ddmath.hpp), so the table holds with every compiler and C library: CI checks
// it with GCC and glibc on x86-64 and on aarch64 under qemu (scripts/cross-test.sh), and with zig's
// clang and musl (scripts/platform-builds.sh).
//
// To regenerate after an intended change of the model (a format-visible change of the stored
// expected FPR: say so in docs/FORMAT.md), run:
//   ABLOOM_PRINT_MODEL_BITS=1 build/ci/tests/abloom_core_tests --gtest_filter='ModelBits.*'
// and paste the printed rows over the tables below.
#include <gtest/gtest.h>

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "model/sizing.hpp"

namespace abloom {
namespace {

bool printing() { return std::getenv("ABLOOM_PRINT_MODEL_BITS") != nullptr; }

struct ModelBits {
  Kind kind;
  Layout layout;
  double c;
  uint32_t k;
  uint64_t bits;
};

constexpr Kind B = Kind::blocked;
constexpr Kind C = Kind::classic;
constexpr Layout D = Layout::distinct;
constexpr Layout S = Layout::split;

// clang-format off
constexpr ModelBits kModel[] = {
    {C, D, 0x1.89374bc6a7efap-9, 1, 0x3ff0000000000000},
    {C, D, 0x1.89374bc6a7efap-9, 3, 0x3ff0000000000000},
    {C, D, 0x1.89374bc6a7efap-9, 7, 0x3ff0000000000000},
    {C, D, 0x1.89374bc6a7efap-9, 10, 0x3ff0000000000000},
    {C, D, 0x1.89374bc6a7efap-9, 17, 0x3ff0000000000000},
    {C, D, 0x1.89374bc6a7efap-9, 30, 0x3ff0000000000000},
    {B, D, 0x1.89374bc6a7efap-9, 1, 0x3ff0000000000000},
    {B, D, 0x1.89374bc6a7efap-9, 3, 0x3ff0000000000000},
    {B, D, 0x1.89374bc6a7efap-9, 7, 0x3ff0000000000000},
    {B, D, 0x1.89374bc6a7efap-9, 12, 0x3ff0000000000000},
    {B, D, 0x1.89374bc6a7efap-9, 20, 0x3ff0000000000000},
    {C, D, 0x1.8p+0, 1, 0x3fdf242c86231a43},
    {C, D, 0x1.8p+0, 3, 0x3fe4afd1bc826889},
    {C, D, 0x1.8p+0, 7, 0x3fedf3bcfa4b7583},
    {C, D, 0x1.8p+0, 10, 0x3fef985742f5886d},
    {C, D, 0x1.8p+0, 17, 0x3feffe5563505381},
    {C, D, 0x1.8p+0, 30, 0x3fefffffdecd842f},
    {B, D, 0x1.8p+0, 1, 0x3fdf242c862310e1},
    {B, D, 0x1.8p+0, 3, 0x3fe4aab1dfba96dd},
    {B, D, 0x1.8p+0, 7, 0x3fede6aa1e179596},
    {B, D, 0x1.8p+0, 12, 0x3fefdc2b8087aeb3},
    {B, D, 0x1.8p+0, 20, 0x3fefffa9412aca84},
    {C, D, 0x1.3333333333333p+2, 1, 0x3fc81278456cb572},
    {C, D, 0x1.3333333333333p+2, 3, 0x3fb9b22f5fcf1254},
    {C, D, 0x1.3333333333333p+2, 7, 0x3fc40ea02341eecf},
    {C, D, 0x1.3333333333333p+2, 10, 0x3fd0ee3502f2fe73},
    {C, D, 0x1.3333333333333p+2, 17, 0x3fe36a4d9cd170cc},
    {C, D, 0x1.3333333333333p+2, 30, 0x3fee329d8b60f4a6},
    {B, D, 0x1.3333333333333p+2, 1, 0x3fc81278456cb824},
    {B, D, 0x1.3333333333333p+2, 3, 0x3fb9f60f49b513c4},
    {B, D, 0x1.3333333333333p+2, 7, 0x3fc4756a7c9f697a},
    {B, D, 0x1.3333333333333p+2, 12, 0x3fd6f3c554a395ed},
    {B, D, 0x1.3333333333333p+2, 20, 0x3fe70984ec2b5476},
    {C, D, 0x1.3333333333333p+3, 1, 0x3fb9532451aff3d8},
    {C, D, 0x1.3333333333333p+3, 3, 0x3f93cbb542bf1038},
    {C, D, 0x1.3333333333333p+3, 7, 0x3f84689c665fbdbb},
    {C, D, 0x1.3333333333333p+3, 10, 0x3f8a613aeb0b42f0},
    {C, D, 0x1.3333333333333p+3, 17, 0x3fa57925c804a09a},
    {C, D, 0x1.3333333333333p+3, 30, 0x3fd0a02486b73d65},
    {B, D, 0x1.3333333333333p+3, 1, 0x3fb9532451aff354},
    {B, D, 0x1.3333333333333p+3, 3, 0x3f9480b10e49ab76},
    {B, D, 0x1.3333333333333p+3, 7, 0x3f878e14f5aa8914},
    {B, D, 0x1.3333333333333p+3, 12, 0x3f962eda2cb0cc15},
    {B, D, 0x1.3333333333333p+3, 20, 0x3fb54a5116786b21},
    {C, D, 0x1.ccccccccccccdp+3, 1, 0x3fb12cae8817073f},
    {C, D, 0x1.ccccccccccccdp+3, 3, 0x3f7b3e85ef6edb22},
    {C, D, 0x1.ccccccccccccdp+3, 7, 0x3f54897e10a8cd2a},
    {C, D, 0x1.ccccccccccccdp+3, 10, 0x3f5035698f20c918},
    {C, D, 0x1.ccccccccccccdp+3, 17, 0x3f600581a9bc5779},
    {C, D, 0x1.ccccccccccccdp+3, 30, 0x3f92f4fc84fa9f01},
    {B, D, 0x1.ccccccccccccdp+3, 1, 0x3fb12cae88170777},
    {B, D, 0x1.ccccccccccccdp+3, 3, 0x3f7cf56cc7e0a408},
    {B, D, 0x1.ccccccccccccdp+3, 7, 0x3f5b827e9416b658},
    {B, D, 0x1.ccccccccccccdp+3, 12, 0x3f5ec2329e4429e1},
    {B, D, 0x1.ccccccccccccdp+3, 20, 0x3f7b611b0ad4da1e},
    {C, D, 0x1.7e66666666666p+4, 1, 0x3fa4fb092905962f},
    {C, D, 0x1.7e66666666666p+4, 3, 0x3f5ae529e85ea2d6},
    {C, D, 0x1.7e66666666666p+4, 7, 0x3f11d3f5e0f2391a},
    {C, D, 0x1.7e66666666666p+4, 10, 0x3ef6e46a23780d7b},
    {C, D, 0x1.7e66666666666p+4, 17, 0x3ee5a9e5f239207a},
    {C, D, 0x1.7e66666666666p+4, 30, 0x3f0650364158ff09},
    {B, D, 0x1.7e66666666666p+4, 1, 0x3fa4fb0929059631},
    {B, D, 0x1.7e66666666666p+4, 3, 0x3f5e144f9611567a},
    {B, D, 0x1.7e66666666666p+4, 7, 0x3f200ce4a93e82df},
    {B, D, 0x1.7e66666666666p+4, 12, 0x3f0bb1dd7243833c},
    {B, D, 0x1.7e66666666666p+4, 20, 0x3f1b7d198fc15188},
    {C, D, 0x1.28p+5, 1, 0x3f9b4e163b968bec},
    {C, D, 0x1.28p+5, 3, 0x3f3ef54d05c2cb28},
    {C, D, 0x1.28p+5, 7, 0x3ed2f65f913e0a05},
    {C, D, 0x1.28p+5, 10, 0x3ea29f953f60c53e},
    {C, D, 0x1.28p+5, 17, 0x3e66bd9b8b2728e8},
    {C, D, 0x1.28p+5, 30, 0x3e5785b642f5cea6},
    {B, D, 0x1.28p+5, 1, 0x3f9b4e163b968be8},
    {B, D, 0x1.28p+5, 3, 0x3f4285d8e3770540},
    {B, D, 0x1.28p+5, 7, 0x3ee8ec2695652d33},
    {B, D, 0x1.28p+5, 12, 0x3ec0601e4ee6269b},
    {B, D, 0x1.28p+5, 20, 0x3ebd297bfc803ee8},
    {B, S, 0x1.8p+2, 1, 0x3fc3a67ca177713e},
    {B, S, 0x1.8p+2, 5, 0x3fb0295a362f6ee5},
    {B, S, 0x1.8p+2, 9, 0x3fbcb44ad881ad35},
    {B, S, 0x1.8p+2, 12, 0x3fc8052f30417c5d},
    {B, S, 0x1.8p+2, 13, 0x3fcc2aa4e4546473},
    {B, S, 0x1.8p+2, 14, 0x3fd059c29918304e},
    {B, S, 0x1.8p+2, 15, 0x3fd2c77cc1c8030f},
    {B, S, 0x1.8p+2, 16, 0x3fd554f69d1a4793},
    {B, S, 0x1.4p+3, 1, 0x3fb85c933156a62c},
    {B, S, 0x1.4p+3, 5, 0x3f87bc1de25ef275},
    {B, S, 0x1.4p+3, 9, 0x3f8892672ad8d5ed},
    {B, S, 0x1.4p+3, 12, 0x3f92d85b0b44fdcd},
    {B, S, 0x1.4p+3, 13, 0x3f9673069239ce66},
    {B, S, 0x1.4p+3, 14, 0x3f9ae68089496920},
    {B, S, 0x1.4p+3, 15, 0x3fa02521e0ebfc97},
    {B, S, 0x1.4p+3, 16, 0x3fa35aed37a1f863},
    {B, S, 0x1.08p+4, 1, 0x3fae1bd3eff0e069},
    {B, S, 0x1.08p+4, 5, 0x3f5dd0cedd7e4a88},
    {B, S, 0x1.08p+4, 9, 0x3f49432c8afeffe9},
    {B, S, 0x1.08p+4, 12, 0x3f4a920b470dfca0},
    {B, S, 0x1.08p+4, 13, 0x3f4d6e098b537e34},
    {B, S, 0x1.08p+4, 14, 0x3f50bda156250540},
    {B, S, 0x1.08p+4, 15, 0x3f536ae82b182c43},
    {B, S, 0x1.08p+4, 16, 0x3f56d416d101beec},
    {B, S, 0x1.8p+4, 1, 0x3fa4e51e9618b51c},
    {B, S, 0x1.8p+4, 5, 0x3f3c579bf68a601b},
    {B, S, 0x1.8p+4, 9, 0x3f152a76fd9d5c42},
    {B, S, 0x1.8p+4, 12, 0x3f0d34c6d3503c84},
    {B, S, 0x1.8p+4, 13, 0x3f0d48e775a48c41},
    {B, S, 0x1.8p+4, 14, 0x3f0eab3a1c30fd54},
    {B, S, 0x1.8p+4, 15, 0x3f109b1103317844},
    {B, S, 0x1.8p+4, 16, 0x3f12719159e6b90e},
    {B, S, 0x1.08p+5, 1, 0x3f9e909aadd4bc8d},
    {B, S, 0x1.08p+5, 5, 0x3f20b051afccd218},
    {B, S, 0x1.08p+5, 9, 0x3ee7824dd13b0aad},
    {B, S, 0x1.08p+5, 12, 0x3ed55f82a03d49b3},
    {B, S, 0x1.08p+5, 13, 0x3ed34f739349d9e4},
    {B, S, 0x1.08p+5, 14, 0x3ed27c8949c29aab},
    {B, S, 0x1.08p+5, 15, 0x3ed28567f6526b87},
    {B, S, 0x1.08p+5, 16, 0x3ed3388260ee4773},
    {B, S, 0x1.699999999999ap+5, 1, 0x3f9667f60e7943cd},
    {B, S, 0x1.699999999999ap+5, 5, 0x3f0453b72c355e0b},
    {B, S, 0x1.699999999999ap+5, 9, 0x3ebaae1e134818e8},
    {B, S, 0x1.699999999999ap+5, 12, 0x3e9f28fa052f15f5},
    {B, S, 0x1.699999999999ap+5, 13, 0x3e9922844e1e74ac},
    {B, S, 0x1.699999999999ap+5, 14, 0x3e95ca88a96204f3},
    {B, S, 0x1.699999999999ap+5, 15, 0x3e9400de6dbdcda1},
    {B, S, 0x1.699999999999ap+5, 16, 0x3e9332fbd15213fb},
    {B, S, 0x1.ep+5, 1, 0x3f90ecdbf52574e1},
    {B, S, 0x1.ep+5, 5, 0x3eecac7daf47eb7d},
    {B, S, 0x1.ep+5, 9, 0x3e92e7b34ce9da15},
    {B, S, 0x1.ep+5, 12, 0x3e6d4749792fb12c},
    {B, S, 0x1.ep+5, 13, 0x3e653a1a89d85df8},
    {B, S, 0x1.ep+5, 14, 0x3e60c0fa3f516d66},
    {B, S, 0x1.ep+5, 15, 0x3e5c4aae72515fa6},
    {B, S, 0x1.ep+5, 16, 0x3e592d4b96e20bae},
};
// clang-format on

std::vector<ModelBits> model_grid() {
  std::vector<ModelBits> grid;
  for (double c : {0.003, 1.5, 4.8, 9.6, 14.4, 23.9, 37.0}) {
    for (uint32_t k : {1u, 3u, 7u, 10u, 17u, 30u}) grid.push_back({C, D, c, k, 0});
    for (uint32_t k : {1u, 3u, 7u, 12u, 20u}) grid.push_back({B, D, c, k, 0});
  }
  for (double c : {6.0, 10.0, 16.5, 24.0, 33.0, 45.2, 60.0}) {
    for (uint32_t k : {1u, 5u, 9u, 12u, 13u, 14u, 15u, 16u}) grid.push_back({B, S, c, k, 0});
  }
  return grid;
}

const char* kind_letter(Kind kind) { return kind == B ? "B" : "C"; }
const char* layout_letter(Layout layout) { return layout == S ? "S" : "D"; }

TEST(ModelBits, FprModelIsTheSameDoubleEverywhere) {
  const std::vector<ModelBits> grid = model_grid();
  if (printing()) {
    for (const ModelBits& m : grid) {
      std::printf("    {%s, %s, %a, %" PRIu32 ", 0x%016" PRIx64 "},\n", kind_letter(m.kind),
                  layout_letter(m.layout), m.c, m.k,
                  std::bit_cast<uint64_t>(fpr_model(m.kind, m.layout, m.c, m.k)));
    }
  }
  ASSERT_EQ(grid.size(), std::size(kModel)) << "the table is the grid's";
  for (size_t i = 0; i < grid.size(); ++i) {
    const ModelBits& want = kModel[i];
    ASSERT_EQ(grid[i].kind, want.kind);
    ASSERT_EQ(grid[i].layout, want.layout);
    ASSERT_EQ(std::bit_cast<uint64_t>(grid[i].c), std::bit_cast<uint64_t>(want.c));
    ASSERT_EQ(grid[i].k, want.k);
    const double got = fpr_model(want.kind, want.layout, want.c, want.k);
    EXPECT_EQ(std::bit_cast<uint64_t>(got), want.bits)
        << kind_letter(want.kind) << layout_letter(want.layout) << " c " << want.c << " k "
        << want.k << ": got " << got << ", want " << std::bit_cast<double>(want.bits);
  }
}

struct PlanBits {
  Kind kind;
  Layout layout;
  uint64_t capacity;
  double fpr;
  uint32_t shards;
  uint32_t k_asked;
  uint64_t blocks_per_shard;
  uint32_t k;
  uint32_t shard_bits;
  uint64_t expected_fpr;
};

// clang-format off
constexpr PlanBits kPlans[] = {
    {B, D, 450, 0x1.47ae147ae147bp-7, 1, 0, 9, 7, 0, 0x3f8198d1a75edcfa},
    {B, D, 450, 0x1.47ae147ae147bp-7, 4, 0, 3, 8, 2, 0x3f60edbc82378269},
    {C, D, 450, 0x1.47ae147ae147bp-7, 1, 0, 9, 7, 0, 0x3f7de924c057220c},
    {B, S, 450, 0x1.47ae147ae147bp-7, 4, 0, 3, 9, 2, 0x3f62b32a25429bcc},
    {B, D, 1000000, 0x1.0624dd2f1a9fcp-10, 0, 0, 30251, 9, 0, 0x3f5062074adddac2},
    {C, D, 1000000, 0x1.a36e2eb1c432dp-14, 0, 0, 37448, 13, 0, 0x3f1a358bfe7e2b3d},
    {B, S, 1000000, 0x1.47ae147ae147bp-7, 0, 0, 19772, 7, 0, 0x3f847a5b7e4d6bf1},
    {B, S, 123457, 0x1.4f8b588e368f1p-17, 4, 0, 1801, 14, 2, 0x3ee4eb23d16046b1},
    {B, S, 1000000, 0x1.0c6f7a0b5ed8dp-20, 0, 0, 76636, 16, 0, 0x3eb0c6f5790deb83},
    {B, S, 10000000, 0x1.ad7f29abcaf48p-24, 0, 0, 248535, 16, 2, 0x3e7ad7cdbe2e2ecc},
    {B, S, 77777, 0x1.92a737110e454p-19, 2, 13, 2646, 13, 1, 0x3ec91ad0213ccfac},
    {B, S, 77777, 0x1.92a737110e454p-19, 2, 15, 2623, 15, 1, 0x3ec92695ddb26030},
    {B, D, 100000000, 0x1.12e0be826d695p-30, 0, 0, 241391, 22, 6, 0x3e112e0b9978d37c},
    {C, D, 5000, 0x1.999999999999ap-3, 1, 3, 34, 3, 0, 0x3fc8a898053109b7},
    {B, S, 1000000, 0x1.ad7f29abcaf48p-25, 1, 16, 107530, 16, 0, 0x3e6ad7bdf213541b},
    {B, D, 31415, 0x1.a36e2eb1c432dp-13, 8, 11, 153, 11, 3, 0x3f298b72284f5977},
};
// clang-format on

struct PlanRequest {
  Kind kind;
  Layout layout;
  uint64_t capacity;
  double fpr;
  uint32_t shards;
  uint32_t k;
};
constexpr PlanRequest kRequests[] = {
    {B, D, 450, 0.01, 1, 0},         {B, D, 450, 0.01, 4, 0},       {C, D, 450, 0.01, 1, 0},
    {B, S, 450, 0.01, 4, 0},         {B, D, 1'000'000, 1e-3, 0, 0}, {C, D, 1'000'000, 1e-4, 0, 0},
    {B, S, 1'000'000, 1e-2, 0, 0},   {B, S, 123'457, 1e-5, 4, 0},   {B, S, 1'000'000, 1e-6, 0, 0},
    {B, S, 10'000'000, 1e-7, 0, 0},  {B, S, 77'777, 3e-6, 2, 13},   {B, S, 77'777, 3e-6, 2, 15},
    {B, D, 100'000'000, 1e-9, 0, 0}, {C, D, 5'000, 0.2, 1, 3},      {B, S, 1'000'000, 5e-8, 1, 16},
    {B, D, 31'415, 2e-4, 8, 11},
};

TEST(ModelBits, PlansAreTheSameEverywhere) {
  if (printing()) {
    for (const PlanRequest& r : kRequests) {
      SizingRequest req;
      req.kind = r.kind;
      req.layout = r.layout;
      req.capacity = r.capacity;
      req.fpr = r.fpr;
      req.shards = r.shards;
      req.k = r.k;
      Plan p;
      ASSERT_EQ(make_plan(req, &p), Errc::ok);
      std::printf("    {%s, %s, %" PRIu64 ", %a, %" PRIu32 ", %" PRIu32 ", %" PRIu64 ", %" PRIu32
                  ", %" PRIu32 ", 0x%016" PRIx64 "},\n",
                  kind_letter(r.kind), layout_letter(r.layout), r.capacity, r.fpr, r.shards, r.k,
                  p.blocks_per_shard, p.k, p.shard_bits, std::bit_cast<uint64_t>(p.expected_fpr));
    }
  }
  ASSERT_EQ(std::size(kRequests), std::size(kPlans)) << "the table is the requests'";
  for (const PlanBits& want : kPlans) {
    SizingRequest req;
    req.kind = want.kind;
    req.layout = want.layout;
    req.capacity = want.capacity;
    req.fpr = want.fpr;
    req.shards = want.shards;
    req.k = want.k_asked;
    Plan p;
    ASSERT_EQ(make_plan(req, &p), Errc::ok);
    // ::testing, GoogleTest's: inside namespace abloom a bare testing:: would find abloom::testing
    // (test_keys.hpp) where a unity batch has declared it before this file.
    SCOPED_TRACE(::testing::Message() << kind_letter(want.kind) << layout_letter(want.layout)
                                      << " capacity " << want.capacity << " fpr " << want.fpr);
    EXPECT_EQ(p.blocks_per_shard, want.blocks_per_shard);
    EXPECT_EQ(p.k, want.k);
    EXPECT_EQ(p.shard_bits, want.shard_bits);
    EXPECT_EQ(std::bit_cast<uint64_t>(p.expected_fpr), want.expected_fpr)
        << p.expected_fpr << " against " << std::bit_cast<double>(want.expected_fpr);
  }
}

}  // namespace
}  // namespace abloom
