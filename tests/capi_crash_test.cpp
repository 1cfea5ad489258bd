// Crash safety of abloom_save (capi/abloom.h, docs/FORMAT.md "Saving"): a child process
// (save_loop.cpp) saves two different filters A and B over one path in a loop and is killed
// (SIGKILL; TerminateProcess on Windows) at a spread of fixed delays after it starts saving; after
// every kill the path must open with ABLOOM_VERIFY_CHECKSUM and hold exactly A or exactly B, never
// a torn or partial file, and at most one temporary file may be left beside it (the next save
// removes it). tests/core_file_io_test.cpp does the same with named temporary files, the way of
// file systems without O_TMPFILE.

#include <abloom.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "capi_test_support.hpp"
#include "test_files.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ABLOOM_CRASH_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ABLOOM_CRASH_TEST_SANITIZED 1
#endif
#endif

namespace {

using capi_test::Filter;
using capi_test::FilterDeleter;
using test_files::ChildProcess;
using test_files::TempDir;

#if defined(ABLOOM_CRASH_TEST_SANITIZED)
constexpr uint64_t kBytesA = uint64_t{4} << 20;  // 4 MiB
constexpr uint64_t kBytesB = uint64_t{3} << 20;  // 3 MiB
#else
constexpr uint64_t kBytesA = uint64_t{16} << 20;  // 16 MiB
constexpr uint64_t kBytesB = uint64_t{12} << 20;  // 12 MiB
#endif

// A filter of exactly `bytes` bytes of bits, holding `n` keys of key set `set`.
Filter FilledFilter(uint64_t bytes, uint64_t set, uint64_t n) {
  abloom_options o;
  EXPECT_EQ(abloom_options_init(&o), ABLOOM_OK);
  o.capacity = 1000000;
  o.bits = bytes * 8;
  o.k = 7;
  o.shards = 1;
  abloom_filter *f = nullptr;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_OK);
  for (uint64_t i = 0; f != nullptr && i < n; ++i) {
    uint64_t key[2] = {set, i};
    EXPECT_EQ(abloom_add(f, key, sizeof key), ABLOOM_OK);
  }
  return Filter(f);
}

// The `*.tmp.*` files in dir: what killed saves left behind.
size_t CountTemporaries(const std::string &dir) {
  size_t n = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir)) {
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  }
  return n;
}

