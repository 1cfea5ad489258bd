/*
 * demo.c - abloom's main job, end to end, through the C API only.
 *
 * Builds a filter for N keys at a target false-positive rate, adds N keys with the bulk API,
 * queries N keys that were never added, and reports the plan, the measured FPR, memory,
 * throughput and the count estimate. Then it checks every added key: a single false negative
 * is a bug and the program exits 1.
 *
 * Keys are 16-byte binary strings from two splitmix64 streams (one for the keys that are added,
 * one for the keys that are not), so every run is deterministic.
 *
 *   abloom_demo [--keys N] [--fpr P] [--kind blocked|classic] [--shards S] [--threads T]
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abloom.h"

#define KEY_BYTES 16
#define BATCH ((size_t)65536)
#define ADDED_SEED UINT64_C(0xA11CE5EED)
#define ABSENT_SEED UINT64_C(0xB0B5EED)

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *out, const char *prog) {
  fprintf(out,
          "usage: %s [--keys N] [--fpr P] [--kind blocked|classic] [--shards S] [--threads T]\n"
          "  --keys N      keys to add, and absent keys to query (default 10000000)\n"
          "  --fpr P       target false-positive rate, 0 < P < 1 (default 0.01)\n"
          "  --kind K      blocked (default) or classic\n"
          "  --shards S    shard count, a power of two, or 0 for the library default (default 0)\n"
          "  --threads T   threads for the bulk calls, 0 or 1 = calling thread only (default 0)\n",
          prog);
}

/* Parse a whole decimal unsigned number; 0 on success. */
static int parse_u64(const char *s, uint64_t *out) {
  char *end = NULL;
  unsigned long long v;
  if (s == NULL || *s == '\0' || *s == '-' || *s == '+') return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return -1;
  *out = (uint64_t)v;
  return 0;
}

static int parse_double(const char *s, double *out) {
  char *end = NULL;
  double v;
  if (s == NULL || *s == '\0') return -1;
  errno = 0;
  v = strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0') return -1;
  *out = v;
  return 0;
}

/* Fill `buf` with `n` consecutive keys of a stream and `offsets` with their n+1 offsets. */
static void make_batch(uint64_t *state, size_t n, unsigned char *buf, uint64_t *offsets) {
  size_t i;
  for (i = 0; i < n; ++i) {
    uint64_t a = splitmix64(state), b = splitmix64(state);
    memcpy(buf + i * KEY_BYTES, &a, 8);
    memcpy(buf + i * KEY_BYTES + 8, &b, 8);
    offsets[i] = (uint64_t)(i * KEY_BYTES);
  }
  offsets[n] = (uint64_t)(n * KEY_BYTES);
}

static int check(int rc, const char *what) {
  if (rc < 0) fprintf(stderr, "abloom_demo: %s failed: %s (%d)\n", what, abloom_strerror(rc), rc);
  return rc;
}

/* Stream `n` keys of the stream `seed` through add (results == NULL) or test; *count gets the
 * sum of added / found. Returns the seconds spent inside the library calls, or -1 on error. */
static double run_pass(abloom_filter *f, uint64_t seed, uint64_t n, int add, unsigned char *buf,
                       uint64_t *offsets, uint8_t *results, uint64_t *count) {
  uint64_t state = seed, done = 0, total = 0;
  double secs = 0;
  while (done < n) {
    size_t m = (size_t)((n - done) < BATCH ? (n - done) : BATCH);
    uint64_t c = 0;
    double t0;
    int rc;
    make_batch(&state, m, buf, offsets);
    t0 = now_seconds();
    if (add)
      rc = abloom_add_packed(f, buf, m * KEY_BYTES, offsets, m, &c);
    else
      rc = abloom_test_packed(f, buf, m * KEY_BYTES, offsets, m, results, &c);
    secs += now_seconds() - t0;
    if (check(rc, add ? "abloom_add_packed" : "abloom_test_packed") < 0) return -1;
    total += c;
    done += m;
  }
  *count = total;
  return secs;
}

