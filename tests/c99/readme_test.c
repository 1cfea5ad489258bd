/*
 * The C code blocks of docs/GUIDE.md (README.md's quick start is examples/hello.c), line for
 * line, with the declarations they assume and checks of what they do in between:
 * scripts/check-readme-blocks.py fails when a line of theirs is missing here. Strict C99 like
 * header_test.c. The guide saves to a relative path, so ctest runs this in a directory of its
 * own (tests/CMakeLists.txt), where it removes what it made. Exits non-zero, with a message on
 * stderr, on any failure.
 */
#include <abloom.h>
#include <abloom_inline.h>
#include <stdint.h>
#include <stdio.h>

static int failures = 0;

#include "check.h"

/* "Single-key calls compiled into your code": 1000 ids added, then tested, through the inline
 * path; every one is found and the library agrees. */
static void inline_block(void) {
  abloom_filter *filter;
  int hits = 0;
  uint64_t id;
  CHECK(abloom_new(100000, 0.01, &filter) == ABLOOM_OK);
  {
    abloom_inline in;
    abloom_inline_init_writer(&in, filter); /* once; valid until abloom_free(filter) */
    for (id = 0; id < 1000; ++id) {
      abloom_inline_add(&in, &id, 8);          /* as abloom_add: atomic ORs, any thread */
      hits += abloom_inline_test(&in, &id, 8); /* as abloom_test: 1 or 0 */
      CHECK(abloom_test(filter, &id, 8) == 1);
    }
  }
  CHECK(hits == 1000);
  abloom_free(filter);
}

/* "Saving and loading": saved, opened read-only, the key found; then a file that is not a
 * filter gives the error the README prints. */
static void save_and_open_block(void) {
  abloom_filter *f;
  FILE *junk;
  CHECK(abloom_new(1000, 0.01, &f) == ABLOOM_OK);
  CHECK(abloom_add(f, "alice:bob", 9) == ABLOOM_OK);
  {
    abloom_save(f, "blocks.abloom"); /* temp file + fsync + rename */

    abloom_filter *g;                             /* O(1): header checked, pages lazy */
    int rc = abloom_open("blocks.abloom", 0, &g); /* read-only; | ABLOOM_VERIFY_CHECKSUM */
    if (rc != ABLOOM_OK) {
      fprintf(stderr, "%s\n", abloom_strerror(rc)); /* e.g. ABLOOM_ERR_CORRUPT */
    }
    CHECK(rc == ABLOOM_OK);
    if (rc == ABLOOM_OK) {
      CHECK(abloom_test(g, "alice:bob", 9) == 1);
      abloom_free(g);
    }
  }
  junk = fopen("junk.abloom", "wb");
  CHECK(junk != NULL && fputs("not a filter, just text", junk) >= 0 && fclose(junk) == 0);
  {
    abloom_filter *g = NULL;
    CHECK(abloom_open("junk.abloom", 0, &g) < 0 && g == NULL);
  }
  CHECK(remove("junk.abloom") == 0 && remove("blocks.abloom") == 0);
  abloom_free(f);
}

int main(void) {
  inline_block();
  save_and_open_block();
  if (failures) {
    fprintf(stderr, "readme_test: %d checks failed\n", failures);
    return 1;
  }
  return 0;
}
