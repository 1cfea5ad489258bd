// inblock_schemes.cpp - a standalone study of how to place k bits inside one 64-byte block.
//
// Every scheme below is driven by ONE 64-bit XXH3 hash per key (XXH3_64bits_withSeed). The block
// is chosen by multiply-high ("fastrange") of the full hash over the block count, so block counts
// are arbitrary (no modulo, no power of two). The low 32 bits of the hash (h2) place the bits
// inside the 512-bit block:
//
//   a    multiply-shift probes (RocksDB FastLocalBloom): probe i sets bit (h2 * C^(i+1)) >> 23,
//        C = 0x9E3779B9 (mod 2^32); bits may collide within a key.
//   a-dist  as a, but the key's bits are the first k DISTINCT candidates (h2 forced odd): the
//        layout core/layout/layout.hpp chose.
//   b    split-block words (Parquet SBBF / Boost fast_multiblock32): the block is 16 32-bit words;
//        probe i sets one bit, (h2 * salt_i) >> 27, in word i (i < k <= 16). For k < 16 the
//        words k..15 stay empty: this is the literal SBBF layout stretched to 64 bytes.
//   b-rot  as b, but the k words are (s + i) mod 16 with s from 4 more hash bits, so all 16 words
//        of the block are used whatever k is (our variant, not in the brief).
//   split  b-rot from the low 32 bits alone, as abloom's split layout defines it (issue 12)
//   b64-rot  as b-rot over 8 64-bit words: one bit, (h2 * salt_i) >> 26, in each of the k <= 8
//        words (s + i) mod 8, s from 3 more hash bits (issue 12: fewer, larger partitions).
//   c    coprime partitions (gloom-style layout): the block is cut into k partitions of distinct,
//        pairwise-coprime lengths near 512/k that sum to 512; probe i sets one bit in partition i,
//        chosen by multiply-shift ((h2 * C^(i+1)) * len_i) >> 32.
//   c-mod  as c, but the bit is h2 mod len_i, the one-hashing of gloom itself (one division per
//        probe; coprime lengths make the residues of one hash independent, up to 2^32).
//
// Scalar, non-atomic: this compares the layouts, not the concurrency.
//
// Models: for a and a-dist the exact FPR of a 512-bit block holding i keys is computed by a DP
// over the number of set bits (the Putze closed form, fpr_model.py's blocked-512, replaces that
// number by its mean and so sits slightly below it); for b and c the per-word / per-partition
// product is exact; for b-rot and b64-rot an inclusion-exclusion over the query's words is exact
// (WindowModel). All are mixed over Poisson block loads as in fpr_model.py.
//
// main() runs the FPR table (markdown) and then the Google Benchmarks.
//   --fpr-only | --speed-only     run one half only
//   --fpr-scan                    also print measured/model for every k at every bits/key
//   --bits-needed                 only the models' bits per key for FPR 1%, 0.1%, 0.01% (a-dist,
//                                 b-rot, b64-rot), no measurement
//   any --benchmark_* flag        passed to Google Benchmark (default min_time 0.1 s, 3 reps)

#define XXH_INLINE_ALL
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "benchmark_args.hpp"
#include "key_stream.hpp"
#include "report.hpp"

namespace {

constexpr uint32_t kGolden = 0x9E3779B9u;
constexpr uint64_t kHashSeed = 0x5EEDB10F5EEDB10Full;
constexpr int kMaxK = 16;
constexpr double kBlockBits = 512.0;

// ---- keys and hashes ---------------------------------------------------------------------------

struct Key {
  uint64_t lo, hi;
};

using bench::splitmix64;

// 16-byte keys from a splitmix64 stream; streams with different seeds never meet in practice.
std::vector<Key> make_keys(uint64_t seed, size_t n) {
  std::vector<Key> keys(n);
  uint64_t s = seed;
  for (auto& k : keys) {
    k.lo = splitmix64(s);
    k.hi = splitmix64(s);
  }
  return keys;
}

inline uint64_t hash_key(const Key& k) { return XXH3_64bits_withSeed(&k, sizeof(Key), kHashSeed); }

inline uint64_t fastrange64(uint64_t h, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(h) * n) >> 64);
}

// 64-byte-aligned, zeroed block storage.
class Blocks {
 public:
  explicit Blocks(uint64_t nblocks) : n_(nblocks) {
    mem_ = static_cast<unsigned char*>(std::aligned_alloc(64, nblocks * 64));
    if (!mem_) {
      std::fprintf(stderr, "out of memory\n");
      std::exit(1);
    }
    std::memset(mem_, 0, nblocks * 64);
  }
  ~Blocks() { std::free(mem_); }
  Blocks(const Blocks&) = delete;
  Blocks& operator=(const Blocks&) = delete;
  uint64_t count() const { return n_; }
  template <class W>
  W* block(uint64_t i) {
    return reinterpret_cast<W*>(mem_ + i * 64);
  }
  template <class W>
  const W* block(uint64_t i) const {
    return reinterpret_cast<const W*>(mem_ + i * 64);
  }

 private:
  unsigned char* mem_;
  uint64_t n_;
};

// ---- the schemes -------------------------------------------------------------------------------

// ---- exact in-block models ---------------------------------------------------------------------

// log C(n, r)
double log_choose(double n, double r) {
  return std::lgamma(n + 1) - std::lgamma(r + 1) - std::lgamma(n - r + 1);
}

