#include "stale.hpp"

#include <cerrno>
#include <cstdio>
#include <set>

#include "input.hpp"
#include "system.hpp"

namespace abloom_cli {
namespace {

// Whether the filter's file carried the stale mark when it was opened.
bool opened_stale(const abloom_filter* filter, const std::string& path) {
  abloom_info info;
  check(abloom_info_init(&info), path);
  check(abloom_get_info(filter, &info), path);
  return info.stale != 0;
}

void flush_or_throw() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    throw CliError(std::string("standard output: ") + errno_text(errno));
  }
}

}  // namespace

std::string stale_reason(const std::string& path) {
  return "a writer did not finish (killed, or still adding); every key it added is there, but "
         "the checksum is not current. 'abloom seal " +
         path + "' checks and seals it.";
}

Filter open_filter_allow_stale(const std::string& path, uint32_t flags, bool quiet) {
  abloom_filter* f = nullptr;
  errno = 0;
  int rc = abloom_open(path.c_str(), flags, &f);
  if (rc == ABLOOM_ERR_STALE) {
    // The checksum cannot be checked; the header was (abloom_open checks it first).
    errno = 0;
    rc = abloom_open(path.c_str(), flags & ~ABLOOM_VERIFY_CHECKSUM, &f);
  }
  check(rc, path);
  Filter filter(f);
  // Once per path: merge may name the same file twice, and its readers open it again.
  static std::set<std::string> warned;
  if (!quiet && opened_stale(filter.get(), path) && warned.insert(path).second) {
    std::fflush(stdout);  // the warning after what was printed before it
    std::fprintf(stderr, "abloom: warning: %s: stale: %s\n", path.c_str(),
                 stale_reason(path).c_str());
  }
  return filter;
}

int report_stale(const std::string& path) {
  std::printf("%s: STALE: %s\n", path.c_str(), stale_reason(path).c_str());
  flush_or_throw();
  return kExitStale;
}

int cmd_seal(const std::string& path) {
  // Whether there is anything to do: an O(1) open reads the mark (abloom_seal says OK either way).
  bool was_stale = false;
  {
    abloom_filter* f = nullptr;
    errno = 0;
    const int rc = abloom_open(path.c_str(), 0, &f);
    Filter filter(f);
    if (rc == ABLOOM_OK) was_stale = opened_stale(filter.get(), path);
  }
  errno = 0;
  const int rc = abloom_seal(path.c_str());
  // What the bytes say fails the seal (status 1, as verify's); a file that cannot be read or
  // written is an error (status 2).
  if (rc <= ABLOOM_ERR_BAD_MAGIC && rc >= ABLOOM_ERR_CHECKSUM) {
    std::printf("%s: FAILED: %s; not sealed, the file is unchanged\n", path.c_str(),
                abloom_strerror(rc));
    flush_or_throw();
    return 1;
  }
  check(rc, path);
  if (!was_stale) {
    std::printf("%s: already sealed (checksum verified)\n", path.c_str());
  } else {
    Filter sealed = open_filter(path, 0);
    double estimate = 0;
    check(abloom_estimate_count(sealed.get(), &estimate), path);
    std::printf("%s: sealed (%.0f estimated keys)\n", path.c_str(), estimate);
  }
  flush_or_throw();
  return 0;
}

}  // namespace abloom_cli
