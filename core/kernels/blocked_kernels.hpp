// The blocked kind's hot paths, one implementation per instruction set, behind one table.
//
// Each instruction set provides a probe (blocked_scalar.cpp, blocked_avx2.cpp,
// blocked_avx512_kernel.hpp, blocked_neon.cpp): test and add for one key whose hash and 64-byte
// block are known. blocked_pipeline.hpp builds the rest of the table over it, compiled in the same
// file so the probe inlines everywhere: whole single-key calls (hash, block, probe) and the bulk
// loops (hash a key, prefetch its block a fixed distance ahead, probe). Every kernel sets and tests
// exactly the bits layout.hpp defines (tests/core_isa_test.cpp proves it); they differ only in how
// fast they get there.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "errc.hpp"
#include "kernels/isa.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/hash.hpp"
#include "layout/layout.hpp"

namespace abloom {

// What the blocked kind's hot paths need of a filter: where its shards are and how a hash picks a
// block. Filter keeps one up to date; it is passed by reference so a call reads only these fields.
struct BlockedView {
  uint64_t* const* shards = nullptr;  // shard base pointers
  uint64_t blocks_per_shard = 0;
  uint64_t seed = 0;
  uint32_t shard_shift = 63;  // 63 - shard_bits (Shape::shard_of, precomputed)
  uint32_t shard_bits = 0;
  uint32_t k = 0;

  BlockedView() = default;
  BlockedView(const Shape& shape, uint64_t* const* shard_ptrs) noexcept
      : shards(shard_ptrs),
        blocks_per_shard(shape.blocks_per_shard),
        seed(shape.seed),
        shard_shift(63 - shape.shard_bits),
        shard_bits(shape.shard_bits),
        k(shape.k) {}

  // The first word of h's block (Shape::shard_of and Shape::block_word_offset).
  uint64_t* block_of(uint64_t h) const noexcept {
    return shards[abloom_layout_shard(h, shard_shift)] +
           abloom_layout_block_index(h, shard_bits, blocks_per_shard) * kBlockWords;
  }
};

// The keys of a bulk call, in one of the three forms the C API takes, or a fourth the C API
// makes of a packed batch whose keys all have one length (fixed: no offsets to read). Key i is
// hashed by for_each_form's accessor; advanced() drops the first keys (threads take sub-ranges).
struct KeySource {
  enum class Form : uint32_t { hashes, arrays, packed, fixed };
  Form form = Form::hashes;
  const uint64_t* hashes = nullptr;    // Form::hashes
  const void* const* keys = nullptr;   // Form::arrays: keys[i], lens[i] bytes
  const size_t* lens = nullptr;        //
  const unsigned char* buf = nullptr;  // Form::packed: buf[offsets[i] .. offsets[i + 1])
  const uint64_t* offsets = nullptr;   //
  size_t key_len = 0;                  // Form::fixed: buf[i * key_len .. (i + 1) * key_len)