// f[i] = FPR of one 512-bit block holding i keys when every key sets k independent uniform bits
// (repeats allowed): E[(X/512)^k], X = bits set after i*k uniform throws (occupancy DP). The
// Putze closed form (1 - (1-1/512)^(ik))^k is (E[X]/512)^k: smaller by Jensen's inequality.
std::vector<double> exact_repeats_table(uint32_t k, int imax) {
  const int B = static_cast<int>(kBlockBits);
  std::vector<double> p(B + 1, 0.0), q(B + 1), f(imax + 1, 0.0);
  p[0] = 1;
  for (long t = 1; t <= static_cast<long>(imax) * k; ++t) {
    std::fill(q.begin(), q.end(), 0.0);
    for (int x = 0; x <= B; ++x) {
      if (p[x] == 0) continue;
      q[x] += p[x] * x / B;
      if (x < B) q[x + 1] += p[x] * (B - x) / B;
    }
    p.swap(q);
    if (t % k == 0) {
      double sum = 0;
      for (int x = 0; x <= B; ++x) sum += p[x] * std::pow(static_cast<double>(x) / B, k);
      f[t / k] = sum;
    }
  }
  return f;
}

// f[i] for keys that set k DISTINCT uniform bits (a random k-subset of the 512): X grows by a
// hypergeometric step per key, and a query hits with probability C(X,k)/C(512,k).
std::vector<double> exact_distinct_table(uint32_t k, int imax) {
  const int B = static_cast<int>(kBlockBits);
  const double lcbk = log_choose(B, k);
  std::vector<double> p(B + 1, 0.0), q(B + 1), f(imax + 1, 0.0);
  p[0] = 1;
  for (int i = 1; i <= imax; ++i) {
    std::fill(q.begin(), q.end(), 0.0);
    for (int x = 0; x <= B; ++x) {
      if (p[x] < 1e-300) continue;
      for (uint32_t j = 0; j <= k && x + static_cast<int>(j) <= B; ++j) {
        if (static_cast<int>(k - j) > x) continue;
        q[x + j] += p[x] * std::exp(log_choose(B - x, j) + log_choose(x, k - j) - lcbk);
      }
    }
    p.swap(q);
    double sum = 0;
    for (int x = static_cast<int>(k); x <= B; ++x) sum += p[x] * std::exp(log_choose(x, k) - lcbk);
    f[i] = sum;
  }
  return f;
}

// Looks f[i] up in a table computed on first use (the speed study never needs it).
class LazyTable {
 public:
  template <class Make>
  double at(double i, Make make) const {
    if (table_.empty()) table_ = make(kTableMax);
    const int n = static_cast<int>(i);
    return n < static_cast<int>(table_.size()) ? table_[n] : 1.0;
  }

 private:
  static constexpr int kTableMax = 400;  // > lambda + 12 sqrt(lambda) + 40 at 8 bits/key
  mutable std::vector<double> table_;
};

// Powers C^(i+1) mod 2^32, so that probes are independent multiplies (no serial chain).
std::array<uint32_t, kMaxK> golden_powers() {
  std::array<uint32_t, kMaxK> p{};
  uint32_t x = 1;
  for (int i = 0; i < kMaxK; ++i) p[i] = x *= kGolden;
  return p;
}

// A 512-bit block as eight 64-bit words: set one bit; does block b hold every bit of mask m?
inline void set_bit512(uint64_t* words, uint32_t bit) {
  words[bit >> 6] |= uint64_t{1} << (bit & 63);
}
inline bool holds_all512(const uint64_t* b, const uint64_t* m) {
  uint64_t miss = 0;
  for (int w = 0; w < 8; ++w) miss |= m[w] & ~b[w];
  return miss == 0;
}

// (a) RocksDB FastLocalBloom-style multiply-shift probes over the whole 512-bit block.
struct MulShift {
  static constexpr int kMaxKOf = kMaxK;
  using Word = uint64_t;
  uint32_t k;
  std::array<uint32_t, kMaxK> mul;
  explicit MulShift(uint32_t k_) : k(k_), mul(golden_powers()) {}
  static const char* name() { return "a"; }
  void add(Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    for (uint32_t i = 0; i < k; ++i) set_bit512(b, (h2 * mul[i]) >> 23);
  }
  bool test(const Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    uint64_t m[8] = {};
    for (uint32_t i = 0; i < k; ++i) set_bit512(m, (h2 * mul[i]) >> 23);
    return holds_all512(b, m);
  }
  // k independent bits per key, exactly (the Putze closed form is putze_fpr below).
  double block_fpr(double i) const {
    return table.at(i, [this](int n) { return exact_repeats_table(k, n); });
  }
  std::string detail() const { return ""; }
  LazyTable table;
};

