// abloom_get_memory / abloom_get_writable_shards: direct access to the bits, for bindings that
// probe keys in their own language (the Go package does).
//
// The probes below are written from docs/FORMAT.md ("Body") and abloom.h alone, with xxHash's
// own XXH3_64bits_withSeed and nothing from core/: if the documentation and the memory it
// describes were not enough to find a key's bits, these tests would fail. They check that such a
// prober answers as abloom_test does for every kind, layout and shard count, that its atomic adds
// give byte-identical filters to abloom_add's (alone and mixed with the library's own adds from
// other threads), and the rules around it: read-only filters refuse writable pointers, the
// pointers never move, and bad arguments are refused.
#include <abloom.h>
#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "capi_test_support.hpp"

namespace {

using capi_test::Filter;
using capi_test::Serialize;

// ---- A prober written from docs/FORMAT.md ----------------------------------------------------

constexpr uint32_t kC = 0x9E3779B9u;
constexpr uint64_t kG = 0x9E3779B97F4A7C15ull;

uint64_t MulHi(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

uint32_t Pow32(uint32_t base, uint32_t e) {
  uint32_t r = 1;
  while (e-- > 0) r *= base;
  return r;
}

// One bit of a shard: word index (from the shard's first word) and mask.
struct Bit {
  uint64_t word;
  uint64_t mask;
};

// Where key's bits are: its shard and its k bits in that shard.
struct Positions {
  uint32_t shard = 0;
  std::vector<Bit> bits;
};

Positions Locate(const abloom_memory &m, const void *key, size_t len) {
  const uint64_t h = XXH3_64bits_withSeed(key, len, m.seed);
  Positions p;
  p.shard = m.shard_bits == 0 ? 0 : static_cast<uint32_t>(h >> (64 - m.shard_bits));
  const uint64_t x0 = m.shard_bits == 0 ? h : h << m.shard_bits;
  if (m.kind == ABLOOM_KIND_CLASSIC) {
    const uint64_t bits = m.blocks_per_shard * 512;
    uint64_t x = x0, y = h * kG;
    for (uint32_t i = 0; i < m.k; ++i) {
      const uint64_t b = MulHi(x, bits);
      p.bits.push_back({b / 64, uint64_t{1} << (b % 64)});
      x += y;
      y += (i + 1) * kG;
    }
    return p;
  }
  const uint64_t block_word = MulHi(x0, m.blocks_per_shard) * 8;
  const uint32_t h2 = static_cast<uint32_t>(h) | 1u;
  if (m.layout == ABLOOM_LAYOUT_SPLIT) {
    const uint32_t s = (h2 * Pow32(kC, 17)) >> 28;
    for (uint32_t j = 0; j < m.k; ++j) {
      const uint32_t w = (s + j) % 16;  // 32-bit word of the block
      const uint32_t bit = 32 * w + ((h2 * Pow32(kC, w + 1)) >> 27);
      p.bits.push_back({block_word + bit / 64, uint64_t{1} << (bit % 64)});
    }
    return p;
  }
  // Distinct: the first k distinct candidates, looking at no more than 4k + 64.
  std::vector<uint32_t> seen;
  for (uint32_t j = 1; seen.size() < m.k && j <= 4 * m.k + 64; ++j) {
    const uint32_t c = (h2 * Pow32(kC, j)) >> 23;
    bool repeat = false;
    for (uint32_t s : seen) repeat = repeat || s == c;
    if (repeat) continue;
    seen.push_back(c);
    p.bits.push_back({block_word + c / 64, uint64_t{1} << (c % 64)});
  }
  return p;
}

bool DocTest(const abloom_memory &m, const std::string &key) {
  const Positions p = Locate(m, key.data(), key.size());
  const uint64_t *shard = m.shard_words[p.shard];
  for (const Bit &b : p.bits) {
    // atomic_ref<const T> is C++26 (libc++ refuses it in C++20): the word is only read here.
    const uint64_t w = std::atomic_ref<uint64_t>(const_cast<uint64_t &>(shard[b.word]))
                           .load(std::memory_order_relaxed);
    if ((w & b.mask) == 0) return false;
  }
  return true;
}

// Adds key with one atomic OR per bit, as the header's rules allow.
void DocAdd(const abloom_memory &m, uint64_t *const *shards, const std::string &key) {
  const Positions p = Locate(m, key.data(), key.size());
  uint64_t *shard = shards[p.shard];
  for (const Bit &b : p.bits) {
    std::atomic_ref<uint64_t>(shard[b.word]).fetch_or(b.mask, std::memory_order_relaxed);
  }
}

abloom_memory MemoryOf(const abloom_filter *f) {
  abloom_memory m;
  EXPECT_EQ(abloom_memory_init(&m), ABLOOM_OK);
  EXPECT_EQ(abloom_get_memory(f, &m), ABLOOM_OK);
  return m;
}

// Keys of 0 to 300 bytes (both XXH3 paths: inline up to 16 bytes, out of line above).
std::vector<std::string> MixedLengthKeys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys(n);
  for (auto &k : keys) {
    const size_t len = rng() % 4 == 0 ? rng() % 301 : rng() % 17;
    k.resize(len);
    for (auto &c : k) c = static_cast<char>(rng());
  }
  return keys;
}

// ---- The shapes under test ------------------------------------------------------------------

// A shape the prober is checked on.
struct ProbeShape {
  uint32_t kind;
  uint32_t layout;
  uint32_t shards;
  uint32_t k;  // 0: the planned optimum
  uint64_t seed;
};

std::string ShapeName(const testing::TestParamInfo<ProbeShape> &info) {
  const ProbeShape &s = info.param;
  std::string name = s.kind == ABLOOM_KIND_CLASSIC     ? "Classic"
                     : s.layout == ABLOOM_LAYOUT_SPLIT ? "Split"
                                                       : "Distinct";
  return name + "_s" + std::to_string(s.shards) + "_k" + std::to_string(s.k) + "_seed" +
         std::to_string(s.seed);
}

// An empty filter of shape s for `capacity` keys (the default target FPR).
Filter EmptyFilter(const ProbeShape &s, uint64_t capacity) {
  abloom_options o;
  EXPECT_EQ(abloom_options_init(&o), ABLOOM_OK);
  o.capacity = capacity;
  o.kind = s.kind;
  o.layout = s.layout;
  o.shards = s.shards;
  o.k = s.k;
  o.seed = s.seed;
  abloom_filter *f = nullptr;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_OK);
  return Filter(f);
}

