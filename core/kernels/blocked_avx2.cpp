// The blocked kind's AVX2 kernel. Eight candidates at a time: one vector multiply gives
// h2 * C^j for j = 1..8 (layout.hpp), and each candidate's 32-bit word of the 64-byte block is
// fetched from two registers holding the block with a cross-lane permute (no gather), so testing
// k <= 8 bits costs about a dozen vector instructions instead of k scalar loads and shifts.
// Up to 16 candidates take two groups inline; 17 to 32 four groups out of line (test_wide_avx2);
// more, the scalar kernel.
//
// Compiled without -mavx2: only the functions marked ABLOOM_AVX2 use AVX2, so no inline function
// from a shared header is ever emitted with AVX2 instructions (which the linker could then pick for
// every caller). kernel_dispatch.cpp calls into this table only when the CPU has AVX2 and BMI2.
//
// Bit b of the block is bit b & 31 of 32-bit lane b >> 5 (little-endian words): candidate c picks
// lane (c >> 5) & 7 of the low (c < 256) or high register, bit c & 31 of it. With p = h2 * C^j and
// c = p >> 23, lane = p >> 28 (the permute ignores bit 3) and the half is p's sign bit.
#include "kernels/kernel_table.hpp"

#if defined(__x86_64__)

#include <immintrin.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "kernels/blocked_scalar.hpp"
#include "kernels/probe_modes.hpp"
#include "kernels/write_step.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/layout.hpp"

#define ABLOOM_AVX2 __attribute__((target("avx2,bmi,bmi2")))
#define ABLOOM_REPEATS_FN ABLOOM_AVX2
#include "kernels/blocked_repeats16.hpp"

namespace abloom {
namespace {

struct Block {
  __m256i lo, hi;
};

// The block's 64 bytes in two registers. The words are atomics other threads may be ORing into;
// the loads are done in inline asm so they are hardware reads (each aligned 16-byte half is read
// whole on AVX hardware) rather than a C++ data race. A word read a moment early only means a bit
// another thread is setting right now reads as clear: bits only go from 0 to 1, so each answer
// is one the filter gave at some instant, as with per-word atomic loads.
ABLOOM_AVX2 inline Block load_block(const uint64_t* p) noexcept {
  // Into locals, not the struct's members: an asm output that is a member kept the whole Block in
  // memory (a spill, and a realigned stack frame in every caller).
  __m256i lo, hi;
  asm("vmovdqa %1, %0" : "=x"(lo) : "m"(*reinterpret_cast<const __m256i*>(p)));
  asm("vmovdqa %1, %0" : "=x"(hi) : "m"(*reinterpret_cast<const __m256i*>(p + 4)));
  return Block{lo, hi};
}

// h2 * C^j for the 8 candidates j = first .. first + 7.
ABLOOM_AVX2 inline __m256i products(__m256i h2, uint32_t first) noexcept {
  const __m256i powers =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kProbePowers.data() + first));
  return _mm256_mullo_epi32(h2, powers);
}

// Bit i set when candidate i's bit is set in the block.
ABLOOM_AVX2 inline uint32_t probe_hits(__m256i p, const Block& b) noexcept {
  const __m256i lane = _mm256_srli_epi32(p, 28);
  const __m256i lo = _mm256_permutevar8x32_epi32(b.lo, lane);
  const __m256i hi = _mm256_permutevar8x32_epi32(b.hi, lane);
  const __m256 word =
      _mm256_blendv_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi), _mm256_castsi256_ps(p));
  // Shift the candidate's bit (c & 31) up to the sign bit: by 31 - (c & 31) = ~c & 31.
  const __m256i shift = _mm256_andnot_si256(_mm256_srli_epi32(p, 23), _mm256_set1_epi32(31));
  const __m256i top = _mm256_sllv_epi32(_mm256_castps_si256(word), shift);
  return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(top)));
}

