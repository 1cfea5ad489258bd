// Double-double arithmetic and the few elementary functions the model needs (exp, expm1, log,
// log1p, whole powers), in plain IEEE binary64 operations (+ - * /, floor, frexp, ldexp: each
// exactly specified by IEEE 754 and C, so the same on every conforming machine), for the values
// that files store (docs/FORMAT.md: the expected FPR, the inserted-key estimate). libm's functions
// are not specified to the last bit: glibc, musl, Apple and MSVC round differently (musl's exp,
// log and pow gave other model FPRs than glibc's, and glibc's expm1 is not always correctly
// rounded). long double is a different type on every platform (80-bit x87, binary128, or double).
// A stored double computed with either is not the same everywhere.
//
// The functions that return a double round a double-double result of relative error near 2^-94
// or better: the correctly rounded value except within about that distance of a midpoint between
// two doubles, and in every case the same bits on every machine.
//
// A double-double is an unevaluated sum hi + lo with |lo| <= ulp(hi) / 2: about 106 bits. Products
// use Dekker's splitting rather than std::fma: fma is exact everywhere, but where the CPU has
// none it is a slow software routine, and Dekker's partial products are exact in any case.
//
// Every operation here must be rounded as written: a multiply-add fused into one rounding (which
// compilers do by default on aarch64, GCC in its GNU modes and clang everywhere) breaks the error
// terms: no_fp_contract.hpp says so to every build.
#pragma once

#include <cmath>
#include <cstdint>

#include "model/no_fp_contract.hpp"

