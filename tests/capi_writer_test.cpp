// The writer modes (abloom_set_writer_mode): arguments, defaults, identical bits through every
// write path, read-only filters, and one exclusive writer beside concurrent readers (these last
// tests' names contain "Concurrency", so CI also runs them under ThreadSanitizer).

#include <abloom.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "capi_test_support.hpp"

namespace {

using capi_test::AddAll;
using capi_test::Batch;
using capi_test::CountOnes;
using capi_test::DistinctKeys;
using capi_test::Filter;
using capi_test::Hashes;
using capi_test::KindName;
using capi_test::LoadInto;
using capi_test::Make;
using capi_test::Options;
using capi_test::Serialize;
using capi_test::TempDir;
using capi_test::TestMany;

TEST(CapiWriterErrors, NullAndUnknownModes) {
  EXPECT_EQ(abloom_set_writer_mode(nullptr, ABLOOM_WRITER_EXCLUSIVE), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_get_writer_mode(nullptr), ABLOOM_ERR_NULL);
  Filter f = Make(Options(1000));
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
  for (uint32_t bad : {2u, 3u, 0x80000000u, 0xFFFFFFFFu}) {
    EXPECT_EQ(abloom_set_writer_mode(f.get(), bad), ABLOOM_ERR_INVALID) << bad;
    EXPECT_EQ(abloom_get_writer_mode(f.get()), static_cast<int>(ABLOOM_WRITER_EXCLUSIVE))
        << "a refused mode changes nothing";
  }
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_SHARED), ABLOOM_OK);
  EXPECT_EQ(abloom_get_writer_mode(f.get()), static_cast<int>(ABLOOM_WRITER_SHARED));
}

// Every way of getting a handle starts SHARED; the mode belongs to the handle (a clone of an
// exclusive filter is shared, and nothing of it reaches the bytes).
TEST(CapiWriter, EveryNewHandleStartsShared) {
  const int shared = static_cast<int>(ABLOOM_WRITER_SHARED);
  Filter f = Make(Options(5000));
  EXPECT_EQ(abloom_get_writer_mode(f.get()), shared);
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_new(100, 0.01, &raw), ABLOOM_OK);
  Filter made_by_new(raw);
  EXPECT_EQ(abloom_get_writer_mode(made_by_new.get()), shared);

  AddAll(f.get(), DistinctKeys(1000, 1));
  const std::vector<unsigned char> shared_bytes = Serialize(f.get());
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
  EXPECT_EQ(Serialize(f.get()), shared_bytes) << "the mode is not part of the serialized form";

  raw = nullptr;
  ASSERT_EQ(abloom_clone(f.get(), &raw), ABLOOM_OK);
  Filter clone(raw);
  EXPECT_EQ(abloom_get_writer_mode(clone.get()), shared);

  Filter loaded;
  ASSERT_EQ(LoadInto(
                [&](abloom_filter **out) {
                  return abloom_deserialize(shared_bytes.data(), shared_bytes.size(), out);
                },
                &loaded),
            ABLOOM_OK);
  EXPECT_EQ(abloom_get_writer_mode(loaded.get()), shared);

  TempDir dir;
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  for (uint32_t flags : {0u, ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE}) {
    Filter opened;
    ASSERT_EQ(LoadInto([&](abloom_filter **out) { return abloom_open(path.c_str(), flags, out); },
                       &opened),
              ABLOOM_OK);
    EXPECT_EQ(abloom_get_writer_mode(opened.get()), shared) << "open flags " << flags;
  }
}

