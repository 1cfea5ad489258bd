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

inline void and_word(uint64_t* p, uint64_t v) noexcept {
  if ((load_word(p) & ~v) == 0) return;
  std::atomic_ref<uint64_t>(*p).fetch_and(v, std::memory_order_relaxed);
}

// How an add writes its bits. Every add path is written once over one of these two policies.
//
// SharedWriter (the default): atomic read-modify-writes (`lock or` on x86), so any number of
// threads may add at once without losing a bit.
struct SharedWriter {
  // Sets `mask` in *p unless it is already all set; returns the bits of `mask` that were set
  // before (== mask when nothing was new). Skipping the RMW keeps shared cache lines clean.
  static uint64_t set_bits(uint64_t* p, uint64_t mask) noexcept {
    const uint64_t seen = load_word(p) & mask;
    if (seen == mask) return seen;
    return std::atomic_ref<uint64_t>(*p).fetch_or(mask, std::memory_order_relaxed) & mask;
  }
  // ORs `mask` into *p unconditionally, for callers that already know some of its bits are clear
  // (the vector kernels' adds: their probe saw them clear), so a check first would be wasted.
  static void or_word(uint64_t* p, uint64_t mask) noexcept {
    std::atomic_ref<uint64_t>(*p).fetch_or(mask, std::memory_order_relaxed);
  }
};

// ExclusiveWriter (abloom_set_writer_mode): one writing thread at a time, so a plain load, OR
// and store is enough. A locked RMW is a full barrier on x86 that later loads wait for; plain
// stores let the next keys' loads and cache misses overlap. Each word is still read and written
// whole (relaxed atomics compile to plain moves), so concurrent readers stay well defined: they
// see every word as it was before or after each store. A second concurrent writer could lose
// bits, which is why this mode must be asked for.
struct ExclusiveWriter {
  static uint64_t set_bits(uint64_t* p, uint64_t mask) noexcept {
    const uint64_t old = load_word(p);
    if ((old & mask) != mask) store_word(p, old | mask);
    return old & mask;
  }
  static void or_word(uint64_t* p, uint64_t mask) noexcept { store_word(p, load_word(p) | mask); }
};

// Which of the two policies an add uses, as a value: a filter's mode (abloom_set_writer_mode),
// passed to the kernels' bulk adds, which pick the policy once per call.
enum class WriterMode : uint32_t { shared = 0, exclusive = 1 };

}  // namespace abloom
