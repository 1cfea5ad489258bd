// The extension module pyabloom._abloom: class BloomFilter over the C ABI (capi/abloom.h) with
// nanobind. `key in f` and `f.add(key)` are raw CPython slots (sq_contains, a METH_O method):
// they are the calls made once per key, and skipping nanobind's dispatch there measured faster
// (bench/JOURNAL.md, "Choosing the generator: the cost of one call"). Everything else goes through
// nanobind.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cerrno>
#include <string>

#include "abloom.h"
#include "bulk.hpp"
#include "errors.hpp"
#include "filter.hpp"
#include "keys.hpp"

// CPython's pyconfig.h describes the machine by hand on Windows (CMakeLists.txt, MS_WIN64).
#if defined(SIZEOF_VOID_P) && defined(__SIZEOF_POINTER__) && SIZEOF_VOID_P != __SIZEOF_POINTER__
#error "pyconfig.h's SIZEOF_VOID_P differs from the compiler's pointer size (MS_WIN64 missing?)"
#endif

namespace nb = nanobind;
using namespace nb::literals;
using abloom_py::ClosedFilter;
using abloom_py::CodeError;
using abloom_py::Filter;
using abloom_py::Key;
using abloom_py::Use;

namespace {

void check(int rc, const char *what) {
  if (rc < 0) throw CodeError{rc, 0, what, {}};
}

// A non-negative int argument below 2**64 (bool refused).
uint64_t to_u64(nb::handle o, const char *name) {
  if (!PyLong_Check(o.ptr()) || PyBool_Check(o.ptr()))
    throw nb::type_error((std::string(name) + " must be an int").c_str());
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (overflow < 0 || (overflow == 0 && v < 0))
    throw nb::value_error((std::string(name) + " must be >= 0").c_str());
  const unsigned long long u = PyLong_AsUnsignedLongLong(o.ptr());
  if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw nb::value_error((std::string(name) + " must be below 2**64").c_str());
  }
  return u;
}

uint32_t kind_of(const std::string &kind) {
  if (kind == "blocked") return ABLOOM_KIND_BLOCKED;
  if (kind == "classic") return ABLOOM_KIND_CLASSIC;
  throw nb::value_error(("kind must be 'blocked' or 'classic', not '" + kind + "'").c_str());
}

uint32_t layout_of(const std::string &layout) {
  if (layout == "default") return ABLOOM_LAYOUT_DEFAULT;
  if (layout == "distinct") return ABLOOM_LAYOUT_DISTINCT;
  if (layout == "split") return ABLOOM_LAYOUT_SPLIT;
  if (layout == "half") return ABLOOM_LAYOUT_HALF;
  throw nb::value_error(
      ("layout must be 'default', 'distinct', 'split' or 'half', not '" + layout + "'").c_str());
}

const char *kind_name(uint32_t k) { return k == ABLOOM_KIND_CLASSIC ? "classic" : "blocked"; }
// An id this module has no name for (a layout added to the engine after it) is named by its
// number, never as another layout: a name here is what layout= takes back, and the wrong one
// would build a filter of another shape.
std::string layout_name(uint32_t l) {
  switch (l) {
    case ABLOOM_LAYOUT_DISTINCT:
      return "distinct";
    case ABLOOM_LAYOUT_SPLIT:
      return "split";
    case ABLOOM_LAYOUT_HALF:
      return "half";
    default:
      return "unknown(" + std::to_string(l) + ")";
  }
}
const char *storage_name(uint32_t s) {
  return s == ABLOOM_STORAGE_MAPPED ? "mapped" : s == ABLOOM_STORAGE_VIEW ? "view" : "owned";
}

