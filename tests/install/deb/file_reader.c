/*
 * A C consumer of the installed packages: reads a filter file that another program (another
 * language's binding) wrote, with the checksum verified, and checks that every key it lists
 * tests present, and that keys nobody added mostly test absent (at most 5% false positives, so
 * a filter with every bit set does not pass).
 *
 *   file_reader FILE KEYS   KEYS: one key per line ('\n'), as tests/vectors/NAME.keys.txt
 *
 * Also creates a filter of its own, adds and tests keys. Exits non-zero on any failure.
 */
#include <abloom.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  abloom_filter *f = NULL, *mine = NULL;
  abloom_info info;
  char line[4096];
  unsigned long keys = 0, present = 0, others = 10000, positives = 0, i;
  int rc;
  FILE *in;

  if (argc != 3) {
    fprintf(stderr, "usage: %s FILE KEYS\n", argv[0]);
    return 2;
  }
  rc = abloom_new(100000, 0.01, &mine);
  if (rc != ABLOOM_OK || abloom_add(mine, "alice:bob", 9) != ABLOOM_OK ||
      abloom_test(mine, "alice:bob", 9) != 1 || abloom_test(mine, "carol:dan", 9) != 0) {
    fprintf(stderr, "file_reader: a filter of its own does not work\n");
    return 1;
  }
  abloom_free(mine);

  rc = abloom_open(argv[1], ABLOOM_VERIFY_CHECKSUM, &f);
  if (rc != ABLOOM_OK) {
    fprintf(stderr, "file_reader: abloom_open(%s): %s\n", argv[1], abloom_strerror(rc));
    return 1;
  }
  abloom_info_init(&info);
  abloom_get_info(f, &info);
  in = fopen(argv[2], "r");
  if (in == NULL) {
    perror(argv[2]);
    return 1;
  }
  while (fgets(line, sizeof line, in) != NULL) {
    size_t len = strcspn(line, "\n");
    ++keys;
    present += abloom_test(f, line, len) == 1;
  }
  fclose(in);
  for (i = 0; i < others; ++i) {
    int n = snprintf(line, sizeof line, "file_reader-never-added-%lu", i);
    positives += abloom_test(f, line, (size_t)n) == 1;
  }
  abloom_free(f);
  printf(
      "file_reader: %s (%s, k %u, %u shards): %lu of %lu keys present; %lu of %lu keys never "
      "added test present\n",
      argv[1], info.kind == ABLOOM_KIND_BLOCKED ? "blocked" : "classic", info.k, info.shards,
      present, keys, positives, others);
  if (keys == 0 || present != keys) {
    fprintf(stderr, "file_reader: %s: %lu of its %lu keys test absent\n", argv[1], keys - present,
            keys);
    return 1;
  }
  if (positives * 20 > others) {
    fprintf(stderr, "file_reader: %s: %lu false positives in %lu: the filter is saturated\n",
            argv[1], positives, others);
    return 1;
  }
  return 0;
}