// (a-dist) the layout of core/layout/layout.hpp: as (a), from h2 = low 32 bits | 1, candidate
// j = 1, 2, ... is bit (h2 * C^j) >> 23, and the key's bits are the first k DISTINCT candidates
// (at most 4k + 64 candidates are looked at).
struct MulShiftDistinct {
  static constexpr int kMaxKOf = kMaxK;
  using Word = uint64_t;
  uint32_t k;
  explicit MulShiftDistinct(uint32_t k_) : k(k_) {}
  static const char* name() { return "a-dist"; }
  // Same algorithm as core/layout/layout.hpp's block_mask: the first k candidates as independent
  // multiplies by precomputed powers C^j (fixed trip count), then further candidates only in the
  // rare case of repeats.
  void mask(uint64_t h, uint64_t* m) const {
    const uint32_t h2 = static_cast<uint32_t>(h) | 1u;
    uint32_t set = 0;
    auto take = [&](uint32_t j) {
      const uint32_t bit = (h2 * powers[j]) >> 23;
      const uint64_t b = uint64_t{1} << (bit & 63);
      set += (m[bit >> 6] & b) == 0 ? 1 : 0;
      m[bit >> 6] |= b;
    };
    for (uint32_t j = 1; j <= k; ++j) take(j);
    for (uint32_t j = k + 1; set < k && j <= 4 * k + 64; ++j) take(j);
  }
  static constexpr auto powers = [] {
    std::array<uint32_t, 4 * 64 + 65> p{};
    uint32_t x = 1;
    for (auto& v : p) {
      v = x;
      x *= kGolden;
    }
    return p;
  }();
  void add(Word* b, uint64_t h) const {
    uint64_t m[8] = {};
    mask(h, m);
    for (int w = 0; w < 8; ++w) b[w] |= m[w];
  }
  bool test(const Word* b, uint64_t h) const {
    uint64_t m[8] = {};
    mask(h, m);
    return holds_all512(b, m);
  }
  double block_fpr(double i) const {
    return table.at(i, [this](int n) { return exact_distinct_table(k, n); });
  }
  std::string detail() const { return ""; }
  LazyTable table;
};

// The exact FPR of a block of `lanes` words of `width` bits holding i keys, when every key sets one
// uniform bit in each of k consecutive words (mod lanes) from a uniform start word (b-rot,
// b64-rot). A query's words are, by symmetry, words 0..k-1; word j of it has m_j keys covering it,
// and misses the query's bit with probability q^m_j, q = 1 - 1/width, independently given the
// starts. So FPR = E[prod_j (1 - q^m_j)] = sum over subsets S of the query's words of
// (-1)^|S| E[q^(sum_{j in S} m_j)] = sum_S (-1)^|S| phi(S)^i, where phi(S) = E over one key's
// start of q^|its words & S| (keys are independent). 2^k terms, k <= 16.
class WindowModel {
 public:
  WindowModel(uint32_t lanes, uint32_t width, uint32_t k)
      : phi_(size_t{1} << k), odd_(phi_.size()) {
    const double q = 1.0 - 1.0 / width;
    for (uint32_t set = 0; set < phi_.size(); ++set) {
      double sum = 0;
      for (uint32_t start = 0; start < lanes; ++start) {
        uint32_t window = 0;
        for (uint32_t j = 0; j < k; ++j) window |= uint32_t{1} << ((start + j) % lanes);
        sum += std::pow(q, std::popcount(window & set));
      }
      phi_[set] = sum / lanes;
      odd_[set] = std::popcount(set) % 2 == 1;
    }
  }
  double block_fpr(double i) const {
    double sum = 0;
    for (size_t set = 0; set < phi_.size(); ++set) {
      const double t = std::pow(phi_[set], i);
      sum += odd_[set] ? -t : t;
    }
    return sum < 0 ? 0 : sum;
  }

 private:
  std::vector<double> phi_;
  std::vector<bool> odd_;
};

// Parquet SBBF salts, then 8 more odd 32-bit constants (xxHash32 / MurmurHash3 primes).
constexpr std::array<uint32_t, 16> kSalts = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                             0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u,
                                             0x9E3779B1u, 0x85EBCA77u, 0xC2B2AE3Du, 0x27D4EB2Fu,
                                             0x165667B1u, 0xCC9E2D51u, 0x1B873593u, 0x85EBCA6Bu};

// (b) split-block: one bit in each of k 32-bit words. Rotate = false: words 0..k-1 (SBBF / Boost
// fast_multiblock32 literally); rotate = true: words s..s+k-1 mod 16, s = hash bits 32..35.
template <bool Rotate>
struct SplitBlock {
  using Word = uint32_t;
  static constexpr int kMaxKOf = kMaxK;
  uint32_t k;
  WindowModel model;
  explicit SplitBlock(uint32_t k_) : k(k_), model(16, 32, Rotate ? k_ : 1) {}
  static const char* name() { return Rotate ? "b-rot" : "b"; }
  static uint32_t start(uint64_t h) { return Rotate ? static_cast<uint32_t>(h >> 32) & 15 : 0; }
  void add(Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    const uint32_t s = start(h);
    for (uint32_t i = 0; i < k; ++i) b[(s + i) & 15] |= uint32_t{1} << ((h2 * kSalts[i]) >> 27);
  }
  bool test(const Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    const uint32_t s = start(h);
    uint32_t miss = 0;
    for (uint32_t i = 0; i < k; ++i) {
      const uint32_t bit = uint32_t{1} << ((h2 * kSalts[i]) >> 27);
      miss |= bit & ~b[(s + i) & 15];
    }
    return miss == 0;
  }
  double block_fpr(double i) const {
    // b: each used word holds one bit of each key: a product, exact. b-rot: exact (WindowModel).
    if (Rotate) return model.block_fpr(i);
    return std::pow(1.0 - std::pow(31.0 / 32.0, i), k);
  }
  std::string detail() const { return ""; }
};

