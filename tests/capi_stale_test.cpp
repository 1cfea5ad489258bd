// Stale files (docs/FORMAT.md, "Read-write mappings and the stale flag"): a read-write writer that
// never synced leaves its file marked stale. Verified reads say ABLOOM_ERR_STALE (not
// ABLOOM_ERR_CHECKSUM), O(1) opens work and report abloom_info.stale, and abloom_seal checks and
// seals such a file, and refuses corrupt ones without writing.
//
// A stale file is made as a killed writer leaves it: a copy of the file's bytes taken while a
// read-write handle has it open and has added keys (no fork, so the same on Windows).

#include <abloom.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "aligned_memory.hpp"
#include "capi_test_support.hpp"
#include "test_files.hpp"

namespace {

using capi_test::AddAll;
using capi_test::Bytes;
using capi_test::Filter;
using capi_test::Get64;
using capi_test::InfoOf;
using capi_test::Key;
using capi_test::Keys;
using capi_test::LoadInto;
using capi_test::Make;
using capi_test::Open;
using capi_test::Options;
using capi_test::ReadAll;
using capi_test::Serialize;
using capi_test::TempDir;
using capi_test::WriteFile;

// Header offsets (docs/FORMAT.md).
constexpr size_t kOffFlags = 52;
constexpr size_t kOffInserted = 72;

size_t Missing(const abloom_filter *f, const std::vector<std::string> &keys) {
  size_t missing = 0;
  for (const auto &k : keys) missing += abloom_test(f, k.data(), k.size()) != 1;
  return missing;
}

// A saved filter with `before` keys (set 1), then a read-write writer that added `after` keys
// (set 2) and was "killed": stale.abloom holds the file's bytes as the writer left them, unsynced.
// intact.abloom is the file the writer's sync then made (the same bits, sealed).
struct StaleFixture {
  TempDir dir;
  std::string intact = dir / "intact.abloom";
  std::string stale = dir / "stale.abloom";
  std::vector<std::string> before_keys;
  std::vector<std::string> after_keys;
  uint64_t stored_estimate = 0;  // the header's estimate when the writer opened the file

