// single_key_limits.cpp - what bounds a single-key call out of cache (issue 12). Not abloom
// itself: loops over an array of the filter's size that do what a single-key test or add does
// to memory, one key at a time, no prefetch, no call depending on the one before:
//
//   read                XXH3-64 of a 16-byte key, multiply-high line pick, one load (the plain
//                       loop that abloom_bench's grid/limit/read_nopf measures)
//   read_filler/N       the same plus N independent one-cycle instructions per key: out of
//                       cache the reorder buffer holds fewer keys' misses at once, so time per
//                       key grows with instructions per key even though they cost no latency
//   or_words/W          one plain read-modify-write of each of W words of the key's line
//   lock_or_words/W     the same with `lock or` (what a lock-free add does per touched word)
//   masked_store        one 64-byte load, OR and one masked 64-byte store (AVX-512; what
//                       abloom's exclusive-writer add does), when the CPU has AVX-512
//
// and, on a real filter of the same size (default layout, k = 7, filled to 10 bits per key),
// keys that are mostly absent:
//
//   abloom_test         the C API's single-key test
//   abloom_inline_test  the same test compiled into the loop (capi/abloom_inline.h): XXH3 of the
//                       constant length folded, the filter's fields in registers, the probe a
//                       call into the header's AVX2 or AVX-512 function
//   abloom_inline_test/avx512_caller   the same in a loop compiled for AVX-512 (as a
//                       -march=native build on this CPU), so the probe inlines too (when the
//                       library's kernel is AVX-512)
//
// Flags: --bytes=LIST (array sizes, default 12500032,125000000: the blocked filters of 10M and
// 100M keys at 10 bits/key), plus the usual --benchmark_* ones.
#include <benchmark/benchmark.h>
// GCC 12's AVX-512 intrinsics trip its own -Wmaybe-uninitialized (GCC bug 105593, fixed in 13;
// as in core/kernels/blocked_avx512.cpp).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "abloom.h"
#include "abloom_inline.h"
#include "benchmark_args.hpp"
#include "key_stream.hpp"
#include "peers.hpp"

namespace {

constexpr size_t kKeys = size_t{1} << 20;  // keys per iteration (a fresh pool each pass)

struct Fixture {
  std::vector<uint64_t> keys;  // kKeys 16-byte keys
  uint64_t* words = nullptr;
  uint64_t bytes = 0, lines = 0;
  abloom_filter* filter = nullptr;  // default layout, bytes * 8 bits, k = 7, 10 bits per key

  explicit Fixture(uint64_t b) : keys(2 * kKeys), bytes(b / 64 * 64), lines(bytes / 64) {
    uint64_t s = 0x51461E;
    for (auto& w : keys) w = bench::splitmix64(s);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("single_key_limits: mmap");
      std::exit(1);
    }
    (void)::madvise(p, bytes, MADV_HUGEPAGE);
    std::memset(p, 0x5a, bytes);
    words = static_cast<uint64_t*>(p);
    make_filter();
  }

  // A filter of the same bytes, filled with bytes * 8 / 10 other keys (16 bytes each), so its
  // bits are as dense as a filter at capacity and its pages are touched.
  void make_filter() {
    abloom_options o;
    abloom_options_init(&o);
    o.bits = bytes * 8;
    o.capacity = o.bits / 10;
    o.k = 7;
    abloom_memory m;
    abloom_memory_init(&m);
    if (abloom_create(&o, &filter) != ABLOOM_OK || abloom_get_memory(filter, &m) != ABLOOM_OK ||
        m.layout != ABLOOM_LAYOUT_SPLIT) {
      std::fprintf(stderr, "single_key_limits: no split filter of %llu bytes\n",
                   static_cast<unsigned long long>(bytes));
      std::exit(1);
    }
    constexpr size_t kBatch = size_t{1} << 16;
    std::vector<uint64_t> batch(2 * kBatch);
    uint64_t s = 0xF111ED;
    for (uint64_t added = 0; added < o.capacity; added += kBatch) {
      for (auto& w : batch) w = bench::splitmix64(s);
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kBatch, o.capacity - added));
      // One-length packed keys: offsets are then not read, but must be valid.
      std::vector<uint64_t> offsets(n + 1);
      for (size_t i = 0; i <= n; ++i) offsets[i] = 16 * i;
      if (abloom_add_packed(filter, batch.data(), 16 * n, offsets.data(), n, nullptr) !=
          ABLOOM_OK) {
        std::fprintf(stderr, "single_key_limits: abloom_add_packed failed\n");
        std::exit(1);
      }
    }
  }

  uint64_t* line(size_t i, uint64_t* h) const {
    *h = peers::hash16(&keys[2 * i], 16);
    return words + peers::mulhi64(*h, lines) * 8;
  }
};

template <class PerKey>
void run(benchmark::State& st, PerKey per_key) {
  uint64_t sink = 0;
  for (auto _ : st) {
    for (size_t i = 0; i < kKeys; ++i) sink += per_key(i);
  }
  benchmark::DoNotOptimize(sink);
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kKeys));
}

