#include "commands.hpp"

#include <abloom.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "filter.hpp"
#include "fullness.hpp"
#include "json.hpp"
#include "parallel_input.hpp"
#include "stale.hpp"
#include "system.hpp"

namespace abloom_cli {

namespace {

// Keys per bulk call: build and add take a part's keys (parallel_input.hpp) in one or two calls.
// query and dedupe test 4096 keys a call: query --count ran slower on one thread with 65536 than
// with 4096 (bench/RESULTS.md, "The `abloom` command against wc -l, awk and sort -u"): the
// answers of a smaller call stay in the L1 cache until they are looked at.
constexpr size_t kBulkBatch = 65536;
constexpr size_t kPrintBatch = 4096;

std::vector<std::string> paths_or_stdin(const Inputs& in) {
  return in.paths.empty() ? std::vector<std::string>{"-"} : in.paths;
}

uint64_t total_size(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const auto& p : paths) {
    uint64_t size = file_size(p);
    if (size == 0) return 0;  // stdin or a FIFO: no ETA
    total += size;
  }
  return total;
}

uint32_t parse_kind(const std::string& kind) {
  if (kind == "blocked") return ABLOOM_KIND_BLOCKED;
  if (kind == "classic") return ABLOOM_KIND_CLASSIC;
  throw CliError("unknown kind '" + kind + "' (blocked or classic)");
}

uint32_t parse_layout(const std::string& layout) {
  if (layout == "default") return ABLOOM_LAYOUT_DEFAULT;
  if (layout == "split") return ABLOOM_LAYOUT_SPLIT;
  if (layout == "distinct") return ABLOOM_LAYOUT_DISTINCT;
  if (layout == "half") return ABLOOM_LAYOUT_HALF;
  throw CliError("unknown layout '" + layout + "' (default, split, distinct or half)");
}

// The threads that read, parse and add or test parts of the inputs at once (parallel_input.hpp).
// The library's own bulk threads stay off (one per call): each thread here makes its own calls.
unsigned reading_threads(const Inputs& in) {
  return in.threads != 0 ? in.threads : default_threads();
}

const char* kind_name(uint32_t kind) { return kind == ABLOOM_KIND_CLASSIC ? "classic" : "blocked"; }
// The classic kind has no layout to choose (its bits spread over the whole shard; the library
// reports it as distinct): "none" in JSON (documented in info --help), and a word that says why
// in the text.
std::string layout_name(uint32_t kind, uint32_t layout, bool json) {
  if (kind == ABLOOM_KIND_CLASSIC) {
    return json ? "none" : "- (classic kind: bits spread over the shard)";
  }
  return layout_id_name(layout);
}

// `growing`: a growing filter, whose first stage takes `capacity` keys (0: the library's
// default), each next twice the last; it needs no count of the keys up front.
abloom_options make_options(const Shape& shape, uint64_t capacity, bool growing = false) {
  abloom_options opts;
  check(abloom_options_init(&opts), "options");
  opts.capacity = capacity;
  if (growing) opts.growth = ABLOOM_DEFAULT_GROWTH;
  opts.fpr = shape.fpr;
  opts.kind = parse_kind(shape.kind);
  opts.layout = parse_layout(shape.layout);
  opts.seed = shape.seed;
  opts.k = shape.k;
  opts.shards = shape.shards;
  return opts;
}

Filter create_filter(const abloom_options& opts) {
  abloom_filter* f = nullptr;
  check(abloom_create(&opts, &f), "cannot create the filter");
  return Filter(f);
}

// Output through one large buffer: a write per record would cost more than its test.
void buffer_stdout() {
  static char buf[1 << 20];
  std::setvbuf(stdout, buf, _IOFBF, sizeof buf);
}

// errno is read before the message is built: its allocations may change errno.
[[noreturn]] void stdout_failed(int err) {
  throw CliError("standard output: " + errno_text(err != 0 ? err : EIO));
}

void flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) stdout_failed(errno);
}

