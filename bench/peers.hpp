// peers.hpp - what abloom is measured against in abloom_bench (same run, same keys):
//
//   Libbloom       the classic C library (Debian libbloom-dev 1.6: two murmurhash2 values,
//                  bit (a + i b) % bits, k bits over the whole array), sized to the same bits/key.
//   MutexFilter    an abloom filter with every call behind one std::mutex: "the old way" of
//                  sharing a filter between threads.
//   LimitArray     "the machine's random-access limit": an array of the filter's byte size, one
//                  64-byte line per key picked exactly as the blocked filter picks its block
//                  (XXH3-64 of the key, multiply-high over the line count), and one read (or one
//                  OR) of a word of that line, with or without a prefetch window of 32 keys.
//
// Without libbloom (ABLOOM_BENCH_HAVE_LIBBLOOM undefined) the libbloom peer is left out.
#pragma once

#include <sys/mman.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
#include <bloom.h>
#endif

#include "abloom.h"

namespace peers {

inline uint64_t mulhi64(uint64_t a, uint64_t b) noexcept {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

inline uint64_t hash16(const void* key, size_t len, uint64_t seed = 0) noexcept {
  return XXH3_64bits_withSeed(key, len, seed);
}

#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
// libbloom sized for n keys at `bits_per_key` bits each: libbloom derives its bits from a target
// error e as n * (-ln e / ln^2 2), so e = exp(-bits_per_key * ln^2 2) gives the same memory as
// abloom with options.bits = n * bits_per_key. k = ceil(ln 2 * bits_per_key) (libbloom's rule).
class Libbloom {
 public:
  Libbloom(uint64_t n, double bits_per_key) {
    const double ln2 = std::log(2.0);
    const double error = std::exp(-bits_per_key * ln2 * ln2);
    if (n > 0x7fffffffu || bloom_init(&b_, static_cast<int>(n), error) != 0) {
      std::fprintf(stderr, "abloom_bench: bloom_init(%llu, %g) failed\n",
                   static_cast<unsigned long long>(n), error);
      std::exit(1);
    }
  }
  Libbloom(const Libbloom&) = delete;
  Libbloom& operator=(const Libbloom&) = delete;
  ~Libbloom() { bloom_free(&b_); }
  int add(const void* key, size_t len) { return bloom_add(&b_, key, static_cast<int>(len)); }
  int test(const void* key, size_t len) { return bloom_check(&b_, key, static_cast<int>(len)); }
  void clear() { bloom_reset(&b_); }
  int k() const { return b_.hashes; }
  uint64_t bytes() const { return static_cast<uint64_t>(b_.bytes); }

 private:
  struct bloom b_ {};
};
#endif

// An abloom filter with a mutex around every call.
class MutexFilter {
 public:
  explicit MutexFilter(abloom_filter* f) : f_(f) {}
  int add(const void* key, size_t len) {
    std::lock_guard<std::mutex> lock(mu_);
    return abloom_add(f_, key, len);
  }
  int test(const void* key, size_t len) {
    std::lock_guard<std::mutex> lock(mu_);
    return abloom_test(f_, key, len);
  }

 private:
  abloom_filter* f_;
  std::mutex mu_;
};

// `bytes` of 64-byte lines, mapped like the filter's large shards (anonymous mmap, transparent
// huge pages advised) and written once, so that every page is really backed (a never-written
// mapping would read the shared zero page and stay in cache).
class LimitArray {
 public:
  static constexpr size_t kWindow = 32;  // prefetch distance, as the filter's bulk calls

  explicit LimitArray(uint64_t bytes) : bytes_((bytes + 63) / 64 * 64), lines_(bytes_ / 64) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("abloom_bench: mmap");
      std::exit(1);
    }
#ifdef MADV_HUGEPAGE
    (void)::madvise(p, bytes_, MADV_HUGEPAGE);
#endif
    std::memset(p, 0x5a, bytes_);
    words_ = static_cast<uint64_t*>(p);
  }
  LimitArray(const LimitArray&) = delete;
  LimitArray& operator=(const LimitArray&) = delete;
  ~LimitArray() { ::munmap(words_, bytes_); }

  uint64_t line_of(uint64_t h) const noexcept { return mulhi64(h, lines_); }

  // One read of the first word of each key's line. HashAt(i) gives key i's 64-bit hash.
  // kPrefetch: the lines of keys i+1 .. i+32 are prefetched (hashes computed 32 keys ahead).
  template <bool kPrefetch, class HashAt>
  uint64_t read(HashAt hash_at, size_t n) const noexcept {
    uint64_t sum = 0;
    if constexpr (kPrefetch) {
      uint64_t ring[kWindow];
      const size_t head = n < kWindow ? n : kWindow;
      for (size_t i = 0; i < head; ++i) {
        ring[i] = line_of(hash_at(i)) * 8;
        __builtin_prefetch(words_ + ring[i], 0, 3);
      }
      for (size_t i = 0; i < n; ++i) {
        const uint64_t w = ring[i % kWindow];
        if (i + kWindow < n) {
          ring[i % kWindow] = line_of(hash_at(i + kWindow)) * 8;
          __builtin_prefetch(words_ + ring[i % kWindow], 0, 3);
        }
        sum += words_[w];
      }
    } else {
      for (size_t i = 0; i < n; ++i) sum += words_[line_of(hash_at(i)) * 8];
    }
    return sum;
  }

  // One plain (non-atomic) OR of one bit into a word of each key's line, lines prefetched for
  // writing 32 keys ahead.
  template <class HashAt>
  void write(HashAt hash_at, size_t n) noexcept {
    uint64_t ring[kWindow], hs[kWindow];
    const size_t head = n < kWindow ? n : kWindow;
    for (size_t i = 0; i < head; ++i) {
      hs[i] = hash_at(i);
      ring[i] = line_of(hs[i]) * 8;
      __builtin_prefetch(words_ + ring[i], 1, 3);
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t w = ring[i % kWindow], h = hs[i % kWindow];
      if (i + kWindow < n) {
        hs[i % kWindow] = hash_at(i + kWindow);
        ring[i % kWindow] = line_of(hs[i % kWindow]) * 8;
        __builtin_prefetch(words_ + ring[i % kWindow], 1, 3);
      }
      words_[w + (h & 7)] |= uint64_t{1} << (h >> 58);
    }
  }

  uint64_t bytes() const noexcept { return bytes_; }

 private:
  uint64_t bytes_, lines_;
  uint64_t* words_ = nullptr;
};

}  // namespace peers
