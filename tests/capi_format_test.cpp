// The serialized format through the C API (capi/abloom.h, docs/FORMAT.md): buffer round trips,
// zero-copy views, files (save, read-only / copy-on-write / read-write open, sync), concurrent
// saves, and hostile input (every truncation, every header bit, every body bit, crafted headers
// with a valid header checksum but bad fields).
//
// Buffers handed to the library are exactly as long as the length passed (aligned_memory.hpp:
// the exact size for views), so a sanitizer build catches any read past the given bytes.

#include <abloom.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#if defined(ABLOOM_TEST_HAVE_XXHASH)
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "aligned_memory.hpp"
#include "capi_test_support.hpp"
#include "test_files.hpp"
#endif

namespace {

using capi_test::Bytes;
using capi_test::Filter;
using capi_test::FilterDeleter;
using capi_test::Make;
using capi_test::Options;
using capi_test::ReadAll;
using capi_test::TempDir;

using capi_test::KindName;

// ---- Helpers ------------------------------------------------------------------------------------

using capi_test::AddAll;
using capi_test::Key;
using capi_test::Keys;

// A filter of `kind` with `shards` shards holding keys 0..n-1 of set 1.
Filter Filled(uint32_t kind, uint32_t shards, uint64_t capacity, size_t n) {
  Filter f = Make(Options(capacity, 0.01, kind, shards, 7));
  if (f) AddAll(f.get(), Keys(1, n));
  return f;
}

using capi_test::ExpectSameInfo;
using capi_test::Get64;
using capi_test::InfoOf;
using capi_test::Open;
using capi_test::Serialize;
using capi_test::WriteFile;

uint64_t SizeOf(const abloom_filter *f) {
  uint64_t s = 0;
  EXPECT_EQ(abloom_serialized_size(f, &s), ABLOOM_OK);
  return s;
}

// A heap block of exactly `len` bytes (at least 1 allocated), 64-byte aligned + `offset`.
class Buffer {
 public:
  explicit Buffer(size_t len, size_t offset = 0)
      : len_(len), base_(test_memory::Aligned64(len + offset)), data_(base_.get() + offset) {}
  Buffer(const unsigned char *src, size_t len, size_t offset = 0) : Buffer(len, offset) {
    if (len > 0) std::memcpy(data_, src, len);
  }
  explicit Buffer(const Bytes &b, size_t offset = 0) : Buffer(b.data(), b.size(), offset) {}
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  unsigned char *data() { return data_; }
  size_t size() const { return len_; }
  Bytes bytes() const { return Bytes(data_, data_ + len_); }

