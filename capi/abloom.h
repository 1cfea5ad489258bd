/*
 * abloom.h - the stable C ABI of abloom, a lock-free, cache-line-blocked Bloom filter.
 *
 * Valid C99 and C++. Every exported symbol starts with `abloom_`; filters are opaque handles.
 *
 * Where to start: abloom_new (or abloom_options_init, then abloom_create) makes a filter,
 * abloom_add and abloom_test take one key, abloom_free ends it; examples/hello.c is a whole
 * program, docs/GUIDE.md a tour of the API by area. The sections below come in the order a program
 * meets them: version and errors; creating a filter; single keys; bulk calls; set operations;
 * information and estimates; files and bytes. Then, for advanced use: bulk threads, the writer
 * mode, the instruction set and direct access to the bits; last, the deprecated names. Settings
 * are read with abloom_get_* and changed with abloom_set_*.
 *
 * Conventions (they hold for every function below unless its comment says otherwise):
 *  - Functions that can fail return an `int`: ABLOOM_OK (0) on success or a negative
 *    ABLOOM_ERR_* code. Queries that answer yes/no return 1 or 0, or a negative error code.
 *    `abloom_strerror` turns any code into a static English message.
 *  - Every pointer argument is checked: a NULL where an object is required gives
 *    ABLOOM_ERR_NULL. A key pointer may be NULL only when its length is 0 (the empty key).
 *  - On failure nothing is changed: outputs are left untouched and the filter is as it was.
 *  - The library never prints, never calls exit/abort, and never lets a C++ exception escape;
 *    an allocation failure is ABLOOM_ERR_NOMEM.
 *
 * Thread safety: any number of threads may call abloom_add*, abloom_test*, abloom_union and the
 * estimate/info calls on one filter at the same time, without locks. Once an add of a key has
 * returned, every later test of that key (in any thread that is ordered after the add, e.g. by a
 * join, a mutex or an atomic flag) returns 1. abloom_intersect and abloom_clear are atomic per
 * 64-bit word: keys added concurrently with them may or may not survive. abloom_free must not
 * race with any other call on the same handle; abloom_set_threads may run beside any other. A
 * filter switched to ABLOOM_WRITER_EXCLUSIVE (abloom_set_writer_mode) allows one writing thread
 * at a time instead, still with any number of concurrent readers.
 *
 * Layout: a filter is `shards` (a power of two) separately allocated arrays of 64-byte,
 * 64-byte-aligned blocks. One 64-bit XXH3 hash (seeded per filter) is computed per key; its top
 * bits pick the shard, the next bits pick the block by multiply-high, and (blocked kind) its low 32
 * bits drive k multiply-shift probes inside that one cache line. The classic kind spreads k bits
 * over the whole shard by enhanced double hashing from the same hash. The exact bit layout is part
 * of the on-disk format and will not change within a major version.
 */
#ifndef ABLOOM_H
#define ABLOOM_H

#include <stddef.h>
#include <stdint.h>

/* ---- Version ------------------------------------------------------------------------------- */

#define ABLOOM_VERSION_MAJOR 0
#define ABLOOM_VERSION_MINOR 1
#define ABLOOM_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH, comparable with abloom_version_number(). */
#define ABLOOM_VERSION_NUMBER \
  (ABLOOM_VERSION_MAJOR * 10000 + ABLOOM_VERSION_MINOR * 100 + ABLOOM_VERSION_PATCH)
#define ABLOOM_VERSION_STRINGIFY_(x) #x
#define ABLOOM_VERSION_STRINGIFY(x) ABLOOM_VERSION_STRINGIFY_(x)
#define ABLOOM_VERSION_STRING                                                      \
  ABLOOM_VERSION_STRINGIFY(ABLOOM_VERSION_MAJOR)                                   \
  "." ABLOOM_VERSION_STRINGIFY(ABLOOM_VERSION_MINOR) "." ABLOOM_VERSION_STRINGIFY( \
      ABLOOM_VERSION_PATCH)

/* ---- Visibility ---------------------------------------------------------------------------- */

#if defined(ABLOOM_STATIC_DEFINE)
#define ABLOOM_API
#elif defined(_WIN32)
#if defined(ABLOOM_BUILDING_LIBRARY)
#define ABLOOM_API __declspec(dllexport)
#else
#define ABLOOM_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define ABLOOM_API __attribute__((visibility("default")))
#else
#define ABLOOM_API
#endif

/*
 * ABLOOM_DEPRECATED(message) marks the old names kept as aliases (the last section): GCC, Clang
 * and MSVC warn where a program uses one, in C and C++. Define ABLOOM_NO_DEPRECATION_WARNINGS
 * before including this header to silence them (the names keep working either way).
 */
#if defined(ABLOOM_NO_DEPRECATION_WARNINGS) || defined(SWIG)
#define ABLOOM_DEPRECATED(message)
#elif defined(__GNUC__) || defined(__clang__)
#define ABLOOM_DEPRECATED(message) __attribute__((deprecated(message)))
#elif defined(_MSC_VER)
#define ABLOOM_DEPRECATED(message) __declspec(deprecated(message))
#else
#define ABLOOM_DEPRECATED(message)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors and the runtime version -------------------------------------------------------- */

/** Success. */
#define ABLOOM_OK 0
/** A required pointer argument was NULL (or a key pointer was NULL with a non-zero length). */
#define ABLOOM_ERR_NULL (-1)
/** An argument is outside its domain: capacity 0, FPR not in (0,1), unknown kind, shard count
 *  not a power of two, k of 0 or above ABLOOM_MAX_K, bad struct_size, decreasing offsets... */
#define ABLOOM_ERR_INVALID (-2)
/** The requested filter is too large: its bit or byte count would overflow or exceed
 *  ABLOOM_MAX_BYTES. */
#define ABLOOM_ERR_RANGE (-3)
/** Memory allocation failed. */
#define ABLOOM_ERR_NOMEM (-4)
/** Two filters do not have the same shape (kind, bits, shards, k, seed). */
#define ABLOOM_ERR_MISMATCH (-5)
/** An unexpected internal failure (a bug: please report it). */
#define ABLOOM_ERR_INTERNAL (-6)
/** A write (add, union, intersect, clear) to a read-only filter: a view, or a file opened
 *  read-only. */
#define ABLOOM_ERR_READONLY (-7)
/** Serialized data: the magic bytes are wrong (not an abloom filter). */
#define ABLOOM_ERR_BAD_MAGIC (-8)
/** Serialized data: a format version this library does not read. */
#define ABLOOM_ERR_VERSION (-9)
/** Serialized data: a kind, bit layout or hash id this library does not know; or, from
 *  abloom_open and abloom_view, a big-endian machine, where a file cannot be used in place. */
#define ABLOOM_ERR_UNSUPPORTED (-10)
/** Serialized data: shorter than its header says (or than a header). */
#define ABLOOM_ERR_TRUNCATED (-11)
/** Serialized data: the header checksum does not match, or its fields are inconsistent,
 *  overflow, or are followed by trailing bytes. */
#define ABLOOM_ERR_CORRUPT (-12)
/** Serialized data: the checksum over header and body does not match: the bytes changed since
 *  they were written (corruption). A stale file is ABLOOM_ERR_STALE instead. */
#define ABLOOM_ERR_CHECKSUM (-13)
/** A view was asked for over a buffer that is not 64-byte aligned. */
#define ABLOOM_ERR_ALIGNMENT (-14)
/** A file system call failed (errno tells which). */
#define ABLOOM_ERR_IO (-15)
/** The caller's buffer is too small for the serialized filter. */
#define ABLOOM_ERR_TOO_SMALL (-16)
/** Serialized data: the header carries the stale mark (docs/FORMAT.md): a writer that mapped the
 *  file with ABLOOM_OPEN_READ_WRITE has not synced it, because it was killed or is still running.
 *  Its bits are valid (adds only set bits), but its checksums are not current, so a checksum check
 *  (ABLOOM_VERIFY_CHECKSUM, abloom_deserialize) cannot pass. Open it without
 *  ABLOOM_VERIFY_CHECKSUM (abloom_info.stale then says 1), or seal it (abloom_seal) once no writer
 *  has it open. */
