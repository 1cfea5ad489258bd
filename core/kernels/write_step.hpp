// The write step of the vector probes' adds: the key's missing bits, once the probe has found
// them, written into the block with as few atomic ORs as the words they fall in, in the way the
// block's Arrival (probe_modes.hpp) allows.
#pragma once

#include <bit>
#include <cstdint>

#include "kernels/probe_modes.hpp"
#include "layout/layout.hpp"

namespace abloom {

// `dst` when `write`, else `scratch`: the address an exclusive writer's whole-block (or half-block)
// store goes to, selected without a branch, so that a store that would change nothing lands in a
// local scratch and leaves the line clean, with no branch on bits still in flight. (The shared
// writer's per-word form is abloom_spec_or_target.)
template <class T>
inline T* store_target(T* dst, T* scratch, bool write) noexcept {
  const uintptr_t keep = uintptr_t{0} - static_cast<uintptr_t>(write);
  return reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(dst) & keep) |
                              (reinterpret_cast<uintptr_t>(scratch) & ~keep));
}

// ORs words[w] into block word w for each bit w of `which` (one bit per word).
template <class Writer>
inline void or_words(uint64_t* block, const uint64_t* words, uint32_t which) noexcept {
  for (; which != 0; which &= which - 1) {
    const int w = std::countr_zero(which);
    Writer::or_word(block + w, words[w]);
  }
}

// The same with loop control independent of the block's contents: `touched` comes from the hash
// alone, and a word whose words[w] is 0 is ORed into a local scratch word instead (a branch-free
// select of the address), so it stays clean in the cache.
template <class Writer>
inline void or_words_redirected(uint64_t* block, const uint64_t* words, uint32_t touched) noexcept {
  uint64_t scratch = 0;
  for (; touched != 0; touched &= touched - 1) {
    const int w = std::countr_zero(touched);
    Writer::or_word(abloom_spec_or_target(block + w, words[w], &scratch), words[w]);
  }
}

// The write step of an add whose candidates and missing bits are known (a vector probe): the
// missing bits merged per 64-bit word (`words`), the words the candidates fall in (`touched`) and
// those with a missing bit (`changed`), written as `kArrival` says. Merging saves about one atomic
// OR in five at k = 7 and one in three at k = 11 over an OR per bit.
//
// The caller reports the key new because its probe saw these bits clear: of concurrent adds of one
// new key, at least one reports it new (abloom.h's promise), since bits only ever go from 0 to 1
// and some add must have probed before any of them wrote.
template <class Writer, Arrival kArrival>
inline void write_words(uint64_t* block, const uint64_t* words, uint32_t touched,
                        uint32_t changed) noexcept {
  if constexpr (kArrival == Arrival::prefetched) {
    or_words<Writer>(block, words, changed);
  } else {
    if (changed == 0) return;
    or_words_redirected<Writer>(block, words, touched);
  }
}

// write_words for the candidates candidates[j], j < k, of which those with bit j of `missing` set
// were clear: merges them per word first (a fixed-count loop, no branch).
template <class Writer, Arrival kArrival>
inline void set_missing_bits(uint64_t* block, const uint32_t* candidates, uint32_t k,
                             uint32_t missing) noexcept {
  uint64_t words[8] = {};
  uint32_t touched = 0, changed = 0;
  for (uint32_t j = 0; j < k; ++j) {
    const uint32_t c = candidates[j];
    const uint32_t miss = missing >> j & 1;
    words[c >> 6] |= static_cast<uint64_t>(miss) << (c & 63);
    touched |= uint32_t{1} << (c >> 6);
    changed |= miss << (c >> 6);
  }
  write_words<Writer, kArrival>(block, words, touched, changed);
}

}  // namespace abloom
