// Growing filters through the C API (abloom_options.growth): one handle type, every call either
// works on the chain or says why not.
#include <cmath>
#include <cstddef>
#include <thread>

#include "aligned_memory.hpp"
#include "capi_test_support.hpp"

namespace {

using capi_test::Filter;

// size bytes, 64-byte aligned (views want it).
struct AlignedBytes {
  explicit AlignedBytes(uint64_t size) : block(test_memory::Aligned64(size)) {}
  unsigned char *data() { return block.get(); }
  test_memory::AlignedBlock block;
};

constexpr uint64_t kInitial = 1000;

Filter NewGrowing(double fpr = 0.01, uint64_t initial = kInitial, uint64_t seed = 7) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = initial;
  o.fpr = fpr;
  o.seed = seed;
  o.growth = ABLOOM_DEFAULT_GROWTH;
  abloom_filter *f = nullptr;
  EXPECT_EQ(abloom_create(&o, &f), ABLOOM_OK);
  return Filter(f);
}

// This file's keys are 8-byte integers (capi_test's helpers take string keys): n of them, first,
// first + 1, ...
std::vector<uint64_t> IntegerKeys(size_t n, uint64_t first) {
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = first + i;
  return keys;
}

void AddIntegerKeys(abloom_filter *f, const std::vector<uint64_t> &keys) {
  for (uint64_t k : keys) ASSERT_EQ(abloom_add(f, &k, sizeof k), ABLOOM_OK);
}

abloom_info Info(const abloom_filter *f) {
  abloom_info info;
  abloom_info_init(&info);
  EXPECT_EQ(abloom_get_info(f, &info), ABLOOM_OK);
  return info;
}

// Every added key tests present, one at a time and in bulk (abloom_test_packed).
void ExpectIntegerKeysPresent(const abloom_filter *f, const std::vector<uint64_t> &keys) {
  for (uint64_t k : keys) ASSERT_EQ(abloom_test(f, &k, sizeof k), 1) << k;
  std::vector<uint8_t> results(keys.size());
  uint64_t found = 0;
  std::vector<uint64_t> offsets(keys.size() + 1);
  for (size_t i = 0; i <= keys.size(); ++i) offsets[i] = i * sizeof(uint64_t);
  ASSERT_EQ(abloom_test_packed(f, keys.data(), keys.size() * sizeof(uint64_t), offsets.data(),
                               keys.size(), results.data(), &found),
            ABLOOM_OK);
  EXPECT_EQ(found, keys.size());
}

TEST(CapiGrowing, GrowsPastItsFirstCapacityWithNoFalseNegativeAndTheFprHeld) {
  Filter f = NewGrowing();
  const std::vector<uint64_t> keys = IntegerKeys(100 * kInitial, 1);
  AddIntegerKeys(f.get(), keys);
  const abloom_info info = Info(f.get());
  EXPECT_GE(info.stages, 7u);  // 1000 * (2^7 - 1) >= 100000
  // Keys counted as new: each that a false positive made look present is not (under 1% of them).
  EXPECT_LE(info.keys, keys.size());
  EXPECT_GE(info.keys, keys.size() * 99 / 100);
  EXPECT_GE(info.capacity, keys.size());
  EXPECT_DOUBLE_EQ(info.growth, ABLOOM_DEFAULT_GROWTH);
  EXPECT_DOUBLE_EQ(info.target_fpr, 0.01);
  EXPECT_LT(info.expected_fpr, 0.01);
  EXPECT_EQ(info.growth_failed, 0u);
  ExpectIntegerKeysPresent(f.get(), keys);

  // 400000 absent keys: at 1% the count of false positives is Binomial(400000, p <= 0.01):
  // mean <= 4000, sd <= 63; 4000 + 4.5 sd bounds it.
  uint64_t fp = 0;
  for (uint64_t k = 1ull << 40; k < (1ull << 40) + 400000; ++k) fp += abloom_test(f.get(), &k, 8);
  EXPECT_LE(fp, 4285u);

  // Each stage: its capacity and its share of the target, and together the chain's.
  uint64_t keys_in_stages = 0, capacity = 0;
  for (uint32_t s = 0; s < info.stages; ++s) {
    abloom_info st;
    abloom_info_init(&st);
    ASSERT_EQ(abloom_get_stage_info(f.get(), s, &st), ABLOOM_OK);
    EXPECT_EQ(st.stages, info.stages);
    EXPECT_LT(st.target_fpr, 0.01);
    keys_in_stages += st.keys;
    capacity += st.capacity;
    if (s + 1 < info.stages) {
      EXPECT_GE(st.keys, st.capacity) << s;  // full before the next
    }
  }
  EXPECT_EQ(keys_in_stages, info.keys);
  EXPECT_EQ(capacity, info.capacity);
  abloom_info st;
  abloom_info_init(&st);
  EXPECT_EQ(abloom_get_stage_info(f.get(), info.stages, &st), ABLOOM_ERR_RANGE);
}

TEST(CapiGrowing, BulkAddsGrowAsSingleAddsDo) {
  Filter single = NewGrowing();
  Filter bulk = NewGrowing();
  const std::vector<uint64_t> keys = IntegerKeys(20 * kInitial, 100);
  AddIntegerKeys(single.get(), keys);
  uint64_t added = 0;
  ASSERT_EQ(abloom_add_hashes(bulk.get(), nullptr, 0, &added), ABLOOM_OK);
  std::vector<uint64_t> hashes(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(abloom_hash(bulk.get(), &keys[i], 8, &hashes[i]), ABLOOM_OK);
  }
  ASSERT_EQ(abloom_add_hashes(bulk.get(), hashes.data(), hashes.size(), &added), ABLOOM_OK);
  EXPECT_LE(added, keys.size());
  EXPECT_GE(added, keys.size() * 99 / 100);  // less the false positives (see above)
  ExpectIntegerKeysPresent(bulk.get(), keys);
  EXPECT_EQ(Info(bulk.get()).stages, Info(single.get()).stages);
  EXPECT_EQ(Info(bulk.get()).keys, added);
}

