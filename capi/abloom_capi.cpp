// The thin extern "C" layer: checks every argument, maps core errors to ABLOOM_ERR_* codes and
// keeps every exception on this side of the ABI.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <exception>
#include <new>

#include "abloom.h"
#include "filter/filter.hpp"
#include "filter/growing_filter.hpp"
#include "kernels/isa.hpp"
#include "kernels/kernel_table.hpp"
#include "kernels/key_source.hpp"
#include "model/sizing.hpp"
#include "storage/file_io.hpp"
#include "storage/format.hpp"
#include "storage/growing_format.hpp"

// The handle the C API hands out; C sees only the incomplete type. It holds a fixed filter
// (impl) or a growing one (chain): exactly one of the two.
struct abloom_filter {
  explicit abloom_filter(std::unique_ptr<abloom::Filter> f) noexcept : impl(std::move(f)) {}
  explicit abloom_filter(std::unique_ptr<abloom::GrowingFilter> g) noexcept : chain(std::move(g)) {}
  ~abloom_filter() {
    // Best effort: a read-write mapping rewrites its header (a chain's: every stage's and its
    // head), sealed (abloom_sync).
    if (impl) (void)impl->sync(true);
    if (chain) (void)chain->sync(true);
  }
  abloom_filter(const abloom_filter&) = delete;
  abloom_filter& operator=(const abloom_filter&) = delete;
  std::unique_ptr<abloom::Filter> impl;
  std::unique_ptr<abloom::GrowingFilter> chain;
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
static_assert(ABLOOM_LAYOUT_HALF == static_cast<uint32_t>(abloom::Layout::half));
static_assert(ABLOOM_HALF_K == abloom::kHalfK);
static_assert(ABLOOM_SPLIT_MAX_K == abloom::kSplitMaxK);  // = ABLOOM_SPEC_SPLIT_WORDS

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
    case ABLOOM_LAYOUT_HALF:
      *out = abloom::Layout::half;
      return true;
    default:
      return false;
  }
}

// The size of abloom_options before `layout` (the first header's). Callers built against it get
// the distinct layout, the only one that header knew: the files they write stay readable by the
// readers they were built with.
constexpr size_t kOptionsSizeV1 = offsetof(abloom_options, layout);
// Before `growth` (the second header's): a fixed filter, as that header knew only those. Its
// last field, a uint32_t after a uint32_t, ends on an 8-byte boundary: the offset is its sizeof.
constexpr size_t kOptionsSizeV2 = offsetof(abloom_options, growth);
static_assert(kOptionsSizeV2 % alignof(abloom_options) == 0);

bool known_options_size(size_t size) noexcept {
  return size == kOptionsSizeV1 || size == kOptionsSizeV2 || size == sizeof(abloom_options);
}

// The growth a caller's options ask for: 0 (a fixed filter) for the earlier structs.
double growth_of(const abloom_options* opts) noexcept {
  return opts->struct_size == sizeof(abloom_options) ? opts->growth : 0.0;
}

// The size of abloom_info before `stale` (the first header's): its last field ends on the
// struct's alignment, so that offset is also the first version's sizeof.
constexpr size_t kInfoSizeV1 = offsetof(abloom_info, stale);
static_assert(kInfoSizeV1 % alignof(abloom_info) == 0);
// Before `stages` (the second header's): `stale`, then 4 bytes of padding to 8.
constexpr size_t kInfoSizeV2 = offsetof(abloom_info, stages) + 4;
static_assert(offsetof(abloom_info, stages) == offsetof(abloom_info, stale) + 4);
static_assert(kInfoSizeV2 % alignof(abloom_info) == 0);

bool known_info_size(size_t size) noexcept {
  return size == kInfoSizeV1 || size == kInfoSizeV2 || size == sizeof(abloom_info);
}

static_assert(ABLOOM_MAX_STAGES == abloom::kMaxStages);
static_assert(ABLOOM_DEFAULT_INITIAL_CAPACITY == abloom::kDefaultInitialCapacity);
static_assert(ABLOOM_DEFAULT_GROWTH == abloom::kDefaultGrowth);
static_assert(ABLOOM_MAX_GROWTH == abloom::kMaxGrowth);

