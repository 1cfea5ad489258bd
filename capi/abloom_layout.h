/*
 * abloom_layout.h - THE specification of abloom's frozen bit layout: how one 64-bit key hash
 * becomes a shard, a block and the bits the key sets, for every kind and layout.
 *
 * This header is the definition, not a description of one. The kernels (core/layout/layout.hpp
 * includes it), the single-key fast path compiled into callers (abloom_inline.h) and, by name, the
 * Go and Java ports (bindings/go/native.go and split_amd64.s, bindings/java/.../Probe.java) follow
 * it. It is frozen by the file format: changing any constant or step here changes which bits a
 * key sets, so files written before would answer wrongly. docs/FORMAT.md gives the same rules in
 * words; tests/vectors/ pins them.
 *
 * Names: everything this header defines starts with ABLOOM_SPEC_ (constants) or abloom_spec_
 * (functions and types), a prefix of its own, so that no name here reads as part of abloom.h's
 * API (there ABLOOM_LAYOUT_* are the layout ids of abloom_options.layout, and abloom_* are exported
 * functions). The one exception is the include guard, ABLOOM_LAYOUT_H, named after the file. The
 * names of the first version (ABLOOM_LAYOUT_BLOCK_BITS, abloom_layout_shard, ...) are deprecated
 * aliases, at the end.
 *
 * Valid C99 and C++ (clean under -std=c99 -pedantic -Wall -Wextra -Werror). Everything here is
 * `static inline` (constexpr too in C++14 and later): nothing is exported, nothing links. Needs
 * only <stdint.h>; a compiler with unsigned __int128 (GCC, Clang) for the fast multiply-high,
 * else a portable one.
 *
 * The steps, for a key of hash h (XXH3-64 of its bytes with the filter's seed):
 *
 *   shard   = the top `shard_bits` bits of h                  abloom_spec_shard
 *
 *   Blocked kind:
 *   block   = mulhi64(h << shard_bits, blocks_per_shard)       abloom_spec_block_index
 *             ("fastrange": no division, no power of two); a block is 512 bits, 8 little-endian
 *             64-bit words: bit b is bit b & 63 of word b >> 6 (byte b >> 3, bit b & 7).
 *   h2      = (low 32 bits of h) | 1                           abloom_spec_probe_seed
 *             (odd, so the sequences below never collapse).
 *   C       = 0x9E3779B9; C^j means C^j mod 2^32               abloom_spec_power
 *
 *   Distinct layout (layout id 1): candidate j = 1, 2, ... is bit (h2 * C^j mod 2^32) >> 23 of the
 *     block (abloom_spec_candidate); the key's bits are its first k DISTINCT candidates, looking
 *     at no more than abloom_spec_max_candidates(k) of them.
 *
 *   Split layout (layout id 2): the block is 16 32-bit words (word w = bits 32w .. 32w + 31). The
 *     key sets one bit in each of the k <= 16 words w = (s + j) mod 16, j = 0 .. k-1, from
 *     s = (h2 * C^17 mod 2^32) >> 28 (abloom_spec_split_start): bit (h2 * C^(w+1) mod 2^32) >> 27
 *     of word w (abloom_spec_split_bit). Word w is in the key's window when
 *     (w - s) mod 16 < k; abloom_spec_split_lane(i, k) is the all-ones lane mask of the 32-entry
 *     table that makes this one unaligned load at 16 - s.
 *
 *   Half layout (layout id 3): k = 8, one bit in each of the eight 32-bit words of one half of
 *     the block (bytes 0-31 or 32-63: words 8h .. 8h + 7 of the 16 above). r = h * G mod 2^64,
 *     with the classic kind's G below (abloom_spec_half_r); the half is bit 32 of r
 *     (abloom_spec_half_index); word w = 0 .. 7 of the half gets bit ((r << 5 (w / 2)) >> 27) & 31
 *     for even w and (r << 5 (w / 2)) >> 59 for odd w (abloom_spec_half_bit): the top 5 bits of
 *     each 32-bit word of the four 64-bit lanes r, r << 5, r << 10, r << 15, which a vector probe
 *     gets with one variable shift and one shift. No position takes bit 32 of r.
 *
 *   Write step (an add): the key's missing bits are ORed into each 64-bit word its bits fall in;
 *     a writer that ORs every touched word without waiting for the block redirects the OR of a
 *     word with no missing bit to a scratch word (abloom_spec_or_target), a branch-free select.
 *
 *   Classic kind (layout id 1, its only one): no blocks; the k bits spread over the shard's
 *     m = blocks_per_shard * 512 bits (bit b is bit b & 63 of the shard's word b >> 6), by
 *     enhanced double hashing in 64-bit fixed point: x = h << shard_bits, y = h * G mod 2^64,
 *     G = 0x9E3779B97F4A7C15; bit i (i = 0 .. k-1) is mulhi64(x, m), then x += y,
 *     y += (i + 1) * G (abloom_spec_classic_start, abloom_spec_classic_next). x / 2^64 is the
 *     position as a fraction of m; the steps of y add the cubic term of enhanced double hashing.
 *     The k bits need not be distinct.
 */
