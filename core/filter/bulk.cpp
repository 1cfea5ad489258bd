// Bulk add/test: hash keys and prefetch their blocks ahead of probing, so the cache misses of a
// large filter overlap instead of queueing one by one (the blocked kind's loops are its kernels':
// blocked_pipeline.hpp). With threads() > 1 (read once, at the start of each call), large batches
// are split across threads. Tests split the keys by range. Adds split the bits: each thread owns
// a contiguous part of the filter (a range of blocks for the blocked kind, whole shards for the
// classic kind, whose probes span a shard) and adds, in batch order, the keys that land there. So
// no two threads write one cache line, and every key meets the bits it would meet
// single-threaded: the count of new keys is exactly the single-threaded count, whatever the
// thread count and timing.
#include <algorithm>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "filter/filter.hpp"
#include "kernels/kernel_table.hpp"
#include "kernels/key_source.hpp"

namespace abloom {
namespace {

constexpr size_t kParallelMin = size_t{1} << 16;    // smaller batches stay on the caller's thread
constexpr size_t kParallelChunk = size_t{1} << 20;  // keys hashed per parallel round (8 MiB)

// Runs fn(t) for t in [0, threads): t = 0 on the caller, the rest on new threads. When a thread
// cannot be started, its share runs on the caller instead, so the work is always done.
template <class Fn>
void parallel_for(uint32_t threads, Fn fn) noexcept {
  std::vector<std::thread> pool;
  std::vector<uint32_t> inline_ids{0};
  try {
    pool.reserve(threads);
    inline_ids.reserve(threads);
  } catch (...) {
    for (uint32_t t = 0; t < threads; ++t) fn(t);
    return;
  }
  for (uint32_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(fn, t);
    } catch (...) {
      inline_ids.push_back(t);
    }
  }
  for (uint32_t t : inline_ids) fn(t);
  for (auto& th : pool) th.join();
}

// [begin, end) of part t of n items split into `parts`.
inline uint64_t part_begin(uint64_t n, uint32_t parts, uint32_t t) noexcept {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(n) * t) / parts);
}

}  // namespace

