// shards_bench.cpp - what does the shard count cost or buy? Measured through the public C API.
//
// For filters of 1M and 20M keys at 1% FPR (blocked kind) with 1, 4, 16 and 64 shards:
//   test_hashes  abloom_test_hashes, batches of 4096 absent precomputed hashes
//   test         abloom_test, one absent 16-byte key per call
//   add_many     abloom_add_many, batches of 4096 16-byte keys, threads = 1
// and bulk adds of 2^18 keys per abloom_add_many call with options.threads = 1 vs 2, for 1 and 16
// shards. The add benchmarks always add keys never added before (the key pool is renewed, outside
// the timing, each time it has been used up) into a filter holding between 0 and its capacity
// (it is cleared, outside the timing, each time it has taken its capacity). Times are wall-clock
// (the threaded adds need it), reported per key; after the runs a markdown table gives each time
// relative to shards = 1 (same op, size and threads) and, for the threaded adds, threads = 2
// relative to threads = 1.
//
// Default flags: --benchmark_min_time=0.1 --benchmark_repetitions=3 (medians are used).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "abloom.h"
#include "benchmark_args.hpp"
#include "key_stream.hpp"
#include "report.hpp"

namespace {

constexpr double kFpr = 0.01;
constexpr size_t kBatch = 4096;
constexpr size_t kBigBatch = size_t{1} << 18;
constexpr uint64_t kFillSeed = 0xF111ull;
constexpr uint64_t kQuerySeed = 0x0E41ull;

using bench::splitmix64;

[[noreturn]] void die(const char* what, int rc) {
  bench::die("shards_bench", what, abloom_strerror(rc), rc);
}

struct FilterPtr {
  abloom_filter* f = nullptr;
  FilterPtr() = default;
  FilterPtr(const FilterPtr&) = delete;
  FilterPtr& operator=(const FilterPtr&) = delete;
  ~FilterPtr() { abloom_free(f); }
};

std::unique_ptr<FilterPtr> make_filter(uint64_t n, uint32_t shards, uint32_t threads) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = n;
  o.fpr = kFpr;
  o.shards = shards;
  o.threads = threads;
  auto p = std::make_unique<FilterPtr>();
  if (int rc = abloom_create(&o, &p->f); rc != ABLOOM_OK) die("abloom_create", rc);
  return p;
}

// A pool of absent 16-byte keys (contiguous), with the pointer/length arrays of add_many, and
// absent precomputed hashes.
struct Pool {
  std::vector<uint64_t> words;  // 2 per key
  std::vector<const void*> ptrs;
  std::vector<size_t> lens;
  std::vector<uint64_t> hashes;
  explicit Pool(size_t nkeys) : words(2 * nkeys), ptrs(nkeys), lens(nkeys, 16), hashes(nkeys) {
    uint64_t s = kQuerySeed;
    for (auto& w : words) w = splitmix64(s);
    for (size_t i = 0; i < nkeys; ++i) ptrs[i] = &words[2 * i];
    for (auto& h : hashes) h = splitmix64(s);  // random 64-bit values: as good as XXH3 output
  }
  size_t size() const { return ptrs.size(); }
  // Turns every key into a new one (so that add benchmarks never re-add keys already present).
  void renew() {
    for (size_t i = 1; i < words.size(); i += 2) words[i] += 0x9E3779B97F4A7C15ull;
  }
};

