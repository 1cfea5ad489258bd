// The engine's growing filter (core/filter/growing_filter.hpp): stages appear as the newest fills,
// one writer fills each to its capacity exactly, no key is ever lost across stage boundaries
// (single keys and bulk, one thread and eight), bulk answers equal single ones, and the FPR stays
// below the target.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "filter/growing_filter.hpp"
#include "test_keys.hpp"

namespace abloom {
namespace {

using testing::mix;

// n key hashes: mix(first), mix(first + 1), ... (mix is a bijection: ranges that do not overlap
// give disjoint sets).
std::vector<uint64_t> mixed_keys(uint64_t first, size_t n) {
  std::vector<uint64_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = mix(first + i);
  return out;
}

GrowthRequest request(uint64_t c0, double fpr) {
  GrowthRequest req;
  req.initial_capacity = c0;
  req.fpr = fpr;
  return req;
}

TEST(GrowingFilter, BadRequestsLeaveAnErrorStatus) {
  GrowthRequest req = request(1000, 1.5);
  GrowingFilter f(req, 1);
  EXPECT_EQ(f.status(), Errc::invalid);
  req = request(1000, 0.01);
  req.growth = 1.0;
  GrowingFilter g(req, 1);
  EXPECT_EQ(g.status(), Errc::invalid);
}

TEST(GrowingFilter, OneWriterFillsEachStageToItsCapacity) {
  GrowingFilter f(request(1000, 0.01), 7);
  ASSERT_EQ(f.status(), Errc::ok);
  EXPECT_EQ(f.stages(), 1u);
  const auto k = mixed_keys(0, 100'000);
  uint64_t present = 0;
  for (uint64_t h : k) present += f.test_and_add_hash(h) ? 1 : 0;
  EXPECT_EQ(f.stages(), 7u);  // 1000 * (2^7 - 1) >= 100,000 > 1000 * (2^6 - 1)
  uint64_t counted = 0;
  for (uint32_t i = 0; i < f.stages(); ++i) {
    counted += f.stage_keys(i);
    if (i + 1 < f.stages()) {
      EXPECT_EQ(f.stage_keys(i), uint64_t{1000} << i) << i;
    }
    EXPECT_EQ(f.stage(i).params().capacity, uint64_t{1000} << i);
  }
  EXPECT_EQ(counted + present, k.size());
  EXPECT_LT(present, k.size() / 100);  // keys that tested present before their add: FPs
  EXPECT_FALSE(f.growth_failed());
  for (uint64_t h : k) ASSERT_TRUE(f.test_hash(h));
}

TEST(GrowingFilter, BulkAddsFillStagesAndAnswerAsSingleTests) {
  GrowingFilter f(request(1000, 0.01), 7);
  const auto k = mixed_keys(0, 100'000);
  // In uneven batches, so that runs cross stage boundaries inside a batch.
  uint64_t fresh = 0;
  for (size_t i = 0; i < k.size(); i += 7919) {
    fresh += f.add_many(k.data() + i, std::min<size_t>(7919, k.size() - i));
  }
  EXPECT_EQ(f.stages(), 7u);
  uint64_t counted = 0;
  for (uint32_t i = 0; i < f.stages(); ++i) {
    counted += f.stage_keys(i);
    if (i + 1 < f.stages()) {
      EXPECT_EQ(f.stage_keys(i), uint64_t{1000} << i) << i;
    }
  }
  EXPECT_EQ(counted, fresh);
  std::vector<uint8_t> found(k.size());
  EXPECT_EQ(f.test_many(k.data(), k.size(), found.data()), k.size());
  for (size_t i = 0; i < k.size(); ++i) ASSERT_EQ(found[i], 1) << i;
  // Foreign keys: bulk answers equal single ones, and the FPR is below the target.
  const auto other = mixed_keys(1ULL << 40, 1'000'000);
  std::vector<uint8_t> got(other.size());
  const uint64_t fps = f.test_many(other.data(), other.size(), got.data());
  uint64_t single = 0;
  for (size_t i = 0; i < other.size(); ++i) {
    ASSERT_EQ(got[i], f.test_hash(other[i]) ? 1 : 0) << i;
    single += got[i];
  }
  EXPECT_EQ(fps, single);
  const double p = 0.01, sd = std::sqrt(p * (1 - p) / other.size());
  EXPECT_LE(static_cast<double>(fps) / other.size(), p + 3 * sd);
  EXPECT_GT(fps, 0u);
  // Present and foreign keys mixed, in shares that make some stages compact the keys in play
  // and others not: the same answers.
  for (size_t every : {2, 3, 17}) {
    std::vector<uint64_t> mixed;
    for (size_t i = 0; i < 60'000; ++i) mixed.push_back(i % every == 0 ? k[i] : other[i]);
    std::vector<uint8_t> answers(mixed.size());
    uint64_t hits = 0;
    const uint64_t bulk = f.test_many(mixed.data(), mixed.size(), answers.data());
    for (size_t i = 0; i < mixed.size(); ++i) {
      ASSERT_EQ(answers[i], f.test_hash(mixed[i]) ? 1 : 0) << every << " " << i;
      hits += answers[i];
    }
    EXPECT_EQ(bulk, hits);
  }
}

TEST(GrowingFilter, ExclusiveWriterModeReachesNewStages) {
  GrowingFilter f(request(100, 0.01), 3);
  f.set_writer_mode(WriterMode::exclusive);
  const auto k = mixed_keys(5, 10'000);
  f.add_many(k.data(), k.size());
  ASSERT_GT(f.stages(), 5u);
  for (uint32_t i = 0; i < f.stages(); ++i)
    EXPECT_EQ(f.stage(i).writer_mode(), WriterMode::exclusive) << i;
  for (uint64_t h : k) ASSERT_TRUE(f.test_hash(h));
}

TEST(GrowingFilter, StopsGrowingAtTheLimitsWithoutLosingKeys) {
  // Growth barely above 1: stage i holds i + 1 keys, so kMaxStages stages hold 2,080 keys.
  GrowthRequest req = request(1, 0.01);
  req.growth = 1.0000001;
  GrowingFilter f(req, 9);
  const auto k = mixed_keys(0, 5000);
  f.add_many(k.data(), 2000);
  EXPECT_FALSE(f.growth_failed());
  for (size_t i = 2000; i < k.size(); ++i) f.add_hash(k[i]);
  EXPECT_EQ(f.stages(), kMaxStages);
  EXPECT_TRUE(f.growth_failed());
  EXPECT_GT(f.stage_keys(kMaxStages - 1), uint64_t{kMaxStages});  // the last took the rest
  for (uint64_t h : k) ASSERT_TRUE(f.test_hash(h));
}

TEST(GrowingFilter, KeysInBulkAsTheirHashes) {
  GrowingFilter by_keys(request(300, 0.01), 21), by_hashes(request(300, 0.01), 21);
  std::vector<std::string> text;
  for (int i = 0; i < 20'000; ++i) text.push_back("key-" + std::to_string(i));
  std::vector<const void*> ptrs;
  std::vector<size_t> lens;
  std::vector<uint64_t> hashes;
  for (const auto& t : text) {
    ptrs.push_back(t.data());
    lens.push_back(t.size());
    hashes.push_back(by_keys.hash(t.data(), t.size()));
  }
  const KeySource src = KeySource::of_arrays(ptrs.data(), lens.data());
  EXPECT_EQ(by_keys.add_many(src, text.size()), by_hashes.add_many(hashes.data(), hashes.size()));
  EXPECT_TRUE(by_keys.equals(by_hashes));
  EXPECT_GT(by_keys.stages(), 5u);
  std::vector<uint8_t> found(text.size());
  EXPECT_EQ(by_keys.test_many(src, text.size(), found.data()), text.size());
}

TEST(GrowingFilter, UnionStageByStage) {
  GrowingFilter a(request(1000, 0.01), 5), b(request(1000, 0.01), 5);
  const auto ka = mixed_keys(0, 3'000), kb = mixed_keys(1ULL << 36, 60'000);
  a.add_many(ka.data(), ka.size());
  b.add_many(kb.data(), kb.size());
  ASSERT_LT(a.stages(), b.stages());
  const double before = a.estimate_count();
  ASSERT_EQ(a.union_with(b), Errc::ok);
  EXPECT_EQ(a.stages(), b.stages());  // grown to the other's stages first
  for (uint64_t h : ka) ASSERT_TRUE(a.test_hash(h));
  for (uint64_t h : kb) ASSERT_TRUE(a.test_hash(h));
  EXPECT_GT(a.estimate_count(), before);
  // Other options: refused, nothing changed.
  GrowingFilter other_seed(request(1000, 0.01), 6), other_fpr(request(1000, 0.02), 5),
      other_capacity(request(999, 0.01), 5);
  for (GrowingFilter* o : {&other_seed, &other_fpr, &other_capacity}) {
    const uint32_t stages = a.stages();
    EXPECT_EQ(a.union_with(*o), Errc::mismatch);
    EXPECT_EQ(a.stages(), stages);
    EXPECT_FALSE(a.equals(*o));
  }
}

TEST(GrowingFilter, EstimatesFollowTheKeys) {
  GrowingFilter f(request(1000, 0.01), 5);
  EXPECT_EQ(f.estimate_count(), 0.0);
  EXPECT_EQ(f.estimate_fpr(), 0.0);
  const auto k = mixed_keys(0, 100'000);
  f.add_many(k.data(), k.size());
  EXPECT_NEAR(f.estimate_count(), 100'000.0, 3'000.0);
  EXPECT_GT(f.estimate_fpr(), 0.001);
  EXPECT_LT(f.estimate_fpr(), 0.01);
}

// Eight threads grow one filter from its first stage: half add key by key, half in bulk, while
// readers test keys already added. No key is lost, each stage is published once, and no stage
// ends past its capacity by more than the single-key writers can overshoot (one key each).
TEST(GrowingFilterConcurrency, EightThreadsGrowOneFilter) {
  GrowingFilter f(request(500, 0.01), 11);
  constexpr size_t kPerThread = 40'000;
  constexpr int kThreads = 8;
  std::vector<std::vector<uint64_t>> parts;
  for (int t = 0; t < kThreads; ++t) parts.push_back(mixed_keys(uint64_t(t) << 32, kPerThread));
  std::atomic<bool> lost{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto& mine = parts[t];
      for (size_t i = 0; i < mine.size(); i += 1000) {
        const size_t m = std::min<size_t>(1000, mine.size() - i);
        if (t % 2 == 0) {
          for (size_t j = 0; j < m; ++j) f.add_hash(mine[i + j]);
        } else {
          f.add_many(mine.data() + i, m);
        }
        // Everything this thread added so far is there, whatever stages others appended.
        for (size_t j = 0; j < m; j += 97) {
          if (!f.test_hash(mine[i + j])) lost = true;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(lost.load());
  for (const auto& mine : parts) {
    std::vector<uint8_t> found(mine.size());
    EXPECT_EQ(f.test_many(mine.data(), mine.size(), found.data()), mine.size());
  }
  // 320,000 keys from 500: at least 10 stages (500 * (2^9 - 1) < 320,000 * 0.99).
  EXPECT_GE(f.stages(), 10u);
  for (uint32_t i = 0; i + 1 < f.stages(); ++i) {
    EXPECT_LE(f.stage_keys(i), f.stage(i).params().capacity + kThreads) << i;
    EXPECT_GE(f.stage_keys(i), f.stage(i).params().capacity * 9 / 10) << i;
  }
}

}  // namespace
}  // namespace abloom
