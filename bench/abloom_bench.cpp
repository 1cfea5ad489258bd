// abloom_bench.cpp - the benchmark suite (issue 4): abloom's operations against peers measured in
// the same run with the same keys. Through the public C API.
//
// Three sections, every time reported per key (wall clock, items_per_second in the JSON):
//
//   grid/<impl>/<op>/keys:<n>/bpk:<b>   n = 1M, 10M, 100M keys; b = 8, 12, 16, 20 bits per key
//     (options.bits = n * b, k = the model optimum). Each iteration handles a batch of 4096
//     16-byte keys from a pool of 2^20 (single-key ops: 4096 calls; bulk ops: one call).
//       impl blocked, classic   ops add, test, test_present, add_inline, test_inline,
//                               test_inline_present (abloom_inline_add and abloom_inline_test,
//                               capi/abloom_inline.h), test_and_add,
//                               add_hashes, test_hashes, add_packed, test_packed,
//                               test_packed_present, test_packed_mixed (half present, half absent,
//                               in no pattern); add_x and add_packed_x (add and add_packed with the
//                               writer mode ABLOOM_WRITER_EXCLUSIVE)
//       impl libbloom           ops add, test, test_present (libbloom 1.6, same bits/key; only
//                               when built with it)
//       impl mutex              ops add, test      (abloom blocked, std::mutex around each call)
//       impl limit              ops read (XXH3 of the key, multiply-high line pick, one read of
//                               the line, 32 keys prefetched ahead), read_nopf (same without
//                               prefetch), read_hashes (read from precomputed hashes), write (one
//                               plain OR per line, prefetched for writing) over an array of the
//                               blocked filter's byte size.
//     Tests query keys never added (absent: the common case) in a filter holding n keys;
//     test_present and test_packed_present query keys that were added (the first min(n, 2^20) of
//     them). Every single-key loop only sums the answers: no call depends on the one before.
//     Adds go into a second filter that is cleared (outside the timing) each time it has taken n
//     keys, with keys it has never seen (the pool is renewed, outside the timing, when used up).
//   keylen/<impl>/<op>/len:<L>   L = 8, 16, 32, 64, 256 bytes, a 1M-key filter at 10 bits/key
//     (in cache): blocked test and test_packed, libbloom test, and xxh3 (the hash alone).
//   isa/<kernel>/<op>/keys:<n>/bpk:<b>   the blocked kind's add, test, test_present, add_packed
//     and test_packed (as in grid/blocked/) under each kernel this CPU supports (scalar, avx2,
//     avx512), forced with abloom_set_isa for the benchmark's duration.
//   grid/<kind>/<op> and isa/<kernel>/<op> for estimate_count, estimate_fpr and serialize: one
//     pass over the whole filter holding n keys per iteration, in ns per 64-byte block (the set
//     bits are counted by the kernel's population count).
//   mt_add/<impl>/keys:10M/bpk:10/threads:<t>   abloom_add of new keys on one shared filter from
//     1 and 2 threads (--threads=LIST for others): mutex (blocked, 1 shard, behind a std::mutex),
//     atomic (1 shard), sharded (16 shards).
//
// Flags (besides --benchmark_*): --quick (= --sizes=1M,10M --bpk=10), --sizes=LIST (of 1M, 10M,
// 100M, or any count with K/M suffix), --bpk=LIST, --threads=LIST, --no-keylen, --no-mt,
// --no-isa, --grid-only (= all three no-), --layout=distinct|split (the blocked filters' in-block
// layout; default: the library's).
// Defaults: --benchmark_min_time=0.03 --benchmark_repetitions=5
// --benchmark_enable_random_interleaving=true (repetitions of all benchmarks run in a random
// order, so that a slow phase of this shared machine hits every benchmark alike instead of a few
// neighbours; every filter then stays allocated until the end)
// --benchmark_display_aggregates_only=true. bench/summarize.py turns the JSON into tables.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "abloom.h"
#include "abloom_inline.h"
#include "benchmark_args.hpp"
#include "key_pool.hpp"
#include "key_stream.hpp"
#include "peers.hpp"
#include "report.hpp"

