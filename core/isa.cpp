#include "isa.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "blocked_kernels.hpp"

namespace abloom {
namespace {

Isa detect() noexcept {
#if defined(__x86_64__)
  __builtin_cpu_init();
  // GCC's checks include the OS enabling the YMM (and, for AVX-512, the ZMM and mask) state
  // through XGETBV, not only the CPUID bits.
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd")) {
    return Isa::avx512;
  }
  if (avx2) return Isa::avx2;
#endif
  return Isa::scalar;
}

const BlockedKernels* table_of(Isa isa) noexcept {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::avx512:
      return &kBlockedAvx512;
    case Isa::avx2:
      return &kBlockedAvx2;
#else
    case Isa::avx512:
    case Isa::avx2:  // never supported off x86-64 (detect())
#endif
    case Isa::scalar:
      break;
  }
  return &kBlockedScalar;
}

const BlockedKernels* initial() noexcept {
  const Isa best = isa_supported();
  Isa want = best;
  // getenv is read once, here; a value we cannot parse is ignored rather than failing calls.
  // NOLINTNEXTLINE(concurrency-mt-unsafe): only racy against setenv, which abloom never calls
  if (const char* env = std::getenv("ABLOOM_ISA"); env != nullptr) {
    Isa asked;
    if (isa_parse(env, best, &asked)) want = asked < best ? asked : best;
  }
  return table_of(want);
}

}  // namespace

Isa isa_supported() noexcept {
  static const Isa best = detect();
  return best;
}

namespace detail {

// Null until the first call reads the CPU and ABLOOM_ISA. Two threads racing to initialise
// compute the same answer; one forced by isa_force() in between wins over the initial choice.
std::atomic<const BlockedKernels*> active_kernels{nullptr};

const BlockedKernels& init_kernels() noexcept {
  const BlockedKernels* expected = nullptr;
  const BlockedKernels* k = initial();
  if (!active_kernels.compare_exchange_strong(expected, k, std::memory_order_acq_rel)) k = expected;
  return *k;
}

}  // namespace detail

const BlockedKernels* blocked_kernels_for(Isa isa) noexcept {
  if (static_cast<uint32_t>(isa) > static_cast<uint32_t>(isa_supported())) return nullptr;
  return table_of(isa);
}

Isa isa_active() noexcept { return blocked_kernels().isa; }

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
  }
  return "unknown";
}

bool isa_parse(const char* text, Isa best, Isa* out) noexcept {
  if (text[0] == '\0' || std::strcmp(text, "auto") == 0 || std::strcmp(text, "native") == 0) {
    *out = best;
    return true;
  }
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512}) {
    if (std::strcmp(text, isa_name(isa)) == 0) {
      *out = isa;
      return true;
    }
  }
  return false;
}

}  // namespace abloom