// The candidates (bit indices) of group `group` (candidates 8*group+1 .. 8*group+8), with lanes
// >= used replaced by 512 + 8*group + lane: distinct from every candidate (< 512) and from every
// other tag, so unused lanes never compare equal. Every value fits the 16-bit lanes that the
// repeat checks pack them into.
ABLOOM_AVX2 inline __m256i candidates(__m256i p, int used, int group) noexcept {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i unused = _mm256_cmpgt_epi32(lanes, _mm256_set1_epi32(used - 1));
  const __m256i tags = _mm256_add_epi32(lanes, _mm256_set1_epi32(512 + 8 * group));
  return _mm256_blendv_epi8(_mm256_srli_epi32(p, 23), tags, unused);
}

// Lanes of a equal to some lane of b (16 16-bit lanes each): a against all 16 rotations of b.
ABLOOM_AVX2 inline __m256i matches16(__m256i a, __m256i b) noexcept {
  const __m256i w = _mm256_permute4x64_epi64(b, 0x4E);  // b rotated by 8 lanes
  __m256i eq = _mm256_or_si256(_mm256_cmpeq_epi16(a, b), _mm256_cmpeq_epi16(a, w));
#define ABLOOM_ROTATIONS(s)                                                     \
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(a, _mm256_alignr_epi8(w, b, s))); \
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(a, _mm256_alignr_epi8(b, w, s)));
  ABLOOM_ROTATIONS(2)
  ABLOOM_ROTATIONS(4)
  ABLOOM_ROTATIONS(6)
  ABLOOM_ROTATIONS(8)
  ABLOOM_ROTATIONS(10)
  ABLOOM_ROTATIONS(12)
  ABLOOM_ROTATIONS(14)
#undef ABLOOM_ROTATIONS
  return eq;
}

// Whether two of the first k <= 16 candidates are equal (layout.hpp's has_repeat).
ABLOOM_AVX2 inline bool has_repeat_avx2(__m256i pa, __m256i pb, uint32_t k) noexcept {
  const int used = static_cast<int>(k);
  if (k <= 8) {
    // The 8 candidates as 16-bit lanes of one 128-bit register, against rotations by 1 to 4.
    const __m256i a = candidates(pa, used, 0);
    const __m128i v = _mm_packus_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    __m128i eq = _mm_cmpeq_epi16(v, _mm_alignr_epi8(v, v, 2));
    eq = _mm_or_si128(eq, _mm_cmpeq_epi16(v, _mm_alignr_epi8(v, v, 4)));
    eq = _mm_or_si128(eq, _mm_cmpeq_epi16(v, _mm_alignr_epi8(v, v, 6)));
    eq = _mm_or_si128(eq, _mm_cmpeq_epi16(v, _mm_alignr_epi8(v, v, 8)));
    return !_mm_testz_si128(eq, eq);
  }
  // The 16 candidates as 16-bit lanes of one register.
  const __m256i eq =
      repeats16(_mm256_packus_epi32(candidates(pa, 8, 0), candidates(pb, used - 8, 1)));
  return !_mm256_testz_si256(eq, eq);
}

// The same for 17 <= k <= 32 (four groups p[0..3]): two registers of 16 candidates each, each
// against itself and the first against the second.
ABLOOM_AVX2 inline bool has_repeat_wide(const __m256i* p, uint32_t k) noexcept {
  const int used = static_cast<int>(k);
  const __m256i v1 = _mm256_packus_epi32(candidates(p[0], 8, 0), candidates(p[1], 8, 1));
  const __m256i v2 =
      _mm256_packus_epi32(candidates(p[2], used - 16, 2), candidates(p[3], used - 24, 3));
  const __m256i eq =
      _mm256_or_si256(_mm256_or_si256(repeats16(v1), repeats16(v2)), matches16(v1, v2));
  return !_mm256_testz_si256(eq, eq);
}

// Candidate mask bits that must be set: the low k of 32 (group g in bits 8g .. 8g+7).
inline uint32_t needed(uint32_t k) noexcept {
  return static_cast<uint32_t>((uint64_t{1} << k) - 1);
}

