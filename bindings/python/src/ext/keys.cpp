#include "keys.hpp"

namespace abloom_py {

namespace {

bool type_error(PyObject *o) {
  if (PyObject *name = type_name(o)) {  // (else its exception is the one raised)
    PyErr_Format(PyExc_TypeError,
                 "abloom keys are str, bytes, bytearray, memoryview or int, not %.200U", name);
    Py_DECREF(name);
  }
  return false;
}

bool overflow_error() {
  PyErr_SetString(PyExc_OverflowError,
                  "int keys must be in [-2**63, 2**64): a key is 8 bytes (little-endian)");
  return false;
}

void store_le(uint64_t u, unsigned char out[8]) {
  for (int i = 0; i < 8; i++) out[i] = static_cast<unsigned char>(u >> (8 * i));
}

}  // namespace

bool int_key_bytes(PyObject *o, unsigned char out[8]) {
  // bool is an int subclass, but True as the key 1 would be a silent surprise.
  if (PyBool_Check(o)) return type_error(o);
  PyObject *num = PyLong_Check(o) ? (Py_INCREF(o), o) : PyNumber_Index(o);
  if (num == nullptr) return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(num, &overflow);
  uint64_t u = static_cast<uint64_t>(v);
  bool ok = true;
  if (overflow == 0 && v == -1 && PyErr_Occurred()) {
    ok = false;
  } else if (overflow < 0) {
    ok = overflow_error();
  } else if (overflow > 0) {
    u = PyLong_AsUnsignedLongLong(num);
    if (u == static_cast<uint64_t>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      ok = overflow_error();
    }
  }
  Py_DECREF(num);
  if (ok) store_le(u, out);
  return ok;
}

bool Key::set(PyObject *o) {
  // The exact types first: their tests cost no call in any build, the subclass tests one each
  // under the stable ABI (a type cannot derive from both bytes and str).
  const bool exact_str = Py_IS_TYPE(o, &PyUnicode_Type);
  if (!exact_str && (exact_bytes(o) || PyBytes_Check(o))) {
    p_ = bytes_view(o, &n_);
    return true;
  }
  if (exact_str || PyUnicode_Check(o)) {
    p_ = PyUnicode_AsUTF8AndSize(o, &n_);  // cached in the str; fails on lone surrogates
    return p_ != nullptr;
  }
  if (PyByteArray_Check(o) || PyMemoryView_Check(o)) {
    // PyBUF_SIMPLE: a non-contiguous memoryview raises BufferError rather than being copied.
    if (PyObject_GetBuffer(o, &view_, PyBUF_SIMPLE) != 0) return false;
    has_view_ = true;
    p_ = static_cast<const char *>(view_.buf);
    n_ = view_.len;
    return true;
  }
  if (PyLong_Check(o) || (!PyFloat_Check(o) && PyIndex_Check(o))) {
    if (!int_key_bytes(o, le_)) return false;
    p_ = reinterpret_cast<const char *>(le_);
    n_ = 8;
    return true;
  }
  return type_error(o);
}

bool HashBatch::append_other(PyObject *o) {
  // str first, and its exact type before the subclass test, which is a call under the stable ABI.
  if (Py_IS_TYPE(o, &PyUnicode_Type) || PyUnicode_Check(o)) {
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(o, &n);  // cached in the str
    if (p == nullptr) return false;
    hash_or_defer(o, p, static_cast<size_t>(n));
    return true;
  }
  if (PyBytes_Check(o)) {  // a long one or a subclass (append hashed the others)
    Py_ssize_t n;
    const char *p = bytes_view(o, &n);
    hash_or_defer(o, p, static_cast<size_t>(n));
    return true;
  }
  if (PyByteArray_Check(o) || PyMemoryView_Check(o)) {
    Py_buffer view;
    // PyBUF_SIMPLE: a non-contiguous memoryview raises BufferError rather than being copied.
    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) != 0) return false;
    if (hash_or_defer(nullptr, view.buf, static_cast<size_t>(view.len))) {
      views_.push_back(view);  // the export holds the object and its bytes in place
    } else {
      PyBuffer_Release(&view);
    }
    return true;
  }
  if (PyLong_Check(o) || (!PyFloat_Check(o) && PyIndex_Check(o))) {
    unsigned char le[8];
    Py_INCREF(o);  // __index__ may run Python code that drops the caller's reference
    const bool ok = int_key_bytes(o, le);
    Py_DECREF(o);
    if (!ok) return false;
    hashes_[n_++] = hash(le, 8);
    return true;
  }
  return type_error(o);
}

void HashBatch::hash_deferred() {
  for (const Deferred &d : deferred_) hashes_[d.slot] = hash(d.p, d.len);
}

void HashBatch::clear() {
  for (PyObject *r : refs_) Py_DECREF(r);
  refs_.clear();
  for (Py_buffer &v : views_) PyBuffer_Release(&v);
  views_.clear();
  deferred_.clear();
  n_ = 0;
}

}  // namespace abloom_py
