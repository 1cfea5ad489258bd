// Python objects to key bytes. One rule for every binding: str is its UTF-8, bytes / bytearray /
// memoryview their bytes, and an int (or anything with __index__ except bool) the 8 little-endian
// bytes of its 64-bit two's complement value, as Java's put(long) writes them; so -1 and
// 2**64 - 1 are the same key, and ints outside [-2**63, 2**64) raise OverflowError.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <vector>

namespace abloom_py {

// One key's bytes, borrowed from the object (or from `le` for an int); holds a buffer export of
// a bytearray or memoryview until destroyed, so the bytes cannot move meanwhile.
class Key {
 public:
  Key() = default;
  Key(const Key &) = delete;
  Key &operator=(const Key &) = delete;
  ~Key() {
    if (has_view_) PyBuffer_Release(&view_);
  }
  // False with a Python exception set when `o` is not a key.
  bool set(PyObject *o);
  const char *data() const { return p_; }
  size_t size() const { return static_cast<size_t>(n_); }

 private:
  const char *p_ = nullptr;
  Py_ssize_t n_ = 0;
  unsigned char le_[8] = {};
  Py_buffer view_{};
  bool has_view_ = false;
};

// The 8 little-endian bytes of an int key; false with OverflowError/TypeError set.
bool int_key_bytes(PyObject *o, unsigned char out[8]);

// A batch of keys for the pointer-and-length bulk calls (abloom_add_many / abloom_test_many),
// with no copy of the keys: each pointer goes into the key object itself (bytes, the UTF-8 that
// str caches, a buffer export of a bytearray or memoryview), or into `ints` for an int. The batch
// holds a reference to every object (and every buffer export) until clear(), so the GIL can be
// released around the C call: no other thread can free or resize what the pointers point at.
class Batch {
 public:
  explicit Batch(size_t capacity);
  Batch(const Batch &) = delete;
  Batch &operator=(const Batch &) = delete;
  ~Batch() { clear(); }
  bool append(PyObject *o);  // false with a Python exception set
  size_t size() const { return ptrs_.size(); }
  bool full() const { return ptrs_.size() == capacity_; }
  const void *const *ptrs() const { return ptrs_.data(); }
  const size_t *lens() const { return lens_.data(); }
  void clear();

 private:
  size_t capacity_;
  std::vector<const void *> ptrs_;
  std::vector<size_t> lens_;
  std::vector<PyObject *> refs_;
  std::vector<Py_buffer> views_;
  std::vector<uint64_t> ints_;  // reserved to capacity_: never reallocates, so pointers hold
};

}  // namespace abloom_py