TEST(CapiCrash, KilledSavesLeaveOldOrNewFile) {
  Filter a = FilledFilter(kBytesA, 1, 50000);
  Filter b = FilledFilter(kBytesB, 2, 50000);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(abloom_equal(a.get(), b.get()), 0);  // different shapes and keys

  TempDir dir("abloom-crash-test");
  TempDir sources("abloom-crash-sources");  // the child's A and B, and its "started" mark
  const std::string path = dir.path() + "/filter.abloom";
  const std::string started = sources / "started";
  ASSERT_EQ(abloom_save(a.get(), (sources / "a.abloom").c_str()), ABLOOM_OK);
  ASSERT_EQ(abloom_save(b.get(), (sources / "b.abloom").c_str()), ABLOOM_OK);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(abloom_save(a.get(), path.c_str()), ABLOOM_OK);
  const double save_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Fixed delays spread over 0..200 ms (plus a varying sub-millisecond part).
  const int kDelaysMs[] = {0,  1,   2,   4,   7,   11,  16,  22,  29, 37, 46, 56, 67,  79,
                           92, 106, 121, 137, 154, 172, 191, 200, 5,  33, 61, 89, 117, 145};
  int saw_a = 0, saw_b = 0, leftovers = 0, interrupted = 0;
  for (size_t i = 0; i < std::size(kDelaysMs); ++i) {
    SCOPED_TRACE("kill " + std::to_string(i) + " after " + std::to_string(kDelaysMs[i]) + " ms");
    std::filesystem::remove(test_files::PathOf(started));
    // The child saves B, A, B, A, ... until killed (every save changes the file).
    ChildProcess child(test_files::CommandFor(
        ABLOOM_TEST_SAVE_LOOP, {path, sources / "a.abloom", sources / "b.abloom", started}));
    ASSERT_TRUE(test_files::WaitForFile(started)) << "the writer did not start";
    const auto delay =
        std::chrono::milliseconds(kDelaysMs[i]) + std::chrono::microseconds((i * 379) % 1000);
    std::this_thread::sleep_for(delay);
    ASSERT_TRUE(child.Kill());
    ASSERT_EQ(child.Wait(), ChildProcess::kKilled);

    abloom_filter *raw = nullptr;
    const int rc = abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw);
    Filter opened(raw);
    ASSERT_EQ(rc, ABLOOM_OK) << abloom_strerror(rc);
    const int is_a = abloom_equal(opened.get(), a.get());
    const int is_b = abloom_equal(opened.get(), b.get());
    ASSERT_TRUE(is_a == 1 || is_b == 1) << "the file is neither A nor B";
    saw_a += is_a == 1;
    saw_b += is_b == 1;
    opened.reset();
    // Nothing is removed here: each save removes the temporaries of killed writers before
    // making its own, so however many kills there were, at most the last one's is left.
    const size_t stray = CountTemporaries(dir.path());
    EXPECT_LE(stray, 1u) << "temporary files pile up";
    leftovers = std::max(leftovers, static_cast<int>(stray));
    interrupted += stray > 0;
  }
  std::printf(
      "[ crash    ] one save: %.1f ms; %zu kills: %d x A, %d x B, %d left a temporary file "
      "(at most %d at once)\n",
      save_ms, std::size(kDelaysMs), saw_a, saw_b, interrupted, leftovers);
  // Evidence that the child really was saving when killed: with saves this fast, some kill came
  // after a completed save of B.
  if (save_ms < 80) {
    EXPECT_GT(saw_b, 0) << "no kill came after a completed save";
  }
  // The survivor is still a normal, writable file: save over it once more and verify.
  ASSERT_EQ(abloom_save(b.get(), path.c_str()), ABLOOM_OK);
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  Filter last(raw);
  EXPECT_EQ(abloom_equal(last.get(), b.get()), 1);
  EXPECT_EQ(CountTemporaries(dir.path()), 0u) << "the last save did not clean up";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

// The count grow_loop.cpp last wrote to its PROGRESS file (8 bytes, little-endian); 0 before the
// first.
uint64_t AddedSoFar(const std::string &progress) {
  std::error_code ec;
  if (!std::filesystem::exists(test_files::PathOf(progress), ec)) return 0;
  const capi_test::Bytes count = capi_test::ReadAll(progress);
  uint64_t added = 0;
  for (size_t b = 0; b < count.size() && b < 8; ++b) added |= uint64_t{count[b]} << (8 * b);
  return added;
}