// The classic kind's bulk loop: key i + kAhead's k lines are prefetched while key i is handled.
// (The blocked kind's loops live with its kernels: blocked_pipeline.hpp.)
template <class Fn>
void Filter::classic_loop(const KeySource& keys, size_t n, Fn fn) const noexcept {
  constexpr size_t kAhead = 16;
  for_each_form(keys, shape_.seed, [&](auto hash_at) {
    uint64_t ring[kAhead];
    const size_t head = std::min(n, kAhead);
    for (size_t i = 0; i < head; ++i) {
      ring[i] = hash_at(i);
      prefetch_classic(ring[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t h = ring[i % kAhead];
      if (i + kAhead < n) {
        ring[i % kAhead] = hash_at(i + kAhead);
        prefetch_classic(ring[i % kAhead]);
      }
      fn(i, h);
    }
    return 0;
  });
}

uint64_t Filter::add_serial(const KeySource& keys, size_t n, WriterMode mode,
                            NewKeys count) noexcept {
  if (shape_.kind == Kind::blocked)
    return blocked_kernels(shape_.layout).add_many(view_, keys, n, mode, count);
  uint64_t added = 0;
  classic_loop(keys, n, [&](size_t, uint64_t h) {
    const bool present =
        mode == WriterMode::shared ? add_classic<SharedWriter>(h) : add_classic<ExclusiveWriter>(h);
    added += present ? 0 : 1;
  });
  return added;
}

uint64_t Filter::test_serial(const KeySource& keys, size_t n, uint8_t* results) const noexcept {
  if (shape_.kind == Kind::blocked)
    return blocked_kernels(shape_.layout).test_many(view_, keys, n, results);
  uint64_t found = 0;
  classic_loop(keys, n, [&](size_t i, uint64_t h) {
    const bool hit = test_classic(h);
    results[i] = hit ? 1 : 0;
    found += hit ? 1 : 0;
  });
  return found;
}

uint64_t Filter::add_many(const KeySource& keys, size_t n, NewKeys count) noexcept {
  const uint32_t threads = this->threads();
  if (threads <= 1 || n < kParallelMin) return add_serial(keys, n, writer_, count);

  std::vector<uint64_t> hashes, added_by;
  try {
    hashes.resize(std::min(n, kParallelChunk));
    added_by.resize(threads);
  } catch (const std::bad_alloc&) {
    return add_serial(keys, n, writer_, count);  // no room for the hashes: correct, just serial
  }
  // Thread t owns units [part_begin(units, parts, t), part_begin(units, parts, t + 1)) in filter
  // order: blocks (shard by shard) for the blocked kind, shards for the classic kind.
  const uint32_t shards = shape_.shards();
  const bool blocked = shape_.kind == Kind::blocked;
  const uint32_t parts = blocked ? threads : std::min(threads, shards);
  const uint64_t units = blocked ? shape_.blocks_per_shard << shape_.shard_bits : shards;
  auto unit_of = [&](uint64_t h) -> uint64_t {
    if (!blocked) return shape_.shard_of(h);
    return uint64_t{shape_.shard_of(h)} * shape_.blocks_per_shard +
           shape_.block_word_offset(h) / kBlockWords;
  };
  for (size_t base = 0; base < n; base += kParallelChunk) {
    const size_t m = std::min(kParallelChunk, n - base);
    parallel_for(threads, [&](uint32_t t) {
      const size_t lo = part_begin(m, threads, t), hi = part_begin(m, threads, t + 1);
      for_each_form(keys.advanced(base + lo), shape_.seed, [&](auto hash_at) {
        for (size_t i = lo; i < hi; ++i) hashes[i] = hash_at(i - lo);
        return 0;
      });
    });
    // Thread t adds only its own keys, gathered in batch order through a small local buffer.
    // Each thread reads every hash of the chunk (sequential, cheap next to a cache miss per key):
    // no sort, no shared scatter step. Owning whole cache lines is also what lets an exclusive
    // writer's plain stores run on many threads.
    parallel_for(parts, [&](uint32_t t) {
      const uint64_t lo = part_begin(units, parts, t), hi = part_begin(units, parts, t + 1);
      if (lo == hi) return;
      constexpr size_t kLocal = 4096;
      uint64_t local[kLocal];
      size_t held = 0;
      auto flush = [&] {
        added_by[t] += add_serial(KeySource::of_hashes(local), held, writer_, count);
        held = 0;
      };
      for (size_t i = 0; i < m; ++i) {
        // Branch-free compaction: which thread owns a key is a coin flip the predictor can't
        // learn, so always write and advance the cursor only for our own keys.
        local[held] = hashes[i];
        held += unit_of(hashes[i]) - lo < hi - lo ? 1 : 0;
        if (held == kLocal) flush();
      }
      flush();
    });
  }
  uint64_t added = 0;
  for (uint64_t a : added_by) added += a;
  return added;
}

uint64_t Filter::test_many(const KeySource& keys, size_t n, uint8_t* results) const noexcept {
  const uint32_t threads = this->threads();
  if (threads <= 1 || n < kParallelMin) return test_serial(keys, n, results);
  uint64_t found_by[kMaxThreads] = {};
  const uint32_t parts = std::min(threads, kMaxThreads);
  parallel_for(parts, [&](uint32_t t) {
    const size_t b = part_begin(n, parts, t);
    found_by[t] = test_serial(keys.advanced(b), part_begin(n, parts, t + 1) - b, results + b);
  });
  uint64_t found = 0;
  for (uint32_t t = 0; t < parts; ++t) found += found_by[t];
  return found;
}

uint64_t Filter::test_and_add_many(const KeySource& keys, size_t n, uint8_t* results) noexcept {
  constexpr size_t kChunk = 1024;  // hashes on the stack, then tested in bulk
  uint64_t hashes[kChunk];
  uint64_t fresh = 0;
  for_each_form(keys, shape_.seed, [&](auto hash_at) {
    for (size_t base = 0; base < n; base += kChunk) {
      const size_t m = std::min(kChunk, n - base);
      for (size_t i = 0; i < m; ++i) hashes[i] = hash_at(base + i);
      uint8_t* out = results + base;
      (void)test_serial(KeySource::of_hashes(hashes), m, out);
      fresh += add_not_found(hashes, m, out, [this](uint64_t h) { return test_and_add_hash(h); });
    }
  });
  return fresh;
}

}  // namespace abloom