int main(int argc, char **argv) {
  uint64_t keys = 10000000, shards = 0, threads = 0;
  double fpr = 0.01;
  uint32_t kind = ABLOOM_KIND_BLOCKED;
  abloom_options opts;
  abloom_plan plan;
  abloom_info info;
  abloom_filter *f = NULL;
  unsigned char *buf = NULL;
  uint64_t *offsets = NULL;
  uint8_t *results = NULL;
  uint64_t added = 0, false_pos = 0, found = 0;
  double t_add, t_test, t_verify, measured, est_count = 0, est_fpr = 0, sigma;
  int i, rc, status = 0;

  for (i = 1; i < argc; i += 2) { /* an option and its value */
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout, argv[0]);
      return 0;
    } else if (strcmp(a, "--keys") == 0) {
      bad = parse_u64(v, &keys) != 0 || keys == 0;
    } else if (strcmp(a, "--fpr") == 0) {
      bad = parse_double(v, &fpr) != 0 || !(fpr > 0 && fpr < 1);
    } else if (strcmp(a, "--kind") == 0) {
      if (v != NULL && strcmp(v, "blocked") == 0)
        kind = ABLOOM_KIND_BLOCKED;
      else if (v != NULL && strcmp(v, "classic") == 0)
        kind = ABLOOM_KIND_CLASSIC;
      else
        bad = 1;
    } else if (strcmp(a, "--shards") == 0) {
      bad = parse_u64(v, &shards) != 0 || shards > ABLOOM_MAX_SHARDS;
    } else if (strcmp(a, "--threads") == 0) {
      bad = parse_u64(v, &threads) != 0 || threads > 1024;
    } else {
      fprintf(stderr, "abloom_demo: unknown argument '%s'\n", a);
      usage(stderr, argv[0]);
      return 2;
    }
    if (bad) {
      fprintf(stderr, "abloom_demo: bad or missing value for %s\n", a);
      usage(stderr, argv[0]);
      return 2;
    }
  }

  abloom_options_init(&opts);
  opts.capacity = keys;
  opts.fpr = fpr;
  opts.kind = kind;
  opts.shards = (uint32_t)shards;
  opts.threads = (uint32_t)threads;

  abloom_plan_init(&plan);
  rc = abloom_plan_compute(&opts, &plan);
  if (rc < 0) {
    fprintf(stderr, "abloom_demo: cannot plan this filter: %s\n", abloom_strerror(rc));
    if (rc == ABLOOM_ERR_INVALID || rc == ABLOOM_ERR_RANGE) {
      usage(stderr, argv[0]);
      return 2;
    }
    return 1;
  }

  printf("abloom %s demo: %llu keys, target FPR %g, kind %s, threads %llu\n",
         abloom_version_string(), (unsigned long long)keys, fpr,
         kind == ABLOOM_KIND_BLOCKED ? "blocked" : "classic", (unsigned long long)threads);
  printf(
      "plan:    %llu bits = %llu bytes = %.2f MiB, %.3f bits/key, k = %u, shards = %u "
      "(%llu blocks each), model FPR %.4f%%\n",
      (unsigned long long)plan.bits, (unsigned long long)plan.bytes,
      (double)plan.bytes / (1024.0 * 1024.0), plan.bits_per_key, plan.k, plan.shards,
      (unsigned long long)plan.blocks_per_shard, 100.0 * plan.expected_fpr);

  if (check(abloom_create(&opts, &f), "abloom_create") < 0) return 1;
  buf = (unsigned char *)malloc(BATCH * KEY_BYTES);
  offsets = (uint64_t *)malloc((BATCH + 1) * sizeof *offsets);
  results = (uint8_t *)malloc(BATCH);
  if (buf == NULL || offsets == NULL || results == NULL) {
    fprintf(stderr, "abloom_demo: out of memory\n");
    status = 1;
    goto done;
  }

  /* 1. add N keys */
  t_add = run_pass(f, ADDED_SEED, keys, 1, buf, offsets, NULL, &added);
  /* 2. query N keys that were never added: every 1 is a false positive */
  t_test = t_add < 0 ? -1 : run_pass(f, ABSENT_SEED, keys, 0, buf, offsets, results, &false_pos);
  /* 3. every added key must test positive */
  t_verify = t_test < 0 ? -1 : run_pass(f, ADDED_SEED, keys, 0, buf, offsets, results, &found);
  if (t_verify < 0) {
    status = 1;
    goto done;
  }

  abloom_info_init(&info);
  if (check(abloom_get_info(f, &info), "abloom_get_info") < 0 ||
      check(abloom_estimate_count(f, &est_count), "abloom_estimate_count") < 0 ||
      check(abloom_estimate_fpr(f, &est_fpr), "abloom_estimate_fpr") < 0) {
    status = 1;
    goto done;
  }

  measured = (double)false_pos / (double)keys;
  sigma = sqrt(fpr * (1 - fpr) / (double)keys);
  printf("memory:  %llu bytes (%.2f MiB) of bits, %.3f bits/key\n", (unsigned long long)info.bytes,
         (double)info.bytes / (1024.0 * 1024.0), (double)info.bits / (double)keys);
  printf("add:     %llu keys in %.3f s: %.2f M keys/s, %.1f ns/key (%llu reported new)\n",
         (unsigned long long)keys, t_add, (double)keys / t_add * 1e-6, t_add * 1e9 / (double)keys,
         (unsigned long long)added);
  printf("test:    %llu absent keys in %.3f s: %.2f M keys/s, %.1f ns/key\n",
         (unsigned long long)keys, t_test, (double)keys / t_test * 1e-6,
         t_test * 1e9 / (double)keys);
  printf("verify:  %llu added keys in %.3f s: %.2f M keys/s, %.1f ns/key\n",
         (unsigned long long)keys, t_verify, (double)keys / t_verify * 1e-6,
         t_verify * 1e9 / (double)keys);
  printf(
      "FPR:     %llu false positives / %llu = %.4f%% (target %.4f%%, model %.4f%%, estimated "
      "from fill %.4f%%): %s\n",
      (unsigned long long)false_pos, (unsigned long long)keys, 100.0 * measured, 100.0 * fpr,
      100.0 * info.expected_fpr, 100.0 * est_fpr,
      measured <= fpr               ? "within target"
      : measured <= fpr + 3 * sigma ? "within target (inside 3 sigma of sampling noise)"
                                    : "ABOVE TARGET");
  printf("count:   estimate %.0f vs true %llu (%+.3f%%)\n", est_count, (unsigned long long)keys,
         100.0 * (est_count / (double)keys - 1.0));
  if (found != keys) {
    printf("FAIL:    %llu false negatives among %llu added keys\n",
           (unsigned long long)(keys - found), (unsigned long long)keys);
    status = 1;
  } else {
    printf("check:   all %llu added keys test positive (no false negatives)\n",
           (unsigned long long)keys);
  }

done:
  free(results);
  free(offsets);
  free(buf);
  abloom_free(f);
  return status;
}