class MemoryProbe : public testing::TestWithParam<ProbeShape> {};

TEST_P(MemoryProbe, DescribesTheFilter) {
  const Filter f = EmptyFilter(GetParam(), 5000);
  const abloom_memory m = MemoryOf(f.get());
  const abloom_info i = capi_test::InfoOf(f.get());
  EXPECT_EQ(m.struct_size, sizeof(abloom_memory));
  EXPECT_EQ(m.kind, i.kind);
  EXPECT_EQ(m.layout, i.layout);
  EXPECT_EQ(m.hash_id, 1u);
  EXPECT_EQ(m.k, i.k);
  EXPECT_EQ(m.shards, i.shards);
  EXPECT_EQ(uint32_t{1} << m.shard_bits, m.shards);
  EXPECT_EQ(m.blocks_per_shard, i.blocks_per_shard);
  EXPECT_EQ(m.seed, i.seed);
  EXPECT_EQ(m.read_only, 0u);
  EXPECT_EQ(m.reserved, 0u);
  // The shards are the file body, shard after shard.
  const std::vector<unsigned char> bytes = Serialize(f.get());
  for (uint32_t s = 0; s < m.shards; ++s) {
    ASSERT_NE(m.shard_words[s], nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.shard_words[s]) % 64, 0u) << "shard " << s;
    EXPECT_EQ(std::memcmp(m.shard_words[s],
                          bytes.data() + ABLOOM_HEADER_BYTES + s * m.blocks_per_shard * 64,
                          m.blocks_per_shard * 64),
              0)
        << "shard " << s;
  }
  uint64_t *const *writable = nullptr;
  ASSERT_EQ(abloom_get_writable_shards(f.get(), &writable), ABLOOM_OK);
  for (uint32_t s = 0; s < m.shards; ++s) EXPECT_EQ(writable[s], m.shard_words[s]);
}