TEST(CapiGrowing, SerializeViewSaveAndOpenKeepEveryStage) {
  Filter f = NewGrowing();
  const std::vector<uint64_t> keys = IntegerKeys(10 * kInitial, 5);
  AddIntegerKeys(f.get(), keys);
  const uint32_t stages = Info(f.get()).stages;
  ASSERT_GE(stages, 3u);

  uint64_t size = 0;
  ASSERT_EQ(abloom_serialized_size(f.get(), &size), ABLOOM_OK);
  AlignedBytes bytes(size);
  size_t written = 0;
  EXPECT_EQ(abloom_serialize(f.get(), bytes.data(), size - 1, &written), ABLOOM_ERR_TOO_SMALL);
  ASSERT_EQ(abloom_serialize(f.get(), bytes.data(), size, &written), ABLOOM_OK);
  ASSERT_EQ(written, size);

  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_deserialize(bytes.data(), size, &raw), ABLOOM_OK);
  Filter copy(raw);
  EXPECT_EQ(abloom_equal(copy.get(), f.get()), 1);
  EXPECT_EQ(Info(copy.get()).keys, Info(f.get()).keys);
  ASSERT_EQ(abloom_view(bytes.data(), size, ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  Filter view(raw);
  EXPECT_EQ(abloom_equal(view.get(), f.get()), 1);
  EXPECT_EQ(Info(view.get()).storage, static_cast<uint32_t>(ABLOOM_STORAGE_VIEW));
  uint64_t k = 1;
  EXPECT_EQ(abloom_add(view.get(), &k, 8), ABLOOM_ERR_READONLY);
  ExpectIntegerKeysPresent(view.get(), keys);

  capi_test::TempDir dir;
  const std::string path = dir / "g.abloom";
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  EXPECT_EQ(capi_test::ReadAll(path).size(), size);
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    ASSERT_EQ(abloom_open(path.c_str(), flags, &raw), ABLOOM_OK);
    Filter opened(raw);
    EXPECT_EQ(abloom_equal(opened.get(), f.get()), 1);
    EXPECT_EQ(Info(opened.get()).storage, static_cast<uint32_t>(ABLOOM_STORAGE_MAPPED));
    EXPECT_EQ(abloom_add(opened.get(), &k, 8), ABLOOM_ERR_READONLY);
    ExpectIntegerKeysPresent(opened.get(), keys);
  }
  // Copy-on-write: adds work, grow the chain past the file's stages, and never reach the file.
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_COPY_ON_WRITE, &raw), ABLOOM_OK);
  Filter cow(raw);
  const std::vector<uint64_t> more = IntegerKeys(20 * kInitial, 1u << 30);
  AddIntegerKeys(cow.get(), more);
  EXPECT_GT(Info(cow.get()).stages, stages);
  ExpectIntegerKeysPresent(cow.get(), keys);
  ExpectIntegerKeysPresent(cow.get(), more);
  ASSERT_EQ(abloom_open(path.c_str(), 0, &raw), ABLOOM_OK);
  Filter again(raw);
  EXPECT_EQ(abloom_equal(again.get(), f.get()), 1);
  // A sealed chain needs no seal: its checksums verify, nothing is written.
  EXPECT_EQ(abloom_seal(path.c_str()), ABLOOM_OK);
  EXPECT_EQ(capi_test::ReadAll(path).size(), size);
}

// The stages of a chain built in memory from the same keys, in the same order: the bytes a
// read-write file must hold once sealed.
capi_test::Bytes BytesOfChainWith(const std::vector<std::vector<uint64_t>> &runs) {
  Filter ref = NewGrowing();
  for (const auto &run : runs) AddIntegerKeys(ref.get(), run);
  uint64_t size = 0;
  EXPECT_EQ(abloom_serialized_size(ref.get(), &size), ABLOOM_OK);
  capi_test::Bytes b(size);
  EXPECT_EQ(abloom_serialize(ref.get(), b.data(), b.size(), nullptr), ABLOOM_OK);
  return b;
}

TEST(CapiGrowing, ReadWriteOpenGrowsTheFileInPlace) {
  const std::vector<uint64_t> first = IntegerKeys(2 * kInitial, 1);
  const std::vector<uint64_t> more = IntegerKeys(40 * kInitial, 1u << 30);
  capi_test::TempDir dir;
  const std::string path = dir / "g.abloom";
  {
    Filter f = NewGrowing();
    AddIntegerKeys(f.get(), first);
    ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  }
  const uint32_t saved_stages = 2;  // 2000 keys: stages of 1000 and 2000
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE | ABLOOM_VERIFY_CHECKSUM, &raw),
            ABLOOM_OK);
  {
    Filter rw(raw);
    EXPECT_EQ(Info(rw.get()).stages, saved_stages);
    EXPECT_EQ(Info(rw.get()).storage, static_cast<uint32_t>(ABLOOM_STORAGE_MAPPED));
    EXPECT_EQ(Info(rw.get()).read_only, 0u);
    // While the handle may write, the file is stale: a verifying reader says so.
    EXPECT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_ERR_STALE);
    AddIntegerKeys(rw.get(), more);
    const uint32_t grown = Info(rw.get()).stages;
    EXPECT_GE(grown, 6u);  // 42,000 keys: 1000 + 2000 + ... + 32000 = 63,000 >= 42,000 > 31,000
    ExpectIntegerKeysPresent(rw.get(), first);
    ExpectIntegerKeysPresent(rw.get(), more);
    ASSERT_EQ(abloom_sync(rw.get()), ABLOOM_OK);
    // Another handle on the file sees every stage the writer appended, and every key.
    ASSERT_EQ(abloom_open(path.c_str(), 0, &raw), ABLOOM_OK);
    Filter reader(raw);
    EXPECT_EQ(Info(reader.get()).stages, grown);
    EXPECT_EQ(abloom_equal(reader.get(), rw.get()), 1);
    ExpectIntegerKeysPresent(reader.get(), more);
    EXPECT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_ERR_STALE);
  }
  // Freed: sealed, and byte for byte the chain the same keys make in memory.
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  Filter sealed(raw);
  ExpectIntegerKeysPresent(sealed.get(), first);
  ExpectIntegerKeysPresent(sealed.get(), more);
  EXPECT_TRUE(capi_test::ReadAll(path) == BytesOfChainWith({first, more}));
}

