/*
 * abloom_layout.h, the frozen layout's definition, from strict C99 (-std=c99 -pedantic -Wall
 * -Wextra -Werror), included first and alone: it must stand on its own.
 *
 * Checks that the header is the library's layout, not a description of it: a model of the filter
 * built from nothing but the header's functions (its own bit array, filled key by key) equals the
 * library's memory byte for byte after the same adds, for both blocked layouts (under every kernel
 * the CPU runs) and the classic kind, several k and shard counts, and the library's test answers
 * equal the model's for keys never added. The Go and Java ports are checked against the library
 * (bindings/go/native_test.go, JavaPathTest.java: every kind and layout): through it, against
 * this header. Also: the portable multiply-high against the 128-bit product, and the
 * powers of C.
 * Exits non-zero, with a message on stderr for each failed check, on any failure.
 */
#include <abloom.h>
#include <abloom_layout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#include "check.h"

/* Test inputs: a 64-bit linear congruential generator (Knuth's MMIX constants), high half. */
static uint64_t lcg_state = 42;
static uint64_t next_u64(void) {
  uint64_t hi, lo;
  lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
  hi = lcg_state >> 32;
  lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
  lo = lcg_state >> 32;
  return hi << 32 | lo;
}

static void check_mulhi(void) {
  static const uint64_t edges[] = {0,
                                   1,
                                   2,
                                   0xFFFFFFFFu,
                                   0x100000000u,
                                   0x8000000000000000u,
                                   0xFFFFFFFFFFFFFFFFu,
                                   0x9E3779B97F4A7C15u};
  size_t i, j;
  for (i = 0; i < sizeof edges / sizeof edges[0]; ++i) {
    for (j = 0; j < sizeof edges / sizeof edges[0]; ++j) {
      CHECK(abloom_spec_mulhi64_portable(edges[i], edges[j]) ==
            abloom_spec_mulhi64(edges[i], edges[j]));
    }
  }
  CHECK(abloom_spec_mulhi64_portable(0xFFFFFFFFFFFFFFFFu, 0xFFFFFFFFFFFFFFFFu) ==
        0xFFFFFFFFFFFFFFFEu);
  CHECK(abloom_spec_mulhi64_portable(0x100000000u, 0x100000000u) == 1);
#if defined(__SIZEOF_INT128__)
  for (i = 0; i < 200000; ++i) {
    const uint64_t a = next_u64(), b = next_u64();
    __extension__ typedef unsigned __int128 u128;
    const uint64_t want = (uint64_t)(((u128)a * b) >> 64);
    if (abloom_spec_mulhi64_portable(a, b) != want || abloom_spec_mulhi64(a, b) != want) {
      CHECK(!"mulhi64 of a random pair");
      break;
    }
  }
#endif
}

static void check_powers(void) {
  uint32_t p = 1, j;
  for (j = 0; j < 400; ++j) {
    CHECK(abloom_spec_power(j) == p);
    p *= ABLOOM_SPEC_PROBE_MUL;
  }
}

/* The first version's names, deprecated aliases now: the same constants and functions. */
static void check_old_names(void) {
  uint32_t lane = 0;
  uint64_t word = 0, scratch = 0;
  CHECK(ABLOOM_LAYOUT_BLOCK_BITS == ABLOOM_SPEC_BLOCK_BITS);
  CHECK(ABLOOM_LAYOUT_BLOCK_WORDS == ABLOOM_SPEC_BLOCK_WORDS);
  CHECK(ABLOOM_LAYOUT_PROBE_MUL == ABLOOM_SPEC_PROBE_MUL);
  CHECK(ABLOOM_LAYOUT_SPLIT_WORDS == ABLOOM_SPEC_SPLIT_WORDS);
  CHECK(ABLOOM_LAYOUT_SPLIT_MAX_K == ABLOOM_SPLIT_MAX_K);
  CHECK(ABLOOM_LAYOUT_SPLIT_START_POWER == ABLOOM_SPEC_SPLIT_START_POWER);
  CHECK(abloom_layout_mulhi64_portable(~(uint64_t)0, 3) == abloom_spec_mulhi64(~(uint64_t)0, 3));
  CHECK(abloom_layout_mulhi64(~(uint64_t)0, 3) == 2);
  CHECK(abloom_layout_shard(~(uint64_t)0, 63 - 4) == 15);
  CHECK(abloom_layout_block_index(~(uint64_t)0, 0, 10) == 9);
  CHECK(abloom_layout_probe_seed(4) == 5);
  CHECK(abloom_layout_power(3) == abloom_spec_power(3));
  CHECK(abloom_layout_candidate(5, abloom_layout_power(1)) ==
        abloom_spec_candidate(5, 0x9E3779B9u));
  CHECK(abloom_layout_max_candidates(7) == abloom_spec_max_candidates(7));
  CHECK(abloom_layout_split_start(5, 7) == abloom_spec_split_start(5, 7));
  CHECK(abloom_layout_split_bit(5, 7) == abloom_spec_split_bit(5, 7));
  for (; lane < 32; ++lane)
    CHECK(abloom_layout_split_lane(lane, 5) == abloom_spec_split_lane(lane, 5));
  CHECK(abloom_layout_or_target(&word, 1, &scratch) == &word);
  CHECK(abloom_layout_or_target(&word, 0, &scratch) == &scratch);
}