// Checks options and computes their plan.
int plan_from_options(const abloom_options* opts, abloom::Plan* plan) noexcept {
  if (opts == nullptr) return ABLOOM_ERR_NULL;
  // Only the sizes of versions this library knows (abloom.h): nothing is read past struct_size.
  if (!known_options_size(opts->struct_size)) return ABLOOM_ERR_INVALID;
  if (!valid_kind(opts->kind) || opts->threads > ABLOOM_MAX_THREADS) return ABLOOM_ERR_INVALID;
  abloom::SizingRequest req;
  req.kind = static_cast<abloom::Kind>(opts->kind);
  req.capacity = opts->capacity;
  req.fpr = opts->fpr;
  req.shards = opts->shards;
  req.bits = opts->bits;
  req.k = opts->k;
  const bool has_layout = opts->struct_size != kOptionsSizeV1;
  if (!layout_of(has_layout ? opts->layout : ABLOOM_LAYOUT_DISTINCT, req, &req.layout)) {
    return ABLOOM_ERR_INVALID;
  }
  return to_code(abloom::make_plan(req, plan));
}

// A growing filter's request from options whose growth is not 0: growth in (1, ABLOOM_MAX_GROWTH],
// bits and k 0 (each stage is sized by the schedule).
int growth_request(const abloom_options* opts, abloom::GrowthRequest* req) noexcept {
  const double growth = growth_of(opts);
  if (!(growth > 1.0 && growth <= abloom::kMaxGrowth) || opts->bits != 0 || opts->k != 0 ||
      !valid_kind(opts->kind) || opts->threads > ABLOOM_MAX_THREADS) {
    return ABLOOM_ERR_INVALID;
  }
  req->kind = static_cast<abloom::Kind>(opts->kind);
  req->initial_capacity = opts->capacity;
  req->fpr = opts->fpr;
  req->growth = growth;
  req->shards = opts->shards;
  // ABLOOM_LAYOUT_DEFAULT: each stage's own default (layout_of would fix one for them all).
  req->layout_auto = opts->layout == ABLOOM_LAYOUT_DEFAULT;
  if (!req->layout_auto && !layout_of(opts->layout, abloom::SizingRequest{}, &req->layout)) {
    return ABLOOM_ERR_INVALID;
  }
  return to_code(abloom::check_growth(*req));
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

// Whether every key of a packed batch is `stride` bytes long: offsets[i] == offsets[0] + i *
// stride for all i <= n (modulo 2^64, as the lengths' differences would be: check_packed then
// rules out a wrap). The offsets are compared with that progression two at a time in a vector
// (GCC's and Clang's vector extensions: SSE2 on x86-64, NEON on aarch64), 16 keys a round with
// one branch, so the check costs a few instructions per 8 keys rather than per key (its share of
// an in-cache bulk test: bench/RESULTS.md, "In cache against Boost.Bloom").
// A batch of keys of varying length usually stops at its first round.
bool same_length_keys(const uint64_t* offsets, size_t n, uint64_t stride) noexcept {
  using Pair = uint64_t __attribute__((vector_size(16)));
  constexpr size_t kRound = 16;
  const uint64_t first = offsets[0];
  Pair expect = {first, first + stride};
  const Pair step = {2 * stride, 2 * stride};
  size_t i = 0;
  for (; i + kRound <= n + 1; i += kRound) {
    Pair differ = {0, 0};
    for (size_t j = 0; j < kRound; j += 2) {
      Pair have;
      std::memcpy(&have, offsets + i + j, sizeof have);
      differ |= have ^ expect;
      expect += step;
    }
    if ((differ[0] | differ[1]) != 0) return false;
  }
  uint64_t differ = 0;
  for (; i <= n; ++i) differ |= offsets[i] ^ (first + i * stride);
  return differ == 0;
}

// Checks a packed batch and says how the core reads it. Keys all of one length (64-bit ids,
// UUIDs, fixed-width records: the common batch) become KeySource::of_fixed: the bulk loop then
// finds key i at i * length, with no offsets to load, and its hash's length test always goes the
// same way (bench/JOURNAL.md, "Packed keys of one length"). Their offsets are then offsets[0] +
// i * stride, so they are in order exactly when that sum does not wrap around: one check instead
// of one per key.
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
bool read_only(const abloom_filter* filter) noexcept {
  return filter->chain ? filter->chain->read_only() : filter->impl->read_only();
}

// The load paths (deserialize, view, open): run the core loader and, on success, hand the
// filter it built (fixed or growing) to the caller as a new handle. Exceptions become codes.
template <class Load>
int load_into(abloom_filter** out, Load load) noexcept {
  return guarded([&] {
    std::unique_ptr<abloom::Filter> f;
    std::unique_ptr<abloom::GrowingFilter> g;
    if (abloom::Errc e = load(&f, &g); e != abloom::Errc::ok) return to_code(e);
    *out = (g ? std::make_unique<abloom_filter>(std::move(g))
              : std::make_unique<abloom_filter>(std::move(f)))
               .release();
    return ABLOOM_OK;
  });
}

// The bulk calls, on whichever filter the handle holds: `keys` a KeySource or an array of hashes.
// A caller that passes no `added` does not need the count, and a fixed filter's exclusive writer
// then skips it (NewKeys); a growing filter counts always (its stages fill by it).
template <class Keys>
uint64_t add_many_of(abloom_filter* filter, const Keys& keys, size_t n,
                     const uint64_t* added) noexcept {
  if (filter->chain) return filter->chain->add_many(keys, n);
  return filter->impl->add_many(keys, n,
                                added ? abloom::NewKeys::counted : abloom::NewKeys::uncounted);
}
template <class Keys>
uint64_t test_many_of(const abloom_filter* filter, const Keys& keys, size_t n,
                      uint8_t* results) noexcept {
  return filter->chain ? filter->chain->test_many(keys, n, results)
                       : filter->impl->test_many(keys, n, results);
}

// Test-and-add of a batch in order (abloom_test_and_add_many and its packed and hash forms).
uint64_t test_and_add_many_of(abloom_filter* filter, const abloom::KeySource& keys, size_t n,
                              uint8_t* results) noexcept {
  return filter->chain ? filter->chain->test_and_add_many(keys, n, results)
                       : filter->impl->test_and_add_many(keys, n, results);
}

// Runs fixed(filter) or growing(chain), whichever the handle holds.
template <class H, class Fixed, class Growing>
auto dispatch(H* filter, Fixed fixed, Growing growing) {
  return filter->chain ? growing(*filter->chain) : fixed(*filter->impl);
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
      return "unsupported: a file's kind, bit layout or hash, mapping on a big-endian machine, "
             "or a call that growing filters do not take (abloom.h names them)";
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

uint32_t abloom_get_isa(void) { return static_cast<uint32_t>(abloom::isa_active()); }

// Isa has a fixed uint32_t underlying type, so any value converts; the core refuses (isa_force)
// or names as "unknown" (isa_name) those outside the enumeration.
int abloom_set_isa(uint32_t isa) {
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
    uint64_t capacity = opts->capacity;
    if (growth_of(opts) != 0.0) {  // only the third struct has growth
      // A growing filter: its first stage, what abloom_create allocates.
      abloom::GrowthRequest req;
      if (int rc = growth_request(opts, &req); rc != ABLOOM_OK) return rc;
      if (int rc = to_code(abloom::plan_stage(req, 0, &p)); rc != ABLOOM_OK) return rc;
      (void)abloom::stage_capacity(req, 0, &capacity);
    } else if (int rc = plan_from_options(opts, &p); rc != ABLOOM_OK) {
      return rc;
    }
    plan->kind = static_cast<uint32_t>(p.kind);
    plan->k = p.k;
    plan->shards = p.shards();
    plan->layout = static_cast<uint32_t>(p.layout);
    plan->blocks_per_shard = p.blocks_per_shard;
    plan->bits = p.bits();
    plan->bytes = p.bytes();
    plan->bits_per_key = static_cast<double>(p.bits()) / static_cast<double>(capacity);
    plan->expected_fpr = p.expected_fpr;
    return ABLOOM_OK;
  });
}

