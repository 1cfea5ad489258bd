// fuzz_deserialize.cpp - libFuzzer target for the readers of the serialized format
// (docs/FORMAT.md): abloom_deserialize and abloom_view, through the public C API.
//
// Each input is tried twice: as given, and "repaired" (the body checksum at offset 104 and the
// header checksum at offset 120 recomputed over the mutated bytes), because a mutation of the
// header almost never keeps the header checksum right: without the repair the fuzzer would never
// get past step 4 of the validation and never reach the field checks or the read paths.
//
// For each form:
//  - abloom_deserialize; on failure the code must be one of the documented ones and *out untouched;
//  - abloom_view over a 64-byte-aligned copy, without and with ABLOOM_VERIFY_CHECKSUM (a view
//    with the check accepts exactly what abloom_deserialize accepts, one without it at least
//    that; both fail with the same code as abloom_deserialize when the header is bad);
//  - abloom_view over a misaligned pointer must be ABLOOM_ERR_ALIGNMENT;
//  - on success, every read call: abloom_test of a few keys (some taken from the input), the
//    bulk tests (all three input forms, agreeing with the single-key answers), the estimates,
//    abloom_get_info (consistent with the header), abloom_equal between the copies, writes to a
//    view (ABLOOM_ERR_READONLY), adds to a clone, and serializing again:
//      * from abloom_deserialize: byte-identical to the input except the inserted-key estimate
//        (offset 72, recomputed from the fill) and the two checksums that cover it; when the
//        input's estimate already is the recomputed one, identical outright;
//      * from a view: the same, with the stale flag (offset 52, bit 0) cleared, and the
//        checksums recomputed (a view without the check may have been given wrong ones);
//      * the re-serialized bytes deserialize again, equal to the filter, and serialize to the
//        same bytes (a fixpoint).
// And the writer side (RunWriter): the input's first bytes read as abloom_options (a growing
// filter's too); what abloom_create accepts must serialize to bytes every reader accepts and
// re-serializes unchanged.
// Growing filters (chains of stages, kind 2) are repaired stage by stage, table and header, and
// exercised by ExerciseChain: the chain's info against its header and stages, the same answer
// checks, the serialization fixpoint, writes refused by views and taken by copies.
// Any violation aborts (a crash for libFuzzer).
//
// Build: see tests/fuzz/CMakeLists.txt; run: scripts/test-all.sh fuzz.

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../aligned_memory.hpp"
#include "abloom.h"

