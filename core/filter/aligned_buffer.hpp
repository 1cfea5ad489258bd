// A zeroed, 64-byte-aligned array of 64-bit words: the storage of one shard.
//
// Large buffers come straight from the system (platform::map_zeroed: mmap, VirtualAlloc): it
// hands out zero pages lazily, so creating a big filter costs no memset of every byte, and on
// Linux they are marked for transparent huge pages, which cut TLB misses for the random accesses
// of lookups in a big filter. Small ones come from aligned operator new.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "platform/platform.hpp"

namespace abloom {

inline constexpr size_t kCacheLine = 64;
inline constexpr size_t kMmapMinBytes = size_t{2} << 20;  // one huge page

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // Throws std::bad_alloc when the memory cannot be had.
  explicit AlignedBuffer(size_t words) : words_(words) {
    if (words == 0) return;
    data_ = static_cast<uint64_t*>(bytes() >= kMmapMinBytes ? map(bytes()) : allocate(bytes()));
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), words_(std::exchange(o.words_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      words_ = std::exchange(o.words_, 0);
    }
    return *this;
  }
  ~AlignedBuffer() { release(); }

  uint64_t* data() noexcept { return data_; }
  const uint64_t* data() const noexcept { return data_; }
  size_t words() const noexcept { return words_; }

 private:
  size_t bytes() const noexcept { return words_ * sizeof(uint64_t); }

  // Page-aligned (hence 64-byte aligned) zero pages, faulted in on first touch.
  static void* map(size_t n) {
    void* p = platform::map_zeroed(n);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void* allocate(size_t n) {
    void* p = ::operator new (n, std::align_val_t{kCacheLine});
    std::memset(p, 0, n);
    return p;
  }

  void release() noexcept {
    if (data_ == nullptr) return;
    if (bytes() >= kMmapMinBytes) {
      platform::unmap_zeroed(data_, bytes());
    } else {
      ::operator delete (data_, std::align_val_t{kCacheLine});
    }
    data_ = nullptr;
  }

  uint64_t* data_ = nullptr;
  size_t words_ = 0;
};

}  // namespace abloom
