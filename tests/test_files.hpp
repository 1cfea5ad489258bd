// Files and processes for the tests, the same on POSIX systems and on Windows: a temporary
// directory removed at scope exit, paths as the UTF-8 strings the C API takes, and child
// processes to start, kill and wait for (the crash tests kill writers in the middle of a save).
// Tests include this rather than calling mkdtemp, fork or CreateProcess themselves.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere
#endif

namespace test_files {

// ---- Paths --------------------------------------------------------------------------------------

// `p` as UTF-8, with '/' separators: what the C API takes on every system.
inline std::string Utf8(const std::filesystem::path &p) {
  const std::u8string s = p.generic_u8string();
  return {s.begin(), s.end()};
}
// A UTF-8 string as a path.
inline std::filesystem::path PathOf(const std::string &utf8) {
  return std::filesystem::path(std::u8string(utf8.begin(), utf8.end()));
}

// A fresh directory under the system's temporary directory ($TMPDIR on POSIX, %TMP% on
// Windows), named after `prefix`, removed with everything in it at scope exit.
class TempDir {
 public:
  explicit TempDir(const std::string &prefix = "abloom-test") {
    const std::filesystem::path base = std::filesystem::temp_directory_path();
    // Unique across the processes ctest runs at once (their ids differ) and within one.
    static unsigned counter = 0;
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::string name = prefix + "-" + std::to_string(ProcessId()) + "-" +
                               std::to_string(++counter) + "-" +
                               std::to_string(static_cast<uint64_t>(now) % 1000000007u);
      std::error_code ec;
      if (std::filesystem::create_directory(base / name, ec)) {
        path_ = Utf8(base / name);
        return;
      }
      if (ec) throw std::runtime_error("cannot create a directory in " + Utf8(base));
    }
    throw std::runtime_error("no free temporary directory name in " + Utf8(base));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(PathOf(path_), ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  // The directory, as UTF-8 with '/' separators.
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const { return path_ + "/" + name; }
  // The names in it.
  std::set<std::string> List() const {
    std::set<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(PathOf(path_))) {
      names.insert(Utf8(e.path().filename()));
    }
    return names;
  }

  static uint64_t ProcessId() {
#if defined(_WIN32)
    return GetCurrentProcessId();
#else
    return static_cast<uint64_t>(::getpid());
#endif
  }

 private:
  std::string path_;
};

// ---- Child processes ----------------------------------------------------------------------------

#if defined(_WIN32)
// One argument of a Windows command line, quoted as CommandLineToArgvW and the C runtime split it:
// backslashes are literal except before a quote, where they are doubled.
inline std::wstring QuoteArgument(const std::wstring &arg) {
  std::wstring out = L"\"";
  size_t backslashes = 0;
  for (const wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    out.append(c == L'"' ? backslashes * 2 + 1 : backslashes, L'\\');
    backslashes = 0;
    out.push_back(c);
  }
  out.append(backslashes * 2, L'\\');
  out.push_back(L'"');
  return out;
}
#endif

// The words that run one of this build's programs: the emulator that runs them, from
// CMAKE_CROSSCOMPILING_EMULATOR ('|' between its words: qemu-user for a cross build; none for a
// native build, nor on Windows, where a program under wine starts others as Windows does), then
// `program` and its `args`.
inline std::vector<std::string> CommandFor(const std::string &program,
                                           const std::vector<std::string> &args = {}) {
  std::vector<std::string> words;
#if defined(ABLOOM_TEST_EMULATOR)
  const std::string emulator = ABLOOM_TEST_EMULATOR;
  for (size_t start = 0; start < emulator.size();) {
    size_t end = emulator.find('|', start);
    if (end == std::string::npos) end = emulator.size();
    if (end > start) words.push_back(emulator.substr(start, end - start));
    start = end + 1;
  }
#endif
  words.push_back(program);
  words.insert(words.end(), args.begin(), args.end());
  return words;
}

// Waits until `path` exists (a child process makes it to say that it has started), checking every
// millisecond for at most `timeout`. Whether it exists.
inline bool WaitForFile(const std::string &path,
                        std::chrono::milliseconds timeout = std::chrono::minutes(1)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::error_code ec;
  while (!std::filesystem::exists(PathOf(path), ec)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A started program, killed (and waited for) at scope exit if it still runs.
class ChildProcess {
 public:
  // The exit status Wait() returns for a process that Kill() ended.
#if defined(_WIN32)
  static constexpr int kKilled = 137;  // the code TerminateProcess gives it
#else
  static constexpr int kKilled = -SIGKILL;
#endif

  // Starts argv[0] with the arguments argv[1..] (argv[0] is a path, or on POSIX systems a name
  // found on PATH; CommandFor gives the words for one of this build's programs).
  explicit ChildProcess(std::vector<std::string> all) {
    if (all.empty()) throw std::invalid_argument("ChildProcess: no program");
#if defined(_WIN32)
    std::wstring command_line;
    for (const std::string &a : all) {
      if (!command_line.empty()) command_line += L' ';
      command_line += QuoteArgument(PathOf(a).wstring());
    }
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    PROCESS_INFORMATION info{};
    if (!CreateProcessW(PathOf(all[0]).wstring().c_str(), command_line.data(), nullptr, nullptr,
                        FALSE, 0, nullptr, nullptr, &startup, &info)) {
      throw std::runtime_error("CreateProcessW " + all[0] + ": error " +
                               std::to_string(GetLastError()));
    }
    CloseHandle(info.hThread);
    process_ = info.hProcess;
    pid_ = info.dwProcessId;
#else
    std::vector<char *> args;
    for (std::string &a : all) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    // posix_spawnp: an emulator is named by its name alone (qemu-aarch64), found on PATH; this
    // build's programs are given by path, which is used as it is.
    const int rc = ::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ);
    if (rc != 0) {
      throw std::runtime_error("posix_spawnp " + all[0] + ": " +
                               std::generic_category().message(rc));
    }
    pid_ = static_cast<uint64_t>(pid);
#endif
    running_ = true;
  }
  ~ChildProcess() {
    if (running_) {
      Kill();
      (void)Wait();
    }
#if defined(_WIN32)
    CloseHandle(process_);
#endif
  }
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;

  uint64_t pid() const { return pid_; }

  // Ends it at once, as SIGKILL does: no clean-up of its own runs. true when the signal went.
  bool Kill() {
#if defined(_WIN32)
    return TerminateProcess(process_, kKilled) != 0;
#else
    return ::kill(static_cast<pid_t>(pid_), SIGKILL) == 0;
#endif
  }

  // Waits for it to end: its exit code, or kKilled. -1000 when it cannot be waited for.
  int Wait() {
    running_ = false;
#if defined(_WIN32)
    DWORD code = 0;
    if (WaitForSingleObject(process_, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeProcess(process_, &code)) {
      return -1000;
    }
    return static_cast<int>(code);
#else
    int status = 0;
    if (::waitpid(static_cast<pid_t>(pid_), &status, 0) != static_cast<pid_t>(pid_)) return -1000;
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
#endif
  }

 private:
  uint64_t pid_ = 0;
  bool running_ = false;
#if defined(_WIN32)
  HANDLE process_ = nullptr;
#endif
};

}  // namespace test_files
