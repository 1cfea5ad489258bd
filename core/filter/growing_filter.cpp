#include "filter/growing_filter.hpp"

#include <algorithm>
#include <bit>
#include <new>
#include <vector>

namespace abloom {
namespace {

// What stage `i` of `req`, planned as `plan`, records of itself (in memory or in a file).
FilterParams stage_params(const GrowthRequest& req, uint32_t i, const Plan& plan, uint64_t capacity,
                          uint32_t threads) noexcept {
  FilterParams params;
  params.capacity = capacity;
  params.target_fpr = req.fpr * stage_fpr_share(i);
  params.expected_fpr = plan.expected_fpr;
  params.threads = threads;
  return params;
}

// Stage `i` of `req`, built to its plan: throws std::bad_alloc.
std::unique_ptr<Filter> build_stage(const GrowthRequest& req, uint32_t i, const Plan& plan,
                                    uint64_t capacity, uint64_t seed, WriterMode mode,
                                    uint32_t threads) {
  auto f =
      std::make_unique<Filter>(plan.shape(seed), stage_params(req, i, plan, capacity, threads));
  f->set_writer_mode(mode);
  return f;
}

}  // namespace

void GrowingFilter::init_schedule() noexcept {
  status_ = check_growth(req_);
  if (status_ != Errc::ok) return;
  for (uint32_t i = 0; i < kMaxStages; ++i) {
    if (stage_capacity(req_, i, &capacity_[i]) != Errc::ok) break;  // the rest stay 0
  }
}

GrowingFilter::GrowingFilter(const GrowthRequest& req, uint64_t seed) : req_(req), seed_(seed) {
  init_schedule();
  if (status_ != Errc::ok) return;
  Plan plan;
  status_ = plan_stage(req_, 0, &plan);
  if (status_ != Errc::ok) return;
  slots_[0].store(build_stage(req_, 0, plan, capacity_[0], seed_, WriterMode::shared, 1).release(),
                  std::memory_order_relaxed);
  count_.store(1, std::memory_order_release);
}

GrowingFilter::GrowingFilter(const GrowthRequest& req, uint64_t seed,
                             std::vector<std::unique_ptr<Filter>> stages,
                             const std::vector<uint64_t>& keys, bool growth_failed)
    : req_(req), seed_(seed) {
  init_schedule();
  if (status_ != Errc::ok) return;
  const auto n = static_cast<uint32_t>(std::min<size_t>(stages.size(), kMaxStages));
  for (uint32_t i = 0; i < n; ++i) {
    slots_[i].store(stages[i].release(), std::memory_order_relaxed);
    added_[i].store(i < keys.size() ? keys[i] : 0, std::memory_order_relaxed);
  }
  growth_failed_.store(growth_failed, std::memory_order_relaxed);
  count_.store(n, std::memory_order_release);
}

GrowingFilter::~GrowingFilter() {
  for (auto& slot : slots_) delete slot.load(std::memory_order_relaxed);
}

bool GrowingFilter::test_hash(uint64_t h) const noexcept {
  for (uint32_t i = stages(); i-- > 0;) {
    if (stage(i).test_hash(h)) return true;
  }
  return false;
}

bool GrowingFilter::grow(uint32_t n) noexcept {
  if (count_.load(std::memory_order_acquire) != n) return true;  // someone else did
  if (n >= kMaxStages || capacity_[n] == 0) {
    growth_failed_.store(true, std::memory_order_relaxed);
    return false;
  }
  if (store_) return grow_in_store(n);
  const auto mode = static_cast<WriterMode>(writer_mode_.load(std::memory_order_relaxed));
  Plan plan;
  Filter* next = nullptr;
  try {
    if (plan_stage(req_, n, &plan) == Errc::ok) {
      next = build_stage(req_, n, plan, capacity_[n], seed_, mode, threads()).release();
    }
  } catch (const std::bad_alloc&) {
  }
  if (next == nullptr) {  // the limits, or no memory
    growth_failed_.store(true, std::memory_order_relaxed);
    return false;
  }
  Filter* expected = nullptr;
  if (!slots_[n].compare_exchange_strong(expected, next, std::memory_order_acq_rel)) {
    delete next;  // another thread's stage n is the one
  }
  // Slot n is filled (by this thread or, seen through the acquire above, another): publish it.
  // Every thread that saw the slot filled moves the count from n to n + 1, not only the winner,
  // so that none returns before the count has moved: a caller that found stage n - 1 full and
  // still saw n stages would add its whole run to the full stage (bulk adds did, under TSan's
  // timing, at 4.6x a stage's capacity). A compare-exchange, so a late thread never moves the
  // count back from a later stage.
  uint32_t published = n;
  count_.compare_exchange_strong(published, n + 1, std::memory_order_acq_rel);
  return true;
}

// grow for a chain with a store: the stage's bytes are the store's (a file's end), made once,
// so the appends are serialised instead of raced and the losers' stages freed.
bool GrowingFilter::grow_in_store(uint32_t n) noexcept {
  const std::lock_guard<std::mutex> lock(store_growth_);
  if (count_.load(std::memory_order_acquire) != n) return true;  // appended while we waited
  Plan plan;
  std::unique_ptr<Filter> next;
  if (plan_stage(req_, n, &plan) == Errc::ok) {
    next = store_->append_stage(*this, n, plan.shape(seed_),
                                stage_params(req_, n, plan, capacity_[n], threads()));
  }
  if (!next) {  // the limits, no memory, or the file could not grow
    growth_failed_.store(true, std::memory_order_relaxed);
    return false;
  }
  next->set_writer_mode(static_cast<WriterMode>(writer_mode_.load(std::memory_order_relaxed)));
  slots_[n].store(next.release(), std::memory_order_release);
  // The file's header and table name the stage before any key can reach it: a writer killed
  // before this leaves the stage's bytes empty past the chain's end (readers take the chain as
  // named, and a read-write open adopts them); killed after, the stage is part of the chain.
  store_->stage_named(*this, n + 1);
  count_.store(n + 1, std::memory_order_release);
  return true;
}

Errc GrowingFilter::sync(bool last) const noexcept {
  if (!store_) return Errc::ok;
  const std::lock_guard<std::mutex> lock(store_growth_);
  return store_->sync(*this, last);
}

void GrowingFilter::count_new(uint32_t n, uint64_t fresh) noexcept {
  if (fresh == 0) return;
  const uint64_t now = added_[n].fetch_add(fresh, std::memory_order_relaxed) + fresh;
  if (now >= capacity_[n]) (void)grow(n + 1);
}

bool GrowingFilter::test_and_add_from(uint32_t first, uint64_t h) noexcept {
  const uint32_t n = stages();
  for (uint32_t i = first; i + 1 < n; ++i) {
    if (stage(i).test_hash(h)) return true;
  }
  Filter& newest = mutable_stage(n - 1);
  if (newest.test_and_add_hash(h)) return true;
  count_new(n - 1, 1);
  return false;
}

namespace {

// Moves the keys of keys[0, n) that `held` does not mark to the front (with their indices in
// `where` when given), marking results[where[i]] for the held ones when `results` is given.
// Returns how many are left.
size_t keep_unheld(uint64_t* keys, uint32_t* where, size_t n, const uint8_t* held,
                   uint8_t* results) noexcept {
  size_t keep = 0;
  for (size_t i = 0; i < n; ++i) {
    if (held[i]) {
      if (results != nullptr) results[where[i]] = 1;
    } else {
      keys[keep] = keys[i];
      if (where != nullptr) where[keep] = where[i];
      ++keep;
    }
  }
  return keep;
}

}  // namespace

size_t GrowingFilter::drop_held(uint32_t upto, uint64_t* keys, uint32_t* where, size_t n,
                                uint8_t* scratch, uint8_t* results) const noexcept {
  // Each stage's bulk test runs over the keys still in play and marks what it finds. They are
  // compacted only when a stage found enough of them for the copy to pay: an absent key, the
  // common answer, meets every stage, and compacting after each then cost as much as the stages'
  // probes together (bench/JOURNAL.md, "Growing filters: one pass over every stage is no
  // faster").
  uint8_t* found = scratch;
  uint8_t* held = scratch + n;
  std::fill(held, held + n, uint8_t{0});
  for (uint32_t s = upto; s-- > 0 && n > 0;) {
    stage(s).test_many(keys, n, found);
    size_t fresh = 0;
    for (size_t i = 0; i < n; ++i) {
      fresh += found[i] & (held[i] ^ 1u);
      held[i] |= found[i];
    }
    if (s > 0 && fresh > n / 4) {
      const size_t left = keep_unheld(keys, where, n, held, results);
      std::fill(held, held + left, uint8_t{0});
      n = left;
    }
  }
  return keep_unheld(keys, where, n, held, results);
}

uint64_t GrowingFilter::test_many(const uint64_t* hashes, size_t n,
                                  uint8_t* results) const noexcept {
  std::fill(results, results + n, uint8_t{0});
  const uint32_t count = stages();
  // The keys still unanswered, compacted between stages (indices into `hashes`).
  constexpr size_t kChunk = 65536;
  std::vector<uint64_t> pending;
  std::vector<uint32_t> where;
  std::vector<uint8_t> found;
  uint64_t total = 0;
  for (size_t base = 0; base < n; base += kChunk) {
    const size_t m = std::min(kChunk, n - base);
    try {
      pending.assign(hashes + base, hashes + base + m);
      where.resize(m);
      found.resize(2 * m);
    } catch (const std::bad_alloc&) {
      // No room to compact: one key at a time, still exact.
      for (size_t i = 0; i < m; ++i)
        total += results[base + i] = test_hash(hashes[base + i]) ? 1 : 0;
      continue;
    }
    for (size_t i = 0; i < m; ++i) where[i] = static_cast<uint32_t>(i);
    total += m - drop_held(count, pending.data(), where.data(), m, found.data(), results + base);
  }
  return total;
}

uint64_t GrowingFilter::add_many(const uint64_t* hashes, size_t n) noexcept {
  // A run claims its room in the newest stage before adding (a compare-and-swap on the stage's
  // count), and gives back what turned out not to be new after: so writers in bulk never take
  // a stage past its capacity together, and the stage fills to it.
  constexpr uint64_t kMaxRun = 65536;
  uint64_t fresh_total = 0;
  size_t i = 0;
  while (i < n) {
    const uint32_t last = stages() - 1;
    std::atomic<uint64_t>& added = added_[last];
    uint64_t before = added.load(std::memory_order_relaxed);
    uint64_t run = 0;
    for (;;) {
      const uint64_t room = before < capacity_[last] ? capacity_[last] - before : 0;
      if (room == 0) break;
      run = std::min<uint64_t>({room, n - i, kMaxRun});
      if (added.compare_exchange_weak(before, before + run, std::memory_order_relaxed)) break;
      run = 0;
    }
    if (run == 0) {
      // Full: the next stage takes the rest; where none can be added, the newest takes it all.
      if (grow(last + 1) && stages() > last + 1) continue;
      run = std::min<uint64_t>(n - i, kMaxRun);
      added.fetch_add(run, std::memory_order_relaxed);
    }
    uint64_t fresh = 0;
    std::vector<uint64_t> rest;
    std::vector<uint8_t> found;
    try {
      if (last > 0) {
        rest.assign(hashes + i, hashes + i + run);
        found.resize(2 * run);
      }
    } catch (const std::bad_alloc&) {
      added.fetch_sub(run, std::memory_order_relaxed);
      for (size_t j = 0; j < run; ++j) fresh += test_and_add_hash(hashes[i + j]) ? 0 : 1;
      fresh_total += fresh;
      i += run;
      continue;  // counted key by key
    }
    Filter& newest = mutable_stage(last);
    if (last == 0) {
      fresh = newest.add_many(hashes + i, run);
    } else {
      // Keys an older stage holds are not added again: each older stage's bulk pipeline drops
      // the ones it holds, then the newest stage takes the rest in bulk.
      const size_t left = drop_held(last, rest.data(), nullptr, run, found.data(), nullptr);
      fresh = newest.add_many(rest.data(), left);
    }
    added.fetch_sub(run - fresh, std::memory_order_relaxed);
    fresh_total += fresh;
    i += run;
  }
  return fresh_total;
}

void GrowingFilter::set_writer_mode(WriterMode mode) noexcept {
  writer_mode_.store(static_cast<uint32_t>(mode), std::memory_order_relaxed);
  for (uint32_t i = 0; i < stages(); ++i) mutable_stage(i).set_writer_mode(mode);
}

void GrowingFilter::set_threads(uint32_t threads) noexcept {
  threads_.store(threads == 0 ? 1 : threads, std::memory_order_relaxed);
  for (uint32_t i = 0; i < stages(); ++i) mutable_stage(i).set_threads(threads);
}

bool GrowingFilter::opened_stale() const noexcept {
  for (uint32_t i = 0; i < stages(); ++i) {
    if (stage(i).opened_stale()) return true;
  }
  return false;
}

void GrowingFilter::make_read_only() noexcept {
  for (uint32_t i = 0; i < stages(); ++i) (void)mutable_stage(i).sync_last();
}

std::unique_ptr<GrowingFilter> GrowingFilter::copy() const {
  const uint32_t n = stages();
  std::vector<std::unique_ptr<Filter>> filters;
  std::vector<uint64_t> keys;
  for (uint32_t i = 0; i < n; ++i) {
    filters.push_back(std::make_unique<Filter>(stage(i)));
    keys.push_back(stage_keys(i));
  }
  auto out =
      std::make_unique<GrowingFilter>(req_, seed_, std::move(filters), keys, growth_failed());
  out->set_writer_mode(writer_mode());
  out->set_threads(threads());
  return out;
}

void GrowingFilter::clear() noexcept {
  for (uint32_t i = 0; i < stages(); ++i) {
    mutable_stage(i).clear();
    added_[i].store(0, std::memory_order_relaxed);
  }
}

namespace {

// Runs fn(hashes, m, offset) over the keys' hashes, kChunk at a time (for_each_form: one switch
// on the keys' form per call). False, having run nothing, when there is no room for a chunk.
template <class Fn>
bool for_hash_chunks(const KeySource& keys, size_t n, uint64_t seed, Fn&& fn) noexcept {
  constexpr size_t kChunk = 4096;
  std::vector<uint64_t> h;
  try {
    h.resize(std::min(n, kChunk));
  } catch (const std::bad_alloc&) {
    return false;
  }
  for_each_form(keys, seed, [&](auto hash_at) {
    for (size_t base = 0; base < n; base += kChunk) {
      const size_t m = std::min(kChunk, n - base);
      for (size_t i = 0; i < m; ++i) h[i] = hash_at(base + i);
      fn(h.data(), m, base);
    }
  });
  return true;
}

// The hash of key i alone (the no-memory paths).
uint64_t hash_one(const KeySource& keys, size_t i, uint64_t seed) noexcept {
  return for_each_form(keys, seed, [i](auto hash_at) { return hash_at(i); });
}

}  // namespace

uint64_t GrowingFilter::test_many(const KeySource& keys, size_t n,
                                  uint8_t* results) const noexcept {
  if (keys.form == KeySource::Form::hashes) return test_many(keys.hashes, n, results);
  uint64_t found = 0;
  const bool ok = for_hash_chunks(keys, n, seed_, [&](const uint64_t* h, size_t m, size_t base) {
    found += test_many(h, m, results + base);
  });
  if (!ok) {  // no room for a chunk of hashes: one key at a time, still exact
    for (size_t i = 0; i < n; ++i)
      found += results[i] = test_hash(hash_one(keys, i, seed_)) ? 1 : 0;
  }
  return found;
}

uint64_t GrowingFilter::add_many(const KeySource& keys, size_t n) noexcept {
  if (keys.form == KeySource::Form::hashes) return add_many(keys.hashes, n);
  uint64_t fresh = 0;
  const bool ok = for_hash_chunks(
      keys, n, seed_, [&](const uint64_t* h, size_t m, size_t) { fresh += add_many(h, m); });
  if (!ok) {
    for (size_t i = 0; i < n; ++i) fresh += test_and_add_hash(hash_one(keys, i, seed_)) ? 0 : 1;
  }
  return fresh;
}

bool GrowingFilter::same_options(const GrowingFilter& other) const noexcept {
  const GrowthRequest& a = req_;
  const GrowthRequest& b = other.req_;
  return seed_ == other.seed_ && a.kind == b.kind && a.layout_auto == b.layout_auto &&
         (a.layout_auto || a.layout == b.layout) && capacity_ == other.capacity_ &&
         std::bit_cast<uint64_t>(a.fpr) == std::bit_cast<uint64_t>(b.fpr) && a.shards == b.shards;
}

Errc GrowingFilter::union_with(const GrowingFilter& other) noexcept {
  if (!same_options(other)) return Errc::mismatch;
  // With itself: the bits would stay, but each stage's count would double (abloom.h promises
  // that a union with itself changes nothing).
  if (&other == this) return Errc::ok;
  const uint32_t theirs = other.stages();
  while (stages() < theirs) {
    if (!grow(stages())) return Errc::range;
  }
  for (uint32_t i = 0; i < theirs; ++i) {
    Filter& mine = mutable_stage(i);
    if (Errc e = mine.union_with(other.stage(i)); e != Errc::ok) return e;  // same shapes: ok
    added_[i].fetch_add(other.stage_keys(i), std::memory_order_relaxed);
  }
  return Errc::ok;
}

bool GrowingFilter::equals(const GrowingFilter& other) const noexcept {
  if (!same_options(other) || stages() != other.stages()) return false;
  for (uint32_t i = 0; i < stages(); ++i) {
    if (!stage(i).equals(other.stage(i))) return false;
  }
  return true;
}

double GrowingFilter::estimate_count() const noexcept {
  double sum = 0;
  for (uint32_t i = 0; i < stages(); ++i) sum += stage(i).estimate_count();
  return sum;
}

double GrowingFilter::estimate_fpr() const noexcept {
  double none = 1;
  for (uint32_t i = 0; i < stages(); ++i) none *= 1 - stage(i).estimate_fpr();
  return 1 - none;
}

uint64_t GrowingFilter::test_and_add_many(const KeySource& keys, size_t n,
                                          uint8_t* results) noexcept {
  uint64_t fresh = 0;
  const auto batch = [&](const uint64_t* h, size_t m, size_t base) {
    uint8_t* out = results + base;
    const uint32_t first = stages() - 1;  // where this batch's keys go first
    (void)test_many(h, m, out);
    fresh += Filter::add_not_found(
        h, m, out, [this, first](uint64_t hash) { return test_and_add_from(first, hash); });
  };
  if (keys.form == KeySource::Form::hashes) {
    batch(keys.hashes, n, 0);
  } else if (!for_hash_chunks(keys, n, seed_, batch)) {
    // No room for a chunk of hashes: one key at a time, still exact.
    for (size_t i = 0; i < n; ++i) {
      const bool present = test_and_add_hash(hash_one(keys, i, seed_));
      results[i] = present ? 1 : 0;
      fresh += present ? 0 : 1;
    }
  }
  return fresh;
}

}  // namespace abloom
