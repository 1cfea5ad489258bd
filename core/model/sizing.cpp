#include "model/sizing.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

// The doubles computed here go into files: no fused multiply-add (see there).
#include "model/ddmath.hpp"
#include "model/no_fp_contract.hpp"

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

// best_k's start: the classic optimum c ln 2, within [1, max_k]; the half layout's only k.
uint32_t classic_k(Kind kind, Layout layout, double c) noexcept {
  if (kind == Kind::blocked && layout == Layout::half) return kHalfK;
  const double guess = std::round(c * 0.6931471805599453);
  const uint32_t top = max_k(kind, layout);
  return !(guess >= 1) ? 1 : (guess > top ? top : static_cast<uint32_t>(guess));
}

// best_k_from, also giving the model FPR at that k (the last evaluation of its walk), from the
// start's FPR (which its caller has computed).
uint32_t best_k_and_fpr(Kind kind, Layout layout, double c, uint32_t start, double f_start,
                        double* fpr) noexcept {
  // The model FPR is unimodal in k: walk downhill from the start.
  const uint32_t top = max_k(kind, layout);
  uint32_t k = start;
  double f = f_start;
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
    auto start_at = [&](double c) { return k_near ? k_near : classic_k(req.kind, req.layout, c); };
    auto fpr_at = [&](double c) {
      if (req.k) return fpr_model(req.kind, req.layout, c, req.k);
      const uint32_t start = start_at(c);
      double fpr;
      k_near = best_k_and_fpr(req.kind, req.layout, c, start,
                              fpr_model(req.kind, req.layout, c, start), &fpr);
      return fpr;  // the walk's last evaluation: the FPR at k_near
    };
    // A size meets the target when its best k does. Where the start (the last walk's k, for a
    // nearby size) already meets it, so does the best k, whose FPR is no higher: no walk (a walk
    // costs two or more evaluations, and the bisection's sizes meet it about half the time).
    auto meets = [&](uint64_t b) {
      const double c = bits_per_key(b, shards, n);
      if (req.k) return fpr_model(req.kind, req.layout, c, req.k) <= req.fpr;
      const uint32_t start = start_at(c);
      const double f_start = fpr_model(req.kind, req.layout, c, start);
      if (f_start <= req.fpr) return true;
      double fpr;
      k_near = best_k_and_fpr(req.kind, req.layout, c, start, f_start, &fpr);
      return fpr <= req.fpr;
    };
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

// The Poisson probability of `mode` (a whole number) at mean lam. Directly below 32, where
// lam^mode and mode! are far from overflow, in double-double; beyond, as the exponential of its
// logarithm, with Stirling's series for ln(mode!) (std::lgamma writes the global signgam, so it is
// not thread-safe; error below 1e-13).
double poisson_pmf(double lam, double mode) {
  if (mode < 32) {
    dd::DD factorial{1, 0};
    for (double j = 2; j <= mode; ++j) factorial = dd::mul(factorial, j);
    const dd::DD power = dd::pow(lam, static_cast<uint32_t>(mode));
    return dd::div(dd::mul(dd::exp(dd::DD{-lam, 0}), power), factorial).hi;
  }
  constexpr double kHalfLog2Pi = 0.91893853320467274178;
  const double inv = 1.0 / mode;
  const double log_mode = dd::log(mode).hi;
  const double log_factorial = mode * log_mode - mode + 0.5 * log_mode + kHalfLog2Pi +
                               inv * (1.0 / 12 - inv * inv * (1.0 / 360 - inv * inv / 1260));
  return dd::exp(-lam + mode * dd::log(lam).hi - log_factorial);
}

// The terms of fpr_split for one k, computed once per k, on first use. phi(S) is exact in
// integers: with n_s the words of S that window s holds, 16 * 32^16 * phi(S) =
// sum_s 31^n_s 32^(16 - n_s), below 2^84, so 1 - phi(S) = D(S) / 2^84 for a whole number D(S)
// (computed in 128 bits), the same on every machine.
//
// A term depends only on D(S), so the 2^k subsets fall into a few hundred classes, one term each,
// weighted by the class's signed count (+1 per even subset, -1 per odd one). An evaluation then
// costs a few hundred exps instead of 65536 at k = 16, and equal terms cancel exactly, in
// integers, before any rounding. Per k, because grouping k = 16 walks 2^16 subsets (milliseconds):
// a process that plans only k = 7 pays for 128.
struct SplitTerms {
  std::vector<dd::DD> d;       // per class, D exactly
  std::vector<double> weight;  // its signed count, a whole number below 2^16
  explicit SplitTerms(uint32_t k) {
    // 31^i 32^(16 - i) for i = 0..16: i keys covering a word all miss a bit with probability
    // (31/32)^i.
    std::array<unsigned __int128, kSplitWords + 1> scaled_q_pow{};
    unsigned __int128 pow31 = 1;
    for (uint32_t i = 0; i <= kSplitWords; ++i) {
      scaled_q_pow[i] = pow31 << (5 * (kSplitWords - i));
      pow31 *= 31;
    }
    const unsigned __int128 one = static_cast<unsigned __int128>(1) << 84;
    const uint32_t sets = uint32_t{1} << k;
    const uint32_t need = sets - 1;
    std::map<unsigned __int128, int64_t> classes;  // D -> signed count
    for (uint32_t set = 0; set < sets; ++set) {
      unsigned __int128 sum = 0;
      for (uint32_t s = 0; s < kSplitWords; ++s) {
        const uint32_t window = ((need << s) | (need >> (kSplitWords - s))) & 0xFFFF;
        sum += scaled_q_pow[std::popcount(window & set)];
      }
      classes[one - sum] += std::popcount(set) % 2 == 1 ? -1 : 1;
    }
    for (const auto& [d_exact, count] : classes) {
      if (count == 0) continue;
      // D below 2^84 as a double-double: its high and low 42 bits are exact doubles.
      const auto high = static_cast<double>(static_cast<uint64_t>(d_exact >> 42));
      const auto low =
          static_cast<double>(static_cast<uint64_t>(d_exact) & ((uint64_t{1} << 42) - 1));
      d.push_back(dd::two_sum(std::ldexp(high, 42), low));
      weight.push_back(static_cast<double>(count));
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
  const double lam = kBlockBits / c;
  // Up to 65536 subsets' worth of terms near 1 cancel down to 1e-7 or less: in double-double
  // (about 2^-104 per term) the absolute error stays below 1e-26, where a sum in double left up to
  // 1e-12 (and long double, whose precision differs by platform, 1e-15).
  dd::DD sum;
  for (size_t i = 0; i < t.d.size(); ++i) {
    const dd::DD x = dd::scale(dd::mul(t.d[i], lam), -84);  // lam (1 - phi), to 2^-105
    sum = dd::add(sum, dd::mul(dd::exp(dd::neg(x)), t.weight[i]));
  }
  const double fpr = sum.hi;  // the nearest double to hi + lo
  return fpr < 0 ? 0 : (fpr > 1 ? 1 : fpr);
}

double fpr_classic(double c, uint32_t k) noexcept {
  if (!(c > 0)) return 1.0;
  // In double-double throughout: k / c is the one rounding before the result's.
  return dd::pow(dd::neg(dd::expm1(dd::DD{-static_cast<double>(k) / c, 0})), k).hi;
}

namespace {

// sum_i Pois(i; lam) (1 - r^i)^k: the FPR of blocks (or halves) holding Poisson(lam) keys, where
// a bit a query looks at stays clear through each key with probability r, independently of its
// other bits. r^i is carried from term to term by one multiplication (by r going up, by 1/r going
// down) in double-double: an error near 2^-104 per step, and no exp or log per term.
double poisson_mixture(double lam, dd::DD r, uint32_t k) noexcept {
  const auto block_fpr = [k](dd::DD clear) {
    return dd::pow(dd::add(dd::DD{1, 0}, dd::neg(clear)), k).hi;
  };
  // Sum the Poisson mixture outward from the mode, with pmf recurrences, until the terms vanish.
  const double spread = 12.0 * std::sqrt(lam) + 40.0;
  const double mode = std::floor(lam);
  const double p_mode = poisson_pmf(lam, mode);
  const dd::DD clear_mode = dd::pow(r, static_cast<uint32_t>(mode));
  double sum = p_mode * block_fpr(clear_mode);
  double p = p_mode;
  dd::DD clear = clear_mode;
  for (double i = mode + 1; i <= lam + spread; ++i) {
    p *= lam / i;
    clear = dd::mul(clear, r);
    sum += p * block_fpr(clear);
  }
  p = p_mode;
  clear = clear_mode;
  const dd::DD r_inverse = dd::div(dd::DD{1, 0}, r);
  // Down to i - 1 = 1: an empty block (i - 1 = 0) answers no query.
  for (double i = mode; i >= 2 && i >= lam - spread; --i) {
    p *= i / lam;  // pmf(i - 1) = pmf(i) * i / lam
    clear = dd::mul(clear, r_inverse);
    sum += p * block_fpr(clear);
  }
  // The sum of a probability mixture: rounding can carry it just past 1 when every block is
  // saturated (1 + 1e-13 at 0.02 bits per key), and an FPR above 1 is a value no reader accepts.
  return sum < 1 ? sum : 1;
}

}  // namespace

double fpr_blocked(double c, uint32_t k) noexcept {
  if (!(c > 0)) return 1.0;
  const double lam = kBlockBits / c;  // mean keys per block
  // Beyond ~1e5 keys per block every block is saturated; the classic formula is as good there.
  if (lam > 1e5) return fpr_classic(c, k);
  // A block holding i keys: a bit stays clear through its i k probes with probability r^i,
  // r = (1 - 1/512)^k, and a foreign key's k probes all find set bits with (1 - r^i)^k.
  return poisson_mixture(lam, dd::pow(1 - 1.0 / kBlockBits, k), k);  // 1 - 1/512 is exact
}

double fpr_half(double c, uint32_t k) noexcept {
  if (!(c > 0) || k != kHalfK) return 1.0;
  // A half holding i keys (Poisson, mean 256 / c: a key's block, then its half, uniform): each
  // key set one bit of each of its 8 words, so a query's bit in a word stays clear with
  // probability (31/32)^i, independently of its other words (bench/JOURNAL.md, "Design study: the
  // half-block layout's FPR", measures the layout against this).
  const double lam = static_cast<double>(kBlockBits) / 2 / c;
  if (lam > 1e5) return 1.0;                                    // every half saturated
  return poisson_mixture(lam, dd::DD{31.0 / 32.0, 0}, kHalfK);  // 31/32 is exact
}

double fpr_model(Kind kind, Layout layout, double c, uint32_t k) noexcept {
  double fpr = 1.0;  // no such layout
  if (kind == Kind::classic) {
    fpr = fpr_classic(c, k);
  } else {
    switch (layout) {
      case Layout::split:
        fpr = fpr_split(c, k);
        break;
      case Layout::half:
        fpr = fpr_half(c, k);
        break;
      case Layout::distinct:
        fpr = fpr_blocked(c, k);
        break;
    }
  }
  // Every model is a probability: the file format stores it and its readers refuse anything
  // outside [0, 1] (format.cpp), so no writer may produce one.
  return fpr < 0 ? 0 : (fpr > 1 ? 1 : fpr);
}

uint32_t max_k(Kind kind, Layout layout) noexcept {
  if (kind != Kind::blocked) return kMaxK;
  return layout == Layout::split ? kSplitMaxK : (layout == Layout::half ? kHalfK : kMaxK);
}

uint32_t best_k_from(Kind kind, Layout layout, double c, uint32_t start) noexcept {
  if (kind == Kind::blocked && layout == Layout::half) return kHalfK;  // its only k
  const uint32_t top = max_k(kind, layout);
  start = start < 1 ? 1 : (start > top ? top : start);
  double fpr;
  return best_k_and_fpr(kind, layout, c, start, fpr_model(kind, layout, c, start), &fpr);
}

uint32_t best_k(Kind kind, Layout layout, double c) noexcept {
  return best_k_from(kind, layout, c, classic_k(kind, layout, c));
}

Errc check_kind_layout_shards(Kind kind, Layout layout, uint32_t shards) noexcept {
  if (kind != Kind::blocked && kind != Kind::classic) return Errc::invalid;
  if (layout != Layout::distinct && layout != Layout::split && layout != Layout::half) {
    return Errc::invalid;
  }
  if (kind == Kind::classic && layout != Layout::distinct) return Errc::invalid;
  if (shards != 0 && (shards > kMaxShards || !std::has_single_bit(shards))) return Errc::invalid;
  return Errc::ok;
}

Errc make_plan(const SizingRequest& req, Plan* out) noexcept {
  if (Errc e = check_kind_layout_shards(req.kind, req.layout, req.shards); e != Errc::ok) return e;
  if (req.capacity == 0) return Errc::invalid;
  if (req.k > max_k(req.kind, req.layout)) return Errc::invalid;
  if (req.layout == Layout::half && req.k != 0 && req.k != kHalfK) return Errc::invalid;
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
