// No writer produces bytes its own readers refuse (issue 13): every filter abloom_create accepts,
// over a generated grid of options (both kinds and layouts, tiny to huge capacities, explicit
// bits and k at their extremes, every shard count, targets down to 1e-9), round-trips through
// abloom_serialize / abloom_deserialize, abloom_view and abloom_save / abloom_open in every mode,
// byte-identical, with the same description. Options abloom_create refuses must be refused by
// abloom_plan_compute with the same code (and the code must be a documented one).

#include <abloom.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "aligned_memory.hpp"
#include "capi_test_support.hpp"

namespace {

using capi_test::ExpectSameInfo;
using capi_test::Filter;
using capi_test::InfoOf;
using capi_test::LoadInto;
using capi_test::Serialize;
using capi_test::TempDir;

// Filters above this many bytes of bits are planned, not built (the grid's huge corners).
constexpr uint64_t kMaxBuiltBytes = uint64_t{1} << 20;

struct GridPoint {
  uint32_t kind, layout, shards, k;
  uint64_t capacity, bits;
  double fpr;
  uint64_t seed;
  std::string Name() const {
    return std::string(capi_test::KindName(kind)) + " layout " + std::to_string(layout) +
           " capacity " + std::to_string(capacity) + " bits " + std::to_string(bits) + " k " +
           std::to_string(k) + " shards " + std::to_string(shards) + " fpr " + std::to_string(fpr) +
           " seed " + std::to_string(seed);
  }
};

std::vector<GridPoint> Grid() {
  std::vector<GridPoint> grid;
  const uint64_t capacities[] = {1, 7, 1000, 100000, 1000000000, uint64_t{1} << 62};
  const uint64_t bits[] = {0, 1, 511, 512, 513, 2048, 100000, uint64_t{1} << 20};
  const uint32_t ks[] = {0, 1, 2, 7, ABLOOM_SPLIT_MAX_K, ABLOOM_MAX_K};
  const uint32_t shard_counts[] = {0, 1, 2, 64};
  const double fprs[] = {0.5, 0.01, 1e-4, 1e-9};
  const struct {
    uint32_t kind, layout;
  } shapes[] = {{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT},
                {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT},
                {ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT}};
  uint64_t seed = 0;
  for (const auto &s : shapes)
    for (uint64_t c : capacities)
      for (uint64_t b : bits)
        for (uint32_t k : ks)
          for (uint32_t sh : shard_counts) {
            // The target only matters when bits are derived: every target there, one otherwise.
            for (double p : fprs) {
              if (b != 0 && p != 0.01) continue;
              grid.push_back({s.kind, s.layout, sh, k, c, b, p, seed});
              seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            }
          }
  return grid;
}

abloom_options OptionsOf(const GridPoint &g) {
  abloom_options o;
  EXPECT_EQ(abloom_options_init(&o), ABLOOM_OK);
  o.kind = g.kind;
  o.layout = g.layout;
  o.capacity = g.capacity;
  o.bits = g.bits;
  o.k = g.k;
  o.shards = g.shards;
  o.fpr = g.fpr;
  o.seed = g.seed;
  return o;
}

// Every how many built filters of the grid goes through the file readers too. The in-memory
// readers (deserialize, view) run the same header and body checks as abloom_open; the file
// readers add the save, the mapping and the open modes, which depend on the file's size, not on
// the options behind it. Every fourth built filter still spans the grid's kinds, layouts, shard
// counts and sizes (sub-page to a megabyte), and each save costs two fsyncs: the whole grid
// through files dominated the suite's time, most of all under emulation (qemu, wine).
constexpr size_t kFileEvery = 4;

// One built filter through every reader: each must accept its bytes and give them back; with
// `through_files` false, only the in-memory ones.
void RoundTripEveryReader(const abloom_filter *f, const std::string &path,
                          bool through_files = true) {
  const std::vector<unsigned char> bytes = Serialize(f);

  Filter back;
  ASSERT_EQ(
      LoadInto([&](abloom_filter **o) { return abloom_deserialize(bytes.data(), bytes.size(), o); },
               &back),
      ABLOOM_OK);
  EXPECT_EQ(Serialize(back.get()), bytes) << "deserialize";
  ExpectSameInfo(f, back.get());

  // abloom_view needs 64-byte aligned bytes that outlive the view.
  const test_memory::AlignedBlock aligned = test_memory::Aligned64Copy(bytes.data(), bytes.size());
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    Filter viewed;
    ASSERT_EQ(
        LoadInto(
            [&](abloom_filter **o) { return abloom_view(aligned.get(), bytes.size(), flags, o); },
            &viewed),
        ABLOOM_OK)
        << "view, flags " << flags;
    EXPECT_EQ(Serialize(viewed.get()), bytes) << "view, flags " << flags;
  }
  if (!through_files) return;

