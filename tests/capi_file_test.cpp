// Files that are not plain files, names, and what killed saves leave behind (issue 13), on every
// system: abloom_open refuses directories and devices at once with a clear errno; abloom_save
// refuses to replace anything but a regular file; file names are UTF-8 on every system; and a
// save removes the temporary files that killed saves of the same path left behind
// (capi_crash_test.cpp kills the saves). The POSIX special files (FIFOs, sockets, symbolic links,
// permission bits) are in capi_posix_file_test.cpp, Windows' own in capi_windows_file_test.cpp.

#include <abloom.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "capi_test_support.hpp"
#include "test_files.hpp"

namespace {

using capi_test::Filter;
using capi_test::kEveryOpenMode;
using capi_test::LoadInto;
using capi_test::OpenErr;
using capi_test::ReadAll;
using capi_test::SaveErr;
using capi_test::Serialize;
using capi_test::SmallFilter;
using capi_test::TempDir;

// The system's null device, which no mode may open and no save may replace.
#if defined(_WIN32)
const char *const kNullDevice = "NUL";
#else
const char *const kNullDevice = "/dev/null";
#endif

TEST(CapiSpecialFiles, OpenRefusesADirectoryWithEisdir) {
  TempDir dir;
  for (uint32_t flags : kEveryOpenMode) {
    SCOPED_TRACE(flags);
    EXPECT_EQ(OpenErr(dir.path(), flags), std::make_pair(ABLOOM_ERR_IO, EISDIR));
  }
}

TEST(CapiSpecialFiles, OpenRefusesTheNullDeviceWithEnodev) {
  for (uint32_t flags : kEveryOpenMode) {
    SCOPED_TRACE(flags);
    EXPECT_EQ(OpenErr(kNullDevice, flags), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  }
}

// (capi_format_test.cpp saves over a directory.)
TEST(CapiSpecialFiles, SaveRefusesToReplaceTheNullDevice) {
  Filter f = SmallFilter(1);
  EXPECT_EQ(SaveErr(f.get(), kNullDevice), std::make_pair(ABLOOM_ERR_IO, ENODEV));
}

// Names are UTF-8 on every system (converted to UTF-16 on Windows): saved, listed under the same
// name, opened again.
TEST(CapiFileNames, Utf8NamesSaveAndOpen) {
  TempDir dir;
  Filter f = SmallFilter(1);
  const std::string name =
      "filtre-\xC3\xA9t\xC3\xA9-\xE6\x97\xA5\xE6\x9C\xAC-\xF0\x9F\x8C\xB8.abloom";
  ASSERT_EQ(abloom_save(f.get(), (dir / name).c_str()), ABLOOM_OK);
  EXPECT_EQ(dir.List(), (std::set<std::string>{name}));
  EXPECT_EQ(ReadAll(dir / name), Serialize(f.get()));
  Filter opened;
  ASSERT_EQ(LoadInto(
                [&](abloom_filter **o) {
                  return abloom_open((dir / name).c_str(), ABLOOM_VERIFY_CHECKSUM, o);
                },
                &opened),
            ABLOOM_OK);
  EXPECT_EQ(abloom_equal(opened.get(), f.get()), 1);
}

// ---- What killed saves leave behind -------------------------------------------------------------

void Touch(const std::string &path) { std::ofstream(test_files::PathOf(path)) << "partial"; }

TEST(CapiStaleTemporaries, ASaveRemovesThoseOfDeadWritersOnly) {
  TempDir dir;
  Filter a = SmallFilter(1);
  // A process that has ended: the save loop with no arguments exits at once (usage). Its
  // ChildProcess lives on, so that on Windows its id is not given to another process meanwhile.
  test_files::ChildProcess ended(test_files::CommandFor(ABLOOM_TEST_SAVE_LOOP));
  ASSERT_EQ(ended.Wait(), 2);
  const std::string dead = std::to_string(ended.pid());
  const std::string alive = std::to_string(TempDir::ProcessId());
  const std::set<std::string> kept = {
      "f.abloom.tmp." + alive + ".AbCd12",  // a live writer (this process, another thread)
      "g.abloom.tmp." + dead + ".AbCd12",   // another target's
      "f.abloom.tmp.AbCd12",                // not the pattern (no pid)
      "f.abloom.tmp." + dead + ".AbCd1",    // not the pattern (5 characters)
      "f.abloom.tmp." + dead + ".dir123",   // the pattern, but a directory
  };
  for (const auto &name : kept) {
    if (name.find("dir123") != std::string::npos) {
      ASSERT_TRUE(std::filesystem::create_directory(test_files::PathOf(dir / name)));
    } else {
      Touch(dir / name);
    }
  }
  Touch(dir / ("f.abloom.tmp." + dead + ".AbCd12"));
  Touch(dir / ("f.abloom.tmp." + dead + ".zZ9yY8"));

  ASSERT_EQ(abloom_save(a.get(), (dir / "f.abloom").c_str()), ABLOOM_OK);
  std::set<std::string> expected = kept;
  expected.insert("f.abloom");
  EXPECT_EQ(dir.List(), expected);
  EXPECT_EQ(ReadAll(dir / "f.abloom"), Serialize(a.get()));
}

}  // namespace
