// abloom: build, query, dedupe, merge and inspect Bloom filter files from the shell, through the
// public C API (abloom.h) only. Options are parsed by CLI11.
#include <abloom.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "output_guard.hpp"
#include "stale.hpp"
#include "system.hpp"

namespace {

using abloom_cli::CliError;
using abloom_cli::Inputs;
using abloom_cli::Shape;
using abloom_cli::whole_number;

// The options every command that reads keys shares.
void add_input_options(CLI::App* cmd, Inputs& in, std::string& delimiter) {
  cmd->add_option("INPUT", in.paths, "Files to read keys from; '-' or none: standard input");
  cmd->add_flag("-0,--null", in.format.nul, "Records end with NUL, not newline (find -print0)");
  cmd->add_option("--column", in.format.column,
                  "The key is field N (from 1) of each record, split at --delimiter (no quoting)")
      ->transform(whole_number(1, UINT32_MAX, "fields count from 1"));
  cmd->add_option("--delimiter", delimiter, "Field delimiter for --column: one byte, or 'tab'")
      ->capture_default_str();
  auto* hex = cmd->add_flag("--hex", in.format.hex, "The field is hex; the key is its bytes");
  cmd->add_flag("--u64", in.format.u64,
                "The field is a decimal unsigned 64-bit integer; the key is its 8 little-endian "
                "bytes (Python int, Java long)")
      ->excludes(hex);
  cmd->add_flag("--skip-bad", in.format.skip_bad,
                "Skip records that lack the --column or fail --hex or --u64, and say how many on "
                "standard error (default: such a record is an error)");
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
  cmd->add_option("--threads", in.threads, help)->transform(whole_number(1, ABLOOM_MAX_THREADS));
}

// build, add and dedupe: a filter that ends over its capacity is warned of, or with --strict an
// exit status too.
void add_strict_option(CLI::App* cmd, Inputs& in) {
  cmd->add_flag("--strict", in.strict,
                "Exit with status 4 when the filter ends over its capacity (an estimated FPR "
                "above twice its target); the file is written all the same");
}

void add_shape_options(CLI::App* cmd, Shape& shape) {
  cmd->add_option("--fpr", shape.fpr,
                  "Target false-positive rate at --capacity: above 0 and below 1, as a number "
                  "(0.001, 1e-4) or a percentage (0.1%)")
      ->capture_default_str()
      ->transform(abloom_cli::rate());
  cmd->add_option("--kind", shape.kind, "blocked (one cache line per key) or classic")
      ->capture_default_str()
      ->check(abloom_cli::one_of({"blocked", "classic"}, "kind"));
  cmd->add_option("--layout", shape.layout,
                  "Blocked kind only: default, split (k of 16 at most), distinct or half (k of 8 "
                  "only: the fastest in cache, a few percent more bits; never the default)")
      ->capture_default_str()
      ->check(abloom_cli::one_of({"default", "split", "distinct", "half"}, "layout"));
  cmd->add_option("--seed", shape.seed,
                  "Hash seed, 0 to 2^64-1 (filters combine only with equal seeds)")
      ->capture_default_str()
      ->transform(whole_number(0, UINT64_MAX));
  cmd->add_option("--k", shape.k,
                  "Probes per key: the bits each key sets and each test reads, 1 to 64 (16 at "
                  "most with --layout split, 8 only with --layout half; default: the best for "
                  "--fpr)")
      ->transform(whole_number(1, ABLOOM_MAX_K));
  cmd->add_option("--shards", shape.shards,
                  "Shard count, a power of two from 1 to 65536 (default: by size)")
      ->transform(whole_number(1, ABLOOM_MAX_SHARDS))
      ->check(abloom_cli::power_of_two(ABLOOM_MAX_SHARDS, "or leave --shards out: by size"));
}

char parse_delimiter(const std::string& d) {
  if (d == "tab" || d == "\\t") return '\t';
  if (d.size() != 1) throw CliError("--delimiter must be one byte or 'tab', not '" + d + "'");
  return d[0];
}

constexpr const char* kForceHelp =
    "Replace an existing file that is not an abloom filter (refused without --force; an output "
    "that is one of the inputs is refused even with it)";

// "abloom: <what>" for every usage error, as for the other errors (main), and where to look.
std::string usage_failure(const CLI::App* app, const CLI::Error& e) {
  (void)app;
  return std::string("abloom: ") + e.what() +
         "\nRun 'abloom --help' or 'abloom COMMAND --help' for the options.\n";
}

// CLI11 calls a first word that is no command "A subcommand is required": this names it and the
// commands. The top level has no option that takes a value, so the first word not starting with
// '-' is the command.
void check_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (!word.empty() && word[0] == '-') continue;
    std::string names;
    for (const CLI::App* cmd : app.get_subcommands({})) {
      if (cmd->get_name() == word) return;
      names += (names.empty() ? "" : ", ") + cmd->get_name();
    }
    std::string message = "unknown command '";
    message += word;
    message += "'; the commands are: ";
    message += names;
    throw CliError(message);
  }
}

