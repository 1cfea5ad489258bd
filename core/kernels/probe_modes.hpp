// The things a single-key call and a bulk loop ask differently of one probe: how its test gives
// the answer (Answer), where its add's block comes from (Arrival) and, for a split test, where
// its window comes from (Window). Every probe takes them as template arguments;
// blocked_pipeline.hpp picks them for each call it builds.
#pragma once

namespace abloom {

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

// Where an add's block comes from, which decides how the shared writer's write step may branch
// (write_step.hpp).
//  - on_demand (single-key calls): the probe's own load fetches the block. Out of cache, a branch
//    on its bits resolves only when it arrives, and a mispredicted one keeps the next keys' misses
//    from starting until then (a single add ran slower so: bench/JOURNAL.md, "What bounds a
//    single-key call out of cache"). The step exits early when no bit
//    is missing (predictable in a run of new keys or a run of repeats), then writes the words the
//    hash alone selects: every word a candidate falls in, a word with nothing missing into a
//    scratch word instead.
//  - prefetched (bulk loops): the block is on its way already, so branching on its bits costs a
//    mispredict at worst, and the step writes only the words with a missing bit: repeats then
//    cost no atomic OR at all (bulk adds of keys already present took half the time).
enum class Arrival { on_demand, prefetched };

// Where a split probe's test takes the key's window of words from (only the AVX-512 split probe
// has two ways; the other probes take the argument and ignore it).
//  - table (single-key calls, and bulk loops over filters of several shards): split_window's
//    row, one load. Out of cache it measured faster (bench/JOURNAL.md, "The window's lanes from a
//    table").
//  - computed (bulk loops over a one-shard filter, every filter under 16 MiB by default): the
//    window as a mask register from the start, a few instructions and no load, which in and near
//    the cache measured faster, and at 100M keys slower (bench/JOURNAL.md, "Closing the gap in
//    cache, first steps").
enum class Window { table, computed };

// When an exclusive writer's add stores the key's block (the shared writer's atomic ORs write
// only missing bits whatever this says). The add's result (whether every bit was set already) is
// the same either way.
//  - if_changed (single-key calls, and bulk adds that count new keys): only when the key had a
//    bit missing. A key already present leaves its line clean, so that readers on other cores
//    keep their copies and a mapped file's page is not written back for it.
//  - always (an exclusive writer's bulk add that counts nothing: NewKeys::uncounted): the block
//    ORed with the key's bits, stored whatever it held. No test of what the key found and no
//    select of where to store, which made in-cache bulk adds faster (bench/JOURNAL.md, "Fewer
//    instructions in the bulk loops"); a repeat then dirties its line as a new key does.
enum class Store { if_changed, always };

}  // namespace abloom
