/* The driver of bench/aarch64_insn_count.sh: one blocked filter, one kernel, one operation on n
 * keys, under qemu-aarch64, which counts the instructions it runs. Everything but the measured
 * loop is the same whatever n is (the hashes are made for the largest n up front; a small filter,
 * since a count does not depend on the cache), so the count
 * at 2n minus the count at n is n keys' worth of the operation and its calling loop.
 *
 * usage: insn_count_driver scalar|neon distinct|split fpr test_absent|test_present|add|add_excl
 *                          single|bulk n
 * (n <= 2000; keys are 64-bit hashes, so XXH3 is not counted: the kernels share it.) */
#include <abloom.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kFilled = 2000, kMaxN = 2000 };

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t filled[kFilled], fresh[kMaxN];
static uint8_t results[kMaxN];

static void die(const char *what) {
  fprintf(stderr, "insn_count_driver: %s\n", what);
  exit(2);
}

int main(int argc, char **argv) {
  abloom_options o;
  abloom_filter *f = NULL;
  uint64_t seed = 1, count = 0;
  size_t n, i;
  int single, sum = 0;
  const char *op;
  if (argc != 7) die("usage: scalar|neon distinct|split fpr op single|bulk n");
  n = strtoul(argv[6], NULL, 10);
  if (n > kMaxN) die("n too large");
  op = argv[4];
  single = strcmp(argv[5], "single") == 0;
  if (abloom_set_isa(strcmp(argv[1], "neon") == 0 ? ABLOOM_ISA_NEON : ABLOOM_ISA_SCALAR) !=
      ABLOOM_OK) {
    die("kernel not supported here");
  }
  abloom_options_init(&o);
  o.capacity = kFilled + kMaxN;
  o.fpr = strtod(argv[3], NULL);
  o.layout = strcmp(argv[2], "split") == 0 ? ABLOOM_LAYOUT_SPLIT : ABLOOM_LAYOUT_DISTINCT;
  if (abloom_create(&o, &f) != ABLOOM_OK) die("create");
  for (i = 0; i < kFilled; ++i) filled[i] = splitmix(&seed);
  for (i = 0; i < kMaxN; ++i) fresh[i] = splitmix(&seed);
  if (abloom_add_hashes(f, filled, kFilled, NULL) != ABLOOM_OK) die("fill");
  if (strcmp(op, "add_excl") == 0 && abloom_set_writer_mode(f, ABLOOM_WRITER_EXCLUSIVE) != 0) {
    die("writer mode");
  }
  /* The measured part: n keys. */
  if (strncmp(op, "test", 4) == 0) {
    const uint64_t *keys = strcmp(op, "test_present") == 0 ? filled : fresh;
    if (single) {
      for (i = 0; i < n; ++i) sum += abloom_test_hash(f, keys[i]);
    } else {
      if (abloom_test_hashes(f, keys, n, results, &count) != ABLOOM_OK) die("test_hashes");
    }
  } else {
    if (single) {
      for (i = 0; i < n; ++i) sum += abloom_add_hash(f, fresh[i]);
    } else {
      if (abloom_add_hashes(f, fresh, n, &count) != ABLOOM_OK) die("add_hashes");
    }
  }
  printf("%s %s %s %s n=%zu: %d %llu\n", argv[1], argv[2], op, argv[5], n, sum,
         (unsigned long long)count);
  abloom_free(f);
  return 0;
}
