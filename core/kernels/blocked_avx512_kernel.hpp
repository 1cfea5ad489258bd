// The blocked kind's AVX-512 kernel, written once and compiled twice:
//   - core/kernels/blocked_avx512.cpp: natively (target attributes, <immintrin.h>), the kernel the
//     library runs on CPUs with AVX-512 F and CD;
//   - tests/avx512_emulated.cpp: through SIMDe's portable versions of the same intrinsics, so the
//     kernel's logic is checked against the scalar reference on every machine, AVX-512 or not.
// The including file provides the intrinsics and defines:
//   ABLOOM_AVX512_FN        attributes of every function here (a target attribute, or nothing);
//   ABLOOM_AVX512_ASM_LOAD  1 to read and write the block with inline asm (native only: see
//                           avx512_load_block and avx512_store_words);
//   ABLOOM_AVX512_WIDE      the distinct layout's kernel table for k > 16 (native: the AVX2 one,
//   which every
//                           AVX-512 CPU runs and which handles k <= 32 in four groups; emulated:
//                           the scalar one, which runs anywhere).
//
// Why AVX-512 pays here: one 512-bit register holds the whole 64-byte block, so one `vpermd`
// fetches each of 16 candidates' words (AVX2 needs two permutes and a blend, for 8), a rotate
// brings each candidate's bit to bit 0 and one `vptestmd` gives the 16 answers as a mask: k <= 16
// bits in fewer instructions than AVX2 needs for 8. And `vpconflictd` finds a
// repeat among the first k candidates in one instruction, where AVX2 compares the candidates
// packed as 16-bit lanes with their rotations (4 for k <= 8, 8 for k <= 16, about 14 and 24
// instructions): a test pays that only for present keys, an add for every key. (On Intel cores
// vpconflictd itself is slow: there the kernel uses the packed compare, see RepeatCheck.) An add
// builds the key's 512-bit mask in registers and, for an exclusive writer, ORs it in with one
// masked store.
//
// Candidate j of a key is bit c = p >> 23 of the block, p = h2 * C^j (layout.hpp): 32-bit lane
// c >> 5 = p >> 28 of the register (vpermd reads the index's low 4 bits), bit c & 31 of it
// (rotate counts are taken mod 32, so the rotate needs no mask).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/blocked_scalar.hpp"
#include "kernels/kernel_table.hpp"
#include "kernels/probe_modes.hpp"
#include "kernels/write_step.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/layout.hpp"

#define ABLOOM_REPEATS_FN ABLOOM_AVX512_FN
#include "kernels/blocked_repeats16.hpp"

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
ABLOOM_AVX512_FN inline bool avx512_has_repeat_conflict(__m512i candidates,
                                                        uint16_t need) noexcept {
  const __m512i earlier_equal = _mm512_maskz_conflict_epi32(need, candidates);
  return _mm512_test_epi32_mask(earlier_equal, earlier_equal) != 0;
}

// The same without vpconflictd: the 16 candidates packed as 16-bit lanes against their rotations
// (blocked_repeats16.hpp, as in the AVX2 kernel). Lanes >= k hold 512 + lane, distinct from every
// candidate and from each other.
ABLOOM_AVX512_FN inline bool avx512_has_repeat_packed(__m512i candidates, uint16_t need) noexcept {
  const __m512i tags =
      _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                       _mm512_set1_epi32(512));
  const __m512i tagged = _mm512_mask_blend_epi32(need, tags, candidates);
  const __m256i v =
      _mm256_packus_epi32(_mm512_castsi512_si256(tagged), _mm512_extracti64x4_epi64(tagged, 1));
  const __m256i eq = repeats16(v);
  // movemask, not vptest: SIMDe 0.7.4's portable _mm256_testz_si256 misses set lanes, which the
  // emulated test build caught.
  return _mm256_movemask_epi8(eq) != 0;
}