int abloom_growth_footprint(const abloom_options* opts, uint64_t keys, uint32_t* stages,
                            uint64_t* bytes, double* fpr_bound) {
  if (opts == nullptr) return ABLOOM_ERR_NULL;
  if (keys == 0) return ABLOOM_ERR_INVALID;  // growth_request refuses the other struct sizes
  return guarded([&] {
    abloom::GrowthRequest req;
    if (int rc = growth_request(opts, &req); rc != ABLOOM_OK) return rc;
    abloom::GrowthFootprint fp;
    if (int rc = to_code(abloom::growth_footprint(req, keys, &fp)); rc != ABLOOM_OK) return rc;
    if (stages != nullptr) *stages = fp.stages;
    if (bytes != nullptr) *bytes = fp.bytes;
    if (fpr_bound != nullptr) *fpr_bound = fp.fpr_bound;
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
  if (k > abloom::max_k(kd, l) || (kd == abloom::Kind::classic && l != abloom::Layout::distinct) ||
      (l == abloom::Layout::half && k != abloom::kHalfK)) {
    return ABLOOM_ERR_INVALID;
  }
  *out = abloom::fpr_model(kd, l, bits_per_key, k);
  return ABLOOM_OK;
}

int abloom_create(const abloom_options* opts, abloom_filter** out) {
  if (opts == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  return guarded([&] {
    if (growth_of(opts) != 0.0) {  // only the third struct has growth
      abloom::GrowthRequest req;
      if (int rc = growth_request(opts, &req); rc != ABLOOM_OK) return rc;
      auto chain = std::make_unique<abloom::GrowingFilter>(req, opts->seed);
      if (int rc = to_code(chain->status()); rc != ABLOOM_OK) return rc;
      chain->set_threads(opts->threads);
      *out = new abloom_filter(std::move(chain));
      return ABLOOM_OK;
    }
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
    *out = filter->chain ? new abloom_filter(filter->chain->copy())
                         : new abloom_filter(std::make_unique<abloom::Filter>(*filter->impl));
    return ABLOOM_OK;
  });
}

static_assert(ABLOOM_WRITER_SHARED == static_cast<uint32_t>(abloom::WriterMode::shared));
static_assert(ABLOOM_WRITER_EXCLUSIVE == static_cast<uint32_t>(abloom::WriterMode::exclusive));

int abloom_set_writer_mode(abloom_filter* filter, uint32_t mode) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (mode != ABLOOM_WRITER_SHARED && mode != ABLOOM_WRITER_EXCLUSIVE) return ABLOOM_ERR_INVALID;
  const auto m = static_cast<abloom::WriterMode>(mode);
  dispatch(
      filter, [m](abloom::Filter& f) { f.set_writer_mode(m); },
      [m](abloom::GrowingFilter& g) { g.set_writer_mode(m); });
  return ABLOOM_OK;
}

int abloom_get_writer_mode(const abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return static_cast<int>(filter->chain ? filter->chain->writer_mode()
                                        : filter->impl->writer_mode());
}

int abloom_set_threads(abloom_filter* filter, uint32_t threads) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (threads > ABLOOM_MAX_THREADS) return ABLOOM_ERR_INVALID;
  dispatch(
      filter, [threads](abloom::Filter& f) { f.set_threads(threads); },
      [threads](abloom::GrowingFilter& g) { g.set_threads(threads); });
  return ABLOOM_OK;
}

int abloom_get_threads(const abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return static_cast<int>(filter->chain ? filter->chain->threads() : filter->impl->threads());
}

int abloom_add(abloom_filter* filter, const void* key, size_t len) {
  if (filter == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  if (filter->chain) {
    filter->chain->add_hash(filter->chain->hash(key, len));
  } else {
    (void)filter->impl->add_key(key, len);
  }
  return ABLOOM_OK;
}

int abloom_test(const abloom_filter* filter, const void* key, size_t len) {
  if (filter == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  if (filter->chain) return filter->chain->test_hash(filter->chain->hash(key, len)) ? 1 : 0;
  return filter->impl->test_key(key, len);
}

int abloom_test_and_add(abloom_filter* filter, const void* key, size_t len) {
  if (filter == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  if (filter->chain) return filter->chain->test_and_add_hash(filter->chain->hash(key, len)) ? 1 : 0;
  return filter->impl->add_key(key, len);
}

int abloom_hash(const abloom_filter* filter, const void* key, size_t len, uint64_t* out) {
  if (filter == nullptr || out == nullptr || !key_ok(key, len)) return ABLOOM_ERR_NULL;
  *out = filter->chain ? filter->chain->hash(key, len) : filter->impl->hash(key, len);
  return ABLOOM_OK;
}

int abloom_add_hash(abloom_filter* filter, uint64_t hash) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  dispatch(
      filter, [hash](abloom::Filter& f) { f.add_hash(hash); },
      [hash](abloom::GrowingFilter& g) { g.add_hash(hash); });
  return ABLOOM_OK;
}

int abloom_test_hash(const abloom_filter* filter, uint64_t hash) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  return dispatch(
             filter, [hash](const abloom::Filter& f) { return f.test_hash(hash); },
             [hash](const abloom::GrowingFilter& g) { return g.test_hash(hash); })
             ? 1
             : 0;
}

int abloom_test_and_add_hash(abloom_filter* filter, uint64_t hash) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  return dispatch(
             filter, [hash](abloom::Filter& f) { return f.test_and_add_hash(hash); },
             [hash](abloom::GrowingFilter& g) { return g.test_and_add_hash(hash); })
             ? 1
             : 0;
}

int abloom_add_many(abloom_filter* filter, const void* const* keys, const size_t* lens, size_t n,
                    uint64_t* added) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  if (int rc = check_key_arrays(keys, lens, n); rc != ABLOOM_OK) return rc;
  set_out(added, add_many_of(filter, abloom::KeySource::of_arrays(keys, lens), n, added));
  return ABLOOM_OK;
}

