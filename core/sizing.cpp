#include "sizing.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

// No fused multiply-add in this file (see core/CMakeLists.txt): the header of a file holds
// doubles computed here, which must be the same bits on every machine, and compilers fuse by
// default where the CPU has FMA (aarch64: GCC's C++ modes, clang everywhere), differently in
// each place a function is inlined. CMake passes -ffp-contract=off; this pragma covers the builds
// that cannot: cgo refuses that flag (it is not in its allowlist), and users' own builds.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

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

// best_k's start: the classic optimum c ln 2, within [1, max_k].
uint32_t classic_k(Kind kind, Layout layout, double c) noexcept {
  const double guess = std::round(c * 0.6931471805599453);
  const uint32_t top = max_k(kind, layout);
  return !(guess >= 1) ? 1 : (guess > top ? top : static_cast<uint32_t>(guess));
}

// best_k_from, also giving the model FPR at that k (the last evaluation of its walk).
uint32_t best_k_and_fpr(Kind kind, Layout layout, double c, uint32_t start, double* fpr) noexcept {
  // The model FPR is unimodal in k: walk downhill from the start.
  const uint32_t top = max_k(kind, layout);
  uint32_t k = start < 1 ? 1 : (start > top ? top : start);
  double f = fpr_model(kind, layout, c, k);
  bool moved = false;
  while (k > 1) {
    const double down = fpr_model(kind, layout, c, k - 1);
    if (!(down < f)) break;
    f = down;
    --k;
    moved = true;
  }
  while (!moved && k < top) {
    const double up = fpr_model(kind, layout, c, k + 1);
    if (!(up < f)) break;
    f = up;
    ++k;
  }
  *fpr = f;
  return k;
}

// A first guess at the fewest blocks per shard that meet `target`: a few secant steps on
// ln(fpr) against bits per key, which is nearly linear (exactly so for the classic formula at
// its best k), from the classic optimum c = ln(1/p) / ln(2)^2. Each step costs one model
// evaluation, where bisecting the whole range of block counts (2^42 for one shard) took 42, and
// planning took milliseconds. Only a guess: fewest_blocks finds the exact answer around it, and
// any answer from here (even a wrong one) gives the same plan.
template <class FprAt>
uint64_t estimate_blocks(FprAt fpr_at, double target, uint32_t shards, uint64_t n,
                         uint64_t max_blocks) {
  const double block_c = bits_per_key(1, shards, n);  // bits per key of one block per shard
  const double goal = std::log(target);
  auto f = [&](double c) { return std::log(fpr_at(c)) - goal; };
  double c0 = std::log(1 / target) / (0.6931471805599453 * 0.6931471805599453);
  double c1 = c0 * 1.1;
  double f0 = f(c0), f1 = f(c1);
  for (int step = 0; step < 8 && std::isfinite(f0) && std::isfinite(f1) && f0 != f1; ++step) {
    const double c2 = c1 - f1 * (c1 - c0) / (f1 - f0);
    if (!(c2 > 0) || !std::isfinite(c2)) break;
    c0 = c1;
    f0 = f1;
    c1 = c2;
    // Close enough: fewest_blocks covers the last few blocks in a few evaluations.
    if (std::fabs(c1 - c0) < std::max(block_c / 4, c1 * 1e-5)) break;
    f1 = f(c1);
  }
  const double b = std::ceil(c1 / block_c);
  if (!(b >= 1)) return 1;
  return b < static_cast<double>(max_blocks) ? static_cast<uint64_t>(b) : max_blocks;
}

// The fewest blocks in [1, max_blocks] for which meets() holds, taking that it holds at
// max_blocks (not evaluated there unless guessed) and that it is monotone: gallops from `guess` (1,
// 2, 4, ... blocks away) until the answer is bracketed, then bisects. A guess off by d blocks costs
// about 2 log2(d) evaluations.
template <class Meets>
uint64_t fewest_blocks(Meets meets, uint64_t guess, uint64_t max_blocks) {
  uint64_t lo = 0, hi = max_blocks;  // invariant: !meets(lo) (or lo == 0), meets(hi)
  if (meets(guess)) {
    hi = guess;
    for (uint64_t step = 1; hi > 1; step *= 2) {
      const uint64_t probe = hi > step ? hi - step : 0;
      if (probe == 0) break;
      if (!meets(probe)) {
        lo = probe;
        break;
      }
      hi = probe;
    }
  } else {
    lo = guess;
    for (uint64_t step = 1; lo < max_blocks; step *= 2) {
      const uint64_t probe = max_blocks - lo > step ? lo + step : max_blocks;
      if (probe == max_blocks) break;
      if (meets(probe)) {
        hi = probe;
        break;
      }
      lo = probe;
    }
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (meets(mid) ? hi : lo) = mid;
  }
  return hi;
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
    // The search evaluates nearby sizes, whose best k differ by one or none: each walk starts
    // from the last one's k (the blocked kind's best k sits well below the classic optimum that
    // best_k starts from: 22 against 35 at 50 bits per key, a walk of 13 evaluations).
    uint32_t k_near = 0;
    auto fpr_at = [&](double c) {
      if (req.k) return fpr_model(req.kind, req.layout, c, req.k);
      double fpr;
      k_near = best_k_and_fpr(req.kind, req.layout, c,
                              k_near ? k_near : classic_k(req.kind, req.layout, c), &fpr);
      return fpr;  // the walk's last evaluation: the FPR at k_near
    };
    auto meets = [&](uint64_t b) { return fpr_at(bits_per_key(b, shards, n)) <= req.fpr; };
    blocks =
        fewest_blocks(meets, estimate_blocks(fpr_at, req.fpr, shards, n, max_blocks), max_blocks);
    // The search takes the largest size as meeting the target without evaluating it (its best
    // k is the largest, and the split model's largest k are costly to set up): only an answer
    // there needs the check.
    if (blocks == max_blocks && !meets(max_blocks)) return Errc::range;
  }
  const double c = bits_per_key(blocks, shards, n);
  out->kind = req.kind;
  out->layout = req.layout;
  out->k = req.k ? req.k : best_k(req.kind, req.layout, c);
  out->shard_bits = static_cast<uint32_t>(std::countr_zero(shards));
  out->blocks_per_shard = blocks;
  out->expected_fpr = fpr_model(req.kind, req.layout, c, out->k);
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