// Which of the two the kernel uses. vpconflictd is a few cycles on AMD Zen 4 and the packed
// compare was slower there (bulk test of present keys: bench/JOURNAL.md, "The kernels side by
// side"); on Intel cores vpconflictd on 16 lanes is microcoded into about twenty uops, and on
// Sapphire Rapids the kernel with it lost to the AVX2 kernel, whose check is the packed one (issue
// 12). kernel_dispatch.cpp picks per vendor.
enum class RepeatCheck { conflict, packed };

template <RepeatCheck kCheck>
ABLOOM_AVX512_FN __attribute__((always_inline)) inline bool avx512_has_repeat(
    __m512i candidates, uint16_t need) noexcept {
  if constexpr (kCheck == RepeatCheck::packed) {
    return avx512_has_repeat_packed(candidates, need);
  } else {
    return avx512_has_repeat_conflict(candidates, need);
  }
}

inline uint16_t avx512_need(uint32_t k) noexcept {
  return static_cast<uint16_t>((uint32_t{1} << k) - 1);
}

// Inlined into the bulk loops at every optimisation level (as in blocked_avx2.cpp).
template <RepeatCheck kCheck, bool kNarrow>
ABLOOM_AVX512_FN __attribute__((always_inline)) inline bool avx512_test(const uint64_t* block,
                                                                        uint64_t h,
                                                                        uint32_t k) noexcept {
  if (!kNarrow && k > 16) [[unlikely]]
    return ABLOOM_AVX512_WIDE.test(block, h, k);
  const uint16_t need = avx512_need(k);
  const __m512i p = avx512_products(h);
  if ((avx512_hits(p, avx512_load_block(block)) & need) != need) return false;  // absent keys
  // All of the first k candidates are set: the key is present unless two of them are the same
  // bit, and then its further candidates decide.
  if (!avx512_has_repeat<kCheck>(_mm512_srli_epi32(p, 23), need)) return true;
  return blocked_test_distinct(block, h, k);
}

// The key's bits as a 512-bit mask, from its first k candidates (distinct or not): qword lane w
// gets bit c - 64w of each candidate c, a shift that is out of range (so 0) unless c >> 6 == w.
// Four vector instructions per candidate, no scalar merge and no store per bit.
ABLOOM_AVX512_FN inline __m512i avx512_key_mask(__m512i candidates, uint32_t k) noexcept {
  alignas(64) uint32_t c[16];
  _mm512_store_si512(c, candidates);
  const __m512i lane_first_bit = _mm512_setr_epi64(0, 64, 128, 192, 256, 320, 384, 448);
  const __m512i one = _mm512_set1_epi64(1);
  __m512i mask = _mm512_setzero_si512();
  for (uint32_t j = 0; j < k; ++j) {
    const __m512i shift =
        _mm512_sub_epi64(_mm512_set1_epi64(static_cast<long long>(c[j])), lane_first_bit);
    mask = _mm512_or_si512(mask, _mm512_sllv_epi64(one, shift));
  }
  return mask;
}

// An exclusive writer's store: the qwords of `value` selected by `lanes`, in one masked 64-byte
// store (one store per key, where a word-by-word write costs a store per touched word: with the
// block not yet in cache each of those holds the store queue, and adds ran slower so:
// bench/JOURNAL.md, "What bounds a single-key call out of cache"). Each 8-byte word is written
// whole, so concurrent readers (allowed alongside an exclusive writer) see it before or after.
// Native: inline asm, a hardware store rather than a C++ data race, as for the loads; emulated:
// word by word.
ABLOOM_AVX512_FN inline void avx512_store_words(uint64_t* block, __m512i value,
                                                uint8_t lanes) noexcept {
#if ABLOOM_AVX512_ASM_LOAD
  asm volatile("vmovdqa64 %1, %0%{%2%}"
               : "=m"(*reinterpret_cast<__m512i*>(block))
               : "v"(value), "Yk"(lanes));
#else
  alignas(64) uint64_t words[8];
  _mm512_store_si512(words, value);
  for (uint32_t w = 0; w < 8; ++w) {
    if ((lanes >> w & 1) != 0) store_word(block + w, words[w]);
  }
#endif
}

