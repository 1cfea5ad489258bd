// How the benchmark programs report: a failed C API call ends the program with the library's own
// words for the error, and a markdown table cell shows a time beside its ratio to the row's base.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace bench {

// "PROGRAM: WHAT: REASON (rc)" on stderr, then exit status 1. REASON is abloom_strerror(rc): the
// caller passes it, so that programs which do not link the library can use this header too.
[[noreturn]] inline void die(const char* program, const char* what, const char* reason, int rc) {
  std::fprintf(stderr, "%s: %s: %s (%d)\n", program, what, reason, rc);
  std::exit(1);
}

// The cell of `key` in a row (a map from column to time): " T (T/base) |", ratio 0 without a
// base, or " - |" when the row has no such column.
template <class Row, class Key>
void print_ratio_cell(const Row& row, const Key& key, double base) {
  auto it = row.find(key);
  if (it == row.end())
    std::printf(" - |");
  else
    std::printf(" %.2f (%.2f) |", it->second, base > 0 ? it->second / base : 0.0);
}

}  // namespace bench