// --skip-bad: how many records were left out, and why the first was, once the reading is over.
void report_skipped(const RunStats& stats, const Inputs& in) {
  if (stats.skipped == 0 || in.quiet) return;
  std::fprintf(
      stderr, "abloom: warning: skipped %llu record%s that could not become keys (the first: %s)\n",
      static_cast<unsigned long long>(stats.skipped), stats.skipped == 1 ? "" : "s",
      stats.first_skipped.c_str());
}

// Filters that threads filled, ORed into one as they come: a thread that hands one in takes the
// one waiting, if any, ORs it into its own and goes on with the result, so up to half the threads
// that are done merge at once, each on its own pair.
class CopyMerger {
 public:
  explicit CopyMerger(const std::string& what) : what_(what) {}

  // Called on the thread that filled `mine` (null: it filled none).
  void add(Filter mine) {
    while (mine) {
      Filter other;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!waiting_) {
          waiting_ = std::move(mine);
          return;
        }
        other = std::move(waiting_);
      }
      check(abloom_union(mine.get(), other.get()), what_);
    }
  }

  // ORs what is left into `filter`, once no thread adds any more.
  void into(abloom_filter* filter) {
    if (waiting_) check(abloom_union(filter, waiting_.get()), what_);
    waiting_.reset();
  }

 private:
  const std::string& what_;
  std::mutex mu_;
  Filter waiting_;
};

// Adds every key of the inputs to `filter`, on reading_threads(in) threads; returns how many.
//
// One thread adds with plain stores (the exclusive writer mode). Several would need the shared
// mode's locked ORs, which cost so much that two threads added no faster than one (10M keys, 2
// vCPUs). So each thread but the calling one adds to a filter of its own, an empty one of the same
// shape made when it takes its first part, with plain stores. Where these would take more than
// half the free memory, the threads share `filter` in the shared mode instead.
//
// The copies are ORed together in pairs by the threads that finish (CopyMerger), while the others
// still add, and the one left is ORed into `filter` at the end: the run waits for about log2(N)
// passes over a copy instead of N - 1.
//
// `added`, if given, counts the keys added to `filter` itself: those stay in it when a part fails,
// while the threads' own copies are then dropped unmerged.
//
// A growing filter is never copied: a union adds each copy's stages to the filter's, so a stage
// that every copy filled would hold as many times its capacity (and miss its FPR). Nor is it
// shared by threads: which stage takes a key depends on the keys added before it, so threads
// adding at once would make a different file from the same input on every run. One thread adds
// its keys in input order, and the same keys make the same file as every binding's adds in that
// order.
uint64_t add_all(abloom_filter* filter, const Inputs& in, const std::string& what,
                 std::atomic<uint64_t>* added = nullptr) {
  RunStats stats;
  const auto paths = paths_or_stdin(in);
  const unsigned threads = is_growing(filter) ? 1 : reading_threads(in);
  const uint64_t bytes = filter_bytes(filter);
  const bool own_filters = threads > 1 && bytes <= sys::free_memory() / 2 / (threads - 1);
  if (threads == 1 || own_filters) {
    check(abloom_set_writer_mode(filter, ABLOOM_WRITER_EXCLUSIVE), "writer mode");
  }
  // Input files at least as large as the filter bring keys enough to write every page of it (keys
  // of under 64 bytes number more than its blocks), so its pages are taken now, ready for writes.
  const uint64_t input_bytes = total_size(paths);
  const bool fill_every_page = input_bytes >= bytes;
  if (fill_every_page) prefault_for_writes(filter);
  auto target = [&](PartScratch& scratch) -> abloom_filter* {
    if (!own_filters || scratch.thread == 0) return filter;
    if (!scratch.own) {
      scratch.own = empty_like(filter);
      if (fill_every_page) prefault_for_writes(scratch.own.get());
      check(abloom_set_writer_mode(scratch.own.get(), ABLOOM_WRITER_EXCLUSIVE), "writer mode");
    }
    return scratch.own.get();
  };
  CopyMerger copies(what);
  Progress progress(in.quiet, input_bytes);
  ParallelJob job{kBulkBatch, false,
                  [&](const Batch& b, PartScratch& scratch) {
                    abloom_filter* into = target(scratch);
                    check(abloom_add_many(into, b.keys(), b.lens(), b.size(), nullptr), what);
                    if (added != nullptr && into == filter) *added += b.size();
                    scratch.count += b.size();
                  },
                  nullptr, [&](PartScratch& scratch) { copies.add(std::move(scratch.own)); }};
  const uint64_t keys = run_parallel(paths, in.format, threads, progress, job, &stats);
  copies.into(filter);
  progress.finish();
  report_skipped(stats, in);
  return keys;
}

