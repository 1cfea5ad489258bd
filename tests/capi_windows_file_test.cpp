// Windows' own file traps (issue 49): device names, both separators, files that another handle
// holds open, files mapped by a filter of this process, and read-only files. A save over a file
// in use either replaces it (Windows 10 and later with POSIX semantics, and wine) or fails with
// ABLOOM_ERR_IO and errno EBUSY after about a second of retries; either way both files are whole
// and no temporary file is left (capi/abloom.h, abloom_save). capi_file_test.cpp has the checks
// every system shares.

#include <abloom.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "capi_test_support.hpp"
#include "test_files.hpp"

namespace {

using capi_test::Filter;
using capi_test::LoadInto;
using capi_test::OpenErr;
using capi_test::ReadAll;
using capi_test::SaveErr;
using capi_test::Serialize;
using capi_test::SmallFilter;
using capi_test::TempDir;

std::wstring Wide(const std::string &utf8) { return test_files::PathOf(utf8).wstring(); }

// The filter saved at `path`, opened with its checksum verified.
Filter Reopened(const std::string &path) {
  Filter f;
  EXPECT_EQ(
      LoadInto(
          [&](abloom_filter **o) { return abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, o); },
          &f),
      ABLOOM_OK);
  return f;
}

// The outcome a save over a file in use may have: the new filter in place, or EBUSY with the old
// bytes (`old_bytes`) whole; no temporary file either way.
void ExpectReplacedOrBusy(const std::pair<int, int> &saved, const TempDir &dir,
                          const std::string &path, const std::vector<unsigned char> &old_bytes,
                          const abloom_filter *new_f) {
  if (saved.first == ABLOOM_OK) {
    EXPECT_EQ(ReadAll(path), Serialize(new_f));
  } else {
    EXPECT_EQ(saved, std::make_pair(ABLOOM_ERR_IO, EBUSY));
    EXPECT_EQ(ReadAll(path), old_bytes);
  }
  EXPECT_EQ(dir.List(),
            (std::set<std::string>{test_files::Utf8(test_files::PathOf(path).filename())}));
}

