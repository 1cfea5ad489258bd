/*
 * abloom_inline.h - abloom's single-key test and add compiled into the caller's own code.
 *
 * Valid C99 and C++, like abloom.h, on top of which it is built. Nothing here is exported: every
 * function is `static inline` and uses only abloom.h's public calls plus the filter's memory as
 * abloom_get_memory describes it.
 *
 * Why: out of cache, a single-key call costs what the CPU can overlap, and the reorder buffer
 * holds fewer keys' misses the more instructions each key takes. A call through the C ABI
 * (abloom_test) pays for the call, the handle's checks, the kernel's dispatch, XXH3 of a length
 * only known at run time and the probe. Compiled into the caller's loop, XXH3 of a constant
 * length folds and only the probe is a call, so tests and adds take fewer instructions and run
 * faster than the library's calls, in cache and out of it (bench/RESULTS.md, "C library:
 * single-key calls"; the instruction counts: bench/JOURNAL.md, "Single-key tests compiled into
 * the caller").
 *
 * Where a key's bits go is not restated here: abloom_layout.h, the header the library's own
 * kernels include, defines it, and the fast paths below call its functions.
 *
 * What it needs: xxhash.h (Debian's libxxhash-dev, which libabloom-dev depends on), included
 * here with XXH_INLINE_ALL so nothing links against libxxhash; GCC or Clang on x86-64 for the
 * fast paths (elsewhere every call here is the library's own).
 *
 *   abloom_inline in;
 *   if (abloom_inline_init(&in, filter) != ABLOOM_OK) ...;   // tests only; const filter
 *   for (...) hits += abloom_inline_test(&in, &id, sizeof id);   // 1, 0, or an error as below
 *
 *   abloom_inline w;
 *   if (abloom_inline_init_writer(&w, filter) != ABLOOM_OK) ...;   // tests and adds
 *   abloom_inline_add(&w, &id, sizeof id);
 *
 * Which filters take the fast path: the blocked kind in the default layout (ABLOOM_LAYOUT_SPLIT)
 * or the half layout (ABLOOM_LAYOUT_HALF), when the library's active kernel (abloom_get_isa(), at
 * init) is AVX2 or AVX-512; the probe is then that instruction set's (the half layout's is AVX2
 * code under both: a key's bits and its half of the block are one 256-bit register each),
 * compiled here with a target attribute (or inlined whole when the caller is built for it, e.g.
 * -march=x86-64-v3). Adds take it too on a writable filter in the default writer mode (see
 * abloom_inline_init_writer). Every other filter (the classic kind, the distinct layout, a scalar
 * kernel, another CPU or compiler) is served by abloom_test and abloom_test_and_add, so every call
 * here answers exactly as the library's call does, and adds set exactly the same bits.
 *
 * Rules:
 *  - Any number of threads may test and add at once, through here and through the library, with
 *    the same guarantees as abloom_test and abloom_add. A block is read as the library's own
 *    kernels read it (see below): bits are only ever set, so a read that overlaps an add sees
 *    each bit either before or after it is set, and once an add is ordered before the test (a
 *    join, a mutex, an atomic flag), all of its bits. Adds set bits with atomic ORs.
 *  - The abloom_inline reads the filter's memory directly: it is valid until abloom_free of its
 *    filter, and only then. Nothing else moves the bits.
 *  - abloom_set_isa after init does not change an existing abloom_inline's path; initialise
 *    it again to follow.
 *  - Its fields are private to this header: set them only with the init calls.
 */
#ifndef ABLOOM_INLINE_H
#define ABLOOM_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "abloom.h"
#include "abloom_layout.h" /* the layout's steps: the library's own (core/layout/layout.hpp) */

#if ABLOOM_SPLIT_MAX_K != ABLOOM_SPEC_SPLIT_WORDS
#error "abloom.h and abloom_layout.h disagree on the split layout's largest k"
#endif

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ABLOOM_INLINE_X86 1
#include <immintrin.h>
#else
#define ABLOOM_INLINE_X86 0
#endif