// k = 17..32 (false-positive rates below about 1e-5): four groups of 8 candidates. Out of line:
// a filter's k never changes, so the branch to here is predicted and the k <= 16 code stays as
// it was.
ABLOOM_AVX2 __attribute__((noinline)) bool test_wide_avx2(const uint64_t* block, uint64_t h,
                                                          uint32_t k) noexcept {
  const Block b = load_block(block);
  const __m256i h2 = _mm256_set1_epi32(static_cast<int>(probe_seed(h)));
  const uint32_t need = needed(k);
  __m256i p[4];
  for (uint32_t g = 0; g < 4; ++g) {
    p[g] = products(h2, 1 + 8 * g);
    const uint32_t want = need >> (8 * g) & 0xFF;
    if ((probe_hits(p[g], b) & want) != want) return false;
  }
  if (!has_repeat_wide(p, k)) return true;
  return blocked_test_distinct(block, h, k);
}

template <class Writer, Arrival kArrival>
ABLOOM_AVX2 __attribute__((noinline)) bool add_wide_avx2(uint64_t* block, uint64_t h,
                                                         uint32_t k) noexcept {
  const Block b = load_block(block);
  const __m256i h2 = _mm256_set1_epi32(static_cast<int>(probe_seed(h)));
  __m256i p[4];
  for (uint32_t g = 0; g < 4; ++g) p[g] = products(h2, 1 + 8 * g);
  if (has_repeat_wide(p, k)) return blocked_add_scalar<Writer>(block, h, k);
  uint32_t hits = 0;
  for (uint32_t g = 0; g < 4; ++g) hits |= probe_hits(p[g], b) << (8 * g);
  const uint32_t missing = ~hits & needed(k);
  alignas(32) uint32_t c[32];
  for (size_t g = 0; g < 4; ++g) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(c + 8 * g), _mm256_srli_epi32(p[g], 23));
  }
  set_missing_bits<Writer, kArrival>(block, c, k, missing);
  return missing == 0;
}

// Inlined into the bulk loops at every optimisation level (at -O2 GCC called it per key, which
// made bulk tests slower: bench/JOURNAL.md, "AVX-512 kernel, merged atomic ORs, -O2 inlining").
template <bool kNarrow>
ABLOOM_AVX2 __attribute__((always_inline)) inline bool test_avx2(const uint64_t* block, uint64_t h,
                                                                 uint32_t k) noexcept {
  if (!kNarrow && k > 16) [[unlikely]]
    return k <= 32 ? test_wide_avx2(block, h, k) : blocked_test_scalar(block, h, k);
  const Block b = load_block(block);
  const __m256i h2 = _mm256_set1_epi32(static_cast<int>(probe_seed(h)));
  const __m256i pa = products(h2, 1);
  const uint32_t need = needed(k);
  if ((probe_hits(pa, b) & need & 0xFF) != (need & 0xFF)) return false;  // most absent keys
  __m256i pb = pa;
  if (k > 8) {
    pb = products(h2, 9);
    if ((probe_hits(pb, b) << 8 & need) != (need & 0xFF00)) return false;
  }
  // All of the first k candidates are set: the key is present unless two of them are the same
  // bit, and then its further candidates decide.
  if (!has_repeat_avx2(pa, pb, k)) return true;
  return blocked_test_distinct(block, h, k);
}