namespace {

using bench::for_fill_keys;
using bench::kBatch;
using bench::kFillChunk;
using bench::kGolden;
using bench::kPoolKeys;
using bench::kQuerySeed;
using bench::packed_offsets;
using bench::present_keys;
using bench::splitmix64;

[[noreturn]] void die(const char* what, int rc) {
  bench::die("abloom_bench", what, abloom_strerror(rc), rc);
}

std::string count_label(uint64_t n) {
  if (n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n % 1000 == 0) return std::to_string(n / 1000) + "K";
  return std::to_string(n);
}

// ---- Filters ---------------------------------------------------------------------------------

// The blocked kind's in-block layout (--layout=distinct|split); the classic kind has only one.
uint32_t g_blocked_layout = ABLOOM_LAYOUT_DEFAULT;

struct Filter {
  abloom_filter* f = nullptr;
  Filter(uint64_t n, double bits_per_key, uint32_t kind, uint32_t shards, uint32_t threads) {
    abloom_options o;
    abloom_options_init(&o);
    o.capacity = n;
    o.kind = kind;
    o.layout = kind == ABLOOM_KIND_BLOCKED ? g_blocked_layout : ABLOOM_LAYOUT_DEFAULT;
    o.bits = static_cast<uint64_t>(static_cast<double>(n) * bits_per_key);
    o.shards = shards;
    o.threads = threads;
    if (int rc = abloom_create(&o, &f); rc != ABLOOM_OK) die("abloom_create", rc);
  }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  ~Filter() { abloom_free(f); }
  abloom_info info() const {
    abloom_info i{};
    i.struct_size = sizeof i;
    if (int rc = abloom_get_info(f, &i); rc != ABLOOM_OK) die("abloom_get_info", rc);
    return i;
  }
};

void fill(abloom_filter* f, uint64_t n) {
  const std::vector<uint64_t> off = packed_offsets(kFillChunk, 16);
  for_fill_keys(n, [&](const uint64_t* w, size_t m) {
    if (int rc = abloom_add_packed(f, w, 16 * m, off.data(), m, nullptr); rc != ABLOOM_OK)
      die("abloom_add_packed", rc);
  });
}

// ---- The key pool ----------------------------------------------------------------------------

// The shared pool of absent keys (key_pool.hpp) with their XXH3-64 hashes with seed 0 (=
// abloom_hash for the default seed), renewed together, and the batch's packed offsets.
struct Pool : bench::KeyPool {
  std::vector<uint64_t> hashes, offsets;
  Pool() : hashes(kPoolKeys), offsets(packed_offsets(kBatch, 16)) { rehash(); }
  void rehash() {
    for (size_t i = 0; i < kPoolKeys; ++i) hashes[i] = peers::hash16(&words[2 * i], 16);
  }
  // Turns every key into one never seen before, hashes too.
  void renew() {
    KeyPool::renew();
    rehash();
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

// Present and absent keys mixed: key i is present_keys()'s key i or, with probability 1/2 by a
// fixed stream of coin flips, a key of its own stream (kMixedSeed), never added. The answers
// then follow no pattern a branch predictor could learn, as in a join or a dedup pass.
constexpr uint64_t kMixedSeed = 0x313Dull;
const std::vector<uint64_t>& mixed_keys() {
  static const std::vector<uint64_t> w = [] {
    std::vector<uint64_t> v = present_keys();
    uint64_t coin = kMixedSeed, absent = kMixedSeed ^ kGolden;
    for (size_t i = 0; i < kPoolKeys; ++i) {
      const bool replace = (splitmix64(coin) & 1) != 0;
      const uint64_t a = splitmix64(absent), b = splitmix64(absent);
      if (replace) {
        v[2 * i] = a;
        v[2 * i + 1] = b;
      }
    }
    return v;
  }();
  return w;
}

// Runs batch(key) on kBatch present keys per iteration (or keys of `keys`, present_keys() by
// default), cycling over the first min(n, pool) (whole batches).
template <class Batch>
void run_present(benchmark::State& st, uint64_t n, Batch batch,
                 const std::vector<uint64_t>& keys = present_keys()) {
  const uint64_t* w = keys.data();
  const size_t cycle = static_cast<size_t>(std::min<uint64_t>(n, kPoolKeys)) / kBatch * kBatch;
  size_t off = 0;
  for (auto _ : st) {
    batch(w + 2 * off);
    off = (off + kBatch) % cycle;
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kBatch));
}

// ---- The grid fixture: every filter for one (n, bits/key), built on first use ------------------

// A filter that adds go into: cleared when it has taken its capacity.
struct AddTarget {
  uint64_t capacity = 0, pending = 0;
  std::function<void()> clear;
};

struct Group {
  uint64_t n;
  int bpk;
  std::unique_ptr<Filter> full[2], add[2];  // by kind
  AddTarget add_target[2];
#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
  std::unique_ptr<peers::Libbloom> lb_full, lb_add;
  AddTarget lb_target;
#endif
  std::unique_ptr<peers::MutexFilter> mx_full, mx_add;
  std::unique_ptr<peers::LimitArray> limit;

  Group(uint64_t n_, int bpk_) : n(n_), bpk(bpk_) {}