TEST_P(MemoryProbe, TestsAsTheLibraryDoes) {
  const Filter f = EmptyFilter(GetParam(), 20000);
  const abloom_memory m = MemoryOf(f.get());
  const std::vector<std::string> present = MixedLengthKeys(20000, 1);
  const std::vector<std::string> absent = MixedLengthKeys(40000, 2);
  for (const auto &k : present) ASSERT_GE(abloom_add(f.get(), k.data(), k.size()), 0);
  size_t false_positives = 0;
  for (const auto &k : present) ASSERT_TRUE(DocTest(m, k));
  for (const auto &k : absent) {
    const bool doc = DocTest(m, k);
    ASSERT_EQ(doc, abloom_test(f.get(), k.data(), k.size()) == 1) << "key of " << k.size();
    false_positives += doc ? 1 : 0;
  }
  // Absent keys do hit set bits and miss others: the comparison above saw both answers.
  EXPECT_GT(false_positives, 0u);
  EXPECT_LT(false_positives, absent.size() / 10);
}

TEST_P(MemoryProbe, AtomicAddsGiveTheLibrarysBytes) {
  const Filter mine = EmptyFilter(GetParam(), 20000);
  const Filter lib = EmptyFilter(GetParam(), 20000);
  const abloom_memory m = MemoryOf(mine.get());
  uint64_t *const *shards = nullptr;
  ASSERT_EQ(abloom_get_writable_shards(mine.get(), &shards), ABLOOM_OK);
  for (const auto &k : MixedLengthKeys(20000, 3)) {
    DocAdd(m, shards, k);
    ASSERT_GE(abloom_add(lib.get(), k.data(), k.size()), 0);
    ASSERT_EQ(abloom_test(mine.get(), k.data(), k.size()), 1);
  }
  EXPECT_EQ(abloom_equal(mine.get(), lib.get()), 1);
  EXPECT_EQ(Serialize(mine.get()), Serialize(lib.get()));
}

const ProbeShape kProbeShapes[] = {
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 1, 0, 0},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 4, 0, 7},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 64, 0, 0x123456789ABCDEFull},
    // Large k: repeats among the first k candidates are common, so "first k distinct" matters.
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 1, 40, 5},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 1, 0, 0},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 4, 16, 9},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 64, 3, 11},
    {ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT, 1, 0, 0},
    {ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT, 4, 0, 13},
    {ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT, 64, 0, 17},
};
INSTANTIATE_TEST_SUITE_P(Shapes, MemoryProbe, testing::ValuesIn(kProbeShapes), ShapeName);

