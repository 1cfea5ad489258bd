// Turning the C library's error codes into Python exceptions. The mapping itself lives in Python
// (abloom/_errors.py, `_exception_for`), so it is typed, documented and tested in one place; this
// side only carries the code, the errno of a failed file call and the path to it.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>

namespace abloom_py {

// Thrown by the nanobind-bound functions; translated by the translator registered in module.cpp.
struct CodeError {
  int code;          // a negative ABLOOM_ERR_*
  int err_no;        // errno right after the call, for ABLOOM_ERR_IO; 0 otherwise
  std::string what;  // the operation ("open", "save", ...)
  std::string path;  // the file, for file calls; empty otherwise
};

// Thrown when a closed filter is used.
struct ClosedFilter {};

// Sets the Python exception for `e` (never fails silently: if the mapping itself fails, its own
// exception is left set).
void set_code_error(const CodeError &e);
void set_closed_error();

}  // namespace abloom_py
