// 64-byte-aligned heap blocks of an exact size, for the bytes the tests hand abloom_view (which
// wants them 64-byte aligned), on every system: C++17's aligned operator new, because Windows' C
// runtime has neither aligned_alloc nor posix_memalign. A block is exactly as long as asked (at
// least 1 byte), so a sanitizer build catches any read past it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>

namespace test_memory {

struct AlignedDelete {
  void operator()(unsigned char *p) const noexcept { ::operator delete (p, std::align_val_t{64}); }
};
using AlignedBlock = std::unique_ptr<unsigned char, AlignedDelete>;

// `bytes` bytes (at least 1), 64-byte aligned; throws std::bad_alloc.
inline AlignedBlock Aligned64(size_t bytes) {
  return AlignedBlock(static_cast<unsigned char *>(
      ::operator new (std::max<size_t>(bytes, 1), std::align_val_t{64})));
}

// A 64-byte-aligned copy of [src, src + len).
inline AlignedBlock Aligned64Copy(const void *src, size_t len) {
  AlignedBlock b = Aligned64(len);
  if (len > 0) std::memcpy(b.get(), src, len);
  return b;
}

}  // namespace test_memory
