// open_bench.cpp - how long until a saved filter answers its first query? Through the public C API.
//
// For blocked filters of 16 MiB, 256 MiB and 1 GiB of bits (options.bits; capacity = bits / 10,
// i.e. 10 bits per key; default shard count: 1, 16 and 64 shards), filled with `capacity` random
// hashes (abloom_add_hashes, 2 threads, not timed) and saved once (abloom_save) into a temporary
// directory under /tmp, each way of getting the filter back is timed up to and including its
// first abloom_test (so a mapping is really usable, one page fault included):
//
//   open              abloom_open(path, 0): mmap, header validated, O(1)
//   open_verify       abloom_open(path, ABLOOM_VERIFY_CHECKSUM): + XXH3 over the whole file
//   deserialize_mem   abloom_deserialize of the file's bytes, already in memory (read untimed)
//   read_deserialize  open/read(2) the file into a fresh buffer, then abloom_deserialize
//   rebuild           abloom_create + abloom_add_hashes of the same number of random hashes
//                     (1 thread; hashes generated in 64K chunks inside the timing, ~1 ns each)
//
// Times are wall clock (manual timing: freeing the filter and the buffer is left out). The file
// is in the page cache throughout (written just before; dropping caches needs root): these are
// warm-cache numbers, the cost of a cold open is the disk read on top. After the runs a table
// gives each way's median time, its ratio to rebuild, and its ratio at this size to 16 MiB.
//
// Default flags: --benchmark_min_time=0.1 --benchmark_repetitions=3
// --benchmark_display_aggregates_only=true (medians; rebuild of 1 GiB runs once). Extra flag:
// --sizes=16M,256M,1G (any subset, in MiB or GiB).

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "abloom.h"
#include "benchmark_args.hpp"
#include "key_stream.hpp"

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kSeed = 0x0BE11C0DEull;  // the filters' hash seed
constexpr uint64_t kFillSeed = 0xF111ull;   // the random hashes added
constexpr size_t kChunk = 64 * 1024;

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const char* what, int rc) {
  std::fprintf(stderr, "open_bench: %s: %s\n", what, abloom_strerror(rc));
  std::exit(1);
}

void Check(int rc, const char* what) {
  if (rc < 0) Die(what, rc);
}

using bench::splitmix64;

std::string SizeName(uint64_t bytes) {
  return bytes >= 1024 * kMiB ? std::to_string(bytes / (1024 * kMiB)) + "GiB"
                              : std::to_string(bytes / kMiB) + "MiB";
}

uint64_t CapacityFor(uint64_t bytes) { return bytes * 8 / 10; }

abloom_filter* Create(uint64_t bytes, uint32_t threads) {
  abloom_options o;
  Check(abloom_options_init(&o), "abloom_options_init");
  o.kind = ABLOOM_KIND_BLOCKED;
  o.capacity = CapacityFor(bytes);
  o.bits = bytes * 8;
  o.seed = kSeed;
  o.threads = threads;
  abloom_filter* f = nullptr;
  Check(abloom_create(&o, &f), "abloom_create");
  return f;
}

// Adds `n` random hashes (the same ones for the same seed), in chunks.
void AddRandom(abloom_filter* f, uint64_t n) {
  static thread_local std::vector<uint64_t> chunk(kChunk);
  uint64_t state = kFillSeed;
  for (uint64_t done = 0; done < n;) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kChunk, n - done));
    for (size_t i = 0; i < m; ++i) chunk[i] = splitmix64(state);
    Check(abloom_add_hashes(f, chunk.data(), m, nullptr), "abloom_add_hashes");
    done += m;
  }
}

// The first query after getting a filter back: a key that was never added (any block will do).
void FirstTest(const abloom_filter* f) {
  const int r = abloom_test(f, "first query", 11);
  Check(r, "abloom_test");
  benchmark::DoNotOptimize(r);
}

