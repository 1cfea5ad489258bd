// Helpers shared by the C API test files: an owning handle and small accessors.
#pragma once

#include <abloom.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "test_files.hpp"

namespace capi_test {

struct FilterDeleter {
  void operator()(abloom_filter *f) const { abloom_free(f); }
};
// An abloom_filter* that abloom_free()s itself.
using Filter = std::unique_ptr<abloom_filter, FilterDeleter>;

inline const char *KindName(uint32_t kind) {
  return kind == ABLOOM_KIND_BLOCKED ? "Blocked" : "Classic";
}

// Restores, at scope exit, the kernel that was active at its construction (for tests that force
// one with abloom_set_isa).
class IsaRestore {
 public:
  IsaRestore() : saved_(abloom_get_isa()) {}
  ~IsaRestore() { EXPECT_EQ(abloom_set_isa(saved_), ABLOOM_OK); }
  IsaRestore(const IsaRestore &) = delete;
  IsaRestore &operator=(const IsaRestore &) = delete;

 private:
  uint32_t saved_;
};

// The kernels this CPU can run, scalar first: every ABLOOM_ISA_* that abloom_set_isa accepts.
// Each value is tried (they are names, not an order: x86-64 runs scalar, avx2, avx512 up to its
// best, aarch64 scalar and neon). The active kernel is restored.
inline std::vector<uint32_t> RunnableIsas() {
  const IsaRestore restore;
  std::vector<uint32_t> out;
  for (uint32_t isa = ABLOOM_ISA_SCALAR; isa <= ABLOOM_ISA_NEON; ++isa) {
    if (abloom_set_isa(isa) == ABLOOM_OK) out.push_back(isa);
  }
  return out;
}

// abloom_get_info of f, expected to succeed.
inline abloom_info InfoOf(const abloom_filter *f) {
  abloom_info i;
  EXPECT_EQ(abloom_info_init(&i), ABLOOM_OK);
  EXPECT_EQ(abloom_get_info(f, &i), ABLOOM_OK);
  return i;
}

// abloom_plan_compute of o, expected to succeed.
inline abloom_plan PlanOf(const abloom_options &o) {
  abloom_plan p;
  EXPECT_EQ(abloom_plan_init(&p), ABLOOM_OK);
  const int rc = abloom_plan_compute(&o, &p);
  EXPECT_EQ(rc, ABLOOM_OK) << abloom_strerror(rc);
  return p;
}

// Bytes as the tests hold them: serialized filters, file contents.
using Bytes = std::vector<unsigned char>;

// The serialized bytes of f (abloom_serialize), expected to succeed and fill them exactly.
inline Bytes Serialize(const abloom_filter *f) {
  uint64_t size = 0;
  EXPECT_EQ(abloom_serialized_size(f, &size), ABLOOM_OK);
  Bytes out(size);
  size_t written = 0;
  EXPECT_EQ(abloom_serialize(f, out.data(), out.size(), &written), ABLOOM_OK);
  EXPECT_EQ(written, size);
  return out;
}

// Two filters describe themselves the same way: abloom_info's shape, size, capacity, seed and
// FPRs (bit for bit); not storage, read_only, nor the later versions' stale, stages and keys.
inline void ExpectSameInfo(const abloom_filter *a, const abloom_filter *b) {
  const abloom_info x = InfoOf(a), y = InfoOf(b);
  EXPECT_EQ(x.kind, y.kind);
  EXPECT_EQ(x.k, y.k);
  EXPECT_EQ(x.shards, y.shards);
  EXPECT_EQ(x.layout, y.layout);
  EXPECT_EQ(x.blocks_per_shard, y.blocks_per_shard);
  EXPECT_EQ(x.bits, y.bits);
  EXPECT_EQ(x.bytes, y.bytes);
  EXPECT_EQ(x.capacity, y.capacity);
  EXPECT_EQ(x.seed, y.seed);
  EXPECT_EQ(std::memcmp(&x.target_fpr, &y.target_fpr, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&x.expected_fpr, &y.expected_fpr, sizeof(double)), 0);
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

// abloom_clone of f, expected to succeed.
inline Filter Clone(const abloom_filter *f) {
  abloom_filter *c = nullptr;
  EXPECT_EQ(abloom_clone(f, &c), ABLOOM_OK);
  EXPECT_NE(c, nullptr);
  return Filter(c);
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

// A temporary directory removed at scope exit (test_files.hpp: the same on every system).
using test_files::TempDir;

// A filter for 1000 keys holding 100 keys of key set `set` (different sets, different filters).
inline Filter SmallFilter(uint64_t set) {
  Filter f = Make(Options(1000));
  for (uint64_t i = 0; i < 100; ++i) {
    const uint64_t key[2] = {set, i};
    EXPECT_EQ(abloom_add(f.get(), key, sizeof key), ABLOOM_OK);
  }
  return f;
}

// ---- Files --------------------------------------------------------------------------------------

// The bytes of the file at `path` (UTF-8), which must be readable (a failed expectation, and
// no bytes, when it is not).
inline Bytes ReadAll(const std::string &path) {
  std::ifstream in(test_files::PathOf(path), std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replaces the file at `path` (UTF-8) with the `len` bytes at p (a fatal failure if it cannot).
inline void WriteFile(const std::string &path, const unsigned char *p, size_t len) {
  std::ofstream out(test_files::PathOf(path), std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(out) << path;
  out.write(reinterpret_cast<const char *>(p), static_cast<std::streamsize>(len));
  out.close();
  ASSERT_TRUE(out) << path;
}
inline void WriteFile(const std::string &path, const Bytes &b) {
  WriteFile(path, b.data(), b.size());
}

// abloom_open of `path` with `flags`; the filter goes to *out when given. Returns the code.
inline int Open(const std::string &path, uint32_t flags, Filter *out = nullptr) {
  return LoadInto([&](abloom_filter **f) { return abloom_open(path.c_str(), flags, f); }, out);
}

// abloom_open's code and errno.
inline std::pair<int, int> OpenErr(const std::string &path, uint32_t flags) {
  errno = 0;
  const int rc =
      LoadInto([&](abloom_filter **o) { return abloom_open(path.c_str(), flags, o); }, nullptr);
  return {rc, errno};
}

// abloom_save's code and errno.
inline std::pair<int, int> SaveErr(const abloom_filter *f, const std::string &path) {
  errno = 0;
  const int rc = abloom_save(f, path.c_str());
  return {rc, errno};
}

// The little-endian uint64 at p (the format's byte order, docs/FORMAT.md).
inline uint64_t Get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// The little-endian uint64 at byte `at` of b (std::out_of_range if b is shorter).
inline uint64_t Get64(const Bytes &b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b.at(at + static_cast<size_t>(i));
  return v;
}

// Every way abloom_open opens a file.
inline constexpr uint32_t kEveryOpenMode[] = {0u, ABLOOM_VERIFY_CHECKSUM, ABLOOM_OPEN_COPY_ON_WRITE,
                                              ABLOOM_OPEN_READ_WRITE,
                                              ABLOOM_OPEN_READ_WRITE | ABLOOM_VERIFY_CHECKSUM};

// ---- Keys and their bulk forms ------------------------------------------------------------------

inline std::string RandomBytes(std::mt19937_64 &rng, size_t len) {
  std::string s(len, '\0');
  for (auto &c : s) c = static_cast<char>(rng() & 0xFF);
  return s;
}

// `n` distinct keys; key sets with different `set_id`s are disjoint. Keys are 16..16+max_extra
// bytes: an 8-byte index, an 8-byte set id, random bytes.
inline std::vector<std::string> DistinctKeys(size_t n, uint64_t set_id, size_t max_extra = 24) {
  std::mt19937_64 rng(0xAB100Du ^ (set_id * 0x9E3779B97F4A7C15ull));
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string k(16, '\0');
    uint64_t idx = i;
    std::memcpy(&k[0], &idx, 8);
    std::memcpy(&k[8], &set_id, 8);
    k += RandomBytes(rng, rng() % (max_extra + 1));
    keys.push_back(std::move(k));
  }
  return keys;
}

// `per_len` random keys of every length 0..max_len (duplicates possible for short lengths).
inline std::vector<std::string> KeysOfAllLengths(size_t max_len, size_t per_len, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  for (size_t len = 0; len <= max_len; ++len)
    for (size_t r = 0; r < per_len; ++r) keys.push_back(RandomBytes(rng, len));
  return keys;
}

// The three bulk input forms of one key list.
struct Batch {
  std::vector<const void *> ptrs;
  std::vector<size_t> lens;
  std::string packed;
  std::vector<uint64_t> offsets;

  explicit Batch(const std::vector<std::string> &keys, bool null_for_empty = false) {
    offsets.push_back(0);
    for (const auto &k : keys) {
      ptrs.push_back(null_for_empty && k.empty() ? nullptr : k.data());
      lens.push_back(k.size());
      packed += k;
      offsets.push_back(packed.size());
    }
  }
  size_t size() const { return lens.size(); }
};

inline std::vector<uint64_t> Hashes(const abloom_filter *f, const std::vector<std::string> &keys) {
  std::vector<uint64_t> h(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    EXPECT_EQ(abloom_hash(f, keys[i].data(), keys[i].size(), &h[i]), ABLOOM_OK);
  return h;
}

// Key i of set `set`: 16 bytes, distinct across (set, i).
inline std::string Key(uint64_t set, uint64_t i) {
  std::string k(16, '\0');
  std::memcpy(&k[0], &set, 8);
  std::memcpy(&k[8], &i, 8);
  return k;
}

// Keys 0..n-1 of set `set`.
inline std::vector<std::string> Keys(uint64_t set, size_t n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) keys.push_back(Key(set, i));
  return keys;
}

inline void AddAll(abloom_filter *f, const std::vector<std::string> &keys) {
  for (const auto &k : keys) ASSERT_EQ(abloom_add(f, k.data(), k.size()), ABLOOM_OK);
}

inline uint64_t AddMany(abloom_filter *f, const std::vector<std::string> &keys) {
  Batch b(keys);
  uint64_t added = UINT64_MAX;
  EXPECT_EQ(abloom_add_many(f, b.ptrs.data(), b.lens.data(), b.size(), &added), ABLOOM_OK);
  return added;
}

inline std::vector<uint8_t> TestMany(const abloom_filter *f, const std::vector<std::string> &keys,
                                     uint64_t *found_out = nullptr) {
  Batch b(keys);
  std::vector<uint8_t> r(keys.size(), 0xEE);
  uint64_t found = UINT64_MAX;
  EXPECT_EQ(abloom_test_many(f, b.ptrs.data(), b.lens.data(), b.size(), r.data(), &found),
            ABLOOM_OK);
  if (found_out) *found_out = found;
  return r;
}

inline size_t CountOnes(const std::vector<uint8_t> &r) { return std::count(r.begin(), r.end(), 1); }

}  // namespace capi_test