// Up to this k, fpr_split sums its 2^k terms in double, one per subset in subset order: cheap
// (4096 terms at most), and the exact doubles it gives are in files already written (the model
// FPR in the header; the golden vectors pin them). Above, the sum is long and needs long double.
inline constexpr uint32_t kSplitDirectMaxK = 12;

// The terms of fpr_split for one k, computed once per k, on first use: phi(S) and the sign of
// each subset S of the query's k words. For k > kSplitDirectMaxK they are grouped: phi(S)
// depends only on how many of S's words each of the 16 windows holds, so the 2^k subsets fall
// into a few hundred classes, one term each, weighted by the class's signed count (+1 per even
// subset, -1 per odd one). An evaluation then costs a few hundred exps instead of 65536 at k = 16
// (a split filter with k = 16 took tens of milliseconds to plan), and equal terms cancel exactly,
// in integers, before any rounding. Per k, because grouping k = 13..16 walks 2^13..2^16 subsets
// (20 ms in all): a process that plans only k = 7 pays for 128.
struct SplitTerms {
  std::vector<long double> phi;
  std::vector<long double> weight;  // +1 or -1 per subset up to kSplitDirectMaxK
  explicit SplitTerms(uint32_t k) {
    // q^i for i = 0..16, q = 31/32: the probability that i keys covering a word all miss a bit.
    std::array<long double, kSplitWords + 1> q_pow{};
    q_pow[0] = 1;
    for (uint32_t i = 1; i <= kSplitWords; ++i) q_pow[i] = q_pow[i - 1] * (31.0L / 32.0L);
    const uint32_t sets = uint32_t{1} << k;
    const uint32_t need = sets - 1;
    // A class: how many windows hold 0, 1, ..., 16 of S's words.
    std::map<std::array<uint8_t, kSplitWords + 1>, int64_t> classes;
    for (uint32_t set = 0; set < sets; ++set) {
      std::array<uint8_t, kSplitWords + 1> histogram{};
      long double sum = 0;
      for (uint32_t s = 0; s < kSplitWords; ++s) {
        const uint32_t window = ((need << s) | (need >> (kSplitWords - s))) & 0xFFFF;
        const int in_window = std::popcount(window & set);
        sum += q_pow[in_window];
        ++histogram[in_window];
      }
      const int sign = std::popcount(set) % 2 == 1 ? -1 : 1;
      if (k <= kSplitDirectMaxK) {
        phi.push_back(sum / kSplitWords);
        weight.push_back(sign);
      } else {
        classes[histogram] += sign;
      }
    }
    for (const auto& [histogram, count] : classes) {
      if (count == 0) continue;
      long double sum = 0;
      for (uint32_t i = 0; i <= kSplitWords; ++i) sum += histogram[i] * q_pow[i];
      phi.push_back(sum / kSplitWords);
      weight.push_back(static_cast<long double>(count));
    }
  }
};

// k in 1..kSplitMaxK.
const SplitTerms& split_terms(uint32_t k) {
  static std::array<std::once_flag, kSplitMaxK + 1> once;  // thread-safe initialisation
  static std::array<std::optional<SplitTerms>, kSplitMaxK + 1> terms;
  std::call_once(once[k], [k] { terms[k].emplace(k); });
  return *terms[k];
}

// make_plan for a validated request, without the memo.
Errc compute_plan(const SizingRequest& req, Plan* out) {
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

}  // namespace