template <int N>
inline void filler() {
  // N independent register-to-register moves: one cycle of nothing each, but a reorder-buffer
  // entry each.
  for (int j = 0; j < N; ++j) asm volatile("mov %%eax, %%r11d" ::: "r11");
}

template <int N>
void read_filler(benchmark::State& st, const Fixture& fx) {
  run(st, [&](size_t i) {
    uint64_t h;
    const uint64_t v = *fx.line(i, &h);
    filler<N>();
    return v;
  });
}

template <int W>
void or_words(benchmark::State& st, const Fixture& fx) {
  run(st, [&](size_t i) {
    uint64_t h;
    uint64_t* b = fx.line(i, &h);
    for (int j = 0; j < W; ++j) b[(h >> (3 * j)) & 7] |= uint64_t{1} << ((h >> (6 * j + 20)) & 63);
    return 0;
  });
}

template <int W>
void lock_or_words(benchmark::State& st, const Fixture& fx) {
  run(st, [&](size_t i) {
    uint64_t h;
    uint64_t* b = fx.line(i, &h);
    for (int j = 0; j < W; ++j) {
      std::atomic_ref<uint64_t>(b[(h >> (3 * j)) & 7])
          .fetch_or(uint64_t{1} << ((h >> (6 * j + 20)) & 63), std::memory_order_relaxed);
    }
    return 0;
  });
}

// A plain loop, no lambda: a lambda would not inherit the target attribute.
__attribute__((target("avx512f"))) void masked_store(benchmark::State& st, const Fixture& fx) {
  for (auto _ : st) {
    for (size_t i = 0; i < kKeys; ++i) {
      uint64_t h;
      uint64_t* b = fx.line(i, &h);
      const __m512i m = _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_set1_epi64(h & 63));
      const __m512i v = _mm512_or_si512(_mm512_load_si512(b), m);
      _mm512_mask_store_epi64(b, static_cast<__mmask8>(h >> 56), v);
    }
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kKeys));
}

void abloom_test_loop(benchmark::State& st, const Fixture& fx) {
  run(st, [&](size_t i) { return abloom_test(fx.filter, &fx.keys[2 * i], 16) == 1 ? 1 : 0; });
}

void inline_test_loop(benchmark::State& st, const Fixture& fx) {
  abloom_inline in;
  if (abloom_inline_init(&in, fx.filter) != ABLOOM_OK) std::abort();
  run(st, [&](size_t i) { return abloom_inline_test(&in, &fx.keys[2 * i], 16); });
}

// The same compiled for AVX-512 (as with -march=native on this CPU): the probe, whose target is
// AVX-512, AVX2 and BMI2, inlines too. A plain loop, no lambda: a lambda would not inherit the
// target attribute.
__attribute__((target("avx512f,avx2,bmi2"))) void inline_test_avx512_caller(benchmark::State& st,
                                                                            const Fixture& fx) {
  abloom_inline in;
  if (abloom_inline_init(&in, fx.filter) != ABLOOM_OK) std::abort();
  uint64_t sink = 0;
  for (auto _ : st) {
    for (size_t i = 0; i < kKeys; ++i) sink += abloom_inline_test(&in, &fx.keys[2 * i], 16);
  }
  benchmark::DoNotOptimize(sink);
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kKeys));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {12500032, 125000000};
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--bytes=", 0) == 0) {
      sizes.clear();
      for (const char* p = argv[i] + 8; *p != '\0';) {
        char* end = nullptr;
        sizes.push_back(std::strtoull(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  std::vector<Fixture*> fixtures;
  for (uint64_t bytes : sizes) {
    auto* fx = new Fixture(bytes);
    fixtures.push_back(fx);
    const std::string tail = "/bytes:" + std::to_string(bytes);
    auto reg = [&](const std::string& name, void (*fn)(benchmark::State&, const Fixture&)) {
      benchmark::RegisterBenchmark((name + tail).c_str(), [fn, fx](benchmark::State& st) {
        fn(st, *fx);
      })->UseRealTime();
    };
    reg("read", read_filler<0>);
    reg("read_filler/20", read_filler<20>);
    reg("read_filler/40", read_filler<40>);
    reg("read_filler/80", read_filler<80>);
    reg("or_words/1", or_words<1>);
    reg("or_words/5", or_words<5>);
    reg("lock_or_words/1", lock_or_words<1>);
    reg("lock_or_words/5", lock_or_words<5>);
    if (avx512) reg("masked_store", masked_store);
    reg("abloom_test", abloom_test_loop);
    reg("abloom_inline_test", inline_test_loop);
    if (avx512 && abloom_get_isa() == ABLOOM_ISA_AVX512) {
      reg("abloom_inline_test/avx512_caller", inline_test_avx512_caller);
    }
  }
  if (!bench::init_benchmark(rest, {"--benchmark_min_time=0.2", "--benchmark_repetitions=5",
                                    "--benchmark_display_aggregates_only=true",
                                    "--benchmark_enable_random_interleaving=true"})) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  for (auto* fx : fixtures) delete fx;
  return 0;
}
