// The writer that the crash tests kill (capi_crash_test.cpp, core_file_io_test.cpp): it opens the
// filter files A and B, creates the file STARTED to say that it is saving, then saves B, A, B, A,
// ... over PATH until it is killed (a million saves at most). A separate program rather than a
// fork of the test, because Windows has no fork; the same on every system.
//
//   abloom_test_save_loop PATH A B STARTED         saves with abloom_save (the C API)
//   abloom_test_core_save_loop PATH A B STARTED    saves with the engine's named temporary files
//                                                  (the way of file systems without O_TMPFILE)
//
// Exits 2 on a usage error and 1 when A or B cannot be opened or STARTED cannot be made.

#include <cstdio>
#include <fstream>
#include <memory>

#if defined(ABLOOM_SAVE_LOOP_CORE)
#include "filter/filter.hpp"
#include "storage/file_io.hpp"
#else
#include <abloom.h>
#endif

namespace {

#if defined(ABLOOM_SAVE_LOOP_CORE)
using Loaded = std::unique_ptr<abloom::Filter>;
Loaded load(const char *path) {
  Loaded f;
  if (abloom::open_file(path, abloom::OpenMode::read_only, true, &f) != abloom::Errc::ok) {
    return nullptr;
  }
  return f;
}
void save(const Loaded &f, const char *path) {
  (void)abloom::save_file(*f, path, abloom::SaveMethod::named_temporary);
}
#else
struct Free {
  void operator()(abloom_filter *f) const { abloom_free(f); }
};
using Loaded = std::unique_ptr<abloom_filter, Free>;
Loaded load(const char *path) {
  abloom_filter *f = nullptr;
  if (abloom_open(path, ABLOOM_VERIFY_CHECKSUM, &f) != ABLOOM_OK) return nullptr;
  return Loaded(f);
}
void save(const Loaded &f, const char *path) { (void)abloom_save(f.get(), path); }
#endif

}  // namespace

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s PATH A B STARTED\n", argc > 0 ? argv[0] : "save_loop");
    return 2;
  }
  const Loaded a = load(argv[2]), b = load(argv[3]);
  if (!a || !b) {
    std::fprintf(stderr, "save_loop: cannot open %s or %s\n", argv[2], argv[3]);
    return 1;
  }
  if (!std::ofstream(argv[4])) {
    std::fprintf(stderr, "save_loop: cannot create %s\n", argv[4]);
    return 1;
  }
  for (int i = 0; i < 1000000; ++i) save(i % 2 == 0 ? b : a, argv[1]);
  return 0;
}
