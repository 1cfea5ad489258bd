// The blocked kind's NEON kernel (aarch64, where NEON is baseline: no target attribute and no run
// time check are needed, so isa.cpp's detect() reports it on every aarch64 CPU).
//
// Distinct layout, test: 16 candidates at a time. Four vector multiplies give h2 * C^j for
// j = 1..16 (layout.hpp); the candidates' bytes are looked up in the 64-byte block with one table
// lookup over four registers (vqtbl4q_u8: byte c >> 3, then bit c & 7), so an absent key costs
// about twenty vector instructions and no scalar load per bit. Add: the key's bits merged into a
// 64-byte mask (NEON has no scatter: a few scalar instructions per bit; a repeat shows as fewer
// than k bits in it), then the same vector write step as the split layout. Keys whose first k
// candidates repeat (about k^2/1024 of them) and k > 16 take the scalar kernel's paths, as the
// AVX2 kernel does above 32.
//
// Split layout: the key's 16 x 32-bit mask is four products shifted into one-hot lanes
// (vshlq_u32) and ANDed with the window lanes of split_window(): no repeat check, no table.
//
// Half layout: the key's 8 bits are two registers of one-hot lanes from r = h * G shifted by
// 0, 5, 10 and 15 (abloom_layout.h), its half of the block two more: no multiply per word.
#include "kernels/kernel_table.hpp"

#if defined(__aarch64__)

#include <arm_neon.h>

#include <cstdint>
#include <type_traits>

#include "kernels/blocked_scalar.hpp"
#include "kernels/probe_modes.hpp"
#include "kernels/write_step.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/layout.hpp"

// The helpers are inlined into the single-key calls and the bulk loops at every optimisation
// level: GCC otherwise left the 16-lane repeat check out of line, a call per key.
#define ABLOOM_NEON_INLINE __attribute__((always_inline)) inline