int abloom_test_many(const abloom_filter* filter, const void* const* keys, const size_t* lens,
                     size_t n, uint8_t* results, uint64_t* found) {
  if (filter == nullptr || (n > 0 && results == nullptr)) return ABLOOM_ERR_NULL;
  if (int rc = check_key_arrays(keys, lens, n); rc != ABLOOM_OK) return rc;
  set_out(found, test_many_of(filter, abloom::KeySource::of_arrays(keys, lens), n, results));
  return ABLOOM_OK;
}

int abloom_test_and_add_many(abloom_filter* filter, const void* const* keys, const size_t* lens,
                             size_t n, uint8_t* results, uint64_t* added) {
  if (filter == nullptr || (n > 0 && results == nullptr)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  if (int rc = check_key_arrays(keys, lens, n); rc != ABLOOM_OK) return rc;
  set_out(added,
          test_and_add_many_of(filter, abloom::KeySource::of_arrays(keys, lens), n, results));
  return ABLOOM_OK;
}

int abloom_add_packed(abloom_filter* filter, const void* buf, size_t buf_len,
                      const uint64_t* offsets, size_t n, uint64_t* added) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  abloom::KeySource keys;
  if (int rc = check_packed(buf, buf_len, offsets, n, &keys); rc != ABLOOM_OK) return rc;
  set_out(added, add_many_of(filter, keys, n, added));
  return ABLOOM_OK;
}