 private:
  size_t len_;
  test_memory::AlignedBlock base_;
  unsigned char *data_;
};

int Deserialize(const unsigned char *p, size_t len, Filter *out = nullptr) {
  return capi_test::LoadInto([&](abloom_filter **f) { return abloom_deserialize(p, len, f); }, out);
}

int View(const unsigned char *p, size_t len, uint32_t flags, Filter *out = nullptr) {
  return capi_test::LoadInto([&](abloom_filter **f) { return abloom_view(p, len, flags, f); }, out);
}

// Overwrites one byte of an existing file in place.
void PokeFile(const std::string &path, size_t at, unsigned char v) {
  std::fstream f(test_files::PathOf(path), std::ios::binary | std::ios::in | std::ios::out);
  ASSERT_TRUE(f) << path;
  f.seekp(static_cast<std::streamoff>(at));
  f.put(static_cast<char>(v));
  f.close();
  ASSERT_TRUE(f) << path;
}

size_t CountTmpFiles(const TempDir &dir) {
  size_t n = 0;
  for (const auto &name : dir.List()) n += name.find(".tmp.") != std::string::npos;
  return n;
}

// A key that `f` reports absent (a fresh key set, first miss).
std::string AbsentKey(const abloom_filter *f, uint64_t set = 99) {
  for (uint64_t i = 0;; ++i) {
    std::string k = Key(set, i);
    if (abloom_test(f, k.data(), k.size()) == 0) return k;
  }
}

// Every key of `keys` tests present in `f` (also through the bulk calls).
void ExpectAllPresent(const abloom_filter *f, const std::vector<std::string> &keys) {
  size_t missing = 0;
  for (const auto &k : keys) missing += abloom_test(f, k.data(), k.size()) != 1;
  EXPECT_EQ(missing, 0u);
}

// Every write call on a read-only filter `f` returns ABLOOM_ERR_READONLY and changes nothing.
void ExpectWritesRefused(abloom_filter *f, const abloom_filter *same_shape_other) {
  Filter before;
  {
    abloom_filter *c = nullptr;
    ASSERT_EQ(abloom_clone(f, &c), ABLOOM_OK);
    before.reset(c);
  }
  const std::string k = AbsentKey(f);
  uint64_t h = 0;
  ASSERT_EQ(abloom_hash(f, k.data(), k.size(), &h), ABLOOM_OK);
  const void *kp[1] = {k.data()};
  const size_t kl[1] = {k.size()};
  const uint64_t offsets[2] = {0, k.size()};
  uint64_t added = 12345;

  EXPECT_EQ(abloom_add(f, k.data(), k.size()), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_test_and_add(f, k.data(), k.size()), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_add_hash(f, h), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_test_and_add_hash(f, h), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_add_many(f, kp, kl, 1, &added), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_add_packed(f, k.data(), k.size(), offsets, 1, &added), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_add_hashes(f, &h, 1, &added), ABLOOM_ERR_READONLY);
  EXPECT_EQ(added, 12345u) << "output written on failure";
  EXPECT_EQ(abloom_union(f, same_shape_other), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_intersect(f, same_shape_other), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_clear(f), ABLOOM_ERR_READONLY);

  EXPECT_EQ(abloom_test(f, k.data(), k.size()), 0);
  EXPECT_EQ(abloom_equal(f, before.get()), 1);
}

#if defined(ABLOOM_TEST_HAVE_XXHASH)
void Put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void Put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void PutDouble(unsigned char *p, double d) {
  uint64_t v;
  std::memcpy(&v, &d, 8);
  Put64(p, v);
}
// Recomputes the header checksum (XXH3-64, seed 0, over header bytes [0, 120)) at offset 120.
void Reseal(unsigned char *header) { Put64(header + 120, XXH3_64bits(header, 120)); }
#endif

// ---- Round trips --------------------------------------------------------------------------------

// kind, shards, keys added (0: an empty filter)
using RoundTripParam = std::tuple<uint32_t, uint32_t, size_t>;

class CapiSerialRoundTrip : public ::testing::TestWithParam<RoundTripParam> {
 protected:
  void SetUp() override {
    std::tie(kind_, shards_, n_) = GetParam();
    keys_ = Keys(1, n_);
    f_ = Make(Options(20000, 0.01, kind_, shards_, 7));
    ASSERT_TRUE(f_);
    AddAll(f_.get(), keys_);
  }
  uint32_t kind_ = 0, shards_ = 0;
  size_t n_ = 0;
  std::vector<std::string> keys_;
  Filter f_;
};

TEST_P(CapiSerialRoundTrip, SizeAndTooSmall) {
  const abloom_info info = InfoOf(f_.get());
  EXPECT_EQ(info.shards, shards_);
  const uint64_t size = SizeOf(f_.get());
  EXPECT_EQ(size, ABLOOM_HEADER_BYTES + info.bits / 8);
  EXPECT_EQ(size, 128u + info.bytes);

  // One byte short: TOO_SMALL, and neither the buffer nor *written changes.
  Bytes buf(static_cast<size_t>(size), 0xA5);
  size_t written = 777;
  EXPECT_EQ(abloom_serialize(f_.get(), buf.data(), buf.size() - 1, &written), ABLOOM_ERR_TOO_SMALL);
  EXPECT_EQ(written, 777u);
  EXPECT_EQ(buf, Bytes(buf.size(), 0xA5));
  EXPECT_EQ(abloom_serialize(f_.get(), buf.data(), 0, &written), ABLOOM_ERR_TOO_SMALL);
  EXPECT_EQ(buf, Bytes(buf.size(), 0xA5));

  // Exactly enough, and more than enough (bytes past the size stay as they were); *written is
  // optional.
  Bytes bigger(buf.size() + 100, 0x5A);
  EXPECT_EQ(abloom_serialize(f_.get(), bigger.data(), bigger.size(), &written), ABLOOM_OK);
  EXPECT_EQ(written, size);
  EXPECT_EQ(Bytes(bigger.begin() + static_cast<ptrdiff_t>(size), bigger.end()), Bytes(100, 0x5A));
  EXPECT_EQ(abloom_serialize(f_.get(), buf.data(), buf.size(), nullptr), ABLOOM_OK);
  EXPECT_EQ(Bytes(bigger.begin(), bigger.begin() + static_cast<ptrdiff_t>(size)), buf);
  // Serializing is deterministic.
  EXPECT_EQ(Serialize(f_.get()), buf);
}

TEST_P(CapiSerialRoundTrip, Deserialize) {
  const Bytes bytes = Serialize(f_.get());
  Filter copy;
  ASSERT_EQ(Deserialize(bytes.data(), bytes.size(), &copy), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(copy.get(), f_.get()), 1);
  ExpectSameInfo(copy.get(), f_.get());
  const abloom_info ci = InfoOf(copy.get());
  EXPECT_EQ(ci.storage, static_cast<uint32_t>(ABLOOM_STORAGE_OWNED));
  EXPECT_EQ(ci.read_only, 0u);
  ExpectAllPresent(copy.get(), keys_);
  EXPECT_EQ(Serialize(copy.get()), bytes);

  // Independent: adding to the copy leaves the original (and the source bytes) as they were.
  const std::string fresh = AbsentKey(f_.get());
  ASSERT_EQ(abloom_test(copy.get(), fresh.data(), fresh.size()), 0);
  ASSERT_EQ(abloom_add(copy.get(), fresh.data(), fresh.size()), ABLOOM_OK);
  EXPECT_EQ(abloom_test(copy.get(), fresh.data(), fresh.size()), 1);
  EXPECT_EQ(abloom_test(f_.get(), fresh.data(), fresh.size()), 0);
  EXPECT_EQ(abloom_equal(copy.get(), f_.get()), 0);
  EXPECT_EQ(Serialize(f_.get()), bytes);
  // And the other way round.
  const std::string fresh2 = AbsentKey(copy.get(), 98);
  ASSERT_EQ(abloom_add(f_.get(), fresh2.data(), fresh2.size()), ABLOOM_OK);
  EXPECT_EQ(abloom_test(copy.get(), fresh2.data(), fresh2.size()), 0);
}

TEST_P(CapiSerialRoundTrip, ViewReads) {
  const Bytes bytes = Serialize(f_.get());
  Buffer buf(bytes);
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    SCOPED_TRACE(flags);
    Filter v;
    ASSERT_EQ(View(buf.data(), buf.size(), flags, &v), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(v.get(), f_.get()), 1);
    EXPECT_EQ(abloom_equal(f_.get(), v.get()), 1);
    ExpectSameInfo(v.get(), f_.get());
    const abloom_info vi = InfoOf(v.get());
    EXPECT_EQ(vi.storage, static_cast<uint32_t>(ABLOOM_STORAGE_VIEW));
    EXPECT_EQ(vi.read_only, 1u);

    // Single tests, over present keys and a mix of absent ones: same answers as the original.
    std::vector<std::string> probe = keys_;
    const std::vector<std::string> other = Keys(2, 500);
    probe.insert(probe.end(), other.begin(), other.end());
    std::vector<const void *> ptrs;
    std::vector<size_t> lens;
    std::vector<uint64_t> hashes;
    std::string packed;
    std::vector<uint64_t> offsets{0};
    std::vector<uint8_t> want;
    for (const auto &k : probe) {
      const int t = abloom_test(f_.get(), k.data(), k.size());
      ASSERT_GE(t, 0);
      want.push_back(static_cast<uint8_t>(t));
      EXPECT_EQ(abloom_test(v.get(), k.data(), k.size()), t);
      uint64_t h = 0, hv = 0;
      ASSERT_EQ(abloom_hash(f_.get(), k.data(), k.size(), &h), ABLOOM_OK);
      ASSERT_EQ(abloom_hash(v.get(), k.data(), k.size(), &hv), ABLOOM_OK);
      EXPECT_EQ(h, hv);
      EXPECT_EQ(abloom_test_hash(v.get(), h), t);
      ptrs.push_back(k.data());
      lens.push_back(k.size());
      hashes.push_back(h);
      packed += k;
      offsets.push_back(packed.size());
    }
    uint64_t want_found = 0;
    for (uint8_t w : want) want_found += w;
    EXPECT_GE(want_found, keys_.size());

    std::vector<uint8_t> got(probe.size(), 9);
    uint64_t found = 0;
    ASSERT_EQ(abloom_test_many(v.get(), ptrs.data(), lens.data(), probe.size(), got.data(), &found),
              ABLOOM_OK);
    EXPECT_EQ(got, want);
    EXPECT_EQ(found, want_found);
    std::fill(got.begin(), got.end(), 9);
    ASSERT_EQ(abloom_test_packed(v.get(), packed.data(), packed.size(), offsets.data(),
                                 probe.size(), got.data(), &found),
              ABLOOM_OK);
    EXPECT_EQ(got, want);
    EXPECT_EQ(found, want_found);
    std::fill(got.begin(), got.end(), 9);
    ASSERT_EQ(abloom_test_hashes(v.get(), hashes.data(), hashes.size(), got.data(), &found),
              ABLOOM_OK);
    EXPECT_EQ(got, want);
    EXPECT_EQ(found, want_found);

    // Estimates: the same bits give the same numbers.
    double c1 = -1, c2 = -2, p1 = -1, p2 = -2;
    ASSERT_EQ(abloom_estimate_count(f_.get(), &c1), ABLOOM_OK);
    ASSERT_EQ(abloom_estimate_count(v.get(), &c2), ABLOOM_OK);
    ASSERT_EQ(abloom_estimate_fpr(f_.get(), &p1), ABLOOM_OK);
    ASSERT_EQ(abloom_estimate_fpr(v.get(), &p2), ABLOOM_OK);
    EXPECT_DOUBLE_EQ(c1, c2);
    EXPECT_DOUBLE_EQ(p1, p2);
    if (n_ == 0) {
      EXPECT_EQ(c2, 0.0);
      EXPECT_EQ(p2, 0.0);
    }

    // Sync has nothing to do.
    EXPECT_EQ(abloom_sync(v.get()), ABLOOM_OK);

    // Clone: owned and writable, equal until written.
    abloom_filter *c = nullptr;
    ASSERT_EQ(abloom_clone(v.get(), &c), ABLOOM_OK);
    Filter clone(c);
    const abloom_info cli = InfoOf(clone.get());
    EXPECT_EQ(cli.storage, static_cast<uint32_t>(ABLOOM_STORAGE_OWNED));
    EXPECT_EQ(cli.read_only, 0u);
    EXPECT_EQ(abloom_equal(clone.get(), v.get()), 1);
    const std::string fresh = AbsentKey(v.get());
    EXPECT_EQ(abloom_add(clone.get(), fresh.data(), fresh.size()), ABLOOM_OK);
    EXPECT_EQ(abloom_test(clone.get(), fresh.data(), fresh.size()), 1);
    EXPECT_EQ(abloom_test(v.get(), fresh.data(), fresh.size()), 0);
    EXPECT_EQ(abloom_equal(clone.get(), v.get()), 0);

    // Union / intersect INTO an owned filter FROM the view.
    Filter dst = Make(Options(20000, 0.01, kind_, shards_, 7));
    ASSERT_EQ(abloom_union(dst.get(), v.get()), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(dst.get(), v.get()), 1);
    ExpectAllPresent(dst.get(), keys_);
    ASSERT_EQ(abloom_add(dst.get(), fresh.data(), fresh.size()), ABLOOM_OK);
    ASSERT_EQ(abloom_intersect(dst.get(), v.get()), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(dst.get(), v.get()), 1);
    EXPECT_EQ(abloom_union(clone.get(), v.get()), ABLOOM_OK);
  }
  EXPECT_EQ(buf.bytes(), bytes) << "a view changed its buffer";
}

