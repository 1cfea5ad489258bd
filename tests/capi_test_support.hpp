// Helpers shared by the C API test files: an owning handle and small accessors.
#pragma once

#include <abloom.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

namespace capi_test {

struct FilterDeleter {
  void operator()(abloom_filter *f) const { abloom_free(f); }
};
// An abloom_filter* that abloom_free()s itself.
using Filter = std::unique_ptr<abloom_filter, FilterDeleter>;

inline const char *KindName(uint32_t kind) {
  return kind == ABLOOM_KIND_BLOCKED ? "Blocked" : "Classic";
}

// abloom_get_info of f, expected to succeed.
inline abloom_info InfoOf(const abloom_filter *f) {
  abloom_info i{};
  i.struct_size = sizeof i;
  EXPECT_EQ(abloom_get_info(f, &i), ABLOOM_OK);
  return i;
}

}  // namespace capi_test
