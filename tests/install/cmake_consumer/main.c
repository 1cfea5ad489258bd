/*
 * A CMake consumer of the installed package, linked once against abloom::abloom and once against
 * abloom::abloom_static (CONSUMER_NAME tells which). Plain C99; exits non-zero on any failure.
 */
#include <abloom.h>
#include <stdio.h>
#include <string.h>

#include "../consumer_check.h"

#ifndef CONSUMER_NAME
#define CONSUMER_NAME "cmake_consumer"
#endif

enum { N_KEYS = 2000 };

/* Keys are 8-byte little-endian-ish encodings of i * 2654435761 (distinct for i < 2^32). */
static void make_key(unsigned char out[8], uint64_t i) {
  uint64_t v = i * UINT64_C(2654435761);
  int b;
  for (b = 0; b < 8; ++b) out[b] = (unsigned char)(v >> (8 * b));
}

static void exercise(abloom_filter *f, const char *what) {
  static unsigned char storage[N_KEYS][8];
  static const void *keys[N_KEYS];
  static size_t lens[N_KEYS];
  uint64_t added = 0;
  size_t i;
  int positives = 0;

  for (i = 0; i < N_KEYS; ++i) {
    make_key(storage[i], i);
    keys[i] = storage[i];
    lens[i] = sizeof storage[i];
  }
  /* First quarter one at a time, the rest in one bulk call. */
  for (i = 0; i < N_KEYS / 4; ++i) CHECK_OK(abloom_add(f, keys[i], lens[i]));
  CHECK_OK(abloom_add_many(f, keys + N_KEYS / 4, lens + N_KEYS / 4, N_KEYS - N_KEYS / 4, &added));
  CHECK(added <= N_KEYS - N_KEYS / 4);
  CHECK(added >= (N_KEYS - N_KEYS / 4) * 9 / 10);
  /* Adding the same keys again finds nothing new. */
  CHECK_OK(abloom_add_many(f, keys, lens, N_KEYS, &added));
  CHECK(added == 0);

  for (i = 0; i < N_KEYS; ++i) CHECK(abloom_test(f, keys[i], lens[i]) == 1);
  CHECK(abloom_test(f, "", 0) == 0 || abloom_test(f, "", 0) == 1);
  CHECK(abloom_test(NULL, "x", 1) == ABLOOM_ERR_NULL);

  for (i = N_KEYS; i < 11 * N_KEYS; ++i) {
    unsigned char k[8];
    int r;
    make_key(k, i);
    r = abloom_test(f, k, sizeof k);
    CHECK(r == 0 || r == 1);
    positives += r == 1;
  }
  CHECK(positives < N_KEYS); /* < 10% of the 10 * N_KEYS absent keys; the target is 1% */
  printf("  %s: %d keys, %d/%d absent keys tested positive\n", what, N_KEYS, positives,
         10 * N_KEYS);
}

int main(void) {
  abloom_filter *f = NULL;
  abloom_options opts;

  printf("%s: abloom %s (runtime %u, header %d)\n", CONSUMER_NAME, abloom_version_string(),
         abloom_version_number(), ABLOOM_VERSION_NUMBER);
  CHECK(strcmp(abloom_version_string(), ABLOOM_VERSION_STRING) == 0);
  CHECK(abloom_version_number() == ABLOOM_VERSION_NUMBER);

  CHECK_OK(abloom_new(N_KEYS, 0.01, &f));
  if (f) {
    exercise(f, "abloom_new(blocked)");
    abloom_free(f);
    f = NULL;
  }

  CHECK_OK(abloom_options_init(&opts));
  opts.capacity = N_KEYS;
  opts.fpr = 0.005;
  opts.kind = ABLOOM_KIND_BLOCKED;
  opts.shards = 4;
  opts.seed = UINT64_C(0x9e3779b97f4a7c15);
  opts.threads = 2;
  CHECK_OK(abloom_create(&opts, &f));
  if (f) {
    exercise(f, "abloom_create(blocked, 4 shards, 2 threads)");
    abloom_free(f);
    f = NULL;
  }

  CHECK(abloom_create(NULL, &f) == ABLOOM_ERR_NULL);
  CHECK(f == NULL);

  if (failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", CONSUMER_NAME, failures);
    return 1;
  }
  printf("%s: OK\n", CONSUMER_NAME);
  return 0;
}