namespace {

[[noreturn]] void Fail(const char* what, long long a = 0, long long b = 0) {
  std::fprintf(stderr, "fuzz_deserialize: CHECK FAILED: %s (%lld, %lld)\n", what, a, b);
  std::abort();
}

#define CHECK(cond)           \
  do {                        \
    if (!(cond)) Fail(#cond); \
  } while (0)
#define CHECK_EQ(a, b)                                                              \
  do {                                                                              \
    const long long a_ = static_cast<long long>(a), b_ = static_cast<long long>(b); \
    if (a_ != b_) Fail(#a " == " #b, a_, b_);                                       \
  } while (0)

constexpr size_t kOffInserted = 72;
constexpr size_t kOffFlags = 52;
constexpr size_t kOffChecksum = 104;
constexpr size_t kOffHeaderChecksum = 120;

uint64_t Get64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
void Put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Recomputes both checksums of a (possibly invalid) serialized filter in place: p[0, n).
void RepairFilter(unsigned char* p, size_t n) {
  if (n < ABLOOM_HEADER_BYTES) return;
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, p, kOffChecksum);
  XXH3_64bits_update(&st, p + ABLOOM_HEADER_BYTES, n - ABLOOM_HEADER_BYTES);
  Put64(p + kOffChecksum, XXH3_64bits_digest(&st));
  Put64(p + kOffHeaderChecksum, XXH3_64bits(p, kOffHeaderChecksum));
}

// A growing chain's fields (docs/FORMAT.md, "Growing filters").
constexpr uint32_t kChainKind = 2;
constexpr size_t kChainOffStages = 72;
constexpr size_t kChainOffGrowth = 56;
constexpr size_t kChainOffTableChecksum = 104;
constexpr size_t kChainEntryBytes = 32;
constexpr size_t kChainOffPlaces = 76;
constexpr size_t kChainOffTotal = 80;
// Where a writer puts stage 0: after a table with a place for each of ABLOOM_MAX_STAGES.
constexpr uint64_t kChainWrittenTableEnd =
    ABLOOM_HEADER_BYTES + ABLOOM_MAX_STAGES * kChainEntryBytes;

bool IsChain(const std::vector<unsigned char>& b) {
  return b.size() >= ABLOOM_HEADER_BYTES && (Get64(b.data() + 16) & 0xFFFFFFFFu) == kChainKind;
}

// A chain's repair: each stage the table places inside the bytes, then the table's checksum
// (over the entries that fit) and the header's, so that mutations reach the stage checks.
void RepairChain(std::vector<unsigned char>& b) {
  const uint64_t stages = Get64(b.data() + kChainOffStages) & 0xFFFFFFFFu;
  const uint64_t fit = (b.size() - ABLOOM_HEADER_BYTES) / kChainEntryBytes;
  const uint64_t entries = stages < fit ? stages : fit;
  for (uint64_t i = 0; i < entries; ++i) {
    const unsigned char* e = b.data() + ABLOOM_HEADER_BYTES + i * kChainEntryBytes;
    const uint64_t offset = Get64(e), size = Get64(e + 8);
    if (offset <= b.size() && size <= b.size() - offset) RepairFilter(b.data() + offset, size);
  }
  Put64(b.data() + kChainOffTableChecksum,
        XXH3_64bits(b.data() + ABLOOM_HEADER_BYTES, entries * kChainEntryBytes));
  Put64(b.data() + kOffHeaderChecksum, XXH3_64bits(b.data(), kOffHeaderChecksum));
}

void Repair(std::vector<unsigned char>& b) {
  if (IsChain(b)) {
    RepairChain(b);
  } else {
    RepairFilter(b.data(), b.size());
  }
}

// A 64-byte-aligned copy of some bytes.
struct Aligned {
  explicit Aligned(const std::vector<unsigned char>& b)
      : block(test_memory::Aligned64Copy(b.data(), b.size())), p(block.get()) {}
  test_memory::AlignedBlock block;
  unsigned char* p;
};

bool IsReaderError(int rc) {
  switch (rc) {
    case ABLOOM_ERR_BAD_MAGIC:
    case ABLOOM_ERR_VERSION:
    case ABLOOM_ERR_UNSUPPORTED:
    case ABLOOM_ERR_TRUNCATED:
    case ABLOOM_ERR_CORRUPT:
    case ABLOOM_ERR_CHECKSUM:
    case ABLOOM_ERR_STALE:
    case ABLOOM_ERR_NOMEM:
      return true;
    default:
      return false;
  }
}

// The inserted-key estimate a writer must store for the valid serialized filter `b`, computed
// here from the bytes as docs/FORMAT.md defines it (independently of the library): per block
// (blocked kind) or per shard (classic kind), ln(1 - X/m) / ln(1 - p), summed and rounded;
// UINT64_MAX when any unit is full.
uint64_t HeaderEstimate(const std::vector<unsigned char>& b) {
  const uint32_t kind = static_cast<uint32_t>(Get64(b.data() + 16));
  const uint32_t k = static_cast<uint32_t>(Get64(b.data() + 28));
  const uint64_t blocks = Get64(b.data() + 40);
  const uint32_t shards = static_cast<uint32_t>(Get64(b.data() + 48));
  const bool classic = kind == ABLOOM_KIND_CLASSIC;
  const uint64_t unit_bytes = classic ? blocks * 64 : 64;
  const uint64_t units = classic ? shards : blocks * shards;
  const double m = static_cast<double>(unit_bytes * 8);
  const double log_clear =
      classic ? k * std::log1p(-1.0 / m) : std::log1p(-static_cast<double>(k) / 512);
  double sum = 0;
  for (uint64_t u = 0; u < units; ++u) {
    uint64_t x = 0;
    for (uint64_t i = 0; i < unit_bytes; ++i) {
      x += static_cast<uint64_t>(__builtin_popcount(b[ABLOOM_HEADER_BYTES + u * unit_bytes + i]));
    }
    if (x == 0) continue;
    if (static_cast<double>(x) >= m) return UINT64_MAX;
    sum += std::log1p(-static_cast<double>(x) / m) / log_clear;
  }
  return sum < 1.8e19 ? static_cast<uint64_t>(std::llround(sum)) : UINT64_MAX;
}

// Keys to test: a few fixed ones and up to 8 slices of the input itself.
struct Keys {
  std::vector<const void*> ptrs;
  std::vector<size_t> lens;
  std::vector<unsigned char> packed;
  std::vector<uint64_t> offsets;
};
Keys KeysFrom(const std::vector<unsigned char>& in) {
  static const char* const kFixed[] = {"", "a", "key-0", "hello, world", "abloom"};
  Keys k;
  for (const char* s : kFixed) {
    k.ptrs.push_back(s);
    k.lens.push_back(std::strlen(s));
  }
  const size_t n = in.size() < 8 ? in.size() : 8;
  for (size_t i = 0; i < n; ++i) {
    const size_t start = in.size() - 1 - i * (in.size() / 8);
    const size_t len = (in[start] % 24 < in.size() - start) ? in[start] % 24 : in.size() - start;
    k.ptrs.push_back(in.data() + start);
    k.lens.push_back(len);
  }
  k.offsets.push_back(0);
  for (size_t i = 0; i < k.ptrs.size(); ++i) {
    const auto* p = static_cast<const unsigned char*>(k.ptrs[i]);
    k.packed.insert(k.packed.end(), p, p + k.lens[i]);
    k.offsets.push_back(k.packed.size());
  }
  return k;
}

// The single-key answers of f for keys, checked against its bulk calls (all three input forms)
// and its hash calls.
std::vector<uint8_t> Answers(const abloom_filter* f, const Keys& keys) {
  const size_t n = keys.ptrs.size();
  std::vector<uint8_t> single(n), many(n, 2), packed(n, 2), hashed(n, 2);
  std::vector<uint64_t> hashes(n);
  uint64_t found_single = 0;
  for (size_t i = 0; i < n; ++i) {
    const int r = abloom_test(f, keys.ptrs[i], keys.lens[i]);
    CHECK(r == 0 || r == 1);
    single[i] = static_cast<uint8_t>(r);
    found_single += single[i];
    CHECK_EQ(abloom_hash(f, keys.ptrs[i], keys.lens[i], &hashes[i]), ABLOOM_OK);
    CHECK_EQ(abloom_test_hash(f, hashes[i]), r);
  }
  uint64_t found = 0;
  CHECK_EQ(abloom_test_many(f, keys.ptrs.data(), keys.lens.data(), n, many.data(), &found),
           ABLOOM_OK);
  CHECK_EQ(found, found_single);
  CHECK_EQ(abloom_test_packed(f, keys.packed.data(), keys.packed.size(), keys.offsets.data(), n,
                              packed.data(), &found),
           ABLOOM_OK);
  CHECK_EQ(found, found_single);
  CHECK_EQ(abloom_test_hashes(f, hashes.data(), n, hashed.data(), &found), ABLOOM_OK);
  CHECK_EQ(found, found_single);
  CHECK(many == single && packed == single && hashed == single);
  return single;
}

// Every read call on a growing filter (a chain) from `in`: its info against the chain header and
// its stages, the answers as Answers checks them, and the writer side: serialized again, it is
// read back equal and serializes to the same bytes (a fixpoint); a view refuses writes, and an
// owned copy takes adds (growing if it must) and then finds its keys.
std::vector<uint8_t> ExerciseChain(const abloom_filter* f, const std::vector<unsigned char>& in,
                                   const Keys& keys, uint32_t expect_storage) {
  abloom_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_EQ(abloom_get_info(f, &info), ABLOOM_OK);
  CHECK_EQ(info.stages, Get64(in.data() + kChainOffStages) & 0xFFFFFFFFu);
  CHECK(info.stages >= 1 && info.stages <= ABLOOM_MAX_STAGES);
  uint64_t growth_bits;
  std::memcpy(&growth_bits, &info.growth, 8);
  CHECK_EQ(growth_bits, Get64(in.data() + kChainOffGrowth));
  CHECK(info.growth > 1 && info.growth <= ABLOOM_MAX_GROWTH);
  CHECK_EQ(info.storage, expect_storage);
  CHECK_EQ(info.read_only, expect_storage == ABLOOM_STORAGE_VIEW ? 1 : 0);
  CHECK(info.expected_fpr >= 0 && info.expected_fpr <= info.target_fpr);
  uint64_t bits = 0, keys_counted = 0;
  for (uint32_t s = 0; s < info.stages; ++s) {
    abloom_info st;
    std::memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    CHECK_EQ(abloom_get_stage_info(f, s, &st), ABLOOM_OK);
    CHECK_EQ(st.bits, st.shards * st.blocks_per_shard * 512);
    const unsigned char* entry = in.data() + ABLOOM_HEADER_BYTES + s * kChainEntryBytes;
    CHECK_EQ(st.keys, Get64(entry + 16));
    CHECK_EQ(st.bytes + ABLOOM_HEADER_BYTES, Get64(entry + 8));
    bits += st.bits;
    keys_counted += st.keys;
  }
  CHECK_EQ(info.bits, bits);
  CHECK_EQ(info.keys, keys_counted);
  abloom_info past;
  std::memset(&past, 0, sizeof past);
  past.struct_size = sizeof past;
  CHECK_EQ(abloom_get_stage_info(f, info.stages, &past), ABLOOM_ERR_RANGE);

  // A chain in the first form (place count 0: a table of exactly its stages) is written in
  // today's, its stages moved to after the full table (the same size otherwise). A writer's file
  // that ends with a stage being appended reads as the chain its header's total names.
  uint64_t size = 0;
  CHECK_EQ(abloom_serialized_size(f, &size), ABLOOM_OK);
  const bool first_form = (Get64(in.data() + kChainOffPlaces) & 0xFFFFFFFFu) == 0;
  const uint64_t first_table_end =
      (ABLOOM_HEADER_BYTES + info.stages * kChainEntryBytes + 63) & ~uint64_t{63};
  const uint64_t total = Get64(in.data() + kChainOffTotal);
  CHECK(total == in.size() || (total < in.size() && info.stale == 1 && !first_form));
  CHECK_EQ(size, total + (first_form ? kChainWrittenTableEnd - first_table_end : 0));
  double count = 0, fpr = 0;
  CHECK_EQ(abloom_estimate_count(f, &count), ABLOOM_OK);
  CHECK(count >= 0 && !std::isnan(count));
  CHECK_EQ(abloom_estimate_fpr(f, &fpr), ABLOOM_OK);
  CHECK(fpr >= 0 && fpr <= 1);
  const std::vector<uint8_t> single = Answers(f, keys);

  std::vector<unsigned char> out(size);
  size_t written = 0;
  CHECK_EQ(abloom_serialize(f, out.data(), out.size(), &written), ABLOOM_OK);
  CHECK_EQ(written, size);
  abloom_filter* again = nullptr;
  CHECK_EQ(abloom_deserialize(out.data(), out.size(), &again), ABLOOM_OK);
  CHECK_EQ(abloom_equal(f, again), 1);
  std::vector<unsigned char> out2(out.size());
  CHECK_EQ(abloom_serialize(again, out2.data(), out2.size(), &written), ABLOOM_OK);
  CHECK(out2 == out);
  CHECK(Answers(again, keys) == single);

  abloom_filter* target = nullptr;
  if (expect_storage == ABLOOM_STORAGE_VIEW) {
    abloom_filter* view = const_cast<abloom_filter*>(f);
    CHECK_EQ(abloom_add(view, "x", 1), ABLOOM_ERR_READONLY);
    CHECK_EQ(abloom_clear(view), ABLOOM_ERR_READONLY);
    CHECK_EQ(abloom_union(view, again), ABLOOM_ERR_READONLY);
    CHECK_EQ(abloom_clone(f, &target), ABLOOM_OK);
  } else {
    target = again;
    again = nullptr;
  }
  CHECK_EQ(abloom_intersect(target, target), ABLOOM_ERR_UNSUPPORTED);
  const size_t n = keys.ptrs.size();
  uint64_t added = 0, found = 0;
  CHECK_EQ(abloom_add_many(target, keys.ptrs.data(), keys.lens.data(), n, &added), ABLOOM_OK);
  std::vector<uint8_t> after(n, 2);
  CHECK_EQ(abloom_test_many(target, keys.ptrs.data(), keys.lens.data(), n, after.data(), &found),
           ABLOOM_OK);
  CHECK_EQ(found, n);
  abloom_free(target);
  abloom_free(again);
  return single;
}

// Every read call on a filter from `in`; returns the single-key answers.
std::vector<uint8_t> Exercise(const abloom_filter* f, const std::vector<unsigned char>& in,
                              const Keys& keys, uint32_t expect_storage, bool input_verified) {
  if (IsChain(in)) return ExerciseChain(f, in, keys, expect_storage);
  abloom_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_EQ(abloom_get_info(f, &info), ABLOOM_OK);
  CHECK(info.kind == ABLOOM_KIND_BLOCKED || info.kind == ABLOOM_KIND_CLASSIC);
  CHECK(info.k >= 1 && info.k <= ABLOOM_MAX_K);
  CHECK(info.shards >= 1 && info.shards <= ABLOOM_MAX_SHARDS &&
        (info.shards & (info.shards - 1)) == 0);
  CHECK(info.blocks_per_shard >= 1);
  CHECK_EQ(info.bits, info.shards * info.blocks_per_shard * 512);
  CHECK_EQ(info.bytes, info.bits / 8);
  CHECK_EQ(info.bytes + ABLOOM_HEADER_BYTES, in.size());
  CHECK(info.capacity >= 1);
  CHECK(info.target_fpr >= 0 && info.target_fpr < 1);
  CHECK(info.expected_fpr >= 0 && info.expected_fpr <= 1);
  CHECK_EQ(info.storage, expect_storage);
  CHECK_EQ(info.read_only, expect_storage == ABLOOM_STORAGE_VIEW ? 1 : 0);
  // The stale mark as the bytes carry it (offset 52, bit 0); a deserialized copy never has it.
  CHECK_EQ(info.stale, expect_storage == ABLOOM_STORAGE_VIEW ? (in[52] & 1u) : 0u);
  // Header fields as decoded (offsets from docs/FORMAT.md).
  CHECK_EQ(info.seed, Get64(in.data() + 32));
  CHECK_EQ(info.blocks_per_shard, Get64(in.data() + 40));
  CHECK_EQ(info.capacity, Get64(in.data() + 64));
  uint64_t tf, ef;
  std::memcpy(&tf, &info.target_fpr, 8);
  std::memcpy(&ef, &info.expected_fpr, 8);
  CHECK_EQ(tf, Get64(in.data() + 80));
  CHECK_EQ(ef, Get64(in.data() + 88));

  uint64_t size = 0;
  CHECK_EQ(abloom_serialized_size(f, &size), ABLOOM_OK);
  CHECK_EQ(size, in.size());

  double count = 0, fpr = 0;
  CHECK_EQ(abloom_estimate_count(f, &count), ABLOOM_OK);
  CHECK(count >= 0 && !std::isnan(count));
  CHECK_EQ(abloom_estimate_fpr(f, &fpr), ABLOOM_OK);
  CHECK(fpr >= 0 && fpr <= 1);

  const size_t n = keys.ptrs.size();
  const std::vector<uint8_t> single = Answers(f, keys);
  uint64_t found_single = 0;
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) {
    found_single += single[i];
    CHECK_EQ(abloom_hash(f, keys.ptrs[i], keys.lens[i], &hashes[i]), ABLOOM_OK);
  }
  std::vector<uint8_t> many(n, 2);
  uint64_t found = 0;

  // Serialize again: see the file comment for what must hold.
  std::vector<unsigned char> out(in.size());
  size_t written = 0;
  CHECK_EQ(abloom_serialize(f, out.data(), out.size(), &written), ABLOOM_OK);
  CHECK_EQ(written, in.size());
  CHECK_EQ(Get64(out.data() + kOffInserted), HeaderEstimate(out));
  const bool same_estimate = Get64(out.data() + kOffInserted) == Get64(in.data() + kOffInserted);
  const bool stale = (in[kOffFlags] & 1) != 0;
  CHECK(expect_storage == ABLOOM_STORAGE_VIEW || !stale);
  for (size_t i = 0; i < in.size(); ++i) {
    if (i >= kOffInserted && i < kOffInserted + 8) continue;
    if (i == kOffFlags) {
      CHECK_EQ(out[i], in[i] & ~1u);
      continue;
    }
    if (!same_estimate || stale || !input_verified) {
      if (i >= kOffChecksum && i < kOffChecksum + 8) continue;
      if (i >= kOffHeaderChecksum && i < ABLOOM_HEADER_BYTES) continue;
    }
    if (out[i] != in[i]) Fail("re-serialized byte differs from the input", i, out[i]);
  }

  abloom_filter* again = nullptr;
  CHECK_EQ(abloom_deserialize(out.data(), out.size(), &again), ABLOOM_OK);
  CHECK(again != nullptr);
  CHECK_EQ(abloom_equal(f, again), 1);
  std::vector<unsigned char> out2(out.size());
  CHECK_EQ(abloom_serialize(again, out2.data(), out2.size(), &written), ABLOOM_OK);
  CHECK(out2 == out);

  // Writes: a view refuses them; an owned copy takes them and then finds its keys.
  abloom_filter* target = nullptr;
  if (expect_storage == ABLOOM_STORAGE_VIEW) {
    abloom_filter* view = const_cast<abloom_filter*>(f);
    CHECK_EQ(abloom_add(view, "x", 1), ABLOOM_ERR_READONLY);
    CHECK_EQ(abloom_add_hashes(view, hashes.data(), n, nullptr), ABLOOM_ERR_READONLY);
    CHECK_EQ(abloom_clear(view), ABLOOM_ERR_READONLY);
    CHECK_EQ(abloom_union(view, again), ABLOOM_ERR_READONLY);
    CHECK_EQ(abloom_clone(f, &target), ABLOOM_OK);
  } else {
    target = again;
    again = nullptr;
  }
  uint64_t added = 0;
  CHECK_EQ(abloom_add_many(target, keys.ptrs.data(), keys.lens.data(), n, &added), ABLOOM_OK);
  CHECK(added <= n - found_single);
  CHECK_EQ(abloom_test_many(target, keys.ptrs.data(), keys.lens.data(), n, many.data(), &found),
           ABLOOM_OK);
  CHECK_EQ(found, n);
  abloom_free(target);
  abloom_free(again);
  return single;
}

// One form of the input through every reader.
void Run(const std::vector<unsigned char>& in) {
  const Keys keys = KeysFrom(in);

  abloom_filter* const kUntouched = reinterpret_cast<abloom_filter*>(uintptr_t{0x1});
  static const unsigned char kEmpty = 0;  // an empty vector's data() may be NULL
  const unsigned char* bytes = in.empty() ? &kEmpty : in.data();
  abloom_filter* des = kUntouched;
  const int rc_des = abloom_deserialize(bytes, in.size(), &des);
  if (rc_des != ABLOOM_OK) {
    if (!IsReaderError(rc_des)) Fail("deserialize: undocumented error", rc_des);
    CHECK(des == kUntouched);
    des = nullptr;
  } else {
    CHECK(des != nullptr && des != kUntouched);
  }

  Aligned copy(in);
  abloom_filter* view = kUntouched;
  const int rc_view = abloom_view(copy.p, in.size(), 0, &view);
  abloom_filter* vview = kUntouched;
  const int rc_vview = abloom_view(copy.p, in.size(), ABLOOM_VERIFY_CHECKSUM, &vview);
  if (rc_view != ABLOOM_OK) {
    CHECK(view == kUntouched);
    view = nullptr;
    // The body's checks (checksum, stale mark) are a verifying reader's only.
    CHECK(IsReaderError(rc_view) && rc_view != ABLOOM_ERR_CHECKSUM && rc_view != ABLOOM_ERR_STALE);
    CHECK_EQ(rc_des, rc_view);  // a bad header: the same answer from every reader
  }
  if (rc_vview != ABLOOM_OK) {
    CHECK(vview == kUntouched);
    vview = nullptr;
  }
  // With the checksum check a view accepts exactly what abloom_deserialize accepts (barring
  // an allocation failure of the copy).
  if (rc_des != ABLOOM_ERR_NOMEM) CHECK_EQ(rc_vview, rc_des);
  if (rc_vview == ABLOOM_OK) CHECK_EQ(rc_view, ABLOOM_OK);

  // A misaligned buffer is refused before anything is read.
  if (in.size() > 0) {
    abloom_filter* mis = kUntouched;
    CHECK_EQ(abloom_view(copy.p + 1, in.size() - 1, 0, &mis), ABLOOM_ERR_ALIGNMENT);
    CHECK(mis == kUntouched);
  }
  abloom_filter* bad = kUntouched;
  CHECK_EQ(abloom_view(copy.p, in.size(), 0x80u, &bad), ABLOOM_ERR_INVALID);
  CHECK(bad == kUntouched);

  std::vector<uint8_t> a, b, c;
  if (des != nullptr) a = Exercise(des, in, keys, ABLOOM_STORAGE_OWNED, true);
  if (view != nullptr) b = Exercise(view, in, keys, ABLOOM_STORAGE_VIEW, rc_vview == ABLOOM_OK);
  if (vview != nullptr) c = Exercise(vview, in, keys, ABLOOM_STORAGE_VIEW, true);
  if (des != nullptr && view != nullptr) {
    CHECK(a == b);
    CHECK_EQ(abloom_equal(des, view), 1);
  }
  if (view != nullptr && vview != nullptr) CHECK(b == c);
  abloom_free(vview);
  abloom_free(view);
  abloom_free(des);
}

}  // namespace