// split: b-rot as a layout of abloom would define it (issue 12), from the low 32 bits alone like
// a-dist (h2 = low bits | 1, powers of C): word L's bit is the top 5 bits of h2 * C^(L+1), the
// start word the top 4 bits of h2 * C^17, k <= 16.
struct SplitLayout {
  using Word = uint32_t;
  static constexpr int kMaxKOf = kMaxK;
  uint32_t k;
  WindowModel model;
  explicit SplitLayout(uint32_t k_) : k(k_), model(16, 32, k_) {}
  static const char* name() { return "split"; }
  static uint32_t h2_of(uint64_t h) { return static_cast<uint32_t>(h) | 1u; }
  static uint32_t start(uint32_t h2) { return (h2 * MulShiftDistinct::powers[17]) >> 28; }
  static uint32_t bit(uint32_t h2, uint32_t word) {
    return (h2 * MulShiftDistinct::powers[word + 1]) >> 27;
  }
  void add(Word* b, uint64_t h) const {
    const uint32_t h2 = h2_of(h), s = start(h2);
    for (uint32_t j = 0; j < k; ++j) {
      const uint32_t w = (s + j) & 15;
      b[w] |= uint32_t{1} << bit(h2, w);
    }
  }
  bool test(const Word* b, uint64_t h) const {
    const uint32_t h2 = h2_of(h), s = start(h2);
    uint32_t miss = 0;
    for (uint32_t j = 0; j < k; ++j) {
      const uint32_t w = (s + j) & 15;
      miss |= (uint32_t{1} << bit(h2, w)) & ~b[w];
    }
    return miss == 0;
  }
  double block_fpr(double i) const { return model.block_fpr(i); }
  std::string detail() const { return ""; }
};

// b64-rot: one bit in each of k <= 8 consecutive 64-bit words (mod 8).
struct SplitBlock64 {
  using Word = uint64_t;
  static constexpr int kMaxKOf = 8;
  uint32_t k;
  WindowModel model;
  explicit SplitBlock64(uint32_t k_) : k(k_), model(8, 64, k_) {}
  static const char* name() { return "b64-rot"; }
  static uint32_t start(uint64_t h) { return static_cast<uint32_t>(h >> 32) & 7; }
  void add(Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    const uint32_t s = start(h);
    for (uint32_t i = 0; i < k; ++i) b[(s + i) & 7] |= uint64_t{1} << ((h2 * kSalts[i]) >> 26);
  }
  bool test(const Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    const uint32_t s = start(h);
    uint64_t miss = 0;
    for (uint32_t i = 0; i < k; ++i) {
      const uint64_t bit = uint64_t{1} << ((h2 * kSalts[i]) >> 26);
      miss |= bit & ~b[(s + i) & 7];
    }
    return miss == 0;
  }
  double block_fpr(double i) const { return model.block_fpr(i); }
  std::string detail() const { return ""; }
};

// k distinct lengths near 512/k summing to 512, pairwise coprime when a search finds such a set
// (smallest spread first), else merely distinct.
bool partition_dfs(int k, int rem, int maxv, int lo, bool coprime, std::vector<int>& cur,
                   long& budget) {
  const int r = k - static_cast<int>(cur.size());
  if (r == 0) return rem == 0;
  for (int v = std::min(maxv - 1, rem); v >= lo; --v) {
    if (--budget < 0) return false;
    if (static_cast<long>(r) * v - static_cast<long>(r) * (r - 1) / 2 < rem) break;  // too small
    if (rem - v < 0) continue;
    // the r-1 remaining values are distinct, < v and >= lo
    if (r > 1 && (r - 1) * lo + (r - 1) * (r - 2) / 2 > rem - v) continue;
    bool ok = true;
    if (coprime)
      for (int c : cur) ok = ok && std::gcd(c, v) == 1;
    if (!ok) continue;
    cur.push_back(v);
    if (partition_dfs(k, rem - v, v, lo, coprime, cur, budget)) return true;
    cur.pop_back();
  }
  return false;
}

struct Partition {
  std::vector<int> len;
  bool coprime;
};

Partition make_partition(int k) {
  const int t = 512 / k;
  for (int pass = 0; pass < 2; ++pass) {
    const bool coprime = pass == 0;
    for (int w = 0; w <= t / 2; ++w) {
      std::vector<int> cur;
      long budget = 200000;
      if (partition_dfs(k, 512, t + w + 2, std::max(2, t - w), coprime, cur, budget)) {
        std::sort(cur.begin(), cur.end());
        return {cur, coprime};
      }
    }
  }
  std::fprintf(stderr, "no partition for k=%d\n", k);
  std::exit(1);
}

