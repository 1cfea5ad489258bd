#include "filter.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "system.hpp"

namespace abloom_cli {

int check(int code, const std::string& what) {
  if (code >= 0) return code;
  // Read first: building the message allocates, and an allocation may set errno even when it
  // succeeds (glibc's malloc, when growing the heap fails and a mapping does not).
  const int err = errno;
  if (code == ABLOOM_ERR_IO) {
    // The system's reason is the message; the library's words for the code ("file system error
    // (see errno)") are for programmers. errno 0: the reason was lost, which is said plainly.
    throw CliError(what + ": " +
                   (err != 0 ? errno_text(err) : "input/output error (no reason given)"));
  }
  throw CliError(what + ": " + abloom_strerror(code));
}

Filter open_filter(const std::string& path, uint32_t flags) {
  abloom_filter* f = nullptr;
  errno = 0;
  check(abloom_open(path.c_str(), flags, &f), path);
  return Filter(f);
}

abloom_info filter_info(const abloom_filter* filter) {
  abloom_info info;
  check(abloom_info_init(&info), "filter");
  check(abloom_get_info(filter, &info), "filter");
  return info;
}

uint64_t filter_capacity(const abloom_filter* filter) { return filter_info(filter).capacity; }

uint64_t filter_bytes(const abloom_filter* filter) { return filter_info(filter).bytes; }

bool is_growing(const abloom_filter* filter) { return filter_info(filter).growth != 0; }

void prefault_for_writes(abloom_filter* filter) {
  abloom_info info;
  uint64_t* const* shards = nullptr;
  if (abloom_info_init(&info) != ABLOOM_OK || abloom_get_info(filter, &info) != ABLOOM_OK ||
      info.storage != ABLOOM_STORAGE_OWNED ||
      abloom_get_writable_shards(filter, &shards) != ABLOOM_OK) {
    return;
  }
  const uint64_t shard_bytes = info.blocks_per_shard * 64;
  for (uint32_t s = 0; s < info.shards; ++s) sys::populate_for_writes(shards[s], shard_bytes);
}

Filter empty_like(const abloom_filter* filter) {
  abloom_info info;
  check(abloom_info_init(&info), "filter");
  check(abloom_get_info(filter, &info), "filter");
  abloom_options opts;
  check(abloom_options_init(&opts), "filter");
  opts.capacity = info.capacity > 0 ? info.capacity : 1;  // not part of the shape
  opts.kind = info.kind;
  opts.layout = info.layout;
  opts.k = info.k;
  opts.shards = info.shards;
  opts.bits = info.bits;
  opts.seed = info.seed;
  abloom_filter* copy = nullptr;
  check(abloom_create(&opts, &copy), "cannot make an empty filter for a thread");
  return Filter(copy);
}

CopyWhenWorthIt::CopyWhenWorthIt(const abloom_filter* filter) {
  const uint64_t bytes = filter_bytes(filter);
  threshold_ = bytes / 64;  // the filter's blocks
  // The copy is memory the kernel cannot reclaim, unlike the mapping's page cache: a filter
  // larger than half the free memory stays mapped (overcommit would let the copy succeed and
  // the OOM killer end the command). Where the free memory is unknown, only the mapping is used.
  done_ = bytes > sys::free_memory() / 2;
}

bool CopyWhenWorthIt::after(Filter& filter, uint64_t keys) {
  if (done_) return false;
  keys_ += keys;
  if (keys_ < threshold_) return false;
  abloom_filter* copy = nullptr;
  // Out of memory for the copy is no error: the mapping still answers, only slower.
  if (abloom_clone(filter.get(), &copy) != ABLOOM_OK) {
    done_ = true;
    return false;
  }
  filter.reset(copy);
  done_ = true;
  return true;
}

void CopyWhenWorthIt::up_front(Filter& filter, uint64_t input_bytes) {
  if (input_bytes == 0 || input_bytes / 64 < threshold_) {
    done_ = true;
    return;
  }
  keys_ = threshold_;
  after(filter, 0);
}

std::string layout_id_name(uint32_t layout) {
  switch (layout) {
    case ABLOOM_LAYOUT_DISTINCT:
      return "distinct";
    case ABLOOM_LAYOUT_SPLIT:
      return "split";
    case ABLOOM_LAYOUT_HALF:
      return "half";
    default:
      return "unknown(" + std::to_string(layout) + ")";
  }
}

std::string shape_differences(const abloom_filter* a, const abloom_filter* b) {
  abloom_info x;
  abloom_info y;
  check(abloom_info_init(&x), "info");
  check(abloom_info_init(&y), "info");
  check(abloom_get_info(a, &x), "info");
  check(abloom_get_info(b, &y), "info");
  std::string out;
  auto differ = [&](const char* field, const std::string& u, const std::string& v) {
    if (u != v) out += (out.empty() ? "" : ", ") + std::string(field) + " " + u + " and " + v;
  };
  auto kind = [](uint32_t k) { return k == ABLOOM_KIND_CLASSIC ? "classic" : "blocked"; };
  differ("kind", kind(x.kind), kind(y.kind));
  // The classic kind has no layout: only between two blocked filters is it a difference.
  if (x.kind == ABLOOM_KIND_BLOCKED && y.kind == ABLOOM_KIND_BLOCKED) {
    differ("layout", layout_id_name(x.layout), layout_id_name(y.layout));
  }
  differ("k", std::to_string(x.k), std::to_string(y.k));
  differ("shards", std::to_string(x.shards), std::to_string(y.shards));
  differ("blocks per shard", std::to_string(x.blocks_per_shard),
         std::to_string(y.blocks_per_shard));
  differ("bits", std::to_string(x.bits), std::to_string(y.bits));
  differ("seed", std::to_string(x.seed), std::to_string(y.seed));
  return out.empty() ? "the library found a difference in their shape" : out;
}

std::string keys_kept_after_error(abloom_filter* filter, const std::string& path, uint64_t added) {
  const std::string keys = std::to_string(added) + (added == 1 ? " key" : " keys");
  errno = 0;
  const int rc = abloom_sync(filter);
  if (rc != ABLOOM_OK) {
    const int err = errno;
    return "; " + path + " holds the " + keys + " added before the error, but its sync failed: " +
           (rc == ABLOOM_ERR_IO && err != 0 ? errno_text(err) : abloom_strerror(rc));
  }
  return "; " + path + " keeps the " + keys + " added before the error (synced)";
}

void save_filter(const abloom_filter* filter, const std::string& path) {
  errno = 0;
  check(abloom_save(filter, path.c_str()), path);
}

Progress::Progress(bool quiet, uint64_t total_bytes)
    : enabled_(!quiet && sys::stderr_is_terminal()),
      total_bytes_(total_bytes),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() { finish(); }

void Progress::next_run() {
  keys_before_ += keys_;
  bytes_before_ += bytes_;
  keys_ = bytes_ = 0;
}

void Progress::update(uint64_t run_keys, uint64_t run_bytes) {
  if (!enabled_) return;
  keys_ = run_keys;
  bytes_ = run_bytes;
  const uint64_t keys = keys_before_ + run_keys;
  const uint64_t bytes = bytes_before_ + run_bytes;
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