/* The API's per-key calls are always inlined, so that a constant key length folds XXH3. */
#if defined(__GNUC__) || defined(__clang__)
#define ABLOOM_INLINE_PRIV_ALWAYS __attribute__((always_inline))
#else
#define ABLOOM_INLINE_PRIV_ALWAYS
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Which code answers abloom_inline_test (abloom_inline.path) and the adds (add_path). */
#define ABLOOM_INLINE_PATH_CALL 0   /**< the library: abloom_test, abloom_test_and_add */
#define ABLOOM_INLINE_PATH_AVX2 1   /**< the split probe in AVX2, here */
#define ABLOOM_INLINE_PATH_AVX512 2 /**< the split probe in AVX-512, here */
#define ABLOOM_INLINE_PATH_HALF 3   /**< the half layout's probe in AVX2, here */

/** A filter's single-key calls, prepared by an init call. Private fields but the paths. */
typedef struct abloom_inline {
  /** The filter, for ABLOOM_INLINE_PATH_CALL. */
  const abloom_filter *filter;
  /** The filter, writable, when made by abloom_inline_init_writer (else NULL: adds refused). */
  abloom_filter *writer;
  /** An ABLOOM_INLINE_PATH_*: which code answers. Read it to know; never set it. */
  uint32_t path;
  /** The same for adds: ABLOOM_INLINE_PATH_CALL unless made by abloom_inline_init_writer for a
   *  writable filter. */
  uint32_t add_path;
  /* The split and half layouts, from abloom_get_memory (docs/FORMAT.md gives the rules; the
   * split layout's k is in window_lanes): */
  uint32_t shard_bits;
  uint32_t shard_shift; /* 63 - shard_bits: (h >> 1) >> it is the shard */
  uint64_t blocks_per_shard;
  uint64_t seed;
  const uint64_t *const *shard_words;
  uint32_t start_multiplier;    /* C^17 mod 2^32: the window's start */
  uint32_t bit_multipliers[16]; /* C^(w + 1) mod 2^32: the bit in 32-bit word w */
  uint32_t window_lanes[32];    /* lane i all ones when i % 16 < k */
} abloom_inline;

/* ---- Private helpers (not part of the API) ------------------------------------------------- */

#if ABLOOM_INLINE_X86
/* The first word of the 64-byte block of hash h (abloom_layout.h). */
static inline const uint64_t *abloom_inline_priv_block(const abloom_inline *in, uint64_t h) {
  return in->shard_words[abloom_spec_shard(h, in->shard_shift)] +
         abloom_spec_block_index(h, in->shard_bits, in->blocks_per_shard) * ABLOOM_SPEC_BLOCK_WORDS;
}

/* The k lanes of the key's window, from word abloom_spec_split_start on (mod 16). */
static inline const uint32_t *abloom_inline_priv_window(const abloom_inline *in, uint32_t h2) {
  return &in->window_lanes[ABLOOM_SPEC_SPLIT_WORDS -
                           abloom_spec_split_start(h2, in->start_multiplier)];
}

/* The probes, one per instruction set: the key's mask (h2 = (uint32_t)h | 1: bit
 * (h2 * C^(w + 1)) >> 27 of each 32-bit word w of its window) and its block's 64 bytes.
 *  - The block's address is found in the target functions below, where BMI2 spares the variable
 *    shifts their register moves. (The library's AVX2 and AVX-512 kernels require BMI2 too.)
 *  - Other threads may be ORing into the block's words (atomics): it is read in inline asm, as
 *    the library's kernels read it, a hardware read rather than a C data race (and so not one
 *    for ThreadSanitizer either). Each aligned 8-byte word is read whole; a bit being set at this
 *    instant may read as clear, an answer the filter gave an instant before.
 *  - GCC 12's AVX-512 intrinsics that take an undefined vector trip its own -Wuninitialized in
 *    callers' builds, so only ones without it appear here (maskz forms, plain operators). */
#define ABLOOM_INLINE_PRIV_AVX512 __attribute__((target("avx512f,avx2,bmi2"), always_inline))
#define ABLOOM_INLINE_PRIV_AVX2 __attribute__((target("avx2,bmi2"), always_inline))

