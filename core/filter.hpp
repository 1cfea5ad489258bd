// The filter engine: a lock-free Bloom filter of either kind over 2^s separately allocated,
// 64-byte-aligned shards. Every bit goes through std::atomic_ref with relaxed ordering, so any
// number of threads may add and test at once; adds skip the write when the bits are already
// set, so a shared cache line is not dirtied needlessly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "aligned_buffer.hpp"
#include "blocked_kernels.hpp"
#include "errc.hpp"
#include "hash.hpp"
#include "layout.hpp"
#include "sizing.hpp"

namespace abloom {

// Metadata that does not affect where bits go.
struct FilterParams {
  uint64_t capacity = 0;
  double target_fpr = 0;    // 0 when the layout was explicit
  double expected_fpr = 0;  // model FPR at capacity
  uint32_t threads = 1;     // threads bulk calls may use
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
  // its header and msyncs). Default: nothing to do.
  virtual Errc sync(const Filter& filter) noexcept {
    (void)filter;
    return Errc::ok;
  }
};

// Shards that live in external memory.
struct ExternalShards {
  std::vector<uint64_t*> shards;  // one pointer per shard, each 64-byte aligned
  std::unique_ptr<ExternalMemory> memory;
  Storage storage = Storage::view;
  bool read_only = true;
};

// A bulk input: n keys, given by one of three forms. The accessor hashes key i.
struct KeyArrays {
  const void* const* keys;
  const size_t* lens;
};
struct PackedKeys {
  const unsigned char* buf;
  const uint64_t* offsets;  // n + 1 entries
};

class Filter {
 public:
  // Allocates a zeroed filter. Throws std::bad_alloc.
  Filter(const Shape& shape, const FilterParams& params);
  // A filter over shards in external memory (views, mapped files). Throws std::bad_alloc.
  Filter(const Shape& shape, const FilterParams& params, ExternalShards external);
  Filter(const Filter& other);  // deep copy into owned memory; throws std::bad_alloc
  Filter& operator=(const Filter&) = delete;

  const Shape& shape() const noexcept { return shape_; }
  const FilterParams& params() const noexcept { return params_; }
  Storage storage() const noexcept { return storage_; }
  bool read_only() const noexcept { return read_only_; }
  // Flushes external storage (see ExternalMemory::sync); owned filters: nothing to do.
  Errc sync() const noexcept { return memory_ ? memory_->sync(*this) : Errc::ok; }

  uint64_t hash(const void* key, size_t len) const noexcept {
    return hash_key(shape_.seed, key, len);
  }

  void add_hash(uint64_t h) noexcept { (void)add_impl(h); }
  bool test_hash(uint64_t h) const noexcept {
    if (shape_.kind == Kind::blocked) return blocked_kernels().test(block_of(h), h, shape_.k);
    return test_classic(h);
  }
  // Adds h and returns whether all its bits were set before (from the values fetch_or returned).
  bool test_and_add_hash(uint64_t h) noexcept { return add_impl(h); }

  // Bulk: hash a window, prefetch its blocks, then probe. Return the number of new keys / found.
  uint64_t add_many(const uint64_t* hashes, size_t n) noexcept;
  uint64_t add_many(const KeyArrays& keys, size_t n) noexcept;
  uint64_t add_many(const PackedKeys& keys, size_t n) noexcept;
  uint64_t test_many(const uint64_t* hashes, size_t n, uint8_t* results) const noexcept;
  uint64_t test_many(const KeyArrays& keys, size_t n, uint8_t* results) const noexcept;
  uint64_t test_many(const PackedKeys& keys, size_t n, uint8_t* results) const noexcept;

  // Set operations on filters of the same shape (else Errc::mismatch, nothing changed).
  Errc union_with(const Filter& other) noexcept;
  Errc intersect_with(const Filter& other) noexcept;
  void clear() noexcept;
  bool equals(const Filter& other) const noexcept;

  // Introspection (each reads every word).
  double estimate_count() const noexcept;
  double estimate_fpr() const noexcept;

  // Raw shard storage, for serialization and tests.
  uint32_t shard_count() const noexcept { return shape_.shards(); }
  const uint64_t* shard_words(uint32_t s) const noexcept { return shard_ptrs_[s]; }

 private:
  uint64_t* block_of(uint64_t h) const noexcept {
    return shard_ptrs_[shape_.shard_of(h)] + shape_.block_word_offset(h);
  }
  bool add_impl(uint64_t h) noexcept;
  bool test_classic(uint64_t h) const noexcept;
  // Prefetches the k lines of a classic key.
  void prefetch_classic(uint64_t h) const noexcept;
  // The bulk pipeline (bulk.cpp): hashes keys a window at a time and prefetches their lines one
  // window ahead of `probe(refs, first_index, count)`, which handles a window; sums its results.
  template <bool kForWrite, class HashAt, class Probe>
  uint64_t windows(HashAt hash_at, size_t n, Probe probe) const noexcept;
  template <class HashAt>
  uint64_t add_pipeline(HashAt hash_at, size_t n) noexcept;
  template <class HashAt>
  uint64_t test_pipeline(HashAt hash_at, size_t n, uint8_t* results) const noexcept;
  template <class HashAt>
  uint64_t add_bulk(HashAt hash_at, size_t n) noexcept;
  template <class HashAt>
  uint64_t test_bulk(HashAt hash_at, size_t n, uint8_t* results) const noexcept;
  template <class Fn>
  void for_each_word_pair(const Filter& other, Fn fn) const noexcept;

  Shape shape_;
  FilterParams params_;
  std::vector<AlignedBuffer> shards_;  // owned storage (empty for external storage)
  std::vector<uint64_t*> shard_ptrs_;  // where each shard's words are, for one load per key
  std::unique_ptr<ExternalMemory> memory_;
  Storage storage_ = Storage::owned;
  bool read_only_ = false;
};

}  // namespace abloom