#define ABLOOM_ERR_STALE (-17)

/**
 * A static, NUL-terminated English description of `code` (any int; unknown codes get
 * "unknown error code"). Never NULL, never needs freeing.
 */
ABLOOM_API const char *abloom_strerror(int code);

/** The library's runtime version as MAJOR*10000 + MINOR*100 + PATCH. */
ABLOOM_API unsigned abloom_version_number(void);

/** The library's runtime version as "MAJOR.MINOR.PATCH" (static storage). */
ABLOOM_API const char *abloom_version_string(void);

/* ---- Creating a filter: limits ------------------------------------------------------------- */

/** Largest number of probes (bits set per key). */
#define ABLOOM_MAX_K 64
/** Largest shard count. */
#define ABLOOM_MAX_SHARDS 65536
/** Largest value of abloom_options.threads and of abloom_set_threads. */
#define ABLOOM_MAX_THREADS 256
/** Largest filter, in bytes (2^48, 256 TiB): anything above is ABLOOM_ERR_RANGE. */
#define ABLOOM_MAX_BYTES (UINT64_C(1) << 48)

/* ---- Creating a filter: options and sizing ------------------------------------------------- */

/** Filter kinds. */
typedef enum abloom_kind {
  /** Default. Every key touches exactly one 64-byte block (one cache line): one cache miss per
   *  lookup. Needs slightly more bits than classic for the same FPR (about +3% at 1%). */
  ABLOOM_KIND_BLOCKED = 0,
  /** Bits spread over the whole shard: the fewest bits for a target FPR, but k cache misses
   *  per lookup. For very low FPR targets where memory matters most. */
  ABLOOM_KIND_CLASSIC = 1
} abloom_kind;

/**
 * In-block layouts of the blocked kind: where a key's k bits go inside its 64-byte block
 * (abloom_options.layout; abloom_plan.layout and abloom_info.layout report the one in use). Each
 * is exact to its model, so the FPR asked for is the FPR given; a file records its layout.
 */
/** Options only: the library's choice. ABLOOM_LAYOUT_SPLIT for the blocked kind wherever its k is
 *  enough (an explicit k <= ABLOOM_SPLIT_MAX_K, or a target FPR whose best distinct k is no
 *  higher: down to about 1e-6); ABLOOM_LAYOUT_DISTINCT otherwise (the classic kind, a larger k,
 *  lower targets, where split would cost 3-14% more bits). abloom_plan and abloom_info say which.
 *  Callers built against the first header (its shorter abloom_options) get ABLOOM_LAYOUT_DISTINCT,
 *  the only layout that header knew, so that the files they write stay readable by their peers. */
#define ABLOOM_LAYOUT_DEFAULT 0u
/** The first k distinct multiply-shift bits of the 512-bit block (the format's layout id 1): the
 *  fewest bits for a target FPR, any k up to ABLOOM_MAX_K. The classic kind's only layout, and
 *  the blocked kind's default below about 1e-6. */
#define ABLOOM_LAYOUT_DISTINCT 1u
/** One bit in each of k <= ABLOOM_SPLIT_MAX_K consecutive 32-bit words of the block (layout id
 *  2): a key's bits are one vector shift with no repeat check, so adds run faster, in cache and
 *  out of it (bulk and exclusive adds), for a few percent more bits at the same FPR; tests cost
 *  the same or less (bench/RESULTS.md, "C library: the distinct layout and the classic kind").
 *  Blocked kind only; its default. */
#define ABLOOM_LAYOUT_SPLIT 2u
/** The largest k of ABLOOM_LAYOUT_SPLIT: one bit per 32-bit word, so the layout's word count,
 *  ABLOOM_SPEC_SPLIT_WORDS in abloom_layout.h (the library and abloom_inline.h check at compile
 *  time that the two are equal). */
#define ABLOOM_SPLIT_MAX_K 16
/** One bit in each of the 8 32-bit words of one 32-byte half of the block, so k is always
 *  ABLOOM_HALF_K (layout id 3): the fewest instructions per key of any layout, for the fastest
 *  adds and tests in cache, at about 4% more bits than ABLOOM_LAYOUT_SPLIT at a 1% target and 7%
 *  at 0.1% (bench/RESULTS.md). Blocked kind only, and never the default: ask for it. With it, k
 *  must be 0 (the sizing rules then take ABLOOM_HALF_K) or ABLOOM_HALF_K. */
#define ABLOOM_LAYOUT_HALF 3u
/** The only k of ABLOOM_LAYOUT_HALF: ABLOOM_SPEC_HALF_WORDS in abloom_layout.h. */
#define ABLOOM_HALF_K 8

/**
 * How to build a filter. Always initialise with abloom_options_init(), then set fields: the
 * leading struct_size lets later versions add fields without breaking the ABI (a caller built
 * against an older header, whose struct ends before `layout`, gets that field's default).
 *
 * struct_size (here and in abloom_plan and abloom_info) must be the sizeof of one version of the
 * struct that this library knows: abloom_options_init, abloom_plan_init and abloom_info_init set
 * it. Any other value, larger ones included, is ABLOOM_ERR_INVALID and nothing is read or
 * written past the struct_size. For abloom_options the known sizes are today's, the second
 * header's (which ends before `growth`) and the first header's (which ends before `layout`).
 *
 * Sizing rules, applied by abloom_plan_compute() and abloom_create():
 *  - bits == 0 and k == 0: the fewest bits, and the k minimising the FPR for them, such that the
 *    exact model of the kind predicts an FPR <= fpr at `capacity` keys (the default).
 *  - bits == 0 and k  > 0: the fewest bits meeting `fpr` with that fixed k.
 *  - bits  > 0 and k == 0: that many bits (rounded up to whole blocks per shard), and the k that
 *    minimises the model FPR at `capacity` keys; `fpr` is not used.
 *  - bits  > 0 and k  > 0: exactly that layout; `fpr` is not used.
 */
typedef struct abloom_options {
  /** sizeof(abloom_options), set by abloom_options_init. */
  size_t struct_size;
  /** Expected number of distinct keys (> 0). Default 0: must be set. */
  uint64_t capacity;
  /** Target false-positive rate at `capacity`, in (0, 1). Default 0.01. */
  double fpr;
  /** An abloom_kind. Default ABLOOM_KIND_BLOCKED. */
  uint32_t kind;
  /** Shard count, a power of two up to ABLOOM_MAX_SHARDS, or 0 for the default (one shard per
   *  16 MiB of filter, at most 64; see README). Sharding never changes the FPR. */
  uint32_t shards;
  /** Hash seed. Filters can only be combined when their seeds match. Default 0 (deterministic);
   *  use a random seed when keys may be chosen by an adversary. */
  uint64_t seed;
  /** Explicit total bit count, or 0 to derive it from capacity and fpr. */
  uint64_t bits;
  /** Explicit number of probes (1..ABLOOM_MAX_K), or 0 to choose the optimum. */
  uint32_t k;
  /** Threads (up to ABLOOM_MAX_THREADS) that bulk calls (abloom_add_many & co.) may use for
   *  batches of 65536 keys or more; 0 or 1 means the calling thread only. Bulk tests split the
   *  batch by range. Bulk adds split the filter: each thread owns a range of blocks (the classic
   *  kind: of shards, so it uses at most `shards` threads) and adds the keys that land there, so
   *  the bits and the count of new keys are exactly the single-threaded ones. The filter starts
   *  with it; abloom_set_threads changes it later, and sets it on filters that were opened,
   *  viewed, deserialized or cloned. */
  uint32_t threads;
  /** An ABLOOM_LAYOUT_*. Default ABLOOM_LAYOUT_DEFAULT (the library's choice, see there).
   *  ABLOOM_LAYOUT_SPLIT needs the blocked kind and k <= ABLOOM_SPLIT_MAX_K (the sizing rules then
   *  choose k within that range). */
  uint32_t layout;
  /** Added in the third version of the struct (a caller built with an earlier one gets 0).
   *  0 (default): a fixed filter, sized for `capacity`. Greater than 1 (up to ABLOOM_MAX_GROWTH;
   *  ABLOOM_DEFAULT_GROWTH is 2): a growing filter, which needs no capacity. It is a chain of
   *  filters (stages): `capacity` is the first one's (0: ABLOOM_DEFAULT_INITIAL_CAPACITY), each
   *  next one `growth` times the last, each with its share of `fpr` as its FPR target (shares
   *  that rise over the first stages, then fall), so that the sum over the stages, and with it
   *  the whole chain's FPR, stays below `fpr` at any number of keys (docs/FORMAT.md, "Growing
   *  filters", gives the schedule and the bound). A new stage is appended when the newest has
   *  taken its capacity of new keys; every call works on the chain (tests probe every stage),
   *  except those that say otherwise. `bits` and `k` must be 0; `kind`, `layout`, `shards` and
   *  `seed` apply to every stage. */
  double growth;
} abloom_options;