// Output of a part, handed to stdio in one fwrite: an fwrite and a putc per record cost more than
// the record's test.
// A failed write stops the command there, with its errno: later calls (the next part's, the final
// flush) would find only the stream's error flag, and errno long since changed.
void write_out(const std::string& out) {
  errno = 0;
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) stdout_failed(errno);
}

void add_record(std::string& out, std::string_view record, char terminator) {
  out.append(record);
  out.push_back(terminator);
}

// After build, add and dedupe: 0, or kExitOverCapacity with --strict when the filter ended over its
// capacity (warned of unless --quiet).
int full_status(const abloom_filter* filter, const std::string& name, const Inputs& in) {
  return over_capacity(filter, name, in.quiet) && in.strict ? kExitOverCapacity : 0;
}

}  // namespace

unsigned default_threads() {
  // The CPUs this process may run on (sys::usable_cpus: taskset's or a cpuset's limit), else the
  // CPUs online (0 when unknown).
  unsigned cpus = sys::usable_cpus();
  if (cpus == 0) cpus = std::thread::hardware_concurrency();
  return std::clamp(cpus, 1u, kMaxDefaultThreads);
}

int cmd_build(const std::string& output, const Shape& shape, const Inputs& in) {
  auto paths = paths_or_stdin(in);
  uint64_t capacity = shape.capacity;
  bool growing = false;
  if (capacity == 0) {
    // Counting needs a second pass over the input, which stdin and FIFOs cannot give: a growing
    // filter then takes however many keys come.
    for (const auto& p : paths) {
      int64_t n = count_records(p, in.format, reading_threads(in));
      if (n < 0) {
        growing = true;
        break;
      }
      capacity += static_cast<uint64_t>(n);
    }
    if (growing) {
      capacity = 0;  // the library's first stage
    } else {
      capacity = std::max<uint64_t>(capacity, 1);  // an empty input builds an empty filter
    }
  }
  Filter filter = create_filter(make_options(shape, capacity, growing));
  const uint64_t keys = add_all(filter.get(), in, "add");
  // Written only now, through a temporary file and a rename: an interrupted or failed build
  // leaves no partial output, and any older file stays whole.
  save_filter(filter.get(), output);
  // A new filter of at most its capacity in keys is not over it (nor worth a pass over its bits
  // to say so): the case of every build that counts its input first.
  return !growing && keys <= capacity ? 0 : full_status(filter.get(), output, in);
}

int cmd_add(const std::string& filter_path, const Inputs& in) {
  // A growing filter's keys go into a copy in memory, saved over the file at the end through a
  // temporary file and a rename, so that an interrupted add leaves the old file whole (a
  // read-write mapping would grow the file in place, but an add cut short would leave it stale).
  // The copy, not the mapping: Windows refuses to replace a file that this process has mapped.
  Filter growing;
  {
    abloom_filter* f = nullptr;
    errno = 0;
    const int rc = abloom_open(filter_path.c_str(), ABLOOM_OPEN_COPY_ON_WRITE, &f);
    Filter probe(f);
    check(rc == ABLOOM_ERR_STALE ? ABLOOM_OK : rc, filter_path);
    if (probe && is_growing(probe.get())) {
      abloom_filter* copy = nullptr;
      check(abloom_clone(probe.get(), &copy), filter_path);
      growing.reset(copy);
    }
  }  // the mapping is gone here
  if (growing) {
    add_all(growing.get(), in, filter_path);
    save_filter(growing.get(), filter_path);
    return full_status(growing.get(), filter_path, in);
  }
  // A stale file (a killed add's) takes more keys as well; the sync below seals it.
  Filter filter = open_filter_allow_stale(filter_path, ABLOOM_OPEN_READ_WRITE, in.quiet);
  std::atomic<uint64_t> added{0};
  try {
    add_all(filter.get(), in, filter_path, &added);
  } catch (const CliError& e) {
    throw CliError(e.what() + keys_kept_after_error(filter.get(), filter_path, added));
  }
  errno = 0;
  check(abloom_sync(filter.get()), filter_path);
  return full_status(filter.get(), filter_path, in);
}

