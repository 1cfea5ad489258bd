// abloom: build, query, dedupe, merge and inspect Bloom filter files from the shell, through the
// public C API (abloom.h) only. Options are parsed by CLI11.
#include <abloom.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "stale.hpp"
#include "system.hpp"

namespace {

using abloom_cli::CliError;
using abloom_cli::Inputs;
using abloom_cli::Shape;

// The options every command that reads keys shares.
void add_input_options(CLI::App* cmd, Inputs& in, std::string& delimiter) {
  cmd->add_option("INPUT", in.paths, "Files to read keys from; '-' or none: standard input");
  cmd->add_flag("-0,--null", in.format.nul, "Records end with NUL, not newline (find -print0)");
  cmd->add_option("--column", in.format.column,
                  "The key is field N (from 1) of each record, split at --delimiter (no quoting)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--delimiter", delimiter, "Field delimiter for --column: one byte, or 'tab'")
      ->capture_default_str();
  auto* hex = cmd->add_flag("--hex", in.format.hex, "The field is hex; the key is its bytes");
  cmd->add_flag("--u64", in.format.u64,
                "The field is a decimal unsigned 64-bit integer; the key is its 8 little-endian "
                "bytes (Python int, Java long)")
      ->excludes(hex);
  cmd->add_flag("-q,--quiet", in.quiet, "No progress line or warnings on standard error");
}

// build, add and query: --threads threads each read, parse and add or test their own parts of
// the input (cli/parallel_input.hpp). dedupe stays on one: whether a key is new depends on every
// key before it.
void add_threads_option(CLI::App* cmd, Inputs& in) {
  // Made once for the three commands: the default is the process's, not the command's.
  static const std::string help =
      "Threads that read, parse and add or test parts of the input at once (default: the CPUs "
      "this process may use, at most " +
      std::to_string(abloom_cli::kMaxDefaultThreads) + ": " +
      std::to_string(abloom_cli::default_threads()) + " here)";
  cmd->add_option("--threads", in.threads, help)->check(CLI::Range(1, ABLOOM_MAX_THREADS));
}

void add_shape_options(CLI::App* cmd, Shape& shape) {
  cmd->add_option("--fpr", shape.fpr, "Target false-positive rate at --capacity")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--kind", shape.kind, "blocked (one cache line per key) or classic")
      ->capture_default_str();
  cmd->add_option("--layout", shape.layout, "Blocked kind: default, split or distinct")
      ->capture_default_str();
  cmd->add_option("--seed", shape.seed, "Hash seed (filters combine only with equal seeds)")
      ->capture_default_str();
  cmd->add_option("--k", shape.k, "Bits per key (default: the best for --fpr)");
  cmd->add_option("--shards", shape.shards, "Shard count, a power of two (default: by size)");
}

char parse_delimiter(const std::string& d) {
  if (d == "tab" || d == "\\t") return '\t';
  if (d.size() != 1) throw CliError("--delimiter must be one byte or 'tab', not '" + d + "'");
  return d[0];
}

int run(int argc, char** argv) {
  CLI::App app{"abloom " ABLOOM_VERSION_STRING
               ": Bloom filter files from the shell (build, query, dedupe, merge, inspect)."};
  app.set_version_flag("--version", std::string(abloom_version_string()));
  app.require_subcommand(1);
  // The same options on every system: on Windows CLI11 would also take /NAME for an option, and a
  // path such as /tmp/keys.txt would become one.
  app.allow_windows_style_options(false);
  app.footer(
      "Exit status: 0 on success, 2 on error; query: 0 if a line was printed, 1 if none;\n"
      "verify: 1 if the file is corrupt, 3 if it is stale (seal: 1 if corrupt).\n"
      "Run 'abloom COMMAND --help' for a command's options.");

  Inputs in;
  Shape shape;
  std::string delimiter = ",";
  std::string output;
  std::string filter;
  bool json = false;

  auto* build = app.add_subcommand("build", "Build a filter file from keys, one per line");
  build->add_option("-o,--output", output, "The filter file to write")->required();
  build->add_option("--capacity", shape.capacity,
                    "Expected distinct keys (default: the number of records, counted in a first "
                    "pass; required for standard input and FIFOs)");
  add_shape_options(build, shape);
  add_input_options(build, in, delimiter);
  add_threads_option(build, in);
  build->footer(
      "The file is written once, at the end, through a temporary file and a rename: an\n"
      "interrupted build leaves no partial file.\n"
      "Example:\n  abloom build -o ids.abloom --fpr 0.001 ids.txt\n"
      "  zcat urls.gz | abloom build -o urls.abloom --capacity 50000000");

  auto* add = app.add_subcommand("add", "Add keys to an existing filter file, in place");
  add->add_option("FILTER", filter, "The filter file (mapped read-write, synced at the end)")
      ->required();
  add_input_options(add, in, delimiter);
  add_threads_option(add, in);
  add->footer("Example:\n  abloom add ids.abloom new-ids.txt");

  bool absent = false;
  bool count = false;
  auto* query = app.add_subcommand("query", "Print the keys the filter may contain");
  query->add_option("FILTER", filter, "The filter file")->required();
  query->add_flag("-v,--absent", absent, "Print the keys that are definitely absent instead");
  query->add_flag("-c,--count", count, "Print only the number of matching keys");
  add_input_options(query, in, delimiter);
  add_threads_option(query, in);
  query->footer(
      "Prints each matching record as read. Exit status as grep's: 0 if a line matched,\n"
      "1 if none, 2 on error. The file is opened in O(1) (header checked; 'abloom verify'\n"
      "checks the whole file).\n"
      "Example:\n  abloom query --absent crawled.abloom todays-urls.txt > to-crawl.txt");

  std::string load;
  std::string save;
  auto* dedupe = app.add_subcommand(
      "dedupe",
      "Copy standard input to standard output, each key only the first time it is seen,\n"
      "like awk '!seen[$0]++' in fixed memory. NOT EXACT: a new key that tests as a false\n"
      "positive is dropped as a repeat. While the distinct keys stay within --capacity,\n"
      "each new key is dropped with probability at most --fpr (about 1 in 100 at the\n"
      "default 0.01); repeats are never printed twice.");
  dedupe->add_option("--capacity", shape.capacity,
                     "Expected distinct keys (required unless --load); more raise the drop rate");
  add_shape_options(dedupe, shape);
  dedupe->add_option("--load", load, "Start from this filter: its keys count as already seen");
  dedupe->add_option("--save", save, "Save the filter (all keys seen) here at the end");
  add_input_options(dedupe, in, delimiter);
  dedupe->footer(
      "Example:\n  abloom dedupe --capacity 100000000 --fpr 1e-4 < events.log > first-seen.log");

  std::vector<std::string> filters;
  auto* merge = app.add_subcommand("merge", "Union of filter files (keys of any of them)");
  merge->add_option("-o,--output", output, "The filter file to write")->required();
  merge->add_option("FILTER", filters, "Filters of one shape (kind, k, bits, shards, seed)")
      ->required();
  merge->footer("Example:\n  abloom merge -o all.abloom monday.abloom tuesday.abloom");

  auto* intersect = app.add_subcommand(
      "intersect", "Intersection of filter files (bits set in all: keys of every one, and more)");
  intersect->add_option("-o,--output", output, "The filter file to write")->required();
  intersect->add_option("FILTER", filters, "Filters of one shape (kind, k, bits, shards, seed)")
      ->required();
  intersect->footer("Example:\n  abloom intersect -o both.abloom a.abloom b.abloom");

  auto* info = app.add_subcommand("info", "Describe a filter file: shape, size, estimates, fill");
  info->add_option("FILTER", filter, "The filter file (its checksum is checked)")->required();
  info->add_flag("--json", json,
                 "One JSON object with stable keys: file, kind, layout, k, shards, "
                 "blocks_per_shard, bits, bytes, file_bytes, capacity, seed, target_fpr, "
                 "expected_fpr, estimated_count (null if saturated), estimated_fpr, set_bits, "
                 "fill");
  info->footer("Example:\n  abloom info --json ids.abloom");

  auto* verify = app.add_subcommand("verify", "Check a filter file's header and whole checksum");
  verify->add_option("FILTER", filter, "The filter file")->required();
  verify->footer(
      "Exit status: 0 if the file is intact, 1 if it is corrupt (or not a filter), 2 if it\n"
      "cannot be read, 3 if it is stale: a writer (abloom add) was killed or is still adding;\n"
      "its keys are there, only its checksum is not current ('abloom seal' seals it).\n"
      "Example:\n  abloom verify ids.abloom");

  auto* seal = app.add_subcommand(
      "seal", "Seal a stale filter file (left by a killed add) so that it verifies again");
  seal->add_option("FILTER", filter, "The filter file (no writer may have it open)")->required();
  seal->footer(
      "Checks what can be checked without the checksum (header, size, and that the bits hold\n"
      "at least the keys the header counted), then rewrites the checksum. A file that is not\n"
      "stale is only verified, never written. Exit status: 0 if sealed or already sealed, 1 if\n"
      "the file is corrupt (left unchanged), 2 if it cannot be read or written.\n"
      "Example:\n  abloom seal ids.abloom");

  auto* plan = app.add_subcommand("plan", "Show the size and k of a filter, without building it");
  plan->add_option("--capacity", shape.capacity, "Expected distinct keys")->required();
  add_shape_options(plan, shape);
  plan->add_flag("--json", json, "One JSON object");
  plan->footer("Example:\n  abloom plan --capacity 500000000 --fpr 0.001");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  in.format.delimiter = parse_delimiter(delimiter);

  if (*build) return abloom_cli::cmd_build(output, shape, in);
  if (*add) return abloom_cli::cmd_add(filter, in);
  if (*query) return abloom_cli::cmd_query(filter, in, absent, count);
  if (*dedupe) return abloom_cli::cmd_dedupe(shape, load, save, in);
  if (*merge) return abloom_cli::cmd_combine(output, filters, false);
  if (*intersect) return abloom_cli::cmd_combine(output, filters, true);
  if (*info) return abloom_cli::cmd_info(filter, json);
  if (*verify) return abloom_cli::cmd_verify(filter);
  if (*seal) return abloom_cli::cmd_seal(filter);
  if (*plan) return abloom_cli::cmd_plan(shape, json);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    abloom_cli::sys::binary_stdio();
    // Paths reach abloom_open, abloom_save and the inputs as UTF-8, on every system.
    std::vector<std::string> args = abloom_cli::sys::utf8_arguments(argc, argv);
    std::vector<char*> pointers;
    pointers.reserve(args.size() + 1);
    for (std::string& a : args) pointers.push_back(a.data());
    pointers.push_back(nullptr);
    return run(static_cast<int>(args.size()), pointers.data());
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "abloom: %s\n", e.what());
    return 2;
  }
}
