/*
 * make_vectors.c - writes the golden vectors of tests/vectors/ through the public C API.
 *
 * RUN ONCE. The files it wrote are checked in and must never change (see README.md): they pin
 * format version 1 and the bit layouts. This program is kept to document how they were made;
 * rerunning it on a correct library reproduces them byte for byte (tests/vectors_test.cpp checks
 * the same thing by rebuilding each filter). The split_* vectors (layout id 2) were added later
 * with the split layout; rerunning wrote the first four again, unchanged. The blocked_* specs ask
 * for the distinct layout explicitly since split became the blocked kind's default (they were
 * written under the old default, distinct); rerunning still writes all six unchanged. When the
 * sizing model left libm (December 2026, see README.md) it was rerun once: the expected FPR (and
 * the checksums) of classic_s4, split_s1 and split_s4 changed in their last bits, nothing else.
 * When the growing chain's stage table got a place for every stage it was rerun once more: only
 * growing_s1.abloom changed (README.md, the end). The half_* vectors (layout id 3) were added
 * with the half layout; rerunning then wrote the first seven again, unchanged.
 *
 *   cc -std=c99 -Wall -Icapi tests/vectors/make_vectors.c -Lbuild/ci/capi -labloom \
 *      -Wl,-rpath,$PWD/build/ci/capi -o /tmp/make_vectors
 *   /tmp/make_vectors tests/vectors
 *
 * For each vector NAME (blocked_s1, blocked_s4, classic_s1, classic_s4, split_s1, split_s4:
 * kind, layout and shard count; capacity 450 and target FPR 1%, so that blocks per shard are
 * odd, and k varies; an explicit seed each; and growing_s1, added with growing filters: a
 * growing filter, growth 2 from a first stage of 100 keys, target FPR 10%, whose 450 keys fill
 * three stages; its first six were written again then, unchanged):
 *   NAME.abloom      abloom_save of the filter after adding the keys, one abloom_add per key,
 *                    in file order;
 *   NAME.keys.txt    the 450 keys added, one per line (printable ASCII 0x21..0x7E, no spaces;
 *                    the first 40 of lengths 1..300 bytes so that every input-size path of XXH3
 *                    is used, the others 4..32 bytes);
 *   NAME.absent.txt  2000 keys never added (4..32 bytes), one per line as "<answer> <key>",
 *                    answer being what abloom_test returned (0, or 1 for a false positive).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abloom.h"

#define CAPACITY 450
#define FPR 0.01
#define N_ABSENT 2000

struct vector_spec {
  const char *name;
  uint32_t kind;
  uint32_t shards;
  uint64_t seed;
  uint64_t key_seed; /* for the key generator */
  uint32_t layout;   /* ABLOOM_LAYOUT_DEFAULT: not set (the classic ones) */
  double growth;     /* 0: a fixed filter of CAPACITY; else growing, first stage GROWING_FIRST */
};

/* The growing vector's first stage: 100, 200 and 400 keys, so the 450 keys fill the first two
 * stages and part of the third. Its target FPR is 10%: the first stages take small shares of it
 * (docs/FORMAT.md), and at 1% no absent key of 2000 would test positive. */
#define GROWING_FIRST 100
#define GROWING_FPR 0.1

static const struct vector_spec kSpecs[] = {
    {"blocked_s1", ABLOOM_KIND_BLOCKED, 1, UINT64_C(0x0123456789ABCDEF), 1, ABLOOM_LAYOUT_DISTINCT},
    {"blocked_s4", ABLOOM_KIND_BLOCKED, 4, UINT64_C(0xFEDCBA9876543210), 2, ABLOOM_LAYOUT_DISTINCT},
    {"classic_s1", ABLOOM_KIND_CLASSIC, 1, UINT64_C(0x00000000DEADBEEF), 3, ABLOOM_LAYOUT_DEFAULT},
    {"classic_s4", ABLOOM_KIND_CLASSIC, 4, UINT64_C(0x8000000000000001), 4, ABLOOM_LAYOUT_DEFAULT},
    {"split_s1", ABLOOM_KIND_BLOCKED, 1, UINT64_C(0x5B117000000000A1), 5, ABLOOM_LAYOUT_SPLIT},
    {"split_s4", ABLOOM_KIND_BLOCKED, 4, UINT64_C(0xA100000000075B11), 6, ABLOOM_LAYOUT_SPLIT},
    {"growing_s1", ABLOOM_KIND_BLOCKED, 1, UINT64_C(0x6A0E1A6000000003), 7, ABLOOM_LAYOUT_DEFAULT,
     2.0},
    {"half_s1", ABLOOM_KIND_BLOCKED, 1, UINT64_C(0x4A1F000000000A18), 8, ABLOOM_LAYOUT_HALF},
    {"half_s4", ABLOOM_KIND_BLOCKED, 4, UINT64_C(0x8A0000000000F1A4), 9, ABLOOM_LAYOUT_HALF},
};

/* Lengths of the first keys: around every XXH3 size boundary (0-3, 4-8, 9-16, 17-128, 129-240,
 * 240+). */
static const size_t kLens[] = {1,   2,   3,   4,  5,  7,  8,   9,   12,  15,  16,  17,  24,  31,
                               32,  33,  48,  63, 64, 65, 100, 127, 128, 129, 160, 239, 240, 241,
                               255, 256, 300, 6,  10, 11, 13,  14,  20,  40,  80,  96};