int cmd_query(const std::string& filter_path, const Inputs& in, const QueryOutput& how) {
  Filter filter = open_filter_allow_stale(filter_path, 0, in.quiet);
  buffer_stdout();
  const char terminator = in.format.nul ? '\0' : '\n';
  const uint8_t wanted = how.absent ? 0 : 1;
  const auto paths = paths_or_stdin(in);
  const unsigned threads = reading_threads(in);
  const uint64_t input_bytes = total_size(paths);
  // The copy replaces the handle, which no thread may do while others use it: on one thread
  // once the tests have paid for it, on several up front.
  CopyWhenWorthIt copy(filter.get());
  if (threads > 1) copy.up_front(filter, input_bytes);
  // Not between records printed on the terminal: only with --count, or an output elsewhere.
  Progress progress(in.quiet || (!how.count && sys::stdout_is_terminal()), input_bytes);
  // Each record printed after its input's name and a colon, as grep -H does.
  std::string prefix;
  ParallelJob job{kPrintBatch, !how.count,
                  [&](const Batch& b, PartScratch& scratch) {
                    scratch.answers.resize(b.size());
                    uint64_t found = 0;
                    check(abloom_test_many(filter.get(), b.keys(), b.lens(), b.size(),
                                           scratch.answers.data(), &found),
                          filter_path);
                    if (threads == 1) copy.after(filter, b.size());
                    // --count needs only the library's count, not a look at every answer.
                    scratch.count += how.absent ? b.size() - found : found;
                    if (how.count) return;
                    for (size_t i = 0; i < b.size(); ++i) {
                      if (scratch.answers[i] != wanted) continue;
                      scratch.out.append(prefix);
                      add_record(scratch.out, b.record(i), terminator);
                    }
                  },
                  how.count ? nullptr : write_out, nullptr};
  // One run per input, as grep reads its files: an input that cannot be read, or a record of it
  // that cannot become a key, is reported and the others are read all the same (status 2 at the
  // end). What an input matched before its error stays printed.
  uint64_t matched = 0;
  bool failed = false;
  RunStats stats;
  for (const std::string& path : paths) {
    if (how.with_names) prefix = display_name(path) + ":";
    uint64_t found = 0;
    try {
      found = run_parallel({path}, in.format, threads, progress, job, &stats);
    } catch (const InputError& e) {
      flush_stdout();  // the records before the error come before its message, as grep's do
      progress.finish();
      std::fprintf(stderr, "abloom: %s\n", e.what());
      failed = true;
      progress.next_run();
      continue;
    }
    progress.next_run();
    matched += found;
    if (how.count && how.with_names) {
      std::printf("%s:%llu\n", display_name(path).c_str(), static_cast<unsigned long long>(found));
    }
  }
  progress.finish();
  report_skipped(stats, in);
  if (how.count && !how.with_names) std::printf("%llu\n", static_cast<unsigned long long>(matched));
  flush_stdout();
  if (failed) return 2;
  return matched > 0 ? 0 : 1;
}