// Direct atomic adds from some threads while others add through the library (single keys and
// batches): no bit is lost, and the result is the bytes of a filter built by one thread.
TEST(Memory, DirectAndLibraryAddsMix) {
  for (uint32_t layout : {ABLOOM_LAYOUT_DISTINCT, ABLOOM_LAYOUT_SPLIT}) {
    const ProbeShape shape{ABLOOM_KIND_BLOCKED, layout, 4, 0, 21};
    const Filter shared = EmptyFilter(shape, 40000);
    const Filter serial = EmptyFilter(shape, 40000);
    const abloom_memory m = MemoryOf(shared.get());
    uint64_t *const *shards = nullptr;
    ASSERT_EQ(abloom_get_writable_shards(shared.get(), &shards), ABLOOM_OK);
    const std::vector<std::string> keys = MixedLengthKeys(40000, 4);
    for (const auto &k : keys) ASSERT_GE(abloom_add(serial.get(), k.data(), k.size()), 0);
    const size_t quarter = keys.size() / 4;
    std::vector<std::thread> threads;
    threads.emplace_back([&] {  // direct adds
      for (size_t i = 0; i < quarter; ++i) DocAdd(m, shards, keys[i]);
    });
    threads.emplace_back([&] {  // direct adds
      for (size_t i = quarter; i < 2 * quarter; ++i) DocAdd(m, shards, keys[i]);
    });
    threads.emplace_back([&] {  // library single adds
      for (size_t i = 2 * quarter; i < 3 * quarter; ++i)
        (void)abloom_add(shared.get(), keys[i].data(), keys[i].size());
    });
    threads.emplace_back([&] {  // a library batch
      std::vector<const void *> ptrs;
      std::vector<size_t> lens;
      for (size_t i = 3 * quarter; i < keys.size(); ++i) {
        ptrs.push_back(keys[i].data());
        lens.push_back(keys[i].size());
      }
      (void)abloom_add_many(shared.get(), ptrs.data(), lens.data(), ptrs.size(), nullptr);
    });
    threads.emplace_back([&] {  // direct tests meanwhile: a key added before stays found
      for (size_t i = 0; i < quarter; ++i) (void)DocTest(m, keys[i]);
    });
    for (auto &t : threads) t.join();
    for (const auto &k : keys) ASSERT_TRUE(DocTest(m, k));
    EXPECT_EQ(Serialize(shared.get()), Serialize(serial.get())) << "layout " << layout;
  }
}

// The pointers stay put for the life of the filter; clear, union and intersect work in place.
TEST(Memory, PointersNeverMove) {
  const ProbeShape shape{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 4, 0, 0};
  const Filter f = EmptyFilter(shape, 1000);
  const Filter g = EmptyFilter(shape, 1000);
  const abloom_memory before = MemoryOf(f.get());
  std::vector<const uint64_t *> ptrs(before.shard_words, before.shard_words + before.shards);
  ASSERT_GE(abloom_add(g.get(), "x", 1), 0);
  ASSERT_EQ(abloom_union(f.get(), g.get()), ABLOOM_OK);
  EXPECT_TRUE(DocTest(before, "x"));
  ASSERT_EQ(abloom_intersect(f.get(), g.get()), ABLOOM_OK);
  ASSERT_EQ(abloom_clear(f.get()), ABLOOM_OK);
  EXPECT_FALSE(DocTest(before, "x"));
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
  const abloom_memory after = MemoryOf(f.get());
  for (uint32_t s = 0; s < after.shards; ++s) EXPECT_EQ(after.shard_words[s], ptrs[s]);
}