TEST_P(CapiSerialRoundTrip, ViewRefusesWrites) {
  const Bytes bytes = Serialize(f_.get());
  Buffer buf(bytes);
  Filter v;
  ASSERT_EQ(View(buf.data(), buf.size(), 0, &v), ABLOOM_OK);
  // A same-shape filter with other keys, as the source of union / intersect into the view.
  Filter other = Make(Options(20000, 0.01, kind_, shards_, 7));
  AddAll(other.get(), Keys(3, 200));
  ExpectWritesRefused(v.get(), other.get());
  // n == 0 bulk adds are refused too (the filter is read-only whatever the batch).
  uint64_t added = 5;
  EXPECT_EQ(abloom_add_many(v.get(), nullptr, nullptr, 0, &added), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_add_hashes(v.get(), nullptr, 0, &added), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_union(v.get(), v.get()), ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_equal(v.get(), f_.get()), 1);
  EXPECT_EQ(buf.bytes(), bytes) << "a refused write changed the viewed bytes";
}

TEST_P(CapiSerialRoundTrip, Misaligned) {
  const Bytes bytes = Serialize(f_.get());
  for (size_t off : {1, 8, 32}) {
    SCOPED_TRACE(off);
    Buffer buf(bytes, off);
    EXPECT_EQ(View(buf.data(), buf.size(), 0, nullptr), ABLOOM_ERR_ALIGNMENT);
    EXPECT_EQ(View(buf.data(), buf.size(), ABLOOM_VERIFY_CHECKSUM, nullptr), ABLOOM_ERR_ALIGNMENT);
    Filter copy;
    ASSERT_EQ(Deserialize(buf.data(), buf.size(), &copy), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(copy.get(), f_.get()), 1);
  }
}

TEST_P(CapiSerialRoundTrip, FileReadOnly) {
  TempDir dir;
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(f_.get(), path.c_str()), ABLOOM_OK);
  EXPECT_EQ(ReadAll(path), Serialize(f_.get()));
  EXPECT_EQ(dir.List(), std::set<std::string>{"f.abloom"});
  Filter other = Make(Options(20000, 0.01, kind_, shards_, 7));
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    SCOPED_TRACE(flags);
    Filter m;
    ASSERT_EQ(Open(path, flags, &m), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(m.get(), f_.get()), 1);
    ExpectSameInfo(m.get(), f_.get());
    const abloom_info mi = InfoOf(m.get());
    EXPECT_EQ(mi.storage, static_cast<uint32_t>(ABLOOM_STORAGE_MAPPED));
    EXPECT_EQ(mi.read_only, 1u);
    ExpectAllPresent(m.get(), keys_);
    ExpectWritesRefused(m.get(), other.get());
    EXPECT_EQ(abloom_sync(m.get()), ABLOOM_OK);
    // Reads from a mapping combine with owned filters.
    Filter dst = Make(Options(20000, 0.01, kind_, shards_, 7));
    ASSERT_EQ(abloom_union(dst.get(), m.get()), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(dst.get(), f_.get()), 1);
  }
  EXPECT_EQ(ReadAll(path), Serialize(f_.get()));
}

TEST_P(CapiSerialRoundTrip, FileCopyOnWrite) {
  TempDir dir;
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(f_.get(), path.c_str()), ABLOOM_OK);
  const Bytes before = ReadAll(path);
  for (uint32_t flags :
       {ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_VERIFY_CHECKSUM}) {
    SCOPED_TRACE(flags);
    Filter m;
    ASSERT_EQ(Open(path, flags, &m), ABLOOM_OK);
    const abloom_info mi = InfoOf(m.get());
    EXPECT_EQ(mi.storage, static_cast<uint32_t>(ABLOOM_STORAGE_MAPPED));
    EXPECT_EQ(mi.read_only, 0u);
    EXPECT_EQ(abloom_equal(m.get(), f_.get()), 1);
    const std::vector<std::string> more = Keys(4, 300);
    AddAll(m.get(), more);
    ExpectAllPresent(m.get(), more);
    ExpectAllPresent(m.get(), keys_);
    EXPECT_EQ(abloom_equal(m.get(), f_.get()), 0);
    EXPECT_EQ(abloom_sync(m.get()), ABLOOM_OK);
    EXPECT_EQ(ReadAll(path), before) << "copy-on-write adds reached the file";
    EXPECT_EQ(abloom_clear(m.get()), ABLOOM_OK);
    m.reset();
    EXPECT_EQ(ReadAll(path), before) << "copy-on-write adds reached the file after free";
  }
  Filter again;
  ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &again), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(again.get(), f_.get()), 1);
}

// Read-write: adds persist after abloom_sync (`sync` true) or just abloom_free.
void ReadWritePersists(const abloom_filter *original, const std::vector<std::string> &keys,
                       bool sync) {
  TempDir dir;
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(original, path.c_str()), ABLOOM_OK);
  const std::vector<std::string> more = Keys(5, 400);
  abloom_filter *e = nullptr;
  ASSERT_EQ(abloom_clone(original, &e), ABLOOM_OK);
  Filter expected(e);
  AddAll(expected.get(), more);

  Filter rw;
  ASSERT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE | ABLOOM_VERIFY_CHECKSUM, &rw), ABLOOM_OK);
  const abloom_info ri = InfoOf(rw.get());
  EXPECT_EQ(ri.storage, static_cast<uint32_t>(ABLOOM_STORAGE_MAPPED));
  EXPECT_EQ(ri.read_only, 0u);
  // Open and unsynced: the header is marked stale, so verification fails (ABLOOM_ERR_STALE, not
  // a checksum mismatch), but a plain open works.
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE);
  AddAll(rw.get(), more);
  EXPECT_EQ(abloom_equal(rw.get(), expected.get()), 1);
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE);
  {
    Filter plain;
    ASSERT_EQ(Open(path, 0, &plain), ABLOOM_OK);
    ExpectAllPresent(plain.get(), more);  // the shared mapping's bits are visible
    EXPECT_EQ(abloom_equal(plain.get(), expected.get()), 1);
  }
  {
    Bytes raw = ReadAll(path);
    Filter copy;
    EXPECT_EQ(Deserialize(raw.data(), raw.size(), &copy), ABLOOM_ERR_STALE);
  }
  if (sync) {
    ASSERT_EQ(abloom_sync(rw.get()), ABLOOM_OK);
    // The handle may still write, so the file is marked stale again at once: a writer killed
    // now leaves a stale file, never one whose checksum reads as corruption.
    EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE);
    Filter plain;
    ASSERT_EQ(Open(path, 0, &plain), ABLOOM_OK);
    ExpectAllPresent(plain.get(), more);
    EXPECT_EQ(InfoOf(plain.get()).stale, 1u);
    // What the sync wrote is current: the file differs from a save of the same bits only in its
    // flag word and header checksum, and a seal of it (of a copy: a seal under a live writer is
    // not allowed) gives exactly the saved bytes.
    const Bytes synced = ReadAll(path);
    const Bytes saved = Serialize(expected.get());
    ASSERT_EQ(synced.size(), saved.size());
    EXPECT_TRUE(std::equal(synced.begin(), synced.begin() + 52, saved.begin()));
    EXPECT_EQ(synced[52], saved[52] | 1u);
    EXPECT_TRUE(std::equal(synced.begin() + 56, synced.begin() + 120, saved.begin() + 56));
    EXPECT_TRUE(std::equal(synced.begin() + 128, synced.end(), saved.begin() + 128));
    const std::string copy_path = dir / "copy.abloom";
    WriteFile(copy_path, synced);
    ASSERT_EQ(abloom_seal(copy_path.c_str()), ABLOOM_OK);
    EXPECT_EQ(ReadAll(copy_path), saved);
    ASSERT_EQ(std::remove(copy_path.c_str()), 0);
    // Still writable after a sync.
    const std::string late = AbsentKey(rw.get(), 6);
    ASSERT_EQ(abloom_add(rw.get(), late.data(), late.size()), ABLOOM_OK);
    ASSERT_EQ(abloom_add(expected.get(), late.data(), late.size()), ABLOOM_OK);
  }
  rw.reset();  // abloom_free rewrites the header
  Filter reopened;
  ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &reopened), ABLOOM_OK);
  ExpectAllPresent(reopened.get(), more);
  ExpectAllPresent(reopened.get(), keys);
  EXPECT_EQ(abloom_equal(reopened.get(), expected.get()), 1);
  const Bytes raw = ReadAll(path);
  Filter copy;
  ASSERT_EQ(Deserialize(raw.data(), raw.size(), &copy), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(copy.get(), expected.get()), 1);
  EXPECT_EQ(raw, Serialize(expected.get()));
  EXPECT_EQ(dir.List(), std::set<std::string>{"f.abloom"});
}