int cmd_dedupe(const Shape& shape, const std::string& load, const std::string& save,
               const Inputs& in) {
  Filter filter;
  if (!load.empty()) {
    // A private copy of the saved filter: its keys count as seen, and the file never changes.
    filter =
        open_filter_allow_stale(load, ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_VERIFY_CHECKSUM, in.quiet);
  } else {
    // No --capacity: a growing filter, which holds the drop rate at any count of keys.
    filter = create_filter(make_options(shape, shape.capacity, shape.capacity == 0));
  }
  // One writer, this thread: plain stores. The mode belongs to the handle, so a copy (below)
  // is set again.
  auto exclusive = [&] {
    check(abloom_set_writer_mode(filter.get(), ABLOOM_WRITER_EXCLUSIVE), "writer mode");
  };
  exclusive();
  // A loaded filter is a private mapping: moved into memory of its own once worth it. A new
  // filter already is in such memory.
  std::optional<CopyWhenWorthIt> copy;
  if (!load.empty()) copy.emplace(filter.get());
  buffer_stdout();
  const char terminator = in.format.nul ? '\0' : '\n';
  const auto paths = paths_or_stdin(in);
  // Not between the lines printed on the terminal: only with the output elsewhere.
  Progress progress(in.quiet || sys::stdout_is_terminal(), total_size(paths));
  uint64_t lines = 0;
  // The account of the dropped lines at the end, from the FPR measured on the way.
  uint64_t batches = 0;
  std::optional<FalseDropMeter> meter;
  if (!in.quiet) {
    meter.emplace(filter_capacity(filter.get()));
    meter->sample(filter.get(), 0, 0);
  }
  // One thread: whether a key is new depends on every key before it, in input order.
  ParallelJob job{kPrintBatch, true,
                  [&](const Batch& b, PartScratch& scratch) {
                    // In input order (a key repeated within a batch sees its first copy), with the
                    // batch tested in bulk first (abloom_test_and_add_many).
                    lines += b.size();
                    scratch.answers.resize(b.size());
                    check(abloom_test_and_add_many(filter.get(), b.keys(), b.lens(), b.size(),
                                                   scratch.answers.data(), nullptr),
                          "dedupe");
                    for (size_t i = 0; i < b.size(); ++i) {
                      if (scratch.answers[i] != 0) continue;
                      add_record(scratch.out, b.record(i), terminator);
                      ++scratch.count;
                    }
                    if (copy && copy->after(filter, b.size())) exclusive();
                    ++batches;
                    if (meter && meter->due(scratch.count, batches))
                      meter->sample(filter.get(), scratch.count, batches);
                  },
                  write_out, nullptr};
  RunStats stats;
  const uint64_t printed = run_parallel(paths, in.format, 1, progress, job, &stats);
  flush_stdout();
  progress.finish();
  report_skipped(stats, in);
  if (!save.empty()) save_filter(filter.get(), save);
  if (meter) {
    // What was dropped: repeats, and new keys that tested as false positives, which nothing can
    // tell apart; the FPR measured on the way says how many of the second kind to expect.
    meter->sample(filter.get(), printed, batches);
    const uint64_t dropped = lines - printed;
    const double false_drops = std::min(meter->expected(), static_cast<double>(dropped));
    std::fprintf(stderr,
                 "abloom: dedupe: %llu lines, %llu printed, %llu dropped; of the dropped, about "
                 "%.0f are expected to be new keys lost as false positives, the rest repeats\n",
                 static_cast<unsigned long long>(lines), static_cast<unsigned long long>(printed),
                 static_cast<unsigned long long>(dropped), false_drops);
  }
  // A new filter that took at most its capacity in keys is not over it.
  if (load.empty() && shape.capacity != 0 && printed <= shape.capacity) return 0;
  return full_status(filter.get(), save.empty() ? "dedupe's filter" : save, in);
}

int cmd_combine(const std::string& output, const std::vector<std::string>& filters,
                bool intersect) {
  // The result starts as a private copy of the first input; its file is never written.
  Filter result = open_filter_allow_stale(
      filters.at(0), ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_VERIFY_CHECKSUM, false);
  for (size_t i = 1; i < filters.size(); ++i) {
    Filter other = open_filter_allow_stale(filters[i], ABLOOM_VERIFY_CHECKSUM, false);
    int rc = intersect ? abloom_intersect(result.get(), other.get())
                       : abloom_union(result.get(), other.get());
    if (rc == ABLOOM_ERR_MISMATCH) {
      // Values in the order of the names: the first filter's, then this one's.
      throw CliError(filters[0] + " and " + filters[i] +
                     " are not the same shape: " + shape_differences(result.get(), other.get()) +
                     " (kind, layout, k, shards, bits and seed must match)");
    }
    check(rc, filters[i]);
  }
  save_filter(result.get(), output);
  return 0;
}

