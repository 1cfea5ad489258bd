// The bulk threads of a handle (abloom_set_threads, abloom_get_threads): arguments, the count each
// way of making a handle starts with, the same answers, bits and added counts with 1 and with 4
// threads on filters that were opened, viewed or deserialized (batches of 65536 keys or more, the
// size from which bulk calls split), and the count changed while other threads run bulk calls.
// Every test name here contains "Thread", so CI also runs them under ThreadSanitizer.

#include <abloom.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "capi_test_support.hpp"

namespace {

using capi_test::Batch;
using capi_test::DistinctKeys;
using capi_test::Filter;
using capi_test::Hashes;
using capi_test::KindName;
using capi_test::LoadInto;
using capi_test::Make;
using capi_test::Options;
using capi_test::Serialize;
using capi_test::TempDir;

constexpr size_t kBig = 70000;  // above the bulk calls' threshold for threads (65536)

int ThreadsOf(const abloom_filter *f) { return abloom_get_threads(f); }

TEST(CapiBulkThreadsErrors, NullAndOutOfRange) {
  EXPECT_EQ(abloom_set_threads(nullptr, 2), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_set_threads(nullptr, 0), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_get_threads(nullptr), ABLOOM_ERR_NULL);
  abloom_options o = Options(1000);
  o.threads = 3;
  Filter f = Make(o);
  EXPECT_EQ(ThreadsOf(f.get()), 3);
  for (uint32_t bad : {uint32_t{ABLOOM_MAX_THREADS} + 1, 1000u, 0x80000000u, 0xFFFFFFFFu}) {
    EXPECT_EQ(abloom_set_threads(f.get(), bad), ABLOOM_ERR_INVALID) << bad;
    EXPECT_EQ(ThreadsOf(f.get()), 3) << "a refused count changes nothing";
  }
  ASSERT_EQ(abloom_set_threads(f.get(), ABLOOM_MAX_THREADS), ABLOOM_OK);
  EXPECT_EQ(ThreadsOf(f.get()), ABLOOM_MAX_THREADS);
  ASSERT_EQ(abloom_set_threads(f.get(), 0), ABLOOM_OK);
  EXPECT_EQ(ThreadsOf(f.get()), 1) << "0 is the calling thread only, as in abloom_options";
  ASSERT_EQ(abloom_set_threads(f.get(), 1), ABLOOM_OK);
  EXPECT_EQ(ThreadsOf(f.get()), 1);
  ASSERT_EQ(abloom_set_threads(f.get(), 2), ABLOOM_OK);
  EXPECT_EQ(ThreadsOf(f.get()), 2);
}

// One filter's bytes through every reader (abloom_deserialize, abloom_view, abloom_open with each
// mode), each read giving a new handle.
enum class Source { deserialize, view, open_read_only, open_copy_on_write, open_read_write };
const Source kSources[] = {Source::deserialize, Source::view, Source::open_read_only,
                           Source::open_copy_on_write, Source::open_read_write};

const char *SourceName(Source s) {
  switch (s) {
    case Source::deserialize:
      return "deserialize";
    case Source::view:
      return "view";
    case Source::open_read_only:
      return "open";
    case Source::open_copy_on_write:
      return "open_copy_on_write";
    case Source::open_read_write:
      return "open_read_write";
  }
  return "?";
}

bool Writable(Source s) { return s != Source::view && s != Source::open_read_only; }

class Readers {
 public:
  explicit Readers(const abloom_filter *f)
      : bytes_(Serialize(f)), aligned_((bytes_.size() + 63) / 64) {
    std::memcpy(aligned_.data(), bytes_.data(), bytes_.size());
    EXPECT_EQ(abloom_save(f, path_.c_str()), ABLOOM_OK);
  }