// What a writer killed after a sync leaves: every stage stale, the chain whole. abloom_seal
// seals it, and every key added before the sync is there; so is every key added after it
// that reached the file (here all: a copy of the file taken while the writer still runs).
TEST(CapiGrowing, AStaleChainIsSealed) {
  const std::vector<uint64_t> first = IntegerKeys(kInitial, 1);
  const std::vector<uint64_t> synced = IntegerKeys(6 * kInitial, 1u << 30);
  const std::vector<uint64_t> after = IntegerKeys(10 * kInitial, 1u << 31);
  capi_test::TempDir dir;
  const std::string path = dir / "g.abloom", left = dir / "left.abloom",
                    later = dir / "later.abloom";
  {
    Filter f = NewGrowing();
    AddIntegerKeys(f.get(), first);
    ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  }
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, &raw), ABLOOM_OK);
  Filter rw(raw);
  AddIntegerKeys(rw.get(), synced);
  ASSERT_EQ(abloom_sync(rw.get()), ABLOOM_OK);
  capi_test::WriteFile(left, capi_test::ReadAll(path));
  AddIntegerKeys(rw.get(), after);  // appends stages past the sync
  capi_test::WriteFile(later, capi_test::ReadAll(path));
  for (const std::string &p : {left, later}) {
    SCOPED_TRACE(p);
    EXPECT_EQ(abloom_open(p.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_ERR_STALE);
    ASSERT_EQ(abloom_open(p.c_str(), 0, &raw), ABLOOM_OK);  // readable without the check
    abloom_free(raw);
    ASSERT_EQ(abloom_seal(p.c_str()), ABLOOM_OK);
    ASSERT_EQ(abloom_open(p.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
    Filter sealed(raw);
    ExpectIntegerKeysPresent(sealed.get(), first);
    ExpectIntegerKeysPresent(sealed.get(), synced);
    if (p == later) ExpectIntegerKeysPresent(sealed.get(), after);
  }
  EXPECT_TRUE(capi_test::ReadAll(left) == BytesOfChainWith({first, synced}));
}

abloom_info StageInfo(const abloom_filter *f, uint32_t stage) {
  abloom_info info;
  abloom_info_init(&info);
  EXPECT_EQ(abloom_get_stage_info(f, stage, &info), ABLOOM_OK);
  return info;
}

capi_test::Bytes Joined(const capi_test::Bytes &head, const capi_test::Bytes &tail) {
  capi_test::Bytes out = head;
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

// What a writer killed while it appends a stage leaves (capi/abloom.h, "Serialization"): the file
// one stage longer than its header says, that stage's bytes zeros (killed once the file grew) or
// its stale header (killed once that was written), and no key in them. Readers take the chain
// the header names; abloom_seal adopts the stage, and so does a read-write open, which then goes
// on growing. Any other length is refused, and so is a sealed file with those bytes.
TEST(CapiGrowing, AKilledAppendLeavesTheChainItsHeaderNames) {
  capi_test::TempDir dir;
  const std::string path = dir / "g.abloom", image = dir / "image.abloom";
  {
    Filter f = NewGrowing();
    ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  }
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, &raw), ABLOOM_OK);
  Filter rw(raw);
  // Stage 0 filled to one key short of its capacity (`before`: the file with one stage), then
  // keys until one is new and the chain appends stage 1 (`after`: two stages, the second empty).
  std::vector<uint64_t> keys;
  uint64_t next = 1;
  const uint64_t capacity = StageInfo(rw.get(), 0).capacity;
  while (StageInfo(rw.get(), 0).keys + 1 < capacity) {
    keys.push_back(next++);
    ASSERT_EQ(abloom_add(rw.get(), &keys.back(), sizeof(uint64_t)), ABLOOM_OK);
  }
  const capi_test::Bytes before = capi_test::ReadAll(path);
  while (Info(rw.get()).stages == 1) {
    const uint64_t k = next++;
    ASSERT_EQ(abloom_add(rw.get(), &k, sizeof k), ABLOOM_OK);
  }
  const capi_test::Bytes after = capi_test::ReadAll(path);
  ASSERT_GT(after.size(), before.size());
  const size_t stage_bytes = after.size() - before.size();
  const capi_test::Bytes killed_after_growth = Joined(before, capi_test::Bytes(stage_bytes, 0));
  const capi_test::Bytes killed_after_stage_header = Joined(
      before,
      capi_test::Bytes(after.begin() + static_cast<std::ptrdiff_t>(before.size()), after.end()));
  ASSERT_TRUE(killed_after_stage_header != killed_after_growth);  // the stage's header is there

  for (const capi_test::Bytes *left : {&killed_after_growth, &killed_after_stage_header}) {
    SCOPED_TRACE(left == &killed_after_growth ? "killed after the growth"
                                              : "killed after the stage's header");
    capi_test::WriteFile(image, *left);
    EXPECT_EQ(abloom_open(image.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_ERR_STALE);
    ASSERT_EQ(abloom_open(image.c_str(), 0, &raw), ABLOOM_OK);
    {
      Filter reader(raw);
      EXPECT_EQ(Info(reader.get()).stages, 1u);
      ExpectIntegerKeysPresent(reader.get(), keys);
    }
    ASSERT_EQ(abloom_seal(image.c_str()), ABLOOM_OK);
    EXPECT_EQ(capi_test::ReadAll(image).size(), after.size());
    ASSERT_EQ(abloom_open(image.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
    Filter sealed(raw);
    EXPECT_EQ(Info(sealed.get()).stages, 2u);  // the stage adopted, empty
    EXPECT_EQ(StageInfo(sealed.get(), 1).keys, 0u);
    ExpectIntegerKeysPresent(sealed.get(), keys);
  }

  // A read-write open adopts the stage too, and the chain goes on growing from there.
  capi_test::WriteFile(image, killed_after_growth);
  const std::vector<uint64_t> more = IntegerKeys(20 * kInitial, uint64_t{1} << 32);
  ASSERT_EQ(abloom_open(image.c_str(), ABLOOM_OPEN_READ_WRITE, &raw), ABLOOM_OK);
  {
    Filter adopted(raw);
    EXPECT_EQ(Info(adopted.get()).stages, 2u);
    EXPECT_EQ(capi_test::ReadAll(image).size(), after.size());
    AddIntegerKeys(adopted.get(), more);
    EXPECT_GE(Info(adopted.get()).stages, 5u);  // 1000 + 2000 + 4000 + 8000 < 21,000 keys
  }
  ASSERT_EQ(abloom_open(image.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  {
    Filter sealed(raw);
    ExpectIntegerKeysPresent(sealed.get(), keys);
    ExpectIntegerKeysPresent(sealed.get(), more);
  }

  // Any other length past the header's total is refused, and so are those bytes after a sealed
  // chain (no writer's file), all without a change to the file.
  capi_test::WriteFile(image, before);
  ASSERT_EQ(abloom_seal(image.c_str()), ABLOOM_OK);
  const capi_test::Bytes sealed_before = capi_test::ReadAll(image);
  const capi_test::Bytes refused[] = {
      Joined(before, capi_test::Bytes(stage_bytes - 64, 0)),
      Joined(before, capi_test::Bytes(stage_bytes + 64, 0)),
      Joined(before, capi_test::Bytes(1, 0)),
      Joined(sealed_before, capi_test::Bytes(stage_bytes, 0)),
  };
  for (const capi_test::Bytes &bytes : refused) {
    SCOPED_TRACE("length " + std::to_string(bytes.size()));
    capi_test::WriteFile(image, bytes);
    EXPECT_EQ(abloom_open(image.c_str(), 0, &raw), ABLOOM_ERR_CORRUPT);
    EXPECT_EQ(abloom_seal(image.c_str()), ABLOOM_ERR_CORRUPT);
    EXPECT_EQ(abloom_open(image.c_str(), ABLOOM_OPEN_READ_WRITE, &raw), ABLOOM_ERR_CORRUPT);
    EXPECT_TRUE(capi_test::ReadAll(image) == bytes);
  }
}

TEST(CapiGrowing, ReadWriteOpenOfTheFirstFormIsRefused) {
  // The first chains' table has no place for another stage: refused, the file untouched.
  capi_test::TempDir dir;
  const std::string path = dir / "first.abloom";
  const capi_test::Bytes first =
      capi_test::ReadAll(std::string(ABLOOM_VECTORS_DIR) + "/first-written/growing_s1.abloom");
  capi_test::WriteFile(path, first);
  abloom_filter *raw = nullptr;
  EXPECT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, &raw), ABLOOM_ERR_UNSUPPORTED);
  EXPECT_TRUE(capi_test::ReadAll(path) == first);
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  abloom_free(raw);
}

TEST(CapiGrowing, EightThreadsGrowAReadWriteFile) {
  capi_test::TempDir dir;
  const std::string path = dir / "g.abloom";
  {
    Filter f = NewGrowing(0.01, 256);
    ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  }
  constexpr int kThreads = 8;
  constexpr uint64_t kPerThread = 4000;
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, &raw), ABLOOM_OK);
  {
    Filter rw(raw);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&rw, t] {
        for (uint64_t k : IntegerKeys(kPerThread, (uint64_t{1} << 32) * (t + 1))) {
          EXPECT_EQ(abloom_add(rw.get(), &k, sizeof k), ABLOOM_OK);
          EXPECT_EQ(abloom_test(rw.get(), &k, sizeof k), 1);
        }
      });
    }
    for (std::thread &t : threads) t.join();
    EXPECT_GE(Info(rw.get()).stages, 7u);  // 256 * (2^7 - 1) < 32000 keys
  }
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  Filter sealed(raw);
  EXPECT_GE(Info(sealed.get()).stages, 7u);
  for (int t = 0; t < kThreads; ++t)
    ExpectIntegerKeysPresent(sealed.get(), IntegerKeys(kPerThread, (uint64_t{1} << 32) * (t + 1)));
}