namespace {

// info --json's "stages": one object per stage, oldest first.
// keys: null for a fixed filter, which does not count them.
std::string stage_list_json(const std::vector<abloom_info>& stages, bool growing) {
  std::string out;
  for (const abloom_info& st : stages) {
    if (!out.empty()) out += ", ";
    out += "{\"capacity\": " + std::to_string(st.capacity) +
           ", \"keys\": " + (growing ? std::to_string(st.keys) : std::string("null")) +
           ", \"k\": " + std::to_string(st.k) + ", \"bytes\": " + std::to_string(st.bytes) +
           ", \"target_fpr\": " + json_number(st.target_fpr) +
           ", \"expected_fpr\": " + json_number(st.expected_fpr) + "}";
  }
  return out;
}

}  // namespace

int cmd_info(const std::string& filter_path, bool json) {
  // The estimates read every word anyway, so the checksum check costs little more.
  Filter filter = open_filter_allow_stale(filter_path, ABLOOM_VERIFY_CHECKSUM, false);
  abloom_info info;
  check(abloom_info_init(&info), "info");
  check(abloom_get_info(filter.get(), &info), filter_path);
  double est_count = 0;
  double est_fpr = 0;
  uint64_t file_bytes = 0;
  check(abloom_estimate_count(filter.get(), &est_count), filter_path);
  check(abloom_estimate_fpr(filter.get(), &est_fpr), filter_path);
  check(abloom_serialized_size(filter.get(), &file_bytes), filter_path);
  // A growing filter's stages, oldest first (a fixed filter is its own one stage).
  std::vector<abloom_info> stages(info.stages);
  for (uint32_t i = 0; i < info.stages; ++i) {
    check(abloom_info_init(&stages[i]), "info");
    check(abloom_get_stage_info(filter.get(), i, &stages[i]), filter_path);
  }
  // The set bits: counted from the words of a fixed filter; a growing filter's words are not
  // handed out (abloom_get_memory), so null in JSON and left out of the text.
  const bool growing = info.growth != 0;
  uint64_t set_bits = 0;
  if (!growing) {
    abloom_memory mem;
    check(abloom_memory_init(&mem), "memory");
    check(abloom_get_memory(filter.get(), &mem), filter_path);
    for (uint32_t s = 0; s < mem.shards; ++s) {
      const uint64_t* words = mem.shard_words[s];
      for (uint64_t w = 0; w < mem.blocks_per_shard * 8; ++w) set_bits += std::popcount(words[w]);
    }
  }
  double fill = info.bits > 0 ? static_cast<double>(set_bits) / static_cast<double>(info.bits) : 0;
  if (json) {
    // Stable: these keys, in this order; later versions only add keys at the end.
    std::printf(
        "{\"file\": %s, \"kind\": \"%s\", \"layout\": \"%s\", \"k\": %u, \"shards\": %u, "
        "\"blocks_per_shard\": %llu, \"bits\": %llu, \"bytes\": %llu, \"file_bytes\": %llu, "
        "\"capacity\": %llu, \"seed\": %llu, \"target_fpr\": %s, \"expected_fpr\": %s, "
        "\"estimated_count\": %s, \"estimated_fpr\": %s, \"set_bits\": %s, \"fill\": %s, "
        "\"growth\": %s, \"growth_failed\": %s, \"keys\": %s, \"stages\": [%s]}\n",
        json_string(filter_path).c_str(), kind_name(info.kind),
        layout_name(info.kind, info.layout, true).c_str(), info.k, info.shards,
        static_cast<unsigned long long>(info.blocks_per_shard),
        static_cast<unsigned long long>(info.bits), static_cast<unsigned long long>(info.bytes),
        static_cast<unsigned long long>(file_bytes), static_cast<unsigned long long>(info.capacity),
        static_cast<unsigned long long>(info.seed), json_number(info.target_fpr).c_str(),
        json_number(info.expected_fpr).c_str(), json_number(est_count).c_str(),
        json_number(est_fpr).c_str(), growing ? "null" : std::to_string(set_bits).c_str(),
        growing ? "null" : json_number(fill).c_str(), json_number(info.growth).c_str(),
        info.growth_failed != 0 ? "true" : "false",
        growing ? std::to_string(info.keys).c_str() : "null",
        stage_list_json(stages, growing).c_str());
  } else {
    std::printf("file:             %s\n", filter_path.c_str());
    std::printf("kind:             %s\n", kind_name(info.kind));
    std::printf("layout:           %s\n", layout_name(info.kind, info.layout, false).c_str());
    std::printf("k:                %u\n", info.k);
    std::printf("shards:           %u x %llu blocks\n", info.shards,
                static_cast<unsigned long long>(info.blocks_per_shard));
    std::printf("bits:             %llu (%llu bytes; file %llu bytes)\n",
                static_cast<unsigned long long>(info.bits),
                static_cast<unsigned long long>(info.bytes),
                static_cast<unsigned long long>(file_bytes));
    std::printf("seed:             %llu\n", static_cast<unsigned long long>(info.seed));
    std::printf("capacity:         %llu at target FPR %g (model: %.4g)\n",
                static_cast<unsigned long long>(info.capacity), info.target_fpr, info.expected_fpr);
    std::printf("estimated keys:   %.0f\n", est_count);
    std::printf("estimated FPR:    %.4g\n", est_fpr);
    if (!growing) {
      std::printf("fill:             %.4f (%llu bits set)\n", fill,
                  static_cast<unsigned long long>(set_bits));
    } else {
      std::printf("growing:          %u stages, each %g times the last; %llu keys counted%s\n",
                  info.stages, info.growth, static_cast<unsigned long long>(info.keys),
                  info.growth_failed != 0 ? "; COULD NOT GROW: the FPR is no longer held" : "");
      for (uint32_t i = 0; i < info.stages; ++i) {
        const abloom_info& st = stages[i];
        std::printf("  stage %-2u        %llu of %llu keys, %llu bytes, k %u, target FPR %.3g\n", i,
                    static_cast<unsigned long long>(st.keys),
                    static_cast<unsigned long long>(st.capacity),
                    static_cast<unsigned long long>(st.bytes), st.k, st.target_fpr);
      }
    }
  }
  flush_stdout();
  return 0;
}