// capacity None: a growing filter (abloom_options.growth), which needs none; `growth` (None: 2
// for a growing filter, else a fixed one) makes one growing from a first stage of `capacity`.
abloom_options make_options(nb::handle capacity, double fpr, const std::string &kind,
                            nb::handle shards, nb::handle seed, const std::string &layout,
                            nb::handle growth = nb::none()) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = capacity.is_none() ? 0 : to_u64(capacity, "capacity");
  if (!growth.is_none()) {
    o.growth = nb::cast<double>(growth);
    if (!(o.growth > 1.0 && o.growth <= ABLOOM_MAX_GROWTH))
      throw nb::value_error("growth must be above 1 and at most 16");
  } else if (capacity.is_none()) {
    o.growth = ABLOOM_DEFAULT_GROWTH;
  }
  o.fpr = fpr;
  o.kind = kind_of(kind);
  const uint64_t s = shards.is_none() ? 0 : to_u64(shards, "shards");
  if (s > ABLOOM_MAX_SHARDS) throw nb::value_error("shards must be a power of two up to 65536");
  o.shards = static_cast<uint32_t>(s);
  o.seed = to_u64(seed, "seed");
  o.layout = layout_of(layout);
  return o;
}

// os.fsencode(path): str, bytes or os.PathLike, as open() takes.
std::string fs_path(nb::handle path) {
  nb::object b = nb::module_::import_("os").attr("fsencode")(path);
  Py_ssize_t n;
  const char *p = abloom_py::bytes_view(b.ptr(), &n);
  return std::string(p, static_cast<size_t>(n));
}

Filter &filter_of(nb::handle self) { return *nb::inst_ptr<Filter>(self); }

nb::object new_filter(abloom_filter *h, bool mapped_read_write = false) {
  return nb::cast(new Filter(h, mapped_read_write), nb::rv_policy::take_ownership);
}

// A binary set operation on copies: op(copy of a, b).
nb::object combine(Filter &a, nb::handle other, int (*op)(abloom_filter *, const abloom_filter *),
                   const char *what) {
  if (!nb::isinstance<Filter>(other)) return nb::borrow(Py_NotImplemented);
  Use ua(a), ub(filter_of(other));
  abloom_filter *out = nullptr;
  int rc;
  {
    nb::gil_scoped_release r;
    rc = abloom_clone(ua.handle(), &out);
    if (rc == ABLOOM_OK) {
      rc = op(out, ub.handle());
      if (rc < 0) abloom_free(out);
    }
  }
  check(rc, what);
  return new_filter(out);
}

nb::object combine_in_place(nb::handle self, nb::handle other,
                            int (*op)(abloom_filter *, const abloom_filter *), const char *what) {
  if (!nb::isinstance<Filter>(other)) return nb::borrow(Py_NotImplemented);
  Use ub(filter_of(other));
  abloom_py::WriteUse ua(filter_of(self));
  int rc;
  {
    nb::gil_scoped_release r;
    rc = op(ua.handle(), ub.handle());
  }
  check(rc, what);
  return nb::borrow(self);
}

double estimate(Filter &f, int (*fn)(const abloom_filter *, double *), const char *what) {
  Use u(f);
  double out = 0;
  int rc;
  {
    nb::gil_scoped_release r;
    rc = fn(u.handle(), &out);
  }
  check(rc, what);
  return out;
}

nb::bytes to_bytes(Filter &f) {
  Use u(f);
  uint64_t size = 0;
  check(abloom_serialized_size(u.handle(), &size), "to_bytes");
  PyObject *b = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
  if (b == nullptr) throw nb::python_error();
  nb::bytes out = nb::steal<nb::bytes>(b);
  Py_ssize_t n;
  // (read with the GIL held: under the stable ABI it is a CPython call)
  char *buf = const_cast<char *>(abloom_py::bytes_view(b, &n));
  int rc;
  {
    nb::gil_scoped_release r;
    rc = abloom_serialize(u.handle(), buf, size, nullptr);
  }
  check(rc, "to_bytes");
  return out;
}

abloom_filter *from_buffer(nb::handle data) {
  Py_buffer view;
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) throw nb::python_error();
  abloom_filter *h = nullptr;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = abloom_deserialize(view.buf, static_cast<size_t>(view.len), &h);
  Py_END_ALLOW_THREADS;
  PyBuffer_Release(&view);
  check(rc, "from_bytes");
  return h;
}