TEST(CapiGrowing, DamagedChainsAreRefused) {
  Filter f = NewGrowing();
  AddIntegerKeys(f.get(), IntegerKeys(5 * kInitial, 9));
  uint64_t size = 0;
  ASSERT_EQ(abloom_serialized_size(f.get(), &size), ABLOOM_OK);
  AlignedBytes good(size);
  ASSERT_EQ(abloom_serialize(f.get(), good.data(), size, nullptr), ABLOOM_OK);
  abloom_filter *raw = nullptr;
  // Truncated anywhere.
  for (uint64_t len : {uint64_t{0}, uint64_t{64}, uint64_t{128}, size / 2, size - 1}) {
    EXPECT_NE(abloom_deserialize(good.data(), len, &raw), ABLOOM_OK) << len;
    EXPECT_NE(abloom_view(good.data(), len, 0, &raw), ABLOOM_OK) << len;
  }
  // One bit of the last stage's body flipped: its checksum catches it.
  AlignedBytes bad(size);
  std::memcpy(bad.data(), good.data(), size);
  bad.data()[size - 1] ^= 1;
  EXPECT_EQ(abloom_deserialize(bad.data(), size, &raw), ABLOOM_ERR_CHECKSUM);
  EXPECT_EQ(abloom_view(bad.data(), size, ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_ERR_CHECKSUM);
  // A stage count past the table the bytes hold: the chain header's checksum no longer matches.
  std::memcpy(bad.data(), good.data(), size);
  bad.data()[72] = static_cast<unsigned char>(bad.data()[72] + 1);
  EXPECT_EQ(abloom_deserialize(bad.data(), size, &raw), ABLOOM_ERR_CORRUPT);
  // Stage 0's body damaged and the last stage's header too: every reader, verifying or not,
  // gives the structural error, which is checked for every stage before any checksum.
  std::memcpy(bad.data(), good.data(), size);
  const uint32_t stages = Info(f.get()).stages;
  ASSERT_GE(stages, 3u);
  const unsigned char *table = good.data() + 128;
  const auto offset_of = [&](uint32_t s) {
    uint64_t v = 0;
    for (int b = 7; b >= 0; --b) v = v << 8 | table[32 * s + b];
    return v;
  };
  bad.data()[offset_of(0) + 128 + 3] ^= 0x40;    // a body bit of stage 0
  bad.data()[offset_of(stages - 1) + 120] ^= 1;  // the last stage's header checksum
  EXPECT_EQ(abloom_deserialize(bad.data(), size, &raw), ABLOOM_ERR_CORRUPT);
  EXPECT_EQ(abloom_view(bad.data(), size, ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_ERR_CORRUPT);
  EXPECT_EQ(abloom_view(bad.data(), size, 0, &raw), ABLOOM_ERR_CORRUPT);
  // Misaligned views.
  EXPECT_EQ(abloom_view(good.data() + 1, size - 1, 0, &raw), ABLOOM_ERR_ALIGNMENT);
}

TEST(CapiGrowing, CallsThatCannotWorkOnAChainSaySo) {
  Filter g = NewGrowing();
  Filter h = NewGrowing(0.001);
  Filter fixed(nullptr);
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_new(kInitial, 0.01, &raw), ABLOOM_OK);
  fixed.reset(raw);
  EXPECT_EQ(abloom_union(g.get(), fixed.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_union(fixed.get(), g.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_union(g.get(), h.get()), ABLOOM_ERR_MISMATCH);
  EXPECT_EQ(abloom_intersect(g.get(), g.get()), ABLOOM_ERR_UNSUPPORTED);
  EXPECT_EQ(abloom_equal(g.get(), fixed.get()), 0);
  abloom_memory mem;
  abloom_memory_init(&mem);
  EXPECT_EQ(abloom_get_memory(g.get(), &mem), ABLOOM_ERR_UNSUPPORTED);
  uint64_t *const *shards = nullptr;
  EXPECT_EQ(abloom_get_writable_shards(g.get(), &shards), ABLOOM_ERR_UNSUPPORTED);
  // Bad options: growth outside (1, ABLOOM_MAX_GROWTH], NaN, bits or k set.
  for (double growth : {1.0, 0.5, -2.0, ABLOOM_MAX_GROWTH * 2, std::nan("")}) {
    abloom_options o;
    abloom_options_init(&o);
    o.growth = growth;
    EXPECT_EQ(abloom_create(&o, &raw), ABLOOM_ERR_INVALID) << growth;
  }
  abloom_options o;
  abloom_options_init(&o);
  o.growth = 2;
  o.k = 3;
  EXPECT_EQ(abloom_create(&o, &raw), ABLOOM_ERR_INVALID);
  o.k = 0;
  o.fpr = 1.0;
  EXPECT_EQ(abloom_create(&o, &raw), ABLOOM_ERR_INVALID);
  // No capacity: the default first stage.
  o.fpr = 0.01;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  Filter dflt(raw);
  abloom_info st;
  abloom_info_init(&st);
  ASSERT_EQ(abloom_get_stage_info(dflt.get(), 0, &st), ABLOOM_OK);
  EXPECT_EQ(st.capacity, ABLOOM_DEFAULT_INITIAL_CAPACITY);
}

TEST(CapiGrowing, StageInfoChecksItsArgumentsAndOlderStructs) {
  Filter g = NewGrowing();
  AddIntegerKeys(g.get(), IntegerKeys(3 * kInitial, 1));
  abloom_info st;
  abloom_info_init(&st);
  EXPECT_EQ(abloom_get_stage_info(nullptr, 0, &st), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_get_stage_info(g.get(), 0, nullptr), ABLOOM_ERR_NULL);
  st.struct_size = sizeof(abloom_info) + 8;
  EXPECT_EQ(abloom_get_stage_info(g.get(), 0, &st), ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_get_info(g.get(), &st), ABLOOM_ERR_INVALID);
  // A caller built with the second struct (it ends before `stages`): nothing past it is written.
  const size_t v2 = offsetof(abloom_info, stages) + 4;
  for (int which = 0; which < 2; ++which) {
    std::vector<unsigned char> buf(sizeof(abloom_info), 0xAB);
    abloom_info *old = reinterpret_cast<abloom_info *>(buf.data());
    old->struct_size = v2;
    EXPECT_EQ(which == 0 ? abloom_get_info(g.get(), old) : abloom_get_stage_info(g.get(), 1, old),
              ABLOOM_OK);
    for (size_t i = v2; i < buf.size(); ++i) ASSERT_EQ(buf[i], 0xAB) << "byte " << i;
  }
  // A fixed filter is its own stage 0, and has no stage 1.
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_new(kInitial, 0.01, &raw), ABLOOM_OK);
  Filter fixed(raw);
  abloom_info_init(&st);
  ASSERT_EQ(abloom_get_stage_info(fixed.get(), 0, &st), ABLOOM_OK);
  EXPECT_EQ(st.stages, 1u);
  EXPECT_EQ(st.growth, 0.0);
  EXPECT_EQ(st.capacity, kInitial);
  EXPECT_EQ(abloom_get_stage_info(fixed.get(), 1, &st), ABLOOM_ERR_RANGE);
}

TEST(CapiGrowing, FootprintSaysWhatAChainReaches) {
  abloom_options o;
  abloom_options_init(&o);
  o.growth = 2;
  o.capacity = kInitial;
  uint32_t stages = 0;
  uint64_t bytes = 0;
  double bound = 0;
  // 1000 * (2^7 - 1) = 127000 >= 100000 > 1000 * (2^6 - 1): seven stages, as the filter grows.
  ASSERT_EQ(abloom_growth_footprint(&o, 100 * kInitial, &stages, &bytes, &bound), ABLOOM_OK);
  EXPECT_EQ(stages, 7u);
  EXPECT_LT(bound, 0.01);
  EXPECT_GT(bound, 0.0);
  Filter f = NewGrowing();
  AddIntegerKeys(f.get(), IntegerKeys(100 * kInitial, 1));
  EXPECT_EQ(Info(f.get()).stages, stages);
  EXPECT_EQ(Info(f.get()).bytes, bytes);
  EXPECT_DOUBLE_EQ(Info(f.get()).expected_fpr, bound);
  ASSERT_EQ(abloom_growth_footprint(&o, 1, nullptr, nullptr, nullptr), ABLOOM_OK);
  EXPECT_EQ(abloom_growth_footprint(nullptr, 1, &stages, &bytes, &bound), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_growth_footprint(&o, 0, &stages, &bytes, &bound), ABLOOM_ERR_INVALID);
  o.growth = 0;  // a fixed filter's options
  EXPECT_EQ(abloom_growth_footprint(&o, 1, &stages, &bytes, &bound), ABLOOM_ERR_INVALID);
  o.growth = 2;
  o.fpr = 0;
  EXPECT_EQ(abloom_growth_footprint(&o, 1, &stages, &bytes, &bound), ABLOOM_ERR_INVALID);
  o.fpr = 0.01;
  EXPECT_EQ(abloom_growth_footprint(&o, UINT64_MAX, &stages, &bytes, &bound), ABLOOM_ERR_RANGE);
}

// Eight threads add at once, single keys and bulk batches, while the chain grows: every key is
// found after, in no stage twice appended (one stage per slot), and the counts add up to at most
// the keys. Its name puts it in the TSan stage (tsan-ctest selects Concurren).
TEST(CapiGrowing, ConcurrentAddsFromEightThreadsGrowTheChain) {
  Filter f = NewGrowing(0.01, 256);
  constexpr int kThreads = 8;
  constexpr uint64_t kPerThread = 6000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&f, t] {
      const std::vector<uint64_t> keys = IntegerKeys(kPerThread, (uint64_t{1} << 32) * (t + 1));
      if (t % 2 == 0) {
        for (uint64_t k : keys) EXPECT_EQ(abloom_add(f.get(), &k, sizeof k), ABLOOM_OK);
      } else {
        std::vector<uint64_t> offsets(501);
        for (size_t i = 0; i <= 500; ++i) offsets[i] = i * 8;
        for (size_t at = 0; at < keys.size(); at += 500) {
          EXPECT_EQ(
              abloom_add_packed(f.get(), keys.data() + at, 500 * 8, offsets.data(), 500, nullptr),
              ABLOOM_OK);
        }
      }
      for (uint64_t k : keys) EXPECT_EQ(abloom_test(f.get(), &k, sizeof k), 1);
    });
  }
  for (std::thread &t : threads) t.join();
  const abloom_info info = Info(f.get());
  EXPECT_GE(info.stages, 7u);                   // 256 * (2^7 - 1) < 48000 keys
  EXPECT_LE(info.keys, kThreads * kPerThread);  // distinct keys: each counted once at most
  EXPECT_GE(info.keys, kThreads * kPerThread * 99 / 100);
  for (int t = 0; t < kThreads; ++t)
    ExpectIntegerKeysPresent(f.get(), IntegerKeys(kPerThread, (uint64_t{1} << 32) * (t + 1)));
}