ABLOOM_INLINE_PRIV_AVX512 static inline __m512i abloom_inline_priv_mask_avx512(
    const abloom_inline *in, uint32_t h2) {
  const __mmask16 all = 0xFFFF;
  const __m512i products = _mm512_mullo_epi32(_mm512_maskz_set1_epi32(all, (int)h2),
                                              _mm512_loadu_si512(in->bit_multipliers));
  const __m512i bits = _mm512_maskz_sllv_epi32(all, _mm512_maskz_set1_epi32(all, 1),
                                               _mm512_maskz_srli_epi32(all, products, 27));
  return _mm512_and_si512(bits, _mm512_loadu_si512(abloom_inline_priv_window(in, h2)));
}

ABLOOM_INLINE_PRIV_AVX512 static inline __m512i abloom_inline_priv_load_avx512(
    const uint64_t *block) {
  __m512i words;
  __asm__("vmovdqa64 %1, %0" : "=v"(words) : "m"(*(const __m512i *)block));
  return words;
}

/* The mask's 32-bit words 8 * half .. 8 * half + 7. */
ABLOOM_INLINE_PRIV_AVX2 static inline __m256i abloom_inline_priv_mask_avx2(const abloom_inline *in,
                                                                           uint32_t h2, int half) {
  const __m256i products =
      _mm256_mullo_epi32(_mm256_set1_epi32((int)h2),
                         _mm256_loadu_si256((const __m256i *)(in->bit_multipliers + 8 * half)));
  const __m256i bits = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(products, 27));
  return _mm256_and_si256(
      bits, _mm256_loadu_si256((const __m256i *)(abloom_inline_priv_window(in, h2) + 8 * half)));
}

/* The block's words 4 * half .. 4 * half + 3. */
ABLOOM_INLINE_PRIV_AVX2 static inline __m256i abloom_inline_priv_load_avx2(const uint64_t *block,
                                                                           int half) {
  __m256i words;
  __asm__("vmovdqa %1, %0" : "=x"(words) : "m"(*(const __m256i *)(block + 4 * half)));
  return words;
}

/* 1 when every bit of the key of hash h is set, else 0. */
__attribute__((target("avx512f,avx2,bmi2"))) static inline int abloom_inline_priv_test_avx512(
    const abloom_inline *in, uint64_t h) {
  const __m512i mask = abloom_inline_priv_mask_avx512(in, abloom_spec_probe_seed(h));
  const __m512i have =
      _mm512_and_si512(mask, abloom_inline_priv_load_avx512(abloom_inline_priv_block(in, h)));
  return _mm512_cmpneq_epi32_mask(have, mask) == 0 ? 1 : 0;
}

__attribute__((target("avx2,bmi2"))) static inline int abloom_inline_priv_test_avx2(
    const abloom_inline *in, uint64_t h) {
  const uint64_t *block = abloom_inline_priv_block(in, h);
  const uint32_t h2 = abloom_spec_probe_seed(h);
  const __m256i missing =
      _mm256_or_si256(_mm256_andnot_si256(abloom_inline_priv_load_avx2(block, 0),
                                          abloom_inline_priv_mask_avx2(in, h2, 0)),
                      _mm256_andnot_si256(abloom_inline_priv_load_avx2(block, 1),
                                          abloom_inline_priv_mask_avx2(in, h2, 1)));
  return _mm256_testz_si256(missing, missing);
}

/* The shared writer's write step, as the library's single-key adds take it
 * (core/kernels/write_step.hpp, or_words_redirected): one atomic OR per 64-bit word the key's bits
 * fall in (`touched`, from the hash alone, so the loop does not wait for the block), a word with no
 * missing bit ORed into a local scratch word instead (a branch-free select of the address).
 * `missing[w]` holds the key's bits that were clear in word w. */
static inline void abloom_inline_priv_or_words(uint64_t *block, const uint64_t *missing,
                                               uint32_t touched) {
  uint64_t scratch = 0;
  for (; touched != 0; touched &= touched - 1) {
    const int w = __builtin_ctz(touched);
    __atomic_fetch_or(abloom_spec_or_target(block + w, missing[w], &scratch), missing[w],
                      __ATOMIC_RELAXED);
  }
}

