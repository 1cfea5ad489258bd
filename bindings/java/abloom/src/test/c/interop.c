/*
 * interop.c - the C side of the Java binding's file-exchange test (InteropTest).
 *
 *   interop write PATH N SEED SHARDS KIND [LAYOUT]
 *                                           save a filter (capacity N, 1%, seed, shards,
 *                                           kind 0 blocked / 1 classic, layout an
 *                                           ABLOOM_LAYOUT_*, default 0: the library's choice)
 *                                           holding "key-0".."key-N-1"
 *   interop check PATH N                    open PATH (checksum verified), require every
 *                                           "key-i" to test 1, print "ok <k> <shards> <seed>
 *                                           <layout> <false positives among
 *                                           absent-0..absent-9999>"
 *   interop grow-write PATH N SEED FIRST    save a growing filter (growth 2, first stage FIRST,
 *                                           1%, seed) holding "key-0".."key-N-1"
 *   interop grow-check PATH N               open PATH (checksum verified), require every
 *                                           "key-i" to test 1, print "ok <stages> <growth>
 *                                           <keys> <false positives among absent-0..9999>"
 * Exit status 0 on success; a message on stderr and 1 otherwise.
 */
#include <abloom.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int rc) {
  fprintf(stderr, "interop: %s: %s\n", what, abloom_strerror(rc));
  return 1;
}

int main(int argc, char **argv) {
  char key[64];
  abloom_filter *f = NULL;
  int rc;
  if (argc >= 7 && strcmp(argv[1], "write") == 0) {
    uint64_t n = strtoull(argv[3], NULL, 10);
    abloom_options o;
    abloom_options_init(&o);
    o.capacity = n;
    o.fpr = 0.01;
    o.seed = strtoull(argv[4], NULL, 0);
    o.shards = (uint32_t)strtoul(argv[5], NULL, 10);
    o.kind = (uint32_t)strtoul(argv[6], NULL, 10);
    if (argc >= 8) o.layout = (uint32_t)strtoul(argv[7], NULL, 10);
    if ((rc = abloom_create(&o, &f)) != ABLOOM_OK) return fail("create", rc);
    for (uint64_t i = 0; i < n; ++i) {
      int len = snprintf(key, sizeof key, "key-%" PRIu64, i);
      if ((rc = abloom_add(f, key, (size_t)len)) != ABLOOM_OK) return fail("add", rc);
    }
    if ((rc = abloom_save(f, argv[2])) != ABLOOM_OK) return fail("save", rc);
    abloom_free(f);
    return 0;
  }
  if (argc >= 6 && strcmp(argv[1], "grow-write") == 0) {
    uint64_t n = strtoull(argv[3], NULL, 10);
    abloom_options o;
    abloom_options_init(&o);
    o.growth = ABLOOM_DEFAULT_GROWTH;
    o.capacity = strtoull(argv[5], NULL, 10);
    o.fpr = 0.01;
    o.seed = strtoull(argv[4], NULL, 0);
    if ((rc = abloom_create(&o, &f)) != ABLOOM_OK) return fail("create", rc);
    for (uint64_t i = 0; i < n; ++i) {
      int len = snprintf(key, sizeof key, "key-%" PRIu64, i);
      if ((rc = abloom_add(f, key, (size_t)len)) != ABLOOM_OK) return fail("add", rc);
    }
    if ((rc = abloom_save(f, argv[2])) != ABLOOM_OK) return fail("save", rc);
    abloom_free(f);
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "grow-check") == 0) {
    uint64_t n = strtoull(argv[3], NULL, 10);
    abloom_info info;
    unsigned fp = 0;
    if ((rc = abloom_open(argv[2], ABLOOM_VERIFY_CHECKSUM, &f)) != ABLOOM_OK) return fail("open", rc);
    for (uint64_t i = 0; i < n; ++i) {
      int len = snprintf(key, sizeof key, "key-%" PRIu64, i);
      if (abloom_test(f, key, (size_t)len) != 1) {
        fprintf(stderr, "interop: %s is missing\n", key);
        return 1;
      }
    }
    for (unsigned i = 0; i < 10000; ++i) {
      int len = snprintf(key, sizeof key, "absent-%u", i);
      fp += abloom_test(f, key, (size_t)len) == 1;
    }
    if ((rc = abloom_info_init(&info)) != ABLOOM_OK || (rc = abloom_get_info(f, &info)) != ABLOOM_OK)
      return fail("info", rc);
    printf("ok %u %g %" PRIu64 " %u\n", info.stages, info.growth, info.keys, fp);
    abloom_free(f);
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "check") == 0) {
    uint64_t n = strtoull(argv[3], NULL, 10);
    abloom_info info;
    unsigned fp = 0;
    if ((rc = abloom_open(argv[2], ABLOOM_VERIFY_CHECKSUM, &f)) != ABLOOM_OK) return fail("open", rc);
    for (uint64_t i = 0; i < n; ++i) {
      int len = snprintf(key, sizeof key, "key-%" PRIu64, i);
      if (abloom_test(f, key, (size_t)len) != 1) {
        fprintf(stderr, "interop: %s is missing\n", key);
        return 1;
      }
    }
    for (unsigned i = 0; i < 10000; ++i) {
      int len = snprintf(key, sizeof key, "absent-%u", i);
      fp += abloom_test(f, key, (size_t)len) == 1;
    }
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if ((rc = abloom_get_info(f, &info)) != ABLOOM_OK) return fail("info", rc);
    printf("ok %u %u %" PRIu64 " %u %u\n", info.k, info.shards, info.seed, info.layout, fp);
    abloom_free(f);
    return 0;
  }
  fprintf(stderr, "usage: interop write PATH N SEED SHARDS KIND [LAYOUT] | interop check PATH N |"
                  " interop grow-write PATH N SEED FIRST | interop grow-check PATH N\n");
  return 2;
}
