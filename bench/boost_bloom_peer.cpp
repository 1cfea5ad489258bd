// boost_bloom_peer.cpp - abloom against Boost.Bloom (issue 53), same process, same keys. Built
// only when CMake is given Boost's headers (-DABLOOM_BENCH_BOOST_BLOOM=DIR, see
// bench/boost_bloom_headers.sh); nothing of Boost is in this repository.
//
// The filters, for n keys (16 bytes each, from bench/key_stream.hpp's SplitMix64):
//   abloom        abloom_create with capacity n and the default 1% target (blocked kind, split
//                 layout, k = 7, 10.12 bits/key), the library's best kernel (AVX-512 where the
//                 CPU has it).
//   abloom_avx2   the same filter (its own copy) with the AVX2 kernel forced for each call
//                 (abloom_set_isa; its abloom_inline made under it): the kernel cachegrind
//                 runs, and a check of AVX-512 against AVX2 on the same CPU.
//   abloom_half   the half layout (ABLOOM_LAYOUT_HALF: k = 8 in one 32-byte half of the block,
//                 fast_multiblock32<8>'s shape) with abloom's bit count, as Boost's filters get:
//                 its FPR is then about 1.2%, as fmb32x8_s0's.
//   fmb32_s1      boost::bloom::filter<std::string_view, 1, fast_multiblock32<7>, 1>: Boost's
//                 fastest family, 7 bits in 7 consecutive 32-bit words at any byte offset
//                 (Stride 1: overlapping subarrays).
//   fmb32x8_s0    filter<std::string_view, 1, fast_multiblock32<8>>: 8 bits in an aligned
//                 32-byte block (Stride 0: the subarray's own size, no overlap); k fixed at 8.
//   fmb64_s0      filter<std::string_view, 1, fast_multiblock64<7>>: 7 bits in 7 consecutive
//                 64-bit words, subarrays of 56 bytes without overlap.
// Every Boost filter gets at most abloom's bit count (its capacity() is printed, with its
// model FPR and the measured FPR on 2^20 absent keys); K = 7 is Boost's model optimum for
// fast_multiblock32 and fast_multiblock64 at 10.12 bits/key. Each library hashes as its users
// get it: abloom XXH3-64 inside its calls, Boost boost::hash<std::string_view> (container_hash's
// mulx-based byte hash, marked avalanching, so no extra mix). Boost is compiled into this loop and
// sees each key as a std::string_view of constant length 16 (an iterator over the packed keys);
// abloom gets the packed buffer and its offsets through the C ABI. This file is compiled with
// -march=native -mno-avx512f (bench/CMakeLists.txt says why): Boost picks its AVX2 code at
// compile time and has no AVX-512 code; abloom runs its best kernel (AVX-512 where there is one).
//
// Ops, per key, batches of 4096 keys per iteration:
//   test_bulk_present / test_bulk_absent   abloom_test_packed; Boost's bulk
//       may_contain(first, last, f) (Boost 1.90) storing each answer byte, as abloom does.
//   add_bulk       abloom_add_packed with the writer mode ABLOOM_WRITER_EXCLUSIVE and no count
//                  (added NULL); Boost's bulk insert(first, last) (plain stores: one writing
//                  thread, as exclusive; no count).
//   add_bulk_counted    the same with `added` (the count of new keys); abloom only.
//   add_bulk_lockfree   abloom_add_packed in the default writer mode (atomic ORs); abloom only.
//   test_single_present / test_single_absent   abloom_inline_test (capi/abloom_inline.h) in a
//       loop; Boost's may_contain(key) in the same loop.
// Absent keys are a pool of 2^20 keys never added; present keys the first 2^20 added keys
// (cycled over the first min(n, 2^20)). Adds go into a second filter, cleared (outside the
// timing) when it has taken n keys; the pool is renewed (outside the timing) when used up.
//
// Usage: boost_bloom_peer [--sizes=1M,10M,100M] [--benchmark_*]
//   Defaults: --sizes=1M,10M --benchmark_min_time=0.05 --benchmark_repetitions=5
//   --benchmark_enable_random_interleaving=true (every repetition of every benchmark in a random
//   order, so abloom's and Boost's runs interleave). At the end: a markdown table of the best
//   repetition of each (ns per key) and abloom's time over fmb32_s1's and over the fastest Boost
//   filter's for that op and size.
// Counting mode (for cachegrind): boost_bloom_peer --count=IMPL/OP/N [--sizes=1M] builds the
//   filters of IMPL for the first size exactly as above, then runs OP once over N keys (N = 0:
//   the baseline) and exits: count(N) - count(0) is N keys of OP. See bench/RESULTS.md.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <boost/bloom/fast_multiblock32.hpp>
#include <boost/bloom/fast_multiblock64.hpp>
#include <boost/bloom/filter.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abloom.h"
#include "abloom_inline.h"
#include "benchmark_args.hpp"
#include "key_pool.hpp"
#include "report.hpp"

