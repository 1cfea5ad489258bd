// The blocked kind's in-block probe, one implementation per instruction set, behind one table.
// A kernel answers for keys whose hash and 64-byte block are already known: single keys (add,
// test) and windows of keys whose blocks the bulk pipeline (bulk.cpp) has prefetched. Every
// kernel sets and tests exactly the bits layout.hpp defines (tests/core_isa_test.cpp proves it);
// they differ only in how fast they get there.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "atomic_bits.hpp"
#include "isa.hpp"

namespace abloom {

// A key of a bulk window: its hash and the first word of its block.
struct BlockRef {
  uint64_t* block;
  uint64_t hash;
};

struct BlockedKernels {
  Isa isa;
  // Whether all of the key's k bits are set (reads only).
  bool (*test)(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
  // Sets the key's k bits with atomic ORs, and returns whether they were all set before.
  bool (*add)(uint64_t* block, uint64_t hash, uint32_t k) noexcept;
  // test for m keys: results[i] = 0/1, returns how many tested 1.
  uint64_t (*test_window)(const BlockRef* keys, size_t m, uint32_t k, uint8_t* results) noexcept;
  // add for m keys, returns how many had a bit that was not set before.
  uint64_t (*add_window)(const BlockRef* keys, size_t m, uint32_t k) noexcept;
};

namespace detail {
// The active table; null until first use (isa.cpp picks it from the CPU and ABLOOM_ISA).
extern std::atomic<const BlockedKernels*> active_kernels;
const BlockedKernels& init_kernels() noexcept;
}  // namespace detail

// The kernels of the active instruction set (isa_active()). Inline: it is on every key's path.
inline const BlockedKernels& blocked_kernels() noexcept {
  const BlockedKernels* k = detail::active_kernels.load(std::memory_order_acquire);
  if (k == nullptr) [[unlikely]]
    return detail::init_kernels();
  return *k;
}
// The kernels of one set, or nullptr when this CPU cannot run them (tests compare every set).
const BlockedKernels* blocked_kernels_for(Isa isa) noexcept;

// The write step of the vector kernels' add: sets bit candidates[j] of the block for every j < k
// with bit j of `missing` set (candidates clear when the key was probed). The bits are merged per
// 64-bit word first (a fixed-count loop, no branch), then each touched word takes one atomic OR:
// atomic ORs are most of an add's cost, and merging saves about one in five at k = 7 and one in
// three at k = 11 over an OR per bit. The caller reports the key new because its probe saw these
// bits clear: of concurrent adds of one new key, at least one reports it new (abloom.h's promise),
// since bits only ever go from 0 to 1 and some add must have probed before any of them wrote.
inline void set_missing_bits(uint64_t* block, const uint32_t* candidates, uint32_t k,
                             uint32_t missing) noexcept {
  uint64_t words[8] = {};
  uint32_t touched = 0;
  for (uint32_t j = 0; j < k; ++j) {
    const uint32_t c = candidates[j];
    const uint64_t miss = missing >> j & 1;
    words[c >> 6] |= miss << (c & 63);
    touched |= static_cast<uint32_t>(miss) << (c >> 6);
  }
  for (; touched != 0; touched &= touched - 1) {
    const int w = std::countr_zero(touched);
    or_word(block + w, words[w]);
  }
}

// The scalar reference: also the fallback the vector kernels take for rare keys (k > 32, or a
// repeat among the first k candidates).
bool blocked_test_scalar(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
bool blocked_add_scalar(uint64_t* block, uint64_t hash, uint32_t k) noexcept;
// test for a key known to repeat a candidate among its first k: walks its distinct candidates.
bool blocked_test_distinct(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;

extern const BlockedKernels kBlockedScalar;
extern const BlockedKernels kBlockedAvx2;    // only valid where isa_supported() >= avx2
extern const BlockedKernels kBlockedAvx512;  // only valid where isa_supported() >= avx512

}  // namespace abloom