// (c) partitioned block: partition i gets one bit. Mod = false: multiply-shift of h2 * C^(i+1)
// into len_i; Mod = true: h2 mod len_i (gloom's one-hashing).
template <bool Mod>
struct Partitioned {
  static constexpr int kMaxKOf = kMaxK;
  using Word = uint64_t;
  uint32_t k;
  std::array<uint32_t, kMaxK> mul;
  std::array<uint32_t, kMaxK> len{}, off{};
  bool coprime;
  explicit Partitioned(uint32_t k_) : k(k_), mul(golden_powers()) {
    Partition p = make_partition(static_cast<int>(k));
    coprime = p.coprime;
    uint32_t o = 0;
    for (uint32_t i = 0; i < k; ++i) {
      len[i] = static_cast<uint32_t>(p.len[i]);
      off[i] = o;
      o += len[i];
    }
  }
  static const char* name() { return Mod ? "c-mod" : "c"; }
  uint32_t pos(uint32_t h2, uint32_t i) const {
    if (Mod) return off[i] + h2 % len[i];
    return off[i] + static_cast<uint32_t>((static_cast<uint64_t>(h2 * mul[i]) * len[i]) >> 32);
  }
  void add(Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    for (uint32_t i = 0; i < k; ++i) set_bit512(b, pos(h2, i));
  }
  bool test(const Word* b, uint64_t h) const {
    const uint32_t h2 = static_cast<uint32_t>(h);
    uint64_t m[8] = {};
    for (uint32_t i = 0; i < k; ++i) set_bit512(m, pos(h2, i));
    return holds_all512(b, m);
  }
  double block_fpr(double i) const {
    double f = 1.0;
    for (uint32_t j = 0; j < k; ++j) f *= 1.0 - std::pow(1.0 - 1.0 / len[j], i);
    return f;
  }
  std::string detail() const {
    std::string s = coprime ? "coprime {" : "distinct, not coprime {";
    for (uint32_t i = 0; i < k; ++i) s += (i ? "," : "") + std::to_string(len[i]);
    return s + "}";
  }
};

// A filter of one scheme: fastrange block choice + the scheme's in-block placement.
template <class S>
struct Filter {
  S scheme;
  Blocks blocks;
  Filter(uint32_t k, uint64_t nblocks) : scheme(k), blocks(nblocks) {}
  void add_hash(uint64_t h) {
    scheme.add(blocks.template block<typename S::Word>(fastrange64(h, blocks.count())), h);
  }
  bool test_hash(uint64_t h) const {
    return scheme.test(blocks.template block<typename S::Word>(fastrange64(h, blocks.count())), h);
  }
  void add(const Key& key) { add_hash(hash_key(key)); }
  bool test(const Key& key) const { return test_hash(hash_key(key)); }
};

// ---- FPR models --------------------------------------------------------------------------------

// Poisson mixture over block loads: sum_i Pois(i; lambda) * block_fpr(i), as fpr_model.py.
template <class F>
double poisson_mixture(double lambda, F block_fpr) {
  const int top = static_cast<int>(lambda + 12 * std::sqrt(lambda) + 40);
  double sum = 0;
  for (int i = 0; i < top; ++i)
    sum += std::exp(-lambda + i * std::log(lambda) - std::lgamma(i + 1.0)) * block_fpr(i);
  return sum;
}

double putze_fpr(double bits_per_key, int k) {
  return poisson_mixture(kBlockBits / bits_per_key, [k](double i) {
    return std::pow(1.0 - std::pow(1.0 - 1.0 / kBlockBits, i * k), k);
  });
}

// ---- the FPR study -----------------------------------------------------------------------------

constexpr size_t kFprKeys = 1000000;
constexpr size_t kFprQueries = 10000000;
constexpr uint64_t kAddedSeed = 0xA11CEull;
constexpr uint64_t kAbsentSeed = 0xB0Bull;
const std::vector<int> kBitsPerKey = {8, 10, 12, 16, 20};

struct FprPoint {
  int k;
  uint64_t fp;
  double fpr, model, putze;
};

struct SchemeResult {
  std::string name;
  std::vector<FprPoint> scan;  // the k values measured
  double model_best = 1;       // the scheme model's lowest FPR over k = 1..kMaxK
  int model_best_k = 0;
};

template <class S>
SchemeResult scan_scheme(const std::vector<uint64_t>& added, const std::vector<uint64_t>& absent,
                         uint64_t nblocks, double c, const std::vector<int>& ks) {
  SchemeResult r;
  r.name = S::name();
  for (int k : ks) {
    Filter<S> f(k, nblocks);
    for (uint64_t h : added) f.add_hash(h);
    for (uint64_t h : added)
      if (!f.test_hash(h)) {
        std::fprintf(stderr, "BUG: false negative in scheme %s k=%d\n", S::name(), k);
        std::exit(1);
      }
    uint64_t fp = 0;
    for (uint64_t h : absent) fp += f.test_hash(h);
    const double lambda = static_cast<double>(added.size()) / nblocks;
    FprPoint p{k, fp, static_cast<double>(fp) / absent.size(),
               poisson_mixture(lambda, [&](double i) { return f.scheme.block_fpr(i); }),
               putze_fpr(c, k)};
    r.scan.push_back(p);
  }
  const double lambda = static_cast<double>(added.size()) / nblocks;
  for (int k = 1; k <= S::kMaxKOf; ++k) {
    const S scheme(k);
    const double m = poisson_mixture(lambda, [&](double i) { return scheme.block_fpr(i); });
    if (m < r.model_best) {
      r.model_best = m;
      r.model_best_k = k;
    }
  }
  return r;
}