namespace {

constexpr size_t kKeyLen = 16;

// abloom_bench's keys (key_pool.hpp): the same fill stream and the same pool.
using bench::for_fill_keys;
using bench::kBatch;
using bench::kFillChunk;
using bench::kPoolKeys;
using bench::present_keys;

[[noreturn]] void die(const char* what, int rc) {
  bench::die("boost_bloom_peer", what, abloom_strerror(rc), rc);
}

std::string count_label(uint64_t n) {
  if (n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n % 1000 == 0) return std::to_string(n / 1000) + "K";
  return std::to_string(n);
}

// ---- Keys ------------------------------------------------------------------------------------

// Packed 16-byte keys seen as std::string_view of constant length: Boost's key type.
class Key16It {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = std::string_view;
  using difference_type = std::ptrdiff_t;
  using pointer = const std::string_view*;
  using reference = std::string_view;

  Key16It() = default;
  explicit Key16It(const uint64_t* w) : w_(w) {}
  std::string_view operator*() const {
    return std::string_view(reinterpret_cast<const char*>(w_), kKeyLen);
  }
  std::string_view operator[](difference_type i) const { return *(*this + i); }
  Key16It& operator++() {
    w_ += 2;
    return *this;
  }
  Key16It operator++(int) {
    Key16It t = *this;
    w_ += 2;
    return t;
  }
  Key16It& operator--() {
    w_ -= 2;
    return *this;
  }
  Key16It operator--(int) {
    Key16It t = *this;
    w_ -= 2;
    return t;
  }
  Key16It& operator+=(difference_type d) {
    w_ += 2 * d;
    return *this;
  }
  Key16It& operator-=(difference_type d) {
    w_ -= 2 * d;
    return *this;
  }
  friend Key16It operator+(Key16It a, difference_type d) { return a += d; }
  friend Key16It operator+(difference_type d, Key16It a) { return a += d; }
  friend Key16It operator-(Key16It a, difference_type d) { return a -= d; }
  friend difference_type operator-(Key16It a, Key16It b) { return (a.w_ - b.w_) / 2; }
  friend bool operator==(Key16It a, Key16It b) { return a.w_ == b.w_; }
  friend bool operator!=(Key16It a, Key16It b) { return a.w_ != b.w_; }
  friend bool operator<(Key16It a, Key16It b) { return a.w_ < b.w_; }