  // A new handle on the bytes. Each read-write one maps a file of its own, so that two handles'
  // adds never meet.
  Filter Load(Source s) {
    Filter out;
    std::string path = path_;
    if (s == Source::open_read_write) {
      path = dir_ / ("rw" + std::to_string(copies_++) + ".abloom");
      std::ofstream(path, std::ios::binary)
          .write(reinterpret_cast<const char *>(bytes_.data()),
                 static_cast<std::streamsize>(bytes_.size()));
    }
    const int rc = LoadInto(
        [&](abloom_filter **o) {
          switch (s) {
            case Source::deserialize:
              return abloom_deserialize(bytes_.data(), bytes_.size(), o);
            case Source::view:
              return abloom_view(aligned_.data(), bytes_.size(), 0, o);
            case Source::open_read_only:
              return abloom_open(path.c_str(), 0, o);
            case Source::open_copy_on_write:
              return abloom_open(path.c_str(), ABLOOM_OPEN_COPY_ON_WRITE, o);
            case Source::open_read_write:
              return abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, o);
          }
          return ABLOOM_ERR_INTERNAL;
        },
        &out);
    EXPECT_EQ(rc, ABLOOM_OK) << SourceName(s) << ": " << abloom_strerror(rc);
    return out;
  }

 private:
  struct alignas(64) Line {
    unsigned char b[64];
  };
  std::vector<unsigned char> bytes_;
  std::vector<Line> aligned_;  // abloom_view needs 64-byte aligned bytes that outlive the view
  TempDir dir_;
  std::string path_ = dir_ / "f.abloom";
  int copies_ = 0;
};

// Every way of getting a handle: created filters start at options.threads, read ones at 1, and a
// clone copies its source's current count. The count is not part of the bytes.
TEST(CapiBulkThreads, EachHandleStartsWithItsCount) {
  abloom_options o = Options(5000);
  EXPECT_EQ(ThreadsOf(Make(o).get()), 1) << "options.threads 0";
  o.threads = 4;
  Filter f = Make(o);
  EXPECT_EQ(ThreadsOf(f.get()), 4);
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_new(100, 0.01, &raw), ABLOOM_OK);
  EXPECT_EQ(ThreadsOf(Filter(raw).get()), 1) << "abloom_new";

  capi_test::AddAll(f.get(), DistinctKeys(1000, 1));
  const std::vector<unsigned char> before = Serialize(f.get());
  ASSERT_EQ(abloom_set_threads(f.get(), 7), ABLOOM_OK);
  EXPECT_EQ(Serialize(f.get()), before) << "the count is not part of the serialized form";

  raw = nullptr;
  ASSERT_EQ(abloom_clone(f.get(), &raw), ABLOOM_OK);
  Filter clone(raw);
  EXPECT_EQ(ThreadsOf(clone.get()), 7) << "a clone copies the count";
  ASSERT_EQ(abloom_set_threads(clone.get(), 2), ABLOOM_OK);
  EXPECT_EQ(ThreadsOf(f.get()), 7) << "each handle has its own";

  Readers readers(f.get());
  for (Source s : kSources) {
    Filter g = readers.Load(s);
    EXPECT_EQ(ThreadsOf(g.get()), 1) << SourceName(s);
    ASSERT_EQ(abloom_set_threads(g.get(), 4), ABLOOM_OK) << SourceName(s);
    EXPECT_EQ(ThreadsOf(g.get()), 4) << SourceName(s);
  }
}

// What one handle answers to one round of bulk calls: every test form over a batch of present
// and absent keys, then (writable handles) every add form with a batch of new keys each.
struct Outcome {
  std::vector<std::vector<uint8_t>> results;
  std::vector<uint64_t> counts;  // found (per test form), then added (per add form)
  std::vector<unsigned char> bytes;
};

struct Round {
  std::vector<std::string> probe, add_arrays, add_packed, add_fixed, add_hashed;
};

