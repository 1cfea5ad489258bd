// The thin extern "C" layer: checks every argument, maps core errors to ABLOOM_ERR_* codes and
// keeps every exception on this side of the ABI.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <exception>
#include <new>

#include "abloom.h"
#include "blocked_kernels.hpp"
#include "file_io.hpp"
#include "filter.hpp"
#include "format.hpp"
#include "isa.hpp"
#include "sizing.hpp"

// The handle the C API hands out; C sees only the incomplete type.
struct abloom_filter {
  explicit abloom_filter(std::unique_ptr<abloom::Filter> f) noexcept : impl(std::move(f)) {}
  ~abloom_filter() {
    // Best effort: a read-write mapping rewrites its header, sealed (abloom_sync).
    (void)impl->sync(true);
  }
  abloom_filter(const abloom_filter&) = delete;
  abloom_filter& operator=(const abloom_filter&) = delete;
  std::unique_ptr<abloom::Filter> impl;  // never null
};

namespace {

static_assert(ABLOOM_MAX_K == abloom::kMaxK);
static_assert(ABLOOM_MAX_SHARDS == abloom::kMaxShards);
static_assert(ABLOOM_MAX_BYTES == abloom::kMaxBytes);
static_assert(ABLOOM_MAX_THREADS == abloom::kMaxThreads);
static_assert(ABLOOM_KIND_BLOCKED == static_cast<int>(abloom::Kind::blocked));
static_assert(ABLOOM_KIND_CLASSIC == static_cast<int>(abloom::Kind::classic));
static_assert(ABLOOM_ISA_SCALAR == static_cast<uint32_t>(abloom::Isa::scalar));
static_assert(ABLOOM_ISA_AVX2 == static_cast<uint32_t>(abloom::Isa::avx2));
static_assert(ABLOOM_ISA_AVX512 == static_cast<uint32_t>(abloom::Isa::avx512));
static_assert(ABLOOM_ISA_NEON == static_cast<uint32_t>(abloom::Isa::neon));
static_assert(ABLOOM_LAYOUT_DISTINCT == static_cast<uint32_t>(abloom::Layout::distinct));
static_assert(ABLOOM_LAYOUT_SPLIT == static_cast<uint32_t>(abloom::Layout::split));
static_assert(ABLOOM_SPLIT_MAX_K == abloom::kSplitMaxK);

int to_code(abloom::Errc e) noexcept {
  switch (e) {
    case abloom::Errc::ok:
      return ABLOOM_OK;
    case abloom::Errc::invalid:
      return ABLOOM_ERR_INVALID;
    case abloom::Errc::range:
      return ABLOOM_ERR_RANGE;
    case abloom::Errc::mismatch:
      return ABLOOM_ERR_MISMATCH;
    case abloom::Errc::read_only:
      return ABLOOM_ERR_READONLY;
    case abloom::Errc::bad_magic:
      return ABLOOM_ERR_BAD_MAGIC;
    case abloom::Errc::version:
      return ABLOOM_ERR_VERSION;
    case abloom::Errc::unsupported:
      return ABLOOM_ERR_UNSUPPORTED;
    case abloom::Errc::truncated:
      return ABLOOM_ERR_TRUNCATED;
    case abloom::Errc::corrupt:
      return ABLOOM_ERR_CORRUPT;
    case abloom::Errc::checksum:
      return ABLOOM_ERR_CHECKSUM;
    case abloom::Errc::alignment:
      return ABLOOM_ERR_ALIGNMENT;
    case abloom::Errc::io:
      return ABLOOM_ERR_IO;
    case abloom::Errc::too_small:
      return ABLOOM_ERR_TOO_SMALL;
    case abloom::Errc::stale:
      return ABLOOM_ERR_STALE;
  }
  return ABLOOM_ERR_INTERNAL;
}

// Runs body() and turns any exception into an error code: nothing crosses the ABI.
template <class Body>
int guarded(Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return ABLOOM_ERR_NOMEM;
  } catch (...) {
    return ABLOOM_ERR_INTERNAL;
  }
}

bool valid_kind(uint32_t kind) noexcept {
  return kind == ABLOOM_KIND_BLOCKED || kind == ABLOOM_KIND_CLASSIC;
}