TEST(CapiGrowing, UnionCloneAndClearWorkStageByStage) {
  Filter a = NewGrowing();
  Filter b = NewGrowing();
  const std::vector<uint64_t> ka = IntegerKeys(3 * kInitial, 1),
                              kb = IntegerKeys(9 * kInitial, 1u << 20);
  AddIntegerKeys(a.get(), ka);
  AddIntegerKeys(b.get(), kb);
  ASSERT_EQ(abloom_union(a.get(), b.get()), ABLOOM_OK);
  EXPECT_GE(Info(a.get()).stages, Info(b.get()).stages);
  // With itself: nothing changes, the counts of new keys included.
  const abloom_info before = Info(a.get());
  abloom_filter *same = nullptr;
  ASSERT_EQ(abloom_clone(a.get(), &same), ABLOOM_OK);
  const Filter snapshot(same);
  ASSERT_EQ(abloom_union(a.get(), a.get()), ABLOOM_OK);
  EXPECT_EQ(Info(a.get()).keys, before.keys);
  EXPECT_EQ(Info(a.get()).stages, before.stages);
  EXPECT_EQ(abloom_equal(a.get(), snapshot.get()), 1);
  ExpectIntegerKeysPresent(a.get(), ka);
  ExpectIntegerKeysPresent(a.get(), kb);
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_clone(a.get(), &raw), ABLOOM_OK);
  Filter c(raw);
  EXPECT_EQ(abloom_equal(c.get(), a.get()), 1);
  ASSERT_EQ(abloom_clear(c.get()), ABLOOM_OK);
  EXPECT_EQ(Info(c.get()).keys, 0u);
  EXPECT_EQ(abloom_equal(c.get(), a.get()), 0);
  double count = -1;
  ASSERT_EQ(abloom_estimate_count(c.get(), &count), ABLOOM_OK);
  EXPECT_EQ(count, 0.0);
  ASSERT_EQ(abloom_estimate_count(a.get(), &count), ABLOOM_OK);
  EXPECT_NEAR(count, static_cast<double>(ka.size() + kb.size()), 0.05 * (ka.size() + kb.size()));
}

}  // namespace