/** abloom_options.growth: the default growth of a growing filter (each stage twice the last). */
#define ABLOOM_DEFAULT_GROWTH 2.0
/** abloom_options.growth: the largest growth. */
#define ABLOOM_MAX_GROWTH 16.0
/** A growing filter's first stage capacity when abloom_options.capacity is 0. */
#define ABLOOM_DEFAULT_INITIAL_CAPACITY 1024u
/** The most stages a growing filter has (it cannot grow past them, nor past ABLOOM_MAX_BYTES). */
#define ABLOOM_MAX_STAGES 64u

/** Fill `opts` with defaults (see field comments). Returns ABLOOM_ERR_NULL if opts is NULL. */
ABLOOM_API int abloom_options_init(abloom_options *opts);

/** A sizing plan: what abloom_create would allocate for some options. */
typedef struct abloom_plan {
  /** sizeof(abloom_plan), set by abloom_plan_init. */
  size_t struct_size;
  /** An abloom_kind. */
  uint32_t kind;
  /** Probes per key. */
  uint32_t k;
  /** Shard count (the default resolved). */
  uint32_t shards;
  /** An ABLOOM_LAYOUT_* (the default resolved; ABLOOM_LAYOUT_DISTINCT for the classic kind). */
  uint32_t layout;
  /** 64-byte blocks in each shard. */
  uint64_t blocks_per_shard;
  /** Total bits: shards * blocks_per_shard * 512. */
  uint64_t bits;
  /** Total bytes of bit storage: bits / 8. */
  uint64_t bytes;
  /** bits / capacity. */
  double bits_per_key;
  /** The model's FPR for `capacity` distinct keys in this layout. */
  double expected_fpr;
} abloom_plan;

/** Zero `plan` and set its struct_size, ready for abloom_plan_compute. ABLOOM_ERR_NULL if NULL. */
ABLOOM_API int abloom_plan_init(abloom_plan *plan);

/**
 * Compute, without allocating, the layout abloom_create(opts) would build. Initialise `plan` with
 * abloom_plan_init first. Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (bad options, or a
 * struct_size of `opts` or `plan` that is not a known size), ABLOOM_ERR_RANGE (too large).
 */
ABLOOM_API int abloom_plan_compute(const abloom_options *opts, abloom_plan *plan);

/**
 * What a growing filter made with `opts` (growth > 1) reaches at `keys` distinct keys, without
 * allocating: the stages it then has (the fewest whose capacities together hold `keys`, at least
 * one), their bytes of bit storage together, and the sum of their model FPRs at their capacities
 * (the bound on its FPR then: below opts->fpr). Each output pointer may be NULL. For a plan of its
 * first stage alone, see abloom_plan_compute. Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (bad
 * options, growth not in (1, ABLOOM_MAX_GROWTH], keys 0), ABLOOM_ERR_RANGE (it cannot grow that
 * far: ABLOOM_MAX_STAGES or ABLOOM_MAX_BYTES).
 */
ABLOOM_API int abloom_growth_footprint(const abloom_options *opts, uint64_t keys, uint32_t *stages,
                                       uint64_t *bytes, double *fpr_bound);

/**
 * The FPR the model of `kind` predicts with `bits_per_key` bits per key and `k` probes
 * (classic: (1-e^(-k/c))^k; blocked: the Poisson mixture over block loads of Putze, Sanders and
 * Singler). Writes it to *out. Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (bits_per_key not
 * > 0 and finite, k outside 1..ABLOOM_MAX_K, unknown kind).
 */
ABLOOM_API int abloom_model_fpr(uint32_t kind, double bits_per_key, uint32_t k, double *out);

/**
 * The same for a layout of the blocked kind: abloom_model_fpr for ABLOOM_LAYOUT_DISTINCT; for
 * ABLOOM_LAYOUT_SPLIT its exact model (an inclusion-exclusion over the query's words, mixed over
 * Poisson block loads); for ABLOOM_LAYOUT_HALF sum_i Pois(i; 256 / bits_per_key)
 * (1 - (31/32)^i)^8; ABLOOM_LAYOUT_DEFAULT is the layout options with this kind and k get.
 * Errors as abloom_model_fpr, plus ABLOOM_ERR_INVALID for an unknown layout, the split or half
 * layout with the classic kind, the split layout with k > ABLOOM_SPLIT_MAX_K, the half layout
 * with k other than ABLOOM_HALF_K.
 */
ABLOOM_API int abloom_layout_model_fpr(uint32_t kind, uint32_t layout, double bits_per_key,
                                       uint32_t k, double *out);

/* ---- Creating a filter: the handle --------------------------------------------------------- */

/** An opaque filter handle. */
typedef struct abloom_filter abloom_filter;

/**
 * Create a filter from options (see abloom_options for the sizing rules). The bits start clear.
 * On success *out owns the new filter (free it with abloom_free). Errors: ABLOOM_ERR_NULL,
 * ABLOOM_ERR_INVALID, ABLOOM_ERR_RANGE, ABLOOM_ERR_NOMEM.
 */
ABLOOM_API int abloom_create(const abloom_options *opts, abloom_filter **out);

/** Shorthand for abloom_create with default options, `capacity` keys and target `fpr`. */
ABLOOM_API int abloom_new(uint64_t capacity, double fpr, abloom_filter **out);

/** Free a filter (and unmap it, after an abloom_sync, if it was opened read-write). NULL is
 *  accepted and ignored. */
ABLOOM_API void abloom_free(abloom_filter *filter);

/** A deep copy of `filter` (same shape and bits) in *out. Errors: ABLOOM_ERR_NULL,
 *  ABLOOM_ERR_NOMEM. */
ABLOOM_API int abloom_clone(const abloom_filter *filter, abloom_filter **out);

/* ---- Single keys --------------------------------------------------------------------------- */

/** Add a key of `len` bytes. Returns ABLOOM_OK or an error. */
ABLOOM_API int abloom_add(abloom_filter *filter, const void *key, size_t len);

/** 1 if the key may be present, 0 if it is definitely absent, or a negative error. */
ABLOOM_API int abloom_test(const abloom_filter *filter, const void *key, size_t len);

/**
 * Add the key and report, from the same pass over its bits, whether it was already present:
 * 1 if all its bits were already set (a repeat, or a false positive), 0 if it is new, or a
 * negative error. Concurrent test_and_add calls of one new key: at least one returns 0.
 */
ABLOOM_API int abloom_test_and_add(abloom_filter *filter, const void *key, size_t len);