/* The writable block of hash h: abloom_get_writable_shards gives the same shard pointers as
 * abloom_get_memory (abloom.h), so the words behind the read view's pointer are writable. */
static inline uint64_t *abloom_inline_priv_writable_block(const abloom_inline *in, uint64_t h) {
  return (uint64_t *)(uintptr_t)abloom_inline_priv_block(in, h);
}

/* Adds the key of hash h with atomic ORs (safe with any other writer, in either writer mode);
 * 1 when all its bits were set already, else 0, as abloom_test_and_add answers. */
__attribute__((target("avx512f,avx2,bmi2"))) static inline int abloom_inline_priv_add_avx512(
    const abloom_inline *in, uint64_t h) {
  uint64_t *block = abloom_inline_priv_writable_block(in, h);
  const __m512i mask = abloom_inline_priv_mask_avx512(in, abloom_spec_probe_seed(h));
  const __m512i missing =
      _mm512_xor_si512(mask, _mm512_and_si512(mask, abloom_inline_priv_load_avx512(block)));
  __attribute__((aligned(64))) uint64_t words[8];
  if (_mm512_test_epi64_mask(missing, missing) == 0) return 1;
  _mm512_store_si512(words, missing);
  abloom_inline_priv_or_words(block, words, _mm512_test_epi64_mask(mask, mask));
  return 0;
}

/* Which of 4 64-bit words of v are not zero, as bits 0-3. */
ABLOOM_INLINE_PRIV_AVX2 static inline uint32_t abloom_inline_priv_nonzero_avx2(__m256i v) {
  const __m256i zero = _mm256_cmpeq_epi64(v, _mm256_setzero_si256());
  return (uint32_t)~_mm256_movemask_pd(_mm256_castsi256_pd(zero)) & 0xFu;
}

__attribute__((target("avx2,bmi2"))) static inline int abloom_inline_priv_add_avx2(
    const abloom_inline *in, uint64_t h) {
  uint64_t *block = abloom_inline_priv_writable_block(in, h);
  const uint32_t h2 = abloom_spec_probe_seed(h);
  const __m256i lo = abloom_inline_priv_mask_avx2(in, h2, 0);
  const __m256i hi = abloom_inline_priv_mask_avx2(in, h2, 1);
  const __m256i missing_lo = _mm256_andnot_si256(abloom_inline_priv_load_avx2(block, 0), lo);
  const __m256i missing_hi = _mm256_andnot_si256(abloom_inline_priv_load_avx2(block, 1), hi);
  const __m256i any = _mm256_or_si256(missing_lo, missing_hi);
  __attribute__((aligned(32))) uint64_t words[8];
  if (_mm256_testz_si256(any, any)) return 1;
  _mm256_store_si256((__m256i *)words, missing_lo);
  _mm256_store_si256((__m256i *)(words + 4), missing_hi);
  abloom_inline_priv_or_words(
      block, words, abloom_inline_priv_nonzero_avx2(lo) | abloom_inline_priv_nonzero_avx2(hi) << 4);
  return 0;
}
/* The half layout (abloom_layout.h): the key's bit in each of its half's 8 words, lane w for
 * word w, from r = abloom_spec_half_r(h); its half is abloom_spec_half_index(r). */
ABLOOM_INLINE_PRIV_AVX2 static inline __m256i abloom_inline_priv_half_bits(uint64_t r) {
  const __m256i lanes =
      _mm256_sllv_epi64(_mm256_set1_epi64x((long long)r), _mm256_setr_epi64x(0, 5, 10, 15));
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(lanes, 27));
}

__attribute__((target("avx2,bmi2"))) static inline int abloom_inline_priv_test_half(
    const abloom_inline *in, uint64_t h) {
  const uint64_t r = abloom_spec_half_r(h);
  const __m256i missing = _mm256_andnot_si256(
      abloom_inline_priv_load_avx2(abloom_inline_priv_block(in, h), (int)abloom_spec_half_index(r)),
      abloom_inline_priv_half_bits(r));
  return _mm256_testz_si256(missing, missing);
}

