// Bulk add/test: hash a window of keys and prefetch their blocks one window ahead of probing,
// so the cache misses of a large filter overlap instead of queueing one by one. With
// params().threads > 1, large batches are split across threads: by shard for sharded filters
// (each thread owns whole shards, so no cache line is shared between writers), by range
// otherwise.
#include <algorithm>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "blocked_kernels.hpp"
#include "filter.hpp"

namespace abloom {
namespace {

constexpr size_t kWindow = 32;                      // keys hashed and prefetched ahead of probing
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
inline size_t part_begin(size_t n, uint32_t parts, uint32_t t) noexcept {
  return static_cast<size_t>((static_cast<unsigned __int128>(n) * t) / parts);
}

}  // namespace

template <bool kForWrite, class HashAt, class Probe>
uint64_t Filter::windows(HashAt hash_at, size_t n, Probe probe) const noexcept {
  // The loop reads the shape from locals: hash_at may call out of line, after which the compiler
  // would otherwise have to reload every field of *this for every key.
  const Shape shape = shape_;
  uint64_t* const* const shards = shard_ptrs_.data();
  BlockRef window[2][kWindow];
  auto load = [&](BlockRef* w, size_t base) {
    const size_t m = std::min(kWindow, n - base);
    for (size_t i = 0; i < m; ++i) {
      const uint64_t h = hash_at(base + i);
      if (shape.kind == Kind::blocked) {
        w[i] = {shards[shape.shard_of(h)] + shape.block_word_offset(h), h};
        __builtin_prefetch(w[i].block, kForWrite ? 1 : 0, 3);
      } else {
        w[i] = {nullptr, h};
        prefetch_classic(h);
      }
    }
  };
  uint64_t total = 0;
  if (n > 0) load(window[0], 0);
  for (size_t base = 0, cur = 0; base < n; base += kWindow, cur ^= 1) {
    if (base + kWindow < n) load(window[cur ^ 1], base + kWindow);
    total += probe(window[cur], base, std::min(kWindow, n - base));
  }
  return total;
}

template <class HashAt>
uint64_t Filter::add_pipeline(HashAt hash_at, size_t n) noexcept {
  const uint32_t k = shape_.k;
  if (shape_.kind == Kind::blocked) {
    const BlockedKernels& kernels = blocked_kernels();
    return windows<true>(hash_at, n, [&](const BlockRef* w, size_t, size_t m) {
      return kernels.add_window(w, m, k);
    });
  }
  return windows<true>(hash_at, n, [&](const BlockRef* w, size_t, size_t m) {
    uint64_t added = 0;
    for (size_t i = 0; i < m; ++i) added += add_impl(w[i].hash) ? 0 : 1;
    return added;
  });
}

template <class HashAt>
uint64_t Filter::test_pipeline(HashAt hash_at, size_t n, uint8_t* results) const noexcept {
  const uint32_t k = shape_.k;
  if (shape_.kind == Kind::blocked) {
    const BlockedKernels& kernels = blocked_kernels();
    return windows<false>(hash_at, n, [&](const BlockRef* w, size_t base, size_t m) {
      return kernels.test_window(w, m, k, results + base);
    });
  }
  return windows<false>(hash_at, n, [&](const BlockRef* w, size_t base, size_t m) {
    uint64_t found = 0;
    for (size_t i = 0; i < m; ++i) {
      const bool hit = test_hash(w[i].hash);
      results[base + i] = hit ? 1 : 0;
      found += hit ? 1 : 0;
    }
    return found;
  });
}

template <class HashAt>
uint64_t Filter::add_bulk(HashAt hash_at, size_t n) noexcept {
  const uint32_t threads = params_.threads;
  if (threads <= 1 || n < kParallelMin) return add_pipeline(hash_at, n);

  std::vector<uint64_t> hashes, added_by;
  try {
    hashes.resize(std::min(n, kParallelChunk));
    added_by.resize(threads);
  } catch (const std::bad_alloc&) {
    return add_pipeline(hash_at, n);  // no room for the hashes: still correct, just serial
  }
  const uint32_t shards = shape_.shards();
  for (size_t base = 0; base < n; base += kParallelChunk) {
    const size_t m = std::min(kParallelChunk, n - base);
    parallel_for(threads, [&](uint32_t t) {
      for (size_t i = part_begin(m, threads, t); i < part_begin(m, threads, t + 1); ++i) {
        hashes[i] = hash_at(base + i);
      }
    });
    if (shards < threads) {
      // Too few shards for every thread to own some: split by range (atomic ORs make any split
      // safe).
      parallel_for(threads, [&](uint32_t t) {
        const size_t b = part_begin(m, threads, t);
        added_by[t] += add_pipeline([&](size_t i) { return hashes[b + i]; },
                                    part_begin(m, threads, t + 1) - b);
      });
      continue;
    }
    // Sharded: thread t owns shards [lo, hi) and adds only the keys that fall there, gathered
    // through a small local buffer, so no two threads ever write the same cache line. Each thread
    // reads every hash of the chunk (sequential, cheap next to a cache miss per key): no sort, no
    // shared scatter step.
    parallel_for(threads, [&](uint32_t t) {
      const uint32_t lo = static_cast<uint32_t>(part_begin(shards, threads, t));
      const uint32_t hi = static_cast<uint32_t>(part_begin(shards, threads, t + 1));
      if (lo == hi) return;
      constexpr size_t kLocal = 4096;
      uint64_t local[kLocal];
      size_t count = 0;
      auto flush = [&] {
        added_by[t] += add_pipeline([&](size_t i) { return local[i]; }, count);
        count = 0;
      };
      for (size_t i = 0; i < m; ++i) {
        // Branch-free compaction: which thread owns a key is a coin flip the predictor can't
        // learn, so always write and advance the cursor only for our own keys.
        const uint32_t s = shape_.shard_of(hashes[i]);
        local[count] = hashes[i];
        count += (s - lo < hi - lo) ? 1 : 0;
        if (count == kLocal) flush();
      }
      flush();
    });
  }
  uint64_t added = 0;
  for (uint64_t a : added_by) added += a;
  return added;
}

template <class HashAt>
uint64_t Filter::test_bulk(HashAt hash_at, size_t n, uint8_t* results) const noexcept {
  const uint32_t threads = params_.threads;
  if (threads <= 1 || n < kParallelMin) return test_pipeline(hash_at, n, results);
  uint64_t found_by[kMaxThreads] = {};
  const uint32_t parts = std::min(threads, kMaxThreads);
  parallel_for(parts, [&](uint32_t t) {
    const size_t b = part_begin(n, parts, t);
    found_by[t] = test_pipeline([&](size_t i) { return hash_at(b + i); },
                                part_begin(n, parts, t + 1) - b, results + b);
  });
  uint64_t found = 0;
  for (uint32_t t = 0; t < parts; ++t) found += found_by[t];
  return found;
}

namespace {

struct HashesAt {
  const uint64_t* h;
  uint64_t operator()(size_t i) const noexcept { return h[i]; }
};

}  // namespace

uint64_t Filter::add_many(const uint64_t* hashes, size_t n) noexcept {
  return add_bulk(HashesAt{hashes}, n);
}
// The key accessors below capture copies, not references: hashing calls out of line, after which
// the compiler would otherwise reload the arrays' addresses and the seed for every key.
uint64_t Filter::add_many(const KeyArrays& keys, size_t n) noexcept {
  return add_bulk([k = keys.keys, lens = keys.lens,
                   seed = shape_.seed](size_t i) { return hash_key(seed, k[i], lens[i]); },
                  n);
}
uint64_t Filter::add_many(const PackedKeys& keys, size_t n) noexcept {
  return add_bulk([buf = keys.buf, off = keys.offsets, seed = shape_.seed](
                      size_t i) { return hash_key(seed, buf + off[i], off[i + 1] - off[i]); },
                  n);
}
uint64_t Filter::test_many(const uint64_t* hashes, size_t n, uint8_t* results) const noexcept {
  return test_bulk(HashesAt{hashes}, n, results);
}
uint64_t Filter::test_many(const KeyArrays& keys, size_t n, uint8_t* results) const noexcept {
  return test_bulk([k = keys.keys, lens = keys.lens,
                    seed = shape_.seed](size_t i) { return hash_key(seed, k[i], lens[i]); },
                   n, results);
}
uint64_t Filter::test_many(const PackedKeys& keys, size_t n, uint8_t* results) const noexcept {
  return test_bulk([buf = keys.buf, off = keys.offsets, seed = shape_.seed](
                       size_t i) { return hash_key(seed, buf + off[i], off[i + 1] - off[i]); },
                   n, results);
}

}  // namespace abloom
