// save_file's second way, named temporary files (file systems without O_TMPFILE), which the C API
// tests cannot force: it saves and reads back, leaves nothing behind, and when writers are killed
// mid-save at most one temporary is left at a time, which the next save removes (the same kill
// test as capi_crash_test.cpp, which runs the default way).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "filter/filter.hpp"
#include "storage/file_io.hpp"
#include "test_files.hpp"

namespace abloom {
namespace {

// A filter of exactly `bytes` bytes of bits (k 7, one shard) holding 20,000 hashes of set
// `key_set`.
std::unique_ptr<Filter> filled_filter(uint64_t bytes, uint64_t key_set) {
  SizingRequest req;
  req.capacity = 100'000;
  req.bits = bytes * 8;
  req.k = 7;
  req.shards = 1;
  Plan plan;
  EXPECT_EQ(make_plan(req, &plan), Errc::ok);
  FilterParams params;
  params.capacity = req.capacity;
  params.expected_fpr = plan.expected_fpr;
  auto f = std::make_unique<Filter>(plan.shape(0), params);
  for (uint64_t i = 0; i < 20'000; ++i) f->add_hash((key_set << 40 | i) * 0x9E3779B97F4A7C15ull);
  return f;
}

struct Dir {
  test_files::TempDir dir{"abloom-core-io"};
  const std::string& path = dir.path();
  size_t entries() const { return dir.List().size(); }
};

bool opens_as(const std::string& path, const Filter& expected) {
  std::unique_ptr<Filter> opened;
  if (open_file(path.c_str(), OpenMode::read_only, true, &opened) != Errc::ok) return false;
  return opened->equals(expected);
}

TEST(CoreSaveNamedTemporary, SavesAndLeavesNothing) {
  Dir dir;
  auto a = filled_filter(64 << 10, 1), b = filled_filter(32 << 10, 2);
  const std::string path = dir.path + "/f.abloom";
  ASSERT_EQ(save_file(*a, path.c_str(), SaveMethod::named_temporary), Errc::ok);
  EXPECT_TRUE(opens_as(path, *a));
  ASSERT_EQ(save_file(*b, path.c_str(), SaveMethod::named_temporary), Errc::ok);
  EXPECT_TRUE(opens_as(path, *b));
  EXPECT_EQ(dir.entries(), 1u);
  // The two ways write the same bytes.
  const std::string other = dir.path + "/g.abloom";
  ASSERT_EQ(save_file(*b, other.c_str(), SaveMethod::automatic), Errc::ok);
  std::unique_ptr<Filter> x, y;
  ASSERT_EQ(open_file(path.c_str(), OpenMode::read_only, true, &x), Errc::ok);
  ASSERT_EQ(open_file(other.c_str(), OpenMode::read_only, true, &y), Errc::ok);
  EXPECT_TRUE(x->equals(*y));
}

TEST(CoreSaveNamedTemporary, KilledSavesLeaveAtMostOneTemporary) {
  Dir dir;
  auto a = filled_filter(8 << 20, 1), b = filled_filter(6 << 20, 2);
  const std::string path = dir.path + "/f.abloom";
  ASSERT_EQ(save_file(*a, path.c_str(), SaveMethod::named_temporary), Errc::ok);
  // The writer (save_loop.cpp) saves B, A, B, ... from these files; it makes `started` first.
  test_files::TempDir sources("abloom-core-io-sources");
  const std::string started = sources / "started";
  ASSERT_EQ(save_file(*a, (sources / "a.abloom").c_str()), Errc::ok);
  ASSERT_EQ(save_file(*b, (sources / "b.abloom").c_str()), Errc::ok);
  const int kDelaysMs[] = {0, 2, 5, 9, 14, 20, 27, 35, 44, 54, 65, 77};
  int left = 0;
  for (int delay : kDelaysMs) {
    SCOPED_TRACE("kill after " + std::to_string(delay) + " ms");
    std::filesystem::remove(test_files::PathOf(started));
    test_files::ChildProcess child(test_files::CommandFor(
        ABLOOM_TEST_CORE_SAVE_LOOP, {path, sources / "a.abloom", sources / "b.abloom", started}));
    ASSERT_TRUE(test_files::WaitForFile(started)) << "the writer did not start";
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    ASSERT_TRUE(child.Kill());
    ASSERT_EQ(child.Wait(), test_files::ChildProcess::kKilled);
    EXPECT_TRUE(opens_as(path, *a) || opens_as(path, *b)) << "neither A nor B";
    const size_t temporaries = dir.entries() - 1;
    EXPECT_LE(temporaries, 1u) << "temporary files pile up";
    left += temporaries > 0;
  }
  std::printf("[ crash    ] named temporaries: %zu kills, %d left one\n", std::size(kDelaysMs),
              left);
  EXPECT_GT(left, 0) << "no kill came mid-save: the test proves nothing";
  ASSERT_EQ(save_file(*a, path.c_str(), SaveMethod::named_temporary), Errc::ok);
  EXPECT_EQ(dir.entries(), 1u) << "the last save did not clean up";
}

}  // namespace
}  // namespace abloom