int cmd_verify(const std::string& filter_path) {
  abloom_filter* f = nullptr;
  errno = 0;
  int rc = abloom_open(filter_path.c_str(), ABLOOM_VERIFY_CHECKSUM, &f);
  Filter filter(f);
  // A stale file is not corrupt: a status of its own (3).
  if (rc == ABLOOM_ERR_STALE) return report_stale(filter_path);
  // The errors of the bytes themselves fail the check (status 1); a file that cannot be read at
  // all is an error (status 2), as for every other command.
  if (rc <= ABLOOM_ERR_BAD_MAGIC && rc >= ABLOOM_ERR_CHECKSUM) {
    std::printf("%s: FAILED: %s\n", filter_path.c_str(), abloom_strerror(rc));
    flush_stdout();
    return 1;
  }
  check(rc, filter_path);
  uint64_t bytes = 0;
  check(abloom_serialized_size(filter.get(), &bytes), filter_path);
  std::printf("%s: OK (header and checksum of %llu bytes)\n", filter_path.c_str(),
              static_cast<unsigned long long>(bytes));
  flush_stdout();
  return 0;
}

namespace {

// plan --growing: the growing filter's stages, bytes and FPR bound at shape.capacity keys, and the
// fixed filter's bytes for as many.
int plan_growing(const Shape& shape, bool json) {
  if (shape.k != 0) throw CliError("plan --growing: --k does not apply (each stage has its own)");
  abloom_options fixed = make_options(shape, shape.capacity);
  abloom_plan plan;
  check(abloom_plan_init(&plan), "plan");
  check(abloom_plan_compute(&fixed, &plan), "plan");
  const abloom_options opts = make_options(shape, 0, true);
  uint32_t stages = 0;
  uint64_t bytes = 0;
  double bound = 0;
  check(abloom_growth_footprint(&opts, shape.capacity, &stages, &bytes, &bound), "plan");
  const double ratio = static_cast<double>(bytes) / static_cast<double>(plan.bytes);
  const double bits_per_key =
      8.0 * static_cast<double>(bytes) / static_cast<double>(shape.capacity);
  if (json) {
    std::printf(
        "{\"keys\": %llu, \"stages\": %u, \"bytes\": %llu, \"bits_per_key\": %s, "
        "\"fpr_bound\": %s, \"growth\": %s, \"first_stage\": %u, \"fixed_bytes\": %llu, "
        "\"ratio_to_fixed\": %s}\n",
        static_cast<unsigned long long>(shape.capacity), stages,
        static_cast<unsigned long long>(bytes), json_number(bits_per_key).c_str(),
        json_number(bound).c_str(), json_number(ABLOOM_DEFAULT_GROWTH).c_str(),
        ABLOOM_DEFAULT_INITIAL_CAPACITY, static_cast<unsigned long long>(plan.bytes),
        json_number(ratio).c_str());
  } else {
    std::printf("growing filter at %llu keys (first stage %u keys, each next %g times):\n",
                static_cast<unsigned long long>(shape.capacity), ABLOOM_DEFAULT_INITIAL_CAPACITY,
                ABLOOM_DEFAULT_GROWTH);
    std::printf("stages:       %u\n", stages);
    std::printf("bytes:        %llu (%.2f bits per key)\n", static_cast<unsigned long long>(bytes),
                bits_per_key);
    std::printf("FPR bound:    %.4g (target %g)\n", bound, shape.fpr);
    std::printf("fixed filter: %llu bytes for %llu keys: the growing one takes %.2fx\n",
                static_cast<unsigned long long>(plan.bytes),
                static_cast<unsigned long long>(shape.capacity), ratio);
  }
  flush_stdout();
  return 0;
}

}  // namespace