std::vector<unsigned char> ReadAll(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) Die(path.c_str(), ABLOOM_ERR_IO);
  std::vector<unsigned char> out;
  out.resize(static_cast<size_t>(st.st_size));
  for (size_t got = 0; got < out.size();) {
    const ssize_t r = ::read(fd, out.data() + got, out.size() - got);
    if (r <= 0) Die(path.c_str(), ABLOOM_ERR_IO);
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  return out;
}

// read_deserialize: open + read into a fresh malloc'ed buffer, as a program would.
unsigned char* ReadFresh(const std::string& path, size_t* len) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) Die(path.c_str(), ABLOOM_ERR_IO);
  *len = static_cast<size_t>(st.st_size);
  auto* buf = static_cast<unsigned char*>(std::malloc(*len));
  if (buf == nullptr) Die("malloc", ABLOOM_ERR_NOMEM);
  for (size_t got = 0; got < *len;) {
    const ssize_t r = ::read(fd, buf + got, *len - got);
    if (r <= 0) Die(path.c_str(), ABLOOM_ERR_IO);
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  return buf;
}

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void RegisterFor(uint64_t bytes, const std::string& path) {
  const std::string tail = "/" + SizeName(bytes);
  const uint64_t file_bytes = bytes + ABLOOM_HEADER_BYTES;

  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    benchmark::RegisterBenchmark(
        ((flags ? "open_verify" : "open") + tail).c_str(),
        [path, flags, file_bytes](benchmark::State& st) {
          for (auto _ : st) {
            const auto t0 = Clock::now();
            abloom_filter* f = nullptr;
            Check(abloom_open(path.c_str(), flags, &f), "abloom_open");
            FirstTest(f);
            st.SetIterationTime(Since(t0));
            abloom_free(f);
          }
          if (flags != 0) st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * file_bytes));
        })
        ->UseManualTime()
        ->Unit(flags ? benchmark::kMillisecond : benchmark::kMicrosecond);
  }

  benchmark::RegisterBenchmark(
      ("deserialize_mem" + tail).c_str(),
      [path, file_bytes](benchmark::State& st) {
        const std::vector<unsigned char> buf = ReadAll(path);
        for (auto _ : st) {
          const auto t0 = Clock::now();
          abloom_filter* f = nullptr;
          Check(abloom_deserialize(buf.data(), buf.size(), &f), "abloom_deserialize");
          FirstTest(f);
          st.SetIterationTime(Since(t0));
          abloom_free(f);
        }
        st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * file_bytes));
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);

  benchmark::RegisterBenchmark(
      ("read_deserialize" + tail).c_str(),
      [path, file_bytes](benchmark::State& st) {
        for (auto _ : st) {
          const auto t0 = Clock::now();
          size_t len = 0;
          unsigned char* buf = ReadFresh(path, &len);
          abloom_filter* f = nullptr;
          Check(abloom_deserialize(buf, len, &f), "abloom_deserialize");
          FirstTest(f);
          st.SetIterationTime(Since(t0));
          std::free(buf);
          abloom_free(f);
        }
        st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * file_bytes));
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);

  auto* rebuild =
      benchmark::RegisterBenchmark(("rebuild" + tail).c_str(), [bytes](benchmark::State& st) {
        for (auto _ : st) {
          const auto t0 = Clock::now();
          abloom_filter* f = Create(bytes, 0);
          AddRandom(f, CapacityFor(bytes));
          FirstTest(f);
          st.SetIterationTime(Since(t0));
          abloom_free(f);
        }
        st.counters["keys"] = static_cast<double>(CapacityFor(bytes));
      });
  rebuild->UseManualTime()->Unit(benchmark::kMillisecond);
  if (bytes >= 1024 * kMiB) rebuild->Iterations(1)->Repetitions(1);
}

