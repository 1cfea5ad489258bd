// Batches: many keys per C call, with the GIL released around the call.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>

#include "filter.hpp"

namespace abloom_py {

// Adds every key of `keys` (an iterable of keys, or a C-contiguous 1-D buffer of 8-byte integers
// such as a NumPy uint64/int64 array, which goes to the library in one call). Returns the number
// of keys that were new (see abloom_add_packed).
uint64_t add_keys(Filter &f, nanobind::handle keys);

// Tests every key of `keys` (as add_keys): a NumPy bool array for a NumPy array, else a list of
// bools.
nanobind::object test_keys(Filter &f, nanobind::handle keys);

// Test-and-adds every key of `keys` (as add_keys) in order, as one abloom_test_and_add each: True
// where a key was already present (added before, by an earlier key of the batch, or a false
// positive), False where it was new; a NumPy bool array for a NumPy array, else a list of bools.
nanobind::object test_and_add_keys(Filter &f, nanobind::handle keys);

}  // namespace abloom_py