/** The filter's 64-bit hash of a key (XXH3-64 with the filter's seed), in *out, for the *_hash
 *  calls below. Hashes are portable across machines and bindings. */
ABLOOM_API int abloom_hash(const abloom_filter *filter, const void *key, size_t len, uint64_t *out);

/** abloom_add for a hash from abloom_hash (or any filter with the same seed). */
ABLOOM_API int abloom_add_hash(abloom_filter *filter, uint64_t hash);
/** abloom_test for a precomputed hash. */
ABLOOM_API int abloom_test_hash(const abloom_filter *filter, uint64_t hash);
/** abloom_test_and_add for a precomputed hash. */
ABLOOM_API int abloom_test_and_add_hash(abloom_filter *filter, uint64_t hash);

/* ---- Bulk ---------------------------------------------------------------------------------- */
/*
 * Bulk calls hash a batch first, prefetch every block it touches, then probe, so the memory
 * latency of a large filter overlaps. Three input forms: parallel arrays of key pointers and
 * lengths; one packed buffer plus n+1 offsets (key i is buf[offsets[i] .. offsets[i+1]) ); and
 * precomputed hashes. The add calls write the number of keys that were new (see test_and_add)
 * to *added when added is not NULL: the keys that found one of their bits clear when added in
 * batch order, so a repeated key counts once, and a new key whose bits were all set by keys
 * added before it (a false positive) does not count. Pass NULL when the count is not needed: an
 * ABLOOM_WRITER_EXCLUSIVE filter then adds without looking at what each key found, which is
 * faster in cache. The count is exact and the same with any
 * thread count (abloom_options.threads, abloom_set_threads): threads split a batch by the part
 * of the filter each key lands in, and keep the batch order within each part (adds from other
 * calls running at the same time may of course change it). The test calls write 1 (may be
 * present) or 0 (absent) to results[i] and the number of 1s to *found when found is not NULL.
 * n == 0 is valid; the arrays may then be NULL. All arguments are validated before any bit
 * changes.
 */

/** Add n keys: keys[i] points at lens[i] bytes. */
ABLOOM_API int abloom_add_many(abloom_filter *filter, const void *const *keys, const size_t *lens,
                               size_t n, uint64_t *added);

/** Test n keys: keys[i] points at lens[i] bytes. */
ABLOOM_API int abloom_test_many(const abloom_filter *filter, const void *const *keys,
                                const size_t *lens, size_t n, uint8_t *results, uint64_t *found);

/**
 * Test-and-add n keys (keys[i] points at lens[i] bytes) in order, as n calls of
 * abloom_test_and_add: results[i] = 1 if key i was already present (all its bits set, by earlier
 * adds or by an earlier key of this batch), 0 if it was new; the number of new keys to *added when
 * added is not NULL. For deduplicating a stream: the batch is tested in bulk first (prefetching
 * its blocks), then only the keys not found are added, one by one, in order; a growing filter
 * tests each of those only against the stages this batch's earlier keys could have reached, not
 * the whole chain again. Runs on the calling thread (each answer depends on the keys before it).
 * Errors: ABLOOM_ERR_NULL (filter, or results with n > 0, or the arrays as abloom_add_many),
 * ABLOOM_ERR_READONLY; nothing is added then.
 */
ABLOOM_API int abloom_test_and_add_many(abloom_filter *filter, const void *const *keys,
                                        const size_t *lens, size_t n, uint8_t *results,
                                        uint64_t *added);

/**
 * Add n keys packed in `buf` (buf_len bytes); `offsets` has n+1 non-decreasing entries with
 * offsets[n] <= buf_len (else ABLOOM_ERR_INVALID, and nothing is added). The fastest form for
 * keys that all have one length (offsets[i] = offsets[0] + i * length: 64-bit ids, UUIDs): such
 * a batch is recognised and read without its offsets.
 */
ABLOOM_API int abloom_add_packed(abloom_filter *filter, const void *buf, size_t buf_len,
                                 const uint64_t *offsets, size_t n, uint64_t *added);

/** Test n keys packed as for abloom_add_packed. */
ABLOOM_API int abloom_test_packed(const abloom_filter *filter, const void *buf, size_t buf_len,
                                  const uint64_t *offsets, size_t n, uint8_t *results,
                                  uint64_t *found);

/**
 * abloom_test_and_add_many for n keys packed as for abloom_add_packed (the form the bindings
 * pass): results[i] = 1 if key i was already present, 0 if it was new, in batch order; the number
 * of new keys to *added when added is not NULL. Errors: ABLOOM_ERR_NULL (filter, or results with
 * n > 0, or buf and offsets as abloom_add_packed), ABLOOM_ERR_INVALID (offsets as
 * abloom_add_packed), ABLOOM_ERR_READONLY; nothing is added then.
 */
ABLOOM_API int abloom_test_and_add_packed(abloom_filter *filter, const void *buf, size_t buf_len,
                                          const uint64_t *offsets, size_t n, uint8_t *results,
                                          uint64_t *added);

/** Add n precomputed hashes (see abloom_hash). */
ABLOOM_API int abloom_add_hashes(abloom_filter *filter, const uint64_t *hashes, size_t n,
                                 uint64_t *added);

/** Test n precomputed hashes. */
ABLOOM_API int abloom_test_hashes(const abloom_filter *filter, const uint64_t *hashes, size_t n,
                                  uint8_t *results, uint64_t *found);

/** abloom_test_and_add_many for n precomputed hashes: results[i] = 1 if key i was already
 *  present, 0 if it was new; the number of new keys to *added when added is not NULL. Errors:
 *  ABLOOM_ERR_NULL (filter, or hashes or results with n > 0), ABLOOM_ERR_READONLY; nothing is
 *  added then. */
ABLOOM_API int abloom_test_and_add_hashes(abloom_filter *filter, const uint64_t *hashes, size_t n,
                                          uint8_t *results, uint64_t *added);

/* ---- Set operations ------------------------------------------------------------------------ */
/*
 * Two filters combine only when they have the same shape: kind, k, shards, blocks per shard and
 * seed (capacity and target FPR are not part of the shape). Otherwise ABLOOM_ERR_MISMATCH.
 * Two growing filters combine when they were made with the same options (kind, layout, shards,
 * seed, first capacity, growth and FPR: so their stages have the same shapes), stage by stage;
 * a growing filter and a fixed one never do (ABLOOM_ERR_MISMATCH).
 */

/** dst |= src: dst then answers 1 for every key of either. Safe while other threads add to
 *  either filter (growing filters: while src is not growing). dst == src is allowed (no change).
 *  A growing dst first grows to src's stage count (ABLOOM_ERR_RANGE if it cannot); each stage
 *  then takes src's stage's bits and count of keys, so a stage may end with more keys than its
 *  capacity (two full ones: twice it), and the chain's FPR is then above its target (its
 *  abloom_estimate_fpr says by how much). Growing filters that are to be combined should each
 *  hold fewer keys than the stages they share would take, or be filled as one: threads of one
 *  process add to one growing filter at once (lock-free) rather than each to a copy. */
ABLOOM_API int abloom_union(abloom_filter *dst, const abloom_filter *src);

/** dst &= src: dst keeps bits set in both (an over-approximation of the keys in both).
 *  ABLOOM_ERR_UNSUPPORTED for growing filters: a key two chains hold may sit in different stages
 *  of each, and a stage-by-stage intersection would lose it (a false negative). */
ABLOOM_API int abloom_intersect(abloom_filter *dst, const abloom_filter *src);

/** Clear every bit: the filter is empty again, its shape unchanged. A growing filter keeps its
 *  stages (their memory too), all empty; new keys go to the newest. */
ABLOOM_API int abloom_clear(abloom_filter *filter);

/** 1 if a and b have the same shape and the same bits, 0 if not, or a negative error. Growing
 *  filters: the same options and stages, each with the same bits (never equal to a fixed one). */