namespace abloom {
namespace {

// The block as the operand of vqtbl4q_u8: bytes 0..63 in four registers (byte b of the block is
// byte b & 15 of register b >> 4; with little-endian words that is also 32-bit word w in lane
// w & 3 of register w >> 2, and 64-bit word w in lane w & 1 of register w >> 1).
using Block = uint8x16x4_t;

// What the asm below reads or writes, so that the compiler knows which memory it touches.
struct Raw64 {
  uint64_t w[kBlockWords];
};

// The block's 64 bytes in four registers. The words are atomics other threads may be ORing into,
// so the loads are inline asm: hardware reads, not a C++ data race. A 128-bit SIMD load from an
// aligned address is two single-copy-atomic 64-bit reads (Arm ARM, B2.2.1), so each word is seen
// whole, before or after a concurrent fetch_or; bits only go from 0 to 1, so each answer is one the
// filter gave at some instant, as with eight relaxed atomic loads (which would cost eight scalar
// loads and eight inserts).
ABLOOM_NEON_INLINE Block load_block(const uint64_t* p) noexcept {
  uint8x16_t a, b, c, d;
  asm("ldp %q0, %q1, [%4]\n\tldp %q2, %q3, [%4, #32]"
      : "=w"(a), "=w"(b), "=w"(c), "=w"(d)
      : "r"(p), "m"(*reinterpret_cast<const Raw64*>(p)));
  return Block{{a, b, c, d}};
}

// An exclusive writer's store of the whole block (`value`: the block ORed with the key's bits)
// to `block`, or to `scratch` when nothing changes (Store::if_changed; Store::always passes
// `changed` true): store_target's branch-free select of the address, so a run of
// repeats leaves the line clean without a branch on bits still in flight. Two store-pair
// instructions, where a word-by-word write takes a store per changed word. Inline asm for the same
// reason as the load: concurrent readers are allowed alongside an exclusive writer, and each
// aligned 64-bit word is written whole.
ABLOOM_NEON_INLINE void store_block_if_changed(uint64_t* block, const Block& value, bool changed,
                                               Raw64* scratch) noexcept {
  Raw64* target = store_target(reinterpret_cast<Raw64*>(block), scratch, changed);
  asm volatile("stp %q2, %q3, [%1]\n\tstp %q4, %q5, [%1, #32]"
               : "=m"(*target)
               : "r"(target), "w"(value.val[0]), "w"(value.val[1]), "w"(value.val[2]),
                 "w"(value.val[3]));
}

// Whether any lane of v is nonzero (one across-lanes max, one move).
ABLOOM_NEON_INLINE bool any(uint8x16_t v) noexcept {
  return vmaxvq_u32(vreinterpretq_u32_u8(v)) != 0;
}

// Bit j set when byte lane j of v (0 or 0xFF per lane) is set.
ABLOOM_NEON_INLINE uint32_t lane_bits(uint8x16_t v) noexcept {
  static constexpr uint8_t kBits[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const uint8x16_t bits = vandq_u8(v, vld1q_u8(kBits));
  return vaddv_u8(vget_low_u8(bits)) | static_cast<uint32_t>(vaddv_u8(vget_high_u8(bits))) << 8;
}

// A key's bits in its block, in the block's register layout. (Four named registers, and every
// loop over them written out: at -O2 GCC kept arrays of vectors on the stack and looped over them.)
struct Mask {
  uint32x4_t w0, w1, w2, w3;
};

// Which 64-bit words of a and of b are nonzero: bit w of the result for word w of a, bit 8 + w
// for word w of b. The word tests are narrowed into one register of bytes (three unzips) so that
// one lane_bits reads both.
ABLOOM_NEON_INLINE uint32x4_t word_tests(uint32x4_t lo, uint32x4_t hi) noexcept {
  const uint64x2_t l = vreinterpretq_u64_u32(lo), h = vreinterpretq_u64_u32(hi);
  return vuzp1q_u32(vreinterpretq_u32_u64(vtstq_u64(l, l)), vreinterpretq_u32_u64(vtstq_u64(h, h)));
}
ABLOOM_NEON_INLINE uint32_t nonzero_words(const Mask& a, const Mask& b) noexcept {
  const uint16x8_t ta = vuzp1q_u16(vreinterpretq_u16_u32(word_tests(a.w0, a.w1)),
                                   vreinterpretq_u16_u32(word_tests(a.w2, a.w3)));
  const uint16x8_t tb = vuzp1q_u16(vreinterpretq_u16_u32(word_tests(b.w0, b.w1)),
                                   vreinterpretq_u16_u32(word_tests(b.w2, b.w3)));
  return lane_bits(vuzp1q_u8(vreinterpretq_u8_u16(ta), vreinterpretq_u8_u16(tb)));
}

// The add of a key whose mask is known, for both layouts: true when every bit was set already.
template <class Writer, Arrival kArrival, Store kStore>
ABLOOM_NEON_INLINE bool add_mask(uint64_t* block, const Mask& m) noexcept {
  const Block b = load_block(block);
  const Mask miss{vbicq_u32(m.w0, vreinterpretq_u32_u8(b.val[0])),
                  vbicq_u32(m.w1, vreinterpretq_u32_u8(b.val[1])),
                  vbicq_u32(m.w2, vreinterpretq_u32_u8(b.val[2])),
                  vbicq_u32(m.w3, vreinterpretq_u32_u8(b.val[3]))};
  const bool present =
      vmaxvq_u32(vorrq_u32(vorrq_u32(miss.w0, miss.w1), vorrq_u32(miss.w2, miss.w3))) == 0;
  if constexpr (std::is_same_v<Writer, ExclusiveWriter>) {
    const Block merged{{vorrq_u8(b.val[0], vreinterpretq_u8_u32(m.w0)),
                        vorrq_u8(b.val[1], vreinterpretq_u8_u32(m.w1)),
                        vorrq_u8(b.val[2], vreinterpretq_u8_u32(m.w2)),
                        vorrq_u8(b.val[3], vreinterpretq_u8_u32(m.w3))}};
    Raw64 scratch;
    store_block_if_changed(block, merged, kStore == Store::always || !present, &scratch);
  } else {
    alignas(16) uint64_t words[kBlockWords];
    vst1q_u64(words, vreinterpretq_u64_u32(miss.w0));
    vst1q_u64(words + 2, vreinterpretq_u64_u32(miss.w1));
    vst1q_u64(words + 4, vreinterpretq_u64_u32(miss.w2));
    vst1q_u64(words + 6, vreinterpretq_u64_u32(miss.w3));
    const uint32_t nonzero = nonzero_words(m, miss);
    write_words<Writer, kArrival>(block, words, nonzero & 0xFF, nonzero >> 8);
  }
  return present;
}

// ---- The distinct layout ------------------------------------------------------------------------

// The products h2 * C^j of candidates j = 1..16 (four per register), and their top halves
// (p >> 16, as 16-bit lanes: candidates 1..8 in `lo`, 9..16 in `hi`), from which come each
// candidate's byte in the block (c >> 3 = p >> 26) and its bit in that byte (c & 7 = (p >> 23) &
// 7).
struct Candidates {
  uint32x4_t p0, p1, p2, p3;
  uint16x8_t lo, hi;
};

template <bool kWide>
ABLOOM_NEON_INLINE Candidates candidates(uint64_t h) noexcept {
  Candidates c;
  const uint32x4_t h2 = vdupq_n_u32(probe_seed(h));
  c.p0 = vmulq_u32(h2, vld1q_u32(kProbePowers.data() + 1));
  c.p1 = vmulq_u32(h2, vld1q_u32(kProbePowers.data() + 5));
  c.lo = vuzp2q_u16(vreinterpretq_u16_u32(c.p0), vreinterpretq_u16_u32(c.p1));
  if constexpr (kWide) {
    c.p2 = vmulq_u32(h2, vld1q_u32(kProbePowers.data() + 9));
    c.p3 = vmulq_u32(h2, vld1q_u32(kProbePowers.data() + 13));
    c.hi = vuzp2q_u16(vreinterpretq_u16_u32(c.p2), vreinterpretq_u16_u32(c.p3));
  } else {
    // k <= 8: lanes 8..15 are never used; copies keep them defined at no cost.
    c.p2 = c.p0;
    c.p3 = c.p1;
    c.hi = c.lo;
  }
  return c;
}

// 0xFF in lane j when candidate j + 1's bit is set in the block.
ABLOOM_NEON_INLINE uint8x16_t probe_hits(const Candidates& c, const Block& b) noexcept {
  const uint8x16_t byte = vshrq_n_u8(vshrn_high_n_u16(vshrn_n_u16(c.lo, 8), c.hi, 8), 2);
  const uint8x16_t bit = vandq_u8(vshrn_high_n_u16(vshrn_n_u16(c.lo, 7), c.hi, 7), vdupq_n_u8(7));
  const uint8x16_t one_hot = vshlq_u8(vdupq_n_u8(1), vreinterpretq_s8_u8(bit));
  return vtstq_u8(vqtbl4q_u8(b, byte), one_hot);
}

// 0xFF in the lanes of the key's first k (<= 16) candidates. k is the filter's, so the bulk loops
// compute this once.
ABLOOM_NEON_INLINE uint8x16_t needed(uint32_t k) noexcept {
  static constexpr uint8_t kLanes[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return vcltq_u8(vld1q_u8(kLanes), vdupq_n_u8(static_cast<uint8_t>(k)));
}

// The candidates (p >> 23, 9 bits) of 8 lanes, lanes `first` + i >= k replaced by 512 + first + i:
// distinct from every candidate (< 512) and from each other, so unused lanes never compare equal.
ABLOOM_NEON_INLINE uint16x8_t tagged(uint16x8_t top, uint32_t k, uint16_t first) noexcept {
  static constexpr uint16_t kLanes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  const uint16x8_t lane = vaddq_u16(vld1q_u16(kLanes), vdupq_n_u16(first));
  const uint16x8_t used = vcltq_u16(lane, vdupq_n_u16(static_cast<uint16_t>(k)));
  return vbslq_u16(used, vshrq_n_u16(top, 7), vaddq_u16(lane, vdupq_n_u16(512)));
}

// Whether two of the first k <= 16 candidates are equal (layout.hpp's has_repeat): the lanes
// against their rotations, which pair every two lanes (1 to 4 apart around a circle of 8, 1 to 8
// around a circle of 16).
template <bool kWide>
ABLOOM_NEON_INLINE bool has_repeat_neon(const Candidates& c, uint32_t k) noexcept {
  const uint16x8_t a = tagged(c.lo, k, 0);
  if constexpr (!kWide) {
    uint16x8_t eq = vceqq_u16(a, vextq_u16(a, a, 1));
    eq = vorrq_u16(eq, vceqq_u16(a, vextq_u16(a, a, 2)));
    eq = vorrq_u16(eq, vceqq_u16(a, vextq_u16(a, a, 3)));
    eq = vorrq_u16(eq, vceqq_u16(a, vextq_u16(a, a, 4)));
    return any(vreinterpretq_u8_u16(eq));
  } else {
    // 16 lanes in two registers: the circle rotated by r is (ext(a, b, r), ext(b, a, r)).
    const uint16x8_t b = tagged(c.hi, k, 8);
    uint16x8_t eq = vceqq_u16(a, b);  // rotation by 8
#define ABLOOM_ROTATION(r)                              \
  eq = vorrq_u16(eq, vceqq_u16(a, vextq_u16(a, b, r))); \
  eq = vorrq_u16(eq, vceqq_u16(b, vextq_u16(b, a, r)));
    ABLOOM_ROTATION(1)
    ABLOOM_ROTATION(2)
    ABLOOM_ROTATION(3)
    ABLOOM_ROTATION(4)
    ABLOOM_ROTATION(5)
    ABLOOM_ROTATION(6)
    ABLOOM_ROTATION(7)
#undef ABLOOM_ROTATION
    return any(vreinterpretq_u8_u16(eq));
  }
}

template <bool kWide>
ABLOOM_NEON_INLINE bool test_narrow(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
  const Block b = load_block(block);
  const Candidates c = candidates<kWide>(h);
  if (any(vbicq_u8(needed(k), probe_hits(c, b)))) return false;  // most absent keys
  // All of the first k candidates are set: the key is present unless two of them are the same
  // bit, and then its further candidates decide.
  if (!has_repeat_neon<kWide>(c, k)) [[likely]]
    return true;
  return blocked_test_distinct(block, h, k);
}

// kNarrow (k <= 16 promised) drops the scalar fallback's branch. The branch on k <= 8 is on the
// filter's constant, so predicted: such keys need half the candidates and the short repeat check.
template <bool kNarrow>
ABLOOM_NEON_INLINE bool test_neon(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
  if (!kNarrow && k > 16) [[unlikely]]
    return blocked_test_scalar(block, h, k);
  if (k <= 8) return test_narrow<false>(block, h, k);
  return test_narrow<true>(block, h, k);
}

template <bool kWide, class Writer, Arrival kArrival, Store kStore>
ABLOOM_NEON_INLINE bool add_narrow(uint64_t* block, uint64_t h, uint32_t k) noexcept {
  const Candidates c = candidates<kWide>(h);
  // The first k candidates merged per word (NEON has no scatter: a few scalar instructions each).
  alignas(16) uint32_t cand[16];
  vst1q_u32(cand, vshrq_n_u32(c.p0, 23));
  vst1q_u32(cand + 4, vshrq_n_u32(c.p1, 23));
  if constexpr (kWide) {
    vst1q_u32(cand + 8, vshrq_n_u32(c.p2, 23));
    vst1q_u32(cand + 12, vshrq_n_u32(c.p3, 23));
  }
  alignas(16) uint64_t words[kBlockWords] = {};
  for (uint32_t j = 0; j < k; ++j) words[cand[j] >> 6] |= uint64_t{1} << (cand[j] & 63);
  const Mask m{vreinterpretq_u32_u64(vld1q_u64(words)), vreinterpretq_u32_u64(vld1q_u64(words + 2)),
               vreinterpretq_u32_u64(vld1q_u64(words + 4)),
               vreinterpretq_u32_u64(vld1q_u64(words + 6))};
  // Fewer than k bits means two candidates were the same bit (a repeat, rare): the key's bits
  // then include later candidates, which the scalar path finds. Counting the mask's bits is half
  // the instructions of the lane-rotation check the test path uses, which has no mask.
  const uint8x16_t bits = vaddq_u8(
      vaddq_u8(vcntq_u8(vreinterpretq_u8_u32(m.w0)), vcntq_u8(vreinterpretq_u8_u32(m.w1))),
      vaddq_u8(vcntq_u8(vreinterpretq_u8_u32(m.w2)), vcntq_u8(vreinterpretq_u8_u32(m.w3))));
  if (vaddvq_u8(bits) != k) [[unlikely]]
    return blocked_add_scalar<Writer>(block, h, k);
  // The mask is the key's: its clear bits come from one AND-NOT with the block (no table lookup).
  return add_mask<Writer, kArrival, kStore>(block, m);
}

template <class Writer, Arrival kArrival, bool kNarrow, Store kStore>
ABLOOM_NEON_INLINE bool add_neon(uint64_t* block, uint64_t h, uint32_t k) noexcept {
  if (!kNarrow && k > 16) [[unlikely]]
    return blocked_add_scalar<Writer>(block, h, k);
  if (k <= 8) return add_narrow<false, Writer, kArrival, kStore>(block, h, k);
  return add_narrow<true, Writer, kArrival, kStore>(block, h, k);
}

struct NeonProbe {
  template <bool kNarrow, Answer = Answer::branch, Window = Window::table>
  ABLOOM_NEON_INLINE static bool test(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
    return test_neon<kNarrow>(block, h, k);
  }
  template <class Writer, Arrival kArrival, bool kNarrow, Store kStore>
  ABLOOM_NEON_INLINE static bool add(uint64_t* block, uint64_t h, uint32_t k) noexcept {
    return add_neon<Writer, kArrival, kNarrow, kStore>(block, h, k);
  }
};

// ---- The split layout (layout.hpp): one bit in each of k <= 16 consecutive 32-bit words -------

// The key's mask: word w holds bit (h2 * C^(w+1)) >> 27 when w is one of the key's k words, which
// the start's window selects.
ABLOOM_NEON_INLINE Mask split_mask_neon(uint64_t h, uint32_t k) noexcept {
  const uint32_t h2 = probe_seed(h);
  const uint32x4x4_t window = vld1q_u32_x4(split_window(split_start(h2), k));
  const uint32x4x4_t powers = vld1q_u32_x4(kProbePowers.data() + 1);
  const uint32x4_t v = vdupq_n_u32(h2);
  auto lanes = [&](int i) __attribute__((always_inline)) {
    const uint32x4_t bit = vshrq_n_u32(vmulq_u32(v, powers.val[i]), 27);
    return vandq_u32(window.val[i], vshlq_u32(vdupq_n_u32(1), vreinterpretq_s32_u32(bit)));
  };
  return Mask{lanes(0), lanes(1), lanes(2), lanes(3)};
}

struct NeonSplitProbe {
  template <bool, Answer kAnswer = Answer::branch, Window = Window::table>
  ABLOOM_NEON_INLINE static bool test(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
    const Mask m = split_mask_neon(h, k);
    const Block b = load_block(block);
    const uint32x4_t miss = vorrq_u32(vorrq_u32(vbicq_u32(m.w0, vreinterpretq_u32_u8(b.val[0])),
                                                vbicq_u32(m.w1, vreinterpretq_u32_u8(b.val[1]))),
                                      vorrq_u32(vbicq_u32(m.w2, vreinterpretq_u32_u8(b.val[2])),
                                                vbicq_u32(m.w3, vreinterpretq_u32_u8(b.val[3]))));
    return present_unless<kAnswer>(vmaxvq_u32(miss) != 0);
  }
  template <class Writer, Arrival kArrival, bool, Store kStore>
  ABLOOM_NEON_INLINE static bool add(uint64_t* block, uint64_t h, uint32_t k) noexcept {
    return add_mask<Writer, kArrival, kStore>(block, split_mask_neon(h, k));
  }
};

// ---- The half layout (layout.hpp): one bit in each of the 8 32-bit words of one half ----------

// What the half's asm reads or writes.
struct RawHalf {
  uint64_t w[4];
};

// The key's bit in each of its half's words: 32-bit lane w of the pair for word w.
ABLOOM_NEON_INLINE uint32x4x2_t half_bits_neon(uint64_t r) noexcept {
  const uint64x2_t v = vdupq_n_u64(r);
  const int64x2_t first = {0, 5}, second = {10, 15};
  const uint32x4_t one = vdupq_n_u32(1);
  auto bits = [&](int64x2_t shifts) __attribute__((always_inline)) {
    const uint32x4_t top5 = vshrq_n_u32(vreinterpretq_u32_u64(vshlq_u64(v, shifts)), 27);
    return vshlq_u32(one, vreinterpretq_s32_u32(top5));
  };
  return uint32x4x2_t{{bits(first), bits(second)}};
}

// The half's 32 bytes (inline asm, as load_block: each 64-bit word read whole).
ABLOOM_NEON_INLINE uint32x4x2_t load_half(const uint64_t* p) noexcept {
  uint32x4_t a, b;
  asm("ldp %q0, %q1, [%2]" : "=w"(a), "=w"(b) : "r"(p), "m"(*reinterpret_cast<const RawHalf*>(p)));
  return uint32x4x2_t{{a, b}};
}

// k is always kHalfK in this layout (the options, the format and Shape's checks refuse any
// other), so the probe does not read it.
struct NeonHalfProbe {
  template <bool, Answer kAnswer = Answer::branch, Window = Window::table>
  ABLOOM_NEON_INLINE static bool test(const uint64_t* block, uint64_t h, uint32_t) noexcept {
    const uint64_t r = abloom_spec_half_r(h);
    const uint32x4x2_t m = half_bits_neon(r);
    const uint32x4x2_t b = load_half(block + size_t{4} * abloom_spec_half_index(r));
    const uint32x4_t miss = vorrq_u32(vbicq_u32(m.val[0], b.val[0]), vbicq_u32(m.val[1], b.val[1]));
    return present_unless<kAnswer>(vmaxvq_u32(miss) != 0);
  }
  // As the x86 half probe: the exclusive writer stores the half whole (to a scratch half when
  // Store::if_changed and nothing was missing); the shared writer ORs in the missing bits per word.
  template <class Writer, Arrival kArrival, bool, Store kStore>
  ABLOOM_NEON_INLINE static bool add(uint64_t* block, uint64_t h, uint32_t) noexcept {
    const uint64_t r = abloom_spec_half_r(h);
    uint64_t* half = block + size_t{4} * abloom_spec_half_index(r);
    const uint32x4x2_t m = half_bits_neon(r);
    const uint32x4x2_t b = load_half(half);
    const uint32x4_t miss0 = vbicq_u32(m.val[0], b.val[0]);
    const uint32x4_t miss1 = vbicq_u32(m.val[1], b.val[1]);
    const bool present = vmaxvq_u32(vorrq_u32(miss0, miss1)) == 0;
    if constexpr (std::is_same_v<Writer, ExclusiveWriter>) {
      RawHalf scratch;
      RawHalf* target = store_target(reinterpret_cast<RawHalf*>(half), &scratch,
                                     kStore == Store::always || !present);
      asm volatile("stp %q2, %q3, [%1]"
                   : "=m"(*target)
                   : "r"(target), "w"(vorrq_u32(b.val[0], m.val[0])),
                     "w"(vorrq_u32(b.val[1], m.val[1])));
    } else {
      alignas(16) uint64_t words[4];
      vst1q_u64(words, vreinterpretq_u64_u32(miss0));
      vst1q_u64(words + 2, vreinterpretq_u64_u32(miss1));
      uint32_t changed = 0;
      for (uint32_t w = 0; w < 4; ++w) changed |= static_cast<uint32_t>(words[w] != 0) << w;
      write_words<Writer, kArrival>(half, words, 0xF, changed);
    }
    return present;
  }
};

}  // namespace
}  // namespace abloom

#define ABLOOM_KERNEL_FN
#include "kernels/blocked_pipeline.hpp"

namespace abloom {

const BlockedKernels kBlockedNeon[kLayouts] = {
    make_blocked_kernels<NeonProbe>(Isa::neon, "neon", Layout::distinct),
    make_blocked_kernels<NeonSplitProbe>(Isa::neon, "neon", Layout::split),
    make_blocked_kernels<NeonHalfProbe>(Isa::neon, "neon", Layout::half)};

}  // namespace abloom

#endif  // __aarch64__ (elsewhere kernel_dispatch.cpp never asks for this table)