Outcome RunRound(abloom_filter *f, const Round &r, bool writable) {
  Outcome out;
  const Batch p(r.probe);
  const std::vector<uint64_t> ph = Hashes(f, r.probe);
  for (int form = 0; form < 3; ++form) {
    std::vector<uint8_t> res(p.size(), 0xEE);
    uint64_t found = UINT64_MAX;
    const int rc =
        form == 0 ? abloom_test_many(f, p.ptrs.data(), p.lens.data(), p.size(), res.data(), &found)
        : form == 1 ? abloom_test_packed(f, p.packed.data(), p.packed.size(), p.offsets.data(),
                                         p.size(), res.data(), &found)
                    : abloom_test_hashes(f, ph.data(), ph.size(), res.data(), &found);
    EXPECT_EQ(rc, ABLOOM_OK) << "test form " << form;
    out.results.push_back(std::move(res));
    out.counts.push_back(found);
  }
  if (writable) {
    uint64_t added = UINT64_MAX;
    const Batch a(r.add_arrays), k(r.add_packed), x(r.add_fixed);
    EXPECT_EQ(abloom_add_many(f, a.ptrs.data(), a.lens.data(), a.size(), &added), ABLOOM_OK);
    out.counts.push_back(added);
    for (const Batch *b : {&k, &x}) {
      EXPECT_EQ(abloom_add_packed(f, b->packed.data(), b->packed.size(), b->offsets.data(),
                                  b->size(), &added),
                ABLOOM_OK);
      out.counts.push_back(added);
    }
    const std::vector<uint64_t> ah = Hashes(f, r.add_hashed);
    EXPECT_EQ(abloom_add_hashes(f, ah.data(), ah.size(), &added), ABLOOM_OK);
    out.counts.push_back(added);
  }
  out.bytes = Serialize(f);
  return out;
}

// (kind, layout, shards, source).
using Case = std::tuple<uint32_t, uint32_t, uint32_t, Source>;
class CapiBulkThreadsLoaded : public ::testing::TestWithParam<Case> {};

// A read handle set to 4 threads answers exactly as one on 1 thread: the same results and found
// counts, and (writable handles) the same added counts and the same bits. The filter is filled to
// its capacity, so the new keys' added counts include false positives that only an add in batch
// order finds (see bulk.cpp).
TEST_P(CapiBulkThreadsLoaded, FourThreadsAnswerAsOne) {
  const auto [kind, layout, shards, source] = GetParam();
  constexpr size_t kCapacity = 4 * kBig;
  abloom_options o = Options(kCapacity, 0.01, kind, shards, 77);
  o.layout = layout;
  Filter built = Make(o);
  const std::vector<std::string> present = DistinctKeys(kBig / 2, 30);
  capi_test::AddMany(built.get(), present);
  Round r;
  r.probe = present;
  const std::vector<std::string> absent = DistinctKeys(kBig - kBig / 2, 31);
  r.probe.insert(r.probe.end(), absent.begin(), absent.end());
  r.add_arrays = DistinctKeys(kBig, 32);
  r.add_packed = DistinctKeys(kBig, 33);
  r.add_fixed = DistinctKeys(kBig, 34, 0);  // all 16 bytes: the packed fast path
  r.add_hashed = DistinctKeys(kBig, 35);

  Readers readers(built.get());
  Filter one = readers.Load(source), four = readers.Load(source);
  ASSERT_EQ(abloom_set_threads(four.get(), 4), ABLOOM_OK);
  const bool writable = Writable(source);
  const Outcome serial = RunRound(one.get(), r, writable);
  const Outcome threaded = RunRound(four.get(), r, writable);
  EXPECT_EQ(threaded.results, serial.results);
  EXPECT_EQ(threaded.counts, serial.counts);
  EXPECT_EQ(threaded.bytes, serial.bytes);
  EXPECT_EQ(abloom_equal(four.get(), one.get()), 1);
  // Not vacuous: every present key found, the absent ones mostly not, and (writable) some new
  // keys already found set by the time they were added.
  ASSERT_EQ(serial.counts.size(), writable ? 7u : 3u);
  EXPECT_GE(serial.counts[0], present.size());
  EXPECT_LT(serial.counts[0], present.size() + absent.size() / 10);
  if (writable) {
    EXPECT_LT(serial.counts[6], kBig) << "near capacity, some new keys find their bits set";
    EXPECT_GT(serial.counts[6], kBig * 9 / 10);
  }
}