// Prints the help, the version or a usage error (CLI11's exit) and returns the status. Help and
// --version go to standard output through std::cout: a failed write (a full disk, a closed pipe)
// is an error, status 2, as it is for every command's output. The buffer holds the whole help, so
// that the one write that fails is the flush here, and its errno is the one reported.
int print_parse_result(const CLI::App& app, const CLI::ParseError& e) {
  static char buf[1 << 16];
  std::setvbuf(stdout, buf, _IOFBF, sizeof buf);  // nothing is printed before the parse
  errno = 0;
  const int rc = app.exit(e) == 0 ? 0 : 2;  // --version ends with std::endl: a flush, in here
  int err = errno;
  std::cout.flush();  // std::cout writes through stdout's buffer (synced with stdio)
  if (err == 0) err = errno;
  if (std::fflush(stdout) != 0 && err == 0) err = errno;
  if (std::ferror(stdout) || !std::cout) {
    throw CliError("standard output: " + abloom_cli::errno_text(err != 0 ? err : EIO));
  }
  return rc;
}

int run(int argc, char** argv) {
  CLI::App app{"abloom " ABLOOM_VERSION_STRING
               ": Bloom filter files from the shell (build, query, dedupe, merge, inspect)."};
  app.set_version_flag("--version", std::string(abloom_version_string()));
  app.require_subcommand(1);
  // The same options on every system: on Windows CLI11 would also take /NAME for an option, and a
  // path such as /tmp/keys.txt would become one.
  app.allow_windows_style_options(false);
  // Before the subcommands, which take it from the app when made.
  app.failure_message(usage_failure);
  app.footer(
      "Exit status: 0 on success, 2 on error; query: 0 if a line was printed, 1 if none;\n"
      "build, add, dedupe --strict: 4 if the filter ended over its capacity;\n"
      "verify: 1 if the file is corrupt, 3 if it is stale (seal: 1 if corrupt).\n"
      "Run 'abloom COMMAND --help' for a command's options.");

  Inputs in;
  Shape shape;
  std::string delimiter = ",";
  std::string output;
  std::string filter;
  bool json = false;
  bool force = false;
  bool growing = false;

  auto* build = app.add_subcommand("build", "Build a filter file from keys, one per line");
  build->add_option("-o,--output", output, "The filter file to write")->required();
  build->add_flag("--force", force, kForceHelp);
  build
      ->add_option("--capacity", shape.capacity,
                   "Expected distinct keys, 1 or more (default: the number of records, counted in "
                   "a first pass; for standard input and FIFOs, which cannot be counted, a growing "
                   "filter, which takes any number of keys at its FPR)")
      ->transform(whole_number(1, UINT64_MAX, "or leave --capacity out to count the records"));
  add_shape_options(build, shape);
  add_input_options(build, in, delimiter);
  add_threads_option(build, in);
  add_strict_option(build, in);
  build->footer(
      "The file is written once, at the end, through a temporary file and a rename: an\n"
      "interrupted build leaves no partial file.\n"
      "Example:\n  abloom build -o ids.abloom --fpr 0.001 ids.txt\n"
      "  zcat urls.gz | abloom build -o urls.abloom --capacity 50000000\n"
      "  zcat urls.gz | abloom build -o urls.abloom    (a growing filter)");

  auto* add = app.add_subcommand("add", "Add keys to an existing filter file, in place");
  add->add_option("FILTER", filter, "The filter file (mapped read-write, synced at the end)")
      ->required();
  add_input_options(add, in, delimiter);
  add_threads_option(add, in);
  add_strict_option(add, in);
  add->footer(
      "A growing filter's file (built without --capacity from standard input) grows with the\n"
      "keys: it is read, added to in memory and saved over through a temporary file and a\n"
      "rename, so an interrupted add leaves the old file whole. Run one add on such a file at\n"
      "a time: of two at once, the last to finish replaces the other's keys.\n"
      "Example:\n  abloom add ids.abloom new-ids.txt");

  abloom_cli::QueryOutput query_output;
  bool with_names = false;
  bool without_names = false;
  auto* query = app.add_subcommand("query", "Print the keys the filter may contain");
  // -h is grep's --no-filename here, so help is --help alone.
  query->set_help_flag("--help", "Print this help message and exit");
  query->add_option("FILTER", filter, "The filter file")->required();
  query->add_flag("-v,--absent", query_output.absent,
                  "Print the keys that are definitely absent instead");
  query->add_flag("-c,--count", query_output.count,
                  "Print only the number of matching keys (with file names: one count per input)");
  auto* names = query->add_flag("-H,--with-filename", with_names,
                                "Print each input's name before its records (the default for more "
                                "than one input)");
  query->add_flag("-h,--no-filename", without_names, "Never print input names")->excludes(names);
  add_input_options(query, in, delimiter);
  add_threads_option(query, in);
  query->footer(
      "Prints each matching record as read. An input that cannot be read is reported and\n"
      "the others are read all the same. Exit status as grep's: 0 if a line matched,\n"
      "1 if none, 2 on any error. The file is opened in O(1) (header checked; 'abloom verify'\n"
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
  dedupe
      ->add_option("--capacity", shape.capacity,
                   "Expected distinct keys, 1 or more; more raise the drop rate (default: a "
                   "growing filter, which holds the drop rate at any count of keys)")
      ->transform(whole_number(1, UINT64_MAX));
  add_shape_options(dedupe, shape);
  dedupe->add_option("--load", load, "Start from this filter: its keys count as already seen");
  dedupe->add_option("--save", save,
                     "Save the filter (all keys seen) here at the end; may be the --load file");
  dedupe->add_flag("--force", force, kForceHelp);
  add_input_options(dedupe, in, delimiter);
  add_strict_option(dedupe, in);
  dedupe->footer(
      "Example:\n  abloom dedupe --capacity 100000000 --fpr 1e-4 < events.log > first-seen.log");

  std::vector<std::string> filters;
  auto* merge = app.add_subcommand("merge", "Union of filter files (keys of any of them)");
  merge->add_option("-o,--output", output, "The filter file to write")->required();
  merge->add_flag("--force", force, kForceHelp);
  merge->add_option("FILTER", filters, "Filters of one shape (kind, k, bits, shards, seed)")
      ->required();
  merge->footer("Example:\n  abloom merge -o all.abloom monday.abloom tuesday.abloom");

  auto* intersect = app.add_subcommand(
      "intersect", "Intersection of filter files (bits set in all: keys of every one, and more)");
  intersect->add_option("-o,--output", output, "The filter file to write")->required();
  intersect->add_flag("--force", force, kForceHelp);
  intersect->add_option("FILTER", filters, "Filters of one shape (kind, k, bits, shards, seed)")
      ->required();
  intersect->footer("Example:\n  abloom intersect -o both.abloom a.abloom b.abloom");

  auto* info = app.add_subcommand("info", "Describe a filter file: shape, size, estimates, fill");
  info->add_option("FILTER", filter, "The filter file (its checksum is checked)")->required();
  info->add_flag("--json", json,
                 "One JSON object with stable keys: file (bytes that are not UTF-8 become "
                 "U+FFFD), kind, layout (\"none\" for the classic kind), k, shards, "
                 "blocks_per_shard, bits, bytes, file_bytes, capacity, seed, target_fpr, "
                 "expected_fpr, estimated_count (null if saturated), estimated_fpr, set_bits, "
                 "fill (both null for a growing filter), growth (0 for a fixed filter), "
                 "growth_failed, keys (the keys a growing filter counted; null for a fixed one), "
                 "stages (one object per stage, oldest first: capacity, keys, k, bytes, "
                 "target_fpr, expected_fpr)");
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
  plan->add_option("--capacity", shape.capacity, "Expected distinct keys, 1 or more")
      ->required()
      ->transform(whole_number(1, UINT64_MAX));
  add_shape_options(plan, shape);
  plan->add_flag("--json", json, "One JSON object");
  plan->add_flag("--growing", growing,
                 "The memory a growing filter (what build from standard input and dedupe make "
                 "without --capacity) reaches at --capacity keys, beside the fixed filter's");
  plan->footer(
      "Example:\n  abloom plan --capacity 500000000 --fpr 0.001\n"
      "  abloom plan --growing --capacity 100000000");

  try {
    check_command(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return print_parse_result(app, e);
  }
  in.format.delimiter = parse_delimiter(delimiter);
  if (*build || *dedupe || *plan) abloom_cli::check_shape(shape);
  const std::vector<std::string> inputs =
      in.paths.empty() ? std::vector<std::string>{"-"} : in.paths;

  if (*build) {
    abloom_cli::guard_output("--output", output, inputs, force);
    return abloom_cli::cmd_build(output, shape, in);
  }
  if (*add) return abloom_cli::cmd_add(filter, in);
  if (*query) {
    query_output.with_names = with_names || (!without_names && in.paths.size() > 1);
    return abloom_cli::cmd_query(filter, in, query_output);
  }
  if (*dedupe) {
    if (!save.empty()) abloom_cli::guard_output("--save", save, inputs, force);
    return abloom_cli::cmd_dedupe(shape, load, save, in);
  }
  if (*merge || *intersect) abloom_cli::guard_output("--output", output, filters, force);
  if (*merge) return abloom_cli::cmd_combine(output, filters, false);
  if (*intersect) return abloom_cli::cmd_combine(output, filters, true);
  if (*info) return abloom_cli::cmd_info(filter, json);
  if (*verify) return abloom_cli::cmd_verify(filter);
  if (*seal) return abloom_cli::cmd_seal(filter);
  if (*plan) return abloom_cli::cmd_plan(shape, json, growing);
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