#ifndef ABLOOM_LAYOUT_H
#define ABLOOM_LAYOUT_H

#include <stdint.h>

#if defined(__cplusplus) && __cplusplus >= 201402L
#define ABLOOM_SPEC_FN static inline constexpr
#else
#define ABLOOM_SPEC_FN static inline
#endif

/** Bits and 64-bit words of a block. */
#define ABLOOM_SPEC_BLOCK_BITS 512u
#define ABLOOM_SPEC_BLOCK_WORDS 8u
/** C: the candidates' multiplier. */
#define ABLOOM_SPEC_PROBE_MUL 0x9E3779B9u
/** The split layout: 16 words of 32 bits, one bit per word, so at most 16 bits per key (the
 *  limit abloom.h names ABLOOM_SPLIT_MAX_K for the API; no second macro here); the window's start
 *  from C^17. */
#define ABLOOM_SPEC_SPLIT_WORDS 16u
#define ABLOOM_SPEC_SPLIT_START_POWER 17u
/** G: the classic kind's double-hashing multiplier (2^64 divided by the golden ratio, odd). */
#define ABLOOM_SPEC_CLASSIC_MUL UINT64_C(0x9E3779B97F4A7C15)
/** The half layout: 8 words of 32 bits in one half of the block, one bit per word, so k = 8. */
#define ABLOOM_SPEC_HALF_WORDS 8u

/** The high 64 bits of the 128-bit product a * b from 64-bit multiplies only: what
 *  abloom_spec_mulhi64 computes where the compiler has no 128-bit integer. Always defined, so
 *  tests/c99/layout_test.c checks it against the 128-bit product on the compilers that have one. */
ABLOOM_SPEC_FN uint64_t abloom_spec_mulhi64_portable(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
  const uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
  const uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
}

/** The high 64 bits of the 128-bit product a * b. */
ABLOOM_SPEC_FN uint64_t abloom_spec_mulhi64(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
  __extension__ typedef unsigned __int128 abloom_spec_u128;
  return (uint64_t)(((abloom_spec_u128)a * b) >> 64);
#else
  return abloom_spec_mulhi64_portable(a, b);
#endif
}

/** The shard of hash h: its top shard_bits bits, given shard_shift = 63 - shard_bits.
 *  ((h >> 1) >> shard_shift is h >> (64 - shard_bits) without the undefined shift by 64 when
 *  shard_bits is 0.) A 64-bit value below 1 << shard_bits: used as an index, it needs no
 *  zero-extension (a uint32_t result cost one instruction per key in the kernels). */
ABLOOM_SPEC_FN uint64_t abloom_spec_shard(uint64_t h, uint32_t shard_shift) {
  return (h >> 1) >> shard_shift;
}

/** Blocked kind: the index of h's block inside its shard, in [0, blocks_per_shard). */
ABLOOM_SPEC_FN uint64_t abloom_spec_block_index(uint64_t h, uint32_t shard_bits,
                                                uint64_t blocks_per_shard) {
  return abloom_spec_mulhi64(h << shard_bits, blocks_per_shard);
}

/** h2, the probe state of a blocked key. */
ABLOOM_SPEC_FN uint32_t abloom_spec_probe_seed(uint64_t h) { return (uint32_t)h | 1u; }

/** C^j mod 2^32. (Kernels keep the powers in a table, computed with this.) */
ABLOOM_SPEC_FN uint32_t abloom_spec_power(uint32_t j) {
  uint32_t p = 1;
  for (; j != 0; --j) p *= ABLOOM_SPEC_PROBE_MUL;
  return p;
}

/** Distinct layout: candidate j of h2 (a bit index in the 512-bit block), with power = C^j. */
ABLOOM_SPEC_FN uint32_t abloom_spec_candidate(uint32_t h2, uint32_t power) {
  return (h2 * power) >> 23;
}

/** Distinct layout: how many candidates a key of k bits may look at to find k distinct ones
 *  (in practice k + 1 or 2; the bound only makes the loop finite). */
ABLOOM_SPEC_FN uint32_t abloom_spec_max_candidates(uint32_t k) { return 4 * k + 64; }

/** Split layout: the first word s of the key's window, with power17 = C^17. */
ABLOOM_SPEC_FN uint32_t abloom_spec_split_start(uint32_t h2, uint32_t power17) {
  return (h2 * power17) >> 28;
}

/** Split layout: the key's bit (0 .. 31) in 32-bit word w of its window, with power = C^(w+1). */
ABLOOM_SPEC_FN uint32_t abloom_spec_split_bit(uint32_t h2, uint32_t power) {
  return (h2 * power) >> 27;
}

/** Split layout: entry i (0 .. 31) of the window table of a k-bit key: all ones when
 *  i % 16 < k. The 16 entries from 16 - s on are the lanes of the window from word s. */
