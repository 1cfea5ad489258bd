// A zeroed, 64-byte-aligned array of 64-bit words: the storage of one shard.
//
// Large buffers come straight from mmap: the kernel hands out zero pages lazily, so creating a
// big filter costs no memset of every byte, and they are marked for transparent huge pages,
// which cut TLB misses for the random accesses of lookups in a big filter (on Linux:
// platform::advise_huge_pages). Small ones come from aligned operator new.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "platform.hpp"

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
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    platform::advise_huge_pages(p, n);
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
      ::munmap(data_, bytes());
    } else {
      ::operator delete (data_, std::align_val_t{kCacheLine});
    }
    data_ = nullptr;
  }

  uint64_t* data_ = nullptr;
  size_t words_ = 0;
};

}  // namespace abloom
