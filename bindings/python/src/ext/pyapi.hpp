// The few CPython reads that differ between the full C API and the stable ABI.
//
// The release's abi3 wheels (one wheel for CPython 3.12 and later) are built with Py_LIMITED_API
// (CMake option ABLOOM_PY_STABLE_ABI), under which bytes, list, tuple and type objects are opaque:
// their access macros do not exist, and the functions below call CPython instead, as few times per
// key as it allows (one call per item and one per bytes key: bench/abi3_ab.py measures what they
// cost). Every other build (source builds, the per-version cp311 wheels) reads the objects
// directly, as before. Each helper takes an object already known to be of the type it names.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>

namespace abloom_py {

#ifdef Py_LIMITED_API
inline bool exact_bytes(PyObject *o) { return Py_IS_TYPE(o, &PyBytes_Type); }
// A bytes object's bytes and length, in one call.
inline const char *bytes_view(PyObject *o, Py_ssize_t *n) {
  char *p = nullptr;
  PyBytes_AsStringAndSize(o, &p, n);  // (cannot fail on a bytes object)
  return p;
}
// Item i of a list (is_list) or tuple, borrowed; null past the end (no exception), the size being
// read again at every call: Python code run between two items may change a list.
inline PyObject *seq_item(PyObject *o, bool is_list, Py_ssize_t i) {
  PyObject *item = is_list ? PyList_GetItem(o, i) : PyTuple_GetItem(o, i);
  if (item == nullptr) PyErr_Clear();  // IndexError: the end
  return item;
}
inline Py_ssize_t seq_size(PyObject *o, bool is_list) {
  return is_list ? PyList_Size(o) : PyTuple_Size(o);
}
// A new list of n bools, res[i] != 0 (or null with an exception set): [False] * n, then one call
// per True. No reference is taken for them: both are immortal from CPython 3.12 on (PEP 683), the
// only versions this build runs on, and Py_INCREF is a call here.
inline PyObject *bool_list(const uint8_t *res, size_t n) {
  PyObject *one = PyList_New(1);
  if (one == nullptr) return nullptr;
  PyList_SetItem(one, 0, Py_False);
  PyObject *list = PySequence_Repeat(one, static_cast<Py_ssize_t>(n));
  Py_DECREF(one);
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < n; i++) {
    if (res[i] != 0) PyList_SetItem(list, static_cast<Py_ssize_t>(i), Py_True);
  }
  return list;
}
// The name of o's type for a message (a new str, or null with an exception set): its qualified
// name here, as the type object is opaque.
inline PyObject *type_name(PyObject *o) { return PyType_GetQualName(Py_TYPE(o)); }
#else
inline bool exact_bytes(PyObject *o) { return PyBytes_CheckExact(o); }
inline const char *bytes_view(PyObject *o, Py_ssize_t *n) {
  *n = PyBytes_GET_SIZE(o);
  return PyBytes_AS_STRING(o);
}
inline PyObject *seq_item(PyObject *o, bool /*is_list*/, Py_ssize_t i) {
  return i < PySequence_Fast_GET_SIZE(o) ? PySequence_Fast_GET_ITEM(o, i) : nullptr;
}
inline Py_ssize_t seq_size(PyObject *o, bool /*is_list*/) { return PySequence_Fast_GET_SIZE(o); }
inline PyObject *bool_list(const uint8_t *res, size_t n) {
  PyObject *list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < n; i++) {
    PyObject *v = res[i] != 0 ? Py_True : Py_False;
    Py_INCREF(v);
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), v);
  }
  return list;
}
inline PyObject *type_name(PyObject *o) { return PyUnicode_FromString(Py_TYPE(o)->tp_name); }
#endif

}  // namespace abloom_py