namespace {

// abloom_test_and_add_many on `batch` gives the answers, the count and the bits of n calls of
// abloom_test_and_add on a copy of the filter.
void ExpectSameAsOneByOne(abloom_filter *f, const std::vector<uint64_t> &batch) {
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_clone(f, &raw), ABLOOM_OK);
  const Filter twin(raw);
  std::vector<const void *> ptrs;
  std::vector<size_t> lens(batch.size(), sizeof(uint64_t));
  for (const uint64_t &k : batch) ptrs.push_back(&k);
  std::vector<uint8_t> results(batch.size(), 7);
  uint64_t added = 0;
  ASSERT_EQ(
      abloom_test_and_add_many(f, ptrs.data(), lens.data(), batch.size(), results.data(), &added),
      ABLOOM_OK);
  uint64_t fresh = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const int one = abloom_test_and_add(twin.get(), &batch[i], sizeof batch[i]);
    ASSERT_EQ(results[i], one) << i;
    fresh += one == 0 ? 1 : 0;
  }
  EXPECT_EQ(added, fresh);
  EXPECT_EQ(abloom_equal(f, twin.get()), 1);
  EXPECT_EQ(Info(f).keys, Info(twin.get()).keys);
}

}  // namespace

// A batch with repeats of its own keys and of earlier ones, across stage boundaries: as one key
// at a time, for a growing and a fixed filter.
TEST(CapiGrowing, TestAndAddManyAnswersAsOneKeyAtATime) {
  Filter g = NewGrowing();
  AddIntegerKeys(g.get(), IntegerKeys(500, 1));
  // Half of the first 500 added before.
  std::vector<uint64_t> batch = IntegerKeys(20 * kInitial, 300);
  for (size_t i = 0; i < batch.size(); i += 7) batch[i] = batch[i / 2];  // repeats in the batch
  const uint32_t before = Info(g.get()).stages;
  ExpectSameAsOneByOne(g.get(), batch);
  EXPECT_GT(Info(g.get()).stages, before + 2) << "the batch crossed stage boundaries";

  abloom_options o;
  abloom_options_init(&o);
  o.capacity = 20 * kInitial;
  o.fpr = 0.01;
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  const Filter fixed(raw);
  AddIntegerKeys(fixed.get(), IntegerKeys(500, 1));
  ExpectSameAsOneByOne(fixed.get(), batch);

  // Errors: nothing added.
  const void *key = batch.data();
  const size_t len = sizeof(uint64_t);
  uint8_t result = 0;
  EXPECT_EQ(abloom_test_and_add_many(nullptr, &key, &len, 1, &result, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_and_add_many(g.get(), &key, &len, 1, nullptr, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_and_add_many(g.get(), nullptr, &len, 1, &result, nullptr), ABLOOM_ERR_NULL);
  EXPECT_EQ(abloom_test_and_add_many(g.get(), nullptr, nullptr, 0, nullptr, nullptr), ABLOOM_OK);
  uint64_t size = 0;
  ASSERT_EQ(abloom_serialized_size(g.get(), &size), ABLOOM_OK);
  AlignedBytes bytes(size);
  ASSERT_EQ(abloom_serialize(g.get(), bytes.data(), size, nullptr), ABLOOM_OK);
  ASSERT_EQ(abloom_view(bytes.data(), size, 0, &raw), ABLOOM_OK);
  const Filter view(raw);
  const uint64_t fresh_key = ~uint64_t{0};
  const void *fresh_ptr = &fresh_key;
  EXPECT_EQ(abloom_test_and_add_many(view.get(), &fresh_ptr, &len, 1, &result, nullptr),
            ABLOOM_ERR_READONLY);
  EXPECT_EQ(abloom_test(view.get(), &fresh_key, sizeof fresh_key), 0);
}

namespace {

// A batch in the packed form: key i is buf[offsets[i] .. offsets[i + 1]).
struct PackedBatch {
  std::vector<unsigned char> buf;
  std::vector<uint64_t> offsets{0};
  void push(const void *key, size_t len) {
    const auto *p = static_cast<const unsigned char *>(key);
    buf.insert(buf.end(), p, p + len);
    offsets.push_back(buf.size());
  }
  size_t size() const { return offsets.size() - 1; }
  const void *key(size_t i) const { return buf.data() + offsets[i]; }
  size_t len(size_t i) const { return offsets[i + 1] - offsets[i]; }
};

// Keys of 1 to 24 bytes (each integer's low bytes, its length varying), so that the batch takes
// the packed form, not the one-length form.
PackedBatch VaryingLengthBatch(const std::vector<uint64_t> &ints) {
  PackedBatch b;
  for (uint64_t k : ints) {
    unsigned char bytes[24] = {};
    for (size_t j = 0; j < 24; ++j) bytes[j] = static_cast<unsigned char>(k >> (8 * (j % 8)));
    b.push(bytes, 1 + k % 24);
  }
  return b;
}

PackedBatch SameLengthBatch(const std::vector<uint64_t> &ints) {
  PackedBatch b;
  for (const uint64_t &k : ints) b.push(&k, sizeof k);
  return b;
}

Filter CloneOf(const abloom_filter *f) {
  abloom_filter *raw = nullptr;
  EXPECT_EQ(abloom_clone(f, &raw), ABLOOM_OK);
  return Filter(raw);
}

// abloom_test_and_add_packed on `batch` gives the answers, the count and the bits of n calls of
// abloom_test_and_add on a copy of the filter; abloom_test_and_add_hashes of the keys' hashes does
// too, on another copy.
void ExpectPackedSameAsOneByOne(abloom_filter *f, const PackedBatch &batch) {
  const Filter twin = CloneOf(f);
  const Filter hashed = CloneOf(f);
  const size_t n = batch.size();
  std::vector<uint8_t> results(n, 7);
  uint64_t added = 0;
  ASSERT_EQ(abloom_test_and_add_packed(f, batch.buf.data(), batch.buf.size(), batch.offsets.data(),
                                       n, results.data(), &added),
            ABLOOM_OK);
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(abloom_hash(f, batch.key(i), batch.len(i), &hashes[i]), ABLOOM_OK);
  }
  std::vector<uint8_t> hash_results(n, 7);
  uint64_t hash_added = 0;
  ASSERT_EQ(
      abloom_test_and_add_hashes(hashed.get(), hashes.data(), n, hash_results.data(), &hash_added),
      ABLOOM_OK);
  uint64_t fresh = 0, repeats = 0;
  for (size_t i = 0; i < n; ++i) {
    const int one = abloom_test_and_add(twin.get(), batch.key(i), batch.len(i));
    ASSERT_EQ(results[i], one) << i;
    ASSERT_EQ(hash_results[i], one) << i;
    fresh += one == 0 ? 1 : 0;
    repeats += one == 1 ? 1 : 0;
  }
  EXPECT_GT(fresh, 0u);
  EXPECT_GT(repeats, 0u);
  EXPECT_EQ(added, fresh);
  EXPECT_EQ(hash_added, fresh);
  EXPECT_EQ(abloom_equal(f, twin.get()), 1);
  EXPECT_EQ(abloom_equal(hashed.get(), twin.get()), 1);
  EXPECT_EQ(Info(f).keys, Info(twin.get()).keys);
  EXPECT_EQ(Info(f).stages, Info(twin.get()).stages);
}

// A batch of 20 * kInitial keys: the last 500 of the 500 added before it, repeats of its own
// earlier keys (every 7th key) and of the key just before it (every 11th).
std::vector<uint64_t> BatchWithRepeats() {
  std::vector<uint64_t> batch = IntegerKeys(20 * kInitial, 300);
  for (size_t i = 0; i < batch.size(); i += 7) batch[i] = batch[i / 2];
  for (size_t i = 1; i < batch.size(); i += 11) batch[i] = batch[i - 1];
  return batch;
}

Filter NewFixed(uint64_t capacity) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = capacity;
  o.fpr = 0.01;
  o.seed = 11;
  abloom_filter *raw = nullptr;
  EXPECT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  return Filter(raw);
}

}  // namespace