// Crash safety of a growing filter's file opened read-write (capi/abloom.h, "Serialization";
// docs/FORMAT.md, "Growing filters"): a child process (grow_loop.cpp) adds keys 0, 1, 2, ... to
// the file, appending stages as it goes, and is killed at a spread of fixed delays. After every
// kill the file opens (its stages stale), holds every key the child had counted as added, seals,
// and then verifies, one length with the chain its header names. The stages start small
// (64 keys), so that the child spends much of its time appending.
TEST(CapiCrash, KilledChainWritersLoseNothing) {
  TempDir dir("abloom-chain-crash-test");
  const std::string path = dir.path() + "/chain.abloom", empty = dir.path() + "/empty.abloom";
  const std::string started = dir.path() + "/started", progress = dir.path() + "/progress";
  {
    abloom_options o;
    ASSERT_EQ(abloom_options_init(&o), ABLOOM_OK);
    o.capacity = 64;
    o.fpr = 0.01;
    o.growth = ABLOOM_DEFAULT_GROWTH;
    abloom_filter *f = nullptr;
    ASSERT_EQ(abloom_create(&o, &f), ABLOOM_OK);
    Filter chain(f);
    ASSERT_EQ(abloom_save(chain.get(), empty.c_str()), ABLOOM_OK);
  }
  const int kDelaysMs[] = {0, 1, 2, 3, 5, 8, 12, 17, 23, 30, 38, 47, 57, 68, 80, 93};
  uint64_t most_stages = 0, most_keys = 0;
  int appending = 0;  // kills that came while a stage was being appended
  for (size_t i = 0; i < std::size(kDelaysMs); ++i) {
    SCOPED_TRACE("kill " + std::to_string(i) + " after " + std::to_string(kDelaysMs[i]) + " ms");
    std::filesystem::copy_file(test_files::PathOf(empty), test_files::PathOf(path),
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::remove(test_files::PathOf(started));
    std::filesystem::remove(test_files::PathOf(progress));
    ChildProcess child(test_files::CommandFor(ABLOOM_TEST_GROW_LOOP, {path, started, progress}));
    ASSERT_TRUE(test_files::WaitForFile(started)) << "the writer did not start";
    // Kill i comes once the writer has added at least 256 i keys (a chain of up to 7 stages by
    // the last), and then after a delay: so the kills fall at every stage count, however slowly
    // the writer runs (under an emulator or a sanitizer), and at no fixed point of an append.
    const uint64_t reached = 256 * i;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (AddedSoFar(progress) < reached && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_GE(AddedSoFar(progress), reached) << "the writer made no progress";
    std::this_thread::sleep_for(std::chrono::milliseconds(kDelaysMs[i]) +
                                std::chrono::microseconds((i * 379) % 1000));
    ASSERT_TRUE(child.Kill());
    ASSERT_EQ(child.Wait(), ChildProcess::kKilled);

    // Keys [0, added) were added before the kill (the child counts them after each add).
    const uint64_t added = AddedSoFar(progress);
    std::vector<uint64_t> keys(added), offsets(added + 1);
    for (uint64_t k = 0; k <= added; ++k) {
      if (k < added) keys[k] = k;
      offsets[k] = k * sizeof(uint64_t);
    }
    const auto expect_every_key = [&keys, &offsets](const abloom_filter *f) {
      if (keys.empty()) return;  // killed before its first count
      std::vector<uint8_t> results(keys.size());
      uint64_t found = 0;
      ASSERT_EQ(abloom_test_packed(f, keys.data(), keys.size() * sizeof(uint64_t), offsets.data(),
                                   keys.size(), results.data(), &found),
                ABLOOM_OK);
      EXPECT_EQ(found, keys.size()) << "keys added before the kill are missing";
    };

    abloom_filter *raw = nullptr;
    ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_ERR_STALE);
    int rc = abloom_open(path.c_str(), 0, &raw);
    ASSERT_EQ(rc, ABLOOM_OK) << abloom_strerror(rc);
    Filter opened(raw);
    expect_every_key(opened.get());
    uint64_t named = 0;
    ASSERT_EQ(abloom_serialized_size(opened.get(), &named), ABLOOM_OK);
    appending += std::filesystem::file_size(test_files::PathOf(path)) > named;
    opened.reset();

    rc = abloom_seal(path.c_str());
    ASSERT_EQ(rc, ABLOOM_OK) << abloom_strerror(rc);
    rc = abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw);
    ASSERT_EQ(rc, ABLOOM_OK) << abloom_strerror(rc);
    Filter sealed(raw);
    expect_every_key(sealed.get());
    uint64_t size = 0;
    ASSERT_EQ(abloom_serialized_size(sealed.get(), &size), ABLOOM_OK);
    EXPECT_EQ(std::filesystem::file_size(test_files::PathOf(path)), size);
    abloom_info info;
    ASSERT_EQ(abloom_info_init(&info), ABLOOM_OK);
    ASSERT_EQ(abloom_get_info(sealed.get(), &info), ABLOOM_OK);
    most_stages = std::max<uint64_t>(most_stages, info.stages);
    most_keys = std::max(most_keys, added);
  }
  std::printf(
      "[ crash    ] %zu kills of a chain's writer: up to %llu keys in %llu stages; %d during an "
      "append\n",
      std::size(kDelaysMs), static_cast<unsigned long long>(most_keys),
      static_cast<unsigned long long>(most_stages), appending);
  // The last kills came after 3840 keys: stages of 64, 128, ... 2048 hold 4032, so 6 stages at
  // least (the check that the kills did fall during growth).
  EXPECT_GE(most_stages, 6u);
}

}  // namespace