TEST_P(CapiSerialRoundTrip, FileReadWriteSync) { ReadWritePersists(f_.get(), keys_, true); }
TEST_P(CapiSerialRoundTrip, FileReadWriteFree) { ReadWritePersists(f_.get(), keys_, false); }

std::string RoundTripName(const ::testing::TestParamInfo<RoundTripParam> &info) {
  return std::string(KindName(std::get<0>(info.param))) + "Shards" +
         std::to_string(std::get<1>(info.param)) + (std::get<2>(info.param) == 0 ? "Empty" : "");
}

INSTANTIATE_TEST_SUITE_P(All, CapiSerialRoundTrip,
                         ::testing::Combine(::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED},
                                                              uint32_t{ABLOOM_KIND_CLASSIC}),
                                            ::testing::Values(1u, 4u, 64u),
                                            ::testing::Values(size_t{0}, size_t{5000})),
                         RoundTripName);

// Serializing and saving a view or a mapped filter (read calls) give the bytes it was made of.
TEST(CapiView, SerializeAndSave) {
  for (uint32_t kind : {uint32_t{ABLOOM_KIND_BLOCKED}, uint32_t{ABLOOM_KIND_CLASSIC}}) {
    for (uint32_t shards : {1u, 4u}) {
      SCOPED_TRACE(std::string(KindName(kind)) + " shards " + std::to_string(shards));
      Filter f = Filled(kind, shards, 2000, 1000);
      const Bytes bytes = Serialize(f.get());
      Buffer buf(bytes);
      Filter v;
      ASSERT_EQ(View(buf.data(), buf.size(), 0, &v), ABLOOM_OK);
      EXPECT_EQ(SizeOf(v.get()), bytes.size());
      EXPECT_EQ(Serialize(v.get()), bytes);
      TempDir dir;
      ASSERT_EQ(abloom_save(v.get(), (dir / "v.abloom").c_str()), ABLOOM_OK);
      EXPECT_EQ(ReadAll(dir / "v.abloom"), bytes);
    }
  }
}

TEST(CapiFile, MappedSerializeAndSave) {
  for (uint32_t kind : {uint32_t{ABLOOM_KIND_BLOCKED}, uint32_t{ABLOOM_KIND_CLASSIC}}) {
    for (uint32_t shards : {1u, 4u}) {
      SCOPED_TRACE(std::string(KindName(kind)) + " shards " + std::to_string(shards));
      Filter f = Filled(kind, shards, 2000, 1000);
      const Bytes bytes = Serialize(f.get());
      TempDir dir;
      ASSERT_EQ(abloom_save(f.get(), (dir / "a.abloom").c_str()), ABLOOM_OK);
      for (uint32_t flags : {0u, ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE}) {
        SCOPED_TRACE(flags);
        Filter m;
        ASSERT_EQ(Open(dir / "a.abloom", flags, &m), ABLOOM_OK);
        EXPECT_EQ(Serialize(m.get()), bytes);
        ASSERT_EQ(abloom_save(m.get(), (dir / "b.abloom").c_str()), ABLOOM_OK);
        EXPECT_EQ(ReadAll(dir / "b.abloom"), bytes);
      }
    }
  }
}

// ---- Files: flags and errors --------------------------------------------------------------------

TEST(CapiFile, OpenFlags) {
  TempDir dir;
  const std::string path = dir / "f.abloom";
  Filter f = Filled(ABLOOM_KIND_BLOCKED, 1, 1000, 100);
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  const Bytes before = ReadAll(path);
  const uint32_t bad[] = {
      0x8u,
      0x10u,
      0x80000000u,
      ABLOOM_VERIFY_CHECKSUM | 0x100u,
      ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_OPEN_READ_WRITE,
      ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_OPEN_READ_WRITE | ABLOOM_VERIFY_CHECKSUM,
      0xFFFFFFFFu,
  };
  for (uint32_t flags : bad) {
    SCOPED_TRACE(flags);
    EXPECT_EQ(Open(path, flags), ABLOOM_ERR_INVALID);
    // Flags are checked before the file is touched (a missing file is still INVALID).
    EXPECT_EQ(Open(dir / "missing", flags), ABLOOM_ERR_INVALID);
  }
  EXPECT_EQ(ReadAll(path), before) << "a refused read-write open marked the file stale";
  // View takes only ABLOOM_VERIFY_CHECKSUM.
  Bytes bytes = Serialize(f.get());
  Buffer buf(bytes);
  for (uint32_t flags : {ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE, 0x8u, 0x80000000u}) {
    SCOPED_TRACE(flags);
    EXPECT_EQ(View(buf.data(), buf.size(), flags), ABLOOM_ERR_INVALID);
  }
  // Every valid combination opens.
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM, ABLOOM_OPEN_COPY_ON_WRITE,
                         ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_VERIFY_CHECKSUM, ABLOOM_OPEN_READ_WRITE,
                         ABLOOM_OPEN_READ_WRITE | ABLOOM_VERIFY_CHECKSUM}) {
    SCOPED_TRACE(flags);
    Filter m;
    ASSERT_EQ(Open(path, flags, &m), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(m.get(), f.get()), 1);
  }
  Filter verified;
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &verified), ABLOOM_OK);
}

TEST(CapiFile, SaveToMissingDirectory) {
  TempDir dir;
  Filter f = Filled(ABLOOM_KIND_CLASSIC, 4, 1000, 100);
  const std::string path = dir / "no-such-dir/f.abloom";
  errno = 0;
  const int rc = abloom_save(f.get(), path.c_str());
  const int err = errno;
  EXPECT_EQ(rc, ABLOOM_ERR_IO);
  EXPECT_EQ(err, ENOENT);
  EXPECT_TRUE(dir.List().empty());
  EXPECT_EQ(Open(path, 0), ABLOOM_ERR_IO);
}

TEST(CapiFile, SaveOverDirectoryLeavesNoTemporary) {
  // The temporary file is created and written, then the rename over a directory fails: the
  // temporary must be removed.
  TempDir dir;
  Filter f = Filled(ABLOOM_KIND_BLOCKED, 1, 1000, 100);
  ASSERT_TRUE(std::filesystem::create_directory(test_files::PathOf(dir / "sub")));
  EXPECT_EQ(abloom_save(f.get(), (dir / "sub").c_str()), ABLOOM_ERR_IO);
  EXPECT_EQ(dir.List(), std::set<std::string>{"sub"});
  EXPECT_EQ(CountTmpFiles(dir), 0u);
}

