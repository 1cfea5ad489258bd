// The blocked kind's whole single-key calls and bulk loops, written once over a probe. A header,
// not a file compiled once, because the loops must be compiled with the probe they call: each
// kernel's file includes it after its probe, so that its copy is built for that file's
// instruction set and the probe and XXH3's short-key path inline into every loop instead of
// being called per key.
//
// The including file defines ABLOOM_KERNEL_FN (its target attribute, or nothing) and a probe
// class with
//   template <bool kNarrow, Answer kAnswer, Window kWindow>
//   static bool test(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
//   template <class Writer, Arrival kArrival, bool kNarrow, Store kStore>
//   static bool add(uint64_t* block, uint64_t hash, uint32_t k) noexcept;
// (kNarrow promises k <= kNarrowMaxK, so that a probe can drop its wider paths, and with them
// the calls that would make the bulk loops around it keep their state on the stack), then makes
// its table with make_blocked_kernels<Probe>(isa, name, layout). Everything here is `inline` in an
// unnamed namespace: each including file gets its own copy, compiled for its own instruction set
// (the copies must not be merged by the linker).
//
// Lambdas do not inherit a target attribute, so nothing here calls a probe from a lambda: the
// per-key steps are functors whose operator() carries ABLOOM_KERNEL_FN.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/blocked_view.hpp"
#include "kernels/isa.hpp"
#include "kernels/kernel_table.hpp"
#include "kernels/key_source.hpp"
#include "kernels/probe_modes.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/hash.hpp"
#include "layout/layout.hpp"