  abloom_filter* full_filter(uint32_t kind) {
    if (!full[kind]) {
      full[kind] = std::make_unique<Filter>(n, bpk, kind, 0, 2);
      fill(full[kind]->f, n);
      const abloom_info i = full[kind]->info();
      std::fprintf(stderr,
                   "# %s keys:%s bpk:%d: layout=%s k=%u shards=%u bytes=%llu model FPR %.4g%%\n",
                   kind == ABLOOM_KIND_BLOCKED ? "blocked" : "classic", count_label(n).c_str(), bpk,
                   i.layout == ABLOOM_LAYOUT_SPLIT ? "split" : "distinct", i.k, i.shards,
                   static_cast<unsigned long long>(i.bytes), 100 * i.expected_fpr);
      // The limit and test_hashes rely on abloom's hash being XXH3-64 with seed 0.
      uint64_t h = 0;
      abloom_hash(full[kind]->f, pool().key(0), 16, &h);
      if (h != peers::hash16(pool().key(0), 16)) {
        std::fprintf(stderr, "abloom_bench: abloom_hash is not XXH3-64 seed 0\n");
        std::exit(1);
      }
    }
    return full[kind]->f;
  }
  abloom_filter* add_filter(uint32_t kind) {
    if (!add[kind]) {
      add[kind] = std::make_unique<Filter>(n, bpk, kind, 0, 1);
      abloom_filter* f = add[kind]->f;
      abloom_clear(f);  // writes every word: no first-touch page faults inside the timing
      add_target[kind].capacity = n;
      add_target[kind].clear = [f] { abloom_clear(f); };
    }
    return add[kind]->f;
  }
#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
  peers::Libbloom& libbloom_full() {
    if (!lb_full) {
      lb_full = std::make_unique<peers::Libbloom>(n, bpk);
      for_fill_keys(n, [&](const uint64_t* w, size_t m) {
        for (size_t i = 0; i < m; ++i) lb_full->add(w + 2 * i, 16);
      });
      std::fprintf(stderr, "# libbloom keys:%s bpk:%d: k=%d bytes=%llu\n", count_label(n).c_str(),
                   bpk, lb_full->k(), static_cast<unsigned long long>(lb_full->bytes()));
    }
    return *lb_full;
  }
  peers::Libbloom& libbloom_add() {
    if (!lb_add) {
      lb_add = std::make_unique<peers::Libbloom>(n, bpk);
      peers::Libbloom* b = lb_add.get();
      b->clear();  // memset: no first-touch page faults inside the timing
      lb_target.capacity = n;
      lb_target.clear = [b] { b->clear(); };
    }
    return *lb_add;
  }
#endif
  peers::MutexFilter& mutex_full() {
    if (!mx_full) mx_full = std::make_unique<peers::MutexFilter>(full_filter(0));
    return *mx_full;
  }
  peers::MutexFilter& mutex_add() {
    if (!mx_add) mx_add = std::make_unique<peers::MutexFilter>(add_filter(0));
    return *mx_add;
  }
  peers::LimitArray& limit_array() {
    if (!limit) {
      abloom_options o;
      abloom_options_init(&o);
      o.capacity = n;
      o.bits = n * static_cast<uint64_t>(bpk);
      abloom_plan p{};
      p.struct_size = sizeof p;
      if (int rc = abloom_plan_compute(&o, &p); rc != ABLOOM_OK) die("abloom_plan_compute", rc);
      limit = std::make_unique<peers::LimitArray>(p.bytes);
    }
    return *limit;
  }
};

// Every group built so far. Benchmarks run in registration order, grouped by (n, bpk), unless
// repetitions are randomly interleaved: then every group stays alive (the full suite's peak is
// then ~6 GiB); otherwise only the current one.
std::map<std::pair<uint64_t, int>, std::unique_ptr<Group>> g_groups;
bool g_keep_groups = true;  // interleaving is on unless the command line turns it off

void release_groups() {
  if (!g_keep_groups) g_groups.clear();
}

Group& group(uint64_t n, int bpk) {
  auto& slot = g_groups[{n, bpk}];
  if (!slot) {
    if (!g_keep_groups) g_groups.clear();
    auto& fresh = g_groups[{n, bpk}];
    fresh = std::make_unique<Group>(n, bpk);
    return *fresh;
  }
  return *slot;
}

void set_keys(benchmark::State& st, size_t keys_per_iter) {
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * keys_per_iter));
}

// Runs batch(off) on kBatch pool keys from `off` per iteration. Renews the pool when used up, and
// with a target (adds) clears it when it has taken its capacity, both outside the timing. The
// pool is renewed in tests too: else an add after a test that wrapped it would add keys its filter
// already holds (the pool is shared by every benchmark).
template <class Batch>
void run(benchmark::State& st, AddTarget* target, Batch batch) {
  Pool& p = pool();
  for (auto _ : st) {
    bool wrapped = false;
    const size_t off = p.next(&wrapped);
    batch(off);
    if (target != nullptr) target->pending += kBatch;
    const bool full = target != nullptr && target->pending >= target->capacity;
    if (wrapped || full) {
      st.PauseTiming();
      if (wrapped) p.renew();
      if (full) {
        target->clear();
        target->pending = 0;
      }
      st.ResumeTiming();
    }
  }
  set_keys(st, kBatch);
}

using GroupBench = std::function<void(benchmark::State&, Group&)>;

// One pass over the whole filter per iteration; the items are its 64-byte blocks (ns per block).
template <class Pass>
void run_whole(benchmark::State& st, const abloom_filter* f, Pass pass) {
  abloom_info info;
  if (abloom_info_init(&info) != ABLOOM_OK || abloom_get_info(f, &info) != ABLOOM_OK) std::abort();
  for (auto _ : st) benchmark::DoNotOptimize(pass(f));
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) *
                       static_cast<int64_t>(info.bytes / 64));
}

