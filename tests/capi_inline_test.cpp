// abloom_inline.h: the single-key test and add compiled into the caller must answer exactly as
// abloom_test and abloom_test_and_add do and set exactly their bits, for every filter, on every
// path the CPU can take, and check their arguments.
#include <abloom_inline.h>

#include <atomic>
#include <thread>

#include "capi_test_support.hpp"

namespace {

using capi_test::DistinctKeys;
using capi_test::Filter;
using capi_test::IsaRestore;
using capi_test::KeysOfAllLengths;
using capi_test::LoadInto;
using capi_test::Make;
using capi_test::Options;
using capi_test::RunnableIsas;

// The path abloom_inline_init must pick for a filter of this kind and layout under `isa`.
uint32_t ExpectedPath(uint32_t kind, uint32_t layout, uint32_t isa) {
#if ABLOOM_INLINE_X86
  if (kind == ABLOOM_KIND_BLOCKED && layout == ABLOOM_LAYOUT_SPLIT) {
    if (isa == ABLOOM_ISA_AVX512) return ABLOOM_INLINE_PATH_AVX512;
    if (isa == ABLOOM_ISA_AVX2) return ABLOOM_INLINE_PATH_AVX2;
  }
  if (kind == ABLOOM_KIND_BLOCKED && layout == ABLOOM_LAYOUT_HALF &&
      (isa == ABLOOM_ISA_AVX512 || isa == ABLOOM_ISA_AVX2)) {
    return ABLOOM_INLINE_PATH_HALF;
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

// The split layout at several k and shard counts (its fast paths), and the filters the header
// hands to the library.
const Shape kShapes[] = {
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 0, 1, 0},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 1, 1, 7},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 3, 4, 0x5eed},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 11, 64, 0xffffffffffffffffull},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, 16, 2, 12345},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 0, 4, 3},
    {ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_HALF, 0, 4, 0x4a1f},
    {ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DEFAULT, 0, 2, 9},
};

// A shape under a kernel, for failure messages.
std::string Describe(const Shape &s, uint32_t isa) {
  return "kind " + std::to_string(s.kind) + " layout " + std::to_string(s.layout) + " k " +
         std::to_string(s.k) + " shards " + std::to_string(s.shards) + " kernel " +
         abloom_isa_name(isa);
}

// An empty filter of this shape, for 3000 keys at 2%.
Filter MakeShape(const Shape &s) {
  abloom_options o = Options(3000, 0.02, s.kind, s.shards, s.seed);
  o.layout = s.layout;
  o.k = s.k;
  return Make(o);
}

// f saved into `dir` and opened again read-only (mmap).
Filter SavedAndMapped(const abloom_filter *f, const capi_test::TempDir &dir) {
  const std::string path = dir / "f.abloom";
  EXPECT_EQ(abloom_save(f, path.c_str()), ABLOOM_OK);
  Filter mapped;
  EXPECT_EQ(
      LoadInto([&](abloom_filter **out) { return abloom_open(path.c_str(), 0, out); }, &mapped),
      ABLOOM_OK);
  return mapped;
}