int abloom_test_packed(const abloom_filter* filter, const void* buf, size_t buf_len,
                       const uint64_t* offsets, size_t n, uint8_t* results, uint64_t* found) {
  if (filter == nullptr || (n > 0 && results == nullptr)) return ABLOOM_ERR_NULL;
  abloom::KeySource keys;
  if (int rc = check_packed(buf, buf_len, offsets, n, &keys); rc != ABLOOM_OK) return rc;
  set_out(found, test_many_of(filter, keys, n, results));
  return ABLOOM_OK;
}

int abloom_test_and_add_packed(abloom_filter* filter, const void* buf, size_t buf_len,
                               const uint64_t* offsets, size_t n, uint8_t* results,
                               uint64_t* added) {
  if (filter == nullptr || (n > 0 && results == nullptr)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  abloom::KeySource keys;
  if (int rc = check_packed(buf, buf_len, offsets, n, &keys); rc != ABLOOM_OK) return rc;
  set_out(added, test_and_add_many_of(filter, keys, n, results));
  return ABLOOM_OK;
}

int abloom_add_hashes(abloom_filter* filter, const uint64_t* hashes, size_t n, uint64_t* added) {
  if (filter == nullptr || (n > 0 && hashes == nullptr)) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  set_out(added, add_many_of(filter, hashes, n, added));
  return ABLOOM_OK;
}

int abloom_test_hashes(const abloom_filter* filter, const uint64_t* hashes, size_t n,
                       uint8_t* results, uint64_t* found) {
  if (filter == nullptr || (n > 0 && (hashes == nullptr || results == nullptr))) {
    return ABLOOM_ERR_NULL;
  }
  set_out(found, test_many_of(filter, hashes, n, results));
  return ABLOOM_OK;
}

int abloom_test_and_add_hashes(abloom_filter* filter, const uint64_t* hashes, size_t n,
                               uint8_t* results, uint64_t* added) {
  if (filter == nullptr || (n > 0 && (hashes == nullptr || results == nullptr))) {
    return ABLOOM_ERR_NULL;
  }
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  set_out(added, test_and_add_many_of(filter, abloom::KeySource::of_hashes(hashes), n, results));
  return ABLOOM_OK;
}

int abloom_union(abloom_filter* dst, const abloom_filter* src) {
  if (dst == nullptr || src == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(dst)) return ABLOOM_ERR_READONLY;
  if ((dst->chain == nullptr) != (src->chain == nullptr)) return ABLOOM_ERR_MISMATCH;
  if (dst->chain) return to_code(dst->chain->union_with(*src->chain));
  return to_code(dst->impl->union_with(*src->impl));
}

int abloom_intersect(abloom_filter* dst, const abloom_filter* src) {
  if (dst == nullptr || src == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(dst)) return ABLOOM_ERR_READONLY;
  if (dst->chain || src->chain) return ABLOOM_ERR_UNSUPPORTED;
  return to_code(dst->impl->intersect_with(*src->impl));
}

int abloom_clear(abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (read_only(filter)) return ABLOOM_ERR_READONLY;
  dispatch(
      filter, [](abloom::Filter& f) { f.clear(); }, [](abloom::GrowingFilter& g) { g.clear(); });
  return ABLOOM_OK;
}

int abloom_equal(const abloom_filter* a, const abloom_filter* b) {
  if (a == nullptr || b == nullptr) return ABLOOM_ERR_NULL;
  if ((a->chain == nullptr) != (b->chain == nullptr)) return 0;
  if (a->chain) return a->chain->equals(*b->chain) ? 1 : 0;
  return a->impl->equals(*b->impl) ? 1 : 0;
}

int abloom_info_init(abloom_info* info) {
  if (info == nullptr) return ABLOOM_ERR_NULL;
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  return ABLOOM_OK;
}

namespace {

// One filter's fields of abloom_info (a fixed filter, or a stage), up to `size` bytes.
void describe(const abloom::Filter& f, size_t size, abloom_info* info) noexcept {
  const abloom::Shape& s = f.shape();
  const abloom::FilterParams& p = f.params();
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
  info->storage = static_cast<uint32_t>(f.storage());
  info->read_only = f.read_only() ? 1 : 0;
  // Fields after the first version's only for callers built with them: an older caller's struct
  // ends before them.
  if (size > kInfoSizeV1) info->stale = f.opened_stale() ? 1 : 0;
  if (size > kInfoSizeV2) {
    info->stages = 1;
    info->growth_failed = 0;
    info->growth = 0;
    info->keys = 0;
  }
}

// A chain's fields that describe it whole (growth, stages), after describe() of a stage.
void describe_chain(const abloom::GrowingFilter& g, uint32_t stages, size_t size,
                    abloom_info* info) noexcept {
  if (size > kInfoSizeV1) info->stale = g.opened_stale() ? 1 : 0;
  if (size > kInfoSizeV2) {
    info->stages = stages;
    info->growth_failed = g.growth_failed() ? 1 : 0;
    info->growth = g.request().growth == 0.0 ? abloom::kDefaultGrowth : g.request().growth;
  }
}

}  // namespace

int abloom_get_info(const abloom_filter* filter, abloom_info* info) {
  if (filter == nullptr || info == nullptr) return ABLOOM_ERR_NULL;
  const size_t size = info->struct_size;
  if (!known_info_size(size)) return ABLOOM_ERR_INVALID;
  if (!filter->chain) {
    describe(*filter->impl, size, info);
    return ABLOOM_OK;
  }
  const abloom::GrowingFilter& g = *filter->chain;
  const uint32_t stages = g.stages();
  describe(g.stage(stages - 1), size, info);  // the newest stage's shape
  uint64_t bits = 0, capacity = 0, keys = 0;
  double expected = 0;
  for (uint32_t i = 0; i < stages; ++i) {
    bits += g.stage(i).shape().total_bits();
    capacity += g.stage(i).params().capacity;
    expected += g.stage(i).params().expected_fpr;
    keys += g.stage_keys(i);
  }
  info->bits = bits;
  info->bytes = bits / 8;
  info->capacity = capacity;
  info->target_fpr = g.request().fpr;
  info->expected_fpr = expected;
  describe_chain(g, stages, size, info);
  if (size > kInfoSizeV2) info->keys = keys;
  return ABLOOM_OK;
}

int abloom_get_stage_info(const abloom_filter* filter, uint32_t stage, abloom_info* info) {
  if (filter == nullptr || info == nullptr) return ABLOOM_ERR_NULL;
  const size_t size = info->struct_size;
  if (!known_info_size(size)) return ABLOOM_ERR_INVALID;
  if (!filter->chain) {
    if (stage != 0) return ABLOOM_ERR_RANGE;
    describe(*filter->impl, size, info);
    return ABLOOM_OK;
  }
  const abloom::GrowingFilter& g = *filter->chain;
  const uint32_t stages = g.stages();
  if (stage >= stages) return ABLOOM_ERR_RANGE;
  describe(g.stage(stage), size, info);
  describe_chain(g, stages, size, info);
  if (size > kInfoSizeV2) info->keys = g.stage_keys(stage);
  return ABLOOM_OK;
}

int abloom_memory_init(abloom_memory* mem) {
  if (mem == nullptr) return ABLOOM_ERR_NULL;
  *mem = abloom_memory{};
  mem->struct_size = sizeof(abloom_memory);
  return ABLOOM_OK;
}

namespace {
void describe_memory(const abloom::Filter& f, abloom_memory* mem) {
  const abloom::Shape& s = f.shape();
  mem->kind = static_cast<uint32_t>(s.kind);
  mem->layout = static_cast<uint32_t>(s.layout);
  mem->hash_id = abloom::kHashXxh3;
  mem->k = s.k;
  mem->shard_bits = s.shard_bits;
  mem->shards = s.shards();
  mem->blocks_per_shard = s.blocks_per_shard;
  mem->seed = s.seed;
  mem->read_only = f.read_only() ? 1 : 0;
  mem->reserved = 0;
  mem->shard_words = f.shard_pointers();
}
}  // namespace

int abloom_get_memory(const abloom_filter* filter, abloom_memory* mem) {
  if (filter == nullptr || mem == nullptr) return ABLOOM_ERR_NULL;
  if (mem->struct_size != sizeof(abloom_memory)) return ABLOOM_ERR_INVALID;
  if (filter->chain) return ABLOOM_ERR_UNSUPPORTED;
  describe_memory(*filter->impl, mem);
  return ABLOOM_OK;
}

int abloom_get_stage_memory(const abloom_filter* filter, uint32_t stage, abloom_memory* mem) {
  if (filter == nullptr || mem == nullptr) return ABLOOM_ERR_NULL;
  if (mem->struct_size != sizeof(abloom_memory)) return ABLOOM_ERR_INVALID;
  if (!filter->chain) {
    if (stage != 0) return ABLOOM_ERR_RANGE;
    describe_memory(*filter->impl, mem);
    return ABLOOM_OK;
  }
  if (stage >= filter->chain->stages()) return ABLOOM_ERR_RANGE;
  describe_memory(filter->chain->stage(stage), mem);
  return ABLOOM_OK;
}

int abloom_get_writable_shards(abloom_filter* filter, uint64_t* const** out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  if (filter->chain) return ABLOOM_ERR_UNSUPPORTED;
  if (filter->impl->read_only()) return ABLOOM_ERR_READONLY;
  *out = filter->impl->writable_shard_pointers();
  return ABLOOM_OK;
}

int abloom_estimate_count(const abloom_filter* filter, double* out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  *out = filter->chain ? filter->chain->estimate_count() : filter->impl->estimate_count();
  return ABLOOM_OK;
}

int abloom_estimate_fpr(const abloom_filter* filter, double* out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  *out = filter->chain ? filter->chain->estimate_fpr() : filter->impl->estimate_fpr();
  return ABLOOM_OK;
}

int abloom_serialized_size(const abloom_filter* filter, uint64_t* out) {
  if (filter == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  *out = filter->chain ? abloom::chain_serialized_size(*filter->chain, filter->chain->stages())
                       : abloom::serialized_size(filter->impl->shape());
  return ABLOOM_OK;
}

int abloom_serialize(const abloom_filter* filter, void* buf, size_t capacity, size_t* written) {
  if (filter == nullptr || buf == nullptr) return ABLOOM_ERR_NULL;
  auto* bytes = static_cast<unsigned char*>(buf);
  if (filter->chain) {
    const uint32_t stages = filter->chain->stages();  // the snapshot: later stages are not in it
    const uint64_t size = abloom::chain_serialized_size(*filter->chain, stages);
    if (capacity < size) return ABLOOM_ERR_TOO_SMALL;
    abloom::serialize_chain_into(*filter->chain, stages, bytes);
    if (written != nullptr) *written = static_cast<size_t>(size);
    return ABLOOM_OK;
  }
  const uint64_t size = abloom::serialized_size(filter->impl->shape());
  if (capacity < size) return ABLOOM_ERR_TOO_SMALL;
  abloom::serialize_into(*filter->impl, bytes);
  if (written != nullptr) *written = static_cast<size_t>(size);
  return ABLOOM_OK;
}

int abloom_deserialize(const void* buf, size_t len, abloom_filter** out) {
  if (buf == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  const auto* bytes = static_cast<const unsigned char*>(buf);
  return load_into(
      out, [&](std::unique_ptr<abloom::Filter>* f, std::unique_ptr<abloom::GrowingFilter>* g) {
        return abloom::is_chain(bytes, len) ? abloom::deserialize_chain(bytes, len, g)
                                            : abloom::deserialize(bytes, len, f);
      });
}

int abloom_view(const void* buf, size_t len, uint32_t flags, abloom_filter** out) {
  if (buf == nullptr || out == nullptr) return ABLOOM_ERR_NULL;
  if ((flags & ~ABLOOM_VERIFY_CHECKSUM) != 0) return ABLOOM_ERR_INVALID;
  const bool verify = (flags & ABLOOM_VERIFY_CHECKSUM) != 0;
  const auto* bytes = static_cast<const unsigned char*>(buf);
  return load_into(
      out, [&](std::unique_ptr<abloom::Filter>* f, std::unique_ptr<abloom::GrowingFilter>* g) {
        return abloom::is_chain(bytes, len) ? abloom::view_chain(bytes, len, verify, g)
                                            : abloom::view(bytes, len, verify, f);
      });
}

int abloom_save(const abloom_filter* filter, const char* path) {
  if (filter == nullptr || path == nullptr) return ABLOOM_ERR_NULL;
  return to_code(filter->chain ? abloom::save_file(*filter->chain, path)
                               : abloom::save_file(*filter->impl, path));
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
  return load_into(
      out, [&](std::unique_ptr<abloom::Filter>* f, std::unique_ptr<abloom::GrowingFilter>* g) {
        return abloom::open_file(path, mode, verify, f, g);
      });
}

int abloom_sync(abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (filter->chain) return to_code(filter->chain->sync(false));
  return to_code(filter->impl->sync(false));
}

int abloom_sync_last(abloom_filter* filter) {
  if (filter == nullptr) return ABLOOM_ERR_NULL;
  if (filter->chain) {
    const abloom::Errc e = filter->chain->sync(true);
    filter->chain->make_read_only();
    return to_code(e);
  }
  return to_code(filter->impl->sync_last());
}

int abloom_seal(const char* path) {
  if (path == nullptr) return ABLOOM_ERR_NULL;
  return guarded([&] { return to_code(abloom::seal_file(path)); });
}

// ---- Deprecated names (abloom.h's last section): exported still, each its new name's call ----

uint32_t abloom_isa_active(void) { return abloom_get_isa(); }

int abloom_isa_force(uint32_t isa) { return abloom_set_isa(isa); }

int abloom_writer_mode(const abloom_filter* filter) { return abloom_get_writer_mode(filter); }

int abloom_threads(const abloom_filter* filter) { return abloom_get_threads(filter); }

}  // extern "C"
