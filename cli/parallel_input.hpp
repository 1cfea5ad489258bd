// Reading, parsing and hashing on several threads: the inputs are cut into parts of whole records,
// and each thread takes the next part, turns it into keys and runs its bulk calls on them.
//
// Why parts and not the library's own bulk threads: a bulk call that splits its keys between
// threads starts them anew on each call, and they read keys that the reading thread's cache
// holds, while everything before the call (reading, finding the record ends) stays on one thread.
// Measured on 16 idle cores, every thread past the first made build and query slower that way
// (bench/JOURNAL.md, "The command's bulk threads on 16 idle cores"). Here each thread reads its own
// part into its own buffer, so the keys it hashes are in its own cache, and every step runs on all
// threads: a regular file's ranges are read at once (pread); only a stream's reads (FIFOs,
// pipes, stdin) are taken in turn.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "filter.hpp"
#include "input.hpp"

namespace abloom_cli {

// What one thread keeps between its batches: scratch for the bulk calls' answers, the output of
// the part being read (query's lines, written in input order once the part is done), and a count
// that the run sums over every thread (query --count).
struct PartScratch {
  unsigned thread = 0;  // 0: the calling thread
  std::vector<uint8_t> answers;
  std::string out;
  uint64_t count = 0;
  Filter own;  // a filter of the thread's own, if its work makes one (add_all), for `finish`
};

struct ParallelJob {
  size_t max_keys;    // keys per batch (per bulk call)
  bool keep_records;  // the batches carry the records too, for output
  // Called for each batch, on any thread, at once with the others.
  std::function<void(const Batch&, PartScratch&)> work;
  // When set, called with each part's `out` in input order, one at a time, after its work.
  std::function<void(const std::string&)> commit;
  // When set, called on each thread with its scratch once no part is left for it, unless a part
  // failed; run_parallel returns after every thread's call.
  std::function<void(PartScratch&)> finish;
};

// What a run adds up besides its count: with --skip-bad, the records it skipped and the error of
// the first in input order (its record counted from the start of its input), summed over runs.
struct RunStats {
  uint64_t skipped = 0;
  std::string first_skipped;
};

// Runs `job` over every record of `paths` (in order; "-" is stdin) on `threads` threads, the
// calling one among them. A part of a regular file is the records that start in one 1 MiB range
// of it (read at its size when opened); of a stream, what one read(2) returns (at most 1 MiB) up
// to its last record end. Returns the sum of every thread's count.
//
// Errors: the first one in input order is thrown once every thread has stopped, as if one thread
// had read everything: a record error names its record counted from the start of its input, and
// with `commit` every part before the failing one is committed and none after it.
uint64_t run_parallel(const std::vector<std::string>& paths, const InputFormat& format,
                      unsigned threads, Progress& progress, const ParallelJob& job,
                      RunStats* stats = nullptr);

}  // namespace abloom_cli
