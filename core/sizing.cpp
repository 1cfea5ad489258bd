#include "sizing.hpp"

#include <bit>
#include <cmath>

namespace abloom {
namespace {

// Largest per-shard block count for a shard count, from the byte limit.
uint64_t max_blocks_per_shard(uint32_t shards) { return kMaxBytes / (kBlockBits / 8) / shards; }

double bits_per_key(uint64_t blocks_per_shard, uint32_t shards, uint64_t capacity) {
  return static_cast<double>(blocks_per_shard) * shards * kBlockBits /
         static_cast<double>(capacity);
}

// Shard count for a filter of `bytes`, when the user leaves it to us: see kDefaultShardBytes.
uint32_t default_shards(uint64_t bytes) {
  const uint64_t wanted = (bytes + kDefaultShardBytes - 1) / kDefaultShardBytes;
  const uint64_t pow2 = std::bit_ceil(wanted == 0 ? uint64_t{1} : wanted);
  return static_cast<uint32_t>(pow2 < kDefaultMaxShards ? pow2 : kDefaultMaxShards);
}

// The plan for one resolved shard count.
Errc plan_for_shards(const SizingRequest& req, uint32_t shards, Plan* out) {
  const uint64_t max_blocks = max_blocks_per_shard(shards);
  const uint64_t n = req.capacity;
  uint64_t blocks = 0;
  if (req.bits > 0) {
    const uint64_t total_blocks = req.bits / kBlockBits + (req.bits % kBlockBits != 0);
    blocks = total_blocks / shards + (total_blocks % shards != 0);
    if (blocks > max_blocks) return Errc::range;
  } else {
    auto meets = [&](uint64_t b) {
      const double c = bits_per_key(b, shards, n);
      const uint32_t k = req.k ? req.k : best_k(req.kind, c);
      return fpr_model(req.kind, c, k) <= req.fpr;
    };
    if (!meets(max_blocks)) return Errc::range;
    uint64_t lo = 0, hi = max_blocks;  // invariant: !meets(lo) (or lo == 0), meets(hi)
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (meets(mid) ? hi : lo) = mid;
    }
    blocks = hi;
  }
  const double c = bits_per_key(blocks, shards, n);
  out->kind = req.kind;
  out->k = req.k ? req.k : best_k(req.kind, c);
  out->shard_bits = static_cast<uint32_t>(std::countr_zero(shards));
  out->blocks_per_shard = blocks;
  out->expected_fpr = fpr_model(req.kind, c, out->k);
  return Errc::ok;
}

// ln(i!) for a whole number i >= 0. (std::lgamma writes the global signgam, so it is not
// thread-safe.) Exact summation for small i, Stirling's series beyond: error below 1e-13.
double log_factorial(double i) {
  if (i < 32) {
    double sum = 0;
    for (double j = 2; j <= i; ++j) sum += std::log(j);
    return sum;
  }
  constexpr double kHalfLog2Pi = 0.91893853320467274178;
  const double inv = 1.0 / i;
  return i * std::log(i) - i + 0.5 * std::log(i) + kHalfLog2Pi +
         inv * (1.0 / 12 - inv * inv * (1.0 / 360 - inv * inv / 1260));
}

}  // namespace

double fpr_classic(double c, uint32_t k) noexcept {
  if (!(c > 0)) return 1.0;
  return std::pow(-std::expm1(-static_cast<double>(k) / c), k);
}

double fpr_blocked(double c, uint32_t k) noexcept {
  if (!(c > 0)) return 1.0;
  const double lam = kBlockBits / c;  // mean keys per block
  // Beyond ~1e5 keys per block every block is saturated; the classic formula is as good there.
  if (lam > 1e5) return fpr_classic(c, k);
  const double log_miss = std::log1p(-1.0 / kBlockBits);  // log(1 - 1/512): one probe misses a bit
  const auto block_fpr = [&](double i) {
    // (1 - (1 - 1/512)^(i k))^k, computed in logs for precision at small i.
    return std::pow(-std::expm1(i * k * log_miss), k);
  };
  // Sum the Poisson mixture outward from the mode, with pmf recurrences, until the terms vanish.
  const double spread = 12.0 * std::sqrt(lam) + 40.0;
  const double mode = std::floor(lam);
  const double p_mode = std::exp(-lam + mode * std::log(lam) - log_factorial(mode));
  double sum = p_mode * block_fpr(mode);
  double p = p_mode;
  for (double i = mode + 1; i <= lam + spread; ++i) {
    p *= lam / i;
    sum += p * block_fpr(i);
  }
  p = p_mode;
  for (double i = mode; i >= 1 && i >= lam - spread; --i) {
    p *= i / lam;  // pmf(i - 1) = pmf(i) * i / lam
    sum += p * block_fpr(i - 1);
  }
  return sum;
}

double fpr_model(Kind kind, double c, uint32_t k) noexcept {
  return kind == Kind::classic ? fpr_classic(c, k) : fpr_blocked(c, k);
}

uint32_t best_k(Kind kind, double c) noexcept {
  // The model FPR is unimodal in k: start at the classic optimum c ln 2 and walk downhill.
  double guess = std::round(c * 0.6931471805599453);
  if (!(guess >= 1)) guess = 1;
  if (guess > kMaxK) guess = kMaxK;
  uint32_t k = static_cast<uint32_t>(guess);
  double f = fpr_model(kind, c, k);
  bool moved = false;
  while (k > 1) {
    const double down = fpr_model(kind, c, k - 1);
    if (!(down < f)) break;
    f = down;
    --k;
    moved = true;
  }
  while (!moved && k < kMaxK) {
    const double up = fpr_model(kind, c, k + 1);
    if (!(up < f)) break;
    f = up;
    ++k;
  }
  return k;
}

Errc make_plan(const SizingRequest& req, Plan* out) noexcept {
  if (req.kind != Kind::blocked && req.kind != Kind::classic) return Errc::invalid;
  if (req.capacity == 0) return Errc::invalid;
  if (req.k > kMaxK) return Errc::invalid;
  if (req.shards != 0 && (req.shards > kMaxShards || !std::has_single_bit(req.shards))) {
    return Errc::invalid;
  }
  if (req.bits == 0 && !(req.fpr > 0.0 && req.fpr < 1.0)) return Errc::invalid;  // NaN too

  if (req.shards != 0) return plan_for_shards(req, req.shards, out);
  Plan single;
  if (Errc e = plan_for_shards(req, 1, &single); e != Errc::ok) return e;
  const uint32_t shards = default_shards(single.bytes());
  if (shards == 1) {
    *out = single;
    return Errc::ok;
  }
  return plan_for_shards(req, shards, out);
}

}  // namespace abloom