// The k values to try: all of 1..16 for a full scan, else the Putze optimum +-2 plus `extra`.
std::vector<int> k_range(bool full, int putze_k, std::initializer_list<int> extra) {
  std::vector<int> ks;
  for (int k = 1; k <= kMaxK; ++k) {
    bool take = full || std::abs(k - putze_k) <= 2;
    for (int e : extra) take = take || k == e;
    if (take) ks.push_back(k);
  }
  return ks;
}

std::map<std::string, int> g_best_k_at_10;  // filled by the FPR study, used by the speed study

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f%%", 100 * x);
  return buf;
}

void run_fpr(bool full_scan) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> added(kFprKeys), absent(kFprQueries);
  {
    auto keys = make_keys(kAddedSeed, kFprKeys);
    for (size_t i = 0; i < keys.size(); ++i) added[i] = hash_key(keys[i]);
  }
  {
    auto keys = make_keys(kAbsentSeed, kFprQueries);
    for (size_t i = 0; i < keys.size(); ++i) absent[i] = hash_key(keys[i]);
  }
  std::printf("## FPR at equal bits per key\n\n");
  std::printf(
      "n = %zu keys added, %zu absent keys queried, 16-byte splitmix64 keys, one XXH3-64 hash "
      "(seed 0x%llx) per key, block = fastrange(hash, blocks).\n"
      "model = the scheme's own model, a Poisson mixture over block loads of: for a and a-dist the "
      "exact in-block FPR (occupancy DP), for b, c the per-word/partition product (exact), for "
      "b-rot "
      "and b64-rot an inclusion-exclusion over the query's words (exact); Putze = the blocked-512 "
      "closed form of fpr_model.py at the same "
      "k; Putze best = fpr_model.py's best k and FPR.\n"
      "meas/Putze-best > 1 means the scheme needs more bits than the Putze model promises. best k "
      "is the measured best (noisy when few false positives); model best is the scheme model's "
      "optimum over k = 1..16 (noise-free).\n\n",
      kFprKeys, kFprQueries, static_cast<unsigned long long>(kHashSeed));
  std::printf(
      "| bits/key | scheme | best k | measured FPR | false pos. | model | Putze same k | "
      "Putze best (k) | meas/Putze-best | model best (k) | model best/Putze best |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::pair<int, std::vector<SchemeResult>>> all;
  for (int c : kBitsPerKey) {
    const uint64_t nblocks = static_cast<uint64_t>(std::llround(kFprKeys * c / kBlockBits));
    const double creal = nblocks * kBlockBits / kFprKeys;
    int putze_k = 1;
    for (int k = 2; k <= 47; ++k)
      if (putze_fpr(creal, k) < putze_fpr(creal, putze_k)) putze_k = k;
    const double putze_best = putze_fpr(creal, putze_k);
    const auto ks = k_range(full_scan, putze_k, {});
    std::vector<SchemeResult> rs;
    rs.push_back(scan_scheme<MulShift>(added, absent, nblocks, creal, ks));
    rs.push_back(scan_scheme<MulShiftDistinct>(added, absent, nblocks, creal, ks));
    rs.push_back(scan_scheme<SplitBlock<false>>(added, absent, nblocks, creal,
                                                k_range(full_scan, putze_k, {8, 14, 15, 16})));
    rs.push_back(scan_scheme<SplitBlock<true>>(added, absent, nblocks, creal,
                                               k_range(full_scan, putze_k, {8})));
    std::vector<int> ks64;
    for (int k : k_range(full_scan, putze_k, {8}))
      if (k <= SplitBlock64::kMaxKOf) ks64.push_back(k);
    rs.push_back(scan_scheme<SplitBlock64>(added, absent, nblocks, creal, ks64));
    rs.push_back(scan_scheme<SplitLayout>(added, absent, nblocks, creal, ks));
    rs.push_back(scan_scheme<Partitioned<false>>(added, absent, nblocks, creal, ks));
    rs.push_back(scan_scheme<Partitioned<true>>(added, absent, nblocks, creal, ks));
    auto row = [&](const SchemeResult& r, const FprPoint& p, const char* tag) {
      std::printf("| %d | %s | %d%s | %s | %llu | %s | %s | %s (%d) | %.3f | %s (%d) | %.3f |\n", c,
                  r.name.c_str(), p.k, tag, pct(p.fpr).c_str(),
                  static_cast<unsigned long long>(p.fp), pct(p.model).c_str(), pct(p.putze).c_str(),
                  pct(putze_best).c_str(), putze_k, p.fpr / putze_best, pct(r.model_best).c_str(),
                  r.model_best_k, r.model_best / putze_best);
    };
    for (const auto& r : rs) {
      const FprPoint* best = &r.scan[0];
      for (const auto& p : r.scan)
        if (p.fpr < best->fpr) best = &p;
      if (c == 10) g_best_k_at_10[r.name] = best->k;
      row(r, *best, "");
      if (r.name[0] == 'b' && best->k != 8)
        for (const auto& p : r.scan)
          if (p.k == 8) row(r, p, " (SBBF k=8)");
    }
    all.emplace_back(c, std::move(rs));
  }
  std::printf("\nPartition lengths (c, c-mod):");
  for (int k = 1; k <= kMaxK; ++k)
    std::printf(" k=%d %s;", k, Partitioned<false>(k).detail().c_str());
  std::printf("\n");
  if (full_scan) {
    std::printf("\n### measured FPR / scheme model, by k\n\n| bits/key | scheme |");
    for (int k = 1; k <= kMaxK; ++k) std::printf(" k=%d |", k);
    std::printf("\n|---|---|");
    for (int k = 1; k <= kMaxK; ++k) std::printf("---|");
    std::printf("\n");
    for (const auto& [c, rs] : all)
      for (const auto& r : rs) {
        std::printf("| %d | %s |", c, r.name.c_str());
        for (const auto& p : r.scan)
          if (p.fp >= 100)
            std::printf(" %.3f |", p.fpr / p.model);
          else
            std::printf(" (%llu fp) |", static_cast<unsigned long long>(p.fp));
        std::printf("\n");
      }
    std::printf("\n### measured FPR / Putze model (same k)\n\n| bits/key | scheme |");
    for (int k = 1; k <= kMaxK; ++k) std::printf(" k=%d |", k);
    std::printf("\n|---|---|");
    for (int k = 1; k <= kMaxK; ++k) std::printf("---|");
    std::printf("\n");
    for (const auto& [c, rs] : all)
      for (const auto& r : rs) {
        std::printf("| %d | %s |", c, r.name.c_str());
        for (const auto& p : r.scan)
          if (p.fp >= 100)
            std::printf(" %.3f |", p.fpr / p.putze);
          else
            std::printf(" (%llu fp) |", static_cast<unsigned long long>(p.fp));
        std::printf("\n");
      }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\n(FPR study: %.1f s)\n\n", secs);
  std::fflush(stdout);
}

// ---- the speed study ---------------------------------------------------------------------------

constexpr double kSpeedBitsPerKey = 10;
constexpr size_t kInCacheKeys = 1000000;      // ~1.2 MiB filter
constexpr size_t kOutOfCacheKeys = 50000000;  // ~60 MiB filter
constexpr size_t kInCacheQueries = size_t{1} << 16;
constexpr size_t kOutOfCacheQueries = size_t{1} << 22;

// Per (scheme, size): a filled filter, an empty one for adds, present and absent query keys.
template <class S>
struct SpeedFixture {
  std::unique_ptr<Filter<S>> full, empty;
  std::vector<Key> present, absent;
  SpeedFixture(uint32_t k, size_t n, size_t nq) {
    const uint64_t nblocks = static_cast<uint64_t>(std::ceil(n * kSpeedBitsPerKey / kBlockBits));
    full = std::make_unique<Filter<S>>(k, nblocks);
    empty = std::make_unique<Filter<S>>(k, nblocks);
    uint64_t s = kAddedSeed;
    for (size_t i = 0; i < n; ++i) {
      Key key{splitmix64(s), 0};
      key.hi = splitmix64(s);
      full->add(key);
    }
    present = make_keys(kAddedSeed, nq);  // the first nq added keys
    absent = make_keys(kAbsentSeed, nq);
  }
};

template <class S>
void register_scheme(uint32_t k) {
  struct Sizes {
    const char* label;
    size_t n, nq;
  };
  for (Sizes sz : {Sizes{"1M", kInCacheKeys, kInCacheQueries},
                   Sizes{"50M", kOutOfCacheKeys, kOutOfCacheQueries}}) {
    // Built lazily on first use, freed at exit.
    auto fx = std::make_shared<std::unique_ptr<SpeedFixture<S>>>();
    auto get = [fx, k, sz]() -> SpeedFixture<S>& {
      if (!*fx) *fx = std::make_unique<SpeedFixture<S>>(k, sz.n, sz.nq);
      return **fx;
    };
    const std::string suffix = std::string(S::name()) + "/k" + std::to_string(k) + "/" + sz.label;
    benchmark::RegisterBenchmark(("test_absent/" + suffix).c_str(), [get](benchmark::State& st) {
      auto& f = get();
      const size_t mask = f.absent.size() - 1;
      size_t i = 0;
      for (auto _ : st) {
        benchmark::DoNotOptimize(f.full->test(f.absent[i]));
        i = (i + 1) & mask;
      }
      st.SetItemsProcessed(st.iterations());
    });
    benchmark::RegisterBenchmark(("test_present/" + suffix).c_str(), [get](benchmark::State& st) {
      auto& f = get();
      const size_t mask = f.present.size() - 1;
      size_t i = 0;
      for (auto _ : st) {
        benchmark::DoNotOptimize(f.full->test(f.present[i]));
        i = (i + 1) & mask;
      }
      st.SetItemsProcessed(st.iterations());
    });
    benchmark::RegisterBenchmark(("add/" + suffix).c_str(), [get](benchmark::State& st) {
      auto& f = get();
      const size_t mask = f.absent.size() - 1;
      size_t i = 0;
      for (auto _ : st) {
        f.empty->add(f.absent[i]);
        i = (i + 1) & mask;
      }
      benchmark::ClobberMemory();
      st.SetItemsProcessed(st.iterations());
    });
  }
}

// Captures results so that main can print ns/op relative to scheme a.
class CaptureReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal (the --benchmark_color flag only reaches the default reporter).
  CaptureReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}
  std::map<std::string, double> ns;  // benchmark name -> CPU ns/op (median of the repetitions)
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      std::string name = r.run_name.function_name;
      ns[name] = r.GetAdjustedCPUTime();  // iteration runs first, then the median overrides
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