// Whether the grid also registers isa/<kernel>/<op>: the blocked kind's ops under each kernel
// the CPU supports (forced for the benchmark's duration, then restored).
bool g_isa_section = true;

class IsaScope {
 public:
  explicit IsaScope(uint32_t isa) : saved_(abloom_get_isa()) {
    if (abloom_set_isa(isa) != ABLOOM_OK) std::abort();  // only supported kernels are registered
  }
  ~IsaScope() { (void)abloom_set_isa(saved_); }
  IsaScope(const IsaScope&) = delete;
  IsaScope& operator=(const IsaScope&) = delete;

 private:
  uint32_t saved_;
};

// Whether this CPU runs kernel `isa` (x86-64: scalar and AVX2/AVX-512 up to its best; aarch64:
// scalar and NEON): tried, then the active kernel put back.
bool isa_runnable(uint32_t isa) {
  const uint32_t saved = abloom_get_isa();
  const bool ok = abloom_set_isa(isa) == ABLOOM_OK;
  (void)abloom_set_isa(saved);
  return ok;
}

// Makes a filter's writer exclusive for the benchmark's duration, then shared again.
class WriterScope {
 public:
  explicit WriterScope(abloom_filter* f) : f_(f) {
    if (abloom_set_writer_mode(f_, ABLOOM_WRITER_EXCLUSIVE) != ABLOOM_OK) std::abort();
  }
  ~WriterScope() { (void)abloom_set_writer_mode(f_, ABLOOM_WRITER_SHARED); }
  WriterScope(const WriterScope&) = delete;
  WriterScope& operator=(const WriterScope&) = delete;

 private:
  abloom_filter* f_;
};

void reg(const std::string& name, uint64_t n, int bpk, GroupBench fn) {
  benchmark::RegisterBenchmark(name.c_str(), [n, bpk, fn](benchmark::State& st) {
    fn(st, group(n, bpk));
  })->UseRealTime();
}