// The layout a request asked for (ABLOOM_LAYOUT_DEFAULT: the engine's choice for the rest of the
// request, abloom::default_layout), or false for an unknown one.
bool layout_of(uint32_t layout, const abloom::SizingRequest& req, abloom::Layout* out) noexcept {
  switch (layout) {
    case ABLOOM_LAYOUT_DEFAULT:
      *out = abloom::default_layout(req);
      return true;
    case ABLOOM_LAYOUT_DISTINCT:
      *out = abloom::Layout::distinct;
      return true;
    case ABLOOM_LAYOUT_SPLIT:
      *out = abloom::Layout::split;
      return true;
    default:
      return false;
  }
}

// The size of abloom_options before `layout` (the first header's). Callers built against it get
// the distinct layout, the only one that header knew: the files they write stay readable by the
// readers they were built with.
constexpr size_t kOptionsSizeV1 = offsetof(abloom_options, layout);

// The size of abloom_info before `stale` (the first header's): its last field ends on the
// struct's alignment, so that offset is also the first version's sizeof.
constexpr size_t kInfoSizeV1 = offsetof(abloom_info, stale);
static_assert(kInfoSizeV1 % alignof(abloom_info) == 0);

// Checks options and computes their plan.
int plan_from_options(const abloom_options* opts, abloom::Plan* plan) noexcept {
  if (opts == nullptr) return ABLOOM_ERR_NULL;
  // Only the sizes of versions this library knows (abloom.h): nothing is read past struct_size.
  if (opts->struct_size != kOptionsSizeV1 && opts->struct_size != sizeof(abloom_options)) {
    return ABLOOM_ERR_INVALID;
  }
  if (!valid_kind(opts->kind) || opts->threads > ABLOOM_MAX_THREADS) return ABLOOM_ERR_INVALID;
  abloom::SizingRequest req;
  req.kind = static_cast<abloom::Kind>(opts->kind);
  req.capacity = opts->capacity;
  req.fpr = opts->fpr;
  req.shards = opts->shards;
  req.bits = opts->bits;
  req.k = opts->k;
  const bool has_layout = opts->struct_size == sizeof(abloom_options);
  if (!layout_of(has_layout ? opts->layout : ABLOOM_LAYOUT_DISTINCT, req, &req.layout)) {
    return ABLOOM_ERR_INVALID;
  }
  return to_code(abloom::make_plan(req, plan));
}

// A key pointer may be NULL only for the empty key.
bool key_ok(const void* key, size_t len) noexcept { return key != nullptr || len == 0; }

int check_key_arrays(const void* const* keys, const size_t* lens, size_t n) noexcept {
  if (n == 0) return ABLOOM_OK;
  if (keys == nullptr || lens == nullptr) return ABLOOM_ERR_NULL;
  for (size_t i = 0; i < n; ++i) {
    if (!key_ok(keys[i], lens[i])) return ABLOOM_ERR_NULL;
  }
  return ABLOOM_OK;
}

// Whether every key of a packed batch is `stride` bytes long: offsets[i + 1] - offsets[i] ==
// stride for all i < n, taken 8 keys at a time with no branch inside (about 4 instructions a key;
// a batch of keys of varying length usually stops at its first 8).
bool same_length_keys(const uint64_t* offsets, size_t n, uint64_t stride) noexcept {
  constexpr size_t kChunk = 8;
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    uint64_t differ = 0;
    for (size_t j = i; j < i + kChunk; ++j) differ |= (offsets[j + 1] - offsets[j]) ^ stride;
    if (differ != 0) return false;
  }
  uint64_t differ = 0;
  for (; i < n; ++i) differ |= (offsets[i + 1] - offsets[i]) ^ stride;
  return differ == 0;
}

