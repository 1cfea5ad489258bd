// The blocked kind's AVX-512 kernel, written once and compiled twice:
//   - core/blocked_avx512.cpp: natively (target attributes, <immintrin.h>), the kernel the
//     library runs on CPUs with AVX-512 F and CD;
//   - tests/avx512_emulated.cpp: through SIMDe's portable versions of the same intrinsics, so the
//     kernel's logic is checked against the scalar reference on every machine, AVX-512 or not.
// The including file provides the intrinsics and defines:
//   ABLOOM_AVX512_FN        attributes of every function here (a target attribute, or nothing);
//   ABLOOM_AVX512_ASM_LOAD  1 to read the block with inline asm (native only: see load_block);
//   ABLOOM_AVX512_WIDE      the kernel table for k > 16 (native: the AVX2 one, which every
//                           AVX-512 CPU runs and which handles k <= 32 in four groups; emulated:
//                           the scalar one, which runs anywhere).
//
// Why AVX-512 pays here: one 512-bit register holds the whole 64-byte block, so one `vpermd`
// fetches each of 16 candidates' words (AVX2 needs two permutes and a blend, for 8), a rotate
// brings each candidate's bit to bit 0 and one `vptestmd` gives the 16 answers as a mask: k <= 16
// bits in about 8 instructions, where AVX2 needs about 12 per 8. And `vpconflictd` finds a
// repeat among the first k candidates in one instruction, where AVX2 compares the candidates
// packed as 16-bit lanes with their rotations (4 for k <= 8, 8 for k <= 16, about 14 and 24
// instructions): a test pays that only for present keys, an add for every key.
//
// Candidate j of a key is bit c = p >> 23 of the block, p = h2 * C^j (layout.hpp): 32-bit lane
// c >> 5 = p >> 28 of the register (vpermd reads the index's low 4 bits), bit c & 31 of it
// (rotate counts are taken mod 32, so the rotate needs no mask).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "blocked_kernels.hpp"
#include "layout.hpp"

namespace abloom {
namespace {

// The block's 64 bytes in one register. Other threads may be ORing into its words (atomics): the
// native build reads it in inline asm, a hardware read rather than a C++ data race; each aligned
// 8-byte word is read whole. A word read a moment early only means a bit another thread is setting
// right now reads as clear: bits only go from 0 to 1, so each answer is one the filter gave at
// some instant, as with per-word atomic loads. (The emulated build is single-threaded.)
ABLOOM_AVX512_FN inline __m512i avx512_load_block(const uint64_t* p) noexcept {
#if ABLOOM_AVX512_ASM_LOAD
  __m512i b;
  asm("vmovdqa64 %1, %0" : "=v"(b) : "m"(*reinterpret_cast<const __m512i*>(p)));
  return b;
#else
  return _mm512_load_si512(p);
#endif
}

// h2 * C^j for the 16 candidates j = 1 .. 16.
ABLOOM_AVX512_FN inline __m512i avx512_products(uint64_t h) noexcept {
  const __m512i powers = _mm512_loadu_si512(kProbePowers.data() + 1);
  return _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(probe_seed(h))), powers);
}

// Bit i set when candidate i's bit is set in the block.
ABLOOM_AVX512_FN inline uint32_t avx512_hits(__m512i p, __m512i block) noexcept {
  const __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(p, 28), block);
  const __m512i bit0 = _mm512_rorv_epi32(word, _mm512_srli_epi32(p, 23));
  return _mm512_test_epi32_mask(bit0, _mm512_set1_epi32(1));
}

// Whether two of the first k candidates (lanes of `need`) are equal: vpconflictd gives each lane
// the lanes before it holding the same value; only lanes < k take part.
ABLOOM_AVX512_FN inline bool avx512_has_repeat(__m512i candidates, uint16_t need) noexcept {
  const __m512i earlier_equal = _mm512_maskz_conflict_epi32(need, candidates);
  return _mm512_test_epi32_mask(earlier_equal, earlier_equal) != 0;
}

inline uint16_t avx512_need(uint32_t k) noexcept {
  return static_cast<uint16_t>((uint32_t{1} << k) - 1);
}

// Inlined into the window loop at every optimisation level (as in blocked_avx2.cpp).
ABLOOM_AVX512_FN __attribute__((always_inline)) inline bool avx512_test(const uint64_t* block,
                                                                        uint64_t h,
                                                                        uint32_t k) noexcept {
  if (k > 16) return ABLOOM_AVX512_WIDE.test(block, h, k);
  const uint16_t need = avx512_need(k);
  const __m512i p = avx512_products(h);
  if ((avx512_hits(p, avx512_load_block(block)) & need) != need) return false;  // absent keys
  // All of the first k candidates are set: the key is present unless two of them are the same
  // bit, and then its further candidates decide.
  if (!avx512_has_repeat(_mm512_srli_epi32(p, 23), need)) return true;
  return blocked_test_distinct(block, h, k);
}

// Inlined into the window loop (the compiler would otherwise call it per key: it is long).
ABLOOM_AVX512_FN __attribute__((always_inline)) inline bool avx512_add(uint64_t* block, uint64_t h,
                                                                       uint32_t k) noexcept {
  if (k > 16) return ABLOOM_AVX512_WIDE.add(block, h, k);
  const uint16_t need = avx512_need(k);
  const __m512i p = avx512_products(h);
  const __m512i candidates = _mm512_srli_epi32(p, 23);
  // An add sets exactly the first k distinct candidates: with a repeat among the first k (about
  // k^2/1024 of keys) the further ones decide, which the scalar kernel walks.
  if (avx512_has_repeat(candidates, need)) return blocked_add_scalar(block, h, k);
  const uint32_t missing = ~avx512_hits(p, avx512_load_block(block)) & need;
  if (missing == 0) return true;  // nothing to write: keep the line clean
  alignas(64) uint32_t c[16];
  _mm512_store_si512(c, candidates);
  set_missing_bits(block, c, k, missing);
  return false;
}

// Window loops compiled with the kernel, so it is inlined per key (as in blocked_avx2.cpp).
// Everything here is `inline` in an unnamed namespace: each including file gets its own copy
// (the native one and the emulated one must not be merged by the linker).
ABLOOM_AVX512_FN inline uint64_t avx512_test_window(const BlockRef* keys, size_t m, uint32_t k,
                                                    uint8_t* results) noexcept {
  uint64_t found = 0;
  for (size_t i = 0; i < m; ++i) {
    const bool hit = avx512_test(keys[i].block, keys[i].hash, k);
    results[i] = hit ? 1 : 0;
    found += hit ? 1 : 0;
  }
  return found;
}

ABLOOM_AVX512_FN inline uint64_t avx512_add_window(const BlockRef* keys, size_t m,
                                                   uint32_t k) noexcept {
  uint64_t added = 0;
  for (size_t i = 0; i < m; ++i) added += avx512_add(keys[i].block, keys[i].hash, k) ? 0 : 1;
  return added;
}

inline constexpr BlockedKernels kAvx512Kernels{Isa::avx512, avx512_test, avx512_add,
                                               avx512_test_window, avx512_add_window};

}  // namespace
}  // namespace abloom
