#include "kernels/isa.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <cstring>
#include <initializer_list>

namespace abloom {
namespace {

#if defined(__x86_64__)
// The CPU's features, read with CPUID and XGETBV here rather than with __builtin_cpu_supports,
// whose data (__cpu_model) lives in libgcc or compiler-rt: zig's runtime, which the macOS, musl
// and glibc 2.17 builds link (scripts/platform-builds.sh), has none. The same checks as GCC's:
// the instructions' CPUID bits, and the OS saving the YMM (AVX2) or ZMM and mask (AVX-512)
// registers, which XCR0 says. (macOS turns AVX-512 state on only at a thread's first use, so
// there XCR0 may say no and the AVX2 kernel runs: slower, same bits.)
struct CpuFeatures {
  bool avx2 = false;    // AVX2 and BMI2, with YMM state
  bool avx512 = false;  // AVX2 and AVX-512 F and CD, with ZMM and mask state
  bool intel = false;   // vendor GenuineIntel
};

CpuFeatures cpu_features() noexcept {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return f;
  const unsigned max_leaf = a;
  f.intel = b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu;  // "GenuineIntel"
  if (max_leaf < 7) return f;
  __cpuid(1, a, b, c, d);
  const bool osxsave = (c & (1u << 27)) != 0, avx = (c & (1u << 28)) != 0;
  if (!osxsave || !avx) return f;
  unsigned xcr0 = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  const bool ymm = (xcr0 & 0x06u) == 0x06u;  // SSE and AVX state
  const bool zmm = (xcr0 & 0xe6u) == 0xe6u;  // and opmask, ZMM0-15 upper halves, ZMM16-31
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = ymm && (b & (1u << 5)) != 0 && (b & (1u << 8)) != 0;                // AVX2, BMI2
  f.avx512 = f.avx2 && zmm && (b & (1u << 16)) != 0 && (b & (1u << 28)) != 0;  // F, CD
  return f;
}
#endif

Isa detect() noexcept {
#if defined(__x86_64__)
  const CpuFeatures f = cpu_features();
  if (f.avx512) return Isa::avx512;
  if (f.avx2) return Isa::avx2;
#elif defined(__aarch64__)
  return Isa::neon;  // Advanced SIMD is part of the AArch64 base architecture
#endif
  return Isa::scalar;
}

}  // namespace

Isa isa_supported() noexcept {
  static const Isa best = detect();
  return best;
}

bool cpu_is_intel() noexcept {
#if defined(__x86_64__)
  return cpu_features().intel;
#else
  return false;
#endif
}

const char* isa_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::scalar:
      return "scalar";
    case Isa::avx2:
      return "avx2";
    case Isa::avx512:
      return "avx512";
    case Isa::neon:
      return "neon";
  }
  return "unknown";
}

bool isa_parse(const char* text, Isa best, Isa* out) noexcept {
  if (text[0] == '\0' || std::strcmp(text, "auto") == 0 || std::strcmp(text, "native") == 0) {
    *out = best;
    return true;
  }
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::neon}) {
    if (std::strcmp(text, isa_name(isa)) == 0) {
      *out = isa;
      return true;
    }
  }
  return false;
}

}  // namespace abloom