TEST(CapiFile, OpenErrors) {
  TempDir dir;
  {
    abloom_filter *o = nullptr;
    errno = 0;
    const int rc = abloom_open((dir / "missing.abloom").c_str(), 0, &o);
    const int err = errno;
    EXPECT_EQ(rc, ABLOOM_ERR_IO);
    EXPECT_EQ(err, ENOENT);
    EXPECT_EQ(o, nullptr);
  }
  EXPECT_EQ(Open(dir / "missing.abloom", ABLOOM_OPEN_READ_WRITE), ABLOOM_ERR_IO);
  EXPECT_EQ(Open(dir.path(), 0), ABLOOM_ERR_IO);
  EXPECT_EQ(Open(dir.path(), ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_IO);
  EXPECT_EQ(Open(dir.path(), ABLOOM_OPEN_COPY_ON_WRITE), ABLOOM_ERR_IO);
  WriteFile(dir / "empty", nullptr, 0);
  const unsigned char ten[10] = {0x89, 'A', 'B', 'L', 'O', 'O', 'M', '\n', 1, 0};
  WriteFile(dir / "ten", ten, sizeof ten);
  for (uint32_t flags :
       {0u, ABLOOM_VERIFY_CHECKSUM, ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE}) {
    SCOPED_TRACE(flags);
    EXPECT_EQ(Open(dir / "empty", flags), ABLOOM_ERR_TRUNCATED);
    EXPECT_EQ(Open(dir / "ten", flags), ABLOOM_ERR_TRUNCATED);
  }
  EXPECT_EQ(ReadAll(dir / "empty").size(), 0u);
  EXPECT_EQ(ReadAll(dir / "ten"), Bytes(ten, ten + sizeof ten));
  // Not an abloom file at all.
  const Bytes text(4096, 'x');
  WriteFile(dir / "text", text);
  EXPECT_EQ(Open(dir / "text", 0), ABLOOM_ERR_BAD_MAGIC);
  EXPECT_EQ(Open(dir / "text", ABLOOM_OPEN_READ_WRITE), ABLOOM_ERR_BAD_MAGIC);
  EXPECT_EQ(ReadAll(dir / "text"), text);
}

TEST(CapiFile, SaveReplacesAtomically) {
  TempDir dir;
  const std::string path = dir / "f.abloom";
  // Old: large classic, new: small blocked (a different size, so leftovers would show).
  Filter old_f = Filled(ABLOOM_KIND_CLASSIC, 4, 50000, 20000);
  Filter new_f = Filled(ABLOOM_KIND_BLOCKED, 1, 2000, 1000);
  ASSERT_EQ(abloom_save(old_f.get(), path.c_str()), ABLOOM_OK);
  // POSIX renames replace a mapped file, whose mapping keeps the old file; Windows may refuse to
  // (EBUSY: capi_windows_file_test.cpp checks both outcomes), so there nothing is mapped here.
  Filter old_mapped;
#if !defined(_WIN32)
  ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &old_mapped), ABLOOM_OK);
#endif

  ASSERT_EQ(abloom_save(new_f.get(), path.c_str()), ABLOOM_OK);
  EXPECT_EQ(ReadAll(path), Serialize(new_f.get())) << "old content left over";
  Filter reopened;
  ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &reopened), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(reopened.get(), new_f.get()), 1);
  EXPECT_EQ(abloom_equal(reopened.get(), old_f.get()), 0);
#if !defined(_WIN32)
  // The rename replaced the directory entry: the old mapping still holds the old file, whole.
  EXPECT_EQ(abloom_equal(old_mapped.get(), old_f.get()), 1);
#endif
  EXPECT_EQ(dir.List(), std::set<std::string>{"f.abloom"});

  // Back to the large one (on POSIX systems over a file that is mapped read-write).
  Filter rw;
#if !defined(_WIN32)
  ASSERT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE, &rw), ABLOOM_OK);
#else
  reopened.reset();
#endif
  ASSERT_EQ(abloom_save(old_f.get(), path.c_str()), ABLOOM_OK);
  Filter again;
  ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &again), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(again.get(), old_f.get()), 1);
  rw.reset();  // syncs the old (unlinked) inode, not the new file
  EXPECT_EQ(ReadAll(path), Serialize(old_f.get()));
  // A relative path (the directory of the target is ".").
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(test_files::PathOf(dir.path()));
  EXPECT_EQ(abloom_save(new_f.get(), "rel.abloom"), ABLOOM_OK);
  std::filesystem::current_path(cwd);
  Filter rel;
  ASSERT_EQ(Open(dir / "rel.abloom", ABLOOM_VERIFY_CHECKSUM, &rel), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(rel.get(), new_f.get()), 1);
  EXPECT_EQ(CountTmpFiles(dir), 0u);
}

// ---- Saving while other threads add ------------------------------------------------------------

TEST(CapiSerialConcurrent, SaveAndSerializeWhileAdding) {
  for (uint32_t kind : {uint32_t{ABLOOM_KIND_BLOCKED}, uint32_t{ABLOOM_KIND_CLASSIC}}) {
    SCOPED_TRACE(KindName(kind));
    TempDir dir;
    const std::string path = dir / "f.abloom";
    Filter f = Make(Options(1000000, 0.01, kind, 4, 7));  // ~ 1.2 MiB
    ASSERT_TRUE(f);
    const std::vector<std::string> before = Keys(7, 1000);
    AddAll(f.get(), before);
    // Two adders, paced (a short sleep every 1000 keys) so that many saves overlap them.
    constexpr int kThreads = 2;
    constexpr uint64_t kPerThread = 200000;
    std::atomic<uint64_t> progress[kThreads];
    for (auto &p : progress) p.store(0);
    std::atomic<int> running{kThreads};
    std::vector<std::thread> adders;
    for (int t = 0; t < kThreads; ++t) {
      adders.emplace_back([&, t] {
        for (uint64_t i = 0; i < kPerThread; ++i) {
          const std::string k = Key(100 + t, i);
          if (abloom_add(f.get(), k.data(), k.size()) != ABLOOM_OK) std::abort();
          progress[t].store(i + 1, std::memory_order_release);
          if (i % 1000 == 999) std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        running.fetch_sub(1);
      });
    }
    int rounds = 0, concurrent_rounds = 0;
    while (rounds < 4 || (running.load() > 0 && rounds < 200)) {
      SCOPED_TRACE(rounds);
      const bool concurrent = running.load() > 0;
      uint64_t done[kThreads];
      for (int t = 0; t < kThreads; ++t) done[t] = progress[t].load(std::memory_order_acquire);
      Filter copy;
      if (rounds % 2 == 0) {
        const Bytes bytes = Serialize(f.get());
        ASSERT_EQ(Deserialize(bytes.data(), bytes.size(), &copy), ABLOOM_OK);
      } else {
        ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
        ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &copy), ABLOOM_OK);
      }
      ExpectAllPresent(copy.get(), before);
      for (int t = 0; t < kThreads; ++t) {
        std::string packed;
        std::vector<uint64_t> offsets{0};
        for (uint64_t i = 0; i < done[t]; ++i) {
          packed += Key(100 + t, i);
          offsets.push_back(packed.size());
        }
        std::vector<uint8_t> results(done[t]);
        uint64_t found = 0;
        ASSERT_EQ(abloom_test_packed(copy.get(), packed.data(), packed.size(), offsets.data(),
                                     done[t], results.data(), &found),
                  ABLOOM_OK);
        EXPECT_EQ(found, done[t]) << "thread " << t << ": keys added before the save are missing";
      }
      ++rounds;
      concurrent_rounds += concurrent;
    }
    for (auto &a : adders) a.join();
    EXPECT_GE(concurrent_rounds, 1);
    // Quiescent now: a save is exactly the filter.
    ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
    Filter last;
    ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &last), ABLOOM_OK);
    EXPECT_EQ(abloom_equal(last.get(), f.get()), 1);
    EXPECT_EQ(CountTmpFiles(dir), 0u);
  }
}

// ---- Hostile input ------------------------------------------------------------------------------

// kind, shards: small real filters (a few hundred bytes of body).
using SmallParam = std::tuple<uint32_t, uint32_t>;

class CapiHostile : public ::testing::TestWithParam<SmallParam> {
 protected:
  void SetUp() override {
    std::tie(kind_, shards_) = GetParam();
    f_ = Filled(kind_, shards_, 300, 250);
    ASSERT_TRUE(f_);
    bytes_ = Serialize(f_.get());
    ASSERT_GT(bytes_.size(), 128u);
    ASSERT_LE(bytes_.size(), 128u + 1024u) << "keep the exhaustive loops small";
  }
  uint32_t kind_ = 0, shards_ = 0;
  Filter f_;
  Bytes bytes_;
};

