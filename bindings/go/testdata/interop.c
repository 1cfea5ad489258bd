/*
 * The C side of the Go binding's interop test (interop_test.go compiles and runs it).
 *
 *   interop write PATH   build a filter through the C API and save it to PATH
 *   interop check PATH   open PATH (written by Go) with the checksum verified, and by
 *                        abloom_deserialize too, and check its shape and every key
 *   interop write-growing PATH, interop check-growing PATH: the same for a growing filter
 *
 * Both sides use the same recipe: 5000 keys "<side>-key-<i>", capacity 5000, FPR 1%,
 * classic kind, 2 shards, seed 42. The growing recipe: growth 2 from a first stage of 1000 keys,
 * FPR 1%, seed 42, so that its 5000 keys fill three stages (1000 + 2000 + 4000). Prints one line
 * and exits 0 on success.
 */
#include <abloom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 5000

static int growing; /* the growing recipe (write-growing, check-growing) */

static abloom_options recipe(void) {
  abloom_options o;
  abloom_options_init(&o);
  if (growing) {
    o.capacity = 1000;
    o.fpr = 0.01;
    o.seed = 42;
    o.growth = 2.0;
    return o;
  }
  o.capacity = N;
  o.fpr = 0.01;
  o.kind = ABLOOM_KIND_CLASSIC;
  o.shards = 2;
  o.seed = 42;
  return o;
}

static int fail(const char *what, int rc) {
  fprintf(stderr, "interop: %s: %s\n", what, abloom_strerror(rc));
  return 1;
}

static int check(const abloom_filter *f, const char *how) {
  abloom_info info;
  info.struct_size = sizeof info;
  int rc = abloom_get_info(f, &info);
  if (rc != ABLOOM_OK) return fail("get_info", rc);
  if (growing) {
    abloom_info first;
    first.struct_size = sizeof first;
    if ((rc = abloom_get_stage_info(f, 0, &first)) != ABLOOM_OK) return fail("get_stage_info", rc);
    if (info.stages != 3 || info.growth != 2.0 || info.seed != 42 || info.capacity != 7000 ||
        info.target_fpr != 0.01 || info.growth_failed || first.capacity != 1000) {
      fprintf(stderr, "interop: %s: wrong growing shape (%u stages, growth %g, capacity %llu)\n",
              how, info.stages, info.growth, (unsigned long long)info.capacity);
      return 1;
    }
  } else if (info.kind != ABLOOM_KIND_CLASSIC || info.shards != 2 || info.seed != 42 ||
             info.capacity != N || info.target_fpr != 0.01 || info.stages != 1) {
    fprintf(stderr, "interop: %s: wrong shape\n", how);
    return 1;
  }
  char key[64];
  for (int i = 0; i < N; i++) {
    int len = snprintf(key, sizeof key, "go-key-%d", i);
    if (abloom_test(f, key, (size_t)len) != 1) {
      fprintf(stderr, "interop: %s: false negative for %s\n", how, key);
      return 1;
    }
  }
  int fp = 0;
  for (int i = 0; i < 100000; i++) {
    int len = snprintf(key, sizeof key, "never-%d", i);
    fp += abloom_test(f, key, (size_t)len);
  }
  if (fp > 1500) { /* expected about 1000 */
    fprintf(stderr, "interop: %s: %d false positives of 100000\n", how, fp);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: interop write|check|write-growing|check-growing PATH\n");
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "write-growing") == 0 || strcmp(cmd, "check-growing") == 0) {
    growing = 1;
    cmd = cmd[0] == 'w' ? "write" : "check";
  }
  abloom_options o = recipe();
  abloom_filter *f = NULL;
  int rc;
  if (strcmp(cmd, "write") == 0) {
    if ((rc = abloom_create(&o, &f)) != ABLOOM_OK) return fail("create", rc);
    char key[64];
    for (int i = 0; i < N; i++) {
      int len = snprintf(key, sizeof key, "c-key-%d", i);
      if ((rc = abloom_add(f, key, (size_t)len)) != ABLOOM_OK) return fail("add", rc);
    }
    if ((rc = abloom_save(f, argv[2])) != ABLOOM_OK) return fail("save", rc);
    abloom_free(f);
    printf("interop: wrote %d keys\n", N);
    return 0;
  }
  if (strcmp(cmd, "check") == 0) {
    if ((rc = abloom_open(argv[2], ABLOOM_VERIFY_CHECKSUM, &f)) != ABLOOM_OK) return fail("open", rc);
    if (check(f, "open")) return 1;
    abloom_free(f);

    FILE *fp = fopen(argv[2], "rb");
    if (!fp) return fail("fopen", ABLOOM_ERR_IO);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    void *buf = malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, fp) != (size_t)size) return fail("fread", ABLOOM_ERR_IO);
    fclose(fp);
    if ((rc = abloom_deserialize(buf, (size_t)size, &f)) != ABLOOM_OK) return fail("deserialize", rc);
    if (check(f, "deserialize")) return 1;
    abloom_free(f);
    free(buf);
    printf("interop: checked %d keys\n", N);
    return 0;
  }
  fprintf(stderr, "usage: interop write|check|write-growing|check-growing PATH\n");
  return 2;
}