// Builds, fills and saves the filter of one size (untimed); returns the file's path.
std::string MakeFile(const std::string& dir, uint64_t bytes) {
  const std::string path = dir + "/filter-" + SizeName(bytes) + ".abloom";
  auto t0 = Clock::now();
  abloom_filter* f = Create(bytes, 2);
  AddRandom(f, CapacityFor(bytes));
  const double fill_s = Since(t0);
  t0 = Clock::now();
  Check(abloom_save(f, path.c_str()), "abloom_save");
  const double save_s = Since(t0);
  abloom_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  Check(abloom_get_info(f, &info), "abloom_get_info");
  double fpr = 0;
  Check(abloom_estimate_fpr(f, &fpr), "abloom_estimate_fpr");
  abloom_free(f);
  std::printf(
      "\n# %s: %llu keys, k = %u, %u shards, file %llu bytes; filled in %.2f s (2 threads), "
      "saved in %.2f s, estimated FPR %.4f%%\n",
      SizeName(bytes).c_str(), static_cast<unsigned long long>(CapacityFor(bytes)), info.k,
      info.shards, static_cast<unsigned long long>(info.bytes + ABLOOM_HEADER_BYTES), fill_s,
      save_s, fpr * 100);
  std::fflush(stdout);
  return path;
}

// Keeps the median (or the only) real time of each benchmark, in seconds.
class CaptureReporter : public benchmark::ConsoleReporter {
 public:
  CaptureReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}
  std::map<std::string, double> seconds;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      const bool single = r.run_type == Run::RT_Iteration && r.repetitions <= 1;
      if (median || single) {
        seconds[r.run_name.function_name] =
            r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

void PrintTable(const std::map<std::string, double>& s, const std::vector<uint64_t>& sizes) {
  const char* const ops[] = {"open", "open_verify", "deserialize_mem", "read_deserialize",
                             "rebuild"};
  const std::string base = "/" + SizeName(16 * kMiB);
  std::printf(
      "\n## Time to first query (median; ratio to rebuild; ratio to the same way at 16 MiB)"
      "\n\n| way |");
  for (uint64_t b : sizes) std::printf(" %s |", SizeName(b).c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < sizes.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const char* op : ops) {
    std::printf("| %s |", op);
    for (uint64_t b : sizes) {
      const std::string name = std::string(op) + "/" + SizeName(b);
      auto it = s.find(name);
      auto rb = s.find("rebuild/" + SizeName(b));
      auto small = s.find(std::string(op) + base);
      if (it == s.end()) {
        std::printf(" - |");
        continue;
      }
      const double t = it->second;
      if (t < 1e-3) {
        std::printf(" %.1f us", t * 1e6);
      } else {
        std::printf(" %.1f ms", t * 1e3);
      }
      if (rb != s.end()) std::printf(" (%.3g x rebuild", t / rb->second);
      if (small != s.end()) std::printf(", %.2f x 16MiB", t / small->second);
      std::printf(rb != s.end() ? ") |" : " |");
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {16 * kMiB, 256 * kMiB, 1024 * kMiB};
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--sizes=", 0) == 0) {
      sizes.clear();
      std::string list = a.substr(8) + ",";
      for (size_t b = 0, e; (e = list.find(',', b)) != std::string::npos; b = e + 1) {
        const std::string item = list.substr(b, e - b);
        if (item.empty()) continue;
        const uint64_t n = std::strtoull(item.c_str(), nullptr, 10);
        sizes.push_back(item.back() == 'G' ? n * 1024 * kMiB : n * kMiB);
      }
      continue;
    }
    args.push_back(argv[i]);
  }
  if (!bench::init_benchmark(args, {"--benchmark_min_time=0.1", "--benchmark_repetitions=3",
                                    "--benchmark_display_aggregates_only=true"})) {
    return 2;
  }

  char tmpl[] = "/tmp/abloom-open-bench-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) Die("mkdtemp", ABLOOM_ERR_IO);
  const std::string dir = tmpl;
  CaptureReporter rep;
  // One size at a time: only one file on disk, one filter (plus one buffer) in memory.
  for (uint64_t bytes : sizes) {
    const std::string path = MakeFile(dir, bytes);
    RegisterFor(bytes, path);
    benchmark::RunSpecifiedBenchmarks(&rep);
    benchmark::ClearRegisteredBenchmarks();
    std::remove(path.c_str());
  }
  ::rmdir(dir.c_str());
  PrintTable(rep.seconds, sizes);
  benchmark::Shutdown();
  return 0;
}