TEST_P(CapiHostile, EveryTruncation) {
  TempDir dir;
  const std::string path = dir / "t.abloom";
  for (size_t len = 0; len < bytes_.size(); ++len) {
    SCOPED_TRACE(len);
    // An exactly-sized heap copy of the prefix: any read past `len` is a sanitizer error.
    std::unique_ptr<unsigned char[]> exact(new unsigned char[std::max<size_t>(len, 1)]);
    if (len > 0) std::memcpy(exact.get(), bytes_.data(), len);
    EXPECT_EQ(Deserialize(exact.get(), len), ABLOOM_ERR_TRUNCATED);
    Buffer aligned(bytes_.data(), len);
    EXPECT_EQ(View(aligned.data(), len, 0), ABLOOM_ERR_TRUNCATED);
    EXPECT_EQ(View(aligned.data(), len, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_TRUNCATED);
    WriteFile(path, bytes_.data(), len);
    EXPECT_EQ(Open(path, 0), ABLOOM_ERR_TRUNCATED);
    EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_TRUNCATED);
    if (::testing::Test::HasFailure()) break;  // one length's report is enough
  }
  // A read-write open of a truncated file fails without touching it.
  const size_t cut = bytes_.size() - 64;
  WriteFile(path, bytes_.data(), cut);
  EXPECT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE), ABLOOM_ERR_TRUNCATED);
  EXPECT_EQ(ReadAll(path), Bytes(bytes_.begin(), bytes_.begin() + static_cast<ptrdiff_t>(cut)));
}

TEST_P(CapiHostile, TrailingBytes) {
  TempDir dir;
  const std::string path = dir / "t.abloom";
  for (size_t extra : {1, 7, 64, 4096}) {
    SCOPED_TRACE(extra);
    Bytes longer = bytes_;
    longer.resize(bytes_.size() + extra, 0);
    Buffer aligned(longer);
    EXPECT_EQ(Deserialize(aligned.data(), aligned.size()), ABLOOM_ERR_CORRUPT);
    EXPECT_EQ(View(aligned.data(), aligned.size(), 0), ABLOOM_ERR_CORRUPT);
    EXPECT_EQ(View(aligned.data(), aligned.size(), ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_CORRUPT);
    WriteFile(path, longer);
    EXPECT_EQ(Open(path, 0), ABLOOM_ERR_CORRUPT);
    EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_CORRUPT);
    EXPECT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE), ABLOOM_ERR_CORRUPT);
    EXPECT_EQ(ReadAll(path), longer);
  }
  // Control: the exact bytes are accepted everywhere.
  Buffer aligned(bytes_);
  EXPECT_EQ(Deserialize(aligned.data(), aligned.size()), ABLOOM_OK);
  EXPECT_EQ(View(aligned.data(), aligned.size(), ABLOOM_VERIFY_CHECKSUM), ABLOOM_OK);
  WriteFile(path, bytes_);
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_OK);
}

int ExpectedForHeaderByte(size_t byte) {
  if (byte < 8) return ABLOOM_ERR_BAD_MAGIC;
  if (byte < 12) return ABLOOM_ERR_VERSION;
  return ABLOOM_ERR_CORRUPT;
}