 private:
  const uint64_t* w_ = nullptr;
};

const std::vector<uint64_t>& batch_offsets() {
  static const std::vector<uint64_t> o =
      bench::packed_offsets(std::max(kBatch, kFillChunk), kKeyLen);
  return o;
}

bench::KeyPool& pool() {
  static bench::KeyPool p;
  return p;
}

// ---- The filters -----------------------------------------------------------------------------

enum class Op {
  TestBulkPresent,
  TestBulkAbsent,
  AddBulk,
  AddBulkCounted,
  AddBulkLockfree,
  TestSinglePresent,
  TestSingleAbsent
};
constexpr std::pair<Op, const char*> kOps[] = {
    {Op::TestBulkPresent, "test_bulk_present"},
    {Op::TestBulkAbsent, "test_bulk_absent"},
    {Op::AddBulk, "add_bulk"},
    {Op::AddBulkCounted, "add_bulk_counted"},
    {Op::AddBulkLockfree, "add_bulk_lockfree"},
    {Op::TestSinglePresent, "test_single_present"},
    {Op::TestSingleAbsent, "test_single_absent"},
};

// One filter implementation at one size: a filter holding the n fill keys (tests) and an
// empty one (adds), both made on first use.
class Peer {
 public:
  virtual ~Peer() = default;
  virtual bool has(Op) const { return true; }
  // Bulk test of n keys from w: answers to res, returns the count of 1s.
  virtual uint64_t test_bulk(const uint64_t* w, size_t n, uint8_t* res) = 0;
  // count: report how many keys were new (abloom's `added`; Boost has no such count).
  virtual void add_bulk(const uint64_t* w, size_t n, bool count) = 0;
  // Single-key tests of n keys from w, one call each: returns the count of 1s.
  virtual uint64_t test_single(const uint64_t* w, size_t n) = 0;
  virtual void prepare_full() = 0;
  virtual void prepare_add(bool exclusive) = 0;
  virtual void clear_add() = 0;
  virtual std::string describe() = 0;
};

uint64_t abloom_bits(uint64_t n);

struct AbloomFilter {
  abloom_filter* f = nullptr;
  // layout: ABLOOM_LAYOUT_DEFAULT (the 1% plan), or ABLOOM_LAYOUT_HALF with the default's bits.
  AbloomFilter(uint64_t n, uint32_t layout) {
    abloom_options o;
    abloom_options_init(&o);
    o.capacity = n;
    if (layout == ABLOOM_LAYOUT_HALF) {
      o.layout = layout;
      o.bits = abloom_bits(n);
    }
    if (int rc = abloom_create(&o, &f); rc != ABLOOM_OK) die("abloom_create", rc);
  }
  AbloomFilter(const AbloomFilter&) = delete;
  AbloomFilter& operator=(const AbloomFilter&) = delete;
  ~AbloomFilter() { abloom_free(f); }
};

// abloom's bit count for n keys at the default 1% target: every Boost filter gets at most this.
uint64_t abloom_bits(uint64_t n) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = n;
  abloom_plan p;
  abloom_plan_init(&p);
  if (int rc = abloom_plan_compute(&o, &p); rc != ABLOOM_OK) die("abloom_plan_compute", rc);
  return p.bits;
}

// The measured FPR: positives among 2^20 keys never added (the pool's first keys, made anew: the
// pool itself may have been renewed by then).
template <class Test>
double measured_fpr(Test test) {
  static const std::vector<uint64_t> keys = bench::KeyPool().words;
  std::vector<uint8_t> res(kBatch);
  uint64_t found = 0;
  for (size_t off = 0; off < kPoolKeys; off += kBatch)
    found += test(&keys[2 * off], kBatch, res.data());
  return static_cast<double>(found) / kPoolKeys;
}

// The kernel abloom chose for this CPU, read before anything forces another.
uint32_t best_isa() {
  static const uint32_t isa = abloom_get_isa();
  return isa;
}

// Makes `isa` the active kernel if it is not. Not put back after each call: forcing AVX-512 runs
// CPUID again (core/kernel_dispatch.cpp's avx512_variant asks cpu_is_intel, which is not cached),
// 70-80 us a call in this project's VMs, so forcing and restoring around every 4096-key batch made
// the batches 3x slower. Each abloom filter sets its kernel only when the other had set another:
// once per benchmark run.
void use_isa(uint32_t isa) {
  if (abloom_get_isa() != isa)
    if (int rc = abloom_set_isa(isa); rc != ABLOOM_OK) die("abloom_set_isa", rc);
}