namespace abloom {
namespace {

// Keys hashed and prefetched ahead of the key being probed. 32 lines in flight cover the memory
// latency of a large filter (fewer measured slower: bench/JOURNAL.md, "A/B of each step"; more,
// no faster: bench/JOURNAL.md, "Bulk loops in two passes per group").
inline constexpr size_t kPrefetchAhead = 32;

// The k up to which the vector probes take one or two groups of candidates inline.
inline constexpr uint32_t kNarrowMaxK = 16;

template <class Probe>
ABLOOM_KERNEL_FN bool pipeline_test(const uint64_t* block, uint64_t h, uint32_t k) noexcept {
  return Probe::template test<false>(block, h, k);
}

template <class Probe, class Writer>
ABLOOM_KERNEL_FN bool pipeline_add(uint64_t* block, uint64_t h, uint32_t k) noexcept {
  return Probe::template add<Writer, Arrival::on_demand, false, Store::if_changed>(block, h, k);
}

// A single-key call is hash, block and probe with nothing else around them: out of cache, the
// fewer instructions a key takes, the more keys' misses the CPU overlaps
// (bench/JOURNAL.md, "What bounds a single-key call out of cache").
// A key longer than kInlineHashMax bytes goes to a second function (a tail jump), whose call to
// the out-of-line hash then needs a stack frame; the short keys' path needs none.
template <class Probe>
ABLOOM_KERNEL_FN __attribute__((noinline)) int pipeline_test_long_key(const BlockedView& v,
                                                                      const void* key,
                                                                      size_t len) noexcept {
  const uint64_t h = hash_key_long(v.seed, key, len);
  return Probe::template test<false>(v.block_of(h), h, v.k) ? 1 : 0;
}

template <class Probe>
ABLOOM_KERNEL_FN int pipeline_test_key(const BlockedView& v, const void* key, size_t len) noexcept {
  if (len > kInlineHashMax) [[unlikely]]
    return pipeline_test_long_key<Probe>(v, key, len);
  const uint64_t h = hash_key_short(v.seed, key, len);
  return Probe::template test<false>(v.block_of(h), h, v.k) ? 1 : 0;
}

template <class Probe, class Writer>
ABLOOM_KERNEL_FN __attribute__((noinline)) int pipeline_add_long_key(const BlockedView& v,
                                                                     const void* key,
                                                                     size_t len) noexcept {
  const uint64_t h = hash_key_long(v.seed, key, len);
  return Probe::template add<Writer, Arrival::on_demand, false, Store::if_changed>(v.block_of(h), h,
                                                                                   v.k)
             ? 1
             : 0;
}

template <class Probe, class Writer>
ABLOOM_KERNEL_FN int pipeline_add_key(const BlockedView& v, const void* key, size_t len) noexcept {
  if (len > kInlineHashMax) [[unlikely]]
    return pipeline_add_long_key<Probe, Writer>(v, key, len);
  const uint64_t h = hash_key_short(v.seed, key, len);
  return Probe::template add<Writer, Arrival::on_demand, false, Store::if_changed>(v.block_of(h), h,
                                                                                   v.k)
             ? 1
             : 0;
}

// Where a bulk loop finds a hash's block. A filter of one shard (every filter below 16 MiB by
// default) needs only the shard's base and its block count: two registers instead of the view's
// four fields, which the AVX-512 packed-key loop otherwise reloads from the stack for every key
// (bulk calls at 1M keys ran faster so: bench/JOURNAL.md, "Bulk loops of a one-shard filter").
// Both give BlockedView::block_of's block (shard_bits 0: shard 0, and h << 0 is h).
struct OneShardBlocks {
  uint64_t* base;
  uint64_t blocks;
  explicit OneShardBlocks(const BlockedView& v) noexcept
      : base(v.shards[0]), blocks(v.blocks_per_shard) {}
  uint64_t* block_of(uint64_t h) const noexcept { return base + mulhi64(h, blocks) * kBlockWords; }
};

// The bulk loop: while key i is probed, key i + kPrefetchAhead is hashed and its block
// prefetched, so up to kPrefetchAhead misses overlap. (kWrite asks for a write prefetch; the
// kernels' targets leave out PRFCHW, so it compiles to the same `prefetcht0` as a read: a
// `prefetchw` build measured no faster single-threaded: bench/JOURNAL.md, "Packed keys of one
// length".) One loop over a ring of (block, hash) pairs: every key costs the same few
// instructions of bookkeeping, and the hash of a later key fills the time the probe of this one
// waits on. `at` finds blocks: a BlockedView, or OneShardBlocks.
template <bool kWrite, class Blocks, class HashAt, class Step>
ABLOOM_KERNEL_FN __attribute__((always_inline)) inline Step prefetched_loop(const Blocks at,
                                                                            HashAt hash_at,
                                                                            size_t n,
                                                                            Step step) noexcept {
  // `at` is a copy, in registers: the loop's byte stores (results) may alias anything reachable
  // through a pointer, so fields read through one would be reloaded for every key.
  uint64_t* blocks[kPrefetchAhead];
  uint64_t hashes[kPrefetchAhead];
  HashCursor<HashAt> keys(hash_at);  // stage(i) is called for i = 0, 1, 2, ... in order
  auto stage = [&](size_t i) {
    const uint64_t h = keys.next();
    uint64_t* b = at.block_of(h);
    __builtin_prefetch(b, kWrite ? 1 : 0, 3);
    blocks[i % kPrefetchAhead] = b;
    hashes[i % kPrefetchAhead] = h;
  };
  const size_t head = std::min(n, kPrefetchAhead);
  for (size_t i = 0; i < head; ++i) stage(i);
  size_t i = 0;
  for (; i + kPrefetchAhead < n; ++i) {
    uint64_t* b = blocks[i % kPrefetchAhead];
    const uint64_t h = hashes[i % kPrefetchAhead];
    stage(i + kPrefetchAhead);
    step(i, b, h);
  }
  for (; i < n; ++i) step(i, blocks[i % kPrefetchAhead], hashes[i % kPrefetchAhead]);
  return step;
}

template <class Probe, bool kNarrow, Window kWindow = Window::table>
struct TestStep {
  uint32_t k;
  uint8_t* results;
  ABLOOM_KERNEL_FN __attribute__((always_inline)) void operator()(size_t i, const uint64_t* b,
                                                                  uint64_t h) noexcept {
    // The answer as a byte in a register (the empty asm): without it GCC branches on the answer
    // again to store it, and mixed answers mispredict (Answer::flag).
    uint8_t hit = Probe::template test<kNarrow, Answer::flag, kWindow>(b, h, k) ? 1 : 0;
    asm("" : "+r"(hit));
    results[i] = hit;
  }
};

// How many of results[0 .. n) are 1 (each is 0 or 1): eight at a time, the multiply summing a
// word's bytes into its top byte. Counted after the loop rather than in it: two instructions and
// a register less per key in the loop, about one eighth of that here.
inline uint64_t count_found(const uint8_t* results, size_t n) noexcept {
  uint64_t found = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, results + i, sizeof word);
    found += (word * 0x0101010101010101ull) >> 56;
  }
  for (; i < n; ++i) found += results[i];
  return found;
}

template <class Probe, class Writer, bool kNarrow, NewKeys kCount>
struct AddStep {
  uint32_t k;
  uint64_t added = 0;
  ABLOOM_KERNEL_FN __attribute__((always_inline)) void operator()(size_t, uint64_t* b,
                                                                  uint64_t h) noexcept {
    // Uncounted, the add's result is not read, and the probe stores without testing it.
    constexpr Store kStore = kCount == NewKeys::counted ? Store::if_changed : Store::always;
    const bool old = Probe::template add<Writer, Arrival::prefetched, kNarrow, kStore>(b, h, k);
    if constexpr (kCount == NewKeys::counted) added += old ? 0 : 1;
  }
};

