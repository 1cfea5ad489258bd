// growth_report.cpp - issue 51's FPR and memory goals for growing filters, in one run.
//
// For targets 1% and 0.1%: a growing filter (growth 2, first stage c0 = 10,000 keys) through the
// C API, filled with random 64-bit hashes (abloom_add_hashes: a random hash is what an ideal hash
// makes of a distinct key) to 10x, 100x and 1000x c0. At each point:
//  - FPR: Q = 10M other random hashes tested (abloom_test_hashes), the measured rate against the
//    target and against target + 3 binomial sigma (the goal), and the chain's bound (abloom_info's
//    expected_fpr: the sum of its stages' model FPRs at capacity);
//  - memory: the chain's bytes over a fixed filter's for the same count and target (abloom's own
//    plan), beside RedisBloom's scheme computed by the same plans: stage i of capacity c0 2^i at
//    target p 0.5^(i+1), as many stages as that count needs.
// Prints a markdown table (bench/RESULTS.md). Deterministic: fixed streams.
//
// Usage: growth_report [--queries=N]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "abloom.h"
#include "key_stream.hpp"
#include "report.hpp"

namespace {

constexpr uint64_t kFirst = 10'000;
constexpr uint64_t kAddSeed = 0x51ADDull;
constexpr uint64_t kQuerySeed = 0x51E0ull;

[[noreturn]] void die(const char* what, int rc) {
  bench::die("growth_report", what, abloom_strerror(rc), rc);
}

uint64_t fixed_bytes(uint64_t capacity, double fpr) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = capacity;
  o.fpr = fpr;
  abloom_plan plan{};
  plan.struct_size = sizeof plan;
  if (int rc = abloom_plan_compute(&o, &plan); rc != ABLOOM_OK) die("abloom_plan_compute", rc);
  return plan.bytes;
}

// RedisBloom's scheme (EXPANSION 2, tightening ratio 0.5) by abloom's plans: the bytes of the
// stages that `count` keys fill.
uint64_t redis_bytes(uint64_t count, double fpr) {
  uint64_t bytes = 0, held = 0;
  double share = 0.5;
  for (uint64_t cap = kFirst; held < count; cap *= 2, share *= 0.5) {
    bytes += fixed_bytes(cap, fpr * share);
    held += cap;
  }
  return bytes;
}

// Calls fn(hashes, m) over n hashes from the stream at `state`, in chunks.
template <class Fn>
void for_hashes(uint64_t* state, uint64_t n, Fn fn) {
  constexpr size_t kChunk = size_t{1} << 16;
  std::vector<uint64_t> h(kChunk);
  for (uint64_t done = 0; done < n; done += kChunk) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kChunk, n - done));
    for (size_t i = 0; i < m; ++i) h[i] = bench::splitmix64(*state);
    fn(h.data(), m);
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t queries = 10'000'000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--queries=", 0) == 0) {
      queries = std::strtoull(a.c_str() + 10, nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: growth_report [--queries=N]\n");
      return 2;
    }
  }
  std::printf(
      "| target | keys | stages | chain MB | fixed MB | chain / fixed | RedisBloom / fixed |"
      " measured FPR | chain bound | target + 3 sigma | met |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (double p : {0.01, 0.001}) {
    abloom_options o;
    abloom_options_init(&o);
    o.capacity = kFirst;
    o.fpr = p;
    o.growth = 2;
    abloom_filter* f = nullptr;
    if (int rc = abloom_create(&o, &f); rc != ABLOOM_OK) die("abloom_create", rc);
    uint64_t add_state = kAddSeed, added = 0;
    for (uint64_t times : {10, 100, 1000}) {
      const uint64_t count = times * kFirst;
      for_hashes(&add_state, count - added, [&](const uint64_t* h, size_t m) {
        if (int rc = abloom_add_hashes(f, h, m, nullptr); rc != ABLOOM_OK) die("add", rc);
      });
      added = count;
      uint64_t query_state = kQuerySeed, fp = 0;
      std::vector<uint8_t> out(size_t{1} << 16);
      for_hashes(&query_state, queries, [&](const uint64_t* h, size_t m) {
        uint64_t found = 0;
        if (int rc = abloom_test_hashes(f, h, m, out.data(), &found); rc != ABLOOM_OK) {
          die("test", rc);
        }
        fp += found;
      });
      abloom_info info;
      abloom_info_init(&info);
      if (int rc = abloom_get_info(f, &info); rc != ABLOOM_OK) die("abloom_get_info", rc);
      const double measured = static_cast<double>(fp) / static_cast<double>(queries);
      const double limit = p + 3 * std::sqrt(p * (1 - p) / static_cast<double>(queries));
      const double fixed = static_cast<double>(fixed_bytes(count, p));
      std::printf(
          "| %g%% | %llux (%llu) | %u | %.3f | %.3f | %.2f | %.2f | %.4f%% (%llu) | %.4f%% |"
          " %.4f%% | %s |\n",
          p * 100, static_cast<unsigned long long>(times), static_cast<unsigned long long>(count),
          info.stages, info.bytes / 1e6, fixed / 1e6, info.bytes / fixed,
          redis_bytes(count, p) / fixed, measured * 100, static_cast<unsigned long long>(fp),
          info.expected_fpr * 100, limit * 100, measured <= limit ? "yes" : "NO");
    }
    abloom_free(f);
  }
  return 0;
}