class AbloomPeer final : public Peer {
 public:
  // isa: a kernel to force for every call (ABLOOM_ISA_AVX2), or 0 for the library's choice.
  // (Its single-key tests keep the path abloom_inline_init chose under that kernel.)
  // layout: as AbloomFilter's.
  AbloomPeer(uint64_t n, uint32_t isa, uint32_t layout = ABLOOM_LAYOUT_DEFAULT)
      : n_(n), isa_(isa ? isa : best_isa()), forced_(isa != 0), layout_(layout) {}
  uint64_t test_bulk(const uint64_t* w, size_t n, uint8_t* res) override {
    use_isa(isa_);
    uint64_t found = 0;
    if (int rc =
            abloom_test_packed(full_->f, w, kKeyLen * n, batch_offsets().data(), n, res, &found);
        rc != ABLOOM_OK)
      die("abloom_test_packed", rc);
    return found;
  }
  void add_bulk(const uint64_t* w, size_t n, bool count) override {
    use_isa(isa_);
    uint64_t added = 0;
    if (int rc = abloom_add_packed(add_->f, w, kKeyLen * n, batch_offsets().data(), n,
                                   count ? &added : nullptr);
        rc != ABLOOM_OK)
      die("abloom_add_packed", rc);
    benchmark::DoNotOptimize(added);
  }
  uint64_t test_single(const uint64_t* w, size_t n) override {
    uint64_t r = 0;
    for (size_t i = 0; i < n; ++i)
      r += static_cast<uint64_t>(abloom_inline_test(&in_, w + 2 * i, kKeyLen));
    return r;
  }
  void prepare_full() override {
    if (full_) return;
    use_isa(isa_);
    full_ = std::make_unique<AbloomFilter>(n_, layout_);
    for_fill_keys(n_, [&](const uint64_t* w, size_t m) {
      if (int rc = abloom_add_packed(full_->f, w, kKeyLen * m, batch_offsets().data(), m, nullptr);
          rc != ABLOOM_OK)
        die("abloom_add_packed", rc);
    });
    if (int rc = abloom_inline_init(&in_, full_->f); rc != ABLOOM_OK) die("abloom_inline_init", rc);
  }
  void prepare_add(bool exclusive) override {
    if (!add_) {
      add_ = std::make_unique<AbloomFilter>(n_, layout_);
      abloom_clear(add_->f);  // every page written: no first-touch faults inside the timing
    }
    const uint32_t mode = exclusive ? ABLOOM_WRITER_EXCLUSIVE : ABLOOM_WRITER_SHARED;
    if (int rc = abloom_set_writer_mode(add_->f, mode); rc != ABLOOM_OK)
      die("abloom_set_writer_mode", rc);
  }
  void clear_add() override { abloom_clear(add_->f); }
  std::string describe() override {
    prepare_full();
    abloom_info i;
    abloom_info_init(&i);
    if (int rc = abloom_get_info(full_->f, &i); rc != ABLOOM_OK) die("abloom_get_info", rc);
    const double fpr =
        measured_fpr([&](const uint64_t* w, size_t m, uint8_t* r) { return test_bulk(w, m, r); });
    use_isa(isa_);
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "abloom%s: k=%u shards=%u bits=%llu bits/key=%.3f model FPR %.4f%% measured "
                  "%.4f%% kernel=%s inline path=%s",
                  forced_ ? "_avx2" : (layout_ == ABLOOM_LAYOUT_HALF ? "_half" : ""), i.k, i.shards,
                  static_cast<unsigned long long>(i.bytes * 8),
                  static_cast<double>(i.bytes * 8) / static_cast<double>(n_), 100 * i.expected_fpr,
                  100 * fpr, abloom_isa_name(abloom_get_isa()),
                  in_.path == ABLOOM_INLINE_PATH_HALF     ? "half (avx2)"
                  : in_.path == ABLOOM_INLINE_PATH_AVX512 ? "avx512"
                  : in_.path == ABLOOM_INLINE_PATH_AVX2   ? "avx2"
                                                          : "call");
    return buf;
  }

 private:
  uint64_t n_;
  uint32_t isa_;  // the kernel its calls run
  bool forced_;
  uint32_t layout_;
  std::unique_ptr<AbloomFilter> full_, add_;
  abloom_inline in_{};
};

