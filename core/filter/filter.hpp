// The filter engine: a lock-free Bloom filter of either kind over 2^s separately allocated,
// 64-byte-aligned shards. Every bit goes through std::atomic_ref with relaxed ordering, so any
// number of threads may add and test at once; adds skip the write when the bits are already
// set, so a shared cache line is not dirtied needlessly. A filter with one writer may switch to
// plain stores (WriterMode::exclusive, atomic_bits.hpp); tests stay safe alongside it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "errc.hpp"
#include "filter/aligned_buffer.hpp"
#include "kernels/blocked_view.hpp"
#include "kernels/kernel_table.hpp"
#include "kernels/key_source.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/hash.hpp"
#include "layout/layout.hpp"
#include "model/sizing.hpp"

namespace abloom {

// Metadata that does not affect where bits go.
struct FilterParams {
  uint64_t capacity = 0;
  double target_fpr = 0;    // 0 when the layout was explicit
  double expected_fpr = 0;  // model FPR at capacity
  uint32_t threads = 1;     // threads bulk calls start with (then Filter::threads(), below)
};

// Where a filter's bits live.
enum class Storage : uint32_t { owned = 0, view = 1, mapped = 2 };

class Filter;

// Memory the filter does not own (a caller's buffer, a mapped file): keeps it alive for as long
// as the filter lives, and knows how to flush it.
class ExternalMemory {
 public:
  virtual ~ExternalMemory() = default;
  // Makes the backing store consistent with the filter's bits (a read-write mapping rewrites
  // its header and msyncs). `last`: no write follows (the filter is going away, or a seal);
  // otherwise a read-write mapping is marked stale again at once, since the handle may still
  // write. Default: nothing to do.
  virtual Errc sync(const Filter& filter, bool last) noexcept {
    (void)filter;
    (void)last;
    return Errc::ok;
  }
};

// Shards that live in external memory.
struct ExternalShards {
  std::vector<uint64_t*> shards;  // one pointer per shard, each 64-byte aligned
  std::unique_ptr<ExternalMemory> memory;
  Storage storage = Storage::view;
  bool read_only = true;
  bool stale = false;  // the bytes carried the stale mark when opened (see Filter::opened_stale)
};

class Filter {
 public:
  // Allocates a zeroed filter. Throws std::bad_alloc.
  Filter(const Shape& shape, const FilterParams& params);
  // A filter over shards in external memory (views, mapped files). Throws std::bad_alloc.
  Filter(const Shape& shape, const FilterParams& params, ExternalShards external);
  Filter(const Filter& other);  // deep copy into owned memory; throws std::bad_alloc
  Filter& operator=(const Filter&) = delete;
  Filter(Filter&&) = delete;
  Filter& operator=(Filter&&) = delete;
  ~Filter() = default;

  const Shape& shape() const noexcept { return shape_; }
  const FilterParams& params() const noexcept { return params_; }
  Storage storage() const noexcept { return storage_; }
  bool read_only() const noexcept { return read_only_; }
  // Whether the bytes under this filter carried the stale mark (docs/FORMAT.md) when it was made
  // over them: for a read-write mapping, before this filter marked them. Owned copies: false.
  bool opened_stale() const noexcept { return opened_stale_; }
  // Flushes external storage (see ExternalMemory::sync); owned filters: nothing to do.
  Errc sync(bool last) const noexcept { return memory_ ? memory_->sync(*this, last) : Errc::ok; }
  // The last sync of a writable filter: its storage left sealed, and every later write refused
  // (Errc::readonly), since one would change the bits under the checksum. Not while other
  // threads use the filter.
  Errc sync_last() noexcept {
    const Errc e = sync(true);
    read_only_ = true;
    return e;
  }

  // Shared (the default): any number of threads may add at once. Exclusive: one writing thread
  // at a time (adds, unions), any number of testing threads; adds use plain stores.
  WriterMode writer_mode() const noexcept { return writer_; }
  void set_writer_mode(WriterMode mode) noexcept { writer_ = mode; }

  // Threads a bulk call may use (1: the caller's only), from params().threads at construction
  // (a copy: the source's current value). May change while other threads run bulk calls: each
  // call reads it once, relaxed, and keeps that count to its end. `threads` must be at most
  // kMaxThreads (the C API checks); 0 is stored as 1.
  uint32_t threads() const noexcept { return threads_.load(std::memory_order_relaxed); }
  void set_threads(uint32_t threads) noexcept {
    threads_.store(threads == 0 ? 1 : threads, std::memory_order_relaxed);
  }

  uint64_t hash(const void* key, size_t len) const noexcept {
    return hash_key(shape_.seed, key, len);
  }

  // One key by its bytes: hash, block and probe in one call of the active kernel (blocked kind).
  // 1 if it may be present, else 0 (an int, so the C API's call is a tail call).
  // The classic kind's calls are out of line (classic_test_key, classic_add_key): inline, their
  // hash call gave every caller (abloom_test) a stack frame, the blocked kind's calls included.
  int test_key(const void* key, size_t len) const noexcept {
    if (shape_.kind == Kind::blocked) [[likely]]
      return blocked_kernels(shape_.layout).test_key(view_, key, len);
    return classic_test_key(key, len);
  }
  // Adds the key: 1 if all its bits were set before, else 0.
  int add_key(const void* key, size_t len) noexcept {
    if (shape_.kind == Kind::blocked) [[likely]] {
      const BlockedKernels& kernels = blocked_kernels(shape_.layout);
      return writer_ == WriterMode::shared ? kernels.add_key(view_, key, len)
                                           : kernels.add_key_exclusive(view_, key, len);
    }
    return classic_add_key(key, len);
  }