void register_grid(uint64_t n, int bpk) {
  const std::string tail = "/keys:" + count_label(n) + "/bpk:" + std::to_string(bpk);
  Pool& P = pool();
  reg("grid/limit/read" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    const peers::LimitArray& a = g.limit_array();
    run(st, nullptr, [&](size_t off) {
      const uint64_t* w = P.key(off);
      benchmark::DoNotOptimize(
          a.read<true>([w](size_t i) { return peers::hash16(w + 2 * i, 16); }, kBatch));
    });
  });
  reg("grid/limit/read_nopf" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    const peers::LimitArray& a = g.limit_array();
    run(st, nullptr, [&](size_t off) {
      const uint64_t* w = P.key(off);
      benchmark::DoNotOptimize(
          a.read<false>([w](size_t i) { return peers::hash16(w + 2 * i, 16); }, kBatch));
    });
  });
  reg("grid/limit/read_hashes" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    const peers::LimitArray& a = g.limit_array();
    run(st, nullptr, [&](size_t off) {
      const uint64_t* h = &P.hashes[off];
      benchmark::DoNotOptimize(a.read<true>([h](size_t i) { return h[i]; }, kBatch));
    });
  });
  reg("grid/limit/write" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    peers::LimitArray& a = g.limit_array();
    run(st, nullptr, [&](size_t off) {
      const uint64_t* w = P.key(off);
      a.write([w](size_t i) { return peers::hash16(w + 2 * i, 16); }, kBatch);
      benchmark::ClobberMemory();
    });
  });
  for (uint32_t kind : {0u, 1u}) {
    // op name -> benchmark, registered below as grid/<kind>/<op> (and for the blocked kind also
    // as isa/<kernel>/<op>).
    std::vector<std::pair<std::string, GroupBench>> ops;
    auto op = [&ops](const std::string& name, GroupBench fn) { ops.emplace_back(name, fn); };
    op("add", [kind, &P](benchmark::State& st, Group& g) {
      abloom_filter* f = g.add_filter(kind);
      run(st, &g.add_target[kind], [&](size_t off) {
        for (size_t i = 0; i < kBatch; ++i) abloom_add(f, P.key(off + i), 16);
      });
    });
    // The same adds compiled into this loop (capi/abloom_inline.h, abloom_inline_add: atomic ORs,
    // as the shared writer's).
    op("add_inline", [kind, &P](benchmark::State& st, Group& g) {
      abloom_filter* f = g.add_filter(kind);
      abloom_inline in;
      if (abloom_inline_init_writer(&in, f) != ABLOOM_OK) std::abort();
      run(st, &g.add_target[kind], [&](size_t off) {
        for (size_t i = 0; i < kBatch; ++i) abloom_inline_add(&in, P.key(off + i), 16);
      });
    });
    op("test", [kind, &P](benchmark::State& st, Group& g) {
      const abloom_filter* f = g.full_filter(kind);
      run(st, nullptr, [&](size_t off) {
        int r = 0;
        for (size_t i = 0; i < kBatch; ++i) r += abloom_test(f, P.key(off + i), 16);
        benchmark::DoNotOptimize(r);
      });
    });
    op("test_present", [kind](benchmark::State& st, Group& g) {
      const abloom_filter* f = g.full_filter(kind);
      run_present(st, g.n, [&](const uint64_t* w) {
        int r = 0;
        for (size_t i = 0; i < kBatch; ++i) r += abloom_test(f, w + 2 * i, 16);
        if (r != static_cast<int>(kBatch)) std::abort();  // a false negative
        benchmark::DoNotOptimize(r);
      });
    });
    // The same tests compiled into this loop (capi/abloom_inline.h): XXH3 of the constant length
    // folded, the probe a call into the header's AVX2 or AVX-512 function (abloom_test for the
    // classic kind and where the library's kernel is scalar).
    op("test_inline", [kind, &P](benchmark::State& st, Group& g) {
      abloom_inline in;
      if (abloom_inline_init(&in, g.full_filter(kind)) != ABLOOM_OK) std::abort();
      run(st, nullptr, [&](size_t off) {
        int r = 0;
        for (size_t i = 0; i < kBatch; ++i) r += abloom_inline_test(&in, P.key(off + i), 16);
        benchmark::DoNotOptimize(r);
      });
    });
    op("test_inline_present", [kind](benchmark::State& st, Group& g) {
      abloom_inline in;
      if (abloom_inline_init(&in, g.full_filter(kind)) != ABLOOM_OK) std::abort();
      run_present(st, g.n, [&](const uint64_t* w) {
        int r = 0;
        for (size_t i = 0; i < kBatch; ++i) r += abloom_inline_test(&in, w + 2 * i, 16);
        if (r != static_cast<int>(kBatch)) std::abort();  // a false negative
        benchmark::DoNotOptimize(r);
      });
    });
    op("test_and_add", [kind, &P](benchmark::State& st, Group& g) {
      abloom_filter* f = g.add_filter(kind);
      run(st, &g.add_target[kind], [&](size_t off) {
        int r = 0;
        for (size_t i = 0; i < kBatch; ++i) r += abloom_test_and_add(f, P.key(off + i), 16);
        benchmark::DoNotOptimize(r);
      });
    });
    op("add_hashes", [kind, &P](benchmark::State& st, Group& g) {
      abloom_filter* f = g.add_filter(kind);
      run(st, &g.add_target[kind], [&](size_t off) {
        uint64_t added = 0;
        abloom_add_hashes(f, &P.hashes[off], kBatch, &added);
        benchmark::DoNotOptimize(added);
      });
    });
    op("test_hashes", [kind, &P](benchmark::State& st, Group& g) {
      const abloom_filter* f = g.full_filter(kind);
      std::vector<uint8_t> res(kBatch);
      run(st, nullptr, [&](size_t off) {
        uint64_t found = 0;
        abloom_test_hashes(f, &P.hashes[off], kBatch, res.data(), &found);
        benchmark::DoNotOptimize(found);
      });
    });
    op("add_packed", [kind, &P](benchmark::State& st, Group& g) {
      abloom_filter* f = g.add_filter(kind);
      run(st, &g.add_target[kind], [&](size_t off) {
        uint64_t added = 0;
        abloom_add_packed(f, P.key(off), 16 * kBatch, P.offsets.data(), kBatch, &added);
        benchmark::DoNotOptimize(added);
      });
    });
    op("test_packed", [kind, &P](benchmark::State& st, Group& g) {
      const abloom_filter* f = g.full_filter(kind);
      std::vector<uint8_t> res(kBatch);
      run(st, nullptr, [&](size_t off) {
        uint64_t found = 0;
        abloom_test_packed(f, P.key(off), 16 * kBatch, P.offsets.data(), kBatch, res.data(),
                           &found);
        benchmark::DoNotOptimize(found);
      });
    });
    op("test_packed_present", [kind, &P](benchmark::State& st, Group& g) {
      const abloom_filter* f = g.full_filter(kind);
      std::vector<uint8_t> res(kBatch);
      run_present(st, g.n, [&](const uint64_t* w) {
        uint64_t found = 0;
        abloom_test_packed(f, w, 16 * kBatch, P.offsets.data(), kBatch, res.data(), &found);
        if (found != kBatch) std::abort();  // a false negative
        benchmark::DoNotOptimize(found);
      });
    });
    op("test_packed_mixed", [kind, &P](benchmark::State& st, Group& g) {
      const abloom_filter* f = g.full_filter(kind);
      std::vector<uint8_t> res(kBatch);
      run_present(
          st, g.n,
          [&](const uint64_t* w) {
            uint64_t found = 0;
            abloom_test_packed(f, w, 16 * kBatch, P.offsets.data(), kBatch, res.data(), &found);
            benchmark::DoNotOptimize(found);
          },
          mixed_keys());
    });
    // The exclusive-writer mode (abloom_set_writer_mode): plain stores, one writing thread.
    op("add_x", [kind, &P](benchmark::State& st, Group& g) {
      abloom_filter* f = g.add_filter(kind);
      const WriterScope exclusive(f);
      run(st, &g.add_target[kind], [&](size_t off) {
        for (size_t i = 0; i < kBatch; ++i) abloom_add(f, P.key(off + i), 16);
      });
    });
    op("add_packed_x", [kind, &P](benchmark::State& st, Group& g) {
      abloom_filter* f = g.add_filter(kind);
      const WriterScope exclusive(f);
      run(st, &g.add_target[kind], [&](size_t off) {
        uint64_t added = 0;
        abloom_add_packed(f, P.key(off), 16 * kBatch, P.offsets.data(), kBatch, &added);
        benchmark::DoNotOptimize(added);
      });
    });
    // Reads of every word of the filter holding n keys (run_whole: ns per 64-byte block): the
    // estimates, and serialize, whose header carries the inserted-key estimate (and whose
    // checksum reads the body again).
    op("estimate_count", [kind](benchmark::State& st, Group& g) {
      run_whole(st, g.full_filter(kind), [](const abloom_filter* f) {
        double x = 0;
        if (abloom_estimate_count(f, &x) != ABLOOM_OK) std::abort();
        return x;
      });
    });
    op("estimate_fpr", [kind](benchmark::State& st, Group& g) {
      run_whole(st, g.full_filter(kind), [](const abloom_filter* f) {
        double x = 0;
        if (abloom_estimate_fpr(f, &x) != ABLOOM_OK) std::abort();
        return x;
      });
    });
    op("serialize", [kind](benchmark::State& st, Group& g) {
      const abloom_filter* full = g.full_filter(kind);
      uint64_t size = 0;
      if (abloom_serialized_size(full, &size) != ABLOOM_OK) std::abort();
      std::vector<unsigned char> buf(size);
      run_whole(st, full, [&buf](const abloom_filter* f) {
        if (abloom_serialize(f, buf.data(), buf.size(), nullptr) != ABLOOM_OK) std::abort();
        return buf[72];  // the inserted-key estimate's first byte
      });
    });
    const std::string pre = std::string("grid/") + (kind == 0 ? "blocked/" : "classic/");
    for (const auto& [name, fn] : ops) reg(pre + name + tail, n, bpk, fn);
    if (kind != 0 || !g_isa_section) continue;
    for (uint32_t isa = ABLOOM_ISA_SCALAR; isa <= ABLOOM_ISA_NEON; ++isa) {
      if (!isa_runnable(isa)) continue;  // the values are names, not an order
      for (const auto& [name, fn] : ops) {
        if (name == "test_and_add" || name.find("hashes") != std::string::npos) continue;
        reg(std::string("isa/") + abloom_isa_name(isa) + "/" + name + tail, n, bpk,
            [isa, fn](benchmark::State& st, Group& g) {
              const IsaScope scope(isa);
              fn(st, g);
            });
      }
    }
  }