template <class F>
class BoostPeer final : public Peer {
 public:
  BoostPeer(const char* name, uint64_t n) : name_(name), n_(n) {}
  // No concurrent adds, and no count of new keys.
  bool has(Op op) const override { return op != Op::AddBulkLockfree && op != Op::AddBulkCounted; }
  uint64_t test_bulk(const uint64_t* w, size_t n, uint8_t* res) override {
    // The answers are stored as bool: a store through uint8_t* may alias the counters (char
    // aliases everything), which then go through memory, a handicap abloom's loop has not.
    uint64_t found = 0;
    bool* out = reinterpret_cast<bool*>(res);
    full_->may_contain(Key16It(w), Key16It(w + 2 * n), [&](std::string_view, bool r) {
      *out++ = r;
      found += r;
    });
    return found;
  }
  void add_bulk(const uint64_t* w, size_t n, bool) override {
    add_->insert(Key16It(w), Key16It(w + 2 * n));
  }
  uint64_t test_single(const uint64_t* w, size_t n) override {
    uint64_t r = 0;
    for (size_t i = 0; i < n; ++i)
      r += full_->may_contain(std::string_view(reinterpret_cast<const char*>(w + 2 * i), kKeyLen));
    return r;
  }
  void prepare_full() override {
    if (full_) return;
    full_ = make();
    for_fill_keys(
        n_, [&](const uint64_t* w, size_t m) { full_->insert(Key16It(w), Key16It(w + 2 * m)); });
  }
  void prepare_add(bool) override {
    if (!add_) add_ = make();
  }
  void clear_add() override { add_->clear(); }
  std::string describe() override {
    prepare_full();
    const double fpr =
        measured_fpr([&](const uint64_t* w, size_t m, uint8_t* r) { return test_bulk(w, m, r); });
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%s: K=%zu x %zu bits, stride %zu bytes, bits=%zu bits/key=%.3f model FPR %.4f%% "
                  "measured %.4f%%",
                  name_, F::k, F::subfilter::k, F::stride, full_->capacity(),
                  static_cast<double>(full_->capacity()) / static_cast<double>(n_),
                  100 * F::fpr_for(n_, full_->capacity()), 100 * fpr);
    return buf;
  }

 private:
  // A filter of at most abloom's bits (Boost rounds a requested capacity up to whole subarrays).
  std::unique_ptr<F> make() const {
    const uint64_t bits = abloom_bits(n_);
    uint64_t ask = bits;
    for (;;) {
      auto f = std::make_unique<F>(ask);
      if (f->capacity() <= bits) return f;
      ask -= f->capacity() - bits;
    }
  }
  const char* name_;
  uint64_t n_;
  std::unique_ptr<F> full_, add_;
};

namespace bb = boost::bloom;
using Fmb32S1 = bb::filter<std::string_view, 1, bb::fast_multiblock32<7>, 1>;
using Fmb32x8S0 = bb::filter<std::string_view, 1, bb::fast_multiblock32<8>>;
using Fmb64S0 = bb::filter<std::string_view, 1, bb::fast_multiblock64<7>>;

constexpr const char* kImpls[] = {"abloom",   "abloom_avx2", "abloom_half",
                                  "fmb32_s1", "fmb32x8_s0",  "fmb64_s0"};
constexpr size_t kFirstBoost = 3;  // kImpls[3 ..] are Boost's

std::unique_ptr<Peer> make_peer(const std::string& impl, uint64_t n) {
  if (impl == "abloom") return std::make_unique<AbloomPeer>(n, 0);
  if (impl == "abloom_avx2") return std::make_unique<AbloomPeer>(n, ABLOOM_ISA_AVX2);
  if (impl == "abloom_half") return std::make_unique<AbloomPeer>(n, 0, ABLOOM_LAYOUT_HALF);
  if (impl == "fmb32_s1") return std::make_unique<BoostPeer<Fmb32S1>>("fmb32_s1", n);
  if (impl == "fmb32x8_s0") return std::make_unique<BoostPeer<Fmb32x8S0>>("fmb32x8_s0", n);
  if (impl == "fmb64_s0") return std::make_unique<BoostPeer<Fmb64S0>>("fmb64_s0", n);
  return nullptr;
}

