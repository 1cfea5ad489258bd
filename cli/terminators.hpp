// Record terminators (newline or NUL) in a buffer: found one by one for the reader, counted for
// build's first pass. Both scan with one SSE2 primitive, match32(); other machines use memchr and
// std::count.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace abloom_cli {

#if defined(__SSE2__)
// The 32 bytes at p compared with the terminator: each byte 0xff where it is one, 0 elsewhere,
// in two halves. The finder turns them into a bit mask, the counter adds them up.
struct Match32 {
  __m128i lo;
  __m128i hi;
};
inline Match32 match32(const char* p, __m128i delims) {
  const auto* v = reinterpret_cast<const __m128i*>(p);
  return {_mm_cmpeq_epi8(_mm_loadu_si128(v), delims),
          _mm_cmpeq_epi8(_mm_loadu_si128(v + 1), delims)};
}
#endif

// The terminators in [from, end), in order. memchr costs a call and its set-up per record, as
// much as the rest of a short record's work; with SSE2 (every x86-64) 32 bytes become one bit
// mask, and each terminator costs a few instructions. Other machines use memchr.
class TerminatorFinder {
 public:
  TerminatorFinder(const char* from, const char* end, char delim)
      : next_(from), end_(end), delim_(delim) {}
  // The next terminator, or nullptr when [from, end) holds no more.
  const char* next() {
#if defined(__SSE2__)
    const __m128i delims = _mm_set1_epi8(delim_);
    while (mask_ == 0) {
      if (end_ - next_ < 32) return next_by_memchr();
      const Match32 m = match32(next_, delims);
      mask_ = static_cast<uint32_t>(_mm_movemask_epi8(m.lo)) |
              (static_cast<uint32_t>(_mm_movemask_epi8(m.hi)) << 16);
      next_ += 32;
    }
    const char* hit = next_ - 32 + std::countr_zero(mask_);
    mask_ &= mask_ - 1;
    return hit;
#else
    return next_by_memchr();
#endif
  }

 private:
  const char* next_by_memchr() {
    const char* hit = static_cast<const char*>(std::memchr(next_, delim_, end_ - next_));
    next_ = hit != nullptr ? hit + 1 : end_;
    return hit;
  }

  const char* next_;  // the first byte not looked at yet
  const char* end_;
  char delim_;
#if defined(__SSE2__)
  uint32_t mask_ = 0;  // the terminators found in the 32 bytes before next_ and not yet returned
#endif
};

// The bytes equal to `delim` in p[0, n): build's first pass, so about as cheap per byte as
// reading them. With SSE2, 32 bytes at a time: each match subtracts -1 from its lane's byte
// counter (two per lane per block, one from each half), and the counters are summed (psadbw)
// before any of them can wrap. Adding masks up with popcount instead would cost more: x86-64's
// baseline has no popcnt instruction.
inline size_t count_terminators(const char* p, size_t n, char delim) {
  size_t count = 0;
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i delims = _mm_set1_epi8(delim);
  const __m128i zero = _mm_setzero_si128();
  while (n - i >= 32) {
    // At most 2 * 127 = 254 per lane: no byte counter wraps.
    const size_t blocks = std::min<size_t>((n - i) / 32, 127);
    __m128i counters = zero;
    for (size_t b = 0; b < blocks; ++b, i += 32) {
      const Match32 m = match32(p + i, delims);
      counters = _mm_sub_epi8(_mm_sub_epi8(counters, m.lo), m.hi);
    }
    const __m128i sums = _mm_sad_epu8(counters, zero);
    // Two sums of at most 8 * 254 each: 32 bits hold them (and 32-bit x86 has no cvtsi128_si64).
    count += static_cast<uint32_t>(_mm_cvtsi128_si32(sums)) +
             static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
  }
#endif
  return count + static_cast<size_t>(std::count(p + i, p + n, delim));
}

}  // namespace abloom_cli