abloom_filter *open_file(nb::handle path, const std::string &mode, bool verify) {
  uint32_t flags;
  if (mode == "r") {
    flags = 0;
  } else if (mode == "r+") {
    flags = ABLOOM_OPEN_READ_WRITE;
  } else if (mode == "c") {
    flags = ABLOOM_OPEN_COPY_ON_WRITE;
  } else {
    throw nb::value_error(("mode must be 'r', 'r+' or 'c', not '" + mode + "'").c_str());
  }
  if (verify) flags |= ABLOOM_VERIFY_CHECKSUM;
  const std::string p = fs_path(path);
  abloom_filter *h = nullptr;
  int rc, err;
  {
    nb::gil_scoped_release r;
    errno = 0;
    rc = abloom_open(p.c_str(), flags, &h);
    err = errno;
  }
  if (rc < 0) throw CodeError{rc, err, "open", p};
  return h;
}

void save(Filter &f, nb::handle path) {
  const std::string p = fs_path(path);
  Use u(f);
  int rc, err;
  {
    nb::gil_scoped_release r;
    errno = 0;
    rc = abloom_save(u.handle(), p.c_str());
    err = errno;
  }
  if (rc < 0) throw CodeError{rc, err, "save", p};
}

// ---- the per-key calls, as raw CPython slots ----------------------------------------------------

Filter *ready_filter(PyObject *self) {
  nb::handle h(self);
  if (!nb::inst_ready(h)) {
    PyErr_SetString(PyExc_TypeError, "BloomFilter.__init__ was not called");
    return nullptr;
  }
  Filter *f = nb::inst_ptr<Filter>(h);
  if (f->closed) {
    abloom_py::set_closed_error();
    return nullptr;
  }
  return f;
}

int contains_slot(PyObject *self, PyObject *key) {
  Filter *f = ready_filter(self);
  if (f == nullptr) return -1;
  Key k;
  if (!k.set(key)) return -1;
  const int rc = abloom_test(f->h, k.data(), k.size());
  if (rc < 0) {
    abloom_py::set_code_error(CodeError{rc, 0, "contains", {}});
    return -1;
  }
  return rc;
}

// The one-key writes (add, test_and_add): wait out a batch that writes with plain stores, then
// call `op`. Its result (>= 0), or -1 with a Python error set.
int write_one(PyObject *self, PyObject *key, int (*op)(abloom_filter *, const void *, size_t),
              const char *what) {
  Filter *f = ready_filter(self);
  if (f == nullptr) return -1;
  try {
    abloom_py::begin_write(*f);
  } catch (const ClosedFilter &) {
    abloom_py::set_closed_error();
    return -1;
  }
  Key k;
  if (!k.set(key)) return -1;
  const int rc = op(f->h, k.data(), k.size());
  if (rc < 0) {
    abloom_py::set_code_error(CodeError{rc, 0, what, {}});
    return -1;
  }
  return rc;
}

PyObject *add_method(PyObject *self, PyObject *key) {
  if (write_one(self, key, abloom_add, "add") < 0) return nullptr;
  Py_RETURN_NONE;
}

// abloom_test_and_add: 1 if every bit was set before, from the same pass that sets them.
PyObject *test_and_add_method(PyObject *self, PyObject *key) {
  const int rc = write_one(self, key, abloom_test_and_add, "test_and_add");
  return rc < 0 ? nullptr : PyBool_FromLong(rc);
}