// Every peer made so far (kept: repetitions interleave across all benchmarks).
std::map<std::pair<std::string, uint64_t>, std::unique_ptr<Peer>> g_peers;

Peer& peer(const std::string& impl, uint64_t n) {
  auto& p = g_peers[{impl, n}];
  if (!p) {
    p = make_peer(impl, n);
    std::fprintf(stderr, "# keys:%s %s\n", count_label(n).c_str(), p->describe().c_str());
  }
  return *p;
}

// One batch of `op` on keys w (kBatch of them or fewer): what both modes run.
uint64_t run_batch(Peer& p, Op op, const uint64_t* w, size_t n, uint8_t* res) {
  switch (op) {
    case Op::TestBulkPresent:
    case Op::TestBulkAbsent:
      return p.test_bulk(w, n, res);
    case Op::AddBulk:
      p.add_bulk(w, n, false);
      return 0;
    case Op::AddBulkCounted:
    case Op::AddBulkLockfree:
      p.add_bulk(w, n, true);
      return 0;
    case Op::TestSinglePresent:
    case Op::TestSingleAbsent:
      return p.test_single(w, n);
  }
  return 0;
}

bool is_add(Op op) {
  return op == Op::AddBulk || op == Op::AddBulkCounted || op == Op::AddBulkLockfree;
}
bool is_present(Op op) { return op == Op::TestBulkPresent || op == Op::TestSinglePresent; }

void prepare(Peer& p, Op op) {
  if (is_add(op))
    p.prepare_add(op != Op::AddBulkLockfree);
  else
    p.prepare_full();
}

// Besides Google Benchmark's time of the whole run, each batch is timed on its own, and the run
// reports its fastest batch (the counter best_batch_ns, per key): on a machine shared with other
// work, a 4096-key batch (5-50 us) is seldom interrupted, a run of many milliseconds always.
void bench_op(benchmark::State& st, const std::string& impl, Op op, uint64_t n) {
  using Clock = std::chrono::steady_clock;
  Peer& p = peer(impl, n);
  prepare(p, op);
  std::vector<uint8_t> res(kBatch);
  Clock::duration best = Clock::duration::max();
  auto timed = [&](const uint64_t* w) {
    const Clock::time_point t0 = Clock::now();
    const uint64_t r = run_batch(p, op, w, kBatch, res.data());
    best = std::min(best, Clock::now() - t0);
    return r;
  };
  if (is_present(op)) {
    const uint64_t* w = present_keys().data();
    const size_t cycle = static_cast<size_t>(std::min<uint64_t>(n, kPoolKeys)) / kBatch * kBatch;
    size_t off = 0;
    for (auto _ : st) {
      if (timed(w + 2 * off) != kBatch) std::abort();  // a false negative
      off = (off + kBatch) % cycle;
    }
  } else {
    static std::map<std::pair<std::string, uint64_t>, uint64_t> pending;  // keys in the add filter
    bench::KeyPool& P = pool();
    for (auto _ : st) {
      bool wrapped = false;
      const size_t off = P.next(&wrapped);
      benchmark::DoNotOptimize(timed(P.key(off)));
      // The pool is renewed whenever it wraps, in tests too: else an add that comes after a test
      // which wrapped it would add keys its filter already holds (an add with nothing to set is
      // faster, and the fastest batch would be one of those).
      uint64_t* taken = is_add(op) ? &pending[{impl, n}] : nullptr;
      if (taken != nullptr) *taken += kBatch;
      if (wrapped || (taken != nullptr && *taken >= n)) {
        st.PauseTiming();
        if (wrapped) P.renew();
        if (taken != nullptr && *taken >= n) {
          p.clear_add();
          *taken = 0;
        }
        st.ResumeTiming();
      }
    }
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kBatch));
  st.counters["best_batch_ns"] =
      std::chrono::duration<double, std::nano>(best).count() / static_cast<double>(kBatch);
}

