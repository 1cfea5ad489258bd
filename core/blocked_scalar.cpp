// The blocked kind's scalar kernel: the reference the vector kernels must match bit for bit, and
// the path of CPUs without AVX2 (or of ABLOOM_ISA=scalar).
#include "atomic_bits.hpp"
#include "blocked_kernels.hpp"
#include "layout.hpp"

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
  if (maybe_repeat == 0 || !has_repeat(h2, k)) return true;
  // A repeat among the first k candidates: the key has further bits; check its whole mask.
  const BlockMask m = block_mask(h, k);
  for (uint32_t w = 0; w < kBlockWords; ++w) missing |= m.w[w] & ~load_word(block + w);
  return missing == 0;
}

bool blocked_add_scalar(uint64_t* block, uint64_t h, uint32_t k) noexcept {
  const BlockMask m = block_mask(h, k);
  bool present = true;
  for (uint32_t w = 0; w < kBlockWords; ++w) {
    if (m.w[w] != 0) present &= set_bits(block + w, m.w[w]) == m.w[w];
  }
  return present;
}

namespace {

uint64_t test_window_scalar(const BlockRef* keys, size_t m, uint32_t k, uint8_t* results) noexcept {
  uint64_t found = 0;
  for (size_t i = 0; i < m; ++i) {
    const bool hit = blocked_test_scalar(keys[i].block, keys[i].hash, k);
    results[i] = hit ? 1 : 0;
    found += hit ? 1 : 0;
  }
  return found;
}

uint64_t add_window_scalar(const BlockRef* keys, size_t m, uint32_t k) noexcept {
  uint64_t added = 0;
  for (size_t i = 0; i < m; ++i)
    added += blocked_add_scalar(keys[i].block, keys[i].hash, k) ? 0 : 1;
  return added;
}

}  // namespace

const BlockedKernels kBlockedScalar{Isa::scalar, blocked_test_scalar, blocked_add_scalar,
                                    test_window_scalar, add_window_scalar};

}  // namespace abloom