// A read-only filter takes a mode (there is nothing to protect) and still refuses every write.
TEST(CapiWriter, ReadOnlyFiltersStillRefuseWrites) {
  Filter f = Make(Options(5000));
  AddAll(f.get(), DistinctKeys(100, 2));
  TempDir dir;
  const std::string path = dir / "ro.abloom";
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  Filter ro;
  ASSERT_EQ(LoadInto([&](abloom_filter **out) { return abloom_open(path.c_str(), 0, out); }, &ro),
            ABLOOM_OK);
  ASSERT_EQ(abloom_set_writer_mode(ro.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
  const std::string key = "not in the file";
  EXPECT_EQ(abloom_add(ro.get(), key.data(), key.size()), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_test_and_add(ro.get(), key.data(), key.size()), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_add_hash(ro.get(), 42), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_union(ro.get(), f.get()), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_equal(ro.get(), f.get()), 1);
}

// (kind, shards, threads): the same keys through every write call, once shared and once
// exclusive (and once more exclusive with no `added` asked for), give the same bits (equal
// filters, identical files) and the same answers.
using KindShardsThreads = std::tuple<uint32_t, uint32_t, uint32_t>;
class CapiWriterModes : public ::testing::TestWithParam<KindShardsThreads> {};

TEST_P(CapiWriterModes, ExclusiveSetsTheBitsSharedSets) {
  const auto [kind, shards, threads] = GetParam();
  const size_t n = 120000;
  // At capacity some keys find their bits already set. Threads keep each key's order among the
  // keys that share its bits (bulk.cpp), so the counts are exact with threads too.
  abloom_options o = Options(n, 0.01, kind, shards, 1234);
  o.threads = threads;
  const auto single = DistinctKeys(n / 6, 10), tests_and_adds = DistinctKeys(n / 6, 11);
  const auto arrays = DistinctKeys(n / 6, 12), packed = DistinctKeys(n / 6, 13);
  const auto hashed_one = DistinctKeys(n / 12, 14), hashed_many = DistinctKeys(n / 12, 15);
  const auto big_batch = DistinctKeys(70000, 16);  // >= 65536: threads > 1 split it
  const auto other = DistinctKeys(n / 6, 17);      // a second filter, unioned in

  struct Answers {
    std::vector<int> test_and_add;
    std::vector<uint64_t> added;
  };
  // counted: each add call gets `added`; otherwise NULL (an exclusive writer then runs its
  // uncounted loops: kernel_table.hpp's NewKeys).
  auto build = [&](uint32_t mode, Answers *answers, bool counted = true) {
    Filter f = Make(o);
    EXPECT_EQ(abloom_set_writer_mode(f.get(), mode), ABLOOM_OK);
    for (const auto &k : single) EXPECT_EQ(abloom_add(f.get(), k.data(), k.size()), ABLOOM_OK);
    for (const auto &k : tests_and_adds) {
      answers->test_and_add.push_back(abloom_test_and_add(f.get(), k.data(), k.size()));
    }
    for (const auto &k : single) {  // present already: a repeat reports 1
      answers->test_and_add.push_back(abloom_test_and_add(f.get(), k.data(), k.size()));
    }
    uint64_t count = 0;
    uint64_t *added = counted ? &count : nullptr;
    const Batch a(arrays), p(packed), big(big_batch);
    EXPECT_EQ(abloom_add_many(f.get(), a.ptrs.data(), a.lens.data(), a.size(), added), ABLOOM_OK);
    answers->added.push_back(count);
    EXPECT_EQ(abloom_add_packed(f.get(), p.packed.data(), p.packed.size(), p.offsets.data(),
                                p.size(), added),
              ABLOOM_OK);
    answers->added.push_back(count);
    EXPECT_EQ(abloom_add_packed(f.get(), big.packed.data(), big.packed.size(), big.offsets.data(),
                                big.size(), added),
              ABLOOM_OK);
    answers->added.push_back(count);
    for (uint64_t h : Hashes(f.get(), hashed_one))
      EXPECT_EQ(abloom_add_hash(f.get(), h), ABLOOM_OK);
    const std::vector<uint64_t> hm = Hashes(f.get(), hashed_many);
    EXPECT_EQ(abloom_add_hashes(f.get(), hm.data(), hm.size(), added), ABLOOM_OK);
    answers->added.push_back(count);
    Filter g = Make(o);
    AddAll(g.get(), other);
    EXPECT_EQ(abloom_union(f.get(), g.get()), ABLOOM_OK);
    return f;
  };
  Answers shared_answers, exclusive_answers;
  const Filter shared = build(ABLOOM_WRITER_SHARED, &shared_answers);
  const Filter exclusive = build(ABLOOM_WRITER_EXCLUSIVE, &exclusive_answers);
  EXPECT_EQ(abloom_equal(exclusive.get(), shared.get()), 1);
  EXPECT_EQ(Serialize(exclusive.get()), Serialize(shared.get()));
  EXPECT_EQ(exclusive_answers.test_and_add, shared_answers.test_and_add);
  EXPECT_EQ(exclusive_answers.added, shared_answers.added);
  Answers uncounted_answers;
  const Filter uncounted = build(ABLOOM_WRITER_EXCLUSIVE, &uncounted_answers, false);
  EXPECT_EQ(Serialize(uncounted.get()), Serialize(shared.get())) << "added NULL: the same bits";
  EXPECT_EQ(uncounted_answers.test_and_add, shared_answers.test_and_add);
  for (const auto *keys : {&single, &tests_and_adds, &arrays, &packed, &hashed_one, &hashed_many,
                           &big_batch, &other}) {
    EXPECT_EQ(CountOnes(TestMany(exclusive.get(), *keys)), keys->size()) << "no false negative";
  }
}

INSTANTIATE_TEST_SUITE_P(KindsShardsThreads, CapiWriterModes,
                         ::testing::Combine(::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED},
                                                              uint32_t{ABLOOM_KIND_CLASSIC}),
                                            ::testing::Values(1u, 8u), ::testing::Values(1u, 4u)),
                         [](const ::testing::TestParamInfo<KindShardsThreads> &info) {
                           return std::string(KindName(std::get<0>(info.param))) + "_Shards" +
                                  std::to_string(std::get<1>(info.param)) + "_Threads" +
                                  std::to_string(std::get<2>(info.param));
                         });

