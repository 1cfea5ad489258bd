/*
 * abloom_helpers.i - C helpers of the Java binding's SWIG interface that are not wrapped (abloom.i
 * includes it): a handle or a code in one jlong, the options of a new filter, and the chunked
 * batches (int[] offsets and long[] keys go to the engine in chunks through stack or heap arrays).
 */

/* ---- helpers: thin C over the C API, in the shapes the typemaps above need ---------------- */

/* ---- internal helpers (not wrapped) ---- */
%{
/* A handle (> 0) or a negative error code in one jlong. User-space pointers are positive. */
static long long jab_handle_or_code(int rc, abloom_filter *f) {
  return rc == ABLOOM_OK ? (long long)(intptr_t)f : (long long)rc;
}

/* errno of the last failed abloom_open/abloom_save in this thread (0 when it was not an I/O
 * error), read right after the call in the same native method. */
static _Thread_local int jab_errno_value;

/* layout: an ABLOOM_LAYOUT_* (0, ABLOOM_LAYOUT_DEFAULT: the library's choice). */
/* growth: 0 for a fixed filter (capacity > 0), else a growing one's (capacity >= 0: its first
 * stage's, 0 for the library's default); the engine checks its range. */
static int jab_options(abloom_options *o, long long capacity, double fpr, int kind, int shards,
                       long long seed, long long bits, int k, int threads, int layout,
                       double growth) {
  int rc = abloom_options_init(o);
  if (rc != ABLOOM_OK) return rc;
  if (capacity < 0 || (capacity == 0 && growth == 0.0) || shards < 0 || bits < 0 || k < 0 ||
      threads < 0 || kind < 0 || layout < 0)
    return ABLOOM_ERR_INVALID;
  o->growth = growth;
  o->capacity = (uint64_t)capacity;
  o->fpr = fpr;
  o->kind = (uint32_t)kind;
  o->shards = (uint32_t)shards;
  o->seed = (uint64_t)seed;
  o->bits = (uint64_t)bits;
  o->k = (uint32_t)k;
  o->threads = (uint32_t)threads;
  o->layout = (uint32_t)layout;
  return ABLOOM_OK;
}

static void jab_le64(unsigned char *b, long long v) {
  uint64_t u = (uint64_t)v;
  int i;
  for (i = 0; i < 8; ++i) b[i] = (unsigned char)(u >> (8 * i));
}

#define JAB_CHUNK 4096

/* All offsets are checked before any key is added (non-decreasing, >= 0, last <= buf_len), so a
 * bad batch changes nothing, as with the long[] form. */
static int jab_check_offsets32(const int *offs, int n, long long buf_len) {
  int i;
  if (offs[0] < 0) return ABLOOM_ERR_INVALID;
  for (i = 0; i < n; ++i)
    if (offs[i + 1] < offs[i]) return ABLOOM_ERR_INVALID;
  return (long long)offs[n] <= buf_len ? ABLOOM_OK : ABLOOM_ERR_INVALID;
}

static int jab_host_is_le(void) {
  const uint16_t one = 1;
  return *(const unsigned char *)&one == 1;
}

/* Packs keys[start .. start+m) as little-endian bytes into buf, offsets 0, 8, 16, ... */
static const void *jab_pack_longs(const long long *keys, int m, unsigned char *buf,
                                  uint64_t *offs) {
  int i;
  for (i = 0; i <= m; ++i) offs[i] = (uint64_t)i * 8u;
  if (jab_host_is_le()) return keys; /* a long[] already is its keys' bytes, in order */
  for (i = 0; i < m; ++i) jab_le64(buf + 8 * i, keys[i]);
  return buf;
}

/* Keys per engine call of the chunked batches (jab_add_packed32 & co.): JAB_CHUNK, through
 * arrays on the stack; or, for a filter with bulk threads (abloom_set_threads), JAB_SPLIT_FROM,
 * the size from which the C library splits a call across them, through arrays from the heap. */
#define JAB_SPLIT_FROM 65536

/* The keys per call for f and n keys: *heap gets the room for JAB_SPLIT_FROM + 1 words (NULL
 * when the stack arrays do); 0 when that allocation fails. */
static int jab_per_call(const abloom_filter *f, int n, uint64_t **heap) {
  *heap = NULL;
  if (n < JAB_SPLIT_FROM || abloom_get_threads(f) <= 1) return JAB_CHUNK;
  *heap = (uint64_t *)malloc(sizeof(uint64_t) * (JAB_SPLIT_FROM + 1));
  return *heap ? JAB_SPLIT_FROM : 0;
}

/* The room for JAB_SPLIT_FROM keys' bytes on a big-endian host (a long[] is its keys' bytes on a
 * little-endian one); 0 (no error) when it is not needed, ABLOOM_ERR_NOMEM when it fails. */
static int jab_long_bytes(uint64_t *heap, unsigned char **bytes) {
  *bytes = NULL;
  if (!heap || jab_host_is_le()) return 0;
  *bytes = (unsigned char *)malloc((size_t)JAB_SPLIT_FROM * 8u);
  return *bytes ? 0 : ABLOOM_ERR_NOMEM;
}

/* One chunk of a chunked batch: keys [start, start + m) of the batch, through offs (room for m + 1
 * offsets) and bytes (room for m keys of 8 bytes; NULL unless jab_chunked was asked for it). Sets
 * *count to the keys added (or found) and returns the engine's code. */
typedef int (*jab_chunk_fn)(void *ctx, long long start, int m, uint64_t *offs, unsigned char *bytes,
                            uint64_t *count);

/* Runs fn over n keys in chunks of jab_per_call(f, n) keys, through the stack arrays or, for a
 * filter with bulk threads, arrays from the heap (long_bytes: also the room for the keys' bytes
 * that jab_long_bytes gives). The sum of the chunks' counts; the first engine error stops it and
 * is returned; ABLOOM_ERR_NOMEM when an allocation fails. */
static long long jab_chunked(const abloom_filter *f, int n, int long_bytes, jab_chunk_fn fn,
                             void *ctx) {
  unsigned char stack_bytes[JAB_CHUNK * 8];
  uint64_t stack_offs[JAB_CHUNK + 1];
  uint64_t *heap, *offs;
  unsigned char *heap_bytes = NULL, *bytes = NULL;
  uint64_t total = 0;
  long long start;
  int rc = ABLOOM_OK, per;
  per = jab_per_call(f, n, &heap);
  if (per == 0) return ABLOOM_ERR_NOMEM;
  if (long_bytes) {
    rc = jab_long_bytes(heap, &heap_bytes);
    bytes = heap_bytes ? heap_bytes : stack_bytes;
  }
  offs = heap ? heap : stack_offs;
  for (start = 0; rc == ABLOOM_OK && start < n; start += per) {
    int m = (int)(n - start < per ? n - start : per);
    uint64_t count = 0;
    rc = fn(ctx, start, m, offs, bytes, &count);
    if (rc == ABLOOM_OK) total += count;
  }
  free(heap_bytes);
  free(heap);
  return rc == ABLOOM_OK ? (long long)total : rc;
}

/* What the chunks of jab_add_packed32 & co. work on: the filter (f to add to, cf to test), the
 * caller's pinned arrays (keys and offs32, or keys64) and OUT_BOOLS (found; NULL when adding). */
struct jab_batch {
  abloom_filter *f;
  const abloom_filter *cf;
  const signed char *keys;
  long long buf_len;
  const int *offs32;
  const long long *keys64;
  unsigned char *found;
};

/* int[] offsets widened to the engine's uint64_t, m + 1 of them per chunk */
static void jab_widen32(const int *offs32, int m, uint64_t *offs) {
  int i;
  for (i = 0; i <= m; ++i) offs[i] = (uint64_t)offs32[i];
}

static int jab_add_packed32_chunk(void *ctx, long long start, int m, uint64_t *offs,
                                  unsigned char *bytes, uint64_t *count) {
  const struct jab_batch *b = (const struct jab_batch *)ctx;
  (void)bytes;
  jab_widen32(b->offs32 + start, m, offs);
  return abloom_add_packed(b->f, b->keys, (size_t)b->buf_len, offs, (size_t)m, count);
}

static int jab_test_packed32_chunk(void *ctx, long long start, int m, uint64_t *offs,
                                   unsigned char *bytes, uint64_t *count) {
  const struct jab_batch *b = (const struct jab_batch *)ctx;
  (void)bytes;
  jab_widen32(b->offs32 + start, m, offs);
  return abloom_test_packed(b->cf, b->keys, (size_t)b->buf_len, offs, (size_t)m, b->found + start,
                            count);
}

static int jab_add_longs_chunk(void *ctx, long long start, int m, uint64_t *offs,
                               unsigned char *bytes, uint64_t *count) {
  const struct jab_batch *b = (const struct jab_batch *)ctx;
  const void *keys = jab_pack_longs(b->keys64 + start, m, bytes, offs);
  return abloom_add_packed(b->f, keys, (size_t)m * 8u, offs, (size_t)m, count);
}

static int jab_test_longs_chunk(void *ctx, long long start, int m, uint64_t *offs,
                                unsigned char *bytes, uint64_t *count) {
  const struct jab_batch *b = (const struct jab_batch *)ctx;
  const void *keys = jab_pack_longs(b->keys64 + start, m, bytes, offs);
  return abloom_test_packed(b->cf, keys, (size_t)m * 8u, offs, (size_t)m, b->found + start, count);
}

/* The C library's test-and-add answers (1: present) turned into Java's (true: the key was new,
 * as put and putIfAbsent answer). */
static void jab_flip(unsigned char *answers, int m) {
  int i;
  for (i = 0; i < m; ++i) answers[i] ^= 1u;
}

static int jab_test_and_add_longs_chunk(void *ctx, long long start, int m, uint64_t *offs,
                                        unsigned char *bytes, uint64_t *count) {
  const struct jab_batch *b = (const struct jab_batch *)ctx;
  const void *keys = jab_pack_longs(b->keys64 + start, m, bytes, offs);
  int rc = abloom_test_and_add_packed(b->f, keys, (size_t)m * 8u, offs, (size_t)m,
                                      b->found + start, count);
  if (rc == ABLOOM_OK) jab_flip(b->found + start, m);
  return rc;
}

%}