  void add_hash(uint64_t h) noexcept { (void)add_hash_impl(h); }
  bool test_hash(uint64_t h) const noexcept {
    if (shape_.kind == Kind::blocked)
      return blocked_kernels(shape_.layout).test(view_.block_of(h), h, shape_.k);
    return test_classic(h);
  }
  // Adds h and returns whether all its bits were set before (from the values fetch_or returned).
  bool test_and_add_hash(uint64_t h) noexcept { return add_hash_impl(h); }

  // Bulk: hash keys and prefetch their blocks ahead of probing. Return the number of new keys /
  // found; add_many with NewKeys::uncounted may return 0 instead (kernel_table.hpp).
  uint64_t add_many(const KeySource& keys, size_t n, NewKeys count = NewKeys::counted) noexcept;
  uint64_t test_many(const KeySource& keys, size_t n, uint8_t* results) const noexcept;
  uint64_t add_many(const uint64_t* hashes, size_t n, NewKeys count = NewKeys::counted) noexcept {
    return add_many(KeySource::of_hashes(hashes), n, count);
  }
  uint64_t test_many(const uint64_t* hashes, size_t n, uint8_t* results) const noexcept {
    return test_many(KeySource::of_hashes(hashes), n, results);
  }
  // Test-and-add of n keys in order, as n calls of test_and_add_hash: results[i] = 1 when key i
  // was present before its add (an earlier key of the batch counts). A bulk test first (its
  // prefetches bring the blocks), then the keys it did not find are added one by one, in order.
  // Returns the number of new keys.
  uint64_t test_and_add_many(const KeySource& keys, size_t n, uint8_t* results) noexcept;
  // The second half of test_and_add_many, which the growing filter's shares: after a bulk test
  // wrote results[0, n), each key it did not find is test-and-added in order by
  // test_and_add(hash) (true: it was present), its answer written over the test's. Returns the
  // new keys.
  template <class TestAndAdd>
  static uint64_t add_not_found(const uint64_t* hashes, size_t n, uint8_t* results,
                                TestAndAdd test_and_add) noexcept {
    uint64_t fresh = 0;
    for (size_t i = 0; i < n; ++i) {
      if (results[i] != 0) continue;
      const bool present = test_and_add(hashes[i]);
      results[i] = present ? 1 : 0;
      fresh += present ? 0 : 1;
    }
    return fresh;
  }

  // Set operations on filters of the same shape (else Errc::mismatch, nothing changed).
  Errc union_with(const Filter& other) noexcept;
  Errc intersect_with(const Filter& other) noexcept;
  void clear() noexcept;
  bool equals(const Filter& other) const noexcept;

  // Introspection (each reads every word).
  double estimate_count() const noexcept;
  // The value the file header records (format.cpp): see filter.cpp.
  double header_key_estimate() const noexcept;
  double estimate_fpr() const noexcept;

  // Raw shard storage, for serialization and tests.
  uint32_t shard_count() const noexcept { return shape_.shards(); }
  const uint64_t* shard_words(uint32_t s) const noexcept { return shard_ptrs_[s]; }
  // Every shard's first word, shard_count() of them; the array and the shards stay where they
  // are for the filter's life (the C API hands them out: abloom_get_memory).
  const uint64_t* const* shard_pointers() const noexcept { return shard_ptrs_.data(); }
  uint64_t* const* writable_shard_pointers() noexcept { return shard_ptrs_.data(); }

 private:
  bool add_hash_impl(uint64_t h) noexcept;
  template <class Writer>
  bool add_classic(uint64_t h) noexcept;
  bool test_classic(uint64_t h) const noexcept;
  __attribute__((noinline)) int classic_test_key(const void* key, size_t len) const noexcept;
  __attribute__((noinline)) int classic_add_key(const void* key, size_t len) noexcept;
  // Prefetches the k lines of a classic key.
  void prefetch_classic(uint64_t h) const noexcept;
  // The classic kind's bulk loop (bulk.cpp): fn(i, hash of key i), lines prefetched ahead.
  template <class Fn>
  void classic_loop(const KeySource& keys, size_t n, Fn fn) const noexcept;
  // One thread's share of a bulk call (bulk.cpp): n keys from `keys`, on the calling thread.
  uint64_t add_serial(const KeySource& keys, size_t n, WriterMode mode, NewKeys count) noexcept;
  uint64_t test_serial(const KeySource& keys, size_t n, uint8_t* results) const noexcept;
  template <class Fn>
  void for_each_word_pair(const Filter& other, Fn fn) const noexcept;

  Shape shape_;
  FilterParams params_;
  std::vector<AlignedBuffer> shards_;  // owned storage (empty for external storage)
  std::vector<uint64_t*> shard_ptrs_;  // where each shard's words are, for one load per key
  BlockedView view_;                   // shape_ and shard_ptrs_ as the kernels read them
  WriterMode writer_ = WriterMode::shared;
  std::atomic<uint32_t> threads_{1};
  std::unique_ptr<ExternalMemory> memory_;
  Storage storage_ = Storage::owned;
  bool read_only_ = false;
  bool opened_stale_ = false;
};

}  // namespace abloom