// The packed and hash forms of test-and-add: as one key at a time, for a growing filter (the batch
// crossing stage boundaries) and a fixed one, with keys of one length and of varying lengths.
TEST(CapiGrowing, TestAndAddPackedAndHashesAnswerAsOneKeyAtATime) {
  const std::vector<uint64_t> ints = BatchWithRepeats();
  for (const bool same_length : {true, false}) {
    SCOPED_TRACE(same_length ? "keys of one length" : "keys of varying lengths");
    PackedBatch (*const make)(const std::vector<uint64_t> &) =
        same_length ? SameLengthBatch : VaryingLengthBatch;
    const PackedBatch batch = make(ints);
    const PackedBatch before = make(IntegerKeys(500, 1));

    Filter g = NewGrowing();
    ASSERT_EQ(abloom_add_packed(g.get(), before.buf.data(), before.buf.size(),
                                before.offsets.data(), before.size(), nullptr),
              ABLOOM_OK);
    const uint32_t stages = Info(g.get()).stages;
    ExpectPackedSameAsOneByOne(g.get(), batch);
    EXPECT_GT(Info(g.get()).stages, stages + 2) << "the batch crossed stage boundaries";
    // A second batch: a key of the first and a new one.
    ExpectPackedSameAsOneByOne(g.get(), make({ints[0], uint64_t{5'000'000}}));

    Filter fixed = NewFixed(20 * kInitial);
    ASSERT_EQ(abloom_add_packed(fixed.get(), before.buf.data(), before.buf.size(),
                                before.offsets.data(), before.size(), nullptr),
              ABLOOM_OK);
    ExpectPackedSameAsOneByOne(fixed.get(), batch);
  }
}

