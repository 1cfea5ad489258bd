// Growing filters against a right-sized fixed filter (issue 51's speed goals): at 100x the
// initial capacity (10M keys from 100k, 1%), a bulk test of absent keys and a bulk add of every
// key, in the same run, so the ratios hold on a shared machine. Engine level (core/), over
// 64-bit key hashes; one thread.
//
//   build/dev/bench/growth_bench --benchmark_min_time=1x   (bench/RESULTS.md has the figures)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "filter/growing_filter.hpp"
#include "model/sizing.hpp"

namespace {

constexpr uint64_t kInitial = 100'000;
constexpr uint64_t kKeys = 100 * kInitial;
constexpr double kFpr = 0.01;
constexpr size_t kBatch = 1 << 20;

uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

const std::vector<uint64_t>& hashes(uint64_t first, size_t n) {
  static std::vector<uint64_t> present, absent;
  auto& v = first == 0 ? present : absent;
  if (v.empty()) {
    v.resize(n);
    for (size_t i = 0; i < n; ++i) v[i] = mix(first + i);
  }
  return v;
}

std::unique_ptr<abloom::Filter> fixed_filter() {
  abloom::SizingRequest req;
  req.capacity = kKeys;
  req.fpr = kFpr;
  req.layout = abloom::default_layout(req);
  abloom::Plan plan;
  (void)abloom::make_plan(req, &plan);
  abloom::FilterParams params;
  params.capacity = kKeys;
  return std::make_unique<abloom::Filter>(plan.shape(1), params);
}

std::unique_ptr<abloom::GrowingFilter> growing_filter() {
  abloom::GrowthRequest req;
  req.initial_capacity = kInitial;
  req.fpr = kFpr;
  return std::make_unique<abloom::GrowingFilter>(req, 1);
}

template <class F>
void add_all(F& f, const std::vector<uint64_t>& keys) {
  for (size_t i = 0; i < keys.size(); i += kBatch) {
    f.add_many(keys.data() + i, std::min(kBatch, keys.size() - i));
  }
}

template <class Make>
void BulkAdd(benchmark::State& state, Make make) {
  const auto& keys = hashes(0, kKeys);
  for (auto _ : state) {
    state.PauseTiming();
    auto f = make();
    state.ResumeTiming();
    add_all(*f, keys);
    benchmark::DoNotOptimize(f.get());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kKeys));
}

template <class Make>
void BulkTestAbsent(benchmark::State& state, Make make) {
  auto f = make();
  add_all(*f, hashes(0, kKeys));
  const auto& absent = hashes(1ULL << 40, kBatch);
  std::vector<uint8_t> out(kBatch);
  for (auto _ : state)
    benchmark::DoNotOptimize(f->test_many(absent.data(), absent.size(), out.data()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBatch));
}

// Each stage of the grown chain alone, tested on every absent key, one after another: what the
// chain's test costs if nothing is saved between stages (an absent key meets every stage). The
// counters give each stage's share, to see which stages, in cache or not, the time goes to.
void StagesAlone(benchmark::State& state) {
  auto g = growing_filter();
  add_all(*g, hashes(0, kKeys));
  const auto& absent = hashes(1ULL << 40, kBatch);
  std::vector<uint8_t> out(kBatch);
  const uint32_t stages = g->stages();
  std::vector<double> seconds(stages);
  for (auto _ : state) {
    for (uint32_t s = 0; s < stages; ++s) {
      const auto t0 = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(g->stage(s).test_many(absent.data(), absent.size(), out.data()));
      seconds[s] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  }
  for (uint32_t s = 0; s < stages; ++s) {
    state.counters["ms_stage" + std::to_string(s)] =
        1e3 * seconds[s] / static_cast<double>(state.iterations());
    state.counters["MB_stage" + std::to_string(s)] =
        static_cast<double>(g->stage(s).shape().total_bits()) / 8e6;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBatch));
}

BENCHMARK_CAPTURE(BulkAdd, fixed, fixed_filter)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BulkAdd, growing, growing_filter)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BulkTestAbsent, fixed, fixed_filter)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BulkTestAbsent, growing, growing_filter)->Unit(benchmark::kMillisecond);
BENCHMARK(StagesAlone)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