namespace abloom::dd {

struct DD {
  double hi = 0;
  double lo = 0;
};

// a + b = s + e exactly (Knuth's TwoSum: any order of magnitudes).
inline DD two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// The same when |a| >= |b| (or a == 0).
inline DD fast_two_sum(double a, double b) noexcept {
  const double s = a + b;
  return {s, b - (s - a)};
}

// a * b = p + e exactly (Dekker): a and b split into 26-bit halves whose products are exact.
// Valid for |a|, |b| below 2^996 (the model's values are far smaller).
inline DD two_prod(double a, double b) noexcept {
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double ca = kSplit * a, cb = kSplit * b;
  const double ah = ca - (ca - a), al = a - ah;
  const double bh = cb - (cb - b), bl = b - bh;
  const double p = a * b;
  return {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

inline DD add(DD x, DD y) noexcept {
  DD s = two_sum(x.hi, y.hi);
  const DD t = two_sum(x.lo, y.lo);
  s.lo += t.hi;
  s = fast_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return fast_two_sum(s.hi, s.lo);
}

inline DD neg(DD x) noexcept { return {-x.hi, -x.lo}; }

inline DD mul(DD x, DD y) noexcept {
  DD p = two_prod(x.hi, y.hi);
  p.lo += x.hi * y.lo + x.lo * y.hi;
  return fast_two_sum(p.hi, p.lo);
}

inline DD mul(DD x, double d) noexcept {
  DD p = two_prod(x.hi, d);
  p.lo += x.lo * d;
  return fast_two_sum(p.hi, p.lo);
}

// x / y: three quotient digits, each from the remainder of the last (relative error near 2^-104).
inline DD div(DD x, DD y) noexcept {
  const double q1 = x.hi / y.hi;
  DD r = add(x, neg(mul(y, q1)));
  const double q2 = r.hi / y.hi;
  r = add(r, neg(mul(y, q2)));
  const double q3 = r.hi / y.hi;
  return add(fast_two_sum(q1, q2), DD{q3, 0});
}

// x * 2^e, exactly (both parts are scaled by a power of two; ldexp rounds only a subnormal).
inline DD scale(DD x, int e) noexcept { return {std::ldexp(x.hi, e), std::ldexp(x.lo, e)}; }

// 1/j as a double-double: hi = fl(1/j), lo = (1 - j hi) / j, where 1 - j hi is exact.
inline DD reciprocal(double j) noexcept {
  const double hi = 1 / j;
  const DD jh = two_prod(j, hi);
  return {hi, ((1 - jh.hi) - jh.lo) / j};
}

// e^y - 1 for |y| <= 2^-10, relative error near 2^-104: Taylor's series to the 9th term (the rest
// is below 2^-111 of the sum).
inline DD expm1_series(DD y) noexcept {
  DD acc{1, 0};  // Horner: y (1 + y/2 (1 + y/3 (1 + ... (1 + y/9))))
  for (int j = 9; j >= 2; --j) acc = add(DD{1, 0}, mul(mul(y, reciprocal(j)), acc));
  return mul(y, acc);
}

// e^x - 1 for |x| <= 1/2, relative error near 2^-104, slowly: the series on x / 2^10, then ten
// doublings e^2y - 1 = (e^y - 1)(e^y + 1), which keep the relative error of a small result. Only
// builds exp's table, once.
inline DD expm1_slow(DD x) noexcept {
  constexpr int kHalvings = 10;
  DD e = expm1_series(scale(x, -kHalvings));
  for (int i = 0; i < kHalvings; ++i) e = mul(e, add(e, DD{2, 0}));
  return e;
}

// exp's constants: e^(j/512) for |j| <= kExpTableHalf (|x| <= ln(2) / 2 after the reduction by
// powers of two), and 1/j! for the series, as double-doubles. Computed once, by the operations
// above, so they are the same everywhere (no decimal constant to get wrong).
inline constexpr int kExpTableHalf = 178;  // ceil(512 ln(2) / 2)
struct ExpTable {
  DD e[2 * kExpTableHalf + 1];
  DD inv_factorial[5];
  ExpTable() noexcept {
    for (int j = -kExpTableHalf; j <= kExpTableHalf; ++j) {
      e[j + kExpTableHalf] = add(expm1_slow(DD{j / 512.0, 0}), DD{1, 0});
    }
    double factorial = 1;
    for (int j = 1; j <= 4; ++j) {
      factorial *= j;
      inv_factorial[j] = reciprocal(factorial);
    }
  }
};
inline const ExpTable& exp_table() noexcept {
  static const ExpTable table;  // thread-safe initialisation
  return table;
}

// e^x for a double-double x, relative error near 2^-104 (a few units of 2^-106 from the
// reduction, the table and the series), 0 below -746 (where e^x is below half the smallest
// subnormal). Results below 2^-968 lose precision in lo (subnormal): the model never stores one.
inline DD exp(DD x) noexcept {
  if (x.hi < -746) return {0, 0};
  if (x.hi > 710) return {HUGE_VAL, 0};
  // x = n ln 2 + j/512 + r, |j| <= 178, |r| <= 1/1024 (plus rounding): ln 2 to 2^-159 in three
  // doubles, the first two with trailing zeros so that n times them is exact for |n| < 2^11.
  constexpr double kLn2A = 0x1.62e42fefa3800p-1;
  constexpr double kLn2B = 0x1.ef35793c76000p-45;
  constexpr double kLn2C = 0x1.cc01f97b57a08p-87;
  const double n = std::floor(x.hi * 0x1.71547652b82fep0 + 0.5);  // round(x / ln 2)
  DD r = add(x, DD{-n * kLn2A, 0});
  r = add(r, DD{-n * kLn2B, 0});
  r = add(r, neg(two_prod(n, kLn2C)));
  double j = std::floor(r.hi * 512 + 0.5);
  j = j < -kExpTableHalf ? -kExpTableHalf : (j > kExpTableHalf ? kExpTableHalf : j);
  r = add(r, DD{-j / 512, 0});  // exact: j/512 is a short double near r
  // e^r - 1 = r (1 + r/2! + r^2/3! + ...): the terms from r^5/5! on are below 2^-56 of the sum,
  // so doubles (from r's hi) carry them; the first four in double-double.
  const ExpTable& t = exp_table();
  const double h = r.hi;
  DD p{(1.0 / 120) + h * ((1.0 / 720) + h * ((1.0 / 5040) + h * (1.0 / 40320))), 0};
  for (int i = 4; i >= 1; --i) p = add(t.inv_factorial[i], mul(r, p));
  const DD table = t.e[static_cast<int>(j) + kExpTableHalf];
  const DD e = add(table, mul(table, mul(r, p)));
  return scale(e, static_cast<int>(n));
}

// e^x rounded to a double: the double-double's hi, which is the nearest double to hi + lo. Equal
// to the correctly rounded e^x except where e^x lies within about 2^-100 (relative) of a midpoint
// between two doubles: what a correctly rounding libm returns, on every machine.
inline double exp(double x) noexcept { return exp(DD{x, 0}).hi; }

// e^x - 1, relative error near 2^-94: the series where |x| < 2^-10, else exp(x) - 1, whose
// absolute error (2^-104 of e^x) is at most 2^-94 of the result there.
inline DD expm1(DD x) noexcept {
  return x.hi > -0x1p-10 && x.hi < 0x1p-10 ? expm1_series(x) : add(exp(x), DD{-1, 0});
}
inline double expm1(double x) noexcept { return expm1(DD{x, 0}).hi; }

// ln x from x as a double-double and x - 1 (both exact, so that ln stays exact near 1), for x in
// [2^-900, 2^900] (where e^-y0 below is far from subnormal; the model's are within [2^-60, 2^60]):
// absolute error near 2^-104, relative where |ln x| < 2^-10. A first
// guess y0 in doubles (the exponent times ln 2, and atanh's series on the mantissa:
// 2 atanh(s) = ln((1 + s)/(1 - s))), then one Newton step in double-double:
// ln x = y0 + ln(1 + d), d = x e^-y0 - 1, computed near 1 as ((x - 1) - (e^y0 - 1)) / e^y0 so
// that it stays exact there. |d| < 2^-48, so ln(1 + d) = d - d^2/2 to 2^-144.
inline DD log_newton(DD x, DD x_minus_1) noexcept {
  int e = 0;
  double m = std::frexp(x.hi, &e);  // x.hi = m 2^e, m in [1/2, 1)
  if (m < 0x1.6a09e667f3bcdp-1) {   // 1/sqrt(2): m in [1/sqrt(2), sqrt(2)), |s| < 0.172
    m *= 2;
    --e;
  }
  const double s = (m - 1) / (m + 1);
  const double s2 = s * s;
  double series = 1.0 / 25;  // 1 + s^2/3 + s^4/5 + ... + s^24/25: the rest is below 2^-61
  for (int j = 23; j >= 1; j -= 2) series = 1.0 / j + s2 * series;
  const double y0 = e * 0x1.62e42fefa39efp-1 + 2 * s * series;
  DD d;
  if (y0 > -0x1p-10 && y0 < 0x1p-10) {
    const DD em = expm1_series(DD{y0, 0});
    d = div(add(x_minus_1, neg(em)), add(em, DD{1, 0}));
  } else {
    d = add(mul(x, exp(DD{-y0, 0})), DD{-1, 0});
  }
  return add(DD{y0, 0}, add(d, neg(scale(mul(d, d), -1))));
}

// ln x for x in [2^-900, 2^900].
inline DD log(double x) noexcept { return log_newton(DD{x, 0}, two_sum(x, -1)); }

// ln(1 + y) for y > -1 (1 + y normal): exact near 0, as ln(1 + y) ~ y there.
inline DD log1p(double y) noexcept { return log_newton(two_sum(1, y), DD{y, 0}); }

// x^k for a whole k, by squaring in double-double (relative error near 2^-100 for k <= 64).
inline DD pow(DD base, uint32_t k) noexcept {
  DD result{1, 0};
  while (k != 0) {
    if (k & 1) result = mul(result, base);
    k >>= 1;
    if (k != 0) base = mul(base, base);
  }
  return result;
}
inline DD pow(double x, uint32_t k) noexcept { return pow(DD{x, 0}, k); }

}  // namespace abloom::dd