ABLOOM_API int abloom_equal(const abloom_filter *a, const abloom_filter *b);

/* ---- Information and estimates ------------------------------------------------------------- */

/** What a filter is. */
typedef struct abloom_info {
  /** sizeof(abloom_info), set by abloom_info_init. */
  size_t struct_size;
  /** An abloom_kind. */
  uint32_t kind;
  /** Probes per key. */
  uint32_t k;
  /** Shard count. */
  uint32_t shards;
  /** An ABLOOM_LAYOUT_* (never ABLOOM_LAYOUT_DEFAULT). */
  uint32_t layout;
  /** 64-byte blocks in each shard. */
  uint64_t blocks_per_shard;
  /** Total bits. */
  uint64_t bits;
  /** Total bytes of bit storage. */
  uint64_t bytes;
  /** Capacity the filter was sized for. */
  uint64_t capacity;
  /** Hash seed. */
  uint64_t seed;
  /** Target FPR given at creation (0 when the layout was explicit). */
  double target_fpr;
  /** The model's FPR at `capacity` keys for this layout. */
  double expected_fpr;
  /** Where the bits live: an abloom_storage. */
  uint32_t storage;
  /** 1 if writes return ABLOOM_ERR_READONLY (a view, or a file opened read-only), else 0. */
  uint32_t read_only;
  /** Added in the second version of the struct (a caller built with the first passes its smaller
   *  struct_size, and this field is not written). 1 if the file or bytes carried the stale mark
   *  (see ABLOOM_ERR_STALE) when this filter was opened over them (abloom_open or abloom_view
   *  without ABLOOM_VERIFY_CHECKSUM; for ABLOOM_OPEN_READ_WRITE: before this open marked them),
   *  else 0 (always 0 for abloom_create, abloom_clone and abloom_deserialize). */
  uint32_t stale;
  /** Added in the third version of the struct (written only for callers built with it).
   *  The number of stages: 1 for a fixed filter; for a growing filter, its stages now. For a
   *  growing filter the fields above describe the whole chain: kind, k, shards, layout and
   *  blocks_per_shard are the newest stage's; bits and bytes the stages' together; capacity the
   *  keys the stages hold before the next is appended (their capacities together);
   *  target_fpr the chain's target; expected_fpr the sum of the stages' model FPRs at their
   *  capacities (the bound: below target_fpr). abloom_get_stage_info describes one stage. */
  uint32_t stages;
  /** 1 if a growing filter could not append a stage when it had to (ABLOOM_MAX_STAGES, the
   *  size limits, or no memory): its newest stage then takes every key past its capacity, and
   *  the FPR is no longer held. 0 otherwise, and for fixed filters. */
  uint32_t growth_failed;
  /** The growth of a growing filter (abloom_options.growth); 0 for a fixed filter. */
  double growth;
  /** A growing filter: the keys its stages counted as new (all stages, or the stage's for
   *  abloom_get_stage_info): exact with one writer, at worst a little over with many. 0 for a
   *  fixed filter, which does not count its keys (abloom_estimate_count estimates them). */
  uint64_t keys;
} abloom_info;

/** Where a filter's bits live (abloom_info.storage). */
typedef enum abloom_storage {
  /** Memory the library allocated (abloom_create, abloom_clone, abloom_deserialize). */
  ABLOOM_STORAGE_OWNED = 0,
  /** A caller's buffer (abloom_view): read-only, and the buffer must outlive the filter. */
  ABLOOM_STORAGE_VIEW = 1,
  /** A memory-mapped file (abloom_open). */
  ABLOOM_STORAGE_MAPPED = 2
} abloom_storage;

/** Zero `info` and set its struct_size, ready for abloom_get_info. ABLOOM_ERR_NULL if NULL. */
ABLOOM_API int abloom_info_init(abloom_info *info);

/** Describe `filter` in *info. Initialise `info` with abloom_info_init first. The known sizes
 *  are today's, the second version's (without `stages` and the fields after it) and the first
 *  version's (without `stale`). Errors: ABLOOM_ERR_NULL,
 *  ABLOOM_ERR_INVALID (a struct_size that is not a known size). */
ABLOOM_API int abloom_get_info(const abloom_filter *filter, abloom_info *info);

/**
 * Describe stage `stage` (0 = the oldest) of a growing filter in *info, as abloom_get_info
 * describes a fixed filter (capacity, target_fpr and expected_fpr are the stage's; `keys` its
 * count of new keys; `stages` the chain's count; `growth` and `growth_failed` the chain's). A
 * fixed filter is its own stage 0. Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (a struct_size
 * that is not a known size), ABLOOM_ERR_RANGE (no such stage).
 */
ABLOOM_API int abloom_get_stage_info(const abloom_filter *filter, uint32_t stage,
                                     abloom_info *info);

/**
 * Estimate the number of distinct keys added, from the number of set bits X of the filter's M
 * (Swamidass and Baldi): n = ln(1 - X/M) / ln(1 - p), where p is the chance that one key sets a
 * given bit (k/M for the blocked kind). Reads every word: O(bits). Writes the estimate to *out.
 * It is finite and grows with the fill until every bit is set (+infinity then). Within a few
 * percent up to several times the capacity; far past it, few clear bits are left to count and
 * the estimate is only a rough one (tests/capi_behaviour_test.cpp measures it up to 20x).
 */
ABLOOM_API int abloom_estimate_count(const abloom_filter *filter, double *out);

/**
 * The probability that a key never added tests positive now, from the current fill (classic:
 * (X/m)^k; blocked: the mean over blocks of (set bits/512)^k). O(bits). Written to *out.
 */
ABLOOM_API int abloom_estimate_fpr(const abloom_filter *filter, double *out);

/* ---- Files and bytes: serialize, save, open, sync, seal ------------------------------------ */
/*
 * The portable file format (docs/FORMAT.md): a 128-byte little-endian header (magic, format
 * version, kind, layout id, hash id, seed, k, blocks, shards, bit count, capacity, inserted-key
 * estimate, flags, a checksum over header and body, and a checksum of the header alone), then
 * the bits, starting 64-byte aligned, shard after shard. Any machine and binding reads any
 * other's bytes. Every reader validates the header completely before touching the body and
 * never reads outside the given bytes; the body checksum is checked when asked (always by
 * abloom_deserialize).
 *
 * A growing filter's bytes (docs/FORMAT.md, "Growing filters") hold the whole chain: a 128-byte
 * chain header (its own kind, so that readers older than growing filters refuse it with
 * ABLOOM_ERR_UNSUPPORTED), a table of the stages, then each stage in the form above, 64-byte
 * aligned with its own checksum, so that every stage maps in place. Every call below takes them
 * (a snapshot of the stages there are when it starts, while other threads add), and checks the
 * chain header, the table (stages in order, inside the bytes, each the stage the options give
 * its place) and each stage as it checks a filter.
 *
 * A growing filter's file opens read-write too (abloom_open): its stages are mapped in place and
 * a stage the chain appends goes to the file's end. The file grows first, durably; the chain's
 * header and table then name the new stage before any key reaches it; nothing else moves. While
 * that happens, or when its writer was killed in between, the file is exactly one empty stage
 * longer than its header says: every reader takes the chain the header names (nothing added is
 * missing from it), a verifying one says ABLOOM_ERR_STALE as for any writer's file, and a
 * read-write open, abloom_seal's among them, adopts the empty stage, so that the file is again
 * the chain its header names. abloom_sync, abloom_sync_last, abloom_free and abloom_seal do for
 * every stage what they do for a filter, and rewrite the chain's header and table. One
 * exception: a chain file written before the stage table had a place for every stage
 * (docs/FORMAT.md, "table places" 0) opens read-write with ABLOOM_ERR_UNSUPPORTED, untouched;
 * save it again (abloom_save writes today's form).
 */

