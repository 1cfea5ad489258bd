/*
 * make_corpus.c - writes the seed corpus of fuzz_deserialize (tests/fuzz/corpus/), through the
 * public C API. Run once; its output is checked in:
 *
 *   make_corpus tests/fuzz/corpus
 *
 * (build: target fuzz_make_corpus of the fuzz build tree, or
 *  cc -std=c99 -Icapi tests/fuzz/make_corpus.c -Lbuild/ci/capi -labloom -o make_corpus).
 *
 * valid-*    abloom_serialize output: both kinds, 1 and 4 shards, empty and filled, explicit
 *            layouts, seeds, a saturated filter, and a file left "checksum stale" by a
 *            read-write mapping (valid for views without the checksum check only);
 * valid-growing-*, invalid-growing-*: growing filters (chains of stages), valid ones and one per
 *            kind of damage (truncated, a stage's bit flipped, a stage count past the end,
 *            stages out of order).
 * valid-stale-*: files a read-write writer left stale, read only without the checksum check: a
 *            filter, and a growing filter's file while its writer appends a stage (one empty
 *            stage past the header's total).
 * invalid-*  truncated, trailing bytes, bad magic / version / header size, flipped header and
 *            body bits, and headers whose checksums are right but a field is out of range
 *            (kind, layout, hash id, k, shards, blocks, flags, reserved, bit count, body size,
 *            capacity, FPRs), one per validation rule of docs/FORMAT.md.
 * Everything is deterministic: rerunning writes the same bytes. One file is not written here:
 * valid-growing-first-form-3-stages.abloom, valid-growing-3-stages as the first chains were
 * written (a stage table of exactly their stages, place count 0: docs/FORMAT.md), kept so that
 * the reader of that form stays fuzzed.
 */
#define XXH_INLINE_ALL
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "abloom.h"

static const char *g_dir;

static void die(const char *what, int rc) {
  fprintf(stderr, "make_corpus: %s: %s\n", what, abloom_strerror(rc));
  exit(1);
}