void print_ratios(const std::map<std::string, double>& ns) {
  // names: op/scheme/kK/size
  std::map<std::string, std::map<std::string, double>> rows;  // "op size" -> scheme -> ns
  std::vector<std::string> schemes;
  for (const auto& [name, t] : ns) {
    const size_t a = name.find('/'), b = name.find('/', a + 1), c = name.find('/', b + 1);
    if (a == std::string::npos || b == std::string::npos || c == std::string::npos) continue;
    const std::string op = name.substr(0, a), scheme = name.substr(a + 1, b - a - 1),
                      kk = name.substr(b + 1, c - b - 1), size = name.substr(c + 1);
    const std::string label = scheme + " (" + kk + ")";
    rows[op + " " + size][label] = t;
    if (std::find(schemes.begin(), schemes.end(), label) == schemes.end()) schemes.push_back(label);
  }
  std::sort(schemes.begin(), schemes.end());
  std::printf(
      "\n## Speed: CPU ns/op, median of the repetitions (ratio to scheme a, same run)\n\n| op | "
      "keys |");
  for (const auto& s : schemes) std::printf(" %s |", s.c_str());
  std::printf("\n|---|---|");
  for (size_t i = 0; i < schemes.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const auto& [label, m] : rows) {
    const size_t sp = label.find(' ');
    std::printf("| %s | %s |", label.substr(0, sp).c_str(), label.substr(sp + 1).c_str());
    double base = 0;
    for (const auto& [s, t] : m)
      if (s.rfind("a (", 0) == 0) base = t;
    for (const auto& s : schemes) bench::print_ratio_cell(m, s, base);
    std::printf("\n");
  }
}

