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

#include "layout/hash.hpp"  // core/layout/hash.hpp: the engine's own key hash
#include "pyapi.hpp"

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

// A key's hash as the library computes it (abloom_hash): the engine's own abloom::hash_key
// (core/layout/hash.hpp, XXH3-64 with the filter's seed, short keys inline), not a second copy of
// it. Compiled here rather than called through abloom_hash because a call per key is a large part
// of a batch walk (tests/test_batch.py: filters filled by batches equal filters filled key by key
// through abloom_add, for every key type, lengths 0 to 100000 and 3 seeds).
inline uint64_t key_hash(uint64_t seed, const void *p, size_t len) {
  return abloom::hash_key(seed, p, len);
}

// A batch of keys as their hashes, for the hash bulk calls (abloom_add_hashes /
// abloom_test_hashes). append() hashes a key while its object is in cache, with the filter's hash
// (XXH3-64 with the filter's seed, from xxHash: what abloom_hash computes), and keeps no
// reference: walking a list of small keys is bound by reading the key objects from memory, and
// hashing each one as it is read overlaps the two, where holding references (a count written in
// every object, released after the call) and hashing in the C call did not: update of small keys
// measured much faster this way (bench/JOURNAL.md, "Python: keys hashed as the batch walks them").
// Keys of
// kGilFreeFrom bytes or more are hashed later, by hash_deferred() with the GIL released (hashlib's
// rule for the same reason): the batch holds a reference to such a key (or a buffer export of a
// bytearray or memoryview) until clear(), so no other thread can free or resize it meanwhile.
// Fixed-capacity arrays with one counter: append() is on the per-key path of every batch.
class HashBatch {
 public:
  // Keys at least this long are hashed with the GIL released (hashlib's HASHLIB_GIL_MINSIZE).
  static constexpr size_t kGilFreeFrom = 2048;

  HashBatch(size_t capacity, uint64_t seed)
      : capacity_(capacity), seed_(seed), hashes_(new uint64_t[capacity]) {}
  HashBatch(const HashBatch &) = delete;
  HashBatch &operator=(const HashBatch &) = delete;
  ~HashBatch() { clear(); }
  // Adds `o` (a borrowed reference: nothing here runs Python code before `o` is hashed or
  // referenced). False with a Python exception set when `o` is not a key. Only when !full().
  bool append(PyObject *o) {
    if (exact_bytes(o)) {  // (a subclass of bytes goes the longer way)
      Py_ssize_t len;
      const char *p = bytes_view(o, &len);
      if (static_cast<size_t>(len) < kGilFreeFrom) {
        hashes_[n_++] = hash(p, static_cast<size_t>(len));
        return true;
      }
    }
    return append_other(o);
  }
  // Hashes the keys that append() deferred; needs no GIL.
  void hash_deferred();
  bool deferred_empty() const { return deferred_.empty(); }
  size_t size() const { return n_; }
  bool full() const { return n_ == capacity_; }
  const uint64_t *hashes() const { return hashes_.get(); }
  void clear();

 private:
  struct Deferred {
    size_t slot;
    const void *p;
    size_t len;
  };
  uint64_t hash(const void *p, size_t len) const { return key_hash(seed_, p, len); }
  // Hashes p[0, len) now, or, for a key of kGilFreeFrom bytes or more, defers it and holds a
  // reference to `owner` until clear() (a null owner: the caller keeps a buffer export instead).
  // True when deferred.
  bool hash_or_defer(PyObject *owner, const void *p, size_t len) {
    if (len < kGilFreeFrom) {
      hashes_[n_++] = hash(p, len);
      return false;
    }
    if (owner != nullptr) {
      Py_INCREF(owner);
      refs_.push_back(owner);
    }
    deferred_.push_back({n_++, p, len});
    return true;
  }
  bool append_other(PyObject *o);

  size_t capacity_;
  uint64_t seed_;
  size_t n_ = 0;
  std::unique_ptr<uint64_t[]> hashes_;
  std::vector<Deferred> deferred_;
  std::vector<PyObject *> refs_;
  std::vector<Py_buffer> views_;
};

}  // namespace abloom_py
