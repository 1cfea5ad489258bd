// split_layout_study.cpp - a design study for issue 12, not part of the library: how fast would
// the blocked kind's bulk test and exclusive-writer add be with a "split" in-block layout, next
// to today's layout (through the installed C API) and the random-access limit, in one process?
//
// The split layout studied (scheme b-rot of the in-block study: bench/JOURNAL.md, "In-block
// scheme choice"): the 512-bit block is 16 32-bit lanes; a key sets one bit in each of k
// consecutive lanes (mod 16) from a start lane taken from the hash, the bit of lane L from the
// top 5 bits of h2 * C^(L+1). Its k bits are distinct by construction (no repeat check), and its
// 512-bit mask is one masked variable shift, so an exclusive add is a load, an OR and one masked
// store. Its FPR is 2-10% above today's layout at equal bits per key (the study's table).
//
// Usage: split_layout_study [KEYS...]   (default 1000000 10000000; 10 bits per key, k = 7)
// Prints, for the split layouts of 32-bit words (b-rot) and of 64-bit words (b64-rot, k <= 8),
// today's layout and the limit: ns/key over the limit, each the minimum of 7 rounds of 2^20 keys,
// twice. Needs AVX-512 F and BW (exits 0
// with a message on other CPUs).
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// GCC 12's AVX-512 intrinsics trip its own -Wmaybe-uninitialized (GCC bug 105593, fixed in 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "abloom.h"
#include "key_stream.hpp"
#include "layout/hash.hpp"  // core/: XXH3 as the library includes it (XXH_INLINE_ALL)
#include "peers.hpp"

namespace {

#define STUDY_AVX512 __attribute__((target("avx512f,avx512bw,bmi2")))

constexpr size_t kQueries = size_t{1} << 20;
constexpr size_t kAhead = 32;
constexpr uint32_t kK = 7;

alignas(64) uint32_t g_powers[16];  // C^(L+1), C = 0x9E3779B9

struct SplitFilter {
  uint64_t* words = nullptr;
  uint64_t bytes = 0, blocks = 0;
  explicit SplitFilter(uint64_t b) : bytes(b), blocks(b / 64) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("split_layout_study: mmap");
      std::exit(1);
    }
    (void)::madvise(p, bytes, MADV_HUGEPAGE);
    std::memset(p, 0, bytes);
    words = static_cast<uint64_t*>(p);
  }
  SplitFilter(const SplitFilter&) = delete;
  SplitFilter& operator=(const SplitFilter&) = delete;
  ~SplitFilter() { ::munmap(words, bytes); }
};

// Key i of a packed batch hashed as the library does it (core/layout/hash.hpp): the length is read
// from the offsets at run time, and keys of up to 16 bytes take XXH3's short path inline.
inline uint64_t hash_packed(const unsigned char* buf, const uint64_t* offsets, size_t i) {
  const size_t len = offsets[i + 1] - offsets[i];
  if (len <= 16) return XXH3_len_0to16_64b(buf + offsets[i], len, XXH3_kSecret, 0);
  return XXH3_64bits_withSeed(buf + offsets[i], len, 0);
}

enum class Op { test, add_exclusive, add_shared };

// The key's mask in a split layout of 32-bit words (16 lanes, k consecutive from a start) or of
// 64-bit words (8 lanes, k <= 8).
template <int kWordBits>
STUDY_AVX512 inline __m512i split_mask(uint64_t h, __m512i powers) {
  constexpr uint32_t kNeed = (uint32_t{1} << kK) - 1;
  const __m512i p =
      _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(h) | 1)), powers);
  if constexpr (kWordBits == 32) {
    const uint32_t start = static_cast<uint32_t>(h >> 32) & 15;
    const auto lanes =
        static_cast<__mmask16>(((kNeed << start) | (kNeed >> (16 - start))) & 0xFFFF);
    return _mm512_maskz_sllv_epi32(lanes, _mm512_set1_epi32(1), _mm512_srli_epi32(p, 27));
  } else {
    const uint32_t start = static_cast<uint32_t>(h >> 32) & 7;
    const auto lanes = static_cast<__mmask8>(((kNeed << start) | (kNeed >> (8 - start))) & 0xFF);
    const __m512i shifts = _mm512_srli_epi64(p, 58);  // the top 6 bits of each odd dword
    return _mm512_maskz_sllv_epi64(lanes, _mm512_set1_epi64(1), shifts);
  }
}

