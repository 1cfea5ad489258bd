// half_block_fpr.cpp - a design study for issue 53, not part of the library: is the FPR of a
// "half-block" layout what its model says, for the ways of taking its bits from the hash that a
// vector probe can afford?
//
// The layout studied (bench/JOURNAL.md, "Proposal: the half-block layout"): a key's 64-byte block
// is chosen as the library chooses it (mulhi64(h, blocks)); the key sets one bit in each of the 8
// 32-bit words of one 32-byte half of it, so k = 8. The half and the 8 bit positions come from a
// 64-bit value r made from the hash with one multiply: broadcast to four 64-bit lanes, lane q
// shifted left by 5q, each 32-bit word's top 5 bits give one position (bits 27-31 minus 5q for the
// low word of lane q, 59-63 minus 5q for the high word), which a vector probe gets with one
// variable shift and one shift. Bit 32 of r, which no position uses, picks the half.
//
// Schemes of r:
//   mul-lo    r = h * M mod 2^64 (M = 0x9E3779B97F4A7C15): one multiply.
//   mul-fold  r = the two halves of the 128-bit h * M, XORed: one wide multiply and an XOR.
//   h         r = h: no multiply. A control: the positions share bits with the block index.
//
// The model, at c bits per key: a half holds j keys with probability Pois(j; 256 / c) (Poisson
// block loads, as the library's models take them), each sets one of the 32 bits of every word, so
// FPR(c) = sum_j Pois(j; 256 / c) (1 - (31/32)^j)^8.
//
// Usage: half_block_fpr [KEYS [QUERIES]]   (default 1000000 keys, 10000000 queries)
// Prints, for each scheme and bits per key, the model's FPR, the measured one and z, the
// difference in standard deviations of the measured rate (a binomial count of QUERIES keys never
// added: 16-byte keys from bench's fixed-seed stream, hashed by XXH3 as the library does).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "key_stream.hpp"
#include "layout/hash.hpp"    // core/: XXH3 as the library includes it
#include "layout/layout.hpp"  // core/: mulhi64, the block index

namespace {

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;

enum class Scheme { mul_lo, mul_fold, h };

const char* name(Scheme s) {
  switch (s) {
    case Scheme::mul_lo:
      return "mul-lo";
    case Scheme::mul_fold:
      return "mul-fold";
    case Scheme::h:
      return "h";
  }
  return "?";
}

uint64_t r_of(Scheme s, uint64_t h) {
  switch (s) {
    case Scheme::mul_lo:
      return h * kMul;
    case Scheme::mul_fold: {
      const unsigned __int128 p = static_cast<unsigned __int128>(h) * kMul;
      return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
    }
    case Scheme::h:
      return h;
  }
  return h;
}

// Word w's bit: lane q = w / 2 shifted left by 5q, the top 5 bits of its low (w even) or high
// 32-bit word.
uint32_t position(uint64_t r, uint32_t w) {
  const uint64_t x = r << (5 * (w / 2));
  return static_cast<uint32_t>(w % 2 == 0 ? (x >> 27) & 31 : x >> 59);
}

struct Filter {
  std::vector<uint32_t> words;  // 16 a block
  uint64_t blocks;
  Scheme scheme;
  Filter(uint64_t b, Scheme s) : words(b * 16), blocks(b), scheme(s) {}
  uint32_t* half_of(uint64_t h, uint64_t r) {
    return words.data() + abloom::mulhi64(h, blocks) * 16 + (r >> 32 & 1) * 8;
  }
  void add(uint64_t h) {
    const uint64_t r = r_of(scheme, h);
    uint32_t* half = half_of(h, r);
    for (uint32_t w = 0; w < 8; ++w) half[w] |= uint32_t{1} << position(r, w);
  }
  bool test(uint64_t h) {
    const uint64_t r = r_of(scheme, h);
    const uint32_t* half = half_of(h, r);
    for (uint32_t w = 0; w < 8; ++w) {
      if ((half[w] >> position(r, w) & 1) == 0) return false;
    }
    return true;
  }
};

double model_fpr(double c) {
  const double lam = 256.0 / c;
  double sum = 0;
  for (int j = 0; j < 2000; ++j) {
    const double pmf = std::exp(-lam + j * std::log(lam) - std::lgamma(j + 1.0));
    sum += pmf * std::pow(1 - std::pow(31.0 / 32.0, j), 8);
    if (j > lam && pmf < 1e-20) break;
  }
  return sum;
}

// Calls fn(hash) for n 16-byte keys of the stream from `seed`.
template <class Fn>
void for_hashes(uint64_t seed, uint64_t n, Fn fn) {
  bench::for_stream_keys(seed, n, [&](const uint64_t* w, size_t m) {
    for (size_t i = 0; i < m; ++i) fn(abloom::hash_key(0, w + 2 * i, 16));
  });
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t keys = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const uint64_t queries = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000000;
  if (keys == 0 || queries == 0) {
    std::fprintf(stderr, "usage: half_block_fpr [KEYS [QUERIES]] (both > 0)\n");
    return 2;
  }
  std::printf("%llu keys, %llu queries\n\n", static_cast<unsigned long long>(keys),
              static_cast<unsigned long long>(queries));
  std::printf("| scheme | bits/key | model FPR | measured FPR | z |\n|---|---|---|---|---|\n");
  for (Scheme s : {Scheme::mul_lo, Scheme::mul_fold, Scheme::h}) {
    for (double want : {8.0, 10.53, 12.0, 16.89, 24.0}) {
      const uint64_t blocks = static_cast<uint64_t>(std::ceil(keys * want / 512));
      const double c = static_cast<double>(blocks) * 512 / static_cast<double>(keys);
      Filter f(blocks, s);
      for_hashes(1, keys, [&](uint64_t h) { f.add(h); });
      uint64_t positives = 0;
      for_hashes(2, queries, [&](uint64_t h) { positives += f.test(h) ? 1 : 0; });
      const double model = model_fpr(c);
      const double measured = static_cast<double>(positives) / static_cast<double>(queries);
      const double sd = std::sqrt(model * (1 - model) / static_cast<double>(queries));
      std::printf("| %s | %.2f | %.4e | %.4e | %+.1f |\n", name(s), c, model, measured,
                  (measured - model) / sd);
    }
  }
  return 0;
}