// A stage boundary inside a small batch: a growing filter one key short of its first stage's
// capacity takes a batch whose keys go on into the next stage, its last keys repeating ones that
// went to each stage.
TEST(CapiGrowing, TestAndAddPackedAcrossOneStageBoundary) {
  Filter g = NewGrowing(0.01, 100);
  uint64_t added = 0;
  const PackedBatch first = SameLengthBatch(IntegerKeys(99, 1));
  ASSERT_EQ(abloom_add_packed(g.get(), first.buf.data(), first.buf.size(), first.offsets.data(),
                              first.size(), &added),
            ABLOOM_OK);
  ASSERT_EQ(Info(g.get()).stages, 1u);
  std::vector<uint64_t> ints = IntegerKeys(40, 1000);
  for (const uint64_t k : {uint64_t{1000}, uint64_t{1039}, uint64_t{50}, uint64_t{1001}}) {
    ints.push_back(k);
  }
  ExpectPackedSameAsOneByOne(g.get(), SameLengthBatch(ints));
  EXPECT_EQ(Info(g.get()).stages, 2u);
}

// Errors of the packed and hash forms: each leaves the filter as it was.
TEST(CapiGrowing, TestAndAddPackedAndHashesRefuseBadArgumentsAndAddNothing) {
  for (const bool growing : {true, false}) {
    SCOPED_TRACE(growing ? "growing" : "fixed");
    Filter f = growing ? NewGrowing() : NewFixed(kInitial);
    AddIntegerKeys(f.get(), IntegerKeys(10, 1));
    const Filter snapshot = CloneOf(f.get());
    const unsigned char buf[19] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
    const uint64_t offsets[] = {0, 5, 9, 19};
    const uint64_t hashes[] = {1, 2, 3};
    uint8_t results[3] = {7, 7, 7};
    uint64_t added = 99;
    abloom_filter *h = f.get();

    EXPECT_EQ(abloom_test_and_add_packed(nullptr, buf, 19, offsets, 3, results, &added),
              ABLOOM_ERR_NULL);
    EXPECT_EQ(abloom_test_and_add_packed(h, buf, 19, offsets, 3, nullptr, &added), ABLOOM_ERR_NULL);
    EXPECT_EQ(abloom_test_and_add_packed(h, nullptr, 19, offsets, 3, results, &added),
              ABLOOM_ERR_NULL);
    EXPECT_EQ(abloom_test_and_add_packed(h, buf, 19, nullptr, 3, results, &added), ABLOOM_ERR_NULL);
    const uint64_t decreasing[] = {0, 9, 5, 19};
    EXPECT_EQ(abloom_test_and_add_packed(h, buf, 19, decreasing, 3, results, &added),
              ABLOOM_ERR_INVALID);
    EXPECT_EQ(abloom_test_and_add_packed(h, buf, 18, offsets, 3, results, &added),
              ABLOOM_ERR_INVALID);
    const uint64_t same_length_past_end[] = {4, 9, 14, 19, 24};
    EXPECT_EQ(abloom_test_and_add_packed(h, buf, 19, same_length_past_end, 4, results, &added),
              ABLOOM_ERR_INVALID);
    EXPECT_EQ(abloom_test_and_add_hashes(nullptr, hashes, 3, results, &added), ABLOOM_ERR_NULL);
    EXPECT_EQ(abloom_test_and_add_hashes(h, nullptr, 3, results, &added), ABLOOM_ERR_NULL);
    EXPECT_EQ(abloom_test_and_add_hashes(h, hashes, 3, nullptr, &added), ABLOOM_ERR_NULL);
    EXPECT_EQ(added, 99u) << "no count written on error";
    EXPECT_EQ(results[0], 7);
    EXPECT_EQ(abloom_equal(h, snapshot.get()), 1) << "nothing added";
    EXPECT_EQ(Info(h).keys, Info(snapshot.get()).keys);

    // n == 0: every array may be NULL; the count is 0.
    EXPECT_EQ(abloom_test_and_add_packed(h, nullptr, 0, nullptr, 0, nullptr, &added), ABLOOM_OK);
    EXPECT_EQ(added, 0u);
    added = 99;
    EXPECT_EQ(abloom_test_and_add_hashes(h, nullptr, 0, nullptr, &added), ABLOOM_OK);
    EXPECT_EQ(added, 0u);
    // added may be NULL.
    EXPECT_EQ(abloom_test_and_add_packed(h, buf, 19, offsets, 3, results, nullptr), ABLOOM_OK);
    EXPECT_EQ(abloom_test(h, buf + 5, 4), 1);
  }
}

// A read-only filter (a view of serialized bytes) refuses both forms, and nothing is added.
TEST(CapiGrowing, TestAndAddPackedAndHashesOnAReadOnlyFilter) {
  for (const bool growing : {true, false}) {
    SCOPED_TRACE(growing ? "growing" : "fixed");
    Filter f = growing ? NewGrowing() : NewFixed(kInitial);
    AddIntegerKeys(f.get(), IntegerKeys(10, 1));
    uint64_t size = 0;
    ASSERT_EQ(abloom_serialized_size(f.get(), &size), ABLOOM_OK);
    AlignedBytes bytes(size);
    ASSERT_EQ(abloom_serialize(f.get(), bytes.data(), size, nullptr), ABLOOM_OK);
    abloom_filter *raw = nullptr;
    ASSERT_EQ(abloom_view(bytes.data(), size, 0, &raw), ABLOOM_OK);
    const Filter view(raw);
    const PackedBatch batch = SameLengthBatch({~uint64_t{0}, 1});
    uint8_t results[2] = {7, 7};
    uint64_t added = 99;
    EXPECT_EQ(abloom_test_and_add_packed(view.get(), batch.buf.data(), batch.buf.size(),
                                         batch.offsets.data(), 2, results, &added),
              ABLOOM_ERR_READONLY);
    uint64_t hash = 0;
    ASSERT_EQ(abloom_hash(view.get(), batch.key(0), batch.len(0), &hash), ABLOOM_OK);
    EXPECT_EQ(abloom_test_and_add_hashes(view.get(), &hash, 1, results, &added),
              ABLOOM_ERR_READONLY);
    EXPECT_EQ(added, 99u);
    EXPECT_EQ(results[0], 7);
    EXPECT_EQ(abloom_test(view.get(), batch.key(0), batch.len(0)), 0);
    EXPECT_EQ(abloom_equal(view.get(), f.get()), 1);
  }
}
