// The Python object's C++ state: one abloom handle plus the guard that makes close() safe while
// other threads use the filter with the GIL released (batches, file I/O, estimates).
//
// Rules (all under the GIL except the work itself):
//  - a call that keeps the GIL checks `closed` and uses the handle: close() cannot run meanwhile;
//  - a call that releases the GIL first takes a Use (closed -> ClosedError; else users + 1), and
//    gives it back with the GIL held again;
//  - close() sets `closed` (so no new use starts), then waits with the GIL released until
//    `users` is 0, and only then frees the handle. Nothing can free the handle under a call.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "abloom.h"
#include "errors.hpp"

namespace abloom_py {

struct Filter {
  abloom_filter *h = nullptr;
  bool closed = false;
  std::atomic<int> users{0};

  explicit Filter(abloom_filter *handle) : h(handle) {}
  Filter(const Filter &) = delete;
  Filter &operator=(const Filter &) = delete;
  ~Filter() { abloom_free(h); }  // the last reference: nobody else can be using it

  // The handle for a call made with the GIL held; throws ClosedFilter.
  abloom_filter *get() const {
    if (closed) throw ClosedFilter{};
    return h;
  }

  void close() {
    if (closed) return;
    closed = true;
    if (users.load() != 0) {
      Py_BEGIN_ALLOW_THREADS;
      while (users.load() != 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
      Py_END_ALLOW_THREADS;
    }
    abloom_free(h);  // for a read-write mapping this also syncs the header and unmaps
    h = nullptr;
  }
};

// A use of a filter across a GIL release (see the rules above). Construct and destroy it with the
// GIL held.
class Use {
 public:
  explicit Use(Filter &f) : f_(f) {
    if (f.closed) throw ClosedFilter{};
    f_.users.fetch_add(1);
  }
  Use(const Use &) = delete;
  Use &operator=(const Use &) = delete;
  ~Use() { f_.users.fetch_sub(1); }
  abloom_filter *handle() const { return f_.h; }

 private:
  Filter &f_;
};

}  // namespace abloom_py