#define N_LENS (sizeof kLens / sizeof kLens[0])

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

typedef struct {
  char *s;
  size_t len;
} key;

static void die(const char *what, int rc) {
  fprintf(stderr, "make_vectors: %s: %s\n", what, abloom_strerror(rc));
  exit(1);
}

/* n distinct keys, key i of length kLens[i] for the first N_LENS when all_lens, else 4 + i % 29;
 * none equal to any of avoid[0..n_avoid). */
static key *make_keys(size_t n, uint64_t *state, int all_lens, const key *avoid, size_t n_avoid) {
  key *keys = calloc(n, sizeof *keys);
  size_t i = 0, j;
  if (keys == NULL) exit(1);
  while (i < n) {
    size_t len = all_lens && i < N_LENS ? kLens[i] : 4 + i % 29;
    char *s = malloc(len + 1);
    int dup = 0;
    if (s == NULL) exit(1);
    for (j = 0; j < len; ++j) s[j] = (char)(0x21 + splitmix64(state) % 94);
    s[len] = '\0';
    for (j = 0; j < i && !dup; ++j) dup = keys[j].len == len && memcmp(keys[j].s, s, len) == 0;
    for (j = 0; j < n_avoid && !dup; ++j) {
      dup = avoid[j].len == len && memcmp(avoid[j].s, s, len) == 0;
    }
    if (dup) {
      free(s);
      continue;
    }
    keys[i].s = s;
    keys[i].len = len;
    ++i;
  }
  return keys;
}

static FILE *open_out(const char *dir, const char *name, const char *suffix) {
  char path[4096];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
  f = fopen(path, "w");
  if (f == NULL) {
    perror(path);
    exit(1);
  }
  return f;
}

static void close_out(FILE *f) {
  if (ferror(f) || fclose(f) != 0) {
    perror("make_vectors: write");
    exit(1);
  }
}

static void make_vector(const char *dir, const struct vector_spec *v) {
  abloom_options o;
  abloom_filter *f = NULL, *back = NULL;
  uint64_t state = v->key_seed;
  key *keys, *absent;
  size_t i, fp = 0;
  char path[4096];
  FILE *out;
  abloom_info info;
  int rc;

  abloom_options_init(&o);
  o.capacity = v->growth != 0 ? GROWING_FIRST : CAPACITY;
  o.growth = v->growth;
  o.fpr = v->growth != 0 ? GROWING_FPR : FPR;
  o.kind = v->kind;
  o.shards = v->shards;
  o.seed = v->seed;
  o.layout = v->layout;
  rc = abloom_create(&o, &f);
  if (rc != ABLOOM_OK) die("abloom_create", rc);

  keys = make_keys(CAPACITY, &state, 1, NULL, 0);
  absent = make_keys(N_ABSENT, &state, 0, keys, CAPACITY);

  out = open_out(dir, v->name, ".keys.txt");
  for (i = 0; i < CAPACITY; ++i) {
    rc = abloom_add(f, keys[i].s, keys[i].len);
    if (rc != ABLOOM_OK) die("abloom_add", rc);
    fprintf(out, "%s\n", keys[i].s);
  }
  close_out(out);

  out = open_out(dir, v->name, ".absent.txt");
  for (i = 0; i < N_ABSENT; ++i) {
    rc = abloom_test(f, absent[i].s, absent[i].len);
    if (rc < 0) die("abloom_test", rc);
    fp += (size_t)rc;
    fprintf(out, "%d %s\n", rc, absent[i].s);
  }
  close_out(out);

  snprintf(path, sizeof path, "%s/%s.abloom", dir, v->name);
  rc = abloom_save(f, path);
  if (rc != ABLOOM_OK) die("abloom_save", rc);
  rc = abloom_open(path, ABLOOM_VERIFY_CHECKSUM, &back);
  if (rc != ABLOOM_OK) die("abloom_open", rc);
  if (abloom_equal(f, back) != 1) die("reopened filter differs", ABLOOM_ERR_INTERNAL);

  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  abloom_get_info(back, &info);
  {
    uint64_t file_bytes = 0;
    abloom_serialized_size(back, &file_bytes);
    printf(
        "%s: kind %u layout %u k %u shards %u blocks/shard %llu bits %llu stages %u file %llu "
        "bytes, %zu/%d absent keys test positive\n",
        v->name, info.kind, info.layout, info.k, info.shards,
        (unsigned long long)info.blocks_per_shard, (unsigned long long)info.bits, info.stages,
        (unsigned long long)file_bytes, fp, N_ABSENT);
  }

  abloom_free(back);
  abloom_free(f);
  for (i = 0; i < CAPACITY; ++i) free(keys[i].s);
  for (i = 0; i < N_ABSENT; ++i) free(absent[i].s);
  free(keys);
  free(absent);
}

int main(int argc, char **argv) {
  size_t i;
  if (argc != 2) {
    fprintf(stderr, "usage: make_vectors DIR\n");
    return 2;
  }
  for (i = 0; i < sizeof kSpecs / sizeof kSpecs[0]; ++i) make_vector(argv[1], &kSpecs[i]);
  return 0;
}