TEST_P(CapiHostile, EveryHeaderBitFlip) {
  TempDir dir;
  const std::string path = dir / "t.abloom";
  WriteFile(path, bytes_);
  Buffer aligned(bytes_);
  unsigned char *p = aligned.data();
  size_t failures = 0;
  for (size_t bit = 0; bit < 128 * 8; ++bit) {
    const size_t byte = bit / 8;
    const unsigned char mask = static_cast<unsigned char>(1u << (bit % 8));
    const int want = ExpectedForHeaderByte(byte);
    p[byte] ^= mask;
    const int d = Deserialize(p, aligned.size());
    const int v0 = View(p, aligned.size(), 0);
    const int v1 = View(p, aligned.size(), ABLOOM_VERIFY_CHECKSUM);
    p[byte] ^= mask;
    PokeFile(path, byte, bytes_[byte] ^ mask);
    const int o0 = Open(path, 0);
    PokeFile(path, byte, bytes_[byte]);
    EXPECT_NE(d, ABLOOM_OK) << "bit " << bit;
    EXPECT_NE(v0, ABLOOM_OK) << "bit " << bit;
    EXPECT_EQ(d, want) << "deserialize, header bit " << bit << " (byte " << byte << ")";
    EXPECT_EQ(v0, want) << "view, header bit " << bit << " (byte " << byte << ")";
    EXPECT_EQ(v1, want) << "verified view, header bit " << bit << " (byte " << byte << ")";
    EXPECT_EQ(o0, want) << "open, header bit " << bit << " (byte " << byte << ")";
    failures += d != want || v0 != want || v1 != want || o0 != want;
    if (failures > 10) break;
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_EQ(aligned.bytes(), bytes_);
  EXPECT_EQ(ReadAll(path), bytes_);
}

TEST_P(CapiHostile, EveryBodyBitFlip) {
  TempDir dir;
  const std::string path = dir / "t.abloom";
  WriteFile(path, bytes_);
  Buffer aligned(bytes_);
  unsigned char *p = aligned.data();
  size_t failures = 0;
  for (size_t bit = 128 * 8; bit < bytes_.size() * 8; ++bit) {
    const size_t byte = bit / 8;
    const unsigned char mask = static_cast<unsigned char>(1u << (bit % 8));
    p[byte] ^= mask;
    const int d = Deserialize(p, aligned.size());
    const int v1 = View(p, aligned.size(), ABLOOM_VERIFY_CHECKSUM);
    Filter unverified;
    const int v0 = View(p, aligned.size(), 0, &unverified);
    // The O(1) view cannot see a body change: it opens, and shows the changed bits.
    const int differs = v0 == ABLOOM_OK ? abloom_equal(unverified.get(), f_.get()) : -100;
    unverified.reset();
    p[byte] ^= mask;
    PokeFile(path, byte, bytes_[byte] ^ mask);
    const int o1 = Open(path, ABLOOM_VERIFY_CHECKSUM);
    const int o1rw = Open(path, ABLOOM_VERIFY_CHECKSUM | ABLOOM_OPEN_READ_WRITE);
    const int o0 = Open(path, 0);
    PokeFile(path, byte, bytes_[byte]);
    EXPECT_EQ(d, ABLOOM_ERR_CHECKSUM) << "deserialize, body bit " << bit;
    EXPECT_EQ(v1, ABLOOM_ERR_CHECKSUM) << "verified view, body bit " << bit;
    EXPECT_EQ(o1, ABLOOM_ERR_CHECKSUM) << "verified open, body bit " << bit;
    EXPECT_EQ(o1rw, ABLOOM_ERR_CHECKSUM) << "verified read-write open, body bit " << bit;
    EXPECT_EQ(v0, ABLOOM_OK) << "unverified view, body bit " << bit;
    EXPECT_EQ(differs, 0) << "unverified view, body bit " << bit;
    EXPECT_EQ(o0, ABLOOM_OK) << "unverified open, body bit " << bit;
    failures += d != ABLOOM_ERR_CHECKSUM || v1 != ABLOOM_ERR_CHECKSUM ||
                o1 != ABLOOM_ERR_CHECKSUM || o1rw != ABLOOM_ERR_CHECKSUM || v0 != ABLOOM_OK ||
                differs != 0 || o0 != ABLOOM_OK;
    if (failures > 10) break;
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_EQ(aligned.bytes(), bytes_);
  EXPECT_EQ(ReadAll(path), bytes_) << "a refused open changed the file";
}

#if defined(ABLOOM_TEST_HAVE_XXHASH)

struct Craft {
  const char *name;
  void (*mutate)(unsigned char *h);
  int want;
};

// Each case changes header fields and then reseals the header checksum, so only the field
// checks can catch it.
const Craft kCrafts[] = {
    {"version 2", [](unsigned char *h) { Put32(h + 8, 2); }, ABLOOM_ERR_VERSION},
    {"version 0", [](unsigned char *h) { Put32(h + 8, 0); }, ABLOOM_ERR_VERSION},
    {"header size 64", [](unsigned char *h) { Put32(h + 12, 64); }, ABLOOM_ERR_CORRUPT},
    // Kind 2 is a growing filter's chain header: a filter's header with that kind is read as a
    // chain whose fields make no sense (its reserved words hold the filter's fields).
    {"kind 2", [](unsigned char *h) { Put32(h + 16, 2); }, ABLOOM_ERR_CORRUPT},
    {"kind 3", [](unsigned char *h) { Put32(h + 16, 3); }, ABLOOM_ERR_UNSUPPORTED},
    {"kind 0xFFFFFFFF", [](unsigned char *h) { Put32(h + 16, 0xFFFFFFFFu); },
     ABLOOM_ERR_UNSUPPORTED},
    {"layout id 4", [](unsigned char *h) { Put32(h + 20, 4); }, ABLOOM_ERR_UNSUPPORTED},
    {"layout id 0xFFFFFFFF", [](unsigned char *h) { Put32(h + 20, 0xFFFFFFFFu); },
     ABLOOM_ERR_UNSUPPORTED},
    {"layout id 0", [](unsigned char *h) { Put32(h + 20, 0); }, ABLOOM_ERR_UNSUPPORTED},
    {"hash id 0", [](unsigned char *h) { Put32(h + 24, 0); }, ABLOOM_ERR_UNSUPPORTED},
    {"hash id 2", [](unsigned char *h) { Put32(h + 24, 2); }, ABLOOM_ERR_UNSUPPORTED},
    {"k 0", [](unsigned char *h) { Put32(h + 28, 0); }, ABLOOM_ERR_CORRUPT},
    {"k 65", [](unsigned char *h) { Put32(h + 28, 65); }, ABLOOM_ERR_CORRUPT},
    {"k 0xFFFFFFFF", [](unsigned char *h) { Put32(h + 28, 0xFFFFFFFFu); }, ABLOOM_ERR_CORRUPT},
    {"shards 0", [](unsigned char *h) { Put32(h + 48, 0); }, ABLOOM_ERR_CORRUPT},
    {"shards 3", [](unsigned char *h) { Put32(h + 48, 3); }, ABLOOM_ERR_CORRUPT},
    {"shards 131072", [](unsigned char *h) { Put32(h + 48, 131072); }, ABLOOM_ERR_CORRUPT},
    {"shards 2^31", [](unsigned char *h) { Put32(h + 48, 0x80000000u); }, ABLOOM_ERR_CORRUPT},
    {"blocks 0", [](unsigned char *h) { Put64(h + 40, 0); }, ABLOOM_ERR_CORRUPT},
    {"blocks 0, bits 0, body 0",
     [](unsigned char *h) {
       Put64(h + 40, 0);
       Put64(h + 56, 0);
       Put64(h + 96, 0);
     },
     ABLOOM_ERR_CORRUPT},
    {"blocks 2^60 (sizes wrap to 0)",
     [](unsigned char *h) {
       // shards x 2^60 x 512 bits wraps to 0 mod 2^64: a reader that multiplies blindly would
       // expect a body of 0 bytes.
       Put64(h + 40, uint64_t{1} << 60);
       Put64(h + 56, 0);
       Put64(h + 96, 0);
     },
     ABLOOM_ERR_CORRUPT},
    {"blocks 2^60, sizes as stored", [](unsigned char *h) { Put64(h + 40, uint64_t{1} << 60); },
     ABLOOM_ERR_CORRUPT},
    {"blocks 2^64-1", [](unsigned char *h) { Put64(h + 40, ~uint64_t{0}); }, ABLOOM_ERR_CORRUPT},
    {"blocks over 2^48 bytes",
     [](unsigned char *h) {
       // 2^42 + 1 blocks in every shard: over ABLOOM_MAX_BYTES, sizes consistent.
       const uint64_t blocks = (uint64_t{1} << 42) + 1;
       uint32_t shards = 0;
       for (int i = 3; i >= 0; --i) shards = shards << 8 | h[48 + i];
       Put64(h + 40, blocks);
       Put64(h + 56, blocks * shards * 512);
       Put64(h + 96, blocks * shards * 64);
     },
     ABLOOM_ERR_CORRUPT},
    {"bit count + 512", [](unsigned char *h) { Put64(h + 56, Get64(h + 56) + 512); },
     ABLOOM_ERR_CORRUPT},
    {"bit count - 512", [](unsigned char *h) { Put64(h + 56, Get64(h + 56) - 512); },
     ABLOOM_ERR_CORRUPT},
    {"bit count and body size + 1 block",
     [](unsigned char *h) {
       Put64(h + 56, Get64(h + 56) + 512);
       Put64(h + 96, Get64(h + 96) + 64);
     },
     ABLOOM_ERR_CORRUPT},
    {"body size + 1", [](unsigned char *h) { Put64(h + 96, Get64(h + 96) + 1); },
     ABLOOM_ERR_CORRUPT},
    {"body size - 1", [](unsigned char *h) { Put64(h + 96, Get64(h + 96) - 1); },
     ABLOOM_ERR_CORRUPT},
    {"flag bit 1", [](unsigned char *h) { Put32(h + 52, 2); }, ABLOOM_ERR_CORRUPT},
    {"flag bit 31", [](unsigned char *h) { Put32(h + 52, 0x80000000u); }, ABLOOM_ERR_CORRUPT},
    {"reserved 1", [](unsigned char *h) { Put64(h + 112, 1); }, ABLOOM_ERR_CORRUPT},
    {"reserved top bit", [](unsigned char *h) { Put64(h + 112, uint64_t{1} << 63); },
     ABLOOM_ERR_CORRUPT},
    {"capacity 0", [](unsigned char *h) { Put64(h + 64, 0); }, ABLOOM_ERR_CORRUPT},
    {"target fpr NaN",
     [](unsigned char *h) { PutDouble(h + 80, std::numeric_limits<double>::quiet_NaN()); },
     ABLOOM_ERR_CORRUPT},
    {"target fpr 1.0", [](unsigned char *h) { PutDouble(h + 80, 1.0); }, ABLOOM_ERR_CORRUPT},
    {"target fpr -0.5", [](unsigned char *h) { PutDouble(h + 80, -0.5); }, ABLOOM_ERR_CORRUPT},
    {"target fpr +inf",
     [](unsigned char *h) { PutDouble(h + 80, std::numeric_limits<double>::infinity()); },
     ABLOOM_ERR_CORRUPT},
    {"expected fpr 2.0", [](unsigned char *h) { PutDouble(h + 88, 2.0); }, ABLOOM_ERR_CORRUPT},
    {"expected fpr NaN",
     [](unsigned char *h) { PutDouble(h + 88, std::numeric_limits<double>::quiet_NaN()); },
     ABLOOM_ERR_CORRUPT},
    {"expected fpr -1e-300", [](unsigned char *h) { PutDouble(h + 88, -1e-300); },
     ABLOOM_ERR_CORRUPT},
};

// Runs one crafted header through every reader.
void ExpectAllReaders(const Bytes &crafted, int want, const std::string &path) {
  Buffer aligned(crafted);
  EXPECT_EQ(Deserialize(aligned.data(), aligned.size()), want) << "deserialize";
  EXPECT_EQ(View(aligned.data(), aligned.size(), 0), want) << "view";
  EXPECT_EQ(View(aligned.data(), aligned.size(), ABLOOM_VERIFY_CHECKSUM), want) << "verified view";
  WriteFile(path, crafted);
  EXPECT_EQ(Open(path, 0), want) << "open";
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), want) << "verified open";
  EXPECT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE), want) << "read-write open";
  EXPECT_EQ(ReadAll(path), crafted) << "a refused read-write open changed the file";
}

TEST_P(CapiHostile, CraftedHeaders) {
  TempDir dir;
  const std::string path = dir / "c.abloom";
  // Control: resealing an untouched header changes nothing, and every reader accepts it.
  {
    Bytes same = bytes_;
    Reseal(same.data());
    ASSERT_EQ(same, bytes_) << "the test's header checksum differs from the library's";
    ExpectAllReaders(same, ABLOOM_OK, path);
  }
  for (const Craft &c : kCrafts) {
    SCOPED_TRACE(c.name);
    Bytes crafted = bytes_;
    c.mutate(crafted.data());
    Reseal(crafted.data());
    ASSERT_NE(crafted, bytes_);
    ExpectAllReaders(crafted, c.want, path);
    // Only the header: a 128-byte buffer must not be read past either.
    Buffer header_only(crafted.data(), 128);
    // The field checks come before the length check (docs/FORMAT.md, validation order).
    EXPECT_EQ(Deserialize(header_only.data(), 128), c.want) << "header only";
    EXPECT_EQ(View(header_only.data(), 128, 0), c.want) << "header only";
  }
}