#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
  reg("grid/libbloom/add" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    peers::Libbloom& b = g.libbloom_add();
    run(st, &g.lb_target, [&](size_t off) {
      for (size_t i = 0; i < kBatch; ++i) b.add(P.key(off + i), 16);
    });
  });
  reg("grid/libbloom/test" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    peers::Libbloom& b = g.libbloom_full();
    run(st, nullptr, [&](size_t off) {
      int r = 0;
      for (size_t i = 0; i < kBatch; ++i) r += b.test(P.key(off + i), 16);
      benchmark::DoNotOptimize(r);
    });
  });
  reg("grid/libbloom/test_present" + tail, n, bpk, [](benchmark::State& st, Group& g) {
    peers::Libbloom& b = g.libbloom_full();
    run_present(st, g.n, [&](const uint64_t* w) {
      int r = 0;
      for (size_t i = 0; i < kBatch; ++i) r += b.test(w + 2 * i, 16);
      benchmark::DoNotOptimize(r);
    });
  });
#endif
  reg("grid/mutex/add" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    peers::MutexFilter& m = g.mutex_add();
    run(st, &g.add_target[0], [&](size_t off) {
      for (size_t i = 0; i < kBatch; ++i) m.add(P.key(off + i), 16);
    });
  });
  reg("grid/mutex/test" + tail, n, bpk, [&P](benchmark::State& st, Group& g) {
    peers::MutexFilter& m = g.mutex_full();
    run(st, nullptr, [&](size_t off) {
      int r = 0;
      for (size_t i = 0; i < kBatch; ++i) r += m.test(P.key(off + i), 16);
      benchmark::DoNotOptimize(r);
    });
  });
}

// ---- Key length ------------------------------------------------------------------------------

constexpr uint64_t kKeylenN = 1000000;
constexpr int kKeylenBpk = 10;
constexpr size_t kKeylenPool = size_t{1} << 16;

