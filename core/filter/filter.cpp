#include "filter/filter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "kernels/kernel_table.hpp"
#include "layout/atomic_bits.hpp"

// The doubles computed here go into files: no fused multiply-add (see there).
#include "model/ddmath.hpp"
#include "model/no_fp_contract.hpp"

namespace abloom {

Filter::Filter(const Shape& shape, const FilterParams& params) : shape_(shape), params_(params) {
  set_threads(params.threads);
  const uint32_t n = shape_.shards();
  shards_.reserve(n);
  shard_ptrs_.reserve(n);
  for (uint32_t s = 0; s < n; ++s) {
    shards_.emplace_back(shape_.words_per_shard());
    shard_ptrs_.push_back(shards_.back().data());
  }
  view_ = BlockedView(shape_, shard_ptrs_.data());
}

Filter::Filter(const Shape& shape, const FilterParams& params, ExternalShards external)
    : shape_(shape),
      params_(params),
      shard_ptrs_(std::move(external.shards)),
      memory_(std::move(external.memory)),
      storage_(external.storage),
      read_only_(external.read_only),
      opened_stale_(external.stale) {
  set_threads(params.threads);
  view_ = BlockedView(shape_, shard_ptrs_.data());
}

Filter::Filter(const Filter& other) : Filter(other.shape_, other.params_) {
  set_threads(other.threads());
  for (uint32_t s = 0; s < shape_.shards(); ++s) {
    const uint64_t* src = other.shard_ptrs_[s];
    uint64_t* dst = shard_ptrs_[s];
    for (uint64_t w = 0; w < shape_.words_per_shard(); ++w) dst[w] = load_word(src + w);
  }
}

bool Filter::add_hash_impl(uint64_t h) noexcept {
  const bool shared = writer_ == WriterMode::shared;
  if (shape_.kind == Kind::blocked) {
    const BlockedKernels& kernels = blocked_kernels(shape_.layout);
    uint64_t* block = view_.block_of(h);
    return shared ? kernels.add(block, h, shape_.k) : kernels.add_exclusive(block, h, shape_.k);
  }
  return shared ? add_classic<SharedWriter>(h) : add_classic<ExclusiveWriter>(h);
}

template <class Writer>
bool Filter::add_classic(uint64_t h) noexcept {
  bool present = true;
  uint64_t* base = shard_ptrs_[shape_.shard_of(h)];
  abloom_spec_classic probes =
      abloom_spec_classic_start(h, shape_.shard_bits, shape_.bits_per_shard());
  for (uint32_t i = 0; i < shape_.k; ++i) {
    const uint64_t pos = abloom_spec_classic_next(&probes);
    const uint64_t bit = uint64_t{1} << (pos & 63);
    present &= Writer::set_bits(base + (pos >> 6), bit) != 0;
  }
  return present;
}

template bool Filter::add_classic<SharedWriter>(uint64_t h) noexcept;
template bool Filter::add_classic<ExclusiveWriter>(uint64_t h) noexcept;

int Filter::classic_test_key(const void* key, size_t len) const noexcept {
  return test_classic(hash(key, len)) ? 1 : 0;
}

int Filter::classic_add_key(const void* key, size_t len) noexcept {
  return add_hash_impl(hash(key, len)) ? 1 : 0;
}

bool Filter::test_classic(uint64_t h) const noexcept {
  const uint64_t* base = shard_ptrs_[shape_.shard_of(h)];
  abloom_spec_classic probes =
      abloom_spec_classic_start(h, shape_.shard_bits, shape_.bits_per_shard());
  for (uint32_t i = 0; i < shape_.k; ++i) {
    const uint64_t pos = abloom_spec_classic_next(&probes);
    if ((load_word(base + (pos >> 6)) & (uint64_t{1} << (pos & 63))) == 0) return false;
  }
  return true;
}

void Filter::prefetch_classic(uint64_t h) const noexcept {
  const uint64_t* base = shard_ptrs_[shape_.shard_of(h)];
  abloom_spec_classic probes =
      abloom_spec_classic_start(h, shape_.shard_bits, shape_.bits_per_shard());
  for (uint32_t i = 0; i < shape_.k; ++i)
    __builtin_prefetch(base + (abloom_spec_classic_next(&probes) >> 6), 0, 3);
}

template <class Fn>
void Filter::for_each_word_pair(const Filter& other, Fn fn) const noexcept {
  for (uint32_t s = 0; s < shape_.shards(); ++s) {
    uint64_t* mine = shard_ptrs_[s];
    const uint64_t* theirs = other.shard_ptrs_[s];
    for (uint64_t w = 0; w < shape_.words_per_shard(); ++w) fn(mine + w, load_word(theirs + w));
  }
}

Errc Filter::union_with(const Filter& other) noexcept {
  if (!(shape_ == other.shape_)) return Errc::mismatch;
  if (&other == this) return Errc::ok;
  if (writer_ == WriterMode::exclusive) {
    for_each_word_pair(other, [](uint64_t* mine, uint64_t theirs) {
      if (theirs != 0) ExclusiveWriter::set_bits(mine, theirs);
    });
    return Errc::ok;
  }
  for_each_word_pair(other, [](uint64_t* mine, uint64_t theirs) {
    if (theirs != 0) SharedWriter::set_bits(mine, theirs);
  });
  return Errc::ok;
}

Errc Filter::intersect_with(const Filter& other) noexcept {
  if (!(shape_ == other.shape_)) return Errc::mismatch;
  if (&other == this) return Errc::ok;
  for_each_word_pair(other, [](uint64_t* mine, uint64_t theirs) { and_word(mine, theirs); });
  return Errc::ok;
}

void Filter::clear() noexcept {
  for (uint32_t s = 0; s < shape_.shards(); ++s) {
    for (uint64_t w = 0; w < shape_.words_per_shard(); ++w) store_word(shard_ptrs_[s] + w, 0);
  }
}

bool Filter::equals(const Filter& other) const noexcept {
  if (!(shape_ == other.shape_)) return false;
  bool same = true;
  for_each_word_pair(other,
                     [&](uint64_t* mine, uint64_t theirs) { same &= load_word(mine) == theirs; });
  return same;
}

namespace {

// Blocks whose set bits one kernel call counts (onto the stack).
constexpr uint64_t kCountChunk = 256;

// Calls fn(set bits of the block) for each of a shard's `blocks` blocks, in order.
// (The table is read for each call: until the first call has chosen one, blocked_kernels() is
// the first-use table, whose entries choose again, with cpuid, on every call.)
template <class Fn>
void for_each_block_bits(const uint64_t* shard, uint64_t blocks, Fn fn) noexcept {
  uint16_t counts[kCountChunk];
  for (uint64_t first = 0; first < blocks; first += kCountChunk) {
    const uint64_t n = std::min(kCountChunk, blocks - first);
    blocked_kernels().block_bits(shard + first * kBlockWords, n, counts);
    for (uint64_t i = 0; i < n; ++i) fn(counts[i]);
  }
}

// Set bits of a shard of `blocks` blocks.
uint64_t shard_bits(const uint64_t* shard, uint64_t blocks) noexcept {
  uint64_t set = 0;
  for_each_block_bits(shard, blocks, [&](uint32_t bits) { set += bits; });
  return set;
}

// Keys that most likely set x of m bits, when one key leaves a given bit clear with probability
// e^log_clear: solves E[x] = m (1 - e^(n log_clear)) for n (Swamidass and Baldi). The logarithms
// here are ddmath.hpp's, not libm's: the file's inserted-key estimate is a sum of these, and must
// be the same on every machine.
double keys_for_fill(uint64_t x, double m, double log_clear) noexcept {
  if (x == 0) return 0.0;
  if (static_cast<double>(x) >= m) return std::numeric_limits<double>::infinity();
  return dd::log1p(-static_cast<double>(x) / m).hi / log_clear;
}

// Probability that a blocked key's k distinct probes all land on set bits of a block with x set.
double block_hit_probability(uint64_t x, uint32_t k) noexcept {
  double p = 1.0;
  for (uint32_t t = 0; t < k && p > 0; ++t) {
    p *= static_cast<double>(x > t ? x - t : 0) / static_cast<double>(kBlockBits - t);
  }
  return p;
}

// The same for the split layout, exactly for a block whose 32-bit words have half_bits[w] set
// bits: a foreign key's start word is uniform, and each of its k words' bit is set with
// probability (set bits of that word) / 32.
double split_hit_probability(const uint8_t* half_bits, uint32_t k) noexcept {
  // The fills twice over, so that a key's words s .. s + k - 1 need no modulo. (k <= kSplitMaxK
  // is enforced where a split filter is created or parsed; the clamp keeps the reads in bounds.)
  static_assert(kSplitMaxK <= kSplitWords);
  k = std::min(k, kSplitMaxK);
  double fill[2 * kSplitWords];
  for (uint32_t w = 0; w < kSplitWords; ++w) fill[w] = fill[w + kSplitWords] = half_bits[w] / 32.0;
  // All kSplitWords products at once, one factor per round: the same multiplications in the same
  // order for each start as one product after another, so the same doubles, but as independent
  // chains rather than one chain of 16 * k dependent multiplications.
  double p[kSplitWords];
  for (double& x : p) x = 1;
  for (uint32_t j = 0; j < k; ++j) {
    for (uint32_t s = 0; s < kSplitWords; ++s) p[s] *= fill[s + j];
  }
  double sum = 0;
  for (double x : p) sum += x;
  return sum / kSplitWords;
}

// The same for the half layout, exactly for a block whose 32-bit words have word_bits[w] set bits:
// a foreign key's half is either with probability 1/2, and each of its 8 words' bit is set with
// probability (set bits of that word) / 32.
double half_hit_probability(const uint8_t* word_bits) noexcept {
  double sum = 0;
  for (uint32_t half = 0; half < 2; ++half) {
    double p = 1;
    for (uint32_t w = 0; w < kHalfWords; ++w) p *= word_bits[half * kHalfWords + w] / 32.0;
    sum += p;
  }
  return sum / 2;
}

}  // namespace

double Filter::estimate_count() const noexcept {
  // One estimate over the whole filter: n keys leave a given bit clear with probability
  // (1 - p)^n, where p is the chance that one key sets it, so the expected fill is
  // M (1 - (1 - p)^n) and n = ln(1 - X/M) / ln(1 - p) (Swamidass and Baldi). It is finite until
  // every bit is set. (Summing per-block estimates, as before, was infinite as soon as any one
  // block was full: at a few times capacity, or with one crowded block in a tiny filter.)
  uint64_t set = 0;
  for (uint32_t s = 0; s < shape_.shards(); ++s) {
    set += shard_bits(shard_ptrs_[s], shape_.blocks_per_shard);
  }
  const double total = static_cast<double>(shape_.total_bits());
  double log_clear;  // ln(1 - p)
  if (shape_.kind == Kind::classic) {
    // A key picks a shard, then k probes there, each of which misses a given bit with
    // probability 1 - 1/m.
    const double m = static_cast<double>(shape_.bits_per_shard());
    const double p = -dd::expm1(shape_.k * dd::log1p(-1.0 / m).hi) / shape_.shards();
    log_clear = dd::log1p(-p).hi;
  } else {
    // k distinct bits in one of the filter's blocks (either layout): p = k / M.
    log_clear = dd::log1p(-static_cast<double>(shape_.k) / total).hi;
  }
  return keys_for_fill(set, total, log_clear);
}

double Filter::header_key_estimate() const noexcept {
  // The file format's inserted-key estimate (docs/FORMAT.md, offset 72), frozen with format
  // version 1 so that the same keys give the same bytes in every version and language (the
  // golden vectors pin it): the sum of per-unit estimates, per shard for the classic kind and
  // per block for the blocked kind, infinite (the format's "saturated") when any unit is full.
  // estimate_count is the better estimate for callers: finite until every bit is set.
  // ln of the chance that one key leaves a given bit of a unit clear, once for every unit: a
  // shard's k probes of 1/m each (classic), k distinct bits of a block's 512 (blocked).
  const double m = static_cast<double>(shape_.kind == Kind::classic ? shape_.bits_per_shard()
                                                                    : uint64_t{kBlockBits});
  const double log_clear = shape_.kind == Kind::classic
                               ? shape_.k * dd::log1p(-1.0 / m).hi
                               : dd::log1p(-static_cast<double>(shape_.k) / kBlockBits).hi;
  // A block's term depends only on its set bits (0..512): each value computed once, on first use
  // (a logarithm per block would cost far more: a million-block filter has a few hundred fills).
  std::array<double, kBlockBits + 1> block_terms;
  block_terms.fill(-1);  // not computed yet (every term is >= 0)
  double n = 0;
  for (uint32_t s = 0; s < shape_.shards(); ++s) {
    const uint64_t* base = shard_ptrs_[s];
    if (shape_.kind == Kind::classic) {
      n += keys_for_fill(shard_bits(base, shape_.blocks_per_shard), m, log_clear);
      continue;
    }
    for_each_block_bits(base, shape_.blocks_per_shard, [&](uint32_t set) {
      double& term = block_terms[set];
      if (term < 0) term = keys_for_fill(set, m, log_clear);
      n += term;
    });
  }
  return n;
}

double Filter::estimate_fpr() const noexcept {
  // A foreign key lands in each shard (and each block) with equal probability.
  double sum = 0;
  uint64_t units = 0;
  for (uint32_t s = 0; s < shape_.shards(); ++s) {
    const uint64_t* base = shard_ptrs_[s];
    if (shape_.kind == Kind::classic) {
      const double fill = static_cast<double>(shard_bits(base, shape_.blocks_per_shard)) /
                          static_cast<double>(shape_.bits_per_shard());
      sum += dd::pow(fill, shape_.k).hi;
      ++units;
      continue;
    }
    if (shape_.layout == Layout::distinct) {
      for_each_block_bits(base, shape_.blocks_per_shard,
                          [&](uint32_t set) { sum += block_hit_probability(set, shape_.k); });
      units += shape_.blocks_per_shard;
      continue;
    }
    uint8_t half_bits[kCountChunk * kSplitWords];
    for (uint64_t first = 0; first < shape_.blocks_per_shard; first += kCountChunk) {
      const uint64_t n = std::min(kCountChunk, shape_.blocks_per_shard - first);
      blocked_kernels().half_word_bits(base + first * kBlockWords, n * kBlockWords, half_bits);
      for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* block_half_bits = half_bits + i * kSplitWords;
        sum += shape_.layout == Layout::half ? half_hit_probability(block_half_bits)
                                             : split_hit_probability(block_half_bits, shape_.k);
      }
    }
    units += shape_.blocks_per_shard;
  }
  return sum / static_cast<double>(units);
}

}  // namespace abloom