// The bulk loop of the library's pipeline (blocked_pipeline.hpp), over a split layout: hash and
// prefetch key i + 32 while probing key i. Op: test; add with an exclusive writer (one masked
// store); add with shared writers (one `lock or` per 64-bit word with a missing bit, as the
// library's prefetched adds). Keys are packed, as abloom_add_packed takes them.
template <Op kOp, int kWordBits>
STUDY_AVX512 uint64_t split_bulk(const SplitFilter& f, const uint64_t* packed,
                                 const uint64_t* offsets, size_t n, uint8_t* results) {
  constexpr bool kAdd = kOp != Op::test;
  const auto* keys = reinterpret_cast<const unsigned char*>(packed);
  uint64_t* ring_block[kAhead];
  uint64_t ring_hash[kAhead];
  const __m512i powers = _mm512_load_si512(g_powers);
  uint64_t count = 0;
  size_t staged = 0;
  const size_t head = n < kAhead ? n : kAhead;
  for (; staged < head; ++staged) {
    const uint64_t h = hash_packed(keys, offsets, staged);
    ring_block[staged] = f.words + peers::mulhi64(h, f.blocks) * 8;
    ring_hash[staged] = h;
    __builtin_prefetch(ring_block[staged], kAdd ? 1 : 0, 3);
  }
  for (size_t i = 0; i < n; ++i) {
    uint64_t* block = ring_block[i % kAhead];
    const uint64_t h = ring_hash[i % kAhead];
    if (staged < n) {
      const uint64_t g = hash_packed(keys, offsets, staged);
      ring_block[staged % kAhead] = f.words + peers::mulhi64(g, f.blocks) * 8;
      ring_hash[staged % kAhead] = g;
      __builtin_prefetch(ring_block[staged % kAhead], kAdd ? 1 : 0, 3);
      ++staged;
    }
    const __m512i mask = split_mask<kWordBits>(h, powers);
    const __m512i b = _mm512_load_si512(block);
    const __m512i missing = _mm512_andnot_si512(b, mask);
    if constexpr (kOp == Op::add_exclusive) {
      const __mmask8 changed = _mm512_test_epi64_mask(missing, missing);
      _mm512_mask_store_epi64(block, changed, _mm512_or_si512(b, mask));
      count += changed != 0 ? 1 : 0;
    } else if constexpr (kOp == Op::add_shared) {
      alignas(64) uint64_t words[8];
      _mm512_store_si512(words, missing);
      uint32_t changed = _mm512_test_epi64_mask(missing, missing);
      count += changed != 0 ? 1 : 0;
      for (; changed != 0; changed &= changed - 1) {
        const int w = __builtin_ctz(changed);
        __atomic_fetch_or(block + w, words[w], __ATOMIC_RELAXED);
      }
    } else {
      const bool hit = _mm512_test_epi32_mask(missing, missing) == 0;
      results[i] = hit ? 1 : 0;
      count += hit ? 1 : 0;
    }
  }
  return count;
}

// The minimum over 7 rounds of fn(), each after setup() (untimed).
template <class Fn, class Setup = void (*)()>
double best_ns_per_key(
    Fn fn, Setup setup = [] {}) {
  double best = 1e30;
  for (int r = 0; r < 7; ++r) {
    setup();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
        static_cast<double>(kQueries);
    best = ns < best ? ns : best;
  }
  return best;
}

