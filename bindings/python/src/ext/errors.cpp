#include "errors.hpp"

#include "abloom.h"

namespace abloom_py {

void set_code_error(const CodeError &e) {
  PyObject *mod = PyImport_ImportModule("pyabloom._errors");
  if (mod == nullptr) return;
  // The path as a bytes object passed with "N", not a "y#" format: the abi3 wheel is built
  // against CPython 3.13's headers, which call the plain (not _SizeT) function that CPython 3.12
  // then refuses '#' formats to (SystemError "PY_SSIZE_T_CLEAN macro must be defined").
  PyObject *path = PyBytes_FromStringAndSize(e.path.data(), static_cast<Py_ssize_t>(e.path.size()));
  if (path == nullptr) {
    Py_DECREF(mod);
    return;
  }
  PyObject *exc = PyObject_CallMethod(mod, "_exception_for", "issiN", e.code, e.what.c_str(),
                                      abloom_strerror(e.code), e.err_no, path);  // N: steals path
  Py_DECREF(mod);
  if (exc == nullptr) return;
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
}

void set_closed_error() {
  PyObject *mod = PyImport_ImportModule("pyabloom._errors");
  if (mod == nullptr) return;
  PyObject *cls = PyObject_GetAttrString(mod, "ClosedError");
  Py_DECREF(mod);
  if (cls == nullptr) return;
  PyErr_SetString(cls, "I/O operation on a closed BloomFilter");
  Py_DECREF(cls);
}

}  // namespace abloom_py