struct KeylenFixture {
  Filter filter{kKeylenN, kKeylenBpk, ABLOOM_KIND_BLOCKED, 0, 1};
#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
  peers::Libbloom lb{kKeylenN, kKeylenBpk};
#endif
  std::vector<std::vector<unsigned char>> keys;  // by length: kKeylenPool keys, contiguous
  std::vector<std::vector<uint64_t>> offsets;
  KeylenFixture() : keys(257), offsets(257) {
    fill(filter.f, kKeylenN);
#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
    for_fill_keys(kKeylenN, [&](const uint64_t* w, size_t m) {
      for (size_t i = 0; i < m; ++i) lb.add(w + 2 * i, 16);
    });
#endif
  }
  const unsigned char* pool(size_t len) {
    if (keys[len].empty()) {
      keys[len].resize(kKeylenPool * len);
      uint64_t s = kQuerySeed ^ len;
      for (auto& b : keys[len]) b = static_cast<unsigned char>(splitmix64(s));
      offsets[len] = packed_offsets(kBatch, len);
    }
    return keys[len].data();
  }
};

KeylenFixture& keylen_fixture() {
  static std::unique_ptr<KeylenFixture> fx;
  if (!fx) {
    release_groups();
    fx = std::make_unique<KeylenFixture>();
  }
  return *fx;
}

template <class Batch>
void run_keylen(benchmark::State& st, size_t len, Batch batch) {
  KeylenFixture& fx = keylen_fixture();
  const unsigned char* base = fx.pool(len);
  size_t off = 0;
  for (auto _ : st) {
    batch(fx, base + off * len);
    off = (off + kBatch) % kKeylenPool;
  }
  set_keys(st, kBatch);
}

void register_keylen() {
  for (size_t len : {8, 16, 32, 64, 256}) {
    const std::string tail = "/len:" + std::to_string(len);
    benchmark::RegisterBenchmark(("keylen/blocked/test" + tail).c_str(), [len](
                                                                             benchmark::State& st) {
      run_keylen(st, len, [len](KeylenFixture& fx, const unsigned char* k) {
        int r = 0;
        for (size_t i = 0; i < kBatch; ++i) r += abloom_test(fx.filter.f, k + i * len, len);
        benchmark::DoNotOptimize(r);
      });
    })->UseRealTime();
    benchmark::RegisterBenchmark(
        ("keylen/blocked/test_packed" + tail).c_str(),
        [len](benchmark::State& st) {
          std::vector<uint8_t> res(kBatch);
          run_keylen(st, len, [len, &res](KeylenFixture& fx, const unsigned char* k) {
            uint64_t found = 0;
            abloom_test_packed(fx.filter.f, k, kBatch * len, fx.offsets[len].data(), kBatch,
                               res.data(), &found);
            benchmark::DoNotOptimize(found);
          });
        })
        ->UseRealTime();
#ifdef ABLOOM_BENCH_HAVE_LIBBLOOM
    benchmark::RegisterBenchmark(("keylen/libbloom/test" + tail).c_str(), [len](benchmark::State&
                                                                                    st) {
      run_keylen(st, len, [len](KeylenFixture& fx, const unsigned char* k) {
        int r = 0;
        for (size_t i = 0; i < kBatch; ++i) r += fx.lb.test(k + i * len, len);
        benchmark::DoNotOptimize(r);
      });
    })->UseRealTime();
#endif
    benchmark::RegisterBenchmark(("keylen/xxh3/hash" + tail).c_str(), [len](benchmark::State& st) {
      run_keylen(st, len, [len](KeylenFixture&, const unsigned char* k) {
        uint64_t x = 0;
        for (size_t i = 0; i < kBatch; ++i) x += peers::hash16(k + i * len, len);
        benchmark::DoNotOptimize(x);
      });
    })->UseRealTime();
  }
}

// ---- Concurrent adds -------------------------------------------------------------------------

constexpr uint64_t kMtN = 10000000;
constexpr int kMtBpk = 10;

struct MtFixture {
  Filter one{kMtN, kMtBpk, ABLOOM_KIND_BLOCKED, 1, 1};
  Filter sixteen{kMtN, kMtBpk, ABLOOM_KIND_BLOCKED, 16, 1};
  Filter locked{kMtN, kMtBpk, ABLOOM_KIND_BLOCKED, 1, 1};
  peers::MutexFilter mx{locked.f};
};

MtFixture& mt_fixture() {
  static std::mutex mu;
  static std::unique_ptr<MtFixture> fx;
  std::lock_guard<std::mutex> lock(mu);
  if (!fx) {
    release_groups();
    fx = std::make_unique<MtFixture>();
  }
  return *fx;
}

// Each thread adds its own stream of new keys (key = {splitmix64 stream, thread tag}); thread 0
// clears the filter before the timed loop of every run (the others wait at the loop's start).
std::atomic<uint64_t> g_mt_runs{0};

template <class Add>
void run_mt(benchmark::State& st, abloom_filter* to_clear, Add add) {
  if (st.thread_index() == 0) abloom_clear(to_clear);
  uint64_t key[2] = {0, static_cast<uint64_t>(st.thread_index()) + 1};
  uint64_t s = g_mt_runs.fetch_add(1) << 32;
  for (auto _ : st) {
    for (size_t i = 0; i < kBatch; ++i) {
      key[0] = splitmix64(s);
      add(key);
    }
  }
  set_keys(st, kBatch);
}

