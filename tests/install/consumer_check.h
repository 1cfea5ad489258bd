/*
 * The checks both installed-package consumers (pkgconfig_consumer/main.c, cmake_consumer/main.c)
 * count their failures with: each includes this file by its relative path, so neither build needs
 * a flag of its own. Plain C99; include it after abloom.h and stdio.h.
 */
#ifndef ABLOOM_CONSUMER_CHECK_H
#define ABLOOM_CONSUMER_CHECK_H

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#define CHECK_OK(expr)                                                                \
  do {                                                                                \
    int rc_ = (expr);                                                                 \
    if (rc_ != ABLOOM_OK) {                                                           \
      fprintf(stderr, "%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #expr, rc_, \
              abloom_strerror(rc_));                                                  \
      ++failures;                                                                     \
    }                                                                                 \
  } while (0)

#endif