// An exclusive writer's store of the block: `lo` and `hi` (its halves ORed with the key's bits)
// written back when the key changed it, and to a scratch block otherwise (store_target's
// branch-free select of the address), so that adds of keys already present leave their
// lines clean (Store::if_changed; Store::always passes `changed` true). Both halves are written
// when either changes: they share one cache line, which one store dirties as much as two. Two
// stores per key, where a word-by-word write takes a store per touched word; with the block not yet
// in cache each of those holds the store queue (on the AVX-512 kernel, one masked store made
// exclusive adds much faster: bench/JOURNAL.md, "Suite before and after"). The stores are inline
// asm, hardware stores rather than a C++ data race with concurrent readers (allowed alongside an
// exclusive writer), and each aligned 8-byte word is written whole.
ABLOOM_AVX2 inline void store_block_if_changed(uint64_t* block, __m256i lo, __m256i hi,
                                               bool changed) noexcept {
  alignas(64) __m256i scratch[2];
  __m256i* halves = store_target(reinterpret_cast<__m256i*>(block), scratch, changed);
  asm volatile("vmovdqa %2, %0\n\tvmovdqa %3, %1"
               : "=m"(halves[0]), "=m"(halves[1])
               : "x"(lo), "x"(hi));
}

// Inlined into the bulk loops (the compiler would otherwise call it per key: it is long).
template <class Writer, Arrival kArrival, bool kNarrow, Store kStore>
ABLOOM_AVX2 __attribute__((always_inline)) inline bool add_avx2(uint64_t* block, uint64_t h,
                                                                uint32_t k) noexcept {
  if (!kNarrow && k > 16) [[unlikely]] {
    return k <= 32 ? add_wide_avx2<Writer, kArrival>(block, h, k)
                   : blocked_add_scalar<Writer>(block, h, k);
  }
  const Block b = load_block(block);
  const __m256i h2 = _mm256_set1_epi32(static_cast<int>(probe_seed(h)));
  const __m256i pa = products(h2, 1);
  const __m256i pb = k > 8 ? products(h2, 9) : pa;
  if (has_repeat_avx2(pa, pb, k)) return blocked_add_scalar<Writer>(block, h, k);  // rare
  uint32_t hits = probe_hits(pa, b);
  if (k > 8) hits |= probe_hits(pb, b) << 8;
  const uint32_t missing = ~hits & needed(k);
  alignas(32) uint32_t c[16];
  _mm256_store_si256(reinterpret_cast<__m256i*>(c), _mm256_srli_epi32(pa, 23));
  _mm256_store_si256(reinterpret_cast<__m256i*>(c + 8), _mm256_srli_epi32(pb, 23));
  if constexpr (std::is_same_v<Writer, ExclusiveWriter>) {
    // Store::always ORs in all k bits (the same block): what the key found is then not needed.
    const uint32_t set = kStore == Store::always ? needed(k) : missing;
    alignas(32) uint64_t words[8] = {};
    for (uint32_t j = 0; j < k; ++j) {
      words[c[j] >> 6] |= static_cast<uint64_t>(set >> j & 1) << (c[j] & 63);
    }
    const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(words));
    const __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(words + 4));
    store_block_if_changed(block, _mm256_or_si256(b.lo, lo), _mm256_or_si256(b.hi, hi),
                           kStore == Store::always || missing != 0);
  } else {
    set_missing_bits<Writer, kArrival>(block, c, k, missing);
  }
  return missing == 0;
}

// ---- The split layout (layout.hpp): one bit in each of k <= 16 consecutive 32-bit words -------

// Which 64-bit words of one half a mask has bits in (bit i for word i).
ABLOOM_AVX2 inline uint32_t nonzero_words(__m256i v) noexcept {
  const __m256i zero = _mm256_cmpeq_epi64(v, _mm256_setzero_si256());
  return ~static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(zero))) & 0xF;
}

// The key's mask, per 32-byte half: word w (lane w % 8 of half w / 8) holds bit
// (h2 * C^(w+1)) >> 27 when w is one of the key's k words, which the start selects.
ABLOOM_AVX2 inline Block split_mask_avx2(uint64_t h, uint32_t k) noexcept {
  const uint32_t h2 = probe_seed(h);
  const uint32_t* window = split_window(split_start(h2), k);
  const __m256i sel_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(window));
  const __m256i sel_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(window + 8));
  const __m256i v = _mm256_set1_epi32(static_cast<int>(h2));
  const __m256i one = _mm256_set1_epi32(1);
  return Block{
      _mm256_and_si256(sel_lo, _mm256_sllv_epi32(one, _mm256_srli_epi32(products(v, 1), 27))),
      _mm256_and_si256(sel_hi, _mm256_sllv_epi32(one, _mm256_srli_epi32(products(v, 9), 27)))};
}