  explicit StaleFixture(size_t before = 300, size_t after = 300, uint64_t capacity = 2000)
      : before_keys(Keys(1, before)), after_keys(Keys(2, after)) {
    Filter f = Make(Options(capacity, 0.01, ABLOOM_KIND_BLOCKED, 0, 7));
    AddAll(f.get(), before_keys);
    EXPECT_EQ(abloom_save(f.get(), intact.c_str()), ABLOOM_OK);
    stored_estimate = Get64(ReadAll(intact), kOffInserted);
    Filter rw;
    EXPECT_EQ(Open(intact, ABLOOM_OPEN_READ_WRITE, &rw), ABLOOM_OK);
    AddAll(rw.get(), after_keys);
    WriteFile(stale, ReadAll(intact));
    // rw's abloom_free syncs intact.abloom.
  }
};

// ---- Opening a stale file -----------------------------------------------------------------------

TEST(CapiStale, VerifiedOpenSaysStaleNotChecksum) {
  StaleFixture fx;
  EXPECT_EQ(Get64(ReadAll(fx.stale), kOffFlags) & 1, 1u) << "the fixture is not stale";
  for (uint32_t mode : {0u, ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE}) {
    const Bytes before = ReadAll(fx.stale);
    EXPECT_EQ(Open(fx.stale, mode | ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE) << mode;
    EXPECT_EQ(ReadAll(fx.stale), before) << "a refused open wrote the file";
  }
  // The intact file (synced by the writer's free) verifies.
  EXPECT_EQ(Open(fx.intact, ABLOOM_VERIFY_CHECKSUM), ABLOOM_OK);
  const std::string text = abloom_strerror(ABLOOM_ERR_STALE);
  EXPECT_NE(text.find("stale"), std::string::npos) << text;
  EXPECT_NE(text.find("abloom_seal"), std::string::npos) << text;
  EXPECT_NE(text, abloom_strerror(ABLOOM_ERR_CHECKSUM));
}

// A writer that syncs and goes on (a service that syncs now and then): after each sync the file
// holds every key so far and is marked stale again at once, so a writer killed at any moment
// after its open leaves a stale file, never one that reads as corrupt, and a seal of it gives
// exactly the saved bytes. abloom_sync_last (a garbage-collected binding's Close) leaves it
// sealed and the handle read-only.
TEST(CapiStale, WritersStayStaleAcrossSyncsUntilTheLast) {
  TempDir dir;
  const std::string path = dir / "w.abloom";
  const std::string copy = dir / "copy.abloom";
  Filter f = Make(Options(5000, 0.01, ABLOOM_KIND_BLOCKED, 0, 7));
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  Filter rw;
  ASSERT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE, &rw), ABLOOM_OK);
  for (uint64_t round = 1; round <= 3; ++round) {
    const std::vector<std::string> keys = Keys(10 + round, 200);
    AddAll(rw.get(), keys);
    AddAll(f.get(), keys);
    ASSERT_EQ(abloom_sync(rw.get()), ABLOOM_OK);
    // Killed here: the file as it is now.
    const Bytes now = ReadAll(path);
    EXPECT_EQ(Get64(now, kOffFlags) & 1, 1u) << "round " << round << ": not marked after sync";
    EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE) << round;
    WriteFile(copy, now);
    ASSERT_EQ(abloom_seal(copy.c_str()), ABLOOM_OK) << round;
    EXPECT_EQ(ReadAll(copy), Serialize(f.get())) << "round " << round << ": the sync was current";
    // Killed after more adds than the sync saw: still stale, still sealable, every key there.
    const std::vector<std::string> later = Keys(20 + round, 50);
    AddAll(rw.get(), later);
    AddAll(f.get(), later);
    WriteFile(copy, ReadAll(path));
    EXPECT_EQ(Open(copy, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE) << round;
    ASSERT_EQ(abloom_seal(copy.c_str()), ABLOOM_OK) << round;
    Filter sealed;
    ASSERT_EQ(Open(copy, ABLOOM_VERIFY_CHECKSUM, &sealed), ABLOOM_OK);
    EXPECT_EQ(Missing(sealed.get(), later), 0u) << round;
  }
  ASSERT_EQ(abloom_sync_last(rw.get()), ABLOOM_OK);
  EXPECT_EQ(ReadAll(path), Serialize(f.get())) << "the last sync leaves the file sealed";
  EXPECT_EQ(Open(path, ABLOOM_VERIFY_CHECKSUM), ABLOOM_OK);
  EXPECT_EQ(abloom_add(rw.get(), "late", 4), ABLOOM_ERR_READONLY);
  uint64_t *const *shards = nullptr;
  EXPECT_EQ(abloom_get_writable_shards(rw.get(), &shards), ABLOOM_ERR_READONLY);
  EXPECT_EQ(InfoOf(rw.get()).read_only, 1u);
  EXPECT_EQ(Missing(rw.get(), Keys(11, 200)), 0u) << "tests still work";
  rw.reset();  // abloom_free after the last sync: the file stays as it was
  EXPECT_EQ(ReadAll(path), Serialize(f.get()));
  EXPECT_EQ(abloom_sync_last(nullptr), ABLOOM_ERR_NULL);
  // Other filters: nothing to sync, and read-only from then on.
  Filter owned = Make(Options(100, 0.01, ABLOOM_KIND_BLOCKED, 0, 7));
  EXPECT_EQ(abloom_sync_last(owned.get()), ABLOOM_OK);
  EXPECT_EQ(abloom_add(owned.get(), "x", 1), ABLOOM_ERR_READONLY);
}