struct Fixture {
  uint64_t n;
  uint32_t shards;
  std::unique_ptr<FilterPtr> full;  // n keys added, for the tests
  std::unique_ptr<FilterPtr> add1;  // empty, threads = 1
  std::unique_ptr<FilterPtr> add2;  // empty, threads = 2 (created on demand)
  std::shared_ptr<Pool> pool;
  Fixture(uint64_t n_, uint32_t shards_, std::shared_ptr<Pool> pool_)
      : n(n_), shards(shards_), pool(std::move(pool_)) {
    full = make_filter(n, shards, 1);
    add1 = make_filter(n, shards, 1);
    std::vector<uint64_t> h(1 << 16);
    uint64_t s = kFillSeed;
    for (uint64_t done = 0; done < n; done += h.size()) {
      const size_t m = std::min<uint64_t>(h.size(), n - done);
      for (size_t i = 0; i < m; ++i) h[i] = splitmix64(s);
      if (int rc = abloom_add_hashes(full->f, h.data(), m, nullptr); rc != ABLOOM_OK)
        die("abloom_add_hashes", rc);
    }
  }
  uint64_t pending = 0;  // keys added to an add filter since it was last cleared
  // After `m` more keys were added to `a`: clear it (outside the timing) once it has taken
  // `n` keys, and renew the key pool when it has been used up (`wrapped`), so that adds always
  // go into a filter loaded between 0 and its capacity, with keys it has not seen.
  void after_adds(benchmark::State& st, FilterPtr& a, size_t m, bool wrapped) {
    pending += m;
    if (!wrapped && pending < n) return;
    st.PauseTiming();
    if (wrapped) pool->renew();
    if (pending >= n) {
      abloom_clear(a.f);
      pending = 0;
    }
    st.ResumeTiming();
  }
  FilterPtr& add_filter(uint32_t threads) {
    if (threads == 1) return *add1;
    if (!add2) add2 = make_filter(n, shards, threads);
    return *add2;
  }
};

void set_per_key(benchmark::State& st, size_t keys_per_iter) {
  st.counters["ns_per_key"] =
      benchmark::Counter(static_cast<double>(st.iterations() * keys_per_iter),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * keys_per_iter));
}

void register_all() {
  struct Size {
    const char* label;
    uint64_t n;
    size_t pool;
  };
  for (Size sz : {Size{"1M", 1000000, size_t{1} << 16}, Size{"20M", 20000000, size_t{1} << 20}}) {
    auto pool = std::make_shared<std::shared_ptr<Pool>>();
    for (uint32_t shards : {1u, 4u, 16u, 64u}) {
      auto fx = std::make_shared<std::unique_ptr<Fixture>>();
      auto get = [fx, pool, sz, shards]() -> Fixture& {
        if (!*pool) *pool = std::make_shared<Pool>(std::max(sz.pool, kBigBatch));
        if (!*fx) *fx = std::make_unique<Fixture>(sz.n, shards, *pool);
        return **fx;
      };
      const std::string tail =
          std::string("/keys:") + sz.label + "/shards:" + std::to_string(shards);
      benchmark::RegisterBenchmark(("test_hashes" + tail + "/threads:1").c_str(),
                                   [get, sz](benchmark::State& st) {
                                     Fixture& f = get();
                                     std::vector<uint8_t> res(kBatch);
                                     size_t off = 0;
                                     for (auto _ : st) {
                                       uint64_t found = 0;
                                       abloom_test_hashes(f.full->f, f.pool->hashes.data() + off,
                                                          kBatch, res.data(), &found);
                                       benchmark::DoNotOptimize(found);
                                       off = (off + kBatch) & (sz.pool - 1);
                                     }
                                     set_per_key(st, kBatch);
                                   })
          ->UseRealTime();
      benchmark::RegisterBenchmark(
          ("test" + tail + "/threads:1").c_str(),
          [get, sz](benchmark::State& st) {
            Fixture& f = get();
            size_t i = 0;
            for (auto _ : st) {
              benchmark::DoNotOptimize(abloom_test(f.full->f, f.pool->ptrs[i], 16));
              i = (i + 1) & (sz.pool - 1);
            }
            set_per_key(st, 1);
          })
          ->UseRealTime();
      benchmark::RegisterBenchmark(("add_many" + tail + "/threads:1").c_str(),
                                   [get, sz](benchmark::State& st) {
                                     Fixture& f = get();
                                     FilterPtr& a = f.add_filter(1);
                                     size_t off = 0;
                                     for (auto _ : st) {
                                       abloom_add_many(a.f, f.pool->ptrs.data() + off,
                                                       f.pool->lens.data() + off, kBatch, nullptr);
                                       off = (off + kBatch) & (sz.pool - 1);
                                       f.after_adds(st, a, kBatch, off == 0);
                                     }
                                     set_per_key(st, kBatch);
                                   })
          ->UseRealTime();
      if (shards == 1 || shards == 16) {
        for (uint32_t threads : {1u, 2u}) {
          benchmark::RegisterBenchmark(
              ("add_many_256k" + tail + "/threads:" + std::to_string(threads)).c_str(),
              [get, threads](benchmark::State& st) {
                Fixture& f = get();
                FilterPtr& a = f.add_filter(threads);
                for (auto _ : st) {
                  abloom_add_many(a.f, f.pool->ptrs.data(), f.pool->lens.data(), kBigBatch,
                                  nullptr);
                  f.after_adds(st, a, kBigBatch, true);
                }
                set_per_key(st, kBigBatch);
              })
              ->UseRealTime();
        }
      }
    }
  }
}

