// The writer that the chain crash test kills (capi_crash_test.cpp, KilledChainWritersLoseNothing):
// it opens the growing filter file PATH read-write, creates the file STARTED, then adds the
// 8-byte keys 0, 1, 2, ... one at a time, appending stages as the chain fills, until it is killed
// (2^26 keys at most). After every 256 keys it writes how many keys it has added (8 bytes,
// little-endian) at the start of PROGRESS and flushes it to the system: every key below that
// count was added before the kill. A program of its own, as save_loop.cpp is (Windows has no
// fork).
//
//   abloom_test_grow_loop PATH STARTED PROGRESS
//
// Exits 2 on a usage error and 1 when PATH cannot be opened or STARTED or PROGRESS made.

#include <abloom.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PATH STARTED PROGRESS\n", argc > 0 ? argv[0] : "grow_loop");
    return 2;
  }
  abloom_filter *f = nullptr;
  if (const int rc = abloom_open(argv[1], ABLOOM_OPEN_READ_WRITE, &f); rc != ABLOOM_OK) {
    std::fprintf(stderr, "grow_loop: cannot open %s: %s\n", argv[1], abloom_strerror(rc));
    return 1;
  }
  std::FILE *progress = std::fopen(argv[3], "wb");
  if (progress == nullptr || !std::ofstream(argv[2])) {
    std::fprintf(stderr, "grow_loop: cannot create %s or %s\n", argv[3], argv[2]);
    return 1;
  }
  for (uint64_t key = 0; key < (uint64_t{1} << 26); ++key) {
    if (abloom_add(f, &key, sizeof key) != ABLOOM_OK) return 1;
    if ((key + 1) % 256 == 0) {
      unsigned char count[8];
      for (int b = 0; b < 8; ++b) count[b] = static_cast<unsigned char>((key + 1) >> (8 * b));
      if (std::fseek(progress, 0, SEEK_SET) != 0 || std::fwrite(count, 1, 8, progress) != 8 ||
          std::fflush(progress) != 0) {
        return 1;
      }
    }
  }
  std::fclose(progress);
  abloom_free(f);
  return 0;
}
