#include "isa.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "blocked_kernels.hpp"

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

#if defined(__x86_64__)
// The AVX-512 variant for this CPU: vpconflictd for the repeat check, except on Intel cores,
// where it is microcoded and the packed compare replaces it (blocked_avx512_kernel.hpp).
const BlockedKernels* avx512_variant() noexcept {
  if (cpu_features().intel) return kBlockedAvx512Packed;
  return kBlockedAvx512;
}
#endif

// Every other value (another architecture's set, never supported here: detect(), isa_runs())
// falls through to the scalar table.
const BlockedKernels* table_of(Isa isa) noexcept {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::avx512:
      return avx512_variant();
    case Isa::avx2:
      return kBlockedAvx2;
    case Isa::neon:
#elif defined(__aarch64__)
    case Isa::neon:
      return kBlockedNeon;
    case Isa::avx512:
    case Isa::avx2:
#else
    case Isa::avx512:
    case Isa::avx2:
    case Isa::neon:
#endif
    case Isa::scalar:
      break;
  }
  return kBlockedScalar;
}

// ABLOOM_ISA's value as a word: surrounding blanks dropped, ASCII letters lower-cased (not
// tolower: locale-dependent). A value too long for any known name becomes "?" (unknown).
struct EnvWord {
  char text[24];
  explicit EnvWord(const char* raw) noexcept {
    while (*raw == ' ' || *raw == '\t') ++raw;
    size_t n = 0;
    for (; raw[n] != '\0'; ++n) {
      if (n + 1 == sizeof text) {
        std::strcpy(text, "?");
        return;
      }
      const char c = raw[n];
      text[n] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    }
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n')) --n;
    text[n] = '\0';
  }
};

const BlockedKernels* initial() noexcept {
  const Isa best = isa_supported();
  Isa want = best;
  // getenv is read once, here. Any case is accepted; a value we cannot parse is ignored (the best
  // kernel runs, as with "auto") rather than failing calls, which have no way to report it.
  // NOLINTNEXTLINE(concurrency-mt-unsafe): only racy against setenv, which abloom never calls
  if (const char* raw = std::getenv("ABLOOM_ISA"); raw != nullptr) {
    const EnvWord word(raw);
    const char* env = word.text;
#if defined(__x86_64__)
    // The AVX-512 kernel with a given repeat check, whatever the vendor, to measure both on one
    // CPU (avx512_variant() picks one per vendor). On a CPU without AVX-512: as "avx512".
    if (best == Isa::avx512 && std::strcmp(env, "avx512-conflict") == 0) return kBlockedAvx512;
    if (best == Isa::avx512 && std::strcmp(env, "avx512-packed") == 0) {
      return kBlockedAvx512Packed;
    }
    if (std::strcmp(env, "avx512-conflict") == 0 || std::strcmp(env, "avx512-packed") == 0) {
      env = "avx512";
    }
#endif
    Isa asked;
    if (isa_parse(env, best, &asked)) want = isa_capped(asked, best);
  }
  return table_of(want);
}

}  // namespace

Isa isa_supported() noexcept {
  static const Isa best = detect();
  return best;
}

namespace detail {

// Each entry chooses the tables, then makes the call it stands for on the table of its layout.
template <size_t kLayout>
constexpr BlockedKernels first_use_table(Layout layout) noexcept {
  return BlockedKernels{
      Isa::scalar,  // never read: isa_active() chooses first
      "first use",
      layout,
      [](const uint64_t* b, uint64_t h, uint32_t k) noexcept {
        return init_kernels()[kLayout].test(b, h, k);
      },
      [](uint64_t* b, uint64_t h, uint32_t k) noexcept {
        return init_kernels()[kLayout].add(b, h, k);
      },
      [](uint64_t* b, uint64_t h, uint32_t k) noexcept {
        return init_kernels()[kLayout].add_exclusive(b, h, k);
      },
      [](const BlockedView& v, const void* key, size_t len) noexcept {
        return init_kernels()[kLayout].test_key(v, key, len);
      },
      [](const BlockedView& v, const void* key, size_t len) noexcept {
        return init_kernels()[kLayout].add_key(v, key, len);
      },
      [](const BlockedView& v, const void* key, size_t len) noexcept {
        return init_kernels()[kLayout].add_key_exclusive(v, key, len);
      },
      [](const BlockedView& v, const KeySource& keys, size_t n, uint8_t* results) noexcept {
        return init_kernels()[kLayout].test_many(v, keys, n, results);
      },
      [](const BlockedView& v, const KeySource& keys, size_t n, WriterMode mode) noexcept {
        return init_kernels()[kLayout].add_many(v, keys, n, mode);
      }};
}

const BlockedKernels kBlockedFirstUse[kLayouts] = {first_use_table<0>(Layout::distinct),
                                                   first_use_table<1>(Layout::split)};

// kBlockedFirstUse until the first call reads the CPU and ABLOOM_ISA. Two threads racing to
// initialise compute the same answer; one forced by isa_force() in between wins over the initial
// choice.
std::atomic<const BlockedKernels*> active_kernels{kBlockedFirstUse};

const BlockedKernels* init_kernels() noexcept {
  const BlockedKernels* expected = kBlockedFirstUse;
  const BlockedKernels* k = initial();
  if (!active_kernels.compare_exchange_strong(expected, k, std::memory_order_acq_rel)) k = expected;
  return k;
}

}  // namespace detail

const BlockedKernels* blocked_kernels_for(Isa isa) noexcept {
  if (!isa_runs(isa, isa_supported())) return nullptr;
  return table_of(isa);
}

std::vector<const BlockedKernels*> blocked_kernels_runnable() {
  std::vector<const BlockedKernels*> out{kBlockedScalar};
#if defined(__x86_64__)
  if (isa_runs(Isa::avx2, isa_supported())) out.push_back(kBlockedAvx2);
  if (isa_runs(Isa::avx512, isa_supported())) {
    out.push_back(kBlockedAvx512);
    out.push_back(kBlockedAvx512Packed);
  }
#elif defined(__aarch64__)
  if (isa_runs(Isa::neon, isa_supported())) out.push_back(kBlockedNeon);
#endif
  return out;
}

Isa isa_active() noexcept {
  const BlockedKernels* k = detail::active_kernels.load(std::memory_order_acquire);
  return (k == detail::kBlockedFirstUse ? detail::init_kernels() : k)->isa;
}

Errc isa_force(Isa isa) noexcept {
  if (static_cast<uint32_t>(isa) > static_cast<uint32_t>(kIsaMax)) return Errc::invalid;
  const BlockedKernels* k = blocked_kernels_for(isa);
  if (k == nullptr) return Errc::unsupported;
  detail::active_kernels.store(k, std::memory_order_release);
  return Errc::ok;
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