// prefetched_loop over the filter's blocks, found through OneShardBlocks when it has one shard:
// two loops, the filter's shape picks one per call.
template <bool kWrite, class HashAt, class Step>
ABLOOM_KERNEL_FN __attribute__((always_inline)) inline Step prefetched_loop_over(
    const BlockedView& v, HashAt hash_at, size_t n, Step step) noexcept {
  if (v.shard_bits == 0) return prefetched_loop<kWrite>(OneShardBlocks(v), hash_at, n, step);
  return prefetched_loop<kWrite>(v, hash_at, n, step);
}

// One loop shape for k <= kNarrowMaxK (by shard count, above), one for the rest (rare: k > 16 is
// the distinct layout, at targets below about 1e-6 or an explicit k): the filter's shape decides,
// once per call.
template <class Probe, class HashAt>
ABLOOM_KERNEL_FN uint64_t bulk_test(const BlockedView& v, HashAt hash_at, size_t n,
                                    uint8_t* results) noexcept {
  if (v.k <= kNarrowMaxK && v.shard_bits == 0) {
    // One shard: a filter under 16 MiB by default, in or near the cache (Window).
    prefetched_loop<false>(OneShardBlocks(v), hash_at, n,
                           TestStep<Probe, true, Window::computed>{v.k, results});
  } else if (v.k <= kNarrowMaxK) {
    prefetched_loop<false>(v, hash_at, n, TestStep<Probe, true>{v.k, results});
  } else {
    prefetched_loop<false>(v, hash_at, n, TestStep<Probe, false>{v.k, results});
  }
  return count_found(results, n);
}

template <class Probe, class Writer, NewKeys kCount, class HashAt>
ABLOOM_KERNEL_FN uint64_t bulk_add(const BlockedView& v, HashAt hash_at, size_t n) noexcept {
  if (v.k <= kNarrowMaxK) {
    return prefetched_loop_over<true>(v, hash_at, n, AddStep<Probe, Writer, true, kCount>{v.k})
        .added;
  }
  return prefetched_loop<true>(v, hash_at, n, AddStep<Probe, Writer, false, kCount>{v.k}).added;
}

template <class Probe>
ABLOOM_KERNEL_FN uint64_t pipeline_test_many(const BlockedView& v, const KeySource& keys, size_t n,
                                             uint8_t* results) noexcept {
  return for_each_form<FixedLengths::specialised>(
      keys, v.seed, [&](auto hash_at) { return bulk_test<Probe>(v, hash_at, n, results); });
}

// Three loops per key form: the shared writer's, and the exclusive writer's counted and
// uncounted (NewKeys).
template <class Probe>
ABLOOM_KERNEL_FN uint64_t pipeline_add_many(const BlockedView& v, const KeySource& keys, size_t n,
                                            WriterMode mode, NewKeys count) noexcept {
  return for_each_form<FixedLengths::specialised>(keys, v.seed, [&](auto hash_at) {
    if (mode == WriterMode::shared) {
      return bulk_add<Probe, SharedWriter, NewKeys::counted>(v, hash_at, n);
    }
    if (count == NewKeys::uncounted) {
      return bulk_add<Probe, ExclusiveWriter, NewKeys::uncounted>(v, hash_at, n);
    }
    return bulk_add<Probe, ExclusiveWriter, NewKeys::counted>(v, hash_at, n);
  });
}

ABLOOM_KERNEL_FN inline void block_bits(const uint64_t* words, uint64_t blocks,
                                        uint16_t* out) noexcept {
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t* block = words + b * kBlockWords;
    uint32_t set = 0;
    for (uint32_t w = 0; w < kBlockWords; ++w) set += std::popcount(load_word(block + w));
    out[b] = static_cast<uint16_t>(set);
  }
}

ABLOOM_KERNEL_FN inline void half_word_bits(const uint64_t* words, uint64_t n,
                                            uint8_t* out) noexcept {
  for (uint64_t w = 0; w < n; ++w) {
    const uint64_t word = load_word(words + w);
    out[2 * w] = static_cast<uint8_t>(std::popcount(static_cast<uint32_t>(word)));
    out[2 * w + 1] = static_cast<uint8_t>(std::popcount(static_cast<uint32_t>(word >> 32)));
  }
}

template <class Probe>
constexpr BlockedKernels make_blocked_kernels(Isa isa, const char* name, Layout layout) noexcept {
  return BlockedKernels{isa,
                        name,
                        layout,
                        pipeline_test<Probe>,
                        pipeline_add<Probe, SharedWriter>,
                        pipeline_add<Probe, ExclusiveWriter>,
                        pipeline_test_key<Probe>,
                        pipeline_add_key<Probe, SharedWriter>,
                        pipeline_add_key<Probe, ExclusiveWriter>,
                        pipeline_test_many<Probe>,
                        pipeline_add_many<Probe>,
                        block_bits,
                        half_word_bits};
}

}  // namespace
}  // namespace abloom