__attribute__((target("avx2,bmi2"))) static inline int abloom_inline_priv_add_half(
    const abloom_inline *in, uint64_t h) {
  const uint64_t r = abloom_spec_half_r(h);
  uint64_t *half = abloom_inline_priv_writable_block(in, h) + 4 * abloom_spec_half_index(r);
  const __m256i missing =
      _mm256_andnot_si256(abloom_inline_priv_load_avx2(half, 0), abloom_inline_priv_half_bits(r));
  __attribute__((aligned(32))) uint64_t words[4];
  if (_mm256_testz_si256(missing, missing)) return 1;
  _mm256_store_si256((__m256i *)words, missing);
  abloom_inline_priv_or_words(half, words, 0xFu); /* each word holds two of the key's bits */
  return 0;
}
#undef ABLOOM_INLINE_PRIV_AVX512
#undef ABLOOM_INLINE_PRIV_AVX2
#endif /* ABLOOM_INLINE_X86 */

/* ---- API ------------------------------------------------------------------------------------ */

/**
 * Prepare `in` to test keys of `filter` (any kind, layout or mode; read-only filters too).
 * Reads the filter's shape once (abloom_get_memory) and picks in->path. Returns ABLOOM_OK, or
 * ABLOOM_ERR_NULL (`in` or `filter` NULL; `in` is then untouched).
 */
static inline int abloom_inline_init(abloom_inline *in, const abloom_filter *filter) {
  abloom_memory mem;
  uint32_t i;
  int rc;
  if (in == NULL || filter == NULL) return ABLOOM_ERR_NULL;
  if ((rc = abloom_memory_init(&mem)) != ABLOOM_OK) return rc;
  if ((rc = abloom_get_memory(filter, &mem)) != ABLOOM_OK) return rc;
  memset(in, 0, sizeof *in);
  in->filter = filter;
  in->path = ABLOOM_INLINE_PATH_CALL;
  in->shard_bits = mem.shard_bits;
  in->shard_shift = 63 - mem.shard_bits;
  in->blocks_per_shard = mem.blocks_per_shard;
  in->seed = mem.seed;
  in->shard_words = mem.shard_words;
  /* abloom_layout.h's powers of C: the bit multipliers C^1 .. C^16, the start's C^17. */
  for (i = 0; i < 16; ++i) in->bit_multipliers[i] = abloom_spec_power(i + 1);
  in->start_multiplier = abloom_spec_power(ABLOOM_SPEC_SPLIT_START_POWER);
  for (i = 0; i < 32; ++i) in->window_lanes[i] = abloom_spec_split_lane(i, mem.k);
#if ABLOOM_INLINE_X86
  if (mem.kind == ABLOOM_KIND_BLOCKED && mem.layout == ABLOOM_LAYOUT_SPLIT && mem.hash_id == 1 &&
      mem.k >= 1 && mem.k <= 16) {
    const uint32_t isa = abloom_get_isa();
    if (isa == ABLOOM_ISA_AVX512) {
      in->path = ABLOOM_INLINE_PATH_AVX512;
    } else if (isa == ABLOOM_ISA_AVX2) {
      in->path = ABLOOM_INLINE_PATH_AVX2;
    }
  }
  if (mem.kind == ABLOOM_KIND_BLOCKED && mem.layout == ABLOOM_LAYOUT_HALF && mem.hash_id == 1 &&
      mem.k == ABLOOM_HALF_K) {
    const uint32_t isa = abloom_get_isa();
    if (isa == ABLOOM_ISA_AVX512 || isa == ABLOOM_ISA_AVX2) in->path = ABLOOM_INLINE_PATH_HALF;
  }
#endif
  return ABLOOM_OK;
}

/**
 * abloom_test(filter, key, len) for the filter of `in`: 1 if the key may be present, 0 if it is
 * definitely absent, ABLOOM_ERR_NULL if `in` is NULL or `key` is NULL with `len` > 0. Inline: with
 * a constant `len`, XXH3 folds to a few instructions.
 */
