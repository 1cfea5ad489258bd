// The blocked kind's hot paths, one implementation per instruction set, behind one table.
//
// Each instruction set provides a probe (blocked_scalar.cpp, blocked_avx2.cpp,
// blocked_avx512_kernel.hpp, blocked_neon.cpp): test and add for one key whose hash and 64-byte
// block are known. blocked_pipeline.hpp builds the rest of the table over it, compiled in the same
// file so the probe inlines everywhere: whole single-key calls (hash, block, probe) and the bulk
// loops (hash a key, prefetch its block a fixed distance ahead, probe). Every kernel sets and tests
// exactly the bits layout/layout.hpp defines (tests/core_isa_test.cpp proves it); they differ only
// in how fast they get there. kernel_dispatch.cpp chooses the active table.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "errc.hpp"
#include "kernels/blocked_view.hpp"
#include "kernels/isa.hpp"
#include "kernels/key_source.hpp"
#include "layout/atomic_bits.hpp"
#include "layout/layout.hpp"

namespace abloom {

// Whether a bulk add reports how many of its keys were new. The C API's add calls ask only when
// their `added` is not NULL: uncounted, an exclusive writer's loop drops the per-key test of what
// the key found and the register its count held (bench/RESULTS.md, "In cache against
// Boost.Bloom"). The shared writer's loop counts either way: its atomic ORs already need the
// bits it found.
enum class NewKeys { counted, uncounted };

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
  // tested 1; add_many returns how many keys had a bit that was not set before (NewKeys::counted,
  // or the shared writer), or 0 (an exclusive writer's NewKeys::uncounted).
  uint64_t (*test_many)(const BlockedView& view, const KeySource& keys, size_t n,
                        uint8_t* results) noexcept;
  uint64_t (*add_many)(const BlockedView& view, const KeySource& keys, size_t n, WriterMode mode,
                       NewKeys count) noexcept;
  // Set bits, for the estimates and the file's inserted-key estimate, which read every word of a
  // filter (either kind): block_bits writes the set bits of each 64-byte block of
  // words[0 .. blocks * kBlockWords) to out[b] (0..512); half_word_bits those of each 32-bit half
  // of words[0 .. n) to out[2i] (low half) and out[2i + 1] (high half). Compiled for the set:
  // the x86-64 baseline has no population count instruction, and std::popcount there is a
  // libgcc call per word.
  void (*block_bits)(const uint64_t* words, uint64_t blocks, uint16_t* out) noexcept;
  void (*half_word_bits)(const uint64_t* words, uint64_t n, uint8_t* out) noexcept;
};

// Every instruction set has one table per layout, in an array indexed by layout_index.
inline constexpr size_t kLayouts = 3;
// (The layouts' ids are 1 and 2: one subtraction, which folds into the table's address, where a
// compare took four instructions of every single-key call.)
constexpr size_t layout_index(Layout layout) noexcept { return static_cast<size_t>(layout) - 1; }
static_assert(layout_index(Layout::distinct) == 0 && layout_index(Layout::split) == 1 &&
              layout_index(Layout::half) == 2);

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