TEST(CapiInline, AnswersAsAbloomTestForEveryShapeAndKernel) {
  const std::vector<std::string> added = DistinctKeys(3000, 1);
  std::vector<std::string> others = KeysOfAllLengths(40, 150, 77);  // both XXH3 paths
  for (const std::string &key : DistinctKeys(4000, 2)) others.push_back(key);
  for (const Shape &s : kShapes) {
    Filter f = MakeShape(s);
    for (const std::string &key : added) ASSERT_EQ(abloom_add(f.get(), key.data(), key.size()), 0);
    for (uint32_t isa : RunnableIsas()) {
      SCOPED_TRACE(Describe(s, isa));
      const IsaRestore restore;
      ASSERT_EQ(abloom_set_isa(isa), ABLOOM_OK);
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
  EXPECT_EQ(in.path, ExpectedPath(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, abloom_get_isa()));
  ExpectSameAnswers(f.get(), in, added, others);

  const capi_test::TempDir dir("abloom-inline");
  const Filter mapped = SavedAndMapped(f.get(), dir);
  ASSERT_NE(mapped, nullptr);
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

// Adds through the header set exactly the bits the library's adds set (the two filters end
// equal) and answer as abloom_test_and_add does, repeats included, on every shape and kernel.
TEST(CapiInline, AddsSetTheLibrarysBitsAndAnswerAsItDoes) {
  std::vector<std::string> keys = KeysOfAllLengths(40, 60, 78);
  for (const std::string &key : DistinctKeys(3000, 6)) keys.push_back(key);
  const size_t distinct = keys.size();
  for (size_t i = 0; i < distinct; i += 3) keys.push_back(keys[i]);  // repeats: answer 1
  for (const Shape &s : kShapes) {
    for (uint32_t isa : RunnableIsas()) {
      SCOPED_TRACE(Describe(s, isa));
      const IsaRestore restore;
      ASSERT_EQ(abloom_set_isa(isa), ABLOOM_OK);
      Filter by_library = MakeShape(s);
      Filter by_header = MakeShape(s);
      abloom_inline in;
      ASSERT_EQ(abloom_inline_init_writer(&in, by_header.get()), ABLOOM_OK);
      EXPECT_EQ(in.add_path, ExpectedPath(s.kind, LayoutOf(by_header.get()), isa));
      size_t repeats = 0;
      for (const std::string &key : keys) {
        const int want = abloom_test_and_add(by_library.get(), key.data(), key.size());
        ASSERT_EQ(abloom_inline_test_and_add(&in, key.data(), key.size()), want)
            << "key of " << key.size() << " bytes";
        repeats += want == 1 ? 1 : 0;
      }
      EXPECT_GE(repeats, keys.size() - distinct);  // every repeat, and some short keys twice
      EXPECT_LT(repeats, keys.size() / 2);
      EXPECT_EQ(abloom_equal(by_library.get(), by_header.get()), 1) << "different bits";
      ASSERT_EQ(abloom_inline_add(&in, "one more", 8), ABLOOM_OK);
      EXPECT_EQ(abloom_test(by_header.get(), "one more", 8), 1);
    }
  }
}

// Adds are refused where the library refuses them, and an init for tests only never adds.
TEST(CapiInline, AddsAreRefusedWhereTheLibraryRefusesThem) {
  Filter f = Make(Options(1000));
  abloom_inline tests_only;
  ASSERT_EQ(abloom_inline_init(&tests_only, f.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_inline_add(&tests_only, "key", 3), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_inline_test_and_add(&tests_only, "key", 3), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_test(f.get(), "key", 3), 0) << "a refused add wrote";

  const capi_test::TempDir dir("abloom-inline");
  const Filter mapped = SavedAndMapped(f.get(), dir);
  ASSERT_NE(mapped, nullptr);
  abloom_inline on_file;
  ASSERT_EQ(abloom_inline_init_writer(&on_file, mapped.get()), ABLOOM_OK);
  EXPECT_EQ(on_file.add_path, static_cast<uint32_t>(ABLOOM_INLINE_PATH_CALL));
  EXPECT_EQ(abloom_inline_add(&on_file, "key", 3), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_inline_test(&on_file, "key", 3), 0);
}

// A filter in the exclusive writer mode keeps the library's plain-store add; switching modes
// either way afterwards loses nothing.
TEST(CapiInline, AnExclusiveWriterKeepsTheLibrarysAdd) {
  Filter f = Make(Options(10000));
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
  abloom_inline exclusive;
  ASSERT_EQ(abloom_inline_init_writer(&exclusive, f.get()), ABLOOM_OK);
  EXPECT_EQ(exclusive.add_path, static_cast<uint32_t>(ABLOOM_INLINE_PATH_CALL));
  EXPECT_EQ(exclusive.path,
            ExpectedPath(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, abloom_get_isa()));
  const std::vector<std::string> keys = DistinctKeys(3000, 7);
  for (size_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(abloom_inline_add(&exclusive, keys[i].data(), keys[i].size()), ABLOOM_OK);
  }
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_SHARED), ABLOOM_OK);
  for (size_t i = 1000; i < 2000; ++i) {
    ASSERT_EQ(abloom_inline_add(&exclusive, keys[i].data(), keys[i].size()), ABLOOM_OK);
  }
  abloom_inline shared;
  ASSERT_EQ(abloom_inline_init_writer(&shared, f.get()), ABLOOM_OK);
  EXPECT_EQ(shared.add_path, shared.path);
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
  for (size_t i = 2000; i < 3000; ++i) {
    ASSERT_EQ(abloom_inline_add(&shared, keys[i].data(), keys[i].size()), ABLOOM_OK);
  }
  for (const std::string &key : keys) {
    ASSERT_EQ(abloom_test(f.get(), key.data(), key.size()), 1);
  }
}

// Threads adding through the header and through the library at once lose no key (run under
// ThreadSanitizer in CI: the test's name contains "Thread").
TEST(CapiInline, ThreadsAddingThroughBothLoseNothing) {
  constexpr size_t kThreads = 4, kPerThread = 30000;
  Filter f = Make(Options(kThreads * kPerThread));
  std::vector<std::vector<std::string>> keys;
  for (size_t t = 0; t < kThreads; ++t) keys.push_back(DistinctKeys(kPerThread, 10 + t));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      abloom_inline in;
      EXPECT_EQ(abloom_inline_init_writer(&in, f.get()), ABLOOM_OK);
      for (const std::string &key : keys[t]) {
        // Thread 0 adds through the library, the others through the header.
        const int rc = t == 0 ? abloom_add(f.get(), key.data(), key.size())
                              : abloom_inline_add(&in, key.data(), key.size());
        EXPECT_EQ(rc, ABLOOM_OK);
      }
    });
  }
  for (std::thread &t : threads) t.join();
  abloom_inline in;
  ASSERT_EQ(abloom_inline_init(&in, f.get()), ABLOOM_OK);
  for (const auto &set : keys) {
    for (const std::string &key : set)
      ASSERT_EQ(abloom_inline_test(&in, key.data(), key.size()), 1);
  }
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

  abloom_inline w;
  EXPECT_EQ(abloom_inline_init_writer(nullptr, f.get()), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_inline_init_writer(&w, nullptr), ABLOOM_ERR_NULL);
  ASSERT_EQ(abloom_inline_init_writer(&w, f.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_inline_add(nullptr, key, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_inline_add(&w, nullptr, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_inline_test_and_add(nullptr, key, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_inline_test_and_add(&w, nullptr, 3), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test(f.get(), key, 3), 0) << "a refused add wrote";
  EXPECT_EQ(abloom_inline_test_and_add(&w, nullptr, 0), 1);  // the empty key again
}

}  // namespace