/** Bytes of the serialized header; the body starts right after it, 64-byte aligned. */
#define ABLOOM_HEADER_BYTES 128

/** The exact serialized size of `filter` (header + body) in *out. */
ABLOOM_API int abloom_serialized_size(const abloom_filter *filter, uint64_t *out);

/**
 * Serialize `filter` into buf[0 .. capacity). Writes the byte count to *written (optional).
 * ABLOOM_ERR_TOO_SMALL if capacity < abloom_serialized_size (nothing written). Safe while other
 * threads add: the checksum matches the bits written.
 */
ABLOOM_API int abloom_serialize(const abloom_filter *filter, void *buf, size_t capacity,
                                size_t *written);

/**
 * A new, independent filter (owned storage) from serialized bytes, after full validation:
 * header, sizes, and the checksum over header and body. Any alignment. Errors: ABLOOM_ERR_NULL,
 * ABLOOM_ERR_BAD_MAGIC, ABLOOM_ERR_VERSION, ABLOOM_ERR_UNSUPPORTED, ABLOOM_ERR_TRUNCATED,
 * ABLOOM_ERR_CORRUPT, ABLOOM_ERR_CHECKSUM, ABLOOM_ERR_STALE (bytes of a file left stale: see
 * abloom_view and abloom_open without ABLOOM_VERIFY_CHECKSUM), ABLOOM_ERR_NOMEM.
 */
ABLOOM_API int abloom_deserialize(const void *buf, size_t len, abloom_filter **out);

/** Flags for abloom_view and abloom_open. */
/** Check the checksum over header and body (O(size)); without it opening is O(1). */
#define ABLOOM_VERIFY_CHECKSUM 0x1u
/** abloom_open: map privately and writably: adds work but never reach the file. */
#define ABLOOM_OPEN_COPY_ON_WRITE 0x2u
/** abloom_open: map shared and writably: adds persist to the file (a growing filter's file grows
 *  with its chain: see above). The header (a chain's: each stage's) is marked stale
 *  while the handle may write (abloom_sync keeps the mark), and sealed by abloom_free; a writer
 *  killed before that leaves the file stale (ABLOOM_ERR_STALE, abloom_seal). */
#define ABLOOM_OPEN_READ_WRITE 0x4u

/**
 * A read-only, zero-copy filter over serialized bytes that the caller keeps alive (and
 * unchanged) until abloom_free. `buf` must be 64-byte aligned (ABLOOM_ERR_ALIGNMENT otherwise).
 * The header is always validated; flags may add ABLOOM_VERIFY_CHECKSUM. Every read call works;
 * writes return ABLOOM_ERR_READONLY. Errors as abloom_deserialize, plus ABLOOM_ERR_ALIGNMENT and
 * ABLOOM_ERR_INVALID (unknown flags); ABLOOM_ERR_UNSUPPORTED on a big-endian machine (see
 * abloom_open).
 */
ABLOOM_API int abloom_view(const void *buf, size_t len, uint32_t flags, abloom_filter **out);

/**
 * Save `filter` to `path`, crash-safely: the bytes go to a temporary file in the same directory,
 * which is fsynced, renamed over `path`, and the directory fsynced. A crash at any point leaves
 * either the old file or the new one, complete. Safe while other threads add.
 *  - Symbolic links are followed: the file they lead to is replaced and the links stay (as
 *    editors and databases do); a dangling link gets its target created. An existing file keeps
 *    its permission bits; a new one gets 0644.
 *  - Only a regular file is ever replaced: errno EISDIR for a directory, ENODEV for a FIFO,
 *    socket or device, ELOOP for a loop of links.
 *  - Temporary files: where the file system supports O_TMPFILE (ext4, XFS, Btrfs, tmpfs, ...)
 *    the temporary file has no name until it is complete, so a crash leaves nothing. Elsewhere,
 *    or for the instant between naming it and the rename, it is "<path>.tmp.<pid>.<6
 *    characters>"; each save first removes the files of that pattern beside its target whose
 *    process no longer exists, so crashed saves leave at most one behind at a time. (Processes
 *    that share a directory from different machines or PID namespaces should not save to the same
 *    path: a live writer's temporary there could look abandoned.)
 *  - A mapped filter stays valid while its file is replaced this way: replace a file that
 *    readers have open with abloom_save (or another rename), never by truncating or rewriting it
 *    in place (see abloom_open).
 *  - Windows: `path` is UTF-8 (as everywhere), with '/' or '\' between its parts; the rename is
 *    MoveFileExW with MOVEFILE_WRITE_THROUGH (no directory to fsync), and symbolic links and
 *    permission bits play no part. The device names (NUL, CON, ...) give ENODEV. A file that
 *    another handle has open without FILE_SHARE_DELETE, or that a filter has mapped (abloom_open),
 *    may not be replaceable there: the save retries for about a second (antivirus programs and
 *    indexers hold new files briefly), then fails with errno EBUSY, both files whole and no
 *    temporary file left; whether it is replaceable depends on the Windows version and the file
 *    system (abloom_open's own handles share deletion). A read-only file gives EACCES at once.
 * Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_IO (errno tells why; no temporary file is left behind).
 */
ABLOOM_API int abloom_save(const abloom_filter *filter, const char *path);

/**
 * Open a saved filter by mmap. flags: 0 (read-only: writes return ABLOOM_ERR_READONLY),
 * ABLOOM_OPEN_COPY_ON_WRITE or ABLOOM_OPEN_READ_WRITE, optionally | ABLOOM_VERIFY_CHECKSUM.
 * Without the checksum check, opening is O(1) whatever the size: only the header is read and
 * validated, and pages load on first use. Only regular files open (symbolic links to them too):
 * ABLOOM_ERR_IO with errno EISDIR for a directory, ENODEV for a FIFO, socket or device, at once.
 *
 * The file must not be truncated or rewritten in place while it is mapped: the mapping IS the
 * file. Whole pages cut off by truncation raise SIGBUS when touched (truncated to 0 bytes: at
 * the first test); the cut part of the last page reads as zeros, so tests there silently answer
 * 0; and bytes rewritten in place change the answers under the filter. To update a
 * file that others have open, write a new one and rename it over the old, which abloom_save
 * does: the old mappings keep the old file, whole, until abloom_free.
 *
 * On a big-endian machine (s390x, ...) the file's little-endian words cannot be used in place:
 * abloom_open and abloom_view validate the header, then return ABLOOM_ERR_UNSUPPORTED; read the
 * bytes and call abloom_deserialize there, which works on every machine.
 *
 * Errors: as abloom_deserialize, plus ABLOOM_ERR_IO and ABLOOM_ERR_INVALID (unknown or
 * conflicting flags), and ABLOOM_ERR_UNSUPPORTED on a big-endian machine.
 */
ABLOOM_API int abloom_open(const char *path, uint32_t flags, abloom_filter **out);

/**
 * For a filter opened with ABLOOM_OPEN_READ_WRITE: rewrite the header (inserted-key estimate,
 * checksums, clear the stale mark) and flush the mapping to the file (msync), so that the file
 * holds every key added so far, durably. The handle may still write, so the file is then marked
 * stale again at once (one more flush, of the header): a writer killed at any time leaves a file
 * whose bits are all valid and which reads as stale (ABLOOM_ERR_STALE, abloom_seal), never as
 * corrupt. Only abloom_free leaves it sealed, with checksums that verify. Other filters:
 * ABLOOM_OK, nothing to do. Do not call while other threads add to the filter.
 */
ABLOOM_API int abloom_sync(abloom_filter *filter);

/**
 * The last sync of a handle that will write no more, for a binding whose free comes later (a
 * garbage collector's): as abloom_sync, but the file is left sealed, with checksums that verify,
 * as abloom_free leaves it; and from then on every write through the handle returns
 * ABLOOM_ERR_READONLY (abloom_get_writable_shards too: pointers it gave before must not be
 * written either). Tests still work. Other filters: ABLOOM_OK, and they become read-only too. Do
 * not call while other threads use the filter. Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_IO.
 */
