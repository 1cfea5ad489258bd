/*
 * abloom.h and abloom_inline.h from strict C99 (-std=c99 -pedantic -Wall -Wextra -Werror): the
 * headers must compile as C, and every function they declare is called at least once and its
 * result checked. Exits
 * non-zero, with a message on stderr for each failed check, on any failure.
 */
#include <abloom.h>
#include <abloom_inline.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#include "check.h"

/* An int-returning call that must give ABLOOM_OK. */
#define CHECK_OK(call)                                                                \
  do {                                                                                \
    int rc_ = (call);                                                                 \
    if (rc_ != ABLOOM_OK) {                                                           \
      fprintf(stderr, "%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #call, rc_, \
              abloom_strerror(rc_));                                                  \
      ++failures;                                                                     \
    }                                                                                 \
  } while (0)

#define NKEYS 64

int main(void) {
  static const char *const words[] = {"", "a", "bc", "def", "ghij", "klmno"};
  const size_t nwords = sizeof words / sizeof words[0];
  char storage[NKEYS][32];
  const void *keys[NKEYS];
  size_t lens[NKEYS];
  uint64_t hashes[NKEYS];
  uint8_t results[NKEYS];
  char packed[NKEYS * 32];
  uint64_t offsets[NKEYS + 1];
  size_t packed_len = 0;
  abloom_options opts;
  abloom_plan plan;
  abloom_info info;
  abloom_filter *f = NULL, *g = NULL, *h = NULL, *c = NULL, *sentinel = NULL;
  abloom_inline in;
  uint64_t added = 0, found = 0, hash = 0, hash2 = 0;
  double d = 0.0, model = 0.0;
  char version[32];
  size_t i;
  int rc;

  /* Version. */
  CHECK(abloom_version_number() == (unsigned)ABLOOM_VERSION_NUMBER);
  CHECK(strcmp(abloom_version_string(), ABLOOM_VERSION_STRING) == 0);
  sprintf(version, "%d.%d.%d", ABLOOM_VERSION_MAJOR, ABLOOM_VERSION_MINOR, ABLOOM_VERSION_PATCH);
  CHECK(strcmp(abloom_version_string(), version) == 0);

  /* Error strings. */
  CHECK(abloom_strerror(ABLOOM_OK) != NULL);
  CHECK(strlen(abloom_strerror(ABLOOM_ERR_NULL)) > 0);
  CHECK(strcmp(abloom_strerror(ABLOOM_ERR_NULL), abloom_strerror(ABLOOM_ERR_INVALID)) != 0);
  CHECK(strcmp(abloom_strerror(-12345), "unknown error code") == 0);

  /* Options and plan. */
  CHECK(abloom_options_init(NULL) == ABLOOM_ERR_NULL);
  CHECK_OK(abloom_options_init(&opts));
  CHECK(opts.struct_size == sizeof opts);
  CHECK(opts.fpr == 0.01);
  CHECK(opts.kind == ABLOOM_KIND_BLOCKED);
  CHECK(opts.capacity == 0 && opts.seed == 0 && opts.shards == 0);
  opts.capacity = 1000;
  opts.fpr = 0.001;
  opts.seed = 42;

  CHECK_OK(abloom_plan_init(&plan));
  CHECK(plan.struct_size == sizeof plan);
  CHECK_OK(abloom_plan_compute(&opts, &plan));
  CHECK(plan.kind == ABLOOM_KIND_BLOCKED);
  CHECK(plan.k >= 1 && plan.k <= ABLOOM_MAX_K);
  CHECK(plan.shards == 1);
  CHECK(plan.bits == (uint64_t)plan.shards * plan.blocks_per_shard * 512u);
  CHECK(plan.bytes * 8 == plan.bits);
  CHECK(plan.expected_fpr > 0.0 && plan.expected_fpr <= 0.001);
  CHECK(fabs(plan.bits_per_key - (double)plan.bits / 1000.0) < 1e-9);

  CHECK(plan.layout == ABLOOM_LAYOUT_SPLIT); /* the default at 0.1% */
  CHECK_OK(
      abloom_layout_model_fpr(ABLOOM_KIND_BLOCKED, plan.layout, plan.bits_per_key, plan.k, &model));
  CHECK(fabs(model - plan.expected_fpr) <= plan.expected_fpr * 1e-6);
  CHECK_OK(abloom_model_fpr(ABLOOM_KIND_CLASSIC, 10.0, 7, &model));
  CHECK(fabs(model - pow(1.0 - exp(-0.7), 7.0)) < 1e-12);
  CHECK(abloom_model_fpr(ABLOOM_KIND_CLASSIC, 10.0, 0, &model) == ABLOOM_ERR_INVALID);

  /* Lifecycle. */
  CHECK_OK(abloom_create(&opts, &f));
  CHECK(f != NULL);
  if (f == NULL) {
    fprintf(stderr, "cannot continue without a filter\n");
    return 1;
  }
  CHECK_OK(abloom_info_init(&info));
  CHECK(info.struct_size == sizeof info);
  CHECK_OK(abloom_get_info(f, &info));
  CHECK(info.kind == plan.kind && info.k == plan.k && info.shards == plan.shards);
  CHECK(info.blocks_per_shard == plan.blocks_per_shard && info.bits == plan.bits);
  CHECK(info.bytes == plan.bytes && info.expected_fpr == plan.expected_fpr);
  CHECK(info.capacity == 1000 && info.seed == 42 && info.target_fpr == 0.001);

  CHECK_OK(abloom_new(1000, 0.001, &g));
  CHECK(g != NULL);
  opts.capacity = 0;
  sentinel = (abloom_filter *)&rc;
  h = sentinel;
  CHECK(abloom_create(&opts, &h) == ABLOOM_ERR_INVALID);
  CHECK(h == sentinel);
  h = NULL;
  opts.capacity = 1000;

  /* Single keys. */
  CHECK(abloom_test(f, "hello", 5) == 0);
  CHECK_OK(abloom_add(f, "hello", 5));
  CHECK(abloom_test(f, "hello", 5) == 1);
  CHECK(abloom_test_and_add(f, "world", 5) == 0);
  CHECK(abloom_test_and_add(f, "world", 5) == 1);
  CHECK(abloom_add(f, NULL, 3) == ABLOOM_ERR_NULL);
  CHECK_OK(abloom_add(f, NULL, 0));
  CHECK(abloom_test(f, "", 0) == 1);

  /* The single-key test and add compiled in here: the same answers. */
  CHECK(abloom_inline_init(NULL, f) == ABLOOM_ERR_NULL);
  CHECK_OK(abloom_inline_init(&in, f));
  CHECK(in.path <= ABLOOM_INLINE_PATH_HALF);
  CHECK(abloom_inline_test(&in, "hello", 5) == 1 && abloom_inline_test(&in, "world", 5) == 1);
  CHECK(abloom_inline_test(&in, "absent", 6) == abloom_test(f, "absent", 6));
  CHECK(abloom_inline_test(&in, "", 0) == 1);
  CHECK(abloom_inline_test(&in, NULL, 1) == ABLOOM_ERR_NULL);
  CHECK(abloom_inline_add(&in, "inline", 6) == ABLOOM_ERR_READONLY); /* made for tests only */
  CHECK(abloom_inline_init_writer(NULL, f) == ABLOOM_ERR_NULL);
  CHECK_OK(abloom_inline_init_writer(&in, f));
  CHECK(in.add_path == in.path);
  CHECK(abloom_inline_test_and_add(&in, "inline", 6) == 0);
  CHECK(abloom_inline_test_and_add(&in, "inline", 6) == 1);
  CHECK_OK(abloom_inline_add(&in, "inline 2", 8));
  CHECK(abloom_test(f, "inline", 6) == 1 && abloom_test(f, "inline 2", 8) == 1);

  CHECK_OK(abloom_hash(f, "hashed", 6, &hash));
  CHECK(abloom_test_hash(f, hash) == 0);
  CHECK_OK(abloom_add_hash(f, hash));
  CHECK(abloom_test_hash(f, hash) == 1);
  CHECK(abloom_test(f, "hashed", 6) == 1);
  CHECK_OK(abloom_hash(f, "other", 5, &hash2));
  CHECK(hash2 != hash);
  CHECK(abloom_test_and_add_hash(f, hash2) == 0);
  CHECK(abloom_test_and_add_hash(f, hash2) == 1);
  CHECK(abloom_test(f, "other", 5) == 1);

  /* Bulk: three forms over the same keys, each in its own filter. */
  for (i = 0; i < NKEYS; ++i) {
    int n = sprintf(storage[i], "%s-%u", words[i % nwords], (unsigned)i);
    lens[i] = (size_t)n;
    keys[i] = storage[i];
  }
  offsets[0] = 0;
  for (i = 0; i < NKEYS; ++i) {
    memcpy(packed + packed_len, storage[i], lens[i]);
    packed_len += lens[i];
    offsets[i + 1] = packed_len;
  }

  CHECK_OK(abloom_clear(g));
  CHECK_OK(abloom_add_many(g, keys, lens, NKEYS, &added));
  CHECK(added == NKEYS);
  memset(results, 0xEE, sizeof results);
  CHECK_OK(abloom_test_many(g, keys, lens, NKEYS, results, &found));
  CHECK(found == NKEYS);
  for (i = 0; i < NKEYS; ++i) CHECK(results[i] == 1);

  opts.seed = 0; /* same shape as g, built by abloom_new */
  CHECK_OK(abloom_create(&opts, &h));
  CHECK(h != NULL);
  CHECK_OK(abloom_add_packed(h, packed, packed_len, offsets, NKEYS, &added));
  CHECK(added == NKEYS);
  memset(results, 0xEE, sizeof results);
  CHECK_OK(abloom_test_packed(h, packed, packed_len, offsets, NKEYS, results, &found));
  CHECK(found == NKEYS);
  for (i = 0; i < NKEYS; ++i) CHECK(results[i] == 1);
  CHECK(abloom_equal(g, h) == 1);
  offsets[3] = offsets[2] - 1; /* decreasing: rejected, nothing added */
  CHECK(abloom_add_packed(h, packed, packed_len, offsets, NKEYS, &added) == ABLOOM_ERR_INVALID);
  offsets[3] = offsets[2] + lens[2];
  CHECK(abloom_equal(g, h) == 1);

  CHECK_OK(abloom_clone(g, &c));
  CHECK(c != NULL);
  CHECK(abloom_equal(g, c) == 1);
  CHECK_OK(abloom_clear(c));
  CHECK(abloom_equal(g, c) == 0);
  for (i = 0; i < NKEYS; ++i) CHECK_OK(abloom_hash(c, keys[i], lens[i], &hashes[i]));
  CHECK_OK(abloom_add_hashes(c, hashes, NKEYS, &added));
  CHECK(added == NKEYS);
  memset(results, 0xEE, sizeof results);
  CHECK_OK(abloom_test_hashes(c, hashes, NKEYS, results, &found));
  CHECK(found == NKEYS);
  for (i = 0; i < NKEYS; ++i) CHECK(results[i] == 1);
  CHECK(abloom_equal(g, c) == 1);

  /* Test-and-add in order, in its three forms: every key new the first time, present after. */
  CHECK_OK(abloom_clear(c));
  memset(results, 0xEE, sizeof results);
  CHECK_OK(abloom_test_and_add_packed(c, packed, packed_len, offsets, NKEYS, results, &added));
  CHECK(added == NKEYS);
  for (i = 0; i < NKEYS; ++i) CHECK(results[i] == 0);
  memset(results, 0xEE, sizeof results);
  CHECK_OK(abloom_test_and_add_hashes(c, hashes, NKEYS, results, &added));
  CHECK(added == 0);
  for (i = 0; i < NKEYS; ++i) CHECK(results[i] == 1);
  memset(results, 0xEE, sizeof results);
  CHECK_OK(abloom_test_and_add_many(c, keys, lens, NKEYS, results, &added));
  CHECK(added == 0);
  for (i = 0; i < NKEYS; ++i) CHECK(results[i] == 1);
  CHECK(abloom_equal(g, c) == 1);

  /* Set operations. */
  CHECK_OK(abloom_clear(h));
  CHECK_OK(abloom_add(h, "only in h", 9));
  CHECK_OK(abloom_union(c, h));
  CHECK(abloom_test(c, "only in h", 9) == 1);
  CHECK(abloom_test(c, keys[0], lens[0]) == 1);
  CHECK_OK(abloom_intersect(c, h));
  CHECK(abloom_equal(c, h) == 1); /* h's bits are a subset of c's */
  CHECK(abloom_test(c, "only in h", 9) == 1);
  CHECK(abloom_union(f, g) == ABLOOM_ERR_MISMATCH); /* seeds differ: 42 vs 0 */
  CHECK(abloom_intersect(f, g) == ABLOOM_ERR_MISMATCH);
  CHECK(abloom_equal(f, g) == 0);
  CHECK(abloom_equal(NULL, g) == ABLOOM_ERR_NULL);

  /* Estimates. */
  CHECK_OK(abloom_estimate_count(g, &d));
  CHECK(d > NKEYS * 0.8 && d < NKEYS * 1.2);
  CHECK_OK(abloom_estimate_fpr(g, &d));
  CHECK(d > 0.0 && d < 0.001);
  CHECK_OK(abloom_clear(g));
  CHECK_OK(abloom_estimate_count(g, &d));
  CHECK(d == 0.0);
  CHECK_OK(abloom_estimate_fpr(g, &d));
  CHECK(d == 0.0);
  CHECK(abloom_test(g, keys[1], lens[1]) == 0);

  abloom_free(c);
  abloom_free(h);
  abloom_free(g);
  abloom_free(f);
  abloom_free(NULL);

  if (failures != 0) {
    fprintf(stderr, "abloom C99 header test: %d check(s) failed\n", failures);
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