// ---- Report: the best repetition of each benchmark, as a table ----------------------------------

class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    // The console shows the aggregates when there are (repetitions), else every run.
    std::vector<Run> shown;
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate) shown.push_back(r);
      if (r.run_type != Run::RT_Iteration || r.error_occurred || r.iterations == 0) continue;
      const double ns = r.real_accumulated_time * 1e9 / static_cast<double>(r.iterations) / kBatch;
      runs_[r.run_name.function_name].push_back(ns);
      if (auto it = r.counters.find("best_batch_ns"); it != r.counters.end())
        batches_[r.run_name.function_name].push_back(it->second.value);
    }
    ConsoleReporter::ReportRuns(shown.empty() ? runs : shown);
  }
  // Two tables, ns per key: the fastest batch of any repetition, and the fastest repetition.
  void print_tables(const std::vector<uint64_t>& sizes) const {
    std::printf("\nThe fastest 4096-key batch of all repetitions, ns per key:\n");
    print_table(sizes, batches_);
    std::printf("\nThe fastest repetition (Google Benchmark's time), ns per key:\n");
    print_table(sizes, runs_);
  }
  // Per size and op: each filter's time, then abloom's and abloom_avx2's over fmb32_s1's and over
  // the fastest Boost filter's (named in the last column).
  using Times = std::map<std::string, std::vector<double>>;
  static void print_table(const std::vector<uint64_t>& sizes, const Times& times) {
    std::printf("\n| keys | op | reps |");
    for (const char* impl : kImpls) std::printf(" %s |", impl);
    std::printf(
        " abloom / fmb32_s1 | abloom / fastest | avx2 / fmb32_s1 | avx2 / fastest | half / "
        "fastest | fastest |\n");
    std::printf("|---|---|---|");
    for (size_t i = 0; i < std::size(kImpls) + 6; ++i) std::printf("---|");
    std::printf("\n");
    for (uint64_t n : sizes) {
      for (const auto& [op, opname] : kOps) {
        double t[std::size(kImpls)] = {};
        size_t reps = 0;
        for (size_t i = 0; i < std::size(kImpls); ++i) {
          auto it = times.find(name(opname, kImpls[i], n));
          if (it == times.end() || it->second.empty()) continue;
          t[i] = *std::min_element(it->second.begin(), it->second.end());
          reps = std::max(reps, it->second.size());
        }
        if (reps == 0) continue;
        size_t fastest = 0;
        for (size_t i = kFirstBoost; i < std::size(kImpls); ++i)
          if (t[i] > 0 && (fastest == 0 || t[i] < t[fastest])) fastest = i;
        std::printf("| %s | %s | %zu |", count_label(n).c_str(), opname, reps);
        for (double x : t) x > 0 ? std::printf(" %.2f |", x) : std::printf(" - |");
        auto ratio = [](double a, double b) {
          a > 0 && b > 0 ? std::printf(" %.2f |", a / b) : std::printf(" - |");
        };
        const double best = fastest ? t[fastest] : 0;
        ratio(t[0], t[kFirstBoost]);
        ratio(t[0], best);
        ratio(t[1], t[kFirstBoost]);
        ratio(t[1], best);
        ratio(t[2], best);
        std::printf(" %s |\n", fastest ? kImpls[fastest] : "-");
      }
    }
  }
  static std::string name(const char* op, const char* impl, uint64_t n) {
    return std::string(op) + "/" + impl + "/keys:" + count_label(n);
  }

 private:
  Times runs_, batches_;
};

// ---- Counting mode -----------------------------------------------------------------------------