ABLOOM_API int abloom_sync_last(abloom_filter *filter);

/**
 * Seal the file at `path` that a read-write writer left stale (killed before abloom_free: see
 * ABLOOM_ERR_STALE), so that checksum checks pass again. Without a current
 * checksum it checks all that can be checked: the header (as abloom_open does), the file size,
 * and the fill against the inserted-key estimate the header stored at the writer's open: adds
 * only set bits, so the estimate recomputed from the bits must be at least the stored one (and a
 * saturated one stays saturated). Then, as abloom_sync does, it rewrites the estimate and both
 * checksums, clears the stale mark and flushes the file durably.
 *  - A file that is not stale has its checksum verified and is never written: ABLOOM_OK (already
 *    sealed, nothing to do) or ABLOOM_ERR_CHECKSUM (corrupt: sealing never papers over
 *    corruption).
 *  - Bits that estimate fewer keys than stored were cleared by something other than adds:
 *    ABLOOM_ERR_CORRUPT, nothing written.
 *  - Do not seal a file that a writer still has open read-write (abloom_open with
 *    ABLOOM_OPEN_READ_WRITE, `abloom add`): its adds after the seal would leave the checksum
 *    wrong and unmarked (ABLOOM_ERR_CHECKSUM later). The stale mark cannot tell a killed writer
 *    from a running one; the caller must know.
 *  - A stale file must be writable (it is mapped read-write, as abloom_sync's writer did);
 *    one that is not stale need only be readable.
 *  - A growing filter's file: its chain header, table and every stage are checked as abloom_open
 *    checks them, then each stage is sealed as above and the table rewritten (the fill check
 *    against stored estimates is not made for a chain's stages).
 * Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_IO (errno tells why, as for abloom_open),
 * ABLOOM_ERR_BAD_MAGIC, ABLOOM_ERR_VERSION, ABLOOM_ERR_UNSUPPORTED, ABLOOM_ERR_TRUNCATED,
 * ABLOOM_ERR_CORRUPT, ABLOOM_ERR_CHECKSUM.
 */
ABLOOM_API int abloom_seal(const char *path);

/* ==== For advanced use ====================================================================== */
/*
 * Bulk threads and the writer mode (settings of a handle) and the instruction set (of the
 * process) change how fast a filter runs, not what it answers; direct access to the bits is for
 * bindings that probe keys in their own language. A setting is read with abloom_get_* and changed
 * with abloom_set_*.
 */

/* ---- Advanced: bulk threads ---------------------------------------------------------------- */

/**
 * Set how many threads (up to ABLOOM_MAX_THREADS; 0 or 1: the calling thread only) the bulk calls
 * on `filter` may use from now on, as abloom_options.threads does for a filter abloom_create
 * makes (see there: batches of 65536 keys or more are split; answers, bits and added counts are
 * exactly the single-threaded ones). The count belongs to the handle, not to the bits: it is not
 * saved. abloom_create starts it at options.threads; abloom_open, abloom_view and
 * abloom_deserialize at 1; abloom_clone copies the source's current count. May be called at any
 * time, also while other threads run bulk calls on the filter: each bulk call reads the count
 * once, when it starts, and keeps it to its end. Read-only filters take it too (for their bulk
 * tests). Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (above ABLOOM_MAX_THREADS; nothing
 * changes).
 */
ABLOOM_API int abloom_set_threads(abloom_filter *filter, uint32_t threads);

/** The threads bulk calls on `filter` may use (1 .. ABLOOM_MAX_THREADS; 1 after a set of 0), or
 *  ABLOOM_ERR_NULL. (Formerly abloom_threads, still exported: see the last section.) */
ABLOOM_API int abloom_get_threads(const abloom_filter *filter);

/* ---- Advanced: writer mode ----------------------------------------------------------------- */
/*
 * By default any number of threads may add to one filter at once: adds set their bits with atomic
 * read-modify-writes (`lock or` on x86), which never lose a bit. Those are also what an add costs
 * most: on x86 each is a full barrier that later loads wait for. A filter written by one thread at
 * a time (an offline build, one Spark partition, a bulk load before serving) can switch to plain
 * loads and stores, and adds then run faster, in cache most of all (bench/RESULTS.md, "C
 * library: bulk calls").
 */

/** Any number of threads may write at once (the default): lock-free atomic adds. */
#define ABLOOM_WRITER_SHARED 0u
/**
 * One thread writes at a time: abloom_add*, abloom_test_and_add* and abloom_union use plain loads
 * and stores. UNSAFE with concurrent writers: two threads adding at once can lose each other's
 * bits, i.e. give false negatives. Any number of threads may still test (and call every other
 * read-only function) while the one writer adds: each 64-bit word is read and written whole, so a
 * test sees every word before or after each store. One bulk call with more than one thread
 * (abloom_options.threads, abloom_set_threads) is one writer: its threads never write the same
 * word with plain stores.
 */
#define ABLOOM_WRITER_EXCLUSIVE 1u

/**
 * Set how `filter` is written from now on: ABLOOM_WRITER_SHARED or ABLOOM_WRITER_EXCLUSIVE. Call
 * it while no other thread writes to the filter (for example, switch to EXCLUSIVE for a bulk
 * load, back to SHARED before other threads start adding). The mode belongs to the handle, not to
 * the bits: it is not saved, and filters made by abloom_create, abloom_clone, abloom_deserialize,
 * abloom_view and abloom_open start SHARED. Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (unknown
 * mode; nothing changes).
 */
ABLOOM_API int abloom_set_writer_mode(abloom_filter *filter, uint32_t mode);

/** The writer mode of `filter` (ABLOOM_WRITER_SHARED or ABLOOM_WRITER_EXCLUSIVE), or
 *  ABLOOM_ERR_NULL. (Formerly abloom_writer_mode, still exported: see the last section.) */
ABLOOM_API int abloom_get_writer_mode(const abloom_filter *filter);

/* ---- Advanced: instruction set ------------------------------------------------------------- */

/*
 * The blocked kind's hot loops have one kernel per instruction set. The library picks the best one
 * the CPU supports at run time (one binary runs on any x86-64: scalar, AVX2 or AVX-512; and one on
 * any aarch64: NEON, which every aarch64 CPU has, or scalar), unless the environment variable
 * ABLOOM_ISA ("scalar", "avx2", "avx512", "neon", "auto", in any case; read once, at the first call
 * that needs a kernel) or abloom_set_isa() asks for less. An unknown value, or one this CPU
 * cannot run (another architecture's, or a wider x86 set than it has: "avx512" on an AVX2 CPU runs
 * AVX2), is ignored: the best kernel runs, as with "auto" (abloom_get_isa() tells which one
 * does). The values are names, not an order: compare them for equality only. Every kernel sets
 * and tests exactly the same bits, so the choice changes speed only: filters, files and answers
 * are identical. The AVX-512 kernel checks a key's candidates for repeats with vpconflictd, or on
 * Intel CPUs (where that instruction is slow) with a packed compare; ABLOOM_ISA=avx512-conflict or
 * avx512-packed asks for one of the two whatever the CPU, to measure both (both are
 * ABLOOM_ISA_AVX512 to the calls below).
 */

/** Portable scalar kernel: every CPU. */
#define ABLOOM_ISA_SCALAR 0u
/** AVX2 (with BMI2) kernel: x86-64 CPUs since about 2013-2015. */
#define ABLOOM_ISA_AVX2 1u
/** AVX-512 F and CD kernel (the whole 64-byte block in one register): x86-64 server CPUs since
 * about 2017 (Intel Skylake-SP and later), desktop Intel Ice Lake to Rocket Lake, AMD Zen 4 and
 * later. */
#define ABLOOM_ISA_AVX512 2u
/** NEON (Advanced SIMD) kernel: every aarch64 CPU (64-bit Arm). Never supported on x86-64, as the
 * x86 kernels are never supported on aarch64. */
