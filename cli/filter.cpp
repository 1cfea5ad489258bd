#include "filter.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace abloom_cli {

int check(int code, const std::string& what) {
  if (code >= 0) return code;
  std::string reason = abloom_strerror(code);
  if (code == ABLOOM_ERR_IO && errno != 0) reason += std::string(" (") + errno_text(errno) + ")";
  throw CliError(what + ": " + reason);
}

Filter open_filter(const std::string& path, uint32_t flags) {
  abloom_filter* f = nullptr;
  errno = 0;
  check(abloom_open(path.c_str(), flags, &f), path);
  return Filter(f);
}

void save_filter(const abloom_filter* filter, const std::string& path) {
  errno = 0;
  check(abloom_save(filter, path.c_str()), path);
}

Progress::Progress(bool quiet, uint64_t total_bytes)
    : enabled_(!quiet && ::isatty(STDERR_FILENO) == 1),
      total_bytes_(total_bytes),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t keys, uint64_t bytes) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  double secs = std::chrono::duration<double>(now - start_).count();
  char line[160];
  int n = std::snprintf(line, sizeof line, "\r%llu keys, %.0f keys/s, %.1f MB",
                        static_cast<unsigned long long>(keys), secs > 0 ? keys / secs : 0.0,
                        bytes / 1e6);
  if (total_bytes_ > 0 && bytes > 0 && bytes <= total_bytes_ && n > 0) {
    double eta = secs * static_cast<double>(total_bytes_ - bytes) / static_cast<double>(bytes);
    std::snprintf(line + n, sizeof line - n, " of %.1f MB, ETA %.0f s", total_bytes_ / 1e6, eta);
  }
  std::fprintf(stderr, "%s\033[K", line);
  shown_ = true;
}

void Progress::finish() {
  if (shown_) std::fputs("\r\033[K", stderr);
  shown_ = false;
}

}  // namespace abloom_cli