  static KeySource of_hashes(const uint64_t* h) noexcept {
    KeySource s;
    s.hashes = h;
    return s;
  }
  static KeySource of_arrays(const void* const* k, const size_t* l) noexcept {
    KeySource s;
    s.form = Form::arrays;
    s.keys = k;
    s.lens = l;
    return s;
  }
  static KeySource of_packed(const unsigned char* b, const uint64_t* o) noexcept {
    KeySource s;
    s.form = Form::packed;
    s.buf = b;
    s.offsets = o;
    return s;
  }
  static KeySource of_fixed(const unsigned char* b, size_t len) noexcept {
    KeySource s;
    s.form = Form::fixed;
    s.buf = b;
    s.key_len = len;
    return s;
  }
  // The same keys from key `first` on.
  KeySource advanced(size_t first) const noexcept {
    KeySource s = *this;
    switch (form) {
      case Form::hashes:
        s.hashes += first;
        break;
      case Form::arrays:
        s.keys += first;
        s.lens += first;
        break;
      case Form::packed:
        s.offsets += first;
        break;
      case Form::fixed:
        s.buf += first * key_len;
        break;
    }
    return s;
  }
};

// Calls fn(hash_at) once, with hash_at(i) = the hash of key i under `seed`, specialised for the
// source's form (one switch per call, none per key). The accessors capture copies, not
// references: after an out-of-line hash the compiler would otherwise reload them for every key.
// They are always inlined: GCC left the lock-free bulk add's hash out of line, a call per key
// (bench/JOURNAL.md, "Packed keys of one length").
template <class Fn>
inline auto for_each_form(const KeySource& src, uint64_t seed, Fn fn) {
  switch (src.form) {
    case KeySource::Form::arrays:
      return fn([ k = src.keys, l = src.lens, seed ](size_t i)
                    __attribute__((always_inline)) { return hash_key(seed, k[i], l[i]); });
    case KeySource::Form::packed:
      return fn([ b = src.buf, o = src.offsets, seed ](size_t i) __attribute__((always_inline)) {
        return hash_key(seed, b + o[i], o[i + 1] - o[i]);
      });
    case KeySource::Form::fixed:
      return fn([ b = src.buf, l = src.key_len, seed ](size_t i)
                    __attribute__((always_inline)) { return hash_key(seed, b + i * l, l); });
    case KeySource::Form::hashes:
      break;
  }
  return fn([h = src.hashes](size_t i) __attribute__((always_inline)) { return h[i]; });
}

// Which writer policy (atomic_bits.hpp) an add uses.
enum class WriterMode : uint32_t { shared = 0, exclusive = 1 };

struct BlockedKernels {
  Isa isa;
  const char* name;  // the instruction set, and the variant where a set has two ("avx512-packed")
  Layout layout;
  // One key whose hash and block are known. test: whether all of its k bits are set (reads
  // only). add: sets them and returns whether they were all set before (Arrival::on_demand).
  bool (*test)(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
  bool (*add)(uint64_t* block, uint64_t hash, uint32_t k) noexcept;            // SharedWriter
  bool (*add_exclusive)(uint64_t* block, uint64_t hash, uint32_t k) noexcept;  // ExclusiveWriter
  // Whole single-key calls: hash, block and probe in one function. They answer 1 or 0 as an int
  // (test: present; add: all bits were set before), the C API's own answer, so abloom_test can
  // tail-call them.
  int (*test_key)(const BlockedView& view, const void* key, size_t len) noexcept;
  int (*add_key)(const BlockedView& view, const void* key, size_t len) noexcept;
  int (*add_key_exclusive)(const BlockedView& view, const void* key, size_t len) noexcept;
  // Bulk: n keys, blocks prefetched ahead. test_many writes results[i] = 0/1 and returns how many
  // tested 1; add_many returns how many keys had a bit that was not set before.
  uint64_t (*test_many)(const BlockedView& view, const KeySource& keys, size_t n,
                        uint8_t* results) noexcept;
  uint64_t (*add_many)(const BlockedView& view, const KeySource& keys, size_t n,
                       WriterMode mode) noexcept;
  // Set bits, for the estimates and the file's inserted-key estimate, which read every word of a
  // filter (either kind): block_bits writes the set bits of each 64-byte block of
  // words[0 .. blocks * kBlockWords) to out[b] (0..512); half_word_bits those of each 32-bit half
  // of words[0 .. n) to out[2i] (low half) and out[2i + 1] (high half). Compiled for the set:
  // the x86-64 baseline has no population count instruction, and std::popcount there is a
  // libgcc call of about 15 instructions per word.
  void (*block_bits)(const uint64_t* words, uint64_t blocks, uint16_t* out) noexcept;
  void (*half_word_bits)(const uint64_t* words, uint64_t n, uint8_t* out) noexcept;
};

// Every instruction set has one table per layout, in an array indexed by layout_index.
inline constexpr size_t kLayouts = 2;
// (The layouts' ids are 1 and 2: one subtraction, which folds into the table's address, where a
// compare took four instructions of every single-key call.)
constexpr size_t layout_index(Layout layout) noexcept { return static_cast<size_t>(layout) - 1; }
static_assert(layout_index(Layout::distinct) == 0 && layout_index(Layout::split) == 1);

namespace detail {
// The active tables (an array of kLayouts). Until first use they are kBlockedFirstUse, whose
// entries pick the real tables (init_kernels: from the CPU and ABLOOM_ISA, kernel_dispatch.cpp)
// and forward the call, so the hot paths read the pointer with no test for "not chosen yet".
extern std::atomic<const BlockedKernels*> active_kernels;
extern const BlockedKernels kBlockedFirstUse[kLayouts];
const BlockedKernels* init_kernels() noexcept;
}  // namespace detail

// The active instruction set's kernels for `layout`. Inline: it is on every key's path.
inline const BlockedKernels& blocked_kernels(Layout layout = Layout::distinct) noexcept {
  return detail::active_kernels.load(std::memory_order_acquire)[layout_index(layout)];
}
// The tables (kLayouts of them) of one set, or nullptr when this CPU cannot run them.
const BlockedKernels* blocked_kernels_for(Isa isa) noexcept;
// The set in use now.
Isa isa_active() noexcept;
// Uses `isa` from now on, process-wide (calls already running finish on the old one). Errc::invalid
// for an unknown value, Errc::unsupported when the CPU lacks it (nothing changes then).
Errc isa_force(Isa isa) noexcept;

// How a probe's test gives its answer.
//  - branch (single-key calls): false when any of the key's bits is missing, as a branch. The
//    empty asm keeps the compiler from turning the branch into a flag copy (setcc), which it
//    otherwise does when both sides return a constant. With a branch, the CPU takes the predicted
//    answer and goes on to the next key while the block is still in flight; with a flag copy,
//    whatever uses the answer waits for the load. Measured faster on the split layout's
//    single-key test at 100M keys (bench/JOURNAL.md, "A test's answer as a branch").
//  - flag (bulk loops): the answer as a value, with no branch. A bulk loop has prefetched the
//    block, so nothing waits for it long; but a branch on the answer mispredicts whenever present
//    and absent keys mix, which made a half-present batch several times slower than an
//    all-present one (bench/JOURNAL.md, "Bulk tests of mixed present and absent keys").
enum class Answer { branch, flag };

template <Answer kAnswer = Answer::branch>
inline bool present_unless(bool missing) noexcept {
  if constexpr (kAnswer == Answer::flag) {
    return !missing;
  } else {
    if (missing) [[likely]]
      return false;
    asm volatile("");
    return true;
  }
}

// Where an add's block comes from, which decides how the shared writer's write step may branch.
//  - on_demand (single-key calls): the probe's own load fetches the block. Out of cache, a branch
//    on its bits resolves only when it arrives, and a mispredicted one keeps the next keys' misses
//    from starting until then (a single add ran 1.3x slower so). The step exits early when no bit
//    is missing (predictable in a run of new keys or a run of repeats), then writes the words the
//    hash alone selects: every word a candidate falls in, a word with nothing missing into a
//    scratch word instead.
//  - prefetched (bulk loops): the block is on its way already, so branching on its bits costs a
//    mispredict at worst, and the step writes only the words with a missing bit: repeats then
//    cost no atomic OR at all (bulk adds of keys already present took half the time).
enum class Arrival { on_demand, prefetched };

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
    Writer::or_word(abloom_layout_or_target(block + w, words[w], &scratch), words[w]);
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

// The scalar reference: also the fallback the vector kernels take for rare keys (k > 32, or a
// repeat among the first k candidates).
bool blocked_test_scalar(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
// The same for the split layout.
bool split_test_scalar(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
template <class Writer>
bool split_add_scalar(uint64_t* block, uint64_t hash, uint32_t k) noexcept;
extern template bool split_add_scalar<SharedWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
extern template bool split_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
template <class Writer>
bool blocked_add_scalar(uint64_t* block, uint64_t hash, uint32_t k) noexcept;
extern template bool blocked_add_scalar<SharedWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
extern template bool blocked_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
// test for a key known to repeat a candidate among its first k: walks its distinct candidates.
bool blocked_test_distinct(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;

// The tables (kLayouts each) of every kernel this CPU can run (variants included), for tests and
// benchmarks.
std::vector<const BlockedKernels*> blocked_kernels_runnable();

extern const BlockedKernels kBlockedScalar[kLayouts];
// Only defined on x86-64, and only run where isa_runs(avx2, isa_supported()).
extern const BlockedKernels kBlockedAvx2[kLayouts];
// Only defined on x86-64, and only run where isa_runs(avx512, isa_supported()). Two variants that
// differ in their repeat check (blocked_avx512_kernel.hpp): vpconflictd, and a packed compare;
// kernel_dispatch.cpp picks one per vendor.
extern const BlockedKernels kBlockedAvx512[kLayouts];
extern const BlockedKernels kBlockedAvx512Packed[kLayouts];
// Only defined on aarch64 (blocked_neon.cpp), where every CPU runs it.
extern const BlockedKernels kBlockedNeon[kLayouts];

}  // namespace abloom