double fpr_split(double c, uint32_t k) noexcept {
  if (!(c > 0) || k == 0 || k > kSplitMaxK) return 1.0;
  const SplitTerms& t = split_terms(k);
  // The terms alternate in sign and are up to 1 each while the sum may be 1e-7: the cancellation
  // leaves an absolute error near 2^k times the rounding unit. In double that is below 1e-12 up
  // to k = 12 (FPRs of 1e-5 and more there); above, the sum is taken in long double (a 64-bit
  // mantissa on x86-64: near 1e-15 at k = 16), which costs about 10x per term.
  auto sum_terms = [&](auto zero) {
    using Real = decltype(zero);
    const Real lam = static_cast<Real>(kBlockBits / c);
    Real sum = 0;
    for (size_t c = 0; c < t.phi.size(); ++c) {
      const Real term = std::exp(-lam * (1 - static_cast<Real>(t.phi[c])));
      if constexpr (std::is_same_v<Real, double>) {
        sum += t.weight[c] < 0 ? -term : term;  // one subset each: as files were written
      } else {
        sum += static_cast<Real>(t.weight[c]) * term;
      }
    }
    return static_cast<double>(sum);
  };
  const double fpr = k <= kSplitDirectMaxK ? sum_terms(0.0) : sum_terms(0.0L);
  return fpr < 0 ? 0 : (fpr > 1 ? 1 : fpr);
}

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
  // The sum of a probability mixture: rounding can carry it just past 1 when every block is
  // saturated (1 + 1e-13 at 0.02 bits per key), and an FPR above 1 is a value no reader accepts.
  return sum < 1 ? sum : 1;
}

double fpr_model(Kind kind, Layout layout, double c, uint32_t k) noexcept {
  double fpr;
  if (kind == Kind::classic) {
    fpr = fpr_classic(c, k);
  } else {
    fpr = layout == Layout::split ? fpr_split(c, k) : fpr_blocked(c, k);
  }
  // Every model is a probability: the file format stores it and its readers refuse anything
  // outside [0, 1] (format.cpp), so no writer may produce one.
  return fpr < 0 ? 0 : (fpr > 1 ? 1 : fpr);
}

uint32_t max_k(Kind kind, Layout layout) noexcept {
  return kind == Kind::blocked && layout == Layout::split ? kSplitMaxK : kMaxK;
}

uint32_t best_k_from(Kind kind, Layout layout, double c, uint32_t start) noexcept {
  double fpr;
  return best_k_and_fpr(kind, layout, c, start, &fpr);
}

uint32_t best_k(Kind kind, Layout layout, double c) noexcept {
  return best_k_from(kind, layout, c, classic_k(kind, layout, c));
}

Errc make_plan(const SizingRequest& req, Plan* out) noexcept {
  if (req.kind != Kind::blocked && req.kind != Kind::classic) return Errc::invalid;
  if (req.layout != Layout::distinct && req.layout != Layout::split) return Errc::invalid;
  if (req.kind == Kind::classic && req.layout != Layout::distinct) return Errc::invalid;
  if (req.capacity == 0) return Errc::invalid;
  if (req.k > max_k(req.kind, req.layout)) return Errc::invalid;
  if (req.shards != 0 && (req.shards > kMaxShards || !std::has_single_bit(req.shards))) {
    return Errc::invalid;
  }
  if (req.bits == 0 && !(req.fpr > 0.0 && req.fpr < 1.0)) return Errc::invalid;  // NaN too

  // A plan is a pure function of its request, and programs make many filters of one shape (a
  // Spark aggregate one per group and partition, a service one per batch): each thread keeps its
  // last few plans, so that those cost a comparison instead of a model search (tens to hundreds
  // of microseconds).
  struct Memo {
    SizingRequest req;
    Plan plan;
  };
  thread_local std::array<Memo, 8> memo{};
  thread_local uint32_t memo_used = 0, memo_next = 0;
  const auto same = [&](const SizingRequest& a) {
    return a.kind == req.kind && a.layout == req.layout && a.capacity == req.capacity &&
           std::bit_cast<uint64_t>(a.fpr) == std::bit_cast<uint64_t>(req.fpr) &&
           a.shards == req.shards && a.bits == req.bits && a.k == req.k;
  };
  for (uint32_t i = 0; i < memo_used; ++i) {
    if (same(memo[i].req)) {
      *out = memo[i].plan;
      return Errc::ok;
    }
  }
  Plan plan;
  if (Errc e = compute_plan(req, &plan); e != Errc::ok) return e;
  memo[memo_next] = Memo{req, plan};
  memo_next = (memo_next + 1) % memo.size();
  if (memo_used < memo.size()) ++memo_used;
  *out = plan;
  return Errc::ok;
}

Layout default_layout(const SizingRequest& req) noexcept {
  if (req.kind != Kind::blocked || req.k > kSplitMaxK) return Layout::distinct;
  if (req.k != 0) return Layout::split;
  SizingRequest distinct = req;
  distinct.layout = Layout::distinct;
  Plan plan;
  if (make_plan(distinct, &plan) != Errc::ok) return Layout::distinct;
  return plan.k <= kSplitMaxK ? Layout::split : Layout::distinct;
}

}  // namespace abloom