TEST(CapiStale, PlainOpenWorksAndInfoSaysStale) {
  StaleFixture fx;
  for (uint32_t mode : {0u, ABLOOM_OPEN_COPY_ON_WRITE}) {
    Filter f;
    ASSERT_EQ(Open(fx.stale, mode, &f), ABLOOM_OK) << mode;
    EXPECT_EQ(InfoOf(f.get()).stale, 1u) << mode;
    EXPECT_EQ(Missing(f.get(), fx.before_keys), 0u);
    EXPECT_EQ(Missing(f.get(), fx.after_keys), 0u);
  }
  for (uint32_t mode : {0u, ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE}) {
    Filter f;
    ASSERT_EQ(Open(fx.intact, mode | ABLOOM_VERIFY_CHECKSUM, &f), ABLOOM_OK) << mode;
    // For read-write: this handle marked the file, but it was not stale before.
    EXPECT_EQ(InfoOf(f.get()).stale, 0u) << mode;
  }
  {
    // A read-write open of a stale file reports the mark it found, and its sync seals the file.
    Filter rw;
    ASSERT_EQ(Open(fx.stale, ABLOOM_OPEN_READ_WRITE, &rw), ABLOOM_OK);
    EXPECT_EQ(InfoOf(rw.get()).stale, 1u);
    ASSERT_EQ(abloom_sync(rw.get()), ABLOOM_OK);
    EXPECT_EQ(InfoOf(rw.get()).stale, 1u) << "the field tells how the file was found, not now";
  }
  Filter verified;
  ASSERT_EQ(Open(fx.stale, ABLOOM_VERIFY_CHECKSUM, &verified), ABLOOM_OK);
  EXPECT_EQ(InfoOf(verified.get()).stale, 0u);
  EXPECT_EQ(Missing(verified.get(), fx.after_keys), 0u);
}

TEST(CapiStale, BytesDeserializeAndView) {
  StaleFixture fx;
  const Bytes stale = ReadAll(fx.stale);
  EXPECT_EQ(
      LoadInto([&](abloom_filter **f) { return abloom_deserialize(stale.data(), stale.size(), f); },
               nullptr),
      ABLOOM_ERR_STALE);
  const test_memory::AlignedBlock buf = test_memory::Aligned64Copy(stale.data(), stale.size());
  EXPECT_EQ(LoadInto(
                [&](abloom_filter **f) {
                  return abloom_view(buf.get(), stale.size(), ABLOOM_VERIFY_CHECKSUM, f);
                },
                nullptr),
            ABLOOM_ERR_STALE);
  Filter view;
  ASSERT_EQ(LoadInto([&](abloom_filter **f) { return abloom_view(buf.get(), stale.size(), 0, f); },
                     &view),
            ABLOOM_OK);
  EXPECT_EQ(InfoOf(view.get()).stale, 1u);
  EXPECT_EQ(Missing(view.get(), fx.after_keys), 0u);
  // Intact bytes: not stale, whichever way they are read; nor are filters of the library's own.
  const Bytes intact = ReadAll(fx.intact);
  Filter copy;
  ASSERT_EQ(
      LoadInto(
          [&](abloom_filter **f) { return abloom_deserialize(intact.data(), intact.size(), f); },
          &copy),
      ABLOOM_OK);
  EXPECT_EQ(InfoOf(copy.get()).stale, 0u);
  abloom_filter *clone = nullptr;
  ASSERT_EQ(abloom_clone(view.get(), &clone), ABLOOM_OK);
  Filter cloned(clone);
  EXPECT_EQ(InfoOf(cloned.get()).stale, 0u) << "a clone owns its bits: it opened no bytes";
}

// abloom_info's first version (without `stale`) is still accepted, and nothing is written past it.
TEST(CapiStale, InfoOfTheFirstVersionSize) {
  StaleFixture fx;
  Filter f;
  ASSERT_EQ(Open(fx.stale, 0, &f), ABLOOM_OK);
  abloom_info info;
  ASSERT_EQ(abloom_info_init(&info), ABLOOM_OK);
  EXPECT_EQ(info.struct_size, sizeof(abloom_info));
  info.struct_size = offsetof(abloom_info, stale);
  info.stale = 0xA5A5A5A5u;
  ASSERT_EQ(abloom_get_info(f.get(), &info), ABLOOM_OK);
  EXPECT_EQ(info.stale, 0xA5A5A5A5u) << "written past the caller's struct_size";
  EXPECT_EQ(info.storage, static_cast<uint32_t>(ABLOOM_STORAGE_MAPPED));
  EXPECT_EQ(info.read_only, 1u);
  EXPECT_GT(info.bits, 0u);
  for (size_t bad : {size_t{0}, offsetof(abloom_info, stale) - 1, offsetof(abloom_info, stale) + 4,
                     sizeof(abloom_info) + 1}) {
    if (bad == sizeof(abloom_info))
      continue;  // offset + 4 is today's size where there is no padding
    info.struct_size = bad;
    EXPECT_EQ(abloom_get_info(f.get(), &info), ABLOOM_ERR_INVALID) << bad;
  }
  info.struct_size = sizeof(abloom_info);
  ASSERT_EQ(abloom_get_info(f.get(), &info), ABLOOM_OK);
  EXPECT_EQ(info.stale, 1u);
}