/* The bits of the key of hash h in a block, from the header only (8 words, zeroed first). */
static void model_block_bits(uint32_t layout, uint32_t k, uint64_t h, uint64_t bits[8]) {
  const uint32_t h2 = abloom_spec_probe_seed(h);
  uint32_t j, found = 0;
  memset(bits, 0, 8 * sizeof bits[0]);
  if (layout == ABLOOM_LAYOUT_DISTINCT) {
    for (j = 1; found < k && j <= abloom_spec_max_candidates(k); ++j) {
      const uint32_t bit = abloom_spec_candidate(h2, abloom_spec_power(j));
      const uint64_t b = (uint64_t)1 << (bit & 63);
      if ((bits[bit >> 6] & b) == 0) ++found;
      bits[bit >> 6] |= b;
    }
    CHECK(found == k);
  } else {
    const uint32_t s =
        abloom_spec_split_start(h2, abloom_spec_power(ABLOOM_SPEC_SPLIT_START_POWER));
    uint32_t w;
    for (w = 0; w < ABLOOM_SPEC_SPLIT_WORDS; ++w) {
      /* Word w is in the window when its lane of the table, read from 16 - s, is all ones. */
      if (abloom_spec_split_lane(ABLOOM_SPEC_SPLIT_WORDS - s + w, k) == 0) continue;
      ++found;
      bits[w / 2] |=
          (uint64_t)1 << (abloom_spec_split_bit(h2, abloom_spec_power(w + 1)) + 32 * (w % 2));
    }
    CHECK(found == k);
  }
}

/* The model: one array per shard, the key's block (or, classic kind, bits) found by the header's
 * steps. */
typedef struct model {
  uint32_t kind, layout, k, shard_bits;
  uint64_t blocks_per_shard;
  uint64_t **shards;
} model;

/* The classic kind: the key's k bits over its whole shard, each ORed into its word (to_set != 0),
 * or 1 when every one is set already (to_set == 0). */
static int model_classic(const model *m, uint64_t h, int to_set) {
  uint64_t *words = m->shards[abloom_spec_shard(h, 63 - m->shard_bits)];
  const uint64_t shard_bits_total = m->blocks_per_shard * ABLOOM_SPEC_BLOCK_BITS;
  abloom_spec_classic p = abloom_spec_classic_start(h, m->shard_bits, shard_bits_total);
  uint32_t i;
  int all = 1;
  for (i = 0; i < m->k; ++i) {
    const uint64_t bit = abloom_spec_classic_next(&p);
    CHECK(bit < shard_bits_total);
    if (to_set) {
      words[bit >> 6] |= (uint64_t)1 << (bit & 63);
    } else if ((words[bit >> 6] & (uint64_t)1 << (bit & 63)) == 0) {
      all = 0;
    }
  }
  return all;
}

static uint64_t *model_block(const model *m, uint64_t h) {
  const uint64_t shard = abloom_spec_shard(h, 63 - m->shard_bits);
  return m->shards[shard] +
         abloom_spec_block_index(h, m->shard_bits, m->blocks_per_shard) * ABLOOM_SPEC_BLOCK_WORDS;
}

static void model_add(const model *m, uint64_t h) {
  uint64_t bits[8], *block = model_block(m, h);
  uint64_t scratch = 0;
  unsigned w;
  if (m->kind == ABLOOM_KIND_CLASSIC) {
    (void)model_classic(m, h, 1);
    return;
  }
  model_block_bits(m->layout, m->k, h, bits);
  /* The write step as the header defines it: words without a bit go to the scratch word. */
  for (w = 0; w < 8; ++w) *abloom_spec_or_target(block + w, bits[w], &scratch) |= bits[w];
}

static int model_test(const model *m, uint64_t h) {
  uint64_t bits[8];
  const uint64_t *block;
  unsigned w;
  if (m->kind == ABLOOM_KIND_CLASSIC) return model_classic(m, h, 0);
  block = model_block(m, h);
  model_block_bits(m->layout, m->k, h, bits);
  for (w = 0; w < 8; ++w) {
    if ((block[w] & bits[w]) != bits[w]) return 0;
  }
  return 1;
}

