// abloom_inline.h: the single-key test compiled into the caller must answer exactly as
// abloom_test does, for every filter, on every path the CPU can take, and check its arguments.
#include <abloom_inline.h>

#include <atomic>
#include <thread>

#include "capi_test_support.hpp"

namespace {

using capi_test::DistinctKeys;
using capi_test::Filter;
using capi_test::KeysOfAllLengths;
using capi_test::LoadInto;
using capi_test::Make;
using capi_test::Options;

// Forces a kernel for the scope, then restores the one that was active.
class IsaScope {
 public:
  explicit IsaScope(uint32_t isa) : saved_(abloom_isa_active()) {
    EXPECT_EQ(abloom_isa_force(isa), ABLOOM_OK);
  }
  ~IsaScope() { EXPECT_EQ(abloom_isa_force(saved_), ABLOOM_OK); }
  IsaScope(const IsaScope &) = delete;
  IsaScope &operator=(const IsaScope &) = delete;

 private:
  uint32_t saved_;
};

// The kernels this CPU can run.
std::vector<uint32_t> RunnableIsas() {
  std::vector<uint32_t> out;
  for (uint32_t isa = ABLOOM_ISA_SCALAR; isa <= abloom_isa_supported(); ++isa) out.push_back(isa);
  return out;
}

// The path abloom_inline_init must pick for a filter of this kind and layout under `isa`.
uint32_t ExpectedPath(uint32_t kind, uint32_t layout, uint32_t isa) {
#if ABLOOM_INLINE_X86
  if (kind == ABLOOM_KIND_BLOCKED && layout == ABLOOM_LAYOUT_SPLIT) {
    if (isa == ABLOOM_ISA_AVX512) return ABLOOM_INLINE_PATH_AVX512;
    if (isa == ABLOOM_ISA_AVX2) return ABLOOM_INLINE_PATH_AVX2;
  }
#else
  (void)kind;
  (void)layout;
  (void)isa;
#endif
  return ABLOOM_INLINE_PATH_CALL;
}

uint32_t LayoutOf(const abloom_filter *f) {
  abloom_memory m;
  EXPECT_EQ(abloom_memory_init(&m), ABLOOM_OK);
  EXPECT_EQ(abloom_get_memory(f, &m), ABLOOM_OK);
  return m.layout;
}

// Every key of `added` answers 1, and every key of `others` answers what abloom_test answers;
// `others` must see both answers, so that a probe that always said 0 or always 1 would fail.
void ExpectSameAnswers(const abloom_filter *f, const abloom_inline &in,
                       const std::vector<std::string> &added,
                       const std::vector<std::string> &others) {
  for (const std::string &key : added) {
    ASSERT_EQ(abloom_inline_test(&in, key.data(), key.size()), 1) << "a false negative";
  }
  size_t present = 0, absent = 0;
  for (const std::string &key : others) {
    const int want = abloom_test(f, key.data(), key.size());
    ASSERT_EQ(abloom_inline_test(&in, key.data(), key.size()), want)
        << "key of " << key.size() << " bytes";
    (want == 1 ? present : absent) += 1;
  }
  EXPECT_GT(present, 0u);
  EXPECT_GT(absent, 0u);
}

struct Shape {
  uint32_t kind;
  uint32_t layout;
  uint32_t k;  // 0: the optimum
  uint32_t shards;
  uint64_t seed;
};

TEST(CapiInline, AnswersAsAbloomTestForEveryShapeAndKernel) {
  const std::vector<Shape> shapes = {
      {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 0, 1, 0},
      {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 1, 1, 7},
      {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 3, 4, 0x5eed},
      {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 11, 64, 0xffffffffffffffffull},
      {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 16, 2, 12345},
      {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 0, 4, 3},
      {ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT, 0, 2, 9},
  };
  const std::vector<std::string> added = DistinctKeys(3000, 1);
  std::vector<std::string> others = KeysOfAllLengths(40, 150, 77);  // both XXH3 paths
  for (const std::string &key : DistinctKeys(4000, 2)) others.push_back(key);
  for (const Shape &s : shapes) {
    abloom_options o = Options(3000, 0.02, s.kind, s.shards, s.seed);
    o.layout = s.layout;
    o.k = s.k;
    Filter f = Make(o);
    for (const std::string &key : added) ASSERT_EQ(abloom_add(f.get(), key.data(), key.size()), 0);
    for (uint32_t isa : RunnableIsas()) {
      SCOPED_TRACE(testing::Message()
                   << "kind " << s.kind << " layout " << s.layout << " k " << s.k << " shards "
                   << s.shards << " kernel " << abloom_isa_name(isa));
      IsaScope scope(isa);
      abloom_inline in;
      ASSERT_EQ(abloom_inline_init(&in, f.get()), ABLOOM_OK);
      EXPECT_EQ(in.path, ExpectedPath(s.kind, LayoutOf(f.get()), isa));
      ExpectSameAnswers(f.get(), in, added, others);
    }
  }
}

// The default options take the fast path wherever the CPU has AVX2 (the reason the header
// exists), and a read-only filter mapped from a file reads the same bits.
TEST(CapiInline, DefaultFiltersAndMappedFilesTakeTheFastPath) {
  Filter f = Make(Options(20000));
  const std::vector<std::string> added = DistinctKeys(20000, 3);
  for (const std::string &key : added) ASSERT_EQ(abloom_add(f.get(), key.data(), key.size()), 0);
  const std::vector<std::string> others = DistinctKeys(20000, 4);
  abloom_inline in;
  ASSERT_EQ(abloom_inline_init(&in, f.get()), ABLOOM_OK);
  EXPECT_EQ(in.path, ExpectedPath(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, abloom_isa_active()));
  ExpectSameAnswers(f.get(), in, added, others);

  capi_test::TempDir dir("abloom-inline");
  const std::string path = dir.path() + "/f.abloom";
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  Filter mapped;
  ASSERT_EQ(
      LoadInto([&](abloom_filter **out) { return abloom_open(path.c_str(), 0, out); }, &mapped),
      ABLOOM_OK);
  abloom_inline from_file;
  ASSERT_EQ(abloom_inline_init(&from_file, mapped.get()), ABLOOM_OK);
  EXPECT_EQ(from_file.path, in.path);
  ExpectSameAnswers(mapped.get(), from_file, added, others);
}

// It reads the filter's bits as they are now: adds from another thread while it tests, and a
// clear, show at once.
TEST(CapiInline, SeesAddsFromOtherThreadsAndClears) {
  Filter f = Make(Options(200000));
  abloom_inline in;
  ASSERT_EQ(abloom_inline_init(&in, f.get()), ABLOOM_OK);
  const std::vector<std::string> keys = DistinctKeys(200000, 5);
  std::atomic<size_t> done{0};
  std::thread writer([&] {
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(abloom_add(f.get(), keys[i].data(), keys[i].size()), ABLOOM_OK);
      done.store(i + 1, std::memory_order_release);
    }
  });
  // Every key the writer has finished adding must test present, while it goes on adding.
  size_t checked = 0;
  while (checked < keys.size()) {
    const size_t upto = done.load(std::memory_order_acquire);
    for (; checked < upto; ++checked) {
      ASSERT_EQ(abloom_inline_test(&in, keys[checked].data(), keys[checked].size()), 1);
    }
  }
  writer.join();
  ASSERT_EQ(abloom_clear(f.get()), ABLOOM_OK);
  size_t present = 0;
  for (const std::string &key : keys) present += abloom_inline_test(&in, key.data(), key.size());
  EXPECT_EQ(present, 0u);
}

TEST(CapiInline, NullArgumentsAreErrors) {
  Filter f = Make(Options(1000));
  ASSERT_EQ(abloom_add(f.get(), nullptr, 0), ABLOOM_OK);  // the empty key
  abloom_inline in;
  EXPECT_EQ(abloom_inline_init(nullptr, f.get()), ABLOOM_ERR_NULL);
  std::memset(&in, 0xA5, sizeof in);
  EXPECT_EQ(abloom_inline_init(&in, nullptr), ABLOOM_ERR_NULL);
  unsigned char untouched[sizeof in];
  std::memset(untouched, 0xA5, sizeof in);
  EXPECT_EQ(std::memcmp(&in, untouched, sizeof in), 0) << "written on failure";

  ASSERT_EQ(abloom_inline_init(&in, f.get()), ABLOOM_OK);
  const char key[] = "key";
  EXPECT_EQ(abloom_inline_test(nullptr, key, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_inline_test(&in, nullptr, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_inline_test(&in, nullptr, 0), 1);  // the empty key, added above
  EXPECT_EQ(abloom_inline_test(&in, key, 0), 1);      // the same key
}

}  // namespace
