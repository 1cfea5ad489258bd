#include "commands.hpp"

#include <abloom.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "filter.hpp"

namespace abloom_cli {

namespace {

// Keys per bulk call. Bulk calls use their threads only from 65536 keys up (--threads, below):
// build and add call with that many. query and dedupe print in input order, and smaller batches
// keep their latency low on a pipe. query --count keeps them too: with 65536 it ran 11% slower on
// one thread and 6% slower on two than with 4096 (10M keys, 2 vCPUs; bench/RESULTS.md).
constexpr size_t kBulkBatch = 65536;
constexpr size_t kPrintBatch = 4096;

// query's keys per call: kPrintBatch, unless --threads asks for more than one thread, which only
// a call of kBulkBatch keys uses.
size_t query_batch(const Inputs& in) { return in.threads > 1 ? kBulkBatch : kPrintBatch; }

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
  throw CliError("unknown layout '" + layout + "' (default, split or distinct)");
}

// The threads bulk calls may use: --threads, else one. More threads were slower wherever the
// command was measured (bench/RESULTS.md, "The command's bulk threads"): on 16 idle cores, 10M
// keys, build 0.17 s on 1 thread and 0.32 s on 16, query --count 0.10 and 0.16 s; on 2 vCPUs and
// a filter larger than the L3 cache, within 11% either way. A likely cause (not measured apart):
// each call starts its threads anew, and they read keys that the reading thread's cache holds.
uint32_t bulk_threads(const Inputs& in) { return in.threads != 0 ? in.threads : 1; }

// A saved filter (open_filter) whose bulk calls use bulk_threads(), as a new one's do
// (make_options): abloom_open starts every filter on the calling thread only.
Filter open_for_bulk(const std::string& path, uint32_t flags, const Inputs& in) {
  Filter filter = open_filter(path, flags);
  check(abloom_set_threads(filter.get(), bulk_threads(in)), path);
  return filter;
}

const char* kind_name(uint32_t kind) { return kind == ABLOOM_KIND_CLASSIC ? "classic" : "blocked"; }
const char* layout_name(uint32_t layout) {
  return layout == ABLOOM_LAYOUT_SPLIT ? "split" : "distinct";
}

abloom_options make_options(const Shape& shape, uint64_t capacity, uint32_t threads) {
  abloom_options opts;
  check(abloom_options_init(&opts), "options");
  opts.capacity = capacity;
  opts.fpr = shape.fpr;
  opts.kind = parse_kind(shape.kind);
  opts.layout = parse_layout(shape.layout);
  opts.seed = shape.seed;
  opts.k = shape.k;
  opts.shards = shape.shards;
  opts.threads = threads;
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

void flush_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    throw CliError(std::string("standard output: ") + errno_text(errno));
  }
}

// The records one batch prints, gathered and handed to stdio in one fwrite: an fwrite and a putc
// per record cost more than the record's test. Handed over at the end of every batch, so an
// error in a later batch leaves the output the same as it was with a write per record.
class RecordPrinter {
 public:
  explicit RecordPrinter(char terminator) : terminator_(terminator) {}
  void add(std::string_view record) {
    out_.append(record);
    out_.push_back(terminator_);
  }
  void flush() {
    std::fwrite(out_.data(), 1, out_.size(), stdout);
    out_.clear();
  }

 private:
  char terminator_;
  std::string out_;
};