INSTANTIATE_TEST_SUITE_P(KindsLayoutsSources, CapiBulkThreadsLoaded,
                         ::testing::Combine(::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED}),
                                            ::testing::Values(ABLOOM_LAYOUT_SPLIT),
                                            ::testing::Values(1u, 8u),
                                            ::testing::ValuesIn(kSources)),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string("BlockedSplit_Shards") +
                                  std::to_string(std::get<2>(info.param)) + "_" +
                                  SourceName(std::get<3>(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(
    OtherKindsAndLayouts, CapiBulkThreadsLoaded,
    ::testing::Values(
        Case{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 1u, Source::deserialize},
        Case{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 8u, Source::open_read_write},
        Case{ABLOOM_KIND_BLOCKED, ABLOOM_LAYOUT_DISTINCT, 8u, Source::view},
        Case{ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DISTINCT, 8u, Source::deserialize},
        Case{ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DISTINCT, 8u, Source::open_copy_on_write},
        Case{ABLOOM_KIND_CLASSIC, ABLOOM_LAYOUT_DISTINCT, 1u, Source::open_read_only}),
    [](const ::testing::TestParamInfo<Case> &info) {
      const uint32_t layout = std::get<1>(info.param);
      return std::string(KindName(std::get<0>(info.param))) +
             (layout == ABLOOM_LAYOUT_SPLIT ? "Split" : "Distinct") + "_Shards" +
             std::to_string(std::get<2>(info.param)) + "_" + SourceName(std::get<3>(info.param));
    });

// One thread changes the count (0 to 8) and reads it back while others run bulk calls on the same
// filter: two add disjoint batches (lock-free, shared writers), one tests keys that were in the
// filter before. Every bulk call keeps the count it started with, so nothing is lost: the tests
// find every key each time, and the bits end as a single-threaded build of all the keys sets them.
TEST(CapiBulkThreadsConcurrency, CountChangesWhileBulkCallsRun) {
  for (uint32_t kind : {ABLOOM_KIND_BLOCKED, ABLOOM_KIND_CLASSIC}) {
    SCOPED_TRACE(KindName(kind));
    constexpr int kRounds = 3;
    const abloom_options o = Options(8 * kBig, 0.01, kind, 4, 9);
    const std::vector<std::string> before = DistinctKeys(kBig, 40, 8);
    std::vector<std::vector<std::string>> adds;
    for (uint64_t set = 0; set < 2 * kRounds; ++set)
      adds.push_back(DistinctKeys(kBig, 41 + set, 8));
    Filter f = Make(o);
    capi_test::AddMany(f.get(), before);
    Readers readers(f.get());
    Filter loaded = readers.Load(Source::deserialize);  // starts at 1 thread

    std::atomic<bool> stop{false}, failed{false};
    std::thread setter([&] {
      uint32_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        if (abloom_set_threads(loaded.get(), n % 9) != ABLOOM_OK) failed = true;
        const int now = abloom_get_threads(loaded.get());
        if (now < 1 || now > 8) failed = true;
        ++n;
        std::this_thread::yield();
      }
    });
    std::vector<std::thread> workers;
    for (int w = 0; w < 2; ++w) {
      workers.emplace_back([&, w] {
        for (int round = 0; round < kRounds; ++round) {
          const Batch b(adds[2 * round + w]);
          uint64_t added = 0;
          if (abloom_add_packed(loaded.get(), b.packed.data(), b.packed.size(), b.offsets.data(),
                                b.size(), &added) != ABLOOM_OK ||
              added > b.size()) {
            failed = true;
          }
        }
      });
    }
    workers.emplace_back([&] {
      const Batch b(before);
      std::vector<uint8_t> res(b.size());
      for (int round = 0; round < kRounds; ++round) {
        uint64_t found = 0;
        if (abloom_test_many(loaded.get(), b.ptrs.data(), b.lens.data(), b.size(), res.data(),
                             &found) != ABLOOM_OK ||
            found != b.size()) {
          failed = true;
        }
      }
    });
    for (auto &t : workers) t.join();
    stop = true;
    setter.join();
    EXPECT_FALSE(failed.load()) << "a refused call, a count out of range, or a key not found";

    Filter serial = Make(o);
    capi_test::AddMany(serial.get(), before);
    for (const auto &keys : adds) capi_test::AddMany(serial.get(), keys);
    EXPECT_EQ(abloom_equal(loaded.get(), serial.get()), 1);
    EXPECT_EQ(Serialize(loaded.get()), Serialize(serial.get()));
  }
}

}  // namespace