PyMethodDef raw_methods[] = {
    {"add", add_method, METH_O,
     "add($self, key, /)\n--\n\nAdd one key (str, bytes, bytearray, memoryview or int)."},
    {"test_and_add", test_and_add_method, METH_O,
     "test_and_add($self, key, /)\n--\n\nAdd one key and say whether it may have been there "
     "before: False means it\nwas definitely new, True that all its bits were already set (added "
     "before, or a\nfalse positive). One pass over the key's bits, atomic: when threads add one "
     "new\nkey at once, at least one of them gets False. For dedup: "
     "`if not f.test_and_add(k): ...`."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot filter_slots[] = {{Py_sq_contains, reinterpret_cast<void *>(contains_slot)},
                              {Py_tp_methods, raw_methods},
                              {0, nullptr}};

}  // namespace

NB_MODULE(_abloom, m) {
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const CodeError &e) {
      abloom_py::set_code_error(e);
    } catch (const ClosedFilter &) {
      abloom_py::set_closed_error();
    }
  });

  m.attr("library_version") = abloom_version_string();
  m.attr("MAX_THREADS") = ABLOOM_MAX_THREADS;
  m.def(
      "seal",
      [](nb::handle path) {
        const std::string p = fs_path(path);
        int rc, err;
        {
          nb::gil_scoped_release r;
          errno = 0;
          rc = abloom_seal(p.c_str());
          err = errno;
        }
        if (rc < 0) throw CodeError{rc, err, "seal", p};
      },
      "path"_a,
      "Seal the stale file at `path` (a read-write writer was killed before sync()), so that "
      "verify=True passes again: checks the header, the size and the fill against the stored "
      "key estimate, then rewrites the checksums (abloom_seal). A file that is not stale is "
      "only verified, never written (ChecksumError if corrupt). Never seal a file a writer "
      "still has open.");
  m.def(
      "isa", [] { return abloom_isa_name(abloom_get_isa()); },
      "The SIMD kernel the library uses: 'scalar', 'avx2', 'avx512' (x86-64) or 'neon' (aarch64).");

  nb::class_<abloom_plan>(m, "Plan", "What BloomFilter(...) would allocate (BloomFilter.plan).")
      .def_prop_ro("kind", [](const abloom_plan &p) { return kind_name(p.kind); })
      .def_prop_ro("layout", [](const abloom_plan &p) { return layout_name(p.layout); })
      .def_ro("k", &abloom_plan::k, "Bits set per key.")
      .def_ro("shards", &abloom_plan::shards)
      .def_ro("blocks_per_shard", &abloom_plan::blocks_per_shard)
      .def_ro("bits", &abloom_plan::bits)
      .def_ro("bytes", &abloom_plan::bytes, "Bytes of bit storage.")
      .def_ro("bits_per_key", &abloom_plan::bits_per_key)
      .def_ro("expected_fpr", &abloom_plan::expected_fpr, "The model's FPR at capacity.")
      .def("__repr__", [](const abloom_plan &p) {
        return nb::str(
                   "Plan(kind={!r}, layout={!r}, k={}, shards={}, bits={}, bytes={}, "
                   "expected_fpr={:.6g})")
            .format(kind_name(p.kind), layout_name(p.layout), p.k, p.shards, p.bits, p.bytes,
                    p.expected_fpr);
      });

  nb::class_<abloom_info>(m, "Info", "What a filter is (BloomFilter.info).")
      .def_prop_ro("kind", [](const abloom_info &i) { return kind_name(i.kind); })
      .def_prop_ro("layout", [](const abloom_info &i) { return layout_name(i.layout); })
      .def_ro("k", &abloom_info::k, "Bits set per key.")
      .def_ro("shards", &abloom_info::shards)
      .def_ro("blocks_per_shard", &abloom_info::blocks_per_shard)
      .def_ro("bits", &abloom_info::bits)
      .def_ro("bytes", &abloom_info::bytes, "Bytes of bit storage.")
      .def_ro("capacity", &abloom_info::capacity)
      .def_ro("seed", &abloom_info::seed)
      .def_ro("target_fpr", &abloom_info::target_fpr)
      .def_ro("expected_fpr", &abloom_info::expected_fpr, "The model's FPR at capacity.")
      .def_prop_ro("storage", [](const abloom_info &i) { return storage_name(i.storage); })
      .def_prop_ro("read_only", [](const abloom_info &i) { return i.read_only != 0; })
      .def_prop_ro(
          "stale", [](const abloom_info &i) { return i.stale != 0; },
          "True if the file or bytes carried the stale mark when opened (a read-write writer "
          "never synced them: see abloom.StaleError and abloom.seal).")
      .def_ro("stages", &abloom_info::stages,
              "Stages of a growing filter (1 for a fixed one); the fields above describe the "
              "whole chain: its target, its stages' bits and capacities together, the newest "
              "stage's shape.")
      .def_ro("growth", &abloom_info::growth, "Growth of a growing filter; 0.0 for a fixed one.")
      .def_prop_ro(
          "growth_failed", [](const abloom_info &i) { return i.growth_failed != 0; },
          "True if a growing filter could not add a stage when it had to (its FPR is no longer "
          "held).")
      .def_ro("keys", &abloom_info::keys,
              "Keys a growing filter counted as new (0 for a fixed filter, which does not count).")
      .def("__repr__", [](const abloom_info &i) {
        return nb::str(
                   "Info(kind={!r}, layout={!r}, k={}, shards={}, bits={}, capacity={}, "
                   "seed={}, storage={!r}, read_only={}, stale={}, stages={}, growth={})")
            .format(kind_name(i.kind), layout_name(i.layout), i.k, i.shards, i.bits, i.capacity,
                    i.seed, storage_name(i.storage), i.read_only != 0, i.stale != 0, i.stages,
                    i.growth);
      });

  nb::class_<Filter> cls(
      m, "BloomFilter", nb::type_slots(filter_slots),
      "A Bloom filter: add keys, then `key in f` is True for every key added and, for a key never "
      "added, True only at about the rate it was sized for. Keys are str (UTF-8), bytes, "
      "bytearray, memoryview or int (8 little-endian bytes), hashed as every abloom binding "
      "hashes them. Safe to share between threads; batches and file I/O release the GIL.");
  cls.def(
         "__init__",
         [](Filter *self, nb::handle capacity, double fpr, const std::string &kind,
            nb::handle shards, nb::handle seed, const std::string &layout, nb::handle growth) {
           const abloom_options o = make_options(capacity, fpr, kind, shards, seed, layout, growth);
           abloom_filter *h = nullptr;
           int rc;
           {
             nb::gil_scoped_release r;  // the bits are zeroed: O(size)
             rc = abloom_create(&o, &h);
           }
           check(rc, "BloomFilter");
           new (self) Filter(h);
         },
         "capacity"_a = nb::none(), "fpr"_a = 0.01, nb::kw_only(), "kind"_a = "blocked",
         "shards"_a = nb::none(), "seed"_a = 0, "layout"_a = "default", "growth"_a = nb::none(),
         "A filter sized so that `capacity` distinct keys give a false-positive rate of `fpr`. "
         "Without `capacity` (or with `growth`), a growing filter: a chain of filters, each "
         "`growth` (default 2) times the last, whose false-positive rate stays below `fpr` at "
         "any number of keys (`capacity` is then its first stage's).")
      .def_static(
          "plan",
          [](nb::handle capacity, double fpr, const std::string &kind, nb::handle shards,
             const std::string &layout) {
            const abloom_options o = make_options(capacity, fpr, kind, shards, nb::int_(0), layout);
            abloom_plan p;
            abloom_plan_init(&p);
            check(abloom_plan_compute(&o, &p), "plan");
            return p;
          },
          "capacity"_a, "fpr"_a = 0.01, nb::kw_only(), "kind"_a = "blocked",
          "shards"_a = nb::none(), "layout"_a = "default",
          "The layout BloomFilter(capacity, fpr, ...) would allocate, without allocating it.")
      .def(
          "update",
          [](Filter &f, nb::args iterables) {
            for (nb::handle it : iterables) abloom_py::add_keys(f, it);
          },
          "Add every key of each iterable (batches of keys per C call, GIL released).")
      .def(
          "add_many", [](Filter &f, nb::handle keys) { return abloom_py::add_keys(f, keys); },
          "keys"_a,
          "Add the keys (an iterable, or a NumPy uint64/int64 array in one C call); return how "
          "many were new.")
      .def(
          "contains_many", [](Filter &f, nb::handle keys) { return abloom_py::test_keys(f, keys); },
          "keys"_a, "Test the keys: a list of bools, or a NumPy bool array for a NumPy array.")
      .def(
          "test_and_add_many",
          [](Filter &f, nb::handle keys) { return abloom_py::test_and_add_keys(f, keys); },
          "keys"_a,
          "test_and_add of every key, in order (batches of keys per C call, GIL released): a "
          "list of bools,\nor a NumPy bool array for a NumPy uint64/int64 array. True where the "
          "key was already present\n(added before, by an earlier key of the batch, or a false "
          "positive), False where it was new;\nthe answers and bits are those of one "
          "test_and_add per key. For dedup of a stream:\n`new = [k for k, seen in zip(keys, "
          "f.test_and_add_many(keys)) if not seen]`.")
      .def("__or__", [](Filter &a, nb::handle b) { return combine(a, b, abloom_union, "|"); })
      .def("__and__", [](Filter &a, nb::handle b) { return combine(a, b, abloom_intersect, "&"); })
      .def("__ior__",
           [](nb::handle a, nb::handle b) { return combine_in_place(a, b, abloom_union, "|="); })
      .def("__iand__", [](nb::handle a,
                          nb::handle b) { return combine_in_place(a, b, abloom_intersect, "&="); })
      .def("__eq__",
           [](Filter &a, nb::handle other) -> nb::object {
             if (!nb::isinstance<Filter>(other)) return nb::borrow(Py_NotImplemented);
             Use ua(a), ub(filter_of(other));
             int rc;
             {
               nb::gil_scoped_release r;
               rc = abloom_equal(ua.handle(), ub.handle());
             }
             check(rc, "==");
             return nb::bool_(rc == 1);
           })
      .def(
          "copy",
          [](Filter &f) {
            Use u(f);
            abloom_filter *out = nullptr;
            int rc;
            {
              nb::gil_scoped_release r;
              rc = abloom_clone(u.handle(), &out);
            }
            check(rc, "copy");
            return new_filter(out);
          },
          "An independent filter with the same shape and bits (always in memory, writable).")
      .def(
          "clear",
          [](Filter &f) {
            abloom_py::WriteUse u(f);
            int rc;
            {
              nb::gil_scoped_release r;
              rc = abloom_clear(u.handle());
            }
            check(rc, "clear");
          },
          "Remove every key: all bits cleared, shape unchanged.")
      .def(
          "hash",
          [](Filter &f, nb::handle key) {
            abloom_filter *h = f.get();
            Key k;
            if (!k.set(key.ptr())) throw nb::python_error();
            uint64_t out = 0;
            check(abloom_hash(h, k.data(), k.size(), &out), "hash");
            return out;
          },
          "key"_a,
          "The key's 64-bit hash, an int in [0, 2**64): XXH3-64 of its bytes with the filter's "
          "seed, as\nevery binding computes it (Rust's Filter::hash, C's abloom_hash). Filters of "
          "one seed agree;\nits top log2(shards) bits are the key's shard. For routing keys "
          "between filters or\nprocesses the same way in every language.")
      .def(
          "approx_len", [](Filter &f) { return estimate(f, abloom_estimate_count, "approx_len"); },
          "Estimated number of distinct keys added (from the set bits; inf when all are set).")
      .def_prop_ro(
          "approx_items",
          [](Filter &f) { return estimate(f, abloom_estimate_count, "approx_items"); },
          "approx_len(), under rbloom's name.")
      .def_prop_ro(
          "estimated_fpr",
          [](Filter &f) { return estimate(f, abloom_estimate_fpr, "estimated_fpr"); },
          "The chance that a key never added tests True now, from the current fill.")
      .def_prop_ro(
          "info",
          [](Filter &f) {
            abloom_info i;
            abloom_info_init(&i);
            check(abloom_get_info(f.get(), &i), "info");
            return i;
          },
          "The filter's shape, sizing, seed and storage.")
      .def("to_bytes", &to_bytes, "The portable serialized form (docs/FORMAT.md).")
      .def_static(
          "from_bytes", [](nb::handle data) { return new_filter(from_buffer(data)); }, "data"_a,
          "A filter from to_bytes() output (any bytes-like), fully validated.")
      .def("save", &save, "path"_a,
           "Write the filter to `path` crash-safely (temporary file, fsync, rename).")
      .def_static(
          "open",
          [](nb::handle path, const std::string &mode, bool verify) {
            return new_filter(open_file(path, mode, verify), mode == "r+");
          },
          "path"_a, "mode"_a = "r", "verify"_a = false,
          "Open a saved filter by mmap in O(1): mode 'r' read-only, 'c' copy-on-write, 'r+' "
          "read-write (adds reach the file); verify=True also checks the checksum (O(size)).")
      .def(
          "sync",
          [](Filter &f) {
            abloom_filter *h = f.get();
            // No add may run during abloom_sync: wait for the batches, then keep the GIL so that
            // none starts (single adds need the GIL too).
            abloom_py::wait_for_writers(f, false);
            errno = 0;
            const int rc = abloom_sync(h);
            const int err = errno;
            if (rc < 0) throw CodeError{rc, err, "sync", {}};
          },
          "For mode 'r+': write the header and flush the mapping to the file (holds the GIL: no "
          "add may run meanwhile).")
      .def_prop_rw(
          "writer_mode",
          [](Filter &f) {
            f.get();
            return f.auto_mode ? "auto" : f.exclusive ? "exclusive" : "shared";
          },
          [](Filter &f, const std::string &mode) {
            uint32_t m = ABLOOM_WRITER_SHARED;
            if (mode == "shared") {
              m = ABLOOM_WRITER_SHARED;
            } else if (mode == "exclusive") {
              m = ABLOOM_WRITER_EXCLUSIVE;
            } else if (mode != "auto") {
              throw nb::value_error(
                  ("writer_mode must be 'auto', 'shared' or 'exclusive', not '" + mode + "'")
                      .c_str());
            }
            abloom_filter *h = f.get();
            abloom_py::wait_for_writers(f, false);  // the C API: change it while nobody writes
            if (mode == "auto") {
              f.start_auto();
              return;
            }
            check(abloom_set_writer_mode(h, m), "writer_mode");
            f.auto_mode = false;
            f.exclusive = m == ABLOOM_WRITER_EXCLUSIVE;
          },
          "'auto' (default): plain stores while one thread is the only writer, lock-free atomic "
          "adds from the first write of a second thread on (never plain stores for a file opened "
          "'r+'); 'shared': always lock-free atomic adds; 'exclusive': always plain stores (1.4-2x "
          "faster adds; the binding then runs one write at a time, so it stays safe with "
          "threads).")
      .def_prop_rw(
          "threads", [](Filter &f) { return abloom_get_threads(f.get()); },
          [](Filter &f, nb::handle n) {
            abloom_filter *h = f.get();
            const uint64_t v = to_u64(n, "threads");
            if (v > ABLOOM_MAX_THREADS)
              throw nb::value_error(("threads must be in 0.." + std::to_string(ABLOOM_MAX_THREADS) +
                                     ", not " + std::to_string(v))
                                        .c_str());
            check(abloom_set_threads(h, static_cast<uint32_t>(v)), "threads");
          },
          "How many threads the batch calls (add_many, contains_many, update) may split each "
          "engine call\nacross: 1 (the default) to MAX_THREADS (256); setting 0 or 1 keeps them on "
          "the calling thread.\nWith more than one, batches go to the engine 65536 keys a call "
          "(the C library splits calls\nfrom that size up), else 4096; the answers and bits are "
          "the same either way. Belongs to this\nobject, not to the bits: not saved or pickled; "
          "from_bytes(), open() and unpickling start at\n1, copy() (and |, &) keep the count. May "
          "be set at any time, also while other threads run\nbatches (each keeps the count it "
          "started with), and on read-only filters.")
      .def_prop_ro(
          "_writer_state",
          [](Filter &f) {
            f.get();
            return f.exclusive ? "exclusive" : "shared";
          },
          "How writes run now (for tests): 'exclusive' (plain stores) or 'shared' (atomic).")
      .def(
          "close", [](Filter &f) { f.close(); },
          "Free the filter (unmapping its file); later use raises ClosedError.")
      .def_prop_ro("closed", [](Filter &f) { return f.closed; })
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](Filter &f, nb::args) { f.close(); })
      .def("__copy__", [](nb::handle self) { return self.attr("copy")(); })
      .def("__deepcopy__", [](nb::handle self, nb::handle) { return self.attr("copy")(); })
      .def("__getstate__", &to_bytes)
      .def("__setstate__",
           [](Filter *self, nb::handle state) { new (self) Filter(from_buffer(state)); })
      .def("__repr__", [](Filter &f) -> nb::object {
        if (f.closed) return nb::str("<pyabloom.BloomFilter (closed)>");
        abloom_info i;
        abloom_info_init(&i);
        check(abloom_get_info(f.h, &i), "repr");
        return nb::str("<pyabloom.BloomFilter {} capacity={} bits={} k={} shards={} {}>")
            .format(kind_name(i.kind), i.capacity, i.bits, i.k, i.shards, storage_name(i.storage));
      });
  cls.attr("__hash__") = nb::none();  // mutable, compared by content
}