void study(uint64_t n) {
  std::vector<uint64_t> fill(2 * n), query(2 * kQueries);
  uint64_t s = 0x5B117;
  for (auto& w : fill) w = bench::splitmix64(s);
  for (auto& w : query) w = bench::splitmix64(s);
  const size_t most = n > kQueries ? n : kQueries;
  std::vector<uint64_t> offsets(most + 1);
  for (size_t i = 0; i <= most; ++i) offsets[i] = 16 * i;

  abloom_options o;
  abloom_options_init(&o);
  o.capacity = n;
  o.bits = n * 10;
  o.k = kK;
  abloom_filter *full = nullptr, *target = nullptr;
  if (abloom_create(&o, &full) != ABLOOM_OK || abloom_create(&o, &target) != ABLOOM_OK) {
    std::fprintf(stderr, "split_layout_study: abloom_create failed\n");
    std::exit(1);
  }
  abloom_add_packed(full, fill.data(), 16 * n, offsets.data(), n, nullptr);
  abloom_set_writer_mode(target, ABLOOM_WRITER_EXCLUSIVE);
  abloom_info info{};
  info.struct_size = sizeof info;
  abloom_get_info(full, &info);
  SplitFilter split_full(info.bytes), split_target(info.bytes), limit(info.bytes);
  SplitFilter split64_full(info.bytes), split64_target(info.bytes);
  split_bulk<Op::add_exclusive, 32>(split_full, fill.data(), offsets.data(), n, nullptr);
  split_bulk<Op::add_exclusive, 64>(split64_full, fill.data(), offsets.data(), n, nullptr);

  std::vector<uint8_t> results(kQueries);
  volatile uint64_t sink = 0;
  std::printf("keys %llu, %llu bytes, k = %u:\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(info.bytes), kK);
  for (int round = 0; round < 2; ++round) {
    const double lim = best_ns_per_key([&] {
      uint64_t sum = 0;
      uint64_t ring[kAhead];
      for (size_t i = 0; i < kAhead; ++i) {
        ring[i] = peers::mulhi64(peers::hash16(&query[2 * i], 16), limit.blocks) * 8;
        __builtin_prefetch(limit.words + ring[i], 0, 3);
      }
      for (size_t i = 0; i < kQueries; ++i) {
        const uint64_t w = ring[i % kAhead];
        if (i + kAhead < kQueries) {
          ring[i % kAhead] =
              peers::mulhi64(peers::hash16(&query[2 * (i + kAhead)], 16), limit.blocks) * 8;
          __builtin_prefetch(limit.words + ring[i % kAhead], 0, 3);
        }
        sum += limit.words[w];
      }
      sink = sink + sum;
    });
    const double today_test = best_ns_per_key([&] {
      uint64_t found = 0;
      abloom_test_packed(full, query.data(), 16 * kQueries, offsets.data(), kQueries,
                         results.data(), &found);
      sink = sink + found;
    });
    auto split_test = [&](const SplitFilter& sf, auto bulk) {
      return best_ns_per_key(
          [&] { sink = sink + bulk(sf, query.data(), offsets.data(), kQueries, results.data()); });
    };
    const double test32 = split_test(split_full, split_bulk<Op::test, 32>);
    const double test64 = split_test(split64_full, split_bulk<Op::test, 64>);
    // Adds of new keys: each round starts from an empty filter (cleared outside the timing).
    auto today_add = [&](uint32_t mode) {
      abloom_set_writer_mode(target, mode);
      return best_ns_per_key(
          [&] {
            abloom_add_packed(target, query.data(), 16 * kQueries, offsets.data(), kQueries,
                              nullptr);
          },
          [&] { abloom_clear(target); });
    };
    auto split_add = [&](SplitFilter& sf, auto bulk) {
      return best_ns_per_key(
          [&] { sink = sink + bulk(sf, query.data(), offsets.data(), kQueries, nullptr); },
          [&] { std::memset(sf.words, 0, sf.bytes); });
    };
    const double today_x = today_add(ABLOOM_WRITER_EXCLUSIVE);
    const double today_s = today_add(ABLOOM_WRITER_SHARED);
    const double x32 = split_add(split_target, split_bulk<Op::add_exclusive, 32>);
    const double s32 = split_add(split_target, split_bulk<Op::add_shared, 32>);
    const double x64 = split_add(split64_target, split_bulk<Op::add_exclusive, 64>);
    const double s64 = split_add(split64_target, split_bulk<Op::add_shared, 64>);
    std::printf(
        "  limit %.2f | bulk test: today %.2fx, split32 %.2fx, split64 %.2fx | exclusive add: "
        "today %.2fx, split32 %.2fx, split64 %.2fx | lock-free add: today %.2fx, split32 %.2fx, "
        "split64 %.2fx\n",
        lim, today_test / lim, test32 / lim, test64 / lim, today_x / lim, x32 / lim, x64 / lim,
        today_s / lim, s32 / lim, s64 / lim);
  }
  abloom_free(full);
  abloom_free(target);
}

}  // namespace

int main(int argc, char** argv) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) {
    std::printf("split_layout_study: this CPU lacks AVX-512 F/BW; nothing to measure\n");
    return 0;
  }
  uint32_t x = 1;
  for (uint32_t& p : g_powers) {
    x *= 0x9E3779B9u;
    p = x;
  }
  std::vector<uint64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {1000000, 10000000};
  for (uint64_t n : sizes) study(n);
  return 0;
}