ABLOOM_SPEC_FN uint32_t abloom_spec_split_lane(uint32_t i, uint32_t k) {
  return i % ABLOOM_SPEC_SPLIT_WORDS < k ? 0xFFFFFFFFu : 0u;
}

/** Half layout: r, the value the half and the bits come from (bench/JOURNAL.md, "Design study:
 *  the half-block layout's FPR": without the multiply the bits repeat the block index's). */
ABLOOM_SPEC_FN uint64_t abloom_spec_half_r(uint64_t h) { return h * ABLOOM_SPEC_CLASSIC_MUL; }

/** Half layout: which half of the block (0: bytes 0-31, 1: bytes 32-63). */
ABLOOM_SPEC_FN uint32_t abloom_spec_half_index(uint64_t r) { return (uint32_t)(r >> 32) & 1u; }

/** Half layout: the key's bit (0 .. 31) in 32-bit word w (0 .. 7) of its half. */
ABLOOM_SPEC_FN uint32_t abloom_spec_half_bit(uint64_t r, uint32_t w) {
  const uint64_t x = r << (5u * (w / 2u));
  return (uint32_t)((w % 2u == 0u ? x >> 27 : x >> 59) & 31u);
}

/** The write step's redirect: where to OR `bits` meant for `word`: `word` itself when bits has
 *  one set, else `scratch` (a branch-free select, so the OR never waits for the block). */
static inline uint64_t *abloom_spec_or_target(uint64_t *word, uint64_t bits, uint64_t *scratch) {
  const uintptr_t keep = (uintptr_t)0 - (uintptr_t)(bits != 0); /* all ones: OR into word */
  const uintptr_t other = (uintptr_t)scratch;
  return (uint64_t *)(other ^ (((uintptr_t)word ^ other) & keep));
}

/** Classic kind: the probe state of one key, from abloom_spec_classic_start. */
typedef struct abloom_spec_classic {
  /** The next bit's position in the shard as a fraction of it: bit mulhi64(x, m). */
  uint64_t x;
  /** x's next step. */
  uint64_t y;
  /** The shard's bits: blocks_per_shard * 512. */
  uint64_t m;
  /** Bits given so far. */
  uint64_t i;
} abloom_spec_classic;

/** Classic kind: the probe state of hash h in a filter of 1 << shard_bits shards of m bits
 *  (m = blocks_per_shard * 512). */
ABLOOM_SPEC_FN abloom_spec_classic abloom_spec_classic_start(uint64_t h, uint32_t shard_bits,
                                                             uint64_t m) {
  const abloom_spec_classic p = {h << shard_bits, h * ABLOOM_SPEC_CLASSIC_MUL, m, 0};
  return p;
}

/** Classic kind: the key's next bit, in [0, m), and the state moved on. The key's bits are the
 *  first k answers after abloom_spec_classic_start. */
ABLOOM_SPEC_FN uint64_t abloom_spec_classic_next(abloom_spec_classic *p) {
  const uint64_t pos = abloom_spec_mulhi64(p->x, p->m);
  p->i += 1;
  p->x += p->y;
  p->y += p->i * ABLOOM_SPEC_CLASSIC_MUL;
  return pos;
}

#undef ABLOOM_SPEC_FN

/* ---- Deprecated names ------------------------------------------------------------------------ */
/* The first version's names, each an alias of its ABLOOM_SPEC_ or abloom_spec_ name (see the
 * top): code written against them still compiles. New code: the names above. */
#define ABLOOM_LAYOUT_BLOCK_BITS ABLOOM_SPEC_BLOCK_BITS
#define ABLOOM_LAYOUT_BLOCK_WORDS ABLOOM_SPEC_BLOCK_WORDS
#define ABLOOM_LAYOUT_PROBE_MUL ABLOOM_SPEC_PROBE_MUL
#define ABLOOM_LAYOUT_SPLIT_WORDS ABLOOM_SPEC_SPLIT_WORDS
#define ABLOOM_LAYOUT_SPLIT_MAX_K ABLOOM_SPEC_SPLIT_WORDS
#define ABLOOM_LAYOUT_SPLIT_START_POWER ABLOOM_SPEC_SPLIT_START_POWER
#define abloom_layout_mulhi64_portable abloom_spec_mulhi64_portable
#define abloom_layout_mulhi64 abloom_spec_mulhi64
#define abloom_layout_shard abloom_spec_shard
#define abloom_layout_block_index abloom_spec_block_index
#define abloom_layout_probe_seed abloom_spec_probe_seed
#define abloom_layout_power abloom_spec_power
#define abloom_layout_candidate abloom_spec_candidate
#define abloom_layout_max_candidates abloom_spec_max_candidates
#define abloom_layout_split_start abloom_spec_split_start
#define abloom_layout_split_bit abloom_spec_split_bit
#define abloom_layout_split_lane abloom_spec_split_lane
#define abloom_layout_or_target abloom_spec_or_target

#endif /* ABLOOM_LAYOUT_H */
