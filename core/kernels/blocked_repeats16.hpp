// The packed repeat check, shared by the AVX2 kernel (blocked_avx2.cpp) and the AVX-512 kernel's
// variant for Intel cores (blocked_avx512_kernel.hpp): candidates are 9-bit values, so 16 of them
// fit one 256-bit register as 16-bit lanes, and comparing it with its rotations compares every
// pair. The including file provides the AVX2 intrinsics (native, or SIMDe's in the emulated test
// build) and defines ABLOOM_REPEATS_FN, the attributes of the function here (a target
// attribute, or nothing). It is `inline` in an unnamed namespace: each including file gets its
// own copy, compiled for its own instruction set.
#pragma once

namespace abloom {
namespace {

// Lanes equal to another lane of the 16 16-bit lanes of v: v against its rotations by 1 to 8
// lanes (every pair of lanes is 1 to 8 apart around the circle). A rotation across the two
// 128-bit halves is one vpalignr of the register and its halves swapped (w).
ABLOOM_REPEATS_FN inline __m256i repeats16(__m256i v) noexcept {
  const __m256i w = _mm256_permute4x64_epi64(v, 0x4E);
  __m256i eq = _mm256_cmpeq_epi16(v, w);
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(v, _mm256_alignr_epi8(w, v, 2)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(v, _mm256_alignr_epi8(w, v, 4)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(v, _mm256_alignr_epi8(w, v, 6)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(v, _mm256_alignr_epi8(w, v, 8)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(v, _mm256_alignr_epi8(w, v, 10)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(v, _mm256_alignr_epi8(w, v, 12)));
  return _mm256_or_si256(eq, _mm256_cmpeq_epi16(v, _mm256_alignr_epi8(w, v, 14)));
}

}  // namespace
}  // namespace abloom
