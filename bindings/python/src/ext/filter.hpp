// The Python object's C++ state: one abloom handle plus the guard that makes close() safe while
// other threads use the filter with the GIL released (batches, file I/O, estimates).
//
// Rules (all under the GIL except the work itself):
//  - a call that keeps the GIL checks `closed` and uses the handle: close() cannot run meanwhile;
//  - a call that releases the GIL first takes a Use (closed -> ClosedError; else users + 1), and
//    gives it back with the GIL held again;
//  - close() sets `closed` (so no new use starts), then waits with the GIL released until
//    `users` is 0, and only then frees the handle. Nothing can free the handle under a call.
// Writers (see WriteUse): a write that releases the GIL also counts itself in `gil_free_writers`.
// In the exclusive-writer mode (plain stores: two writers at once could lose bits) a write waits
// until that count is 0, so one write runs at a time; a single add (GIL held) waits the same way,
// and a batch cannot start under it, since starting takes the GIL. The mode changes only when
// the count is 0, and sync() runs only then, holding the GIL (the C API wants no add during it).
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
  bool exclusive = false;  // ABLOOM_WRITER_EXCLUSIVE on this handle
  std::atomic<int> users{0};
  std::atomic<int> gil_free_writers{0};

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

// Called with the GIL held; returns with it held and no write running with the GIL released
// (when `only_if_exclusive`, only in the exclusive mode). Throws ClosedFilter if the filter was
// closed meanwhile.
inline void wait_for_writers(Filter &f, bool only_if_exclusive) {
  while ((f.exclusive || !only_if_exclusive) && f.gil_free_writers.load() != 0) {
    Py_BEGIN_ALLOW_THREADS;
    while (f.gil_free_writers.load() != 0)
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    Py_END_ALLOW_THREADS;
    if (f.closed) throw ClosedFilter{};
  }
}

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

// A write across a GIL release: a Use that also counts as a writer (see the rules above).
class WriteUse {
 public:
  explicit WriteUse(Filter &f) : f_(f) {
    if (f.closed) throw ClosedFilter{};
    wait_for_writers(f, true);
    f_.users.fetch_add(1);
    f_.gil_free_writers.fetch_add(1);
  }
  WriteUse(const WriteUse &) = delete;
  WriteUse &operator=(const WriteUse &) = delete;
  ~WriteUse() {
    f_.gil_free_writers.fetch_sub(1);
    f_.users.fetch_sub(1);
  }
  abloom_filter *handle() const { return f_.h; }

 private:
  Filter &f_;
};

}  // namespace abloom_py