ABLOOM_INLINE_PRIV_ALWAYS static inline int abloom_inline_test(const abloom_inline *in,
                                                               const void *key, size_t len) {
  if (in == NULL || (key == NULL && len != 0)) return ABLOOM_ERR_NULL;
#if ABLOOM_INLINE_X86
  if (in->path != ABLOOM_INLINE_PATH_CALL) {
    const uint64_t h = XXH3_64bits_withSeed(key, len, in->seed);
    if (in->path == ABLOOM_INLINE_PATH_AVX512) return abloom_inline_priv_test_avx512(in, h);
    if (in->path == ABLOOM_INLINE_PATH_HALF) return abloom_inline_priv_test_half(in, h);
    return abloom_inline_priv_test_avx2(in, h);
  }
#endif
  return abloom_test(in->filter, key, len);
}

/**
 * As abloom_inline_init, and also prepares `in` for abloom_inline_add and
 * abloom_inline_test_and_add on `filter`. Returns ABLOOM_OK, or ABLOOM_ERR_NULL (`in` is then
 * untouched).
 *  - A read-only filter (a view, a file opened read-only) is accepted: its adds then return
 *    ABLOOM_ERR_READONLY, as abloom_add's do.
 *  - The fast path adds with atomic ORs, as the default writer mode does. A filter in
 *    ABLOOM_WRITER_EXCLUSIVE mode at this call keeps the library's own add instead (in->add_path
 *    is ABLOOM_INLINE_PATH_CALL), whose plain stores are faster than atomic ORs. Changing the
 *    mode afterwards stays correct either way: atomic ORs are right in both modes, and the
 *    library's add follows the mode of the moment.
 */
static inline int abloom_inline_init_writer(abloom_inline *in, abloom_filter *filter) {
  uint64_t *const *writable = NULL;
  int rc = abloom_inline_init(in, filter);
  if (rc != ABLOOM_OK) return rc;
  in->writer = filter;
  if (abloom_get_writable_shards(filter, &writable) == ABLOOM_OK &&
      abloom_get_writer_mode(filter) == (int)ABLOOM_WRITER_SHARED) {
    in->add_path = in->path;
  }
  return ABLOOM_OK;
}

/**
 * abloom_test_and_add(filter, key, len) for the filter of `in` (made by
 * abloom_inline_init_writer): adds the key and answers 1 if all its bits were set already (a
 * repeat, or a false positive), 0 if it is new. Errors: ABLOOM_ERR_NULL (`in` NULL, or `key` NULL
 * with `len` > 0), ABLOOM_ERR_READONLY (a read-only filter, or `in` made by abloom_inline_init).
 * Adds with atomic ORs, so any number of threads may add at once, through here or the library,
 * in either writer mode (an exclusive-mode filter's own adds use plain stores).
 */
ABLOOM_INLINE_PRIV_ALWAYS static inline int abloom_inline_test_and_add(abloom_inline *in,
                                                                       const void *key,
                                                                       size_t len) {
  if (in == NULL || (key == NULL && len != 0)) return ABLOOM_ERR_NULL;
  if (in->writer == NULL) return ABLOOM_ERR_READONLY;
#if ABLOOM_INLINE_X86
  if (in->add_path != ABLOOM_INLINE_PATH_CALL) {
    const uint64_t h = XXH3_64bits_withSeed(key, len, in->seed);
    if (in->add_path == ABLOOM_INLINE_PATH_AVX512) return abloom_inline_priv_add_avx512(in, h);
    if (in->add_path == ABLOOM_INLINE_PATH_HALF) return abloom_inline_priv_add_half(in, h);
    return abloom_inline_priv_add_avx2(in, h);
  }
#endif
  return abloom_test_and_add(in->writer, key, len);
}

/** abloom_add(filter, key, len) for the filter of `in`: abloom_inline_test_and_add's add, with
 *  ABLOOM_OK for its answer. Errors as there. */
ABLOOM_INLINE_PRIV_ALWAYS static inline int abloom_inline_add(abloom_inline *in, const void *key,
                                                              size_t len) {
  const int rc = abloom_inline_test_and_add(in, key, len);
  return rc < 0 ? rc : ABLOOM_OK;
}

#undef ABLOOM_INLINE_PRIV_ALWAYS

#ifdef __cplusplus
}
#endif

#endif /* ABLOOM_INLINE_H */