TEST_P(CapiHostile, CraftedButValid) {
  TempDir dir;
  const std::string path = dir / "c.abloom";
  // Header changes that stay in range: the header is accepted, only the full checksum (which
  // covers header bytes [0, 104)) catches them.
  const std::pair<const char *, void (*)(unsigned char *)> cases[] = {
      {"target fpr 0 (explicit layout)", [](unsigned char *h) { PutDouble(h + 80, 0.0); }},
      {"expected fpr 1.0", [](unsigned char *h) { PutDouble(h + 88, 1.0); }},
      {"inserted estimate saturated", [](unsigned char *h) { Put64(h + 72, ~uint64_t{0}); }},
      {"capacity 2^64-1", [](unsigned char *h) { Put64(h + 64, ~uint64_t{0}); }},
      {"other seed", [](unsigned char *h) { Put64(h + 32, Get64(h + 32) ^ 1); }},
  };
  for (const auto &[name, mutate] : cases) {
    SCOPED_TRACE(name);
    Bytes crafted = bytes_;
    mutate(crafted.data());
    Reseal(crafted.data());
    Buffer aligned(crafted);
    EXPECT_EQ(Deserialize(aligned.data(), aligned.size()), ABLOOM_ERR_CHECKSUM);
    EXPECT_EQ(View(aligned.data(), aligned.size(), ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_CHECKSUM);
    EXPECT_EQ(View(aligned.data(), aligned.size(), 0), ABLOOM_OK);
    // With the full checksum recomputed too, it is a valid filter.
    Put64(crafted.data() + 104, [&] {
      XXH3_state_t st;
      XXH3_64bits_reset(&st);
      XXH3_64bits_update(&st, crafted.data(), 104);
      XXH3_64bits_update(&st, crafted.data() + 128, crafted.size() - 128);
      return XXH3_64bits_digest(&st);
    }());
    Reseal(crafted.data());
    Buffer fixed(crafted);
    Filter g;
    EXPECT_EQ(Deserialize(fixed.data(), fixed.size(), &g), ABLOOM_OK);
    EXPECT_EQ(View(fixed.data(), fixed.size(), ABLOOM_VERIFY_CHECKSUM), ABLOOM_OK);
  }
  // The stale flag (bit 0) with a valid header: plain readers accept it, verification refuses
  // with ABLOOM_ERR_STALE (whatever the body checksum field says).
  Bytes stale = bytes_;
  stale[52] |= 1;
  Reseal(stale.data());
  Buffer aligned(stale);
  EXPECT_EQ(Deserialize(aligned.data(), aligned.size()), ABLOOM_ERR_STALE);
  EXPECT_EQ(View(aligned.data(), aligned.size(), ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE);
  Filter v;
  EXPECT_EQ(View(aligned.data(), aligned.size(), 0, &v), ABLOOM_OK);
  if (v) {
    EXPECT_EQ(abloom_equal(v.get(), f_.get()), 1);
  }
  WriteFile(path, stale);
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE);
  EXPECT_EQ(Open(path, 0), ABLOOM_OK);
  // A stale file is repaired by opening it read-write and syncing.
  {
    Filter rw;
    ASSERT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE, &rw), ABLOOM_OK);
    EXPECT_EQ(abloom_sync(rw.get()), ABLOOM_OK);
  }
  Filter repaired;
  ASSERT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &repaired), ABLOOM_OK);
  EXPECT_EQ(abloom_equal(repaired.get(), f_.get()), 1);
}

#endif  // ABLOOM_TEST_HAVE_XXHASH

std::string SmallName(const ::testing::TestParamInfo<SmallParam> &info) {
  return std::string(KindName(std::get<0>(info.param))) + "Shards" +
         std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Small, CapiHostile,
                         ::testing::Combine(::testing::Values(uint32_t{ABLOOM_KIND_BLOCKED},
                                                              uint32_t{ABLOOM_KIND_CLASSIC}),
                                            ::testing::Values(1u, 4u)),
                         SmallName);

// ---- Argument checks and messages ---------------------------------------------------------------

TEST(CapiFormatArgs, NullArguments) {
  Filter f = Filled(ABLOOM_KIND_BLOCKED, 1, 1000, 100);
  const Bytes bytes = Serialize(f.get());
  Buffer aligned(bytes);
  TempDir dir;
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);

  uint64_t size = 42;
  EXPECT_EQ(abloom_serialized_size(nullptr, &size), ABLOOM_ERR_NULL);
  EXPECT_EQ(size, 42u);
  EXPECT_EQ(abloom_serialized_size(f.get(), nullptr), ABLOOM_ERR_NULL);

  Bytes out(bytes.size(), 0xEE);
  size_t written = 42;
  EXPECT_EQ(abloom_serialize(nullptr, out.data(), out.size(), &written), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_serialize(f.get(), nullptr, out.size(), &written), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_serialize(f.get(), nullptr, 0, &written), ABLOOM_ERR_NULL);
  EXPECT_EQ(written, 42u);
  EXPECT_EQ(out, Bytes(bytes.size(), 0xEE));

  abloom_filter *sentinel = reinterpret_cast<abloom_filter *>(uintptr_t{0x1234});
  abloom_filter *o = sentinel;
  EXPECT_EQ(abloom_deserialize(nullptr, bytes.size(), &o), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_deserialize(nullptr, 0, &o), ABLOOM_ERR_NULL);
  EXPECT_EQ(o, sentinel);
  EXPECT_EQ(abloom_deserialize(bytes.data(), bytes.size(), nullptr), ABLOOM_ERR_NULL);

  EXPECT_EQ(abloom_view(nullptr, bytes.size(), 0, &o), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_view(nullptr, 0, ABLOOM_VERIFY_CHECKSUM, &o), ABLOOM_ERR_NULL);
  EXPECT_EQ(o, sentinel);
  EXPECT_EQ(abloom_view(aligned.data(), aligned.size(), 0, nullptr), ABLOOM_ERR_NULL);

  EXPECT_EQ(abloom_save(nullptr, path.c_str()), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_save(f.get(), nullptr), ABLOOM_ERR_NULL);

  EXPECT_EQ(abloom_open(nullptr, 0, &o), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_open(nullptr, ABLOOM_OPEN_READ_WRITE, &o), ABLOOM_ERR_NULL);
  EXPECT_EQ(o, sentinel);
  EXPECT_EQ(abloom_open(path.c_str(), 0, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, nullptr), ABLOOM_ERR_NULL);

  EXPECT_EQ(abloom_sync(nullptr), ABLOOM_ERR_NULL);

  // Nothing above touched the file (a read-write open with a NULL out must not mark it stale).
  EXPECT_EQ(ReadAll(path), bytes);
  EXPECT_EQ(dir.List(), std::set<std::string>{"f.abloom"});
  Filter verified;
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM, &verified), ABLOOM_OK);
}

TEST(CapiFormatArgs, StrerrorOfNewCodes) {
  const int codes[] = {ABLOOM_ERR_READONLY,    ABLOOM_ERR_BAD_MAGIC, ABLOOM_ERR_VERSION,
                       ABLOOM_ERR_UNSUPPORTED, ABLOOM_ERR_TRUNCATED, ABLOOM_ERR_CORRUPT,
                       ABLOOM_ERR_CHECKSUM,    ABLOOM_ERR_ALIGNMENT, ABLOOM_ERR_IO,
                       ABLOOM_ERR_TOO_SMALL,   ABLOOM_ERR_STALE};
  const std::string unknown = abloom_strerror(-9999);
  std::set<std::string> seen;
  // The older codes too, so a new message cannot repeat an old one.
  for (int c = ABLOOM_OK; c >= ABLOOM_ERR_INTERNAL; --c) seen.insert(abloom_strerror(c));
  ASSERT_EQ(seen.size(), 7u);
  for (int c : codes) {
    SCOPED_TRACE(c);
    const char *s = abloom_strerror(c);
    ASSERT_NE(s, nullptr);
    EXPECT_GT(std::strlen(s), 0u);
    EXPECT_NE(unknown, s);
    EXPECT_TRUE(seen.insert(s).second) << "duplicate message: " << s;
  }
  // The codes are distinct and contiguous after INTERNAL.
  for (size_t i = 0; i < std::size(codes); ++i)
    EXPECT_EQ(codes[i], ABLOOM_ERR_INTERNAL - 1 - int(i));
  EXPECT_EQ(std::string(abloom_strerror(ABLOOM_ERR_STALE - 1)), unknown);
}

}  // namespace