// One exclusive writer adds (single keys and batches) while readers test: every key the writer
// has published (release/acquire on a counter) tests present, at every moment. The readers also
// call every other read-only function meanwhile.
TEST(CapiWriterConcurrency, OneExclusiveWriterWithConcurrentReaders) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    SCOPED_TRACE(KindName(kind));
    constexpr size_t kKeys = 40000, kBatch = 500;
    const auto keys = DistinctKeys(kKeys, 20, 8);
    Filter f = Make(Options(kKeys, 0.01, kind, 2));
    ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
    std::atomic<size_t> published{0};
    std::atomic<bool> reader_failed{false};
    std::thread writer([&] {
      for (size_t i = 0; i < kKeys; i += kBatch) {
        if ((i / kBatch) % 2 == 0) {
          for (size_t j = i; j < i + kBatch; ++j)
            abloom_add(f.get(), keys[j].data(), keys[j].size());
        } else {
          std::vector<std::string> part(keys.begin() + i, keys.begin() + i + kBatch);
          const Batch b(part);
          abloom_add_packed(f.get(), b.packed.data(), b.packed.size(), b.offsets.data(), b.size(),
                            nullptr);
        }
        published.store(i + kBatch, std::memory_order_release);
      }
    });
    std::vector<std::thread> readers;
    for (int r = 0; r < 2; ++r) {
      readers.emplace_back([&, r] {
        size_t checked = 0;
        while (checked < kKeys) {
          const size_t upto = published.load(std::memory_order_acquire);
          for (; checked < upto; ++checked) {
            const auto &k = keys[checked];
            if (abloom_test(f.get(), k.data(), k.size()) != 1) reader_failed = true;
          }
          double estimate = 0;
          if (r == 1 && abloom_estimate_fpr(f.get(), &estimate) != ABLOOM_OK) reader_failed = true;
          std::this_thread::yield();
        }
      });
    }
    writer.join();
    for (auto &t : readers) t.join();
    EXPECT_FALSE(reader_failed.load()) << "a published key tested absent";
    EXPECT_EQ(CountOnes(TestMany(f.get(), keys)), kKeys);
    Filter shared = Make(Options(kKeys, 0.01, kind, 2));
    AddAll(shared.get(), keys);
    EXPECT_EQ(abloom_equal(f.get(), shared.get()), 1);
  }
}

// A bulk call with threads > 1 on an exclusive filter is one writer: each of its threads owns a
// part of the bits (blocks, whatever the shard count), so their plain stores never share a word.
// At capacity, where keys find bits set by others, the counts still match exactly.
TEST(CapiWriterConcurrency, ExclusiveBulkCallsWithThreadsLoseNothing) {
  for (uint32_t shards : {1u, 2u, 16u}) {
    SCOPED_TRACE("shards " + std::to_string(shards));
    abloom_options o = Options(150000, 0.01, ABLOOM_KIND_BLOCKED, shards, 5);
    o.threads = 4;
    const auto keys = DistinctKeys(150000, 21, 8);
    const Batch b(keys);
    Filter f = Make(o);
    ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
    uint64_t added = 0;
    ASSERT_EQ(abloom_add_packed(f.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                b.size(), &added),
              ABLOOM_OK);
    abloom_options serial = o;
    serial.threads = 1;
    Filter g = Make(serial);
    uint64_t added_serial = 0;
    ASSERT_EQ(abloom_add_packed(g.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                b.size(), &added_serial),
              ABLOOM_OK);
    EXPECT_EQ(added, added_serial);
    EXPECT_LT(added_serial, keys.size());  // at capacity some keys find their bits set
    EXPECT_GT(added_serial, keys.size() * 98 / 100);
    EXPECT_EQ(abloom_equal(f.get(), g.get()), 1);
  }
}

}  // namespace
