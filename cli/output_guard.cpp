#include "output_guard.hpp"

#include <cerrno>
#include <cstring>

#include "input.hpp"
#include "system.hpp"

namespace abloom_cli {

namespace {

// The first 8 bytes of every abloom file (docs/FORMAT.md): \x89 keeps it from reading as text,
// as PNG's does.
constexpr char kMagic[8] = {'\x89', 'A', 'B', 'L', 'O', 'O', 'M', '\n'};

// Whether the regular file `path` starts with the magic; throws when it cannot be read, since
// then nothing says it is a filter.
bool starts_like_a_filter(const std::string& option, const std::string& path) {
  const int fd = sys::open_read(path);
  if (fd < 0) {
    const int err = errno;
    throw CliError(option + " " + path + ": exists and cannot be read to check that it is an " +
                   "abloom filter (" + errno_text(err) + "); give --force to replace it anyway");
  }
  char head[sizeof kMagic] = {};
  size_t have = 0;
  while (have < sizeof head) {
    const int64_t got = sys::read_some(fd, head + have, sizeof head - have);
    if (got <= 0) break;
    have += static_cast<size_t>(got);
  }
  sys::close_fd(fd);
  return have == sizeof head && std::memcmp(head, kMagic, sizeof head) == 0;
}

[[noreturn]] void refuse_same_file(const std::string& option, const std::string& output,
                                   const std::string& input) {
  const std::string which = input == "-" ? "standard input" : "'" + input + "'";
  throw CliError(option + " " + output + ": is the input " + which +
                 " (the same file): write the filter to another file");
}

}  // namespace

void guard_output(const std::string& option, const std::string& output,
                  const std::vector<std::string>& inputs, bool force) {
  sys::FileId out;
  // Missing (or unreachable): nothing to clobber; the save itself reports what is wrong.
  if (sys::file_id_of_path(output, out) != 0) return;
  for (const std::string& input : inputs) {
    sys::FileId in;
    const int err = input == "-" ? sys::file_id_of_fd(0, in) : sys::file_id_of_path(input, in);
    if (err == 0 && in == out) {
      // Not even --force: the output is written before the input is read to its end (dedupe),
      // or replaces it (build), so the keys would be lost either way.
      refuse_same_file(option, output, input);
    }
  }
  sys::FileKind kind;
  // Directories and devices are refused by the save itself, with the system's reason.
  if (force || sys::kind_of_path(output, kind) != 0 || !kind.regular) return;
  if (!starts_like_a_filter(option, output)) {
    throw CliError(option + " " + output +
                   ": exists and is not an abloom filter; give --force to replace it");
  }
}

}  // namespace abloom_cli