void register_speed() {
  auto k_for = [](const char* name, uint32_t dflt) {
    auto it = g_best_k_at_10.find(name);
    return it == g_best_k_at_10.end() ? dflt : static_cast<uint32_t>(it->second);
  };
  // Defaults are the best k at 10 bits/key found by the FPR study on the reference machine.
  register_scheme<MulShift>(k_for("a", 6));
  register_scheme<MulShiftDistinct>(k_for("a-dist", 6));
  register_scheme<SplitBlock<false>>(8);  // SBBF's own k
  register_scheme<SplitBlock<true>>(k_for("b-rot", 7));
  register_scheme<Partitioned<false>>(k_for("c", 7));
  register_scheme<Partitioned<true>>(k_for("c-mod", 7));
}

}  // namespace

// The fewest bits per key (and the k) at which a scheme's model reaches `target`: bisection on
// bits per key, each step taking the best k (scanning k up from 1 until the FPR rises).
template <class S>
std::pair<double, int> bits_needed(double target) {
  auto best_at = [](double c) {
    double best = 1;
    int best_k = 1;
    for (int k = 1; k <= S::kMaxKOf; ++k) {
      const S scheme(k);
      const double f =
          poisson_mixture(kBlockBits / c, [&](double i) { return scheme.block_fpr(i); });
      if (f < best) {
        best = f;
        best_k = k;
      } else if (k > best_k + 1) {
        break;
      }
    }
    return std::make_pair(best, best_k);
  };
  double lo = 2, hi = 64;
  for (int step = 0; step < 40; ++step) {
    const double mid = (lo + hi) / 2;
    (best_at(mid).first <= target ? hi : lo) = mid;
  }
  return {hi, best_at(hi).second};
}

// The models' memory at equal FPR (issue 12: a layout may become the default only if it costs at
// most 3% more bits per key at 1% and 0.1%).
void run_bits_needed() {
  std::printf("## Bits per key each model needs for a target FPR (best k)\n\n");
  std::printf(
      "| target | a-dist (today) | b-rot | b-rot / a-dist | b64-rot (k <= 8) | "
      "b64-rot / a-dist |\n|---|---|---|---|---|---|\n");
  for (double target : {1e-2, 1e-3, 1e-4}) {
    const auto [ca, ka] = bits_needed<MulShiftDistinct>(target);
    const auto [cb, kb] = bits_needed<SplitBlock<true>>(target);
    const auto [c64, k64] = bits_needed<SplitBlock64>(target);
    std::printf("| %g | %.3f (k=%d) | %.3f (k=%d) | %.4f | %.3f (k=%d) | %.4f |\n", target, ca, ka,
                cb, kb, cb / ca, c64, k64, c64 / ca);
  }
}

int main(int argc, char** argv) {
  bool fpr = true, speed = true, scan = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--fpr-only") {
      speed = false;
    } else if (a == "--speed-only") {
      fpr = false;
    } else if (a == "--fpr-scan") {
      scan = true;
    } else if (a == "--bits-needed") {
      run_bits_needed();
      return 0;
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: %s [--fpr-only | --speed-only] [--fpr-scan] [--bits-needed] "
          "[--benchmark_* flags]\n"
          "Compares three ways (five variants) to place k bits in one 64-byte block.\n",
          argv[0]);
      return 0;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (!bench::init_benchmark(args, {"--benchmark_min_time=0.1", "--benchmark_repetitions=3",
                                    "--benchmark_display_aggregates_only=true"})) {
    return 2;
  }

  if (fpr) run_fpr(scan);
  if (speed) {
    register_speed();
    CaptureReporter rep;
    benchmark::RunSpecifiedBenchmarks(&rep);
    print_ratios(rep.ns);
  }
  benchmark::Shutdown();
  return 0;
}