// Read-only filters (views, files opened read-only) give read pointers only; copy-on-write and
// read-write mappings are writable.
TEST(Memory, ReadOnlyFiltersRefuseWritablePointers) {
  const ProbeShape shape{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 4, 0, 3};
  const Filter f = EmptyFilter(shape, 5000);
  const std::vector<std::string> keys = MixedLengthKeys(1000, 5);
  for (const auto &k : keys) ASSERT_GE(abloom_add(f.get(), k.data(), k.size()), 0);
  const capi_test::TempDir dir;
  const std::string path = dir / "ro.abloom";
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);

  const std::vector<unsigned char> bytes = Serialize(f.get());
  struct alignas(64) Line {
    unsigned char b[64];
  };
  std::vector<Line> aligned((bytes.size() + 63) / 64);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  abloom_filter *view = nullptr;
  ASSERT_EQ(abloom_view(aligned.data(), bytes.size(), 0, &view), ABLOOM_OK);
  abloom_filter *ro = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), 0, &ro), ABLOOM_OK);
  abloom_filter *cow = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_COPY_ON_WRITE, &cow), ABLOOM_OK);
  abloom_filter *rw = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, &rw), ABLOOM_OK);
  const Filter owned_view(view), owned_ro(ro), owned_cow(cow), owned_rw(rw);

  for (abloom_filter *read_only : {view, ro}) {
    const abloom_memory m = MemoryOf(read_only);
    EXPECT_EQ(m.read_only, 1u);
    for (const auto &k : keys) ASSERT_TRUE(DocTest(m, k));
    uint64_t *const *sentinel = reinterpret_cast<uint64_t *const *>(&aligned);
    uint64_t *const *out = sentinel;
    EXPECT_EQ(abloom_get_writable_shards(read_only, &out), ABLOOM_ERR_READONLY);
    EXPECT_EQ(out, sentinel) << "left unchanged";
  }
  for (abloom_filter *writable : {cow, rw}) {
    const abloom_memory m = MemoryOf(writable);
    EXPECT_EQ(m.read_only, 0u);
    uint64_t *const *shards = nullptr;
    ASSERT_EQ(abloom_get_writable_shards(writable, &shards), ABLOOM_OK);
    DocAdd(m, shards, "direct");
    EXPECT_EQ(abloom_test(writable, "direct", 6), 1);
  }
  // The read-write mapping's direct add reaches the file once synced; copy-on-write's does not.
  // (The file stays marked stale while the handle may write: a verified open waits for its free.)
  ASSERT_EQ(abloom_sync(rw), ABLOOM_OK);
  abloom_filter *reread = nullptr;
  EXPECT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &reread), ABLOOM_ERR_STALE);
  ASSERT_EQ(abloom_open(path.c_str(), 0, &reread), ABLOOM_OK);
  const Filter owned_reread(reread);
  EXPECT_EQ(abloom_test(reread, "direct", 6), 1);
}