struct Avx2SplitProbe {
  template <bool, Answer kAnswer = Answer::branch, Window = Window::table>
  ABLOOM_AVX2 __attribute__((always_inline)) static bool test(const uint64_t* block, uint64_t h,
                                                              uint32_t k) noexcept {
    const Block m = split_mask_avx2(h, k);
    const Block b = load_block(block);
    const __m256i missing =
        _mm256_or_si256(_mm256_andnot_si256(b.lo, m.lo), _mm256_andnot_si256(b.hi, m.hi));
    return present_unless<kAnswer>(_mm256_testz_si256(missing, missing) == 0);
  }
  template <class Writer, Arrival kArrival, bool, Store kStore>
  ABLOOM_AVX2 __attribute__((always_inline)) static bool add(uint64_t* block, uint64_t h,
                                                             uint32_t k) noexcept {
    const Block m = split_mask_avx2(h, k);
    const Block b = load_block(block);
    const __m256i miss_lo = _mm256_andnot_si256(b.lo, m.lo);
    const __m256i miss_hi = _mm256_andnot_si256(b.hi, m.hi);
    const bool present =
        (_mm256_testz_si256(miss_lo, miss_lo) & _mm256_testz_si256(miss_hi, miss_hi)) != 0;
    if constexpr (std::is_same_v<Writer, ExclusiveWriter>) {
      store_block_if_changed(block, _mm256_or_si256(b.lo, m.lo), _mm256_or_si256(b.hi, m.hi),
                             kStore == Store::always || !present);
    } else {
      alignas(32) uint64_t words[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(words), miss_lo);
      _mm256_store_si256(reinterpret_cast<__m256i*>(words + 4), miss_hi);
      const uint32_t touched = nonzero_words(m.lo) | nonzero_words(m.hi) << 4;
      const uint32_t changed = nonzero_words(miss_lo) | nonzero_words(miss_hi) << 4;
      write_words<Writer, kArrival>(block, words, touched, changed);
    }
    return present;
  }
};

struct Avx2Probe {
  template <bool kNarrow, Answer = Answer::branch, Window = Window::table>
  ABLOOM_AVX2 __attribute__((always_inline)) static bool test(const uint64_t* block, uint64_t h,
                                                              uint32_t k) noexcept {
    return test_avx2<kNarrow>(block, h, k);
  }
  template <class Writer, Arrival kArrival, bool kNarrow, Store kStore>
  ABLOOM_AVX2 __attribute__((always_inline)) static bool add(uint64_t* block, uint64_t h,
                                                             uint32_t k) noexcept {
    return add_avx2<Writer, kArrival, kNarrow, kStore>(block, h, k);
  }
};

}  // namespace
}  // namespace abloom

#define ABLOOM_HALF_FN ABLOOM_AVX2
#define ABLOOM_HALF_NATIVE 1
#include "kernels/blocked_half_x86.hpp"

#define ABLOOM_KERNEL_FN ABLOOM_AVX2
#include "kernels/blocked_pipeline.hpp"

namespace abloom {

const BlockedKernels kBlockedAvx2[kLayouts] = {
    make_blocked_kernels<Avx2Probe>(Isa::avx2, "avx2", Layout::distinct),
    make_blocked_kernels<Avx2SplitProbe>(Isa::avx2, "avx2", Layout::split),
    make_blocked_kernels<HalfX86Probe>(Isa::avx2, "avx2", Layout::half)};

}  // namespace abloom

#endif  // __x86_64__ (elsewhere kernel_dispatch.cpp never asks for this table)