#define ABLOOM_ISA_NEON 3u

/*
 * abloom_get_isa and abloom_set_isa read and set the library's kernel, as abloom_get_threads and
 * abloom_set_threads do a handle's threads. abloom_isa_supported and abloom_isa_name keep the
 * section's plain prefix: they state facts (what this CPU can run, what a value is called), not a
 * setting anything could change.
 */

/** The ABLOOM_ISA_* in use now (process-wide). (Formerly abloom_isa_active, still exported: see
 *  the last section.) */
ABLOOM_API uint32_t abloom_get_isa(void);

/**
 * Uses kernel `isa` from now on, process-wide and thread-safe (calls already running finish on
 * the previous kernel). ABLOOM_ERR_INVALID for an unknown value; ABLOOM_ERR_UNSUPPORTED when this
 * CPU cannot run it (nothing changes then). Setting ABLOOM_ISA_SCALAR always succeeds. (Formerly
 * abloom_isa_force, still exported: see the last section.)
 */
ABLOOM_API int abloom_set_isa(uint32_t isa);

/** The best ABLOOM_ISA_* this CPU can run. */
ABLOOM_API uint32_t abloom_isa_supported(void);

/** "scalar", "avx2", "avx512", "neon", or "unknown" (static storage). */
ABLOOM_API const char *abloom_isa_name(uint32_t isa);

/* ---- Advanced: direct access to the bits --------------------------------------------------- */
/*
 * For a binding that tests and adds single keys in its own language, with no call into the
 * library per key (the Go package does: a cgo call costs more than the whole test). C and C++
 * code has this for tests and adds in abloom_inline.h. This is a stable part of the ABI, because
 * it adds nothing the format does not already freeze: the bits are laid out in memory exactly as
 * in the file body, and docs/FORMAT.md ("Body") defines where each key's bits go, from
 * h = XXH3-64(key, seed) (xxHash's XXH3_64bits_withSeed), for every kind and layout id.
 *
 * Shard s is `blocks_per_shard` 64-byte blocks, i.e. blocks_per_shard * 8 uint64_t words, at
 * shard_words[s] (64-byte aligned). Bit b of a shard is bit b % 64 of word b / 64. The words are
 * native uint64_t, which is the file's little-endian order on every machine the library builds
 * for.
 *
 * Code that uses the words directly must keep the library's rules, so that it and the library's
 * own calls can run on one filter at once from any threads:
 *  - read a word with one 64-bit atomic load (relaxed ordering is enough);
 *  - set bits with a 64-bit atomic OR (relaxed; `lock or` on x86), and only on a writable
 *    filter (abloom_get_writable_shards). Never clear a bit, never write a word whole: the
 *    library's adds OR into the same words concurrently. While the filter is in
 *    ABLOOM_WRITER_EXCLUSIVE mode, its one writing thread may instead load, OR and store each
 *    word (one 64-bit store each), as the library then does;
 *  - stop before abloom_free: the pointers are valid until then, and only then. Nothing else
 *    moves the bits (abloom_clear, abloom_union, abloom_intersect and abloom_sync change them in
 *    place).
 * The layout never changes for the life of a filter, so read it once, when the handle is made.
 */

/** The shape and the memory of a filter's bits, for abloom_get_memory. */
typedef struct abloom_memory {
  /** sizeof(abloom_memory), set by abloom_memory_init. */
  size_t struct_size;
  /** An abloom_kind. */
  uint32_t kind;
  /** An ABLOOM_LAYOUT_* (never ABLOOM_LAYOUT_DEFAULT; ABLOOM_LAYOUT_DISTINCT for classic). */
  uint32_t layout;
  /** The hash: 1 = XXH3-64 with `seed` (the format's hash id; the only one so far). */
  uint32_t hash_id;
  /** Bits per key. */
  uint32_t k;
  /** log2 of the shard count: a key's shard is the top shard_bits bits of its hash. */
  uint32_t shard_bits;
  /** 1 << shard_bits: the number of entries of shard_words. */
  uint32_t shards;
  /** 64-byte blocks in each shard. */
  uint64_t blocks_per_shard;
  /** The hash seed. */
  uint64_t seed;
  /** 1 if the filter is read-only (writes return ABLOOM_ERR_READONLY), else 0. */
  uint32_t read_only;
  /** 0; keeps the layout the same on every ABI. */
  uint32_t reserved;
  /** shard_words[s]: the first word of shard s, for s < shards. Owned by the filter. */
  const uint64_t *const *shard_words;
} abloom_memory;

/** Zero `mem` and set its struct_size, ready for abloom_get_memory. ABLOOM_ERR_NULL if NULL. */
ABLOOM_API int abloom_memory_init(abloom_memory *mem);

/**
 * Describe where `filter`'s bits are and how keys map to them, in *mem (initialised with
 * abloom_memory_init). The pointers are read-only; see abloom_get_writable_shards to write.
 * Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (a struct_size that is not a known size),
 * ABLOOM_ERR_UNSUPPORTED for a growing filter (its stages come and go with its adds).
 */
ABLOOM_API int abloom_get_memory(const abloom_filter *filter, abloom_memory *mem);

/**
 * Describe stage `stage` (0 = the oldest) of a growing filter in *mem, as abloom_get_memory
 * describes a fixed filter: each stage is a filter of its own shape, and a key is in the chain
 * if it is in any stage. A fixed filter is its own stage 0. A stage's memory stays where it is
 * until abloom_free (abloom_clear empties it in place; stages are only ever appended), so a
 * reader may keep the pointers of the stages it has seen, and must ask again for the stages
 * appended since (abloom_get_stage_info gives the count): code that probes a growing filter
 * itself, as the Java binding's single-key test does, reads the count after each add it makes.
 * Errors: ABLOOM_ERR_NULL, ABLOOM_ERR_INVALID (a struct_size that is not a known size),
 * ABLOOM_ERR_RANGE (no such stage).
 */
ABLOOM_API int abloom_get_stage_memory(const abloom_filter *filter, uint32_t stage,
                                       abloom_memory *mem);

/**
 * The same shard pointers as abloom_get_memory, writable: *out = an array of the filter's shard
 * count of pointers, owned by the filter, valid until abloom_free. Errors: ABLOOM_ERR_NULL,
 * ABLOOM_ERR_READONLY (a view, or a file opened read-only: *out is left unchanged),
 * ABLOOM_ERR_UNSUPPORTED for a growing filter.
 */
ABLOOM_API int abloom_get_writable_shards(abloom_filter *filter, uint64_t *const **out);

/* ---- Deprecated names ---------------------------------------------------------------------- */
/*
 * The first names of four calls, from before abloom.h named its getters and setters
 * abloom_get_* and abloom_set_*. Each is still exported and does exactly what its new name does,
 * so programs built or written against it keep working; new code should use the new names. A use
 * draws a compiler warning (ABLOOM_DEPRECATED; ABLOOM_NO_DEPRECATION_WARNINGS silences it).
 */

/** Deprecated: abloom_get_isa. */
ABLOOM_DEPRECATED("use abloom_get_isa") ABLOOM_API uint32_t abloom_isa_active(void);

/** Deprecated: abloom_set_isa. */
ABLOOM_DEPRECATED("use abloom_set_isa") ABLOOM_API int abloom_isa_force(uint32_t isa);

/** Deprecated: abloom_get_writer_mode. */
ABLOOM_DEPRECATED("use abloom_get_writer_mode")
ABLOOM_API int abloom_writer_mode(const abloom_filter *filter);

/** Deprecated: abloom_get_threads. */
ABLOOM_DEPRECATED("use abloom_get_threads")
ABLOOM_API int abloom_threads(const abloom_filter *filter);

#ifdef __cplusplus
}
#endif

#endif /* ABLOOM_H */