void register_mt(const std::vector<int>& threads) {
  const std::string tail = "/keys:" + count_label(kMtN) + "/bpk:" + std::to_string(kMtBpk);
  auto with_threads = [&threads](benchmark::internal::Benchmark* b) {
    for (int t : threads) b->Threads(t);
    b->UseRealTime();
  };
  with_threads(
      benchmark::RegisterBenchmark(("mt_add/mutex" + tail).c_str(), [](benchmark::State& st) {
        MtFixture& fx = mt_fixture();
        run_mt(st, fx.locked.f, [&fx](const uint64_t* k) { fx.mx.add(k, 16); });
      }));
  with_threads(
      benchmark::RegisterBenchmark(("mt_add/atomic" + tail).c_str(), [](benchmark::State& st) {
        MtFixture& fx = mt_fixture();
        run_mt(st, fx.one.f, [&fx](const uint64_t* k) { abloom_add(fx.one.f, k, 16); });
      }));
  with_threads(
      benchmark::RegisterBenchmark(("mt_add/sharded" + tail).c_str(), [](benchmark::State& st) {
        MtFixture& fx = mt_fixture();
        run_mt(st, fx.sixteen.f, [&fx](const uint64_t* k) { abloom_add(fx.sixteen.f, k, 16); });
      }));
}

// ---- Flags -----------------------------------------------------------------------------------

bool parse_count(const std::string& s, uint64_t* out) {
  if (s.empty()) return false;
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
  return *out >= 1000;  // libbloom needs at least 1000 entries
}

template <class T, class Parse>
bool parse_list(const std::string& s, std::vector<T>* out, Parse parse) {
  out->clear();
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    T v{};
    if (!parse(s.substr(b, e - b), &v)) return false;
    out->push_back(v);
    b = e + 1;
  }
  return !out->empty();
}

bool parse_threads(const std::string& s, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 1 || v > 1024) return false;
  *out = static_cast<int>(v);
  return true;
}

bool parse_bpk(const std::string& s, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 1 || v > 64) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {1000000, 10000000, 100000000};
  std::vector<int> bpks = {8, 12, 16, 20};
  std::vector<int> threads = {1, 2};
  bool keylen = true, mt = true;
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      sizes = {1000000, 10000000};
      bpks = {10};
    } else if (a.rfind("--sizes=", 0) == 0) {
      if (!parse_list(a.substr(8), &sizes, parse_count)) {
        std::fprintf(stderr, "abloom_bench: bad %s (e.g. --sizes=1M,10M,100M)\n", a.c_str());
        return 2;
      }
    } else if (a.rfind("--bpk=", 0) == 0) {
      if (!parse_list(a.substr(6), &bpks, parse_bpk)) {
        std::fprintf(stderr, "abloom_bench: bad %s (e.g. --bpk=8,12,16,20)\n", a.c_str());
        return 2;
      }
    } else if (a == "--layout=distinct" || a == "--layout=split") {
      g_blocked_layout = a == "--layout=split" ? ABLOOM_LAYOUT_SPLIT : ABLOOM_LAYOUT_DISTINCT;
    } else if (a.rfind("--layout", 0) == 0) {
      std::fprintf(stderr, "abloom_bench: bad %s (--layout=distinct or --layout=split)\n",
                   a.c_str());
      return 2;
    } else if (a == "--no-keylen") {
      keylen = false;
    } else if (a.rfind("--threads=", 0) == 0) {
      if (!parse_list(a.substr(10), &threads, parse_threads)) {
        std::fprintf(stderr, "abloom_bench: bad %s (e.g. --threads=1,2,4,8,16)\n", a.c_str());
        return 2;
      }
    } else if (a == "--no-mt") {
      mt = false;
    } else if (a == "--no-isa") {
      g_isa_section = false;
    } else if (a == "--grid-only") {
      keylen = mt = g_isa_section = false;
    } else {
      if (a.rfind("--benchmark_enable_random_interleaving", 0) == 0) {
        g_keep_groups = a != "--benchmark_enable_random_interleaving=false";
      }
      args.push_back(argv[i]);
    }
  }
  if (!bench::init_benchmark(args, {"--benchmark_min_time=0.03", "--benchmark_repetitions=5",
                                    "--benchmark_display_aggregates_only=true",
                                    "--benchmark_enable_random_interleaving=true"})) {
    return 2;
  }
  benchmark::AddCustomContext("abloom_blocked_layout",
                              g_blocked_layout == ABLOOM_LAYOUT_SPLIT      ? "split"
                              : g_blocked_layout == ABLOOM_LAYOUT_DISTINCT ? "distinct"
                                                                           : "default");
  for (uint64_t n : sizes)
    for (int bpk : bpks) register_grid(n, bpk);
  if (keylen) register_keylen();
  if (mt) register_mt(threads);
  benchmark::RunSpecifiedBenchmarks();
  g_groups.clear();
  benchmark::Shutdown();
  return 0;
}
