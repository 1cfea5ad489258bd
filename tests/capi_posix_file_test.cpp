// POSIX special files (issue 13): abloom_open refuses FIFOs and sockets at once with a clear
// errno (a FIFO used to block open(2) forever); abloom_save refuses to replace them, writes through
// symbolic links to their target, as editors and databases do, and keeps the target's permission
// bits. capi_file_test.cpp has the checks every system shares.

#include <abloom.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "capi_test_support.hpp"

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

// A FIFO with no writer: open(2) without O_NONBLOCK would wait for one forever.
TEST(CapiSpecialFiles, OpenRefusesAFifoAtOnce) {
  TempDir dir;
  const std::string fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0) << std::strerror(errno);
  for (uint32_t flags : kEveryOpenMode) {
    SCOPED_TRACE(flags);
    EXPECT_EQ(OpenErr(fifo, flags), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  }
}

TEST(CapiSpecialFiles, OpenRefusesDevicesAndSockets) {
  for (uint32_t flags : {0u, ABLOOM_OPEN_COPY_ON_WRITE}) {
    EXPECT_EQ(OpenErr("/dev/null", flags), std::make_pair(ABLOOM_ERR_IO, ENODEV));
    EXPECT_EQ(OpenErr("/dev/zero", flags), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  }
  // A socket file cannot be opened at all (ENXIO): still an I/O error, at once.
  TempDir dir;
  const std::string path = dir / "sock";
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr *>(&addr), sizeof addr), 0);
  EXPECT_EQ(OpenErr(path, 0).first, ABLOOM_ERR_IO);
  ::close(s);
}

TEST(CapiSpecialFiles, SaveRefusesToReplaceAnythingButAFile) {
  TempDir dir;
  Filter f = SmallFilter(1);
  ASSERT_EQ(::mkdir((dir / "sub").c_str(), 0755), 0);
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0644), 0);
  EXPECT_EQ(SaveErr(f.get(), dir / "sub"), std::make_pair(ABLOOM_ERR_IO, EISDIR));
  EXPECT_EQ(SaveErr(f.get(), dir / "pipe"), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  EXPECT_EQ(SaveErr(f.get(), "/dev/null"), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  struct stat st;
  ASSERT_EQ(::lstat((dir / "pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(dir.List(), (std::set<std::string>{"pipe", "sub"}));
}

// ---- Symbolic links ----------------------------------------------------------------------------

TEST(CapiSymlinks, SaveWritesTheTargetAndKeepsTheLink) {
  TempDir dir;
  Filter a = SmallFilter(1), b = SmallFilter(2);
  const std::string target = dir / "real.abloom";
  ASSERT_EQ(abloom_save(a.get(), target.c_str()), ABLOOM_OK);
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  ASSERT_EQ(::symlink("real.abloom", (dir / "link").c_str()), 0);            // relative
  ASSERT_EQ(::symlink((dir / "link").c_str(), (dir / "link2").c_str()), 0);  // absolute, a chain

  ASSERT_EQ(abloom_save(b.get(), (dir / "link2").c_str()), ABLOOM_OK);
  struct stat st;
  ASSERT_EQ(::lstat((dir / "link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by a file";
  ASSERT_EQ(::lstat((dir / "link2").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by a file";
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u) << "the target's permissions were not kept";
  EXPECT_EQ(ReadAll(target), Serialize(b.get()));
  Filter opened;
  ASSERT_EQ(LoadInto(
                [&](abloom_filter **o) {
                  return abloom_open((dir / "link2").c_str(), ABLOOM_VERIFY_CHECKSUM, o);
                },
                &opened),
            ABLOOM_OK);
  EXPECT_EQ(abloom_equal(opened.get(), b.get()), 1);
  EXPECT_EQ(dir.List(), (std::set<std::string>{"link", "link2", "real.abloom"}));
}

TEST(CapiSymlinks, DanglingLinkCreatesItsTarget) {
  TempDir dir;
  Filter a = SmallFilter(1);
  ASSERT_EQ(::mkdir((dir / "data").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("data/new.abloom", (dir / "link").c_str()), 0);
  ASSERT_EQ(abloom_save(a.get(), (dir / "link").c_str()), ABLOOM_OK);
  EXPECT_EQ(ReadAll(dir / "data/new.abloom"), Serialize(a.get()));
  struct stat st;
  ASSERT_EQ(::lstat((dir / "link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::stat((dir / "data/new.abloom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST(CapiSymlinks, LoopsAndLinksToSpecialFilesAreRefused) {
  TempDir dir;
  Filter a = SmallFilter(1);
  ASSERT_EQ(::symlink("loop2", (dir / "loop1").c_str()), 0);
  ASSERT_EQ(::symlink("loop1", (dir / "loop2").c_str()), 0);
  EXPECT_EQ(SaveErr(a.get(), dir / "loop1"), std::make_pair(ABLOOM_ERR_IO, ELOOP));
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0644), 0);
  ASSERT_EQ(::symlink("pipe", (dir / "to-pipe").c_str()), 0);
  EXPECT_EQ(SaveErr(a.get(), dir / "to-pipe"), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  EXPECT_EQ(OpenErr(dir / "to-pipe", 0), std::make_pair(ABLOOM_ERR_IO, ENODEV));
  EXPECT_EQ(dir.List(), (std::set<std::string>{"loop1", "loop2", "pipe", "to-pipe"}));
}

}  // namespace