TEST(CapiWindowsFiles, DeviceNamesAreRefusedWithEnodev) {
  Filter f = SmallFilter(1);
  for (const char *device : {"nul", "\\\\.\\NUL", "NUL:"}) {
    SCOPED_TRACE(device);
    EXPECT_EQ(OpenErr(device, 0), std::make_pair(ABLOOM_ERR_IO, ENODEV));
    EXPECT_EQ(SaveErr(f.get(), device), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  }
}

TEST(CapiWindowsFiles, BothSeparatorsNameTheSameFile) {
  TempDir dir;
  Filter a = SmallFilter(1);
  std::string backslashed = dir / "f.abloom";
  for (char &c : backslashed) c = c == '/' ? '\\' : c;
  ASSERT_EQ(abloom_save(a.get(), backslashed.c_str()), ABLOOM_OK);
  EXPECT_EQ(dir.List(), (std::set<std::string>{"f.abloom"}));
  Filter opened = Reopened(dir / "f.abloom");
  EXPECT_EQ(abloom_equal(opened.get(), a.get()), 1);
}

// Another program reads the file with a handle that does not share deletion (most programs
// open files so): the save waits, then fails with EBUSY, leaving the file as it was.
TEST(CapiWindowsFiles, SaveOverAFileOpenWithoutShareDeleteIsBusy) {
  TempDir dir;
  Filter a = SmallFilter(1), b = SmallFilter(2);
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(a.get(), path.c_str()), ABLOOM_OK);
  HANDLE reader = CreateFileW(Wide(path).c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr,
                              OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  ASSERT_NE(reader, INVALID_HANDLE_VALUE);
  const auto saved = SaveErr(b.get(), path);
  CloseHandle(reader);
  ExpectReplacedOrBusy(saved, dir, path, Serialize(a.get()), b.get());
  // Once the handle is closed, the save goes through.
  ASSERT_EQ(abloom_save(b.get(), path.c_str()), ABLOOM_OK);
  EXPECT_EQ(ReadAll(path), Serialize(b.get()));
}

// A service saves over the file that its own filters have open, in every mode.
TEST(CapiWindowsFiles, SaveOverAFileThisProcessHasOpen) {
  for (uint32_t mode : {0u, ABLOOM_OPEN_COPY_ON_WRITE, ABLOOM_OPEN_READ_WRITE}) {
    SCOPED_TRACE(mode);
    TempDir dir;
    Filter a = SmallFilter(1), b = SmallFilter(2);
    const std::string path = dir / "f.abloom";
    ASSERT_EQ(abloom_save(a.get(), path.c_str()), ABLOOM_OK);
    Filter opened;
    ASSERT_EQ(
        LoadInto([&](abloom_filter **o) { return abloom_open(path.c_str(), mode, o); }, &opened),
        ABLOOM_OK);
    const std::vector<unsigned char> before = ReadAll(path);  // read-write: marked stale
    const auto saved = SaveErr(b.get(), path);
    ExpectReplacedOrBusy(saved, dir, path, before, b.get());
    // The open filter still holds what it opened, whatever became of the path.
    EXPECT_EQ(abloom_equal(opened.get(), a.get()), 1);
    opened.reset();
    ASSERT_EQ(abloom_save(b.get(), path.c_str()), ABLOOM_OK);
    Filter again = Reopened(path);
    EXPECT_EQ(abloom_equal(again.get(), b.get()), 1);
  }
}

// A read-only file is not replaced (EACCES, at once), nor opened for writing, and is left as it
// was.
TEST(CapiWindowsFiles, AReadOnlyFileIsNeitherReplacedNorOpenedForWriting) {
  TempDir dir;
  Filter a = SmallFilter(1), b = SmallFilter(2);
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(a.get(), path.c_str()), ABLOOM_OK);
  ASSERT_TRUE(SetFileAttributesW(Wide(path).c_str(), FILE_ATTRIBUTE_READONLY));
  EXPECT_EQ(SaveErr(b.get(), path), std::make_pair(ABLOOM_ERR_IO, EACCES));
  EXPECT_EQ(ReadAll(path), Serialize(a.get()));
  // Nor is it opened for writing; reading it is fine.
  EXPECT_EQ(OpenErr(path, ABLOOM_OPEN_READ_WRITE), std::make_pair(ABLOOM_ERR_IO, EACCES));
  EXPECT_EQ(OpenErr(path, ABLOOM_VERIFY_CHECKSUM).first, ABLOOM_OK);
  EXPECT_EQ(dir.List(), (std::set<std::string>{"f.abloom"}));
  ASSERT_TRUE(SetFileAttributesW(Wide(path).c_str(), FILE_ATTRIBUTE_NORMAL));  // for clean-up
}

// A filter opened read-write while another program reads the file: abloom_sync flushes the view
// and the file, and the reader sees the new bits; abloom_sync_last leaves the file sealed.
TEST(CapiWindowsFiles, ReadWriteSyncReachesOtherReaders) {
  TempDir dir;
  Filter a = SmallFilter(1);
  const std::string path = dir / "f.abloom";
  ASSERT_EQ(abloom_save(a.get(), path.c_str()), ABLOOM_OK);
  Filter rw;
  ASSERT_EQ(
      LoadInto(
          [&](abloom_filter **o) { return abloom_open(path.c_str(), ABLOOM_OPEN_READ_WRITE, o); },
          &rw),
      ABLOOM_OK);
  const uint64_t key[2] = {99, 99};
  ASSERT_EQ(abloom_add(rw.get(), key, sizeof key), ABLOOM_OK);
  ASSERT_EQ(abloom_sync(rw.get()), ABLOOM_OK);
  // The writer may still add, so the file stays marked stale: a checked read says so, an O(1)
  // open reads the new bits.
  abloom_filter *checked = nullptr;
  EXPECT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &checked), ABLOOM_ERR_STALE);
  Filter reader;
  ASSERT_EQ(LoadInto([&](abloom_filter **o) { return abloom_open(path.c_str(), 0, o); }, &reader),
            ABLOOM_OK);
  EXPECT_EQ(abloom_test(reader.get(), key, sizeof key), 1);
  EXPECT_EQ(abloom_equal(reader.get(), rw.get()), 1);
  // The last sync seals it: then a checked read passes.
  ASSERT_EQ(abloom_sync_last(rw.get()), ABLOOM_OK);
  Filter sealed = Reopened(path);
  EXPECT_EQ(abloom_test(sealed.get(), key, sizeof key), 1);
}

}  // namespace
