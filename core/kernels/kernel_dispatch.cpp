// Which kernel table the blocked kind's calls use: the table of each instruction set (and the
// AVX-512 variant per vendor), the choice at first use from the CPU (isa.cpp) and ABLOOM_ISA, and
// the active-table pointer that isa_force() swaps. Apart from isa.cpp so that CPU detection knows
// nothing of the kernels: kernel_table.hpp includes isa.hpp, never the other way round.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "errc.hpp"
#include "kernels/blocked_view.hpp"
#include "kernels/isa.hpp"
#include "kernels/kernel_table.hpp"
#include "kernels/key_source.hpp"

namespace abloom {
namespace {

#if defined(__x86_64__)
// The AVX-512 variant for this CPU: vpconflictd for the repeat check, except on Intel cores,
// where it is microcoded and the packed compare replaces it (blocked_avx512_kernel.hpp).
const BlockedKernels* avx512_variant() noexcept {
  if (cpu_is_intel()) return kBlockedAvx512Packed;
  return kBlockedAvx512;
}
#endif

// Every other value (another architecture's set, never supported here: isa.cpp's detect(),
// isa_runs()) falls through to the scalar table.
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
      [](const BlockedView& v, const KeySource& keys, size_t n, WriterMode mode,
         NewKeys count) noexcept {
        return init_kernels()[kLayout].add_many(v, keys, n, mode, count);
      },
      [](const uint64_t* words, uint64_t blocks, uint16_t* out) noexcept {
        init_kernels()[kLayout].block_bits(words, blocks, out);
      },
      [](const uint64_t* words, uint64_t n, uint8_t* out) noexcept {
        init_kernels()[kLayout].half_word_bits(words, n, out);
      }};
}

const BlockedKernels kBlockedFirstUse[kLayouts] = {first_use_table<0>(Layout::distinct),
                                                   first_use_table<1>(Layout::split),
                                                   first_use_table<2>(Layout::half)};

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

}  // namespace abloom
