// Lock-free concurrency: many threads add disjoint and overlapping keys while others test,
// test_and_add and union, on one filter. Afterwards nothing added is missing. Run under
// ThreadSanitizer in CI (test names contain "Concurrency").
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "filter/filter.hpp"
#include "test_keys.hpp"

namespace abloom {
namespace {

// An empty filter planned for 200,000 keys at 1%, with 2^shard_bits shards and `threads` threads
// for its bulk calls.
Filter planned_filter(Kind kind, uint32_t shard_bits, uint32_t threads = 1) {
  SizingRequest req;
  req.kind = kind;
  req.capacity = 200'000;
  req.fpr = 0.01;
  req.shards = 1u << shard_bits;
  Plan plan;
  EXPECT_EQ(make_plan(req, &plan), Errc::ok);
  Shape shape;
  shape.kind = plan.kind;
  shape.k = plan.k;
  shape.shard_bits = plan.shard_bits;
  shape.blocks_per_shard = plan.blocks_per_shard;
  FilterParams params;
  params.capacity = req.capacity;
  params.threads = threads;
  return Filter(shape, params);
}

// n key hashes: the SplitMix stream of `seed`.
std::vector<uint64_t> random_keys(uint64_t seed, size_t n) {
  testing::SplitMix rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& k : v) k = rng.next();
  return v;
}

class Concurrency : public ::testing::TestWithParam<std::pair<Kind, uint32_t>> {};

TEST_P(Concurrency, AddTestUnionWithoutFalseNegatives) {
  const auto [kind, shard_bits] = GetParam();
  Filter f = planned_filter(kind, shard_bits);
  Filter side =
      planned_filter(kind, shard_bits);  // filled by its own writer, unioned into f meanwhile
  constexpr int kWriters = 4;
  constexpr size_t kPerWriter = 20'000;
  const std::vector<uint64_t> shared = random_keys(99, kPerWriter);  // every writer adds these too
  std::vector<std::vector<uint64_t>> own;
  for (int w = 0; w < kWriters; ++w) own.push_back(random_keys(100 + w, kPerWriter));
  const std::vector<uint64_t> side_keys = random_keys(200, kPerWriter);

  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (size_t i = 0; i < kPerWriter; ++i) {
        f.add_hash(f.hash(&own[w][i], 8));
        // Overlapping keys through test_and_add, half of them via the bulk path.
        if (i % 2 == 0) {
          f.test_and_add_hash(f.hash(&shared[i], 8));
        } else {
          const uint64_t h = f.hash(&shared[i], 8);
          f.add_many(&h, 1);
        }
        // A key this thread added is visible to it at once.
        ASSERT_TRUE(f.test_hash(f.hash(&own[w][i], 8)));
      }
    });
  }
  threads.emplace_back([&] {
    for (uint64_t k : side_keys) side.add_hash(side.hash(&k, 8));
  });
  threads.emplace_back([&] {  // a reader and a unioner running through it all
    // Passes until the writers are done, then one more (so the last pass sees every shared key
    // added, however the threads were scheduled).
    uint64_t sink = 0;
    for (bool last = false; !last;) {
      last = done.load();
      sink = 0;
      for (size_t i = 0; i < 1000; ++i) sink += f.test_hash(f.hash(&shared[i], 8)) ? 1 : 0;
      ASSERT_EQ(f.union_with(side), Errc::ok);
    }
    EXPECT_EQ(sink, 1000u) << "the pass after the writers finished finds every shared key";
  });
  for (size_t t = 0; t + 1 < threads.size(); ++t) threads[t].join();
  done = true;
  threads.back().join();
  ASSERT_EQ(f.union_with(side), Errc::ok);  // side's writer is done: a last union takes all

  for (const auto& list : {shared, side_keys}) {
    for (uint64_t k : list) ASSERT_TRUE(f.test_hash(f.hash(&k, 8)));
  }
  for (const auto& list : own) {
    for (uint64_t k : list) ASSERT_TRUE(f.test_hash(f.hash(&k, 8)));
  }
}

TEST_P(Concurrency, TestAndAddOfANewKeyReportsNewAtLeastOnce) {
  const auto [kind, shard_bits] = GetParam();
  Filter f = planned_filter(kind, shard_bits);
  const std::vector<uint64_t> list = random_keys(7, 20'000);
  constexpr int kThreads = 4;
  std::vector<std::vector<uint8_t>> was_present(kThreads, std::vector<uint8_t>(list.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < list.size(); ++i) {
        was_present[t][i] = f.test_and_add_hash(f.hash(&list[i], 8)) ? 1 : 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  // A key reported "present" by every thread must be a false positive of the keys added
  // before it; allow the filter's FPR (1%) with a wide margin, not more.
  size_t all_present = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    bool every = true;
    for (int t = 0; t < kThreads; ++t) every &= was_present[t][i] != 0;
    all_present += every ? 1 : 0;
  }
  EXPECT_LT(all_present, list.size() / 50);
  for (uint64_t k : list) ASSERT_TRUE(f.test_hash(f.hash(&k, 8)));
}

TEST_P(Concurrency, ParallelBulkAddMatchesSerial) {
  const auto [kind, shard_bits] = GetParam();
  Filter serial = planned_filter(kind, shard_bits, 1);
  Filter parallel = planned_filter(kind, shard_bits, 3);
  std::vector<uint64_t> hashes = random_keys(11, 150'000);
  for (size_t i = 0; i < 1000; ++i) hashes.push_back(hashes[i]);  // repeats are not new
  const uint64_t a = serial.add_many(hashes.data(), hashes.size());
  const uint64_t b = parallel.add_many(hashes.data(), hashes.size());
  EXPECT_TRUE(serial.equals(parallel));
  // The counts agree up to keys whose "new" status depends on order (false positives among
  // the batch itself): the serial count is the order-independent bound's neighbour.
  EXPECT_NEAR(static_cast<double>(a), static_cast<double>(b), 200.0);
  EXPECT_LE(a, 150'000u);
  std::vector<uint8_t> r1(hashes.size()), r2(hashes.size());
  EXPECT_EQ(parallel.test_many(hashes.data(), hashes.size(), r1.data()), hashes.size());
  EXPECT_EQ(serial.test_many(hashes.data(), hashes.size(), r2.data()), hashes.size());
}

INSTANTIATE_TEST_SUITE_P(
    Core, Concurrency,
    ::testing::Values(std::pair{Kind::blocked, 0u}, std::pair{Kind::blocked, 4u},
                      std::pair{Kind::classic, 0u}, std::pair{Kind::classic, 2u}),
    [](const auto& info) {
      return std::string(info.param.first == Kind::blocked ? "Blocked" : "Classic") + "_shards" +
             std::to_string(1u << info.param.second);
    });

}  // namespace
}  // namespace abloom