static void check_against_library(uint32_t kind, uint32_t layout, uint32_t k, uint32_t shards) {
  enum { kAdds = 20000, kProbes = 20000 };
  abloom_options opts;
  abloom_filter *f = NULL;
  abloom_memory mem;
  model m;
  uint32_t s;
  int i, disagree = 0, positives = 0;
  if (abloom_options_init(&opts) != ABLOOM_OK) {
    CHECK(!"abloom_options_init");
    return;
  }
  opts.capacity = kAdds;
  opts.fpr = 0.01;
  opts.kind = kind;
  opts.layout = layout;
  opts.k = k;
  opts.shards = shards;
  opts.seed = 7;
  if (abloom_create(&opts, &f) != ABLOOM_OK || abloom_memory_init(&mem) != ABLOOM_OK ||
      abloom_get_memory(f, &mem) != ABLOOM_OK) {
    fprintf(stderr, "kind %u layout %u k %u shards %u: no filter\n", kind, layout, k, shards);
    ++failures;
    abloom_free(f);
    return;
  }
  CHECK(mem.kind == kind && mem.layout == layout && mem.k == k && mem.shards == shards);
  m.kind = kind;
  m.layout = layout;
  m.k = k;
  m.shard_bits = mem.shard_bits;
  m.blocks_per_shard = mem.blocks_per_shard;
  m.shards = calloc(mem.shards, sizeof m.shards[0]);
  for (s = 0; s < mem.shards; ++s) {
    m.shards[s] = calloc(mem.blocks_per_shard * ABLOOM_SPEC_BLOCK_WORDS, sizeof(uint64_t));
  }
  for (i = 0; i < kAdds; ++i) {
    const uint64_t h = next_u64();
    model_add(&m, h);
    CHECK(abloom_add_hash(f, h) == ABLOOM_OK);
  }
  for (s = 0; s < mem.shards; ++s) {
    if (memcmp(m.shards[s], mem.shard_words[s],
               mem.blocks_per_shard * ABLOOM_SPEC_BLOCK_WORDS * sizeof(uint64_t)) != 0) {
      fprintf(stderr,
              "kind %u layout %u k %u shards %u: shard %u differs from the header's model\n", kind,
              layout, k, shards, s);
      ++failures;
    }
  }
  /* Keys never added: the library answers what the model answers, false positives included. */
  for (i = 0; i < kProbes; ++i) {
    const uint64_t h = next_u64();
    const int want = model_test(&m, h);
    positives += want;
    disagree += abloom_test_hash(f, h) != want;
  }
  CHECK(disagree == 0);
  CHECK(positives > 0); /* at capacity with fpr 0.01 some do answer yes: the probe is exercised */
  for (s = 0; s < mem.shards; ++s) free(m.shards[s]);
  free(m.shards);
  abloom_free(f);
}

int main(void) {
  static const uint32_t distinct_k[] = {1, 2, 7, 16, 23, 64};
  static const uint32_t split_k[] = {1, 5, 8, 16};
  static const uint32_t classic_k[] = {1, 2, 7, 16, 23, 64};
  static const uint32_t shard_counts[] = {1, 4};
  const uint32_t best = abloom_get_isa();
  uint32_t isa;
  size_t i, j;
  check_mulhi();
  check_powers();
  check_old_names();
  /* Every kernel this CPU runs (the SIMD kernels compute the steps in vectors, from the header's
   * constants and tables): each must set and test exactly the header's bits. */
  for (isa = ABLOOM_ISA_SCALAR; isa <= ABLOOM_ISA_NEON; ++isa) {
    if (abloom_set_isa(isa) != ABLOOM_OK) continue;
    printf("layout_test: kernel %s\n", abloom_isa_name(abloom_get_isa()));
    for (j = 0; j < 2; ++j) {
      for (i = 0; i < sizeof distinct_k / sizeof distinct_k[0]; ++i) {
        check_against_library(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, distinct_k[i],
                              shard_counts[j]);
      }
      for (i = 0; i < sizeof split_k / sizeof split_k[0]; ++i) {
        check_against_library(ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_SPLIT, split_k[i],
                              shard_counts[j]);
      }
    }
  }
  CHECK(abloom_set_isa(best) == ABLOOM_OK);
  /* The classic kind (no kernel table: one path whatever the kernel). */
  for (j = 0; j < 2; ++j) {
    for (i = 0; i < sizeof classic_k / sizeof classic_k[0]; ++i) {
      check_against_library(ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DISTINCT, classic_k[i],
                            shard_counts[j]);
    }
  }
  if (failures != 0) {
    fprintf(stderr, "layout_test: %d failed checks\n", failures);
    return 1;
  }
  printf("layout_test: the header's layout is the library's\n");
  return 0;
}
