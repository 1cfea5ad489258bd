// save_file's second way, named temporary files (file systems without O_TMPFILE), which the C API
// tests cannot force: it saves and reads back, leaves nothing behind, and when writers are killed
// mid-save at most one temporary is left at a time, which the next save removes (the same kill
// test as capi_crash_test.cpp, which runs the default way).

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "file_io.hpp"
#include "filter.hpp"

namespace abloom {
namespace {

std::unique_ptr<Filter> make(uint64_t bytes, uint64_t key_set) {
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
  std::string path;
  Dir() {
    std::string t = std::filesystem::temp_directory_path().string() + "/abloom-core-io-XXXXXX";
    EXPECT_NE(::mkdtemp(t.data()), nullptr);
    path = t;
  }
  ~Dir() { std::filesystem::remove_all(path); }
  size_t entries() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path),
                                             std::filesystem::directory_iterator()));
  }
};

bool opens_as(const std::string& path, const Filter& expected) {
  std::unique_ptr<Filter> opened;
  if (open_file(path.c_str(), OpenMode::read_only, true, &opened) != Errc::ok) return false;
  return opened->equals(expected);
}

TEST(CoreSaveNamedTemporary, SavesAndLeavesNothing) {
  Dir dir;
  auto a = make(64 << 10, 1), b = make(32 << 10, 2);
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
  auto a = make(8 << 20, 1), b = make(6 << 20, 2);
  const std::string path = dir.path + "/f.abloom";
  ASSERT_EQ(save_file(*a, path.c_str(), SaveMethod::named_temporary), Errc::ok);
  const int kDelaysMs[] = {0, 2, 5, 9, 14, 20, 27, 35, 44, 54, 65, 77};
  int left = 0;
  for (int delay : kDelaysMs) {
    SCOPED_TRACE("kill after " + std::to_string(delay) + " ms");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int j = 0; j < 1'000'000; ++j) {
        (void)save_file(j % 2 == 0 ? *b : *a, path.c_str(), SaveMethod::named_temporary);
      }
      ::_exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
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
