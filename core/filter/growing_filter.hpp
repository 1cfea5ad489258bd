// A growing filter: a chain of ordinary filters (stages) that needs no capacity up front. Stage i
// has the capacity and the FPR target that core/model/growth.hpp gives it; a new stage is appended
// when the newest one's count of new keys reaches its capacity, so the chain's FPR stays below the
// target at any count (the bound is in growth.hpp).
//
// Concurrency, as for one Filter: any number of threads add and test at once, lock-free. The
// stages live in a fixed table of atomic pointers, published in order by an atomic count; a stage,
// once published, stays until the filter is destroyed (so a reader never meets a freed one). The
// thread whose add fills the newest stage, and any that see it full, try to append the next: the
// one whose compare-and-swap on that slot wins publishes it, the others free theirs. A key's bits
// go into the newest stage a thread saw; a stage may end a few keys over its capacity with many
// writers (each counts its own new keys). No false negative: a test probes every published stage.
//
// All stages hash with the same seed: one hash per key, whatever the number of stages.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "errc.hpp"
#include "filter/filter.hpp"
#include "model/growth.hpp"

namespace abloom {

class GrowingFilter;

// Where a chain's new stages go when its stages live in a file opened read-write
// (file_io.cpp): not owned memory, but the file's end. Set once, before the chain is shared.
class StageStore {
 public:
  virtual ~StageStore() = default;
  // Stage n of `chain` (planned as `plan`, with these params), empty, appended to the store and
  // written there as the stage n the chain's file names; nullptr when it cannot be (errno). Runs
  // under the chain's growth lock: one at a time, stage n not yet published.
  virtual std::unique_ptr<Filter> append_stage(const GrowingFilter& chain, uint32_t n,
                                               const Shape& shape,
                                               const FilterParams& params) noexcept = 0;
  // Before stage `stages - 1`, just appended, is published: the store's own record of the chain
  // (its header and table) names the first `stages` stages. No key reaches a stage before the
  // store names it, so a store whose writer dies before this has nothing in the new stage's bytes.
  virtual void stage_named(const GrowingFilter& chain, uint32_t stages) noexcept = 0;
  // Makes the store hold every stage's bits and counts (Filter::sync's meaning, for the chain).
  virtual Errc sync(const GrowingFilter& chain, bool last) noexcept = 0;
};

class GrowingFilter {
 public:
  // Stage 0 is built at once: throws std::bad_alloc; a bad request leaves status() != ok.
  GrowingFilter(const GrowthRequest& req, uint64_t seed);
  // A chain of existing stages (deserialized ones): stages[i] must be stage i of `req`, which
  // the caller has checked, and keys[i] its count of new keys. status() is check_growth's.
  GrowingFilter(const GrowthRequest& req, uint64_t seed,
                std::vector<std::unique_ptr<Filter>> stages, const std::vector<uint64_t>& keys,
                bool growth_failed);
  ~GrowingFilter();
  GrowingFilter(const GrowingFilter&) = delete;
  GrowingFilter& operator=(const GrowingFilter&) = delete;

  // Errc::ok when the request was valid and stage 0 was planned; the other members are usable
  // only then (the C layer checks it before handing the filter out).
  Errc status() const noexcept { return status_; }
  const GrowthRequest& request() const noexcept { return req_; }
  uint64_t seed() const noexcept { return seed_; }

  uint32_t stages() const noexcept { return count_.load(std::memory_order_acquire); }
  const Filter& stage(uint32_t i) const noexcept {
    return *slots_[i].load(std::memory_order_acquire);
  }
  // Keys counted as new in stage i (its fill, for the estimates and the next stage's start).
  uint64_t stage_keys(uint32_t i) const noexcept {
    return added_[i].load(std::memory_order_relaxed);
  }
  // Whether the chain could not append a stage when it had to (the limits, or no memory): the
  // newest stage then takes every key, past its capacity, and the FPR is no longer held.
  bool growth_failed() const noexcept { return growth_failed_.load(std::memory_order_relaxed); }

  uint64_t hash(const void* key, size_t len) const noexcept { return hash_key(seed_, key, len); }

  // Newest stage first: most keys of a grown filter are in its last stages.
  bool test_hash(uint64_t h) const noexcept;
  // Adds h unless some stage holds it; returns whether it was present (as Filter's).
  bool test_and_add_hash(uint64_t h) noexcept { return test_and_add_from(0, h); }
  void add_hash(uint64_t h) noexcept { (void)test_and_add_hash(h); }

  // Bulk, over hashes: results[i] = 1 when key i is present. Each stage's bulk pipeline probes the
  // keys no newer stage has found. Returns the number found.
  uint64_t test_many(const uint64_t* hashes, size_t n, uint8_t* results) const noexcept;
  // Adds every key no stage holds into the newest stage, in runs no longer than its room, so
  // that a stage fills to its capacity and the next takes the rest. Returns the new keys.
  uint64_t add_many(const uint64_t* hashes, size_t n) noexcept;

