// Relaxed atomic access to the filter's 64-bit words. Relaxed is enough: bits only ever go from
// 0 to 1 during adds, each word is its own atomic object, and readers need no ordering with
// other memory, only coherence (a test ordered after an add sees its bits).
#pragma once

#include <atomic>
#include <cstdint>

namespace abloom {

inline uint64_t load_word(const uint64_t* p) noexcept {
  // atomic_ref<const T> is not C++20; the word is never written through this reference.
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(p)).load(std::memory_order_relaxed);
}

inline void store_word(uint64_t* p, uint64_t v) noexcept {
  std::atomic_ref<uint64_t>(*p).store(v, std::memory_order_relaxed);
}

// Sets `mask` in *p unless it is already all set; returns the bits of `mask` that were set
// before (== mask when nothing was new). Skipping the RMW keeps shared cache lines clean.
inline uint64_t set_bits(uint64_t* p, uint64_t mask) noexcept {
  const uint64_t seen = load_word(p) & mask;
  if (seen == mask) return seen;
  return std::atomic_ref<uint64_t>(*p).fetch_or(mask, std::memory_order_relaxed) & mask;
}

// ORs `mask` into *p unconditionally, for callers that already know some of its bits are clear
// (the vector kernels' adds: their probe saw them clear), so a check first would be wasted.
inline void or_word(uint64_t* p, uint64_t mask) noexcept {
  std::atomic_ref<uint64_t>(*p).fetch_or(mask, std::memory_order_relaxed);
}

inline void and_word(uint64_t* p, uint64_t v) noexcept {
  if ((load_word(p) & ~v) == 0) return;
  std::atomic_ref<uint64_t>(*p).fetch_and(v, std::memory_order_relaxed);
}

}  // namespace abloom
