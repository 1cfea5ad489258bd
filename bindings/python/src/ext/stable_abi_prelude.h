/* Included first (-include) by every C++ file of the stable-ABI build (CMake option
 * ABLOOM_PY_STABLE_ABI), nanobind's own sources too: nanobind's headers print to stderr without
 * including <stdio.h>, and under Py_LIMITED_API neither Python.h nor zig's libc++ brings it in
 * (the release's abi3 wheels failed to compile). Python.h comes first, as CPython asks. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