static void write_file(const char *name, const unsigned char *bytes, size_t len) {
  char path[4096];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  f = fopen(path, "wb");
  if (f == NULL || (len > 0 && fwrite(bytes, 1, len, f) != len) || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
  printf("%6zu  %s\n", len, name);
}

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static abloom_filter *make(uint32_t kind, uint32_t shards, uint64_t capacity, double fpr,
                           uint64_t bits, uint32_t k, uint64_t seed) {
  abloom_options o;
  abloom_filter *f = NULL;
  int rc;
  abloom_options_init(&o);
  o.kind = kind;
  o.shards = shards;
  o.capacity = capacity;
  o.fpr = fpr;
  o.bits = bits;
  o.k = k;
  o.seed = seed;
  rc = abloom_create(&o, &f);
  if (rc != ABLOOM_OK) die("abloom_create", rc);
  return f;
}

/* Adds n keys "corpus-<i>" (i from `first`). */
static void fill(abloom_filter *f, uint64_t first, uint64_t n) {
  uint64_t i;
  char key[32];
  for (i = first; i < first + n; ++i) {
    int len = snprintf(key, sizeof key, "corpus-%llu", (unsigned long long)i);
    int rc = abloom_add(f, key, (size_t)len);
    if (rc != ABLOOM_OK) die("abloom_add", rc);
  }
}

/* The serialized bytes of f (malloc'ed; *len set). */
static unsigned char *bytes_of(const abloom_filter *f, size_t *len) {
  uint64_t size = 0;
  unsigned char *b;
  int rc = abloom_serialized_size(f, &size);
  if (rc != ABLOOM_OK) die("abloom_serialized_size", rc);
  b = malloc((size_t)size);
  if (b == NULL) exit(1);
  rc = abloom_serialize(f, b, (size_t)size, len);
  if (rc != ABLOOM_OK) die("abloom_serialize", rc);
  return b;
}

static void save_valid(const char *name, abloom_filter *f) {
  size_t len;
  unsigned char *b = bytes_of(f, &len);
  abloom_filter *back = NULL;
  int rc = abloom_deserialize(b, len, &back);
  if (rc != ABLOOM_OK) die(name, rc);
  abloom_free(back);
  write_file(name, b, len);
  free(b);
  abloom_free(f);
}

static void put32(unsigned char *p, uint32_t v) {
  int i;
  for (i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

/* Recomputes both checksums (docs/FORMAT.md: offset 104 over header [0,104) + body, offset 120
 * over header [0,120)). */
static void fix_checksums(unsigned char *b, size_t len) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, b, 104);
  XXH3_64bits_update(&st, b + ABLOOM_HEADER_BYTES, len - ABLOOM_HEADER_BYTES);
  put64(b + 104, XXH3_64bits_digest(&st));
  put64(b + 120, XXH3_64bits(b, 120));
}

/* A copy of base with a 32- or 64-bit field changed, checksums made right again, written as
 * `name`; `expect` is the code abloom_deserialize must give. */
static void field_case(const char *name, const unsigned char *base, size_t len, size_t off,
                       int width, uint64_t value, int expect) {
  unsigned char *b = malloc(len);
  abloom_filter *f = NULL;
  int rc;
  if (b == NULL) exit(1);
  memcpy(b, base, len);
  if (width == 4) {
    put32(b + off, (uint32_t)value);
  } else {
    put64(b + off, value);
  }
  fix_checksums(b, len);
  rc = abloom_deserialize(b, len, &f);
  if (rc != expect) {
    fprintf(stderr, "make_corpus: %s: got %d, want %d\n", name, rc, expect);
    exit(1);
  }
  write_file(name, b, len);
  free(b);
}

static void expect_code(const char *name, const unsigned char *b, size_t len, int expect) {
  abloom_filter *f = NULL;
  int rc = abloom_deserialize(b, len, &f);
  if (rc != expect) {
    fprintf(stderr, "make_corpus: %s: got %d, want %d\n", name, rc, expect);
    exit(1);
  }
  write_file(name, b, len);
}

/* A file opened read-write is marked "checksum stale" until synced: copy it while mapped. */
static void stale_case(void) {
  char path[4096], tmp[4096];
  abloom_filter *f = make(ABLOOM_KIND_BLOCKED, 1, 100, 0.01, 0, 0, 7);
  abloom_filter *rw = NULL;
  unsigned char buf[1 << 14];
  size_t len;
  FILE *in;
  int rc;
  fill(f, 0, 50);
  snprintf(path, sizeof path, "%s/.stale-work.abloom", g_dir);
  rc = abloom_save(f, path);
  if (rc != ABLOOM_OK) die("abloom_save", rc);
  abloom_free(f);
  rc = abloom_open(path, ABLOOM_OPEN_READ_WRITE, &rw);
  if (rc != ABLOOM_OK) die("abloom_open", rc);
  fill(rw, 50, 20);
  in = fopen(path, "rb");
  if (in == NULL) exit(1);
  len = fread(buf, 1, sizeof buf, in);
  fclose(in);
  snprintf(tmp, sizeof tmp, "valid-stale-blocked-s1.abloom");
  expect_code(tmp, buf, len, ABLOOM_ERR_STALE);
  abloom_free(rw);
  unlink(path);
}

/* The bytes of the file at `path`, into buf (at most cap); their count. */
static size_t read_file(const char *path, unsigned char *buf, size_t cap) {
  size_t len;
  FILE *in = fopen(path, "rb");
  if (in == NULL) exit(1);
  len = fread(buf, 1, cap, in);
  fclose(in);
  return len;
}

static abloom_filter *make_growing(uint64_t first, double growth, uint32_t shards, uint64_t n,
                                   uint64_t seed);

/* A growing filter's file opened read-write, as its writer leaves it while it appends a stage
 * (docs/FORMAT.md, "Growing filters"): its stages stale, and the file one empty stage longer than
 * its header says. The stage's size is the growth of the file when the writer appends it. */
static void stale_appending_case(void) {
  char path[4096];
  static unsigned char before[1 << 16], after[1 << 16];
  abloom_filter *rw = NULL;
  abloom_info info;
  size_t len, grown;
  int rc;
  snprintf(path, sizeof path, "%s/.stale-chain-work.abloom", g_dir);
  rw = make_growing(100, 2, 1, 250, 12); /* two stages */
  rc = abloom_save(rw, path);
  if (rc != ABLOOM_OK) die("abloom_save (growing)", rc);
  abloom_free(rw);
  rc = abloom_open(path, ABLOOM_OPEN_READ_WRITE, &rw);
  if (rc != ABLOOM_OK) die("abloom_open (growing)", rc);
  len = read_file(path, before, sizeof before);
  fill(rw, 250, 200); /* 100 + 200 < 450 keys: appends the third stage */
  abloom_info_init(&info);
  if (abloom_get_info(rw, &info) != ABLOOM_OK || info.stages != 3) die("a third stage", 0);
  grown = read_file(path, after, sizeof after);
  if (grown <= len || grown > sizeof before) die("the file's growth", 0);
  memset(before + len, 0, grown - len);
  expect_code("valid-stale-growing-appending.abloom", before, grown, ABLOOM_ERR_STALE);
  abloom_free(rw);
  unlink(path);
}

/* A growing filter (abloom_options.growth `growth`, first stage `first` keys, target 10%) holding
 * keys 0 .. n - 1. */
static abloom_filter *make_growing(uint64_t first, double growth, uint32_t shards, uint64_t n,
                                   uint64_t seed) {
  abloom_options o;
  abloom_filter *f = NULL;
  int rc;
  abloom_options_init(&o);
  o.capacity = first;
  o.fpr = 0.1;
  o.shards = shards;
  o.seed = seed;
  o.growth = growth;
  rc = abloom_create(&o, &f);
  if (rc != ABLOOM_OK) die("abloom_create (growing)", rc);
  fill(f, 0, n);
  return f;
}

/* A chain's fields (docs/FORMAT.md, "Growing filters"). */
#define CHAIN_OFF_STAGES 72
#define CHAIN_TABLE 128
#define CHAIN_ENTRY 32

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

/* Recomputes a chain's table checksum (offset 104, over `stages` entries) and header checksum. */
static void fix_chain_checksums(unsigned char *b, uint32_t stages) {
  put64(b + 104, XXH3_64bits(b + CHAIN_TABLE, (size_t)stages * CHAIN_ENTRY));
  put64(b + 120, XXH3_64bits(b, 120));
}

/* Damaged chains, one per kind of damage the readers must catch (each with its checksums made
 * right where the damage is not the checksum's). */
static void growing_cases(void) {
  size_t len;
  unsigned char *b, *t;
  abloom_filter *f = make_growing(100, 2, 1, 500, 11);
  uint32_t stages;
  uint64_t stage1, entry[4];
  b = bytes_of(f, &len);
  abloom_free(f);
  stages = (uint32_t)get64(b + CHAIN_OFF_STAGES) & 0xFFFFFFFFu;
  t = malloc(len);
  if (t == NULL) exit(1);
  expect_code("invalid-growing-truncated.abloom", b, len - 64, ABLOOM_ERR_TRUNCATED);
  memcpy(t, b, len);
  stage1 = get64(b + CHAIN_TABLE + CHAIN_ENTRY);
  t[stage1 + ABLOOM_HEADER_BYTES + 5] ^= 0x10;
  expect_code("invalid-growing-stage-bitflip.abloom", t, len, ABLOOM_ERR_CHECKSUM);
  memcpy(t, b, len);
  put32(t + CHAIN_OFF_STAGES, stages + 1);
  fix_chain_checksums(t, stages + 1);
  expect_code("invalid-growing-stage-count-past-end.abloom", t, len, ABLOOM_ERR_CORRUPT);
  memcpy(t, b, len);
  memcpy(entry, t + CHAIN_TABLE, sizeof entry);
  memmove(t + CHAIN_TABLE, t + CHAIN_TABLE + CHAIN_ENTRY, CHAIN_ENTRY);
  memcpy(t + CHAIN_TABLE + CHAIN_ENTRY, entry, sizeof entry);
  fix_chain_checksums(t, stages);
  expect_code("invalid-growing-stages-swapped.abloom", t, len, ABLOOM_ERR_CORRUPT);
  free(t);
  free(b);
}

int main(int argc, char **argv) {
  unsigned char *b;
  size_t len;
  uint64_t state = 42;
  abloom_filter *f;
  if (argc != 2) {
    fprintf(stderr, "usage: make_corpus DIR\n");
    return 2;
  }
  g_dir = argv[1];

  /* ---- valid ---- */
  save_valid("valid-blocked-s1-empty.abloom", make(ABLOOM_KIND_BLOCKED, 1, 100, 0.01, 0, 0, 0));
  f = make(ABLOOM_KIND_BLOCKED, 1, 100, 0.01, 0, 0, 0);
  fill(f, 0, 100);
  save_valid("valid-blocked-s1-filled.abloom", f);
  save_valid("valid-blocked-s4-empty.abloom", make(ABLOOM_KIND_BLOCKED, 4, 300, 0.01, 0, 0, 1));
  f = make(ABLOOM_KIND_BLOCKED, 4, 300, 0.01, 0, 0, 1);
  fill(f, 0, 300);
  save_valid("valid-blocked-s4-filled.abloom", f);
  save_valid("valid-classic-s1-empty.abloom", make(ABLOOM_KIND_CLASSIC, 1, 100, 0.01, 0, 0, 0));
  f = make(ABLOOM_KIND_CLASSIC, 1, 100, 0.01, 0, 0, 0);
  fill(f, 0, 100);
  save_valid("valid-classic-s1-filled.abloom", f);
  save_valid("valid-classic-s4-empty.abloom", make(ABLOOM_KIND_CLASSIC, 4, 300, 0.01, 0, 0, 2));
  f = make(ABLOOM_KIND_CLASSIC, 4, 300, 0.01, 0, 0, 2);
  fill(f, 0, 300);
  save_valid("valid-classic-s4-filled.abloom", f);
  /* Bigger (2.5 KB), low FPR, random seed. */
  f = make(ABLOOM_KIND_BLOCKED, 1, 1000, 0.001, 0, 0, splitmix64(&state));
  fill(f, 0, 1000);
  save_valid("valid-blocked-s1-1000keys.abloom", f);
  f = make(ABLOOM_KIND_CLASSIC, 4, 1000, 0.001, 0, 0, splitmix64(&state));
  fill(f, 0, 1000);
  save_valid("valid-classic-s4-1000keys.abloom", f);
  /* Explicit layouts (target FPR 0 in the header). */
  f = make(ABLOOM_KIND_BLOCKED, 2, 50, 0.01, 2048, 3, UINT64_MAX);
  fill(f, 0, 40);
  save_valid("valid-blocked-s2-explicit-k3.abloom", f);
  f = make(ABLOOM_KIND_CLASSIC, 1, 10, 0.01, 512, 64, 5);
  fill(f, 0, 3);
  save_valid("valid-classic-s1-one-block-k64.abloom", f);
  /* Saturated: every bit set, the count estimate is infinite (stored as UINT64_MAX). */
  f = make(ABLOOM_KIND_BLOCKED, 1, 10, 0.01, 512, 64, 0);
  fill(f, 0, 2000);
  save_valid("valid-blocked-saturated.abloom", f);
  stale_case();
  /* Growing filters: one stage, empty; three stages; growth 3 over 2 shards. */
  save_valid("valid-growing-1-stage-empty.abloom", make_growing(100, 2, 1, 0, 0));
  save_valid("valid-growing-3-stages.abloom", make_growing(100, 2, 1, 500, 9));
  save_valid("valid-growing-growth3-s2.abloom", make_growing(64, 3, 2, 400, 10));
  stale_appending_case();

  /* ---- invalid ---- */
  growing_cases();
  f = make(ABLOOM_KIND_BLOCKED, 1, 100, 0.01, 0, 0, 3);
  fill(f, 0, 60);
  b = bytes_of(f, &len);
  abloom_free(f);
  expect_code("invalid-truncated-body.abloom", b, len - 1, ABLOOM_ERR_TRUNCATED);
  expect_code("invalid-truncated-header-only.abloom", b, ABLOOM_HEADER_BYTES, ABLOOM_ERR_TRUNCATED);
  expect_code("invalid-truncated-127.abloom", b, ABLOOM_HEADER_BYTES - 1, ABLOOM_ERR_TRUNCATED);
  expect_code("invalid-truncated-8.abloom", b, 8, ABLOOM_ERR_TRUNCATED);
  {
    unsigned char *t = malloc(len + 1);
    if (t == NULL) return 1;
    memcpy(t, b, len);
    t[len] = 0;
    expect_code("invalid-trailing-byte.abloom", t, len + 1, ABLOOM_ERR_CORRUPT);
    memcpy(t, b, len);
    t[1] = 'X';
    expect_code("invalid-bad-magic.abloom", t, len, ABLOOM_ERR_BAD_MAGIC);
    memcpy(t, b, len);
    t[8] = 2;
    expect_code("invalid-version-2.abloom", t, len, ABLOOM_ERR_VERSION);
    memcpy(t, b, len);
    t[12] = 64;
    expect_code("invalid-header-size.abloom", t, len, ABLOOM_ERR_CORRUPT);
    memcpy(t, b, len);
    t[33] ^= 0x10; /* a seed bit: only the header checksum catches it */
    expect_code("invalid-header-bitflip.abloom", t, len, ABLOOM_ERR_CORRUPT);
    memcpy(t, b, len);
    t[len - 5] ^= 0x04; /* a body bit: only the full checksum catches it */
    expect_code("invalid-body-bitflip.abloom", t, len, ABLOOM_ERR_CHECKSUM);
    free(t);
  }
  /* Kind 2 is a growing chain now: a filter's header that says so is a malformed chain. */
  field_case("invalid-kind-2.abloom", b, len, 16, 4, 2, ABLOOM_ERR_CORRUPT);
  /* Layout 2 is the split layout now (the checked-in invalid-layout-2.abloom reads as valid). */
  field_case("invalid-layout-3.abloom", b, len, 20, 4, 3, ABLOOM_ERR_UNSUPPORTED);
  field_case("invalid-hash-0.abloom", b, len, 24, 4, 0, ABLOOM_ERR_UNSUPPORTED);
  field_case("invalid-k-0.abloom", b, len, 28, 4, 0, ABLOOM_ERR_CORRUPT);
  field_case("invalid-k-65.abloom", b, len, 28, 4, 65, ABLOOM_ERR_CORRUPT);
  field_case("invalid-blocks-0.abloom", b, len, 40, 8, 0, ABLOOM_ERR_CORRUPT);
  field_case("invalid-blocks-huge.abloom", b, len, 40, 8, UINT64_C(1) << 60, ABLOOM_ERR_CORRUPT);
  field_case("invalid-shards-3.abloom", b, len, 48, 4, 3, ABLOOM_ERR_CORRUPT);
  field_case("invalid-shards-0.abloom", b, len, 48, 4, 0, ABLOOM_ERR_CORRUPT);
  field_case("invalid-shards-131072.abloom", b, len, 48, 4, 131072, ABLOOM_ERR_CORRUPT);
  field_case("invalid-flags-2.abloom", b, len, 52, 4, 2, ABLOOM_ERR_CORRUPT);
  field_case("invalid-bits.abloom", b, len, 56, 8, 1000, ABLOOM_ERR_CORRUPT);
  field_case("invalid-capacity-0.abloom", b, len, 64, 8, 0, ABLOOM_ERR_CORRUPT);
  field_case("invalid-target-fpr-1.abloom", b, len, 80, 8, UINT64_C(0x3FF0000000000000),
             ABLOOM_ERR_CORRUPT);
  field_case("invalid-target-fpr-negative.abloom", b, len, 80, 8, UINT64_C(0xBF847AE147AE147B),
             ABLOOM_ERR_CORRUPT);
  field_case("invalid-expected-fpr-nan.abloom", b, len, 88, 8, UINT64_C(0x7FF8000000000000),
             ABLOOM_ERR_CORRUPT);
  field_case("invalid-body-size.abloom", b, len, 96, 8, 1, ABLOOM_ERR_CORRUPT);
  field_case("invalid-reserved.abloom", b, len, 112, 8, 1, ABLOOM_ERR_CORRUPT);
  /* A stale flag with the checksums recomputed: still refused by a checksum check, as stale. */
  field_case("invalid-stale-flag.abloom", b, len, 52, 4, 1, ABLOOM_ERR_STALE);
  free(b);
  return 0;
}