// ORs a key's 512-bit mask into its block; true when every bit was set already. Both layouts'
// adds end here. The exclusive writer does it with one masked store of the words that change
// (Store::always: of the whole block), with no branch on the block's contents (which, out of
// cache, would resolve only when the block arrives); the shared writer takes one atomic OR per
// word, as write_words says.
template <class Writer, Arrival kArrival, Store kStore>
ABLOOM_AVX512_FN __attribute__((always_inline)) inline bool avx512_or_mask(uint64_t* block,
                                                                           __m512i mask) noexcept {
  const __m512i b = avx512_load_block(block);
  const __m512i missing = _mm512_andnot_si512(b, mask);
  const uint8_t changed = _mm512_test_epi64_mask(missing, missing);
  if constexpr (std::is_same_v<Writer, ExclusiveWriter>) {
    avx512_store_words(block, _mm512_or_si512(b, mask), kStore == Store::always ? 0xFF : changed);
  } else {
    alignas(64) uint64_t words[8];
    _mm512_store_si512(words, missing);
    write_words<Writer, kArrival>(block, words, _mm512_test_epi64_mask(mask, mask), changed);
  }
  return changed == 0;
}

// Inlined into the bulk loops (the compiler would otherwise call it per key: it is long).
template <RepeatCheck kCheck, class Writer, Arrival kArrival, bool kNarrow, Store kStore>
ABLOOM_AVX512_FN __attribute__((always_inline)) inline bool avx512_add(uint64_t* block, uint64_t h,
                                                                       uint32_t k) noexcept {
  if (!kNarrow && k > 16) [[unlikely]] {
    if constexpr (std::is_same_v<Writer, ExclusiveWriter>) {
      return ABLOOM_AVX512_WIDE.add_exclusive(block, h, k);
    } else {
      return ABLOOM_AVX512_WIDE.add(block, h, k);
    }
  }
  const uint16_t need = avx512_need(k);
  const __m512i candidates = _mm512_srli_epi32(avx512_products(h), 23);
  // An add sets exactly the first k distinct candidates: with a repeat among the first k (about
  // k^2/1024 of keys) the further ones decide, which the scalar kernel walks.
  if (avx512_has_repeat<kCheck>(candidates, need)) return blocked_add_scalar<Writer>(block, h, k);
  return avx512_or_mask<Writer, kArrival, kStore>(block, avx512_key_mask(candidates, k));
}

// ---- The split layout (layout.hpp): one bit in each of k <= 16 consecutive 32-bit words -------

// The key's mask: word w (lane w of the register) holds bit (h2 * C^(w+1)) >> 27 when w is one of
// its k words: one multiply, one shift and one variable shift for the whole block, then the
// window's lanes. Two ways to select them, each where it measured faster (bench/JOURNAL.md,
// "The window's lanes from a table" and "Closing the gap in cache, first steps"):
//  - kWindowLoad (single-key tests, bulk tests over several shards: Window::table): the lanes
//    from split_window, one load;
//  - otherwise (adds, and bulk tests over one shard: Window::computed): the window as a 16-bit
//    rotate and a masked shift, with no load: a lock-free single add whose lanes came from the
//    table was slower.
template <bool kWindowLoad>
ABLOOM_AVX512_FN inline __m512i avx512_split_mask(uint64_t h, uint32_t k) noexcept {
  const uint32_t h2 = probe_seed(h);
  const uint32_t s = split_start(h2);
  const __m512i p = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(h2)),
                                       _mm512_loadu_si512(kProbePowers.data() + 1));
  const __m512i bits = _mm512_sllv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(p, 27));
  if constexpr (kWindowLoad) {
    return _mm512_and_si512(_mm512_loadu_si512(split_window(s, k)), bits);
  } else {
    // The k lanes from s on, wrapping: need rotated left by s as 16 bits, which is bits 16-31
    // of (need, need) shifted left by s: two shifts, with (need, need) made once per call, where
    // a rotate needs two shifts, an OR and 16 - s for every key.
    const uint32_t need = (uint32_t{1} << k) - 1;  // k <= 16
    static_assert(kSplitWords == 16);
    const auto words = static_cast<uint16_t>(((need | need << 16) << s) >> 16);
    return _mm512_maskz_mov_epi32(words, bits);
  }
}

