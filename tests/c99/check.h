/* The C tests' check: counts a failed condition in the test's own `failures` and says where on
 * stderr, then goes on (so one run reports every failed check). */
#ifndef ABLOOM_TESTS_C99_CHECK_H
#define ABLOOM_TESTS_C99_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#endif
