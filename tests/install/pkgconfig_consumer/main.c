/*
 * An installed-package consumer: built with nothing but `pkg-config --cflags --libs abloom`
 * (dynamic) or `pkg-config --static ...` (static). Plain C99; exits non-zero on any failure.
 * It uses both installed headers: abloom.h and abloom_inline.h (which includes the system's
 * xxhash.h).
 */
#include <abloom.h>
#include <abloom_inline.h>
#include <stdio.h>
#include <string.h>

#include "../consumer_check.h"

enum { N_KEYS = 1000, N_ABSENT = 10000 };

/* Adds N_KEYS keys ("key-0".."key-999"; half one by one, half with abloom_add_many) and checks
 * that all of them test positive and that absent keys mostly test negative. */
static void exercise(abloom_filter *f) {
  char storage[N_KEYS][32];
  const void *keys[N_KEYS];
  size_t lens[N_KEYS];
  uint8_t results[N_KEYS];
  uint64_t added = 0, found = 0;
  size_t i;
  int positives = 0;
  abloom_inline in;

  for (i = 0; i < N_KEYS; ++i) {
    int len = snprintf(storage[i], sizeof storage[i], "key-%lu", (unsigned long)i);
    keys[i] = storage[i];
    lens[i] = (size_t)len;
  }
  for (i = 0; i < N_KEYS / 2; ++i) CHECK_OK(abloom_add(f, keys[i], lens[i]));
  CHECK_OK(abloom_add_many(f, keys + N_KEYS / 2, lens + N_KEYS / 2, N_KEYS - N_KEYS / 2, &added));
  CHECK(added <= N_KEYS - N_KEYS / 2);
  CHECK(added >= (N_KEYS - N_KEYS / 2) * 9 / 10);

  for (i = 0; i < N_KEYS; ++i) CHECK(abloom_test(f, keys[i], lens[i]) == 1);
  CHECK_OK(abloom_inline_init_writer(&in, f));
  for (i = 0; i < N_KEYS; ++i) CHECK(abloom_inline_test(&in, keys[i], lens[i]) == 1);
  for (i = 0; i < N_KEYS; ++i) CHECK(abloom_inline_test_and_add(&in, keys[i], lens[i]) == 1);
  memset(results, 0, sizeof results);
  CHECK_OK(abloom_test_many(f, keys, lens, N_KEYS, results, &found));
  CHECK(found == N_KEYS);
  for (i = 0; i < N_KEYS; ++i) CHECK(results[i] == 1);

  for (i = 0; i < N_ABSENT; ++i) {
    char absent[32];
    int len = snprintf(absent, sizeof absent, "absent-%lu", (unsigned long)i);
    int r = abloom_test(f, absent, (size_t)len);
    CHECK(r == 0 || r == 1);
    CHECK(abloom_inline_test(&in, absent, (size_t)len) == r);
    positives += r == 1;
  }
  /* Target 1%: 10% would be a broken filter, not bad luck. */
  CHECK(positives < N_ABSENT / 10);
  printf("  %d keys added, %d/%d absent keys tested positive (abloom_inline path %u)\n", N_KEYS,
         positives, N_ABSENT, in.path);
}

int main(void) {
  abloom_filter *f = NULL;
  abloom_options opts;

  printf("abloom version %s (%u), header %s\n", abloom_version_string(), abloom_version_number(),
         ABLOOM_VERSION_STRING);
  CHECK(strcmp(abloom_version_string(), ABLOOM_VERSION_STRING) == 0);
  CHECK(abloom_version_number() == ABLOOM_VERSION_NUMBER);
  CHECK(abloom_strerror(ABLOOM_ERR_NULL) != NULL);
  CHECK(abloom_new(1000, 0.01, NULL) == ABLOOM_ERR_NULL);

  /* abloom_new: defaults. */
  CHECK_OK(abloom_new(N_KEYS, 0.01, &f));
  CHECK(f != NULL);
  if (f) {
    printf("abloom_new:\n");
    exercise(f);
    abloom_free(f);
    f = NULL;
  }

  /* abloom_options_init + abloom_create with a few options. */
  CHECK_OK(abloom_options_init(&opts));
  CHECK(opts.struct_size == sizeof opts);
  opts.capacity = N_KEYS;
  opts.fpr = 0.01;
  opts.kind = ABLOOM_KIND_CLASSIC;
  opts.shards = 2;
  opts.seed = 42;
  CHECK_OK(abloom_create(&opts, &f));
  CHECK(f != NULL);
  if (f) {
    printf("abloom_create (classic, 2 shards, seed 42):\n");
    exercise(f);
    abloom_free(f);
  }
  abloom_free(NULL);

  if (failures) {
    fprintf(stderr, "pkgconfig_consumer: %d check(s) failed\n", failures);
    return 1;
  }
  printf("pkgconfig_consumer: OK\n");
  return 0;
}