// A growing filter's stages, each probed from its own abloom_get_stage_memory: a key is in the
// chain exactly when some stage holds it, the pointers of a stage never move while the chain
// grows, and a fixed filter is its own stage 0.
TEST(Memory, GrowingStagesAnswerAsTheChain) {
  abloom_options o;
  ASSERT_EQ(abloom_options_init(&o), ABLOOM_OK);
  o.capacity = 200;
  o.fpr = 0.01;
  o.seed = 11;
  o.growth = ABLOOM_DEFAULT_GROWTH;
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  const Filter g(raw);
  const std::vector<std::string> keys = MixedLengthKeys(6000, 31);
  std::vector<std::string> absent(20000);  // never among keys (whose short ones repeat)
  for (size_t i = 0; i < absent.size(); ++i) absent[i] = "absent key " + std::to_string(i);
  for (size_t i = 0; i < 300; ++i)
    ASSERT_EQ(abloom_add(g.get(), keys[i].data(), keys[i].size()), ABLOOM_OK);
  abloom_memory first;
  ASSERT_EQ(abloom_memory_init(&first), ABLOOM_OK);
  ASSERT_EQ(abloom_get_stage_memory(g.get(), 0, &first), ABLOOM_OK);
  const uint64_t *first_words = first.shard_words[0];
  for (size_t i = 300; i < keys.size(); ++i) {
    ASSERT_EQ(abloom_add(g.get(), keys[i].data(), keys[i].size()), ABLOOM_OK);
  }
  abloom_info info;
  ASSERT_EQ(abloom_info_init(&info), ABLOOM_OK);
  ASSERT_EQ(abloom_get_stage_info(g.get(), 0, &info), ABLOOM_OK);
  ASSERT_GE(info.stages, 5u) << "6000 keys from a first stage of 200 at growth 2";
  std::vector<abloom_memory> stages(info.stages);
  for (uint32_t s = 0; s < info.stages; ++s) {
    ASSERT_EQ(abloom_memory_init(&stages[s]), ABLOOM_OK);
    ASSERT_EQ(abloom_get_stage_memory(g.get(), s, &stages[s]), ABLOOM_OK) << s;
    EXPECT_EQ(stages[s].seed, 11u);
    EXPECT_EQ(stages[s].hash_id, 1u);
    abloom_info st;
    ASSERT_EQ(abloom_info_init(&st), ABLOOM_OK);
    ASSERT_EQ(abloom_get_stage_info(g.get(), s, &st), ABLOOM_OK);
    EXPECT_EQ(stages[s].k, st.k) << s;
    EXPECT_EQ(stages[s].blocks_per_shard, st.blocks_per_shard) << s;
    EXPECT_EQ(stages[s].shards, st.shards) << s;
  }
  EXPECT_EQ(stages[0].shard_words[0], first_words) << "a stage's memory never moves";
  EXPECT_GT(stages.back().blocks_per_shard * stages.back().shards,
            stages[0].blocks_per_shard * stages[0].shards);
  const auto in_some_stage = [&](const std::string &key) {
    bool any = false;
    for (const abloom_memory &m : stages) any = any || DocTest(m, key);
    return any;
  };
  for (const std::string &key : keys) ASSERT_TRUE(in_some_stage(key));
  uint64_t hits = 0;
  for (const std::string &key : absent) {
    const bool ours = in_some_stage(key);
    ASSERT_EQ(ours ? 1 : 0, abloom_test(g.get(), key.data(), key.size()));
    hits += ours ? 1 : 0;
  }
  EXPECT_LT(hits, absent.size() / 50) << "the chain's target is 1%: the probes are not all-ones";
  abloom_memory past;
  ASSERT_EQ(abloom_memory_init(&past), ABLOOM_OK);
  EXPECT_EQ(abloom_get_stage_memory(g.get(), info.stages, &past), ABLOOM_ERR_RANGE);
  EXPECT_EQ(abloom_get_memory(g.get(), &past), ABLOOM_ERR_UNSUPPORTED);

  const Filter fixed = EmptyFilter({ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 4, 0, 0}, 1000);
  abloom_memory whole = MemoryOf(fixed.get());
  abloom_memory stage0;
  ASSERT_EQ(abloom_memory_init(&stage0), ABLOOM_OK);
  ASSERT_EQ(abloom_get_stage_memory(fixed.get(), 0, &stage0), ABLOOM_OK);
  EXPECT_EQ(std::memcmp(&whole, &stage0, sizeof whole), 0);
  EXPECT_EQ(abloom_get_stage_memory(fixed.get(), 1, &stage0), ABLOOM_ERR_RANGE);
  EXPECT_EQ(abloom_get_stage_memory(nullptr, 0, &stage0), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_get_stage_memory(fixed.get(), 0, nullptr), ABLOOM_ERR_NULL);
  stage0.struct_size = sizeof stage0 + 8;
  EXPECT_EQ(abloom_get_stage_memory(g.get(), 0, &stage0), ABLOOM_ERR_INVALID);
}

TEST(Memory, BadArguments) {
  abloom_memory m;
  EXPECT_EQ(abloom_memory_init(nullptr), ABLOOM_ERR_NULL);
  ASSERT_EQ(abloom_memory_init(&m), ABLOOM_OK);
  EXPECT_EQ(abloom_get_memory(nullptr, &m), ABLOOM_ERR_NULL);
  const Filter f = EmptyFilter({ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 1, 0, 0}, 100);
  EXPECT_EQ(abloom_get_memory(f.get(), nullptr), ABLOOM_ERR_NULL);
  for (size_t size : {size_t{0}, sizeof(abloom_memory) - 8, sizeof(abloom_memory) + 8}) {
    abloom_memory bad;
    ASSERT_EQ(abloom_memory_init(&bad), ABLOOM_OK);
    bad.struct_size = size;
    bad.k = 12345;
    EXPECT_EQ(abloom_get_memory(f.get(), &bad), ABLOOM_ERR_INVALID) << size;
    EXPECT_EQ(bad.k, 12345u) << "nothing written";
  }
  uint64_t *const *out = nullptr;
  EXPECT_EQ(abloom_get_writable_shards(nullptr, &out), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_get_writable_shards(f.get(), nullptr), ABLOOM_ERR_NULL);
}

}  // namespace
