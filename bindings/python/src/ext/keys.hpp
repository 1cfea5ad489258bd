// Python objects to key bytes. One rule for every binding: str is its UTF-8, bytes / bytearray /
// memoryview their bytes, and an int (or anything with __index__ except bool) the 8 little-endian
// bytes of its 64-bit two's complement value, as Java's put(long) writes them; so -1 and
// 2**64 - 1 are the same key, and ints outside [-2**63, 2**64) raise OverflowError.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <memory>
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
// Fixed-capacity arrays with one counter: append() is on the per-key path of every batch.
class Batch {
 public:
  explicit Batch(size_t capacity)
      : capacity_(capacity),
        ptrs_(new const void *[capacity]),
        lens_(new size_t[capacity]),
        refs_(new PyObject *[capacity]),
        ints_(new uint64_t[capacity]) {}
  Batch(const Batch &) = delete;
  Batch &operator=(const Batch &) = delete;
  ~Batch() { clear(); }
  // Adds `o` (a borrowed reference: append takes its own before any Python code can run). False
  // with a Python exception set when `o` is not a key. Only when !full().
  bool append(PyObject *o) {
    if (PyBytes_Check(o)) {
      push(o, PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
      return true;
    }
    return append_other(o);
  }
  size_t size() const { return n_; }
  bool full() const { return n_ == capacity_; }
  const void *const *ptrs() const { return ptrs_.get(); }
  const size_t *lens() const { return lens_.get(); }
  void clear();

 private:
  void push(PyObject *ref, const void *p, size_t len) {
    Py_INCREF(ref);
    refs_[nrefs_++] = ref;
    ptrs_[n_] = p;
    lens_[n_++] = len;
  }
  bool append_other(PyObject *o);

  size_t capacity_;
  size_t n_ = 0, nrefs_ = 0, nints_ = 0;
  std::unique_ptr<const void *[]> ptrs_;
  std::unique_ptr<size_t[]> lens_;
  std::unique_ptr<PyObject *[]> refs_;
  std::unique_ptr<uint64_t[]> ints_;
  std::vector<Py_buffer> views_;
};

}  // namespace abloom_py
