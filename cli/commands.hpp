// The subcommands of the abloom command. Each returns the process's exit status or throws
// CliError (status 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "input.hpp"

namespace abloom_cli {

// Where keys come from: INPUT... ("-" or none: stdin) read in one format.
struct Inputs {
  std::vector<std::string> paths;
  InputFormat format;
  bool quiet = false;
  uint32_t threads = 0;  // --threads: threads reading parts of the input; 0: default_threads()
  bool strict = false;   // --strict: a filter over its capacity is an exit status, not a warning
};

// What a new filter looks like (build, dedupe, plan).
struct Shape {
  uint64_t capacity = 0;
  double fpr = 0.01;
  std::string kind = "blocked";
  std::string layout = "default";
  uint64_t seed = 0;
  uint32_t k = 0;
  uint32_t shards = 0;
};

// What query prints.
struct QueryOutput {
  bool absent = false;      // -v: the records whose keys are definitely absent
  bool count = false;       // -c: only the number of them
  bool with_names = false;  // -H, or more than one input without -h: each input's name first
};

// The most threads build, add and query use without --threads.
constexpr unsigned kMaxDefaultThreads = 8;

// The threads build, add and query use without --threads: the CPUs this process may run on, at
// most kMaxDefaultThreads (GNU sort's default for its --parallel). Two threads beat one for each
// of them on 2 vCPUs (bench/RESULTS.md); more are not measured yet.
unsigned default_threads();

int cmd_build(const std::string& output, const Shape& shape, const Inputs& in);
int cmd_add(const std::string& filter_path, const Inputs& in);
int cmd_query(const std::string& filter_path, const Inputs& in, const QueryOutput& how);
int cmd_dedupe(const Shape& shape, const std::string& load, const std::string& save,
               const Inputs& in);
int cmd_combine(const std::string& output, const std::vector<std::string>& filters, bool intersect);
int cmd_info(const std::string& filter_path, bool json);
int cmd_verify(const std::string& filter_path);
// growing: what a growing filter (the library's first stage and growth) reaches at
// shape.capacity keys, beside a fixed filter sized for them.
int cmd_plan(const Shape& shape, bool json, bool growing);

}  // namespace abloom_cli
