/*
 * ab_lib.c - A/B harness for two builds of libabloom: the same binary is run against each
 * build in turn (LD_LIBRARY_PATH=<build A>/capi, then <build B>/capi, interleaved), so a change
 * to the library is measured against its predecessor on the same machine, minutes apart.
 *
 *   ab_lib [N]   N keys (default 1000000) at 1%: best of 7 runs of
 *                bulk test of N absent hashes, bulk test of the N added hashes, and N single
 *                abloom_test_hash calls on absent hashes; ns per key.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "abloom.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t next(uint64_t *s) {
  *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return *s ^ (*s >> 29);
}

int main(int argc, char **argv) {
  const uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
  abloom_filter *f;
  uint64_t *added = malloc(8 * n), *absent = malloc(8 * n), s = 1, found = 0, sink = 0, i;
  (void)found;
  uint8_t *res = malloc(n);
  double best[3] = {1e9, 1e9, 1e9};
  int rep;
  if (n == 0 || !added || !absent || !res || abloom_new(n, 0.01, &f) != ABLOOM_OK) return 1;
  for (i = 0; i < n; ++i) added[i] = next(&s);
  for (i = 0; i < n; ++i) absent[i] = next(&s);
  abloom_add_hashes(f, added, n, NULL);
  for (rep = 0; rep < 7; ++rep) {
    double t0 = now(), t1, t2, t3;
    abloom_test_hashes(f, absent, n, res, &found);
    t1 = now();
    abloom_test_hashes(f, added, n, res, &found);
    t2 = now();
    for (i = 0; i < n; ++i) sink += (uint64_t)abloom_test_hash(f, absent[i]);
    t3 = now();
    if (t1 - t0 < best[0]) best[0] = t1 - t0;
    if (t2 - t1 < best[1]) best[1] = t2 - t1;
    if (t3 - t2 < best[2]) best[2] = t3 - t2;
  }
  printf(
      "n=%llu bulk absent %.2f ns, bulk present %.2f ns, single absent %.2f ns (absent positives "
      "%llu of %llu)\n",
      (unsigned long long)n, best[0] / n * 1e9, best[1] / n * 1e9, best[2] / n * 1e9,
      (unsigned long long)(sink / 7), (unsigned long long)n);
  abloom_free(f);
  free(added);
  free(absent);
  free(res);
  return 0;
}