// Checks a packed batch and says how the core reads it. Keys all of one length (64-bit ids,
// UUIDs, fixed-width records: the common batch) become KeySource::of_fixed: the bulk loop then
// finds key i at i * length, with no offsets to load, and its hash's length test always goes the
// same way (bench/JOURNAL.md). Their offsets are then offsets[0] + i * stride, so they are in
// order exactly when that sum does not wrap around: one check instead of one per key.
int check_packed(const void* buf, size_t buf_len, const uint64_t* offsets, size_t n,
                 abloom::KeySource* keys) noexcept {
  if (n == 0) return ABLOOM_OK;
  if (offsets == nullptr || !key_ok(buf, buf_len)) return ABLOOM_ERR_NULL;
  const auto* bytes = static_cast<const unsigned char*>(buf);
  const uint64_t stride = offsets[1] - offsets[0];
  if (same_length_keys(offsets, n, stride)) {
    uint64_t span = 0, end = 0;
    if (__builtin_mul_overflow(stride, n, &span) ||
        __builtin_add_overflow(offsets[0], span, &end) || end > buf_len) {
      return ABLOOM_ERR_INVALID;
    }
    *keys = abloom::KeySource::of_fixed(bytes + offsets[0], stride);
    return ABLOOM_OK;
  }
  for (size_t i = 0; i < n; ++i) {
    if (offsets[i] > offsets[i + 1]) return ABLOOM_ERR_INVALID;
  }
  if (offsets[n] > buf_len) return ABLOOM_ERR_INVALID;
  *keys = abloom::KeySource::of_packed(bytes, offsets);
  return ABLOOM_OK;
}

// Writes need a writable filter: views and read-only mappings refuse them.
bool read_only(const abloom_filter* filter) noexcept { return filter->impl->read_only(); }

// The load paths (deserialize, view, open): run the core loader and, on success, hand the
// filter it built to the caller as a new handle. Exceptions become codes.
template <class Load>
int load_into(abloom_filter** out, Load load) noexcept {
  return guarded([&] {
    std::unique_ptr<abloom::Filter> f;
    if (abloom::Errc e = load(&f); e != abloom::Errc::ok) return to_code(e);
    *out = std::make_unique<abloom_filter>(std::move(f)).release();
    return ABLOOM_OK;
  });
}

void set_out(uint64_t* out, uint64_t v) noexcept {
  if (out != nullptr) *out = v;
}

}  // namespace

