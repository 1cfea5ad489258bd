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
  void update(uint64_t keys, uint64_t bytes);
  void finish();

 private:
  bool enabled_;
  bool shown_ = false;
  uint64_t total_bytes_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace abloom_cli
