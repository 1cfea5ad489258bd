// Helpers shared by the C API test files: an owning handle and small accessors.
#pragma once

#include <abloom.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

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

// Options from abloom_options_init with the given fields set.
inline abloom_options Options(uint64_t capacity, double fpr = 0.01,
                              uint32_t kind = ABLOOM_KIND_BLOCKED, uint32_t shards = 0,
                              uint64_t seed = 0) {
  abloom_options o;
  EXPECT_EQ(abloom_options_init(&o), ABLOOM_OK);
  o.capacity = capacity;
  o.fpr = fpr;
  o.kind = kind;
  o.shards = shards;
  o.seed = seed;
  return o;
}

// abloom_create(o), expected to succeed.
inline Filter Make(const abloom_options &o) {
  abloom_filter *f = nullptr;
  const int rc = abloom_create(&o, &f);
  EXPECT_EQ(rc, ABLOOM_OK) << abloom_strerror(rc);
  EXPECT_NE(f, nullptr);
  return Filter(f);
}

// Runs a call that hands out a filter through its last argument (`load(&out)`: abloom_deserialize,
// abloom_view, abloom_open), checks that the output is set exactly when it succeeds, and moves
// the filter into *out (when given). Returns the call's code.
template <class Load>
int LoadInto(Load load, Filter *out) {
  abloom_filter *f = nullptr;
  const int rc = load(&f);
  if (rc == ABLOOM_OK) {
    EXPECT_NE(f, nullptr);
  } else {
    EXPECT_EQ(f, nullptr) << "out written on failure";
  }
  Filter owned(f);
  if (out != nullptr) *out = std::move(owned);
  return rc;
}

// A fresh directory (mkdtemp under $TMPDIR or /tmp, named after `prefix`), removed with
// everything in it at scope exit.
class TempDir {
 public:
  explicit TempDir(const std::string &prefix = "abloom-capi-test") {
    const char *base = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" + prefix + "-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const { return path_ + "/" + name; }
  std::set<std::string> List() const {
    std::set<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(path_)) {
      names.insert(e.path().filename().string());
    }
    return names;
  }

 private:
  std::string path_;
};

}  // namespace capi_test