extern "C" {

const char* abloom_strerror(int code) {
  switch (code) {
    case ABLOOM_OK:
      return "success";
    case ABLOOM_ERR_NULL:
      return "a required pointer argument is NULL";
    case ABLOOM_ERR_INVALID:
      return "an argument is outside its valid domain";
    case ABLOOM_ERR_RANGE:
      return "the requested filter is too large";
    case ABLOOM_ERR_NOMEM:
      return "out of memory";
    case ABLOOM_ERR_MISMATCH:
      return "the filters do not have the same shape";
    case ABLOOM_ERR_INTERNAL:
      return "internal error";
    case ABLOOM_ERR_READONLY:
      return "the filter is read-only";
    case ABLOOM_ERR_BAD_MAGIC:
      return "not an abloom filter (bad magic)";
    case ABLOOM_ERR_VERSION:
      return "unsupported format version";
    case ABLOOM_ERR_UNSUPPORTED:
      return "unsupported kind, bit layout or hash (or mapping on a big-endian machine)";
    case ABLOOM_ERR_TRUNCATED:
      return "serialized filter is truncated";
    case ABLOOM_ERR_CORRUPT:
      return "serialized filter is corrupt (header checksum or inconsistent fields)";
    case ABLOOM_ERR_CHECKSUM:
      return "serialized filter checksum mismatch";
    case ABLOOM_ERR_ALIGNMENT:
      return "buffer is not 64-byte aligned";
    case ABLOOM_ERR_IO:
      return "file system error (see errno)";
    case ABLOOM_ERR_TOO_SMALL:
      return "output buffer is too small";
    case ABLOOM_ERR_STALE:
      return "filter file is stale: a read-write writer did not sync (killed, or still running); "
             "its bits are valid but its checksums are not current: open it without "
             "ABLOOM_VERIFY_CHECKSUM, or seal it (abloom_seal)";
    default:
      return "unknown error code";
  }
}

unsigned abloom_version_number(void) { return ABLOOM_VERSION_NUMBER; }

const char* abloom_version_string(void) { return ABLOOM_VERSION_STRING; }

uint32_t abloom_isa_supported(void) { return static_cast<uint32_t>(abloom::isa_supported()); }

uint32_t abloom_isa_active(void) { return static_cast<uint32_t>(abloom::isa_active()); }

// Isa has a fixed uint32_t underlying type, so any value converts; the core refuses (isa_force)
// or names as "unknown" (isa_name) those outside the enumeration.
int abloom_isa_force(uint32_t isa) {
  return to_code(abloom::isa_force(static_cast<abloom::Isa>(isa)));
}

const char* abloom_isa_name(uint32_t isa) {
  return abloom::isa_name(static_cast<abloom::Isa>(isa));
}

int abloom_options_init(abloom_options* opts) {
  if (opts == nullptr) return ABLOOM_ERR_NULL;
  std::memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->fpr = 0.01;
  opts->kind = ABLOOM_KIND_BLOCKED;
  return ABLOOM_OK;
}

int abloom_plan_init(abloom_plan* plan) {
  if (plan == nullptr) return ABLOOM_ERR_NULL;
  std::memset(plan, 0, sizeof *plan);
  plan->struct_size = sizeof *plan;
  return ABLOOM_OK;
}

int abloom_plan_compute(const abloom_options* opts, abloom_plan* plan) {
  if (opts == nullptr || plan == nullptr) return ABLOOM_ERR_NULL;
  if (plan->struct_size != sizeof(abloom_plan)) return ABLOOM_ERR_INVALID;
  return guarded([&] {
    abloom::Plan p;
    if (int rc = plan_from_options(opts, &p); rc != ABLOOM_OK) return rc;
    plan->kind = static_cast<uint32_t>(p.kind);
    plan->k = p.k;
    plan->shards = p.shards();
    plan->layout = static_cast<uint32_t>(p.layout);
    plan->blocks_per_shard = p.blocks_per_shard;
    plan->bits = p.bits();
    plan->bytes = p.bytes();
    plan->bits_per_key = static_cast<double>(p.bits()) / static_cast<double>(opts->capacity);
    plan->expected_fpr = p.expected_fpr;
    return ABLOOM_OK;
  });
}

int abloom_model_fpr(uint32_t kind, double bits_per_key, uint32_t k, double* out) {
  if (out == nullptr) return ABLOOM_ERR_NULL;
  if (!valid_kind(kind) || !(bits_per_key > 0) || !std::isfinite(bits_per_key) || k == 0 ||
      k > ABLOOM_MAX_K) {
    return ABLOOM_ERR_INVALID;
  }
  *out =
      abloom::fpr_model(static_cast<abloom::Kind>(kind), abloom::Layout::distinct, bits_per_key, k);
  return ABLOOM_OK;
}

int abloom_layout_model_fpr(uint32_t kind, uint32_t layout, double bits_per_key, uint32_t k,
                            double* out) {
  if (out == nullptr) return ABLOOM_ERR_NULL;
  if (!valid_kind(kind) || !(bits_per_key > 0) || !std::isfinite(bits_per_key) || k == 0) {
    return ABLOOM_ERR_INVALID;
  }
  const auto kd = static_cast<abloom::Kind>(kind);
  abloom::SizingRequest req;  // what a filter with these options would get
  req.kind = kd;
  req.k = k;
  abloom::Layout l;
  if (!layout_of(layout, req, &l)) return ABLOOM_ERR_INVALID;
  if (k > abloom::max_k(kd, l) || (kd == abloom::Kind::classic && l != abloom::Layout::distinct)) {
    return ABLOOM_ERR_INVALID;
  }
  *out = abloom::fpr_model(kd, l, bits_per_key, k);
  return ABLOOM_OK;
}

int abloom_create(const abloom_options* opts, abloom_filter** out) {
  if (opts == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  return guarded([&] {
    abloom::Plan p;
    if (int rc = plan_from_options(opts, &p); rc != ABLOOM_OK) return rc;
    const abloom::Shape shape = p.shape(opts->seed);
    abloom::FilterParams params;
    params.capacity = opts->capacity;
    params.target_fpr = opts->bits == 0 ? opts->fpr : 0.0;
    params.expected_fpr = p.expected_fpr;
    params.threads = opts->threads == 0 ? 1 : opts->threads;
    *out = new abloom_filter(std::make_unique<abloom::Filter>(shape, params));
    return ABLOOM_OK;
  });
}

int abloom_new(uint64_t capacity, double fpr, abloom_filter** out) {
  abloom_options opts;
  abloom_options_init(&opts);
  opts.capacity = capacity;
  opts.fpr = fpr;
  return abloom_create(&opts, out);
}

void abloom_free(abloom_filter* filter) { delete filter; }

int abloom_clone(const abloom_filter* filter, abloom_filter** out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  return guarded([&] {
    *out = new abloom_filter(std::make_unique<abloom::Filter>(*filter->impl));
    return ABLOOM_OK;
  });
}

static_assert(ABLOOM_WRITER_SHARED == static_cast<uint32_t>(abloom::WriterMode::shared));
static_assert(ABLOOM_WRITER_EXCLUSIVE == static_cast<uint32_t>(abloom::WriterMode::exclusive));

int abloom_set_writer_mode(abloom_filter* filter, uint32_t mode) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (mode != ABLOOM_WRITER_SHARED && mode != ABLOOM_WRITER_EXCLUSIVE) return ABLOOM_ERR_INVALID;
  filter->impl->set_writer_mode(static_cast<abloom::WriterMode>(mode));
  return ABLOOM_OK;
}

int abloom_writer_mode(const abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return static_cast<int>(filter->impl->writer_mode());
}

int abloom_set_threads(abloom_filter* filter, uint32_t threads) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (threads > ABLOOM_MAX_THREADS) return ABLOOM_ERR_INVALID;
  filter->impl->set_threads(threads);
  return ABLOOM_OK;
}