  // Bulk over keys (arrays, packed or fixed-length: KeySource), hashed once in chunks with the
  // filter's seed, then as the hashes above. Keys of `keys.hashes` form go straight through.
  uint64_t test_many(const KeySource& keys, size_t n, uint8_t* results) const noexcept;
  uint64_t add_many(const KeySource& keys, size_t n) noexcept;
  // Test-and-add of n keys in order, as Filter::test_and_add_many: the stages there are at the
  // start are tested in bulk; a key none holds is then added on its own, tested only against the
  // stages from the newest of those on (where this batch's earlier keys went). Returns the number
  // of new keys.
  uint64_t test_and_add_many(const KeySource& keys, size_t n, uint8_t* results) noexcept;

  void set_writer_mode(WriterMode mode) noexcept;
  WriterMode writer_mode() const noexcept {
    return static_cast<WriterMode>(writer_mode_.load(std::memory_order_relaxed));
  }
  // The threads bulk calls of every stage may use (Filter::set_threads), stages to come included.
  void set_threads(uint32_t threads) noexcept;
  uint32_t threads() const noexcept { return threads_.load(std::memory_order_relaxed); }

  // Where the stages' bits live, and whether writes are refused: stage 0's, which the loader
  // made as every stage (new stages are owned and writable, and come only to writable chains).
  Storage storage() const noexcept { return stage(0).storage(); }
  bool read_only() const noexcept { return stage(0).read_only(); }
  // Whether some stage's bytes carried the stale mark when opened (Filter::opened_stale).
  bool opened_stale() const noexcept;
  // Refuses every write from now on (abloom_sync_last): each stage becomes read-only.
  void make_read_only() noexcept;

  // A chain whose stages live in a file opened read-write: new stages go to `store` (under a
  // lock: growth is rare; adds and tests stay lock-free), and sync reaches it. Before the chain is
  // shared with other threads.
  void set_store(std::unique_ptr<StageStore> store) noexcept { store_ = std::move(store); }
  // The store's sync (Filter::sync's meaning): ok when there is none. Under the growth lock, so
  // that no stage is appended while the store writes its record of the stages.
  Errc sync(bool last) const noexcept;
  // Appends the next stage now, as a full newest stage would (a chain opened read-write adopts
  // the stage a killed writer had begun to append: file_io.cpp). false when it cannot.
  bool grow_now() noexcept { return grow(stages()); }

  // A deep copy into owned memory (every stage published now, and its count). Throws
  // std::bad_alloc.
  std::unique_ptr<GrowingFilter> copy() const;

  // Clears every stage's bits and count. The stages stay (memory is not given back), and new keys
  // go to the newest, whose FPR target is the tightest: the bound holds. Not safe against
  // concurrent adds (as Filter::clear).
  void clear() noexcept;

  // Union, stage by stage: both chains made with the same request and seed (else
  // Errc::mismatch and nothing changes); this chain first grows to the other's stage count (a
  // stage's shape is a function of the request), then each stage takes the other's bits and
  // counts. Not safe against concurrent growth of `other`. Errc::range when this chain cannot
  // grow that far (no memory).
  Errc union_with(const GrowingFilter& other) noexcept;
  // Same request, seed and stages, with the same bits in each.
  bool equals(const GrowingFilter& other) const noexcept;
  // Same request and seed (what union_with needs).
  bool same_options(const GrowingFilter& other) const noexcept;

  // Estimates: the keys in all stages (each stage's estimate from its fill), and the chain's
  // FPR now, 1 - prod(1 - each stage's estimated FPR).
  double estimate_count() const noexcept;
  double estimate_fpr() const noexcept;

 private:
  // Stage i, for the calls that change it (stage(i) is the read-only view).
  Filter& mutable_stage(uint32_t i) noexcept { return *slots_[i].load(std::memory_order_acquire); }
  // Checks the request and fills capacity_ (status_ says how that went).
  void init_schedule() noexcept;
  // The bulk tests of stages [0, upto), newest first, over keys[0, n): the keys no stage holds
  // move to the front, with their indices in `where` when it is given; a found key's
  // results[where[i]] becomes 1 when `results` is given. scratch[0, 2n) is scratch. Returns the
  // keys left.
  size_t drop_held(uint32_t upto, uint64_t* keys, uint32_t* where, size_t n, uint8_t* scratch,
                   uint8_t* results) const noexcept;
  // test_and_add_hash for a key that stages [0, first) are known not to hold.
  bool test_and_add_from(uint32_t first, uint64_t h) noexcept;
  // Appends stage `n` if the chain still has n stages; false when it cannot.
  bool grow(uint32_t n) noexcept;
  bool grow_in_store(uint32_t n) noexcept;
  // Counts `fresh` new keys into stage n, growing when that fills it.
  void count_new(uint32_t n, uint64_t fresh) noexcept;

  GrowthRequest req_;
  uint64_t seed_;
  Errc status_ = Errc::ok;
  std::array<std::atomic<Filter*>, kMaxStages> slots_{};
  std::array<uint64_t, kMaxStages> capacity_{};  // from the request, at construction (0: none)
  std::array<std::atomic<uint64_t>, kMaxStages> added_{};
  std::atomic<uint32_t> count_{0};
  std::atomic<bool> growth_failed_{false};
  std::atomic<uint32_t> writer_mode_{static_cast<uint32_t>(WriterMode::shared)};
  std::atomic<uint32_t> threads_{1};
  std::unique_ptr<StageStore> store_;  // none: new stages are owned
  mutable std::mutex store_growth_;    // with a store: one append or sync at a time
};

}  // namespace abloom
