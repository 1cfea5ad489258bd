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
//
// writer_mode "auto" (the default): exclusive while every write so far came from one thread,
// then shared, for good, from the first write of a second thread (before_write). One writing
// thread is what most programs have (a script, a loader, one worker), and plain stores make its
// adds faster (bench/RESULTS.md, "C library: bulk calls"); a second writer waits at most for the
// first one's batch chunk in flight, then all writers run lock-free side by side. A file mapped
// read-write ('r+') is never exclusive: another process may be writing it.
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
  bool exclusive = false;    // ABLOOM_WRITER_EXCLUSIVE on this handle
  bool auto_mode = true;     // writer_mode "auto" (see above)
  bool shared_file = false;  // mapped read-write: never exclusive
  bool switch_requested = false;
  unsigned long owner = 0;  // auto: the thread that has written so far (0: none yet)
  std::atomic<int> users{0};
  std::atomic<int> gil_free_writers{0};

  // With the GIL held. A new handle is shared (the C default); auto starts it exclusive.
  explicit Filter(abloom_filter *handle, bool mapped_read_write = false)
      : h(handle), shared_file(mapped_read_write) {
    start_auto();
  }

  // (Re)enters "auto": exclusive until a second thread writes. Only while nobody writes.
  void start_auto() {
    auto_mode = true;
    owner = 0;
    switch_requested = false;
    const bool x = !shared_file;
    if (abloom_set_writer_mode(h, x ? ABLOOM_WRITER_EXCLUSIVE : ABLOOM_WRITER_SHARED) == ABLOOM_OK)
      exclusive = x;
  }
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

// Called with the GIL held at the start of every write, before it touches the bits: in "auto",
// the first writing thread becomes the owner; a write from any other thread switches the filter
// to shared for good, once no write is in flight (waiting for that with the GIL released). The
// owner's next write does the switch itself when another thread asked for it, so a thread that
// adds batch after batch cannot keep the other waiting. Throws ClosedFilter if closed meanwhile.
inline void before_write(Filter &f) {
  if (!f.auto_mode || !f.exclusive) return;
  const unsigned long me = PyThread_get_thread_ident();
  if (f.owner == 0) f.owner = me;
  if (f.owner == me && !f.switch_requested) return;
  f.switch_requested = true;
  wait_for_writers(f, false);
  if (f.exclusive && abloom_set_writer_mode(f.h, ABLOOM_WRITER_SHARED) == ABLOOM_OK)
    f.exclusive = false;
}

// The start of every write, with the GIL held: the "auto" bookkeeping, then, in the exclusive
// mode, a wait until no other write runs. Throws ClosedFilter if closed meanwhile.
inline void begin_write(Filter &f) {
  before_write(f);
  wait_for_writers(f, true);
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
    begin_write(f);
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