int abloom_threads(const abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return static_cast<int>(filter->impl->threads());
}

int abloom_add(abloom_filter* filter, const void* key, size_t len) {
  if (filter == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  (void)filter->impl->add_key(key, len);
  return ABLOOM_OK;
}

int abloom_test(const abloom_filter* filter, const void* key, size_t len) {
  if (filter == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  return filter->impl->test_key(key, len);
}

int abloom_test_and_add(abloom_filter* filter, const void* key, size_t len) {
  if (filter == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  return filter->impl->add_key(key, len);
}

int abloom_hash(const abloom_filter* filter, const void* key, size_t len, uint64_t* out) {
  if (filter == nullptr || out == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  *out = filter->impl->hash(key, len);
  return ABLOOM_OK;
}

int abloom_add_hash(abloom_filter* filter, uint64_t hash) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  filter->impl->add_hash(hash);
  return ABLOOM_OK;
}

int abloom_test_hash(const abloom_filter* filter, uint64_t hash) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return filter->impl->test_hash(hash) ? 1 : 0;
}

int abloom_test_and_add_hash(abloom_filter* filter, uint64_t hash) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  return filter->impl->test_and_add_hash(hash) ? 1 : 0;
}

int abloom_add_many(abloom_filter* filter, const void* const* keys, const size_t* lens, size_t n,
                    uint64_t* added) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  if (int rc = check_key_arrays(keys, lens, n); rc != ABLOOM_OK) return rc;
  set_out(added, filter->impl->add_many(abloom::KeySource::of_arrays(keys, lens), n));
  return ABLOOM_OK;
}

int abloom_test_many(const abloom_filter* filter, const void* const* keys, const size_t* lens,
                     size_t n, uint8_t* results, uint64_t* found) {
  if (filter == nullptr || (n > 0 && results == nullptr)) return ABLOOM_ERR_NULL;
  if (int rc = check_key_arrays(keys, lens, n); rc != ABLOOM_OK) return rc;
  set_out(found, filter->impl->test_many(abloom::KeySource::of_arrays(keys, lens), n, results));
  return ABLOOM_OK;
}

int abloom_add_packed(abloom_filter* filter, const void* buf, size_t buf_len,
                      const uint64_t* offsets, size_t n, uint64_t* added) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  abloom::KeySource keys;
  if (int rc = check_packed(buf, buf_len, offsets, n, &keys); rc != ABLOOM_OK) return rc;
  set_out(added, filter->impl->add_many(keys, n));
  return ABLOOM_OK;
}