// ---- abloom_seal --------------------------------------------------------------------------------

TEST(CapiSeal, SealsAStaleFile) {
  StaleFixture fx;
  ASSERT_EQ(abloom_seal(fx.stale.c_str()), ABLOOM_OK);
  const Bytes sealed = ReadAll(fx.stale);
  EXPECT_EQ(Get64(sealed, kOffFlags) & 1, 0u);
  Filter f;
  ASSERT_EQ(Open(fx.stale, ABLOOM_VERIFY_CHECKSUM, &f), ABLOOM_OK);
  EXPECT_EQ(InfoOf(f.get()).stale, 0u);
  EXPECT_EQ(Missing(f.get(), fx.before_keys), 0u);
  EXPECT_EQ(Missing(f.get(), fx.after_keys), 0u);
  // The estimate covers the writer's keys now, and the file is byte for byte what a sync (and a
  // save) of the same bits writes.
  EXPECT_GT(Get64(sealed, kOffInserted), fx.stored_estimate);
  EXPECT_EQ(sealed, Serialize(f.get()));
  EXPECT_EQ(sealed, ReadAll(fx.intact));
  // Sealing again: nothing to do.
  EXPECT_EQ(abloom_seal(fx.stale.c_str()), ABLOOM_OK);
  EXPECT_EQ(ReadAll(fx.stale), sealed);
}

TEST(CapiSeal, IntactFileIsNotWritten) {
  StaleFixture fx;
  const auto path = test_files::PathOf(fx.intact);
  const auto old_time = std::filesystem::last_write_time(path) - std::chrono::hours(48);
  std::filesystem::last_write_time(path, old_time);
  const Bytes before = ReadAll(fx.intact);
  EXPECT_EQ(abloom_seal(fx.intact.c_str()), ABLOOM_OK);
  EXPECT_EQ(ReadAll(fx.intact), before);
  EXPECT_EQ(std::filesystem::last_write_time(path), old_time) << "an intact file was written";
}