int cmd_plan(const Shape& shape, bool json, bool growing) {
  if (growing) return plan_growing(shape, json);
  abloom_options opts = make_options(shape, shape.capacity);
  abloom_plan plan;
  check(abloom_plan_init(&plan), "plan");
  check(abloom_plan_compute(&opts, &plan), "plan");
  if (json) {
    std::printf(
        "{\"kind\": \"%s\", \"layout\": \"%s\", \"k\": %u, \"shards\": %u, "
        "\"blocks_per_shard\": %llu, \"bits\": %llu, \"bytes\": %llu, \"bits_per_key\": %s, "
        "\"capacity\": %llu, \"expected_fpr\": %s}\n",
        kind_name(plan.kind), layout_name(plan.kind, plan.layout, true).c_str(), plan.k,
        plan.shards, static_cast<unsigned long long>(plan.blocks_per_shard),
        static_cast<unsigned long long>(plan.bits), static_cast<unsigned long long>(plan.bytes),
        json_number(plan.bits_per_key).c_str(), static_cast<unsigned long long>(opts.capacity),
        json_number(plan.expected_fpr).c_str());
  } else {
    std::printf("kind:         %s\n", kind_name(plan.kind));
    std::printf("layout:       %s\n", layout_name(plan.kind, plan.layout, false).c_str());
    std::printf("k:            %u\n", plan.k);
    std::printf("shards:       %u x %llu blocks\n", plan.shards,
                static_cast<unsigned long long>(plan.blocks_per_shard));
    std::printf("bits:         %llu (%.2f per key)\n", static_cast<unsigned long long>(plan.bits),
                plan.bits_per_key);
    std::printf("bytes:        %llu\n", static_cast<unsigned long long>(plan.bytes));
    std::printf("expected FPR: %.4g at %llu keys\n", plan.expected_fpr,
                static_cast<unsigned long long>(opts.capacity));
  }
  flush_stdout();
  return 0;
}

}  // namespace abloom_cli