// Keeps the median ns/key of each benchmark for the ratio tables.
class CaptureReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal (the --benchmark_color flag only reaches the default reporter).
  CaptureReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}
  std::map<std::string, double> ns_per_key;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      auto it = r.counters.find("ns_per_key");
      if (it != r.counters.end()) ns_per_key[r.run_name.function_name] = it->second.value * 1e9;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

void print_tables(const std::map<std::string, double>& ns) {
  // op/keys:K/shards:S/threads:T
  struct Id {
    std::string op, keys;
    int shards, threads;
  };
  auto parse = [](const std::string& name, Id* id) {
    std::vector<std::string> parts;
    size_t b = 0;
    for (size_t e; (e = name.find('/', b)) != std::string::npos; b = e + 1)
      parts.push_back(name.substr(b, e - b));
    parts.push_back(name.substr(b));
    if (parts.size() != 4) return false;
    id->op = parts[0];
    id->keys = parts[1].substr(parts[1].find(':') + 1);
    id->shards = std::atoi(parts[2].substr(parts[2].find(':') + 1).c_str());
    id->threads = std::atoi(parts[3].substr(parts[3].find(':') + 1).c_str());
    return true;
  };
  std::map<std::string, std::map<int, double>> rows;  // "op keys threads" -> shards -> ns
  for (const auto& [name, t] : ns) {
    Id id;
    if (parse(name, &id))
      rows[id.op + " " + id.keys + " " + std::to_string(id.threads)][id.shards] = t;
  }
  std::printf("\n## ns/key (ratio to shards = 1, same op, keys, threads)\n\n");
  std::printf("| op | keys | threads | shards=1 | shards=4 | shards=16 | shards=64 |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const auto& [label, m] : rows) {
    char op[64], keys[16];
    int threads = 0;
    if (std::sscanf(label.c_str(), "%63s %15s %d", op, keys, &threads) != 3) continue;
    std::printf("| %s | %s | %d |", op, keys, threads);
    const double base = m.count(1) ? m.at(1) : 0;
    for (int s : {1, 4, 16, 64}) bench::print_ratio_cell(m, s, base);
    std::printf("\n");
  }
  std::printf("\n## threads = 2 vs 1 (add_many, 2^18 keys per call): ns/key and speedup\n\n");
  std::printf("| keys | shards | threads=1 | threads=2 | speedup |\n|---|---|---|---|---|\n");
  for (const char* keys : {"1M", "20M"})
    for (int s : {1, 16}) {
      auto t1 = rows.find(std::string("add_many_256k ") + keys + " 1");
      auto t2 = rows.find(std::string("add_many_256k ") + keys + " 2");
      if (t1 == rows.end() || t2 == rows.end() || !t1->second.count(s) || !t2->second.count(s))
        continue;
      const double a = t1->second.at(s), b = t2->second.at(s);
      std::printf("| %s | %d | %.2f | %.2f | %.2fx |\n", keys, s, a, b, a / b);
    }
}

}  // namespace

int main(int argc, char** argv) {
  if (!bench::init_benchmark({argv, argv + argc},
                             {"--benchmark_min_time=0.1", "--benchmark_repetitions=3",
                              "--benchmark_display_aggregates_only=true"})) {
    return 2;
  }
  register_all();
  CaptureReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  print_tables(rep.ns_per_key);
  benchmark::Shutdown();
  return 0;
}