TEST(CapiSeal, CorruptFileIsRefusedAndLeftAlone) {
  StaleFixture fx;
  // Not stale, a body bit flipped: a real checksum mismatch, never sealed.
  Bytes bytes = ReadAll(fx.intact);
  bytes[ABLOOM_HEADER_BYTES + 100] ^= 0x10;
  WriteFile(fx.intact, bytes);
  EXPECT_EQ(abloom_seal(fx.intact.c_str()), ABLOOM_ERR_CHECKSUM);
  EXPECT_EQ(ReadAll(fx.intact), bytes);
  EXPECT_EQ(Open(fx.intact, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_CHECKSUM);
  // A corrupt header (stale or not): the header checksum fails first.
  Bytes header = ReadAll(fx.stale);
  header[40] ^= 0x01;  // blocks per shard
  WriteFile(fx.stale, header);
  EXPECT_EQ(abloom_seal(fx.stale.c_str()), ABLOOM_ERR_CORRUPT);
  EXPECT_EQ(ReadAll(fx.stale), header);
}

TEST(CapiSeal, StaleFileWithBitsClearedIsCorrupt) {
  // Many keys, so that clearing bits lowers the estimate well below the stored one.
  StaleFixture fx(1500, 10, 2000);
  Bytes bytes = ReadAll(fx.stale);
  ASSERT_GT(fx.stored_estimate, 1000u);
  // Zero the body's first half: fewer bits than the keys the header's estimate stood for. The
  // header checksum covers the header only, so only the fill tells.
  const size_t body = bytes.size() - ABLOOM_HEADER_BYTES;
  std::memset(bytes.data() + ABLOOM_HEADER_BYTES, 0, body / 2);
  WriteFile(fx.stale, bytes);
  EXPECT_EQ(abloom_seal(fx.stale.c_str()), ABLOOM_ERR_CORRUPT);
  EXPECT_EQ(ReadAll(fx.stale), bytes) << "a refused seal wrote the file";
  EXPECT_EQ(Open(fx.stale, ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_STALE);
}

TEST(CapiSeal, SaturatedStaysSaturated) {
  TempDir dir;
  const std::string path = dir / "full.abloom";
  Filter f = Make(Options(100, 0.01));
  uint64_t *const *shards = nullptr;
  ASSERT_EQ(abloom_get_writable_shards(f.get(), &shards), ABLOOM_OK);
  const abloom_info info = InfoOf(f.get());
  for (uint32_t s = 0; s < info.shards; ++s) {
    std::memset(shards[s], 0xFF, info.blocks_per_shard * 64);
  }
  ASSERT_EQ(abloom_save(f.get(), path.c_str()), ABLOOM_OK);
  ASSERT_EQ(Get64(ReadAll(path), kOffInserted), UINT64_MAX) << "every bit set: saturated";
  {
    Filter rw;
    ASSERT_EQ(Open(path, ABLOOM_OPEN_READ_WRITE, &rw), ABLOOM_OK);
    const Bytes stale = ReadAll(path);
    // Still full: sealed as saturated.
    WriteFile(dir / "stale-full.abloom", stale);
    // A bit cleared in every block (a unit of the estimate, which is saturated while any one
    // unit is full): the estimate is finite, below the stored saturation.
    Bytes cleared = stale;
    for (size_t at = ABLOOM_HEADER_BYTES; at < cleared.size(); at += 64) cleared[at] = 0xFE;
    WriteFile(dir / "stale-cleared.abloom", cleared);
  }
  EXPECT_EQ(abloom_seal((dir / "stale-full.abloom").c_str()), ABLOOM_OK);
  EXPECT_EQ(Get64(ReadAll(dir / "stale-full.abloom"), kOffInserted), UINT64_MAX);
  EXPECT_EQ(Open(dir / "stale-full.abloom", ABLOOM_VERIFY_CHECKSUM), ABLOOM_OK);
  const Bytes cleared = ReadAll(dir / "stale-cleared.abloom");
  EXPECT_EQ(abloom_seal((dir / "stale-cleared.abloom").c_str()), ABLOOM_ERR_CORRUPT);
  EXPECT_EQ(ReadAll(dir / "stale-cleared.abloom"), cleared);
}

TEST(CapiSeal, PathsThatAreNotFilters) {
  StaleFixture fx;
  EXPECT_EQ(abloom_seal(nullptr), ABLOOM_ERR_NULL);
  errno = 0;
  EXPECT_EQ(abloom_seal((fx.dir / "missing.abloom").c_str()), ABLOOM_ERR_IO);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(abloom_seal(fx.dir.path().c_str()), ABLOOM_ERR_IO);
  // Truncated: a stale file cut short (by a copy, say) is not sealed, nor lengthened.
  Bytes cut = ReadAll(fx.stale);
  cut.resize(cut.size() - 64);
  WriteFile(fx.stale, cut);
  EXPECT_EQ(abloom_seal(fx.stale.c_str()), ABLOOM_ERR_TRUNCATED);
  EXPECT_EQ(ReadAll(fx.stale), cut);
  WriteFile(fx.stale, Bytes{});
  EXPECT_EQ(abloom_seal(fx.stale.c_str()), ABLOOM_ERR_TRUNCATED);
  const Bytes text(200, 'x');
  WriteFile(fx.stale, text);
  EXPECT_EQ(abloom_seal(fx.stale.c_str()), ABLOOM_ERR_BAD_MAGIC);
  EXPECT_EQ(ReadAll(fx.stale), text);
}

}  // namespace
