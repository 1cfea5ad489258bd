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

// Keys copied into one buffer plus n+1 offsets: the packed form of the bulk C calls, which the
// GIL can be released around (the bytes are ours, no Python object is touched).
struct Packed {
  std::vector<char> buf;
  std::vector<uint64_t> offs{0};
  size_t size() const { return offs.size() - 1; }
  void clear() {
    buf.clear();
    offs.assign(1, 0);
  }
  bool append(PyObject *o);  // false with a Python exception set
};

}  // namespace abloom_py
