// The keys of a bulk call, as the kernels' bulk loops read them: the C API describes its arrays
// as a KeySource (capi/abloom_capi.cpp), the filter splits it across threads (filter/bulk.cpp),
// and a bulk loop hashes key i through for_each_form's accessor (blocked_pipeline.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "layout/hash.hpp"

namespace abloom {

// The keys of a bulk call, in one of the three forms the C API takes, or a fourth the C API
// makes of a packed batch whose keys all have one length (fixed: no offsets to read). Key i is
// hashed by for_each_form's accessor; advanced() drops the first keys (threads take sub-ranges).
struct KeySource {
  enum class Form : uint32_t { hashes, arrays, packed, fixed };
  Form form = Form::hashes;
  const uint64_t* hashes = nullptr;    // Form::hashes
  const void* const* keys = nullptr;   // Form::arrays: keys[i], lens[i] bytes
  const size_t* lens = nullptr;        //
  const unsigned char* buf = nullptr;  // Form::packed: buf[offsets[i] .. offsets[i + 1])
  const uint64_t* offsets = nullptr;   //
  size_t key_len = 0;                  // Form::fixed: buf[i * key_len .. (i + 1) * key_len)

  static KeySource of_hashes(const uint64_t* h) noexcept {
    KeySource s;
    s.hashes = h;
    return s;
  }
  static KeySource of_arrays(const void* const* k, const size_t* l) noexcept {
    KeySource s;
    s.form = Form::arrays;
    s.keys = k;
    s.lens = l;
    return s;
  }
  static KeySource of_packed(const unsigned char* b, const uint64_t* o) noexcept {
    KeySource s;
    s.form = Form::packed;
    s.buf = b;
    s.offsets = o;
    return s;
  }
  static KeySource of_fixed(const unsigned char* b, size_t len) noexcept {
    KeySource s;
    s.form = Form::fixed;
    s.buf = b;
    s.key_len = len;
    return s;
  }
  // The same keys from key `first` on.
  KeySource advanced(size_t first) const noexcept {
    KeySource s = *this;
    switch (form) {
      case Form::hashes:
        s.hashes += first;
        break;
      case Form::arrays:
        s.keys += first;
        s.lens += first;
        break;
      case Form::packed:
        s.offsets += first;
        break;
      case Form::fixed:
        s.buf += first * key_len;
        break;
    }
    return s;
  }
};

// hash_at for a batch of keys that all have kLen <= kInlineHashMax bytes (Form::fixed): with the
// length a constant, XXH3's short path drops its length tests, key i is found by a shift, and
// the loop around it has no call to the long-key hash, so it keeps its state in registers.
template <size_t kLen>
struct FixedLengthHash {
  static_assert(kLen <= kInlineHashMax);
  const unsigned char* buf;
  uint64_t seed;
  [[gnu::always_inline]] uint64_t operator()(size_t i) const noexcept {
    return hash_key_short(seed, buf + i * kLen, kLen);
  }
};

// The hashes of keys 0, 1, 2, ... in order, for a loop that hashes each key once and in order
// (blocked_pipeline.hpp's prefetched_loop): hash_at(i) for every form, and for fixed-length keys
// a pointer stepped by the length, where buf + i * kLen costs a shift, an add and, under a bulk
// loop's register pressure, a reload of buf from the stack for every key.
template <class HashAt>
struct HashCursor {
  HashAt hash_at;
  size_t i = 0;
  explicit HashCursor(HashAt at) noexcept : hash_at(at) {}
  [[gnu::always_inline]] uint64_t next() noexcept { return hash_at(i++); }
};

template <size_t kLen>
struct HashCursor<FixedLengthHash<kLen>> {
  const unsigned char* key;
  uint64_t seed;
  explicit HashCursor(FixedLengthHash<kLen> at) noexcept : key(at.buf), seed(at.seed) {}
  [[gnu::always_inline]] uint64_t next() noexcept {
    const uint64_t h = hash_key_short(seed, key, kLen);
    key += kLen;
    return h;
  }
};

// The key lengths the blocked kind's bulk loops get a loop of their own for
// (FixedLengths::specialised): 64-bit ids and 128-bit ones (UUIDs), the common fixed-width keys.
// Each length is a copy of every bulk loop in every kernel, so only those two.
enum class FixedLengths { generic, specialised };

// Calls fn(hash_at) once, with hash_at(i) = the hash of key i under `seed`, specialised for the
// source's form (one switch per call, none per key), and with kLengths == specialised for keys
// of 8 or 16 bytes each (FixedLengthHash). The accessors capture copies, not references: after
// an out-of-line hash the compiler would otherwise reload them for every key. They are always
// inlined: GCC left the lock-free bulk add's hash out of line, a call per key (bench/JOURNAL.md,
// "Packed keys of one length").
template <FixedLengths kLengths = FixedLengths::generic, class Fn>
inline auto for_each_form(const KeySource& src, uint64_t seed, Fn fn) {
  switch (src.form) {
    case KeySource::Form::arrays:
      return fn([ k = src.keys, l = src.lens, seed ](size_t i)
                    __attribute__((always_inline)) { return hash_key(seed, k[i], l[i]); });
    case KeySource::Form::packed:
      return fn([ b = src.buf, o = src.offsets, seed ](size_t i) __attribute__((always_inline)) {
        return hash_key(seed, b + o[i], o[i + 1] - o[i]);
      });
    case KeySource::Form::fixed:
      if constexpr (kLengths == FixedLengths::specialised) {
        if (src.key_len == 16) return fn(FixedLengthHash<16>{src.buf, seed});
        if (src.key_len == 8) return fn(FixedLengthHash<8>{src.buf, seed});
      }
      return fn([ b = src.buf, l = src.key_len, seed ](size_t i)
                    __attribute__((always_inline)) { return hash_key(seed, b + i * l, l); });
    case KeySource::Form::hashes:
      break;
  }
  return fn([h = src.hashes](size_t i) __attribute__((always_inline)) { return h[i]; });
}

}  // namespace abloom