  ASSERT_EQ(abloom_save(f, path.c_str()), ABLOOM_OK);
  for (uint32_t mode : {0u, ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE}) {
    for (uint32_t verify : {0u, ABLOOM_VERIFY_CHECKSUM}) {
      Filter opened;
      ASSERT_EQ(
          LoadInto([&](abloom_filter **o) { return abloom_open(path.c_str(), mode | verify, o); },
                   &opened),
          ABLOOM_OK)
          << "open, flags " << (mode | verify);
      EXPECT_EQ(Serialize(opened.get()), bytes) << "open, flags " << (mode | verify);
      ExpectSameInfo(f, opened.get());
    }
  }
}

TEST(CapiRoundTrip, EveryFilterCreatedReadsBackByteIdentical) {
  TempDir dir("abloom-roundtrip-test");
  const std::string path = dir / "f.abloom";
  size_t built = 0, through_files = 0, planned_only = 0, refused = 0;
  for (const GridPoint &g : Grid()) {
    SCOPED_TRACE(g.Name());
    const abloom_options o = OptionsOf(g);
    abloom_plan plan;
    ASSERT_EQ(abloom_plan_init(&plan), ABLOOM_OK);
    const int plan_rc = abloom_plan_compute(&o, &plan);
    if (plan_rc != ABLOOM_OK) {
      // Refused: for a documented reason, and create agrees without allocating.
      EXPECT_TRUE(plan_rc == ABLOOM_ERR_INVALID || plan_rc == ABLOOM_ERR_RANGE)
          << abloom_strerror(plan_rc);
      abloom_filter *f = nullptr;
      EXPECT_EQ(abloom_create(&o, &f), plan_rc);
      EXPECT_EQ(f, nullptr);
      ++refused;
      continue;
    }
    // Whatever the plan, its model FPR is a probability the format can store.
    EXPECT_GE(plan.expected_fpr, 0.0);
    EXPECT_LE(plan.expected_fpr, 1.0);
    if (plan.bytes > kMaxBuiltBytes) {
      ++planned_only;
      continue;
    }
    Filter f = capi_test::Make(o);
    ASSERT_TRUE(f);
    // Some keys, so the bytes are not all zero: up to the capacity, at most 300.
    const uint64_t n = g.capacity < 300 ? g.capacity : 300;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t key[2] = {g.seed, i};
      ASSERT_EQ(abloom_add(f.get(), key, sizeof key), ABLOOM_OK);
    }
    const bool files = built % kFileEvery == 0;
    ASSERT_NO_FATAL_FAILURE(RoundTripEveryReader(f.get(), path, files));
    ++built;
    through_files += files ? 1 : 0;
  }
  std::printf(
      "[ grid     ] %zu filters built and read back (%zu through files too), %zu planned only, "
      "%zu refused\n",
      built, through_files, planned_only, refused);
  // The grid really exercises all three outcomes.
  EXPECT_GT(built, 1000u);
  EXPECT_GT(through_files, 250u);
  EXPECT_GT(planned_only, 10u);
  EXPECT_GT(refused, 10u);
  EXPECT_EQ(dir.List().size(), 1u) << "only the saved file is left";
}

// The reproductions of issue 13: tiny explicit layouts whose model FPR rounded just above 1.
TEST(CapiRoundTrip, SaturatedExplicitLayoutsReadBack) {
  TempDir dir("abloom-roundtrip-test");
  const struct {
    uint64_t capacity, bits;
    uint32_t k;
  } cases[] = {{10000, 512, 2}, {100000, 2048, 0}, {1000000, 512, 1}, {uint64_t{1} << 40, 4096, 0}};
  for (const auto &c : cases) {
    SCOPED_TRACE("capacity " + std::to_string(c.capacity) + " bits " + std::to_string(c.bits));
    abloom_options o = capi_test::Options(c.capacity);
    o.bits = c.bits;
    o.k = c.k;
    Filter f = capi_test::Make(o);
    ASSERT_TRUE(f);
    EXPECT_LE(InfoOf(f.get()).expected_fpr, 1.0);
    ASSERT_NO_FATAL_FAILURE(RoundTripEveryReader(f.get(), dir / "x.abloom"));
  }
  double p = 0;
  ASSERT_EQ(abloom_model_fpr(ABLOOM_KIND_BLOCKED, 0.5, 16, &p), ABLOOM_OK);
  EXPECT_LE(p, 1.0);
  EXPECT_GT(p, 0.99);
}

}  // namespace
