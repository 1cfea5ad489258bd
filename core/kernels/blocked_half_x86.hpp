// The half layout's probe (layout.hpp, abloom_layout.h) for the x86 vector kernels, written once
// over 256-bit intrinsics: a key's 8 bits and its half of the block are one register each, so
// AVX-512 has nothing to add to AVX2 here. Included by blocked_avx2.cpp and by
// blocked_avx512_kernel.hpp (natively, and emulated through SIMDe in the tests), each of which
// defines first:
//   ABLOOM_HALF_FN      the functions' attributes (its target attribute, or nothing);
//   ABLOOM_HALF_NATIVE  1 on hardware: the half is read and written in inline asm (as the
//                       including kernel reads its blocks: hardware accesses, not a C++ data race
//                       with other threads' atomic ORs) and tested with vptest; 0 under SIMDe,
//                       whose portable _mm256_testz_si256 misses set lanes (see the AVX-512
//                       kernel's packed repeat check).
// A key's bits come from r = h * G (abloom_spec_half_r): lane q of r broadcast and shifted left
// by 5q gives, in the top 5 bits of each of its 32-bit words, the bits of the half's words 2q and
// 2q + 1, so the mask is one broadcast, two shifts and one variable shift, and the half's address
// one shift, one AND and one add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/probe_modes.hpp"
#include "kernels/write_step.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/layout.hpp"

namespace abloom {
namespace {

// The key's bit in each of its half's 8 words, lane w for word w.
ABLOOM_HALF_FN inline __m256i half_bits_x86(uint64_t r) noexcept {
  const __m256i lanes = _mm256_sllv_epi64(_mm256_set1_epi64x(static_cast<long long>(r)),
                                          _mm256_setr_epi64x(0, 5, 10, 15));
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(lanes, 27));
}

ABLOOM_HALF_FN inline __m256i half_load_x86(const uint64_t* half) noexcept {
#if ABLOOM_HALF_NATIVE
  __m256i v;
  asm("vmovdqa %1, %0" : "=x"(v) : "m"(*reinterpret_cast<const __m256i*>(half)));
  return v;
#else
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(half));
#endif
}

// An exclusive writer's store of the half, whole (each aligned 8-byte word written whole, so
// concurrent readers see it before or after).
ABLOOM_HALF_FN inline void half_store_x86(uint64_t* half, __m256i v) noexcept {
#if ABLOOM_HALF_NATIVE
  asm volatile("vmovdqa %1, %0" : "=m"(*reinterpret_cast<__m256i*>(half)) : "x"(v));
#else
  alignas(32) uint64_t words[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(words), v);
  for (uint32_t w = 0; w < 4; ++w) store_word(half + w, words[w]);
#endif
}

// Which 64-bit words of v are nonzero (bit w for word w).
ABLOOM_HALF_FN inline uint32_t half_nonzero_words_x86(__m256i v) noexcept {
  const __m256i zero = _mm256_cmpeq_epi64(v, _mm256_setzero_si256());
  return ~static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(zero))) & 0xF;
}

ABLOOM_HALF_FN inline bool half_any_x86(__m256i v) noexcept {
#if ABLOOM_HALF_NATIVE
  return _mm256_testz_si256(v, v) == 0;
#else
  return half_nonzero_words_x86(v) != 0;
#endif
}

// k is always kHalfK in this layout (the options, the format and Shape's checks refuse any
// other), so the probe does not read it.
struct HalfX86Probe {
  template <bool, Answer kAnswer = Answer::branch, Window = Window::table>
  ABLOOM_HALF_FN __attribute__((always_inline)) static bool test(const uint64_t* block, uint64_t h,
                                                                 uint32_t) noexcept {
    const uint64_t r = abloom_spec_half_r(h);
    const __m256i b = half_load_x86(block + size_t{4} * abloom_spec_half_index(r));
    return present_unless<kAnswer>(half_any_x86(_mm256_andnot_si256(b, half_bits_x86(r))));
  }

  // The exclusive writer stores the half ORed with the key's bits: where Store::if_changed, to a
  // scratch half instead when no bit was missing (a branch-free select of the address, as the
  // other probes do, so a repeat leaves its line clean). The shared writer ORs the missing bits
  // in per word (write_step.hpp); each of the half's 4 words holds two of the key's bits.
  template <class Writer, Arrival kArrival, bool, Store kStore>
  ABLOOM_HALF_FN __attribute__((always_inline)) static bool add(uint64_t* block, uint64_t h,
                                                                uint32_t) noexcept {
    const uint64_t r = abloom_spec_half_r(h);
    uint64_t* half = block + size_t{4} * abloom_spec_half_index(r);
    const __m256i bits = half_bits_x86(r);
    const __m256i b = half_load_x86(half);
    const __m256i missing = _mm256_andnot_si256(b, bits);
    const bool present = !half_any_x86(missing);
    if constexpr (std::is_same_v<Writer, ExclusiveWriter>) {
      alignas(32) uint64_t scratch[4];
      half_store_x86(store_target(half, scratch, kStore == Store::always || !present),
                     _mm256_or_si256(b, bits));
    } else {
      alignas(32) uint64_t words[4];
      _mm256_store_si256(reinterpret_cast<__m256i*>(words), missing);
      write_words<Writer, kArrival>(half, words, 0xF, half_nonzero_words_x86(missing));
    }
    return present;
  }
};

}  // namespace
}  // namespace abloom
