// A filter handle that frees itself, error checks that name the file, and the progress line.
#pragma once

#include <abloom.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "input.hpp"

namespace abloom_cli {

struct FilterDeleter {
  void operator()(abloom_filter* f) const { abloom_free(f); }
};
using Filter = std::unique_ptr<abloom_filter, FilterDeleter>;

// Throws CliError("<what>: <abloom_strerror>") for a negative code; for ABLOOM_ERR_IO the errno
// says more than the code does. Returns `code` otherwise (1/0 answers pass through).
int check(int code, const std::string& what);

// abloom_open with a message that names the file.
Filter open_filter(const std::string& path, uint32_t flags);

// Moves a mapped filter into memory of its own (abloom_clone) once a long run of tests has paid
// for the copy. Why: a mapping reads through the page cache's 4 KiB pages, so each random probe
// into a filter larger than the TLB's reach pays a page walk, while the engine backs its own
// memory with huge pages where it can (madvise). On 10M keys against a 12.6 MB filter,
// `query --count` ran faster with the copy than from the mapping alone (bench/RESULTS.md, "The
// `abloom` command against wc -l, awk and sort -u"). The copy is made once as many keys have been
// tested as the filter has 64-byte blocks: copying a block costs less than one probe, so the copy
// costs less than the tests already run, and a query of a few keys keeps the O(1) open. Only
// filters that fit in half the free memory are copied.
class CopyWhenWorthIt {
 public:
  explicit CopyWhenWorthIt(const abloom_filter* filter);
  // Counts `keys` more tested keys; true when this call replaced `filter` by its copy (settings
  // of the handle, such as the writer mode, then need to be made again).
  bool after(Filter& filter, uint64_t keys);
  // For tests on several threads, where the handle must not change once they start: copies now
  // if the inputs are files of `input_bytes` in all, at least the filter's bytes (keys of up to 63
  // bytes in as many bytes as the filter number at least its blocks, with their terminators).
  // Not for 0, unknown (stdin, a FIFO): a stream of a few keys must keep the O(1) open.
  void up_front(Filter& filter, uint64_t input_bytes);

 private:
  uint64_t threshold_;
  uint64_t keys_ = 0;
  bool done_ = false;  // copied, or the copy failed: the mapping stays
};

// abloom_get_info's answer for `filter`.
abloom_info filter_info(const abloom_filter* filter);

// The bytes of a filter's bits.
uint64_t filter_bytes(const abloom_filter* filter);

// The keys a filter was sized for (a growing filter: its stages' together, so far).
uint64_t filter_capacity(const abloom_filter* filter);

// Whether `filter` is a growing one (abloom_options.growth), which needs no capacity.
bool is_growing(const abloom_filter* filter);

// Asks the kernel for writable pages under the whole of `filter` now (Linux's
// MADV_POPULATE_WRITE; elsewhere, where refused, or for a mapped file, nothing), for a filter
// about to take keys enough to write every page. The engine's memory is mapped lazily: the first
// probe of a page reads it, which maps the shared zero page, and the first add to it faults
// again to replace that page, which flushes the TLB of every CPU the process runs on (an
// interrupt each). Populated for writes, each page (or huge page) takes one fault and no flush.
// Only for memory of the filter's own: a mapped file's pages would all be written back.
void prefault_for_writes(abloom_filter* filter);

// A new, empty filter of `filter`'s shape (kind, layout, k, shards, bits, seed), which
// abloom_union accepts beside it. Unlike abloom_clone and abloom_clear, it neither reads `filter`
// nor writes its own bits: its zero pages come from the kernel as they are first written.
Filter empty_like(const abloom_filter* filter);

// The name of a layout id (abloom_info.layout, abloom_plan.layout), as --layout spells it:
// "distinct", "split" or "half". An id this command does not know (a layout of a newer library
// than the command was built with) is "unknown(N)": never the name of another layout, which
// would misreport the file's shape, nor one that --layout takes.
std::string layout_id_name(uint32_t layout);

// Why abloom_union or abloom_intersect refused two filters (ABLOOM_ERR_MISMATCH): each field of
// the shape that differs, with both values, "k 7 and 10, seed 0 and 5"; the fields: kind, layout,
// k, shards, blocks per shard, bits, seed.
std::string shape_differences(const abloom_filter* a, const abloom_filter* b);

// After `add` failed part way (a bad record, an unreadable input): syncs the filter file, whose
// read-write mapping already holds the `added` keys added before the error, and returns what to
// say of them after the error's message ("; ids.abloom keeps the 3 keys added before the error
// (synced)"), or that the sync failed too. Adding them again later changes nothing.
std::string keys_kept_after_error(abloom_filter* filter, const std::string& path, uint64_t added);

// abloom_save with a message that names the file.
void save_filter(const abloom_filter* filter, const std::string& path);

// "keys, keys/s, bytes [, ETA]" on stderr, rewritten in place at most a few times a second, and
// only when stderr is a terminal and --quiet was not given: scripts and logs get nothing.
class Progress {
 public:
  Progress(bool quiet, uint64_t total_bytes);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // The keys and bytes read so far by the run over the inputs (parallel_input.hpp).
  void update(uint64_t keys, uint64_t bytes);
  // A new run starts (query reads its inputs one run each): what the last one read is kept.
  void next_run();
  void finish();

 private:
  bool enabled_;
  uint64_t keys_before_ = 0;  // read by the runs before this one
  uint64_t bytes_before_ = 0;
  uint64_t keys_ = 0;  // read by this run
  uint64_t bytes_ = 0;
  bool shown_ = false;
  uint64_t total_bytes_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace abloom_cli
