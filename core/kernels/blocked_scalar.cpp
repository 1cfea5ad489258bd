// The blocked kind's scalar kernel: the reference the vector kernels must match bit for bit, and
// the path of CPUs without AVX2 (or of ABLOOM_ISA=scalar).
#include "kernels/blocked_scalar.hpp"

#include "kernels/kernel_table.hpp"
#include "kernels/probe_modes.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/layout.hpp"

namespace abloom {

bool blocked_test_scalar(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
  // The first k candidates all belong to the key's bits (its bits are the first k distinct
  // candidates), so one clear bit among them proves absence: one branch-free pass, no mask to
  // build, answers most absent keys. `folded` spots, in a register, whether two candidates might
  // be equal (equal bit position mod 64); only then are they compared exactly.
  const uint32_t h2 = probe_seed(h);
  uint64_t missing = 0, folded = 0, maybe_repeat = 0;
  for (uint32_t j = 1; j <= k; ++j) {
    const uint32_t c = candidate(h2, j);
    const uint64_t b = uint64_t{1} << (c & 63);
    missing |= ~load_word(block + (c >> 6)) & b;
    maybe_repeat |= folded & b;
    folded |= b;
  }
  if (missing != 0) return false;
  if (maybe_repeat == 0) return true;
  return blocked_test_distinct(block, h, k);
}

bool blocked_test_distinct(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
  // The key's bits are its first k distinct candidates (block_mask): walk the candidates,
  // skipping repeats, and check each new bit as it is found.
  const uint32_t h2 = probe_seed(h);
  uint64_t seen[kBlockWords] = {};
  uint32_t found = 0;
  for (uint32_t j = 1; found < k && j <= max_candidates(k); ++j) {
    const uint32_t c = candidate(h2, j);
    const uint64_t b = uint64_t{1} << (c & 63);
    if ((seen[c >> 6] & b) != 0) continue;
    seen[c >> 6] |= b;
    ++found;
    if ((load_word(block + (c >> 6)) & b) == 0) return false;
  }
  return true;
}

namespace {
// ORs a key's mask into its block, one word at a time (words the mask leaves empty untouched);
// true when every bit was set already. Every layout's scalar add, which differ only in the mask.
template <class Writer>
bool or_mask(uint64_t* block, const BlockMask& m) noexcept {
  bool present = true;
  for (uint32_t w = 0; w < kBlockWords; ++w) {
    if (m.w[w] != 0) present &= Writer::set_bits(block + w, m.w[w]) == m.w[w];
  }
  return present;
}
}  // namespace

template <class Writer>
bool blocked_add_scalar(uint64_t* block, uint64_t h, uint32_t k) noexcept {
  return or_mask<Writer>(block, block_mask(h, k));
}

template bool blocked_add_scalar<SharedWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
template bool blocked_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t, uint32_t) noexcept;

bool split_test_scalar(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
  const BlockMask m = split_mask(h, k);
  uint64_t missing = 0;
  for (uint32_t w = 0; w < kBlockWords; ++w) missing |= m.w[w] & ~load_word(block + w);
  return missing == 0;
}

template <class Writer>
bool split_add_scalar(uint64_t* block, uint64_t h, uint32_t k) noexcept {
  return or_mask<Writer>(block, split_mask(h, k));
}

template bool split_add_scalar<SharedWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
template bool split_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t, uint32_t) noexcept;

bool half_test_scalar(const uint64_t* block, uint64_t h) noexcept {
  const BlockMask m = half_mask(h);
  uint64_t missing = 0;
  for (uint32_t w = 0; w < kBlockWords; ++w) missing |= m.w[w] & ~load_word(block + w);
  return missing == 0;
}

template <class Writer>
bool half_add_scalar(uint64_t* block, uint64_t h) noexcept {
  return or_mask<Writer>(block, half_mask(h));
}

template bool half_add_scalar<SharedWriter>(uint64_t*, uint64_t) noexcept;
template bool half_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t) noexcept;

}  // namespace abloom

#define ABLOOM_KERNEL_FN
#include "kernels/blocked_pipeline.hpp"

namespace abloom {
namespace {

struct ScalarSplitProbe {
  template <bool, Answer = Answer::branch, Window = Window::table>
  static bool test(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
    return split_test_scalar(block, h, k);
  }
  template <class Writer, Arrival, bool, Store>
  static bool add(uint64_t* block, uint64_t h, uint32_t k) noexcept {
    return split_add_scalar<Writer>(block, h, k);
  }
};

// k is always kHalfK in the half layout (the options, the format and Shape's checks refuse any
// other), so the probe does not read it.
struct ScalarHalfProbe {
  template <bool, Answer = Answer::branch, Window = Window::table>
  static bool test(const uint64_t* block, uint64_t h, uint32_t) noexcept {
    return half_test_scalar(block, h);
  }
  template <class Writer, Arrival, bool, Store>
  static bool add(uint64_t* block, uint64_t h, uint32_t) noexcept {
    return half_add_scalar<Writer>(block, h);
  }
};

struct ScalarProbe {
  template <bool, Answer = Answer::branch, Window = Window::table>
  static bool test(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
    return blocked_test_scalar(block, h, k);
  }
  template <class Writer, Arrival, bool, Store>
  static bool add(uint64_t* block, uint64_t h, uint32_t k) noexcept {
    return blocked_add_scalar<Writer>(block, h, k);
  }
};

}  // namespace

const BlockedKernels kBlockedScalar[kLayouts] = {
    make_blocked_kernels<ScalarProbe>(Isa::scalar, "scalar", Layout::distinct),
    make_blocked_kernels<ScalarSplitProbe>(Isa::scalar, "scalar", Layout::split),
    make_blocked_kernels<ScalarHalfProbe>(Isa::scalar, "scalar", Layout::half)};

}  // namespace abloom