// Calls fn(batch) for each batch of every input, in order. The batch points into the reader's
// buffer: fn must be done with it when it returns.
template <class Fn>
void for_each_batch(const Inputs& in, size_t max, bool keep_records, Progress& progress, Fn fn) {
  Batch batch;
  uint64_t keys = 0;
  uint64_t bytes = 0;
  for (const auto& path : paths_or_stdin(in)) {
    RecordReader reader(path, in.format);
    bool more = true;
    while (more) {
      more = reader.read(batch, max, keep_records);
      if (batch.size() == 0) continue;
      fn(batch);
      keys += batch.size();
      progress.update(keys, bytes + reader.bytes_read());
    }
    bytes += reader.bytes_read();
  }
  progress.finish();
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A double for JSON: infinity (a saturated filter's count estimate) has no JSON form.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

int cmd_build(const std::string& output, const Shape& shape, const Inputs& in) {
  auto paths = paths_or_stdin(in);
  uint64_t capacity = shape.capacity;
  if (capacity == 0) {
    // Counting needs a second pass over the input, which stdin and FIFOs cannot give.
    for (const auto& p : paths) {
      int64_t n = count_records(p, in.format);
      if (n < 0) {
        throw CliError((p == "-" ? std::string("(stdin)") : p) +
                       ": cannot be counted before it is read (stdin or a FIFO): give --capacity");
      }
      capacity += static_cast<uint64_t>(n);
    }
    capacity = std::max<uint64_t>(capacity, 1);  // an empty input builds an empty filter
  }
  Filter filter = create_filter(make_options(shape, capacity, bulk_threads(in)));
  // One writer (this process, whose bulk calls split the filter between their threads): plain
  // stores instead of atomic ORs.
  check(abloom_set_writer_mode(filter.get(), ABLOOM_WRITER_EXCLUSIVE), "writer mode");
  Progress progress(in.quiet, total_size(paths));
  for_each_batch(in, kBulkBatch, false, progress, [&](const Batch& b) {
    check(abloom_add_many(filter.get(), b.keys(), b.lens(), b.size(), nullptr), "add");
  });
  // Written only now, through a temporary file and a rename: an interrupted or failed build
  // leaves no partial output, and any older file stays whole.
  save_filter(filter.get(), output);
  return 0;
}

int cmd_add(const std::string& filter_path, const Inputs& in) {
  Filter filter = open_for_bulk(filter_path, ABLOOM_OPEN_READ_WRITE, in);
  check(abloom_set_writer_mode(filter.get(), ABLOOM_WRITER_EXCLUSIVE), "writer mode");
  Progress progress(in.quiet, total_size(paths_or_stdin(in)));
  for_each_batch(in, kBulkBatch, false, progress, [&](const Batch& b) {
    check(abloom_add_many(filter.get(), b.keys(), b.lens(), b.size(), nullptr), filter_path);
  });
  errno = 0;
  check(abloom_sync(filter.get()), filter_path);
  return 0;
}

int cmd_query(const std::string& filter_path, const Inputs& in, bool absent, bool count) {
  Filter filter = open_for_bulk(filter_path, 0, in);
  buffer_stdout();
  const char terminator = in.format.nul ? '\0' : '\n';
  const uint8_t wanted = absent ? 0 : 1;
  RecordPrinter printer(terminator);
  std::vector<uint8_t> results;
  uint64_t matched = 0;
  CopyWhenWorthIt copy(filter.get());
  Progress progress(true, 0);  // query's stdout is its output; no progress line needed
  for_each_batch(in, query_batch(in), !count, progress, [&](const Batch& b) {
    results.resize(b.size());
    uint64_t found = 0;
    check(abloom_test_many(filter.get(), b.keys(), b.lens(), b.size(), results.data(), &found),
          filter_path);
    copy.after(filter, b.size());
    // --count needs only the library's count, not a look at every answer.
    matched += absent ? b.size() - found : found;
    if (count) return;
    for (size_t i = 0; i < b.size(); ++i) {
      if (results[i] == wanted) printer.add(b.record(i));
    }
    printer.flush();
  });
  if (count) std::printf("%llu\n", static_cast<unsigned long long>(matched));
  flush_stdout();
  return matched > 0 ? 0 : 1;
}

int cmd_dedupe(const Shape& shape, const std::string& load, const std::string& save,
               const Inputs& in) {
  Filter filter;
  if (!load.empty()) {
    // A private copy of the saved filter: its keys count as seen, and the file never changes.
    filter = open_for_bulk(load, ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_VERIFY_CHECKSUM, in);
  } else {
    if (shape.capacity == 0) throw CliError("dedupe: give --capacity (or --load a filter)");
    filter = create_filter(make_options(shape, shape.capacity, bulk_threads(in)));
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
  uint64_t printed = 0;
  RecordPrinter printer(terminator);
  Progress progress(true, 0);
  std::vector<uint8_t> seen;
  for_each_batch(in, kPrintBatch, true, progress, [&](const Batch& b) {
    // A bulk test first: it prefetches the batch's blocks, so the adds below hit the cache. A key
    // it finds is dropped exactly as test_and_add would drop it (bits are only ever set).
    seen.resize(b.size());
    check(abloom_test_many(filter.get(), b.keys(), b.lens(), b.size(), seen.data(), nullptr),
          "dedupe");
    for (size_t i = 0; i < b.size(); ++i) {
      if (seen[i] != 0) continue;
      std::string_view key = b.key(i);
      // In input order, one key at a time: a key repeated within a batch must see its first copy.
      if (check(abloom_test_and_add(filter.get(), key.data(), key.size()), "dedupe") == 0) {
        printer.add(b.record(i));
        ++printed;
      }
    }
    printer.flush();
    if (copy && copy->after(filter, b.size())) exclusive();
  });
  flush_stdout();
  abloom_info info;
  check(abloom_info_init(&info), "info");
  check(abloom_get_info(filter.get(), &info), "info");
  if (load.empty() && printed > info.capacity && !in.quiet) {
    std::fprintf(stderr,
                 "abloom: warning: %llu distinct keys, above --capacity %llu: new keys were "
                 "dropped at more than the --fpr rate\n",
                 static_cast<unsigned long long>(printed),
                 static_cast<unsigned long long>(info.capacity));
  }
  if (!save.empty()) save_filter(filter.get(), save);
  return 0;
}

int cmd_combine(const std::string& output, const std::vector<std::string>& filters,
                bool intersect) {
  // The result starts as a private copy of the first input; its file is never written.
  Filter result = open_filter(filters.at(0), ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_VERIFY_CHECKSUM);
  for (size_t i = 1; i < filters.size(); ++i) {
    Filter other = open_filter(filters[i], ABLOOM_VERIFY_CHECKSUM);
    int rc = intersect ? abloom_intersect(result.get(), other.get())
                       : abloom_union(result.get(), other.get());
    if (rc == ABLOOM_ERR_MISMATCH) {
      throw CliError(filters[i] + ": not the same shape as " + filters[0] +
                     " (kind, k, shards, bits and seed must match)");
    }
    check(rc, filters[i]);
  }
  save_filter(result.get(), output);
  return 0;
}

int cmd_info(const std::string& filter_path, bool json) {
  // The estimates read every word anyway, so the checksum check costs little more.
  Filter filter = open_filter(filter_path, ABLOOM_VERIFY_CHECKSUM);
  abloom_info info;
  check(abloom_info_init(&info), "info");
  check(abloom_get_info(filter.get(), &info), filter_path);
  double est_count = 0;
  double est_fpr = 0;
  uint64_t file_bytes = 0;
  check(abloom_estimate_count(filter.get(), &est_count), filter_path);
  check(abloom_estimate_fpr(filter.get(), &est_fpr), filter_path);
  check(abloom_serialized_size(filter.get(), &file_bytes), filter_path);
  abloom_memory mem;
  check(abloom_memory_init(&mem), "memory");
  check(abloom_get_memory(filter.get(), &mem), filter_path);
  uint64_t set_bits = 0;
  for (uint32_t s = 0; s < mem.shards; ++s) {
    const uint64_t* words = mem.shard_words[s];
    for (uint64_t w = 0; w < mem.blocks_per_shard * 8; ++w) set_bits += std::popcount(words[w]);
  }
  double fill = info.bits > 0 ? static_cast<double>(set_bits) / static_cast<double>(info.bits) : 0;
  if (json) {
    // Stable: these keys, in this order; later versions only add keys at the end.
    std::printf(
        "{\"file\": %s, \"kind\": \"%s\", \"layout\": \"%s\", \"k\": %u, \"shards\": %u, "
        "\"blocks_per_shard\": %llu, \"bits\": %llu, \"bytes\": %llu, \"file_bytes\": %llu, "
        "\"capacity\": %llu, \"seed\": %llu, \"target_fpr\": %s, \"expected_fpr\": %s, "
        "\"estimated_count\": %s, \"estimated_fpr\": %s, \"set_bits\": %llu, \"fill\": %s}\n",
        json_string(filter_path).c_str(), kind_name(info.kind), layout_name(info.layout), info.k,
        info.shards, static_cast<unsigned long long>(info.blocks_per_shard),
        static_cast<unsigned long long>(info.bits), static_cast<unsigned long long>(info.bytes),
        static_cast<unsigned long long>(file_bytes), static_cast<unsigned long long>(info.capacity),
        static_cast<unsigned long long>(info.seed), json_number(info.target_fpr).c_str(),
        json_number(info.expected_fpr).c_str(), json_number(est_count).c_str(),
        json_number(est_fpr).c_str(), static_cast<unsigned long long>(set_bits),
        json_number(fill).c_str());
  } else {
    std::printf("file:             %s\n", filter_path.c_str());
    std::printf("kind:             %s\n", kind_name(info.kind));
    std::printf("layout:           %s\n", layout_name(info.layout));
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
    std::printf("fill:             %.4f (%llu bits set)\n", fill,
                static_cast<unsigned long long>(set_bits));
  }
  flush_stdout();
  return 0;
}

int cmd_verify(const std::string& filter_path) {
  abloom_filter* f = nullptr;
  errno = 0;
  int rc = abloom_open(filter_path.c_str(), ABLOOM_VERIFY_CHECKSUM, &f);
  Filter filter(f);
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

int cmd_plan(const Shape& shape, bool json) {
  abloom_options opts = make_options(shape, shape.capacity, 1);  // threads change no plan
  abloom_plan plan;
  check(abloom_plan_init(&plan), "plan");
  check(abloom_plan_compute(&opts, &plan), "plan");
  if (json) {
    std::printf(
        "{\"kind\": \"%s\", \"layout\": \"%s\", \"k\": %u, \"shards\": %u, "
        "\"blocks_per_shard\": %llu, \"bits\": %llu, \"bytes\": %llu, \"bits_per_key\": %s, "
        "\"capacity\": %llu, \"expected_fpr\": %s}\n",
        kind_name(plan.kind), layout_name(plan.layout), plan.k, plan.shards,
        static_cast<unsigned long long>(plan.blocks_per_shard),
        static_cast<unsigned long long>(plan.bits), static_cast<unsigned long long>(plan.bytes),
        json_number(plan.bits_per_key).c_str(), static_cast<unsigned long long>(opts.capacity),
        json_number(plan.expected_fpr).c_str());
  } else {
    std::printf("kind:         %s\n", kind_name(plan.kind));
    std::printf("layout:       %s\n", layout_name(plan.layout));
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
