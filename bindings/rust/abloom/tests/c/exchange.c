/*
 * exchange.c - the C side of tests/c_exchange.rs: writes filters for the Rust binding to read,
 * and checks filters the Rust binding wrote, through the public C API only.
 *
 *   exchange write PATH N PREFIX KIND   create (capacity 2N, 1%, KIND
 *                                       blocked|split|half|default|classic|growing: the blocked
 *                                       kind in ABLOOM_LAYOUT_DISTINCT, in ABLOOM_LAYOUT_SPLIT,
 *                                       in ABLOOM_LAYOUT_HALF, in
 *                                       ABLOOM_LAYOUT_DEFAULT (the library's choice: split at
 *                                       1%), the classic kind with the default layout
 *                                       (distinct), or a growing filter of the default layout
 *                                       whose first stage takes N/20 keys, growth
 *                                       ABLOOM_DEFAULT_GROWTH; 4 shards, seed 42),
 *                                       add PREFIX0..PREFIX{N-1}, abloom_save
 *   exchange check PATH N PREFIX...     abloom_open with the checksum check, and
 *                                       abloom_deserialize of the file's bytes: every key of
 *                                       every PREFIX tests 1, both agree; prints
 *                                       "ok kind=K layout=L k=K shards=S seed=S fp=F
 *                                       stages=T growth=G keys=C capacity=P" (F: false
 *                                       positives among 10000 "absent-" keys; T, G, C, P:
 *                                       abloom_info's stages, growth, keys, capacity)
 */
#include <abloom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s: %s (%d)\n", what, abloom_strerror(rc), rc);
  return 1;
}

static int write_filter(const char *path, unsigned long n, const char *prefix, const char *kind) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = 2 * n;
  o.fpr = 0.01;
  o.kind = ABLOOM_KIND_BLOCKED;
  if (strcmp(kind, "blocked") == 0) {
    o.layout = ABLOOM_LAYOUT_DISTINCT;
  } else if (strcmp(kind, "split") == 0) {
    o.layout = ABLOOM_LAYOUT_SPLIT;
  } else if (strcmp(kind, "half") == 0) {
    o.layout = ABLOOM_LAYOUT_HALF;
  } else if (strcmp(kind, "default") == 0) {
    o.layout = ABLOOM_LAYOUT_DEFAULT;
  } else if (strcmp(kind, "classic") == 0) {
    o.kind = ABLOOM_KIND_CLASSIC;
    o.layout = ABLOOM_LAYOUT_DEFAULT;
  } else if (strcmp(kind, "growing") == 0) {
    o.capacity = n / 20;
    o.growth = ABLOOM_DEFAULT_GROWTH;
    o.layout = ABLOOM_LAYOUT_DEFAULT;
  } else {
    fprintf(stderr, "unknown kind %s\n", kind);
    return 2;
  }
  o.shards = 4;
  o.seed = 42;
  abloom_filter *f;
  int rc = abloom_create(&o, &f);
  if (rc != ABLOOM_OK) return fail("create", rc);
  char key[256];
  for (unsigned long i = 0; i < n; i++) {
    int len = snprintf(key, sizeof key, "%s%lu", prefix, i);
    if ((rc = abloom_add(f, key, (size_t)len)) != ABLOOM_OK) return fail("add", rc);
  }
  rc = abloom_save(f, path);
  abloom_free(f);
  if (rc != ABLOOM_OK) return fail("save", rc);
  printf("ok\n");
  return 0;
}

static int check_filter(const char *path, unsigned long n, int nprefix, char **prefixes) {
  abloom_filter *f, *g;
  int rc = abloom_open(path, ABLOOM_VERIFY_CHECKSUM, &f);
  if (rc != ABLOOM_OK) return fail("open", rc);
  FILE *fp = fopen(path, "rb");
  if (fp == NULL) return fail("fopen", ABLOOM_ERR_IO);
  fseek(fp, 0, SEEK_END);
  long size = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)size);
  if (buf == NULL || fread(buf, 1, (size_t)size, fp) != (size_t)size) return fail("read", 0);
  fclose(fp);
  rc = abloom_deserialize(buf, (size_t)size, &g);
  free(buf);
  if (rc != ABLOOM_OK) return fail("deserialize", rc);
  if (abloom_equal(f, g) != 1) return fail("open and deserialize differ", 0);
  char key[256];
  for (int p = 0; p < nprefix; p++) {
    for (unsigned long i = 0; i < n; i++) {
      int len = snprintf(key, sizeof key, "%s%lu", prefixes[p], i);
      if (abloom_test(f, key, (size_t)len) != 1) {
        fprintf(stderr, "false negative: %s\n", key);
        return 1;
      }
    }
  }
  unsigned long fpos = 0;
  for (unsigned long i = 0; i < 10000; i++) {
    int len = snprintf(key, sizeof key, "absent-%lu", i);
    fpos += (unsigned long)abloom_test(f, key, (size_t)len);
  }
  abloom_info info;
  info.struct_size = sizeof info;
  if ((rc = abloom_get_info(f, &info)) != ABLOOM_OK) return fail("info", rc);
  printf("ok kind=%u layout=%u k=%u shards=%u seed=%llu fp=%lu stages=%u growth=%g keys=%llu "
         "capacity=%llu\n",
         info.kind, info.layout, info.k, info.shards, (unsigned long long)info.seed, fpos,
         info.stages, info.growth, (unsigned long long)info.keys,
         (unsigned long long)info.capacity);
  abloom_free(f);
  abloom_free(g);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && strcmp(argv[1], "write") == 0)
    return write_filter(argv[2], strtoul(argv[3], NULL, 10), argv[4], argv[5]);
  if (argc >= 5 && strcmp(argv[1], "check") == 0)
    return check_filter(argv[2], strtoul(argv[3], NULL, 10), argc - 4, argv + 4);
  fprintf(stderr, "usage: exchange write PATH N PREFIX KIND | check PATH N PREFIX...\n");
  return 2;
}