// --count=IMPL/OP/N: the filters of IMPL at n keys as the benchmarks have them, then OP once over
// N keys (in batches of kBatch, from the start of the present keys or of the pool).
int count_mode(const std::string& spec, uint64_t n) {
  const size_t a = spec.find('/'), b = spec.rfind('/');
  if (a == std::string::npos || a == b) return 2;
  const std::string impl = spec.substr(0, a), opname = spec.substr(a + 1, b - a - 1);
  const uint64_t count = std::strtoull(spec.c_str() + b + 1, nullptr, 10);
  const auto* op = std::find_if(std::begin(kOps), std::end(kOps),
                                [&](const auto& o) { return opname == o.second; });
  std::unique_ptr<Peer> p = make_peer(impl, n);
  if (op == std::end(kOps) || !p || !p->has(op->first) || count > std::min<uint64_t>(n, kPoolKeys))
    return 2;
  // Everything both runs (N and 0) share: the keys, the filled filter, the empty one.
  const uint64_t* w = present_keys().data();
  const uint64_t* absent = pool().key(0);
  p->prepare_full();
  prepare(*p, op->first);
  std::vector<uint8_t> res(kBatch);
  if (!is_present(op->first)) w = absent;
  uint64_t sum = 0;
  for (uint64_t off = 0; off < count; off += kBatch)
    sum += run_batch(*p, op->first, w + 2 * off,
                     static_cast<size_t>(std::min<uint64_t>(kBatch, count - off)), res.data());
  std::printf("%s %s keys:%s N=%llu: %llu (abloom kernel %s)\n", impl.c_str(), opname.c_str(),
              count_label(n).c_str(), static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(sum), abloom_isa_name(abloom_get_isa()));
  return 0;
}

bool parse_count(const std::string& s, uint64_t* out) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  double mult = 1;
  const std::string suffix(end);
  if (suffix == "K" || suffix == "k") {
    mult = 1e3;
  } else if (suffix == "M" || suffix == "m") {
    mult = 1e6;
  } else if (!suffix.empty()) {
    return false;
  }
  if (!(v > 0)) return false;
  *out = static_cast<uint64_t>(v * mult + 0.5);
  return *out >= kBatch;
}

bool parse_sizes(const std::string& s, std::vector<uint64_t>* out) {
  out->clear();
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    uint64_t v = 0;
    if (!parse_count(s.substr(b, e - b), &v)) return false;
    out->push_back(v);
    b = e + 1;
  }
  return !out->empty();
}

}  // namespace

int main(int argc, char** argv) {
  (void)best_isa();  // before any filter forces AVX2
  std::vector<uint64_t> sizes = {1000000, 10000000};
  std::string count_spec;
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--sizes=", 0) == 0) {
      if (!parse_sizes(a.substr(8), &sizes)) {
        std::fprintf(stderr, "boost_bloom_peer: bad %s (e.g. --sizes=1M,10M,100M)\n", a.c_str());
        return 2;
      }
    } else if (a.rfind("--count=", 0) == 0) {
      count_spec = a.substr(8);
    } else {
      args.push_back(argv[i]);
    }
  }
  if (!count_spec.empty()) {
    const int rc = count_mode(count_spec, sizes.front());
    if (rc == 2)
      std::fprintf(stderr, "boost_bloom_peer: bad --count=%s (IMPL/OP/N, N <= the keys)\n",
                   count_spec.c_str());
    g_peers.clear();
    return rc;
  }
  if (!bench::init_benchmark(args, {"--benchmark_min_time=0.05", "--benchmark_repetitions=5",
                                    "--benchmark_enable_random_interleaving=true"})) {
    return 2;
  }
  for (uint64_t n : sizes)
    for (const auto& [op, opname] : kOps)
      for (const char* impl : kImpls) {
        if (std::string(impl).rfind("abloom", 0) != 0 &&
            (op == Op::AddBulkLockfree || op == Op::AddBulkCounted))
          continue;
        const std::string name = TableReporter::name(opname, impl, n);
        benchmark::RegisterBenchmark(name.c_str(), [impl = std::string(impl), op = op,
                                                    n](benchmark::State& st) {
          bench_op(st, impl, op, n);
        })->UseRealTime();
      }
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_tables(sizes);
  g_peers.clear();
  benchmark::Shutdown();
  return 0;
}
