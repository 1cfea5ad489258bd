#include "bulk.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "keys.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace abloom_py {

// An int array's memory is the keys' bytes only on a little-endian machine.
static_assert(std::endian::native == std::endian::little, "int arrays are passed as LE bytes");

namespace {

// Keys of an int array per use of the filter (one GIL release): large enough that taking the
// GIL back costs nothing per key, small enough that a second writer waits little (filter.hpp).
constexpr size_t kChunk = 1 << 16;
// Hashes per engine call, for iterables of Python objects (HashBatch) and int arrays alike: 4096
// hashes (32 KiB) stay in cache between the loop that computes them and the call that probes
// them; 4096 measured faster than 1024 or 16384 for lists and NumPy arrays alike (bench/
// JOURNAL.md, "Python: keys hashed as the batch walks them").
constexpr size_t kHashesPerCall = 4096;
// Below this many keys the GIL is kept: releasing and taking it back costs more than the work.
constexpr size_t kReleaseGilFrom = 256;
// The C library splits a bulk call across the filter's threads (abloom_set_threads) only from
// this many keys up.
constexpr size_t kSplitFrom = 1 << 16;
static_assert(kChunk >= kSplitFrom, "an int array's chunk is one splittable call");

// Hashes per engine call: kHashesPerCall, which stay in cache, or, for a filter with bulk
// threads, kSplitFrom, so that the engine can split each call across them. Read once per batch.
size_t hashes_per_call(Filter &f) {
  return abloom_get_threads(f.get()) > 1 ? kSplitFrom : kHashesPerCall;
}

void check(int rc, const char *what) {
  if (rc < 0) throw CodeError{rc, 0, what, {}};
}

// What a batch does with its keys: add them, test them, or test-and-add them in order.
enum class Op { add, test, test_and_add };

const char *op_name(Op op) {
  switch (op) {
    case Op::add:
      return "add_many";
    case Op::test:
      return "contains_many";
    case Op::test_and_add:
      break;
  }
  return "test_and_add_many";
}

// One engine call over n hashes: `results` unused by adds, `added` by tests.
int call_hashes(Op op, abloom_filter *h, const uint64_t *hashes, size_t n, uint8_t *results,
                uint64_t *added) {
  switch (op) {
    case Op::add:
      return abloom_add_hashes(h, hashes, n, added);
    case Op::test:
      return abloom_test_hashes(h, hashes, n, results, nullptr);
    case Op::test_and_add:
      break;
  }
  return abloom_test_and_add_hashes(h, hashes, n, results, added);
}

// Runs fn(handle) under a use of the filter: a write (WriteUse) for adds and test-and-adds, a
// read (Use) for tests.
template <class Fn>
int with_use(Filter &f, Op op, Fn &&fn) {
  if (op == Op::test) {
    Use use(f);
    return fn(use.handle());
  }
  WriteUse use(f);
  return fn(use.handle());
}

// The hash call for a HashBatch, GIL released when worth it (its deferred keys are hashed then).
void run_batch(Filter &f, Op op, HashBatch &b, uint8_t *results, uint64_t *added) {
  const size_t n = b.size();
  const bool release = n >= kReleaseGilFrom || !b.deferred_empty();
  const int rc = with_use(f, op, [&](abloom_filter *h) {
    PyThreadState *ts = release ? PyEval_SaveThread() : nullptr;
    b.hash_deferred();
    const int r = call_hashes(op, h, b.hashes(), n, results, added);
    if (release) PyEval_RestoreThread(ts);
    return r;
  });
  check(rc, op_name(op));
}

// The seed of the filter's hash, which HashBatch computes as abloom_hash does. The library knows
// one hash (XXH3-64, hash id 1) and refuses files of any other, so a filter always has it.
uint64_t hash_seed(Filter &f) {
  abloom_info info;
  check(abloom_info_init(&info), "hash");
  check(abloom_get_info(f.get(), &info), "hash");
  return info.seed;
}

// n 8-byte keys at buf, hashed here with the GIL released (the buffer export holds the array),
// hashes_per_call() at a time (a small array that stays in cache, or a whole kChunk when the
// filter has bulk threads) for the hash calls. Each kChunk keys are one use of the filter, so that
// a second writer waits for one chunk at most (filter.hpp). `results` is null for adds, `added`
// may be for the others.
void run_int_keys(Filter &f, Op op, const char *buf, size_t n, uint8_t *results, uint64_t *added) {
  const uint64_t seed = hash_seed(f);
  const size_t per_call = n >= kSplitFrom ? hashes_per_call(f) : kHashesPerCall;
  uint64_t small[kHashesPerCall];
  std::vector<uint64_t> large(per_call > kHashesPerCall ? per_call : 0);
  uint64_t *hashes = large.empty() ? small : large.data();
  for (size_t at = 0; at < n; at += kChunk) {
    const size_t m = std::min(kChunk, n - at);
    const bool release = m >= kReleaseGilFrom;
    uint64_t total = 0;
    const int rc = with_use(f, op, [&](abloom_filter *h) {
      PyThreadState *ts = release ? PyEval_SaveThread() : nullptr;
      int r = 0;
      for (size_t i = 0; i < m && r >= 0; i += per_call) {
        const size_t c = std::min(per_call, m - i);
        const char *p = buf + 8 * (at + i);
        for (size_t j = 0; j < c; j++) hashes[j] = key_hash(seed, p + 8 * j, 8);
        uint64_t a = 0;
        r = call_hashes(op, h, hashes, c, results == nullptr ? nullptr : results + at + i, &a);
        total += a;
      }
      if (release) PyEval_RestoreThread(ts);
      return r;
    });
    if (added != nullptr) *added += total;
    check(rc, op_name(op));
  }
}

// numpy.ndarray, if NumPy is loaded (a NumPy array cannot exist without it).
bool is_numpy_array(PyObject *o) {
  PyObject *np = PyImport_GetModule(nb::str("numpy").ptr());  // new ref or null, never imports
  if (np == nullptr) {
    PyErr_Clear();
    return false;
  }
  nb::object mod = nb::steal(np);
  return PyObject_IsInstance(o, mod.attr("ndarray").ptr()) == 1;
}

// An 8-byte integer buffer of 1 dimension: the int-array fast path. Returns false (no error) when
// `o` is not a buffer to treat that way (bytes, str, bytearray: iterated instead).
class IntArray {
 public:
  IntArray() = default;
  IntArray(const IntArray &) = delete;
  IntArray &operator=(const IntArray &) = delete;
  ~IntArray() {
    if (held_) PyBuffer_Release(&view_);
  }
  bool open(nb::handle keys) {
    PyObject *o = keys.ptr();
    if (PyBytes_Check(o) || PyByteArray_Check(o) || PyUnicode_Check(o) || !PyObject_CheckBuffer(o))
      return false;
    numpy_ = is_numpy_array(o);
    if (numpy_) {  // a strided view becomes a contiguous copy, as NumPy users expect
      obj_ = nb::module_::import_("numpy").attr("ascontiguousarray")(keys);
      o = obj_.ptr();
    }
    if (PyObject_GetBuffer(o, &view_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      throw nb::value_error("an array of keys must be C-contiguous");
    }
    held_ = true;
    std::string fmt = view_.format != nullptr ? view_.format : "B";
    if (fmt == "O") {  // a NumPy array of Python objects: iterate it as any sequence of keys
      PyBuffer_Release(&view_);
      held_ = false;
      return false;
    }
    if (!fmt.empty() && (fmt[0] == '@' || fmt[0] == '=' || fmt[0] == '<')) fmt.erase(0, 1);
    const bool int8 =
        fmt.size() == 1 && std::strchr("qQlLnN", fmt[0]) != nullptr && view_.itemsize == 8;
    if (!int8) {
      throw nb::type_error(
          ("an array of keys must hold 8-byte integers (uint64 or int64, native order), not "
           "format '" +
           std::string(view_.format != nullptr ? view_.format : "B") + "' of itemsize " +
           std::to_string(view_.itemsize) + "; convert it with .astype(numpy.uint64)")
              .c_str());
    }
    if (view_.ndim != 1) throw nb::value_error("an array of keys must be 1-dimensional");
    return true;
  }
  size_t size() const { return static_cast<size_t>(view_.shape[0]); }
  const char *data() const { return static_cast<const char *>(view_.buf); }
  bool numpy() const { return numpy_; }

 private:
  Py_buffer view_{};
  bool held_ = false;
  bool numpy_ = false;
  nb::object obj_;
};

// Feeds the keys of an iterable to `flush` in batches of up to hashes_per_call() keys. Lists and
// tuples are indexed (the list's size is read again for each item: __index__ may run Python code
// that changes it); other iterables are iterated.
template <class Flush>
void for_chunks(Filter &f, nb::handle keys, Flush &&flush) {
  PyObject *o = keys.ptr();
  const bool is_list = PyList_Check(o);
  const bool indexed = is_list || PyTuple_Check(o);
  const size_t per_call = hashes_per_call(f);
  HashBatch batch(
      indexed ? std::min<size_t>(static_cast<size_t>(seq_size(o, is_list)), per_call) : per_call,
      hash_seed(f));
  auto add = [&](PyObject *item) {
    if (!batch.append(item)) throw nb::python_error();
    if (batch.full()) {
      flush(batch);
      batch.clear();
    }
  };
  if (indexed) {
    // Items are borrowed: HashBatch::append hashes or references each before running any Python
    // code.
    for (Py_ssize_t i = 0; PyObject *item = seq_item(o, is_list, i); i++) add(item);
  } else {
    nb::object it = nb::steal(PyObject_GetIter(o));
    if (!it.is_valid()) throw nb::python_error();
    while (PyObject *raw = PyIter_Next(it.ptr())) {
      nb::object item = nb::steal(raw);
      add(item.ptr());
    }
    if (PyErr_Occurred()) throw nb::python_error();
  }
  if (batch.size() > 0) flush(batch);
}

}  // namespace

uint64_t add_keys(Filter &f, nb::handle keys) {
  IntArray arr;
  uint64_t added = 0;
  if (arr.open(keys)) {
    run_int_keys(f, Op::add, arr.data(), arr.size(), nullptr, &added);
    return added;
  }
  for_chunks(f, keys, [&](HashBatch &b) {
    uint64_t a = 0;
    run_batch(f, Op::add, b, nullptr, &a);
    added += a;
  });
  return added;
}

namespace {

// An answer per key (contains_many, test_and_add_many): a NumPy bool array for a NumPy array,
// else a list of bools.
nb::object answer_keys(Filter &f, Op op, nb::handle keys) {
  IntArray arr;
  if (arr.open(keys)) {
    const size_t n = arr.size();
    if (arr.numpy()) {
      // numpy.bool_ is one byte, 0 or 1: exactly what the C call writes.
      nb::object np = nb::module_::import_("numpy");
      nb::object out = np.attr("empty")(n, "dtype"_a = np.attr("bool_"));
      Py_buffer ob;
      if (PyObject_GetBuffer(out.ptr(), &ob, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0)
        throw nb::python_error();
      try {
        run_int_keys(f, op, arr.data(), n, static_cast<uint8_t *>(ob.buf), nullptr);
      } catch (...) {
        PyBuffer_Release(&ob);
        throw;
      }
      PyBuffer_Release(&ob);
      return out;
    }
    std::vector<uint8_t> res(n);
    run_int_keys(f, op, arr.data(), n, res.data(), nullptr);
    nb::list out;
    for (uint8_t r : res) out.append(nb::bool_(r != 0));
    return out;
  }
  std::vector<uint8_t> res;
  for_chunks(f, keys, [&](HashBatch &b) {
    const size_t at = res.size();
    res.resize(at + b.size());
    run_batch(f, op, b, res.data() + at, nullptr);
  });
  PyObject *list = bool_list(res.data(), res.size());
  if (list == nullptr) throw nb::python_error();
  return nb::steal(list);
}

}  // namespace

nb::object test_keys(Filter &f, nb::handle keys) { return answer_keys(f, Op::test, keys); }

nb::object test_and_add_keys(Filter &f, nb::handle keys) {
  return answer_keys(f, Op::test_and_add, keys);
}

}  // namespace abloom_py