int abloom_test_packed(const abloom_filter* filter, const void* buf, size_t buf_len,
                       const uint64_t* offsets, size_t n, uint8_t* results, uint64_t* found) {
  if (filter == nullptr || (n > 0 && results == nullptr)) return ABLOOM_ERR_NULL;
  abloom::KeySource keys;
  if (int rc = check_packed(buf, buf_len, offsets, n, &keys); rc != ABLOOM_OK) return rc;
  set_out(found, filter->impl->test_many(keys, n, results));
  return ABLOOM_OK;
}

int abloom_add_hashes(abloom_filter* filter, const uint64_t* hashes, size_t n, uint64_t* added) {
  if (filter == nullptr || (n > 0 && hashes == nullptr)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  set_out(added, filter->impl->add_many(hashes, n));
  return ABLOOM_OK;
}

int abloom_test_hashes(const abloom_filter* filter, const uint64_t* hashes, size_t n,
                       uint8_t* results, uint64_t* found) {
  if (filter == nullptr || (n > 0 && (hashes == nullptr || results == nullptr))) {
    return ABLOOM_ERR_NULL;
  }
  set_out(found, filter->impl->test_many(hashes, n, results));
  return ABLOOM_OK;
}

int abloom_union(abloom_filter* dst, const abloom_filter* src) {
  if (dst == nullptr || src == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(dst)) return ABLOOM_ERR_READONLY;
  return to_code(dst->impl->union_with(*src->impl));
}

int abloom_intersect(abloom_filter* dst, const abloom_filter* src) {
  if (dst == nullptr || src == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(dst)) return ABLOOM_ERR_READONLY;
  return to_code(dst->impl->intersect_with(*src->impl));
}

int abloom_clear(abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  filter->impl->clear();
  return ABLOOM_OK;
}

int abloom_equal(const abloom_filter* a, const abloom_filter* b) {
  if (a == nullptr || b == nullptr) return ABLOOM_ERR_NULL;
  return a->impl->equals(*b->impl) ? 1 : 0;
}

int abloom_info_init(abloom_info* info) {
  if (info == nullptr) return ABLOOM_ERR_NULL;
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  return ABLOOM_OK;
}

int abloom_get_info(const abloom_filter* filter, abloom_info* info) {
  if (filter == nullptr || info == nullptr) return ABLOOM_ERR_NULL;
  const size_t size = info->struct_size;
  if (size != kInfoSizeV1 && size != sizeof(abloom_info)) return ABLOOM_ERR_INVALID;
  const abloom::Shape& s = filter->impl->shape();
  const abloom::FilterParams& p = filter->impl->params();
  info->kind = static_cast<uint32_t>(s.kind);
  info->k = s.k;
  info->shards = s.shards();
  info->layout = static_cast<uint32_t>(s.layout);
  info->blocks_per_shard = s.blocks_per_shard;
  info->bits = s.total_bits();
  info->bytes = s.total_bits() / 8;
  info->capacity = p.capacity;
  info->seed = s.seed;
  info->target_fpr = p.target_fpr;
  info->expected_fpr = p.expected_fpr;
  info->storage = static_cast<uint32_t>(filter->impl->storage());
  info->read_only = filter->impl->read_only() ? 1 : 0;
  // Fields after the first version's only for callers built with them: an older caller's struct
  // ends before them.
  if (size >= offsetof(abloom_info, stale) + sizeof info->stale) {
    info->stale = filter->impl->opened_stale() ? 1 : 0;
  }
  return ABLOOM_OK;
}

int abloom_memory_init(abloom_memory* mem) {
  if (mem == nullptr) return ABLOOM_ERR_NULL;
  *mem = abloom_memory{};
  mem->struct_size = sizeof(abloom_memory);
  return ABLOOM_OK;
}

int abloom_get_memory(const abloom_filter* filter, abloom_memory* mem) {
  if (filter == nullptr || mem == nullptr) return ABLOOM_ERR_NULL;
  if (mem->struct_size != sizeof(abloom_memory)) return ABLOOM_ERR_INVALID;
  const abloom::Shape& s = filter->impl->shape();
  mem->kind = static_cast<uint32_t>(s.kind);
  mem->layout = static_cast<uint32_t>(s.layout);
  mem->hash_id = abloom::kHashXxh3;
  mem->k = s.k;
  mem->shard_bits = s.shard_bits;
  mem->shards = s.shards();
  mem->blocks_per_shard = s.blocks_per_shard;
  mem->seed = s.seed;
  mem->read_only = filter->impl->read_only() ? 1 : 0;
  mem->reserved = 0;
  mem->shard_words = filter->impl->shard_pointers();
  return ABLOOM_OK;
}

int abloom_get_writable_shards(abloom_filter* filter, uint64_t* const** out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  if (filter->impl->read_only()) return ABLOOM_ERR_READONLY;
  *out = filter->impl->writable_shard_pointers();
  return ABLOOM_OK;
}

int abloom_estimate_count(const abloom_filter* filter, double* out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  *out = filter->impl->estimate_count();
  return ABLOOM_OK;
}

int abloom_estimate_fpr(const abloom_filter* filter, double* out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  *out = filter->impl->estimate_fpr();
  return ABLOOM_OK;
}

int abloom_serialized_size(const abloom_filter* filter, uint64_t* out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  *out = abloom::serialized_size(filter->impl->shape());
  return ABLOOM_OK;
}

int abloom_serialize(const abloom_filter* filter, void* buf, size_t capacity, size_t* written) {
  if (filter == nullptr || buf == nullptr) return ABLOOM_ERR_NULL;
  const uint64_t size = abloom::serialized_size(filter->impl->shape());
  if (capacity < size) return ABLOOM_ERR_TOO_SMALL;
  abloom::serialize_into(*filter->impl, static_cast<unsigned char*>(buf));
  if (written != nullptr) *written = static_cast<size_t>(size);
  return ABLOOM_OK;
}

int abloom_deserialize(const void* buf, size_t len, abloom_filter** out) {
  if (buf == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  return load_into(out, [&](std::unique_ptr<abloom::Filter>* f) {
    return abloom::deserialize(static_cast<const unsigned char*>(buf), len, f);
  });
}

int abloom_view(const void* buf, size_t len, uint32_t flags, abloom_filter** out) {
  if (buf == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  if ((flags & ~ABLOOM_VERIFY_CHECKSUM) != 0) return ABLOOM_ERR_INVALID;
  const bool verify = (flags & ABLOOM_VERIFY_CHECKSUM) != 0;
  return load_into(out, [&](std::unique_ptr<abloom::Filter>* f) {
    return abloom::view(static_cast<const unsigned char*>(buf), len, verify, f);
  });
}

int abloom_save(const abloom_filter* filter, const char* path) {
  if (filter == nullptr || path == nullptr) return ABLOOM_ERR_NULL;
  return to_code(abloom::save_file(*filter->impl, path));
}

int abloom_open(const char* path, uint32_t flags, abloom_filter** out) {
  if (path == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  constexpr uint32_t kKnown =
      ABLOOM_VERIFY_CHECKSUM | ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_OPEN_READ_WRITE;
  const uint32_t mode_bits = flags & (ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_OPEN_READ_WRITE);
  if ((flags & ~kKnown) != 0 || mode_bits == (ABLOOM_OPEN_COPY_ON_WRITE | ABLOOM_OPEN_READ_WRITE)) {
    return ABLOOM_ERR_INVALID;
  }
  const abloom::OpenMode mode = mode_bits == ABLOOM_OPEN_READ_WRITE ? abloom::OpenMode::read_write
                                : mode_bits == ABLOOM_OPEN_COPY_ON_WRITE
                                    ? abloom::OpenMode::copy_on_write
                                    : abloom::OpenMode::read_only;
  const bool verify = (flags & ABLOOM_VERIFY_CHECKSUM) != 0;
  return load_into(out, [&](std::unique_ptr<abloom::Filter>* f) {
    return abloom::open_file(path, mode, verify, f);
  });
}

int abloom_sync(abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return to_code(filter->impl->sync(false));
}

int abloom_sync_last(abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return to_code(filter->impl->sync_last());
}

int abloom_seal(const char* path) {
  if (path == nullptr) return ABLOOM_ERR_NULL;
  return guarded([&] { return to_code(abloom::seal_file(path)); });
}

}  // extern "C"