// The writer side: the input's first bytes as options. Whatever abloom_create accepts (up to
// 1 MiB of bits, to keep runs fast), a few keys added, must serialize to bytes that
// abloom_deserialize and abloom_view accept and that serialize again to the same bytes: no
// writer produces bytes its own readers refuse.
void RunWriter(const unsigned char* d, size_t size) {
  constexpr size_t kNeed = 8 + 8 + 8 + 4 + 4 + 4 + 4 + 8;
  if (size < kNeed) return;
  abloom_options o;
  CHECK_EQ(abloom_options_init(&o), ABLOOM_OK);
  o.capacity = Get64(d);
  o.bits = Get64(d + 8) % (uint64_t{8} << 20);  // up to 1 MiB of bits
  uint64_t fpr_bits = Get64(d + 16);
  std::memcpy(&o.fpr, &fpr_bits, sizeof o.fpr);  // any double: NaN, infinities, subnormals
  o.k = static_cast<uint32_t>(Get64(d + 24) & 0x7F);
  o.shards = static_cast<uint32_t>(Get64(d + 28) & 0x7F);
  o.kind = d[32] & 3;
  o.layout = d[36] & 3;
  o.seed = Get64(d + 40);
  if ((d[37] & 4) != 0) {
    // A growing filter, with first stages small enough that a few keys append more.
    o.growth = 1 + (1 + d[38] % 60) / 4.0;  // (1, 16]
    o.capacity = 1 + d[0] % 16;
    o.bits = 0;
    o.k = 0;
    uint32_t stages = 0;
    uint64_t bytes = 0;
    double bound = 0;
    const int rc = abloom_growth_footprint(&o, 1, &stages, &bytes, &bound);
    if (rc != ABLOOM_OK) {
      CHECK(rc == ABLOOM_ERR_INVALID || rc == ABLOOM_ERR_RANGE);
      abloom_filter* f = nullptr;
      CHECK_EQ(abloom_create(&o, &f), rc);
      return;
    }
    // The same 1 MiB bound as a fixed filter's, on the chain the keys below grow: a later stage's
    // target is tighter than the first's, and with the split layout (k <= 16) a tiny one is met
    // with bits alone (a target of 1e-303 planned hundreds of GB for eight keys), which this
    // harness would then copy into memory.
    const uint64_t keys = (size - kNeed + 7) / 8;
    if (abloom_growth_footprint(&o, keys, &stages, &bytes, &bound) != ABLOOM_OK ||
        bytes > (uint64_t{1} << 20))
      return;
  }
  abloom_plan plan;
  CHECK_EQ(abloom_plan_init(&plan), ABLOOM_OK);
  const int planned = abloom_plan_compute(&o, &plan);
  if (planned != ABLOOM_OK) {
    CHECK(planned == ABLOOM_ERR_INVALID || planned == ABLOOM_ERR_RANGE);
    return;
  }
  CHECK(plan.expected_fpr >= 0 && plan.expected_fpr <= 1);
  if (plan.bytes > (size_t{1} << 20)) return;
  abloom_filter* f = nullptr;
  CHECK_EQ(abloom_create(&o, &f), ABLOOM_OK);
  for (size_t i = kNeed; i < size; i += 8)
    CHECK_EQ(abloom_add(f, d + i, size - i < 8 ? size - i : 8), ABLOOM_OK);
  uint64_t n = 0;
  CHECK_EQ(abloom_serialized_size(f, &n), ABLOOM_OK);
  std::vector<unsigned char> bytes(n);
  CHECK_EQ(abloom_serialize(f, bytes.data(), bytes.size(), nullptr), ABLOOM_OK);
  abloom_filter* back = nullptr;
  CHECK_EQ(abloom_deserialize(bytes.data(), bytes.size(), &back), ABLOOM_OK);
  CHECK_EQ(abloom_equal(f, back), 1);
  std::vector<unsigned char> again(n);
  CHECK_EQ(abloom_serialize(back, again.data(), again.size(), nullptr), ABLOOM_OK);
  CHECK(again == bytes);
  const test_memory::AlignedBlock aligned = test_memory::Aligned64Copy(bytes.data(), n);
  abloom_filter* view = nullptr;
  CHECK_EQ(abloom_view(aligned.get(), n, ABLOOM_VERIFY_CHECKSUM, &view), ABLOOM_OK);
  CHECK_EQ(abloom_equal(f, view), 1);
  abloom_free(view);
  abloom_free(back);
  abloom_free(f);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<unsigned char> in(data, data + size);
  RunWriter(in.data(), in.size());
  Run(in);
  if (in.size() >= ABLOOM_HEADER_BYTES) {
    std::vector<unsigned char> repaired = in;
    Repair(repaired);
    if (repaired != in) Run(repaired);
  }
  return 0;
}
