#include "errors.hpp"

#include "abloom.h"

namespace abloom_py {

void set_code_error(const CodeError &e) {
  PyObject *mod = PyImport_ImportModule("abloom._errors");
  if (mod == nullptr) return;
  PyObject *exc = PyObject_CallMethod(mod, "_exception_for", "issiy#", e.code, e.what.c_str(),
                                      abloom_strerror(e.code), e.err_no, e.path.data(),
                                      static_cast<Py_ssize_t>(e.path.size()));
  Py_DECREF(mod);
  if (exc == nullptr) return;
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
}

void set_closed_error() {
  PyObject *mod = PyImport_ImportModule("abloom._errors");
  if (mod == nullptr) return;
  PyObject *cls = PyObject_GetAttrString(mod, "ClosedError");
  Py_DECREF(mod);
  if (cls == nullptr) return;
  PyErr_SetString(cls, "I/O operation on a closed BloomFilter");
  Py_DECREF(cls);
}

}  // namespace abloom_py