struct Avx512SplitProbe {
  template <bool, Answer kAnswer = Answer::branch, Window kWindow = Window::table>
  ABLOOM_AVX512_FN __attribute__((always_inline)) static bool test(const uint64_t* block,
                                                                   uint64_t h,
                                                                   uint32_t k) noexcept {
    const __m512i missing = _mm512_andnot_si512(avx512_load_block(block),
                                                avx512_split_mask<kWindow == Window::table>(h, k));
    return present_unless<kAnswer>(_mm512_test_epi32_mask(missing, missing) != 0);
  }
  // As avx512_add, with no repeat check and no fallback: the k bits are distinct by construction.
  template <class Writer, Arrival kArrival, bool, Store kStore>
  ABLOOM_AVX512_FN __attribute__((always_inline)) static bool add(uint64_t* block, uint64_t h,
                                                                  uint32_t k) noexcept {
    return avx512_or_mask<Writer, kArrival, kStore>(block, avx512_split_mask<false>(h, k));
  }
};

template <RepeatCheck kCheck>
struct Avx512Probe {
  template <bool kNarrow, Answer = Answer::branch, Window = Window::table>
  ABLOOM_AVX512_FN __attribute__((always_inline)) static bool test(const uint64_t* block,
                                                                   uint64_t h,
                                                                   uint32_t k) noexcept {
    return avx512_test<kCheck, kNarrow>(block, h, k);
  }
  template <class Writer, Arrival kArrival, bool kNarrow, Store kStore>
  ABLOOM_AVX512_FN __attribute__((always_inline)) static bool add(uint64_t* block, uint64_t h,
                                                                  uint32_t k) noexcept {
    return avx512_add<kCheck, Writer, kArrival, kNarrow, kStore>(block, h, k);
  }
};

}  // namespace
}  // namespace abloom

#define ABLOOM_HALF_FN ABLOOM_AVX512_FN
#define ABLOOM_HALF_NATIVE ABLOOM_AVX512_ASM_LOAD
#include "kernels/blocked_half_x86.hpp"

#define ABLOOM_KERNEL_FN ABLOOM_AVX512_FN
#include "kernels/blocked_pipeline.hpp"

namespace abloom {
namespace {

// The tables, for the including file to export under its own names. Everything above is `inline`
// in an unnamed namespace: each including file gets its own copy (the native one and the emulated
// one must not be merged by the linker).
inline constexpr BlockedKernels kAvx512Kernels[kLayouts] = {
    make_blocked_kernels<Avx512Probe<RepeatCheck::conflict>>(Isa::avx512, "avx512",
                                                             Layout::distinct),
    make_blocked_kernels<Avx512SplitProbe>(Isa::avx512, "avx512", Layout::split),
    make_blocked_kernels<HalfX86Probe>(Isa::avx512, "avx512", Layout::half)};
inline constexpr BlockedKernels kAvx512PackedKernels[kLayouts] = {
    make_blocked_kernels<Avx512Probe<RepeatCheck::packed>>(Isa::avx512, "avx512-packed",
                                                           Layout::distinct),
    make_blocked_kernels<Avx512SplitProbe>(Isa::avx512, "avx512-packed", Layout::split),
    make_blocked_kernels<HalfX86Probe>(Isa::avx512, "avx512-packed", Layout::half)};

}  // namespace
}  // namespace abloom
