/*
 * abloom.i - the SWIG 4.1 interface of the Java binding.
 *
 * SWIG runs at build time (src/main/native/build-native.sh, called by Maven in generate-sources)
 * and writes two package-private Java classes, AbloomNative (module class) and AbloomNativeJNI
 * (the JNI class), plus abloom_wrap.c, which is compiled against the installed abloom.h and linked
 * with -labloom into libabloom_jni.so.
 *
 * Design of the native layer:
 *  - A filter handle crosses JNI as a plain Java long (typemaps below), never as a SWIG proxy
 *    object: BloomFilter owns it and guards it against use after close.
 *  - Functions that create a filter return the handle (> 0) or a negative ABLOOM_ERR_* code in
 *    one long, so no output array is needed (and no JNI call happens inside a critical region).
 *  - Java arrays are pinned with GetPrimitiveArrayCritical: inputs are released with JNI_ABORT
 *    (nothing copied back), outputs with mode 0. No typemap returns early, so a pinned array is
 *    always released; a failed pin leaves NULL, and the helper then returns ABLOOM_ERR_NOMEM
 *    with the JVM's OutOfMemoryError pending. Array lengths are passed from Java (array.length)
 *    because no other JNI function may be called while an array is pinned. The JNI class is
 *    package-private and only BloomFilter calls it, after checking every index and length.
 *  - Nothing in a critical region blocks: file I/O (open, save) takes its path as a copied
 *    byte[] (GetByteArrayElements), never a pinned one.
 */
%module AbloomNative

/* madvise (jab_release_pages) under the strict C standard the layer is compiled with: the
 * feature macro must precede every system header, which SWIG's own code includes first. */
%begin %{
#define _DEFAULT_SOURCE 1
%}

%{
#include <abloom.h>
#include <errno.h>
#if defined(__linux__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
%}

/* Both generated classes are package-private: the public API is io.abloom.BloomFilter. */
%pragma(java) jniclassclassmodifiers = "final class"
%pragma(java) moduleclassmodifiers = "final class"
%pragma(java) jniclasscode = %{
  static {
    NativeLoader.load();
  }

  private AbloomNativeJNI() {}
%}
%pragma(java) modulecode = %{
  private AbloomNative() {}
%}

/* ---- Filter handles: a Java long ------------------------------------------------------------ */

%typemap(jni) abloom_filter *, const abloom_filter * "jlong"
%typemap(jtype) abloom_filter *, const abloom_filter * "long"
%typemap(jstype) abloom_filter *, const abloom_filter * "long"
%typemap(javain) abloom_filter *, const abloom_filter * "$javainput"
%typemap(in) abloom_filter *, const abloom_filter * %{ $1 = ($1_ltype)(intptr_t)$input; %}

/* ---- byte[] input: pinned, released with JNI_ABORT (no copy, no write-back) ---------------- */

%typemap(jni) const signed char *IN_BYTES "jbyteArray"
%typemap(jtype) const signed char *IN_BYTES "byte[]"
%typemap(jstype) const signed char *IN_BYTES "byte[]"
%typemap(javain) const signed char *IN_BYTES "$javainput"
%typemap(in) const signed char *IN_BYTES
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const signed char *IN_BYTES
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, JNI_ABORT); %}

/* ---- byte[] output: pinned, released with mode 0 (written back if the JVM made a copy) ------ */

%typemap(jni) signed char *OUT_BYTES "jbyteArray"
%typemap(jtype) signed char *OUT_BYTES "byte[]"
%typemap(jstype) signed char *OUT_BYTES "byte[]"
%typemap(javain) signed char *OUT_BYTES "$javainput"
%typemap(in) signed char *OUT_BYTES
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) signed char *OUT_BYTES
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, 0); %}

/* ---- long[] offsets (or keys): pinned, JNI_ABORT ------------------------------------------- */

%typemap(jni) const long long *IN_LONGS "jlongArray"
%typemap(jtype) const long long *IN_LONGS "long[]"
%typemap(jstype) const long long *IN_LONGS "long[]"
%typemap(javain) const long long *IN_LONGS "$javainput"
%typemap(in) const long long *IN_LONGS
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const long long *IN_LONGS
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, JNI_ABORT); %}

/* ---- int[] offsets: pinned, JNI_ABORT -------------------------------------------------------- */

%typemap(jni) const int *IN_INTS "jintArray"
%typemap(jtype) const int *IN_INTS "int[]"
%typemap(jstype) const int *IN_INTS "int[]"
%typemap(javain) const int *IN_INTS "$javainput"
%typemap(in) const int *IN_INTS
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const int *IN_INTS
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, JNI_ABORT); %}

/* ---- boolean[] results: pinned, mode 0 (jboolean is an unsigned 8-bit 0/1, like uint8_t) ---- */

%typemap(jni) unsigned char *OUT_BOOLS "jbooleanArray"
%typemap(jtype) unsigned char *OUT_BOOLS "boolean[]"
%typemap(jstype) unsigned char *OUT_BOOLS "boolean[]"
%typemap(javain) unsigned char *OUT_BOOLS "$javainput"
%typemap(in) unsigned char *OUT_BOOLS
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) unsigned char *OUT_BOOLS
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, 0); %}

/* ---- long[] output of a few values (not pinned: copied back with mode 0) -------------------- */

%typemap(jni) long long *OUT_INFO "jlongArray"
%typemap(jtype) long long *OUT_INFO "long[]"
%typemap(jstype) long long *OUT_INFO "long[]"
%typemap(javain) long long *OUT_INFO "$javainput"
%typemap(in) long long *OUT_INFO
%{ $1 = $input ? ($1_ltype)(*jenv)->GetLongArrayElements(jenv, $input, NULL) : NULL; %}
%typemap(freearg) long long *OUT_INFO
%{ if ($1) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong *)$1, 0); %}

/* ---- direct ByteBuffer: its address (NULL for a heap buffer) -------------------------------- */
/* A function taking a DIRECT buffer takes it before any pinned array, so GetDirectBufferAddress
 * runs before a critical region opens. */

%typemap(jni) void *DIRECT "jobject"
%typemap(jtype) void *DIRECT "java.nio.ByteBuffer"
%typemap(jstype) void *DIRECT "java.nio.ByteBuffer"
%typemap(javain) void *DIRECT "$javainput"
%typemap(in) void *DIRECT %{ $1 = $input ? (*jenv)->GetDirectBufferAddress(jenv, $input) : NULL; %}

/* ---- file paths: a NUL-terminated byte[] in the platform's file name encoding, copied -------- */

%typemap(jni) const char *PATH "jbyteArray"
%typemap(jtype) const char *PATH "byte[]"
%typemap(jstype) const char *PATH "byte[]"
%typemap(javain) const char *PATH "$javainput"
%typemap(in) const char *PATH
%{ $1 = $input ? ($1_ltype)(*jenv)->GetByteArrayElements(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const char *PATH
%{ if ($1) (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT); %}

/* ---- the JNIEnv (no Java argument) -------------------------------------------------------- */

%typemap(in, numinputs=0) JNIEnv *JENV %{ $1 = jenv; %}

/* ---- a direct ByteBuffer made here, returned to Java (null on error) ------------------------ */

%typemap(jni) jab_buffer "jobject"
%typemap(jtype) jab_buffer "java.nio.ByteBuffer"
%typemap(jstype) jab_buffer "java.nio.ByteBuffer"
%typemap(javaout) jab_buffer { return $jnicall; }
%typemap(out) jab_buffer %{ $result = $1; %}

/* ---- functions of abloom.h wrapped as they are -------------------------------------------- */

const char *abloom_strerror(int code);
const char *abloom_version_string(void);
/* uint32_t is unsigned int on every platform the binding builds for (SWIG maps it to long). */
unsigned int abloom_isa_supported(void);
unsigned int abloom_isa_active(void);
int abloom_isa_force(unsigned int isa);
const char *abloom_isa_name(unsigned int isa);
int abloom_set_writer_mode(abloom_filter *filter, unsigned int mode);
int abloom_writer_mode(const abloom_filter *filter);
int abloom_set_threads(abloom_filter *filter, unsigned int threads);
int abloom_threads(const abloom_filter *filter);
void abloom_free(abloom_filter *filter);
int abloom_union(abloom_filter *dst, const abloom_filter *src);
int abloom_intersect(abloom_filter *dst, const abloom_filter *src);
int abloom_clear(abloom_filter *filter);
int abloom_equal(const abloom_filter *a, const abloom_filter *b);
int abloom_sync(abloom_filter *filter);

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
  if (n < JAB_SPLIT_FROM || abloom_threads(f) <= 1) return JAB_CHUNK;
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

%inline %{
static int jab_last_errno(void) { return jab_errno_value; }

static const char *jab_errno_string(int e) { return strerror(e); }

static long long jab_create(long long capacity, double fpr, int kind, int shards, long long seed,
                            long long bits, int k, int threads, int layout, double growth) {
  abloom_options o;
  abloom_filter *f = NULL;
  int rc = jab_options(&o, capacity, fpr, kind, shards, seed, bits, k, threads, layout, growth);
  if (rc == ABLOOM_OK) rc = abloom_create(&o, &f);
  return jab_handle_or_code(rc, f);
}

/* plan: out[0] k, [1] shards, [2] blocks per shard, [3] bits, [4] bytes,
 * [5] bits per key (double bits), [6] expected FPR (double bits), [7] layout (ABLOOM_LAYOUT_*,
 * resolved). */
static int jab_plan(long long capacity, double fpr, int kind, int shards, long long seed,
                    long long bits, int k, int threads, int layout, double growth,
                    long long *OUT_INFO) {
  abloom_options o;
  abloom_plan p;
  int rc;
  if (!OUT_INFO) return ABLOOM_ERR_NOMEM;
  rc = jab_options(&o, capacity, fpr, kind, shards, seed, bits, k, threads, layout, growth);
  if (rc != ABLOOM_OK) return rc;
  memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  rc = abloom_plan_compute(&o, &p);
  if (rc != ABLOOM_OK) return rc;
  OUT_INFO[0] = p.k;
  OUT_INFO[1] = p.shards;
  OUT_INFO[2] = (long long)p.blocks_per_shard;
  OUT_INFO[3] = (long long)p.bits;
  OUT_INFO[4] = (long long)p.bytes;
  memcpy(&OUT_INFO[5], &p.bits_per_key, 8);
  memcpy(&OUT_INFO[6], &p.expected_fpr, 8);
  OUT_INFO[7] = p.layout;
  return ABLOOM_OK;
}

/* The model FPR of a kind and layout (abloom_layout_model_fpr): out[0] (double bits). */
static int jab_layout_model_fpr(int kind, int layout, double bits_per_key, int k,
                                long long *OUT_INFO) {
  double v = 0.0;
  int rc;
  if (!OUT_INFO) return ABLOOM_ERR_NOMEM;
  if (kind < 0 || layout < 0 || k < 0) return ABLOOM_ERR_INVALID;
  rc = abloom_layout_model_fpr((uint32_t)kind, (uint32_t)layout, bits_per_key, (uint32_t)k, &v);
  if (rc != ABLOOM_OK) return rc;
  memcpy(&OUT_INFO[0], &v, 8);
  return ABLOOM_OK;
}

static long long jab_clone(const abloom_filter *f) {
  abloom_filter *c = NULL;
  int rc = abloom_clone(f, &c);
  return jab_handle_or_code(rc, c);
}

/* info: out[0] kind, [1] k, [2] shards, [3] blocks per shard, [4] bits, [5] bytes, [6] capacity,
 * [7] seed, [8] target FPR (double bits), [9] expected FPR (double bits), [10] storage,
 * [11] read-only, [12] layout (ABLOOM_LAYOUT_*), [13] stale (the file carried the stale mark when
 * opened), [14] stages, [15] growth failed, [16] growth (double bits; 0 for a fixed filter),
 * [17] keys counted as new (growing filters): out must hold 18 (FilterCore.INFO_LONGS).
 * stage < 0: the whole filter (abloom_get_info), else that stage (abloom_get_stage_info). */
static int jab_stage_info(const abloom_filter *f, int stage, long long *OUT_INFO) {
  abloom_info i;
  int rc;
  if (!OUT_INFO) return ABLOOM_ERR_NOMEM;
  memset(&i, 0, sizeof i);
  i.struct_size = sizeof i;
  rc = stage < 0 ? abloom_get_info(f, &i) : abloom_get_stage_info(f, (uint32_t)stage, &i);
  if (rc != ABLOOM_OK) return rc;
  OUT_INFO[0] = i.kind;
  OUT_INFO[1] = i.k;
  OUT_INFO[2] = i.shards;
  OUT_INFO[3] = (long long)i.blocks_per_shard;
  OUT_INFO[4] = (long long)i.bits;
  OUT_INFO[5] = (long long)i.bytes;
  OUT_INFO[6] = (long long)i.capacity;
  OUT_INFO[7] = (long long)i.seed;
  memcpy(&OUT_INFO[8], &i.target_fpr, 8);
  memcpy(&OUT_INFO[9], &i.expected_fpr, 8);
  OUT_INFO[10] = i.storage;
  OUT_INFO[11] = i.read_only;
  OUT_INFO[12] = i.layout;
  OUT_INFO[13] = i.stale;
  OUT_INFO[14] = i.stages;
  OUT_INFO[15] = i.growth_failed;
  memcpy(&OUT_INFO[16], &i.growth, 8);
  OUT_INFO[17] = (long long)i.keys;
  return ABLOOM_OK;
}

static int jab_info(const abloom_filter *f, long long *OUT_INFO) {
  return jab_stage_info(f, -1, OUT_INFO);
}

/* The stage count now (1 for a fixed filter), or a negative code. */
static int jab_stages(const abloom_filter *f) {
  abloom_info i;
  int rc = abloom_info_init(&i);
  if (rc == ABLOOM_OK) rc = abloom_get_stage_info(f, 0, &i);
  return rc == ABLOOM_OK ? (int)i.stages : rc;
}

/* What a growing filter of these options reaches at `keys` keys (abloom_growth_footprint):
 * out[0] stages, [1] bytes, [2] the FPR bound (double bits). */
static int jab_growth_footprint(long long capacity, double fpr, int kind, int shards,
                                long long seed, int layout, double growth, long long keys,
                                long long *OUT_INFO) {
  abloom_options o;
  uint32_t stages = 0;
  uint64_t bytes = 0;
  double bound = 0.0;
  int rc;
  if (!OUT_INFO) return ABLOOM_ERR_NOMEM;
  if (keys <= 0) return ABLOOM_ERR_INVALID;
  rc = jab_options(&o, capacity, fpr, kind, shards, seed, 0, 0, 0, layout, growth);
  if (rc == ABLOOM_OK) rc = abloom_growth_footprint(&o, (uint64_t)keys, &stages, &bytes, &bound);
  if (rc != ABLOOM_OK) return rc;
  OUT_INFO[0] = stages;
  OUT_INFO[1] = (long long)bytes;
  memcpy(&OUT_INFO[2], &bound, 8);
  return ABLOOM_OK;
}

/* A growing filter's single-key add (test-and-add by the hash Java computed): the stage count
 * after the add, shifted left once, with bit 0 set if the key was new; or a negative code. The
 * count is read after the add, so every stage the key went to is below it: Java publishes the
 * stages up to it before the add returns to its caller. */
static long long jab_grow_add_hash(abloom_filter *f, long long hash) {
  int rc = abloom_test_and_add_hash(f, (uint64_t)hash);
  int stages;
  if (rc < 0) return rc;
  stages = jab_stages(f);
  if (stages < 0) return stages;
  return ((long long)stages << 1) | (rc == 0 ? 1 : 0);
}

/* abloom_test_hash and abloom_test, for the tests that hold the Java path to the engine's. */
static int jab_test_hash(const abloom_filter *f, long long hash) {
  return abloom_test_hash(f, (uint64_t)hash);
}

static int jab_test_key(const abloom_filter *f, const signed char *IN_BYTES, int len) {
  if (!IN_BYTES) return ABLOOM_ERR_NOMEM;
  return abloom_test(f, IN_BYTES, (size_t)len);
}

/* Estimates: the value, or -1 on error (they are never negative). */
static double jab_estimate_count(const abloom_filter *f) {
  double v;
  return abloom_estimate_count(f, &v) == ABLOOM_OK ? v : -1.0;
}

static double jab_estimate_fpr(const abloom_filter *f) {
  double v;
  return abloom_estimate_fpr(f, &v) == ABLOOM_OK ? v : -1.0;
}

/* ---- batches: packed byte[] + long[] offsets (n + 1 of them); one call each ---- */
/* Return: keys added / keys found (>= 0), or a negative error code. */

static long long jab_add_packed(abloom_filter *f, const signed char *IN_BYTES, long long buf_len,
                                const long long *IN_LONGS, int n) {
  uint64_t added = 0;
  int rc;
  if (!IN_BYTES || !IN_LONGS) return ABLOOM_ERR_NOMEM;
  rc = abloom_add_packed(f, IN_BYTES, (size_t)buf_len, (const uint64_t *)IN_LONGS, (size_t)n,
                         &added);
  return rc == ABLOOM_OK ? (long long)added : rc;
}

static long long jab_test_packed(const abloom_filter *f, const signed char *IN_BYTES,
                                 long long buf_len, const long long *IN_LONGS, int n,
                                 unsigned char *OUT_BOOLS) {
  uint64_t found = 0;
  int rc;
  if (!IN_BYTES || !IN_LONGS || !OUT_BOOLS) return ABLOOM_ERR_NOMEM;
  rc = abloom_test_packed(f, IN_BYTES, (size_t)buf_len, (const uint64_t *)IN_LONGS, (size_t)n,
                          OUT_BOOLS, &found);
  return rc == ABLOOM_OK ? (long long)found : rc;
}

/* Test-and-add of packed keys in order (abloom_test_and_add_packed): OUT_BOOLS[i] = 1 where key i
 * was new (Java's put answer), 0 where it was already present. Return: the keys that were new, or
 * a negative error code (nothing added, OUT_BOOLS untouched). */
static long long jab_test_and_add_packed(abloom_filter *f, const signed char *IN_BYTES,
                                         long long buf_len, const long long *IN_LONGS, int n,
                                         unsigned char *OUT_BOOLS) {
  uint64_t added = 0;
  int rc;
  if (!IN_BYTES || !IN_LONGS || !OUT_BOOLS) return ABLOOM_ERR_NOMEM;
  rc = abloom_test_and_add_packed(f, IN_BYTES, (size_t)buf_len, (const uint64_t *)IN_LONGS,
                                  (size_t)n, OUT_BOOLS, &added);
  if (rc != ABLOOM_OK) return rc;
  jab_flip(OUT_BOOLS, n);
  return (long long)added;
}

/* ---- batches: direct ByteBuffer (keys at base + pos + offsets[i]) + long[] offsets ---- */

static long long jab_add_packed_direct(abloom_filter *f, void *DIRECT, long long pos,
                                       long long buf_len, const long long *IN_LONGS, int n) {
  uint64_t added = 0;
  int rc;
  if (!DIRECT) return ABLOOM_ERR_NULL;
  if (!IN_LONGS) return ABLOOM_ERR_NOMEM;
  rc = abloom_add_packed(f, (const char *)DIRECT + pos, (size_t)buf_len,
                         (const uint64_t *)IN_LONGS, (size_t)n, &added);
  return rc == ABLOOM_OK ? (long long)added : rc;
}

static long long jab_test_packed_direct(const abloom_filter *f, void *DIRECT, long long pos,
                                        long long buf_len, const long long *IN_LONGS, int n,
                                        unsigned char *OUT_BOOLS) {
  uint64_t found = 0;
  int rc;
  if (!DIRECT) return ABLOOM_ERR_NULL;
  if (!IN_LONGS || !OUT_BOOLS) return ABLOOM_ERR_NOMEM;
  rc = abloom_test_packed(f, (const char *)DIRECT + pos, (size_t)buf_len,
                          (const uint64_t *)IN_LONGS, (size_t)n, OUT_BOOLS, &found);
  return rc == ABLOOM_OK ? (long long)found : rc;
}

/* ---- batches: packed byte[] + int[] offsets, and long[] keys, in chunks ---- */

static long long jab_add_packed32(abloom_filter *f, const signed char *IN_BYTES,
                                  long long buf_len, const int *IN_INTS, int n) {
  struct jab_batch b = {0};
  int rc;
  if (!IN_BYTES || !IN_INTS) return ABLOOM_ERR_NOMEM;
  rc = jab_check_offsets32(IN_INTS, n, buf_len);
  if (rc != ABLOOM_OK) return rc;
  b.f = f;
  b.keys = IN_BYTES;
  b.buf_len = buf_len;
  b.offs32 = IN_INTS;
  return jab_chunked(f, n, 0, jab_add_packed32_chunk, &b);
}

static long long jab_test_packed32(const abloom_filter *f, const signed char *IN_BYTES,
                                   long long buf_len, const int *IN_INTS, int n,
                                   unsigned char *OUT_BOOLS) {
  struct jab_batch b = {0};
  int rc;
  if (!IN_BYTES || !IN_INTS || !OUT_BOOLS) return ABLOOM_ERR_NOMEM;
  rc = jab_check_offsets32(IN_INTS, n, buf_len);
  if (rc != ABLOOM_OK) return rc;
  b.cf = f;
  b.keys = IN_BYTES;
  b.buf_len = buf_len;
  b.offs32 = IN_INTS;
  b.found = OUT_BOOLS;
  return jab_chunked(f, n, 0, jab_test_packed32_chunk, &b);
}

/* ---- batches of long keys (each 8 little-endian bytes) ---- */

static long long jab_add_longs(abloom_filter *f, const long long *IN_LONGS, int n) {
  struct jab_batch b = {0};
  if (!IN_LONGS) return ABLOOM_ERR_NOMEM;
  b.f = f;
  b.keys64 = IN_LONGS;
  return jab_chunked(f, n, 1, jab_add_longs_chunk, &b);
}

static long long jab_test_longs(const abloom_filter *f, const long long *IN_LONGS, int n,
                                unsigned char *OUT_BOOLS) {
  struct jab_batch b = {0};
  if (!IN_LONGS || !OUT_BOOLS) return ABLOOM_ERR_NOMEM;
  b.cf = f;
  b.keys64 = IN_LONGS;
  b.found = OUT_BOOLS;
  return jab_chunked(f, n, 1, jab_test_longs_chunk, &b);
}

/* Test-and-add of long keys in order, as jab_test_and_add_packed answers. */
static long long jab_test_and_add_longs(abloom_filter *f, const long long *IN_LONGS, int n,
                                        unsigned char *OUT_BOOLS) {
  struct jab_batch b = {0};
  if (!IN_LONGS || !OUT_BOOLS) return ABLOOM_ERR_NOMEM;
  b.f = f;
  b.keys64 = IN_LONGS;
  b.found = OUT_BOOLS;
  return jab_chunked(f, n, 1, jab_test_and_add_longs_chunk, &b);
}

/* ---- serialization ---- */

static long long jab_serialized_size(const abloom_filter *f) {
  uint64_t n = 0;
  int rc = abloom_serialized_size(f, &n);
  return rc == ABLOOM_OK ? (long long)n : rc;
}

/* Serialize into dst[0 .. cap): bytes written, or a negative code. */
static long long jab_serialize(const abloom_filter *f, signed char *OUT_BYTES, long long cap) {
  size_t written = 0;
  int rc;
  if (!OUT_BYTES) return ABLOOM_ERR_NOMEM;
  rc = abloom_serialize(f, OUT_BYTES, (size_t)cap, &written);
  return rc == ABLOOM_OK ? (long long)written : rc;
}

static long long jab_deserialize(const signed char *IN_BYTES, int off, int len) {
  abloom_filter *f = NULL;
  int rc;
  if (!IN_BYTES) return ABLOOM_ERR_NOMEM;
  rc = abloom_deserialize(IN_BYTES + off, (size_t)len, &f);
  return jab_handle_or_code(rc, f);
}

/* Given the first ABLOOM_HEADER_BYTES of serialized data: the body size its (fully validated)
 * header announces (for a growing filter: the bytes after its chain header, table and stages),
 * or the error the header has. */
static long long jab_header_body_size(const signed char *IN_BYTES, int off) {
  abloom_filter *f = NULL;
  const unsigned char *h = (const unsigned char *)IN_BYTES + off;
  uint64_t body = 0;
  int rc, i;
  if (!IN_BYTES) return ABLOOM_ERR_NOMEM;
  rc = abloom_deserialize(h, ABLOOM_HEADER_BYTES, &f);
  if (rc == ABLOOM_OK) { /* cannot happen: a body is at least one block */
    abloom_free(f);
    return ABLOOM_ERR_INTERNAL;
  }
  if (rc != ABLOOM_ERR_TRUNCATED) return rc; /* the header itself is bad */
  if (h[16] == 2 && h[17] == 0 && h[18] == 0 && h[19] == 0) {
    /* a growing filter's chain header (kind 2): its total size, header included, at 80 */
    for (i = 7; i >= 0; --i) body = (body << 8) | h[80 + i];
    if (body < ABLOOM_HEADER_BYTES || body - ABLOOM_HEADER_BYTES > (uint64_t)INT64_MAX)
      return ABLOOM_ERR_CORRUPT;
    return (long long)(body - ABLOOM_HEADER_BYTES);
  }
  for (i = 7; i >= 0; --i) body = (body << 8) | h[96 + i];
  return (long long)body;
}

/* Native scratch memory for streams larger than any Java array. */
static long long jab_malloc(long long n) {
  if (n <= 0 || (unsigned long long)n > (unsigned long long)SIZE_MAX) return 0;
  return (long long)(intptr_t)malloc((size_t)n);
}

static void jab_mfree(long long p) { free((void *)(intptr_t)p); }

static int jab_mput(long long p, long long at, const signed char *IN_BYTES, int off, int len) {
  if (!IN_BYTES) return ABLOOM_ERR_NOMEM;
  memcpy((char *)(intptr_t)p + at, IN_BYTES + off, (size_t)len);
  return ABLOOM_OK;
}

static int jab_mget(long long p, long long at, signed char *OUT_BYTES, int off, int len) {
  if (!OUT_BYTES) return ABLOOM_ERR_NOMEM;
  memcpy(OUT_BYTES + off, (const char *)(intptr_t)p + at, (size_t)len);
  return ABLOOM_OK;
}

static long long jab_serialize_native(const abloom_filter *f, long long p, long long cap) {
  size_t written = 0;
  int rc = abloom_serialize(f, (void *)(intptr_t)p, (size_t)cap, &written);
  return rc == ABLOOM_OK ? (long long)written : rc;
}

static long long jab_deserialize_native(long long p, long long len) {
  abloom_filter *f = NULL;
  int rc = abloom_deserialize((const void *)(intptr_t)p, (size_t)len, &f);
  return jab_handle_or_code(rc, f);
}

/* A zero-copy, read-only view over a direct buffer [pos, pos + len) that Java keeps alive. */
static long long jab_view(void *DIRECT, long long pos, long long len, int flags) {
  abloom_filter *f = NULL;
  int rc;
  if (!DIRECT) return ABLOOM_ERR_NULL;
  rc = abloom_view((const char *)DIRECT + pos, (size_t)len, (uint32_t)flags, &f);
  return jab_handle_or_code(rc, f);
}

/* ---- files ---- */

static long long jab_open(const char *PATH, int flags) {
  abloom_filter *f = NULL;
  int rc;
  errno = 0;
  rc = abloom_open(PATH, (uint32_t)flags, &f);
  jab_errno_value = rc == ABLOOM_ERR_IO ? errno : 0;
  return jab_handle_or_code(rc, f);
}

static int jab_save(const abloom_filter *f, const char *PATH) {
  int rc;
  errno = 0;
  rc = abloom_save(f, PATH);
  jab_errno_value = rc == ABLOOM_ERR_IO ? errno : 0;
  return rc;
}

/* abloom_seal: ABLOOM_OK, or a negative code (errno kept for jab_last_errno, as for jab_open). */
static int jab_seal(const char *PATH) {
  int rc;
  errno = 0;
  rc = abloom_seal(PATH);
  jab_errno_value = rc == ABLOOM_ERR_IO ? errno : 0;
  return rc;
}

/* ---- the filter's own words, for the single-key calls in Java (io.abloom.Probe) ---- */

typedef jobject jab_buffer;

/* A direct buffer over bytes [off, off + len) of shard `shard` of stage `stage` of the filter's
 * memory (abloom_get_stage_memory: a fixed filter is its own stage 0; the pointers stay valid
 * until abloom_free, a growing filter's stages never move, and Java keeps the filter from
 * being freed while it can still read them). Writable memory for a writable filter; Java makes
 * the buffer read-only for a read-only one, whose pages may be mapped without write access.
 * NULL, with no exception pending, if the arguments do not fit the filter. */
static jab_buffer jab_shard_buffer(JNIEnv *JENV, abloom_filter *f, int stage, int shard,
                                   long long off, long long len) {
  abloom_memory m;
  if (stage < 0 || abloom_memory_init(&m) != ABLOOM_OK ||
      abloom_get_stage_memory(f, (uint32_t)stage, &m) != ABLOOM_OK)
    return NULL;
  if (shard < 0 || (unsigned)shard >= m.shards || off < 0 || len <= 0 || len > 0x7fffffffLL ||
      (unsigned long long)(off + len) > m.blocks_per_shard * 64u)
    return NULL;
  return (*JENV)->NewDirectByteBuffer(JENV, (char *)m.shard_words[shard] + off, (jlong)len);
}

/* Gives the pages of an owned filter's words back to the system (MADV_DONTNEED), for
 * BloomFilter.close(): the memory itself stays mapped, reading as zeros, until the Cleaner frees
 * the filter once no Java code can reach it, so a test racing close() never reads unmapped
 * memory, and the process's resident size still drops at close(). Only whole pages inside each
 * shard are given back. Anonymous private memory only: never a mapped file or a view (the
 * caller checks the storage), whose contents must stay. */
static void jab_release_pages(abloom_filter *f) {
#if defined(__linux__) || defined(__APPLE__)
  abloom_memory m;
  uint32_t s, stage;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  if (page == 0 || (page & (page - 1)) != 0) return;
  /* every stage of a growing filter (a fixed one is its own stage 0): RANGE past the last */
  for (stage = 0; abloom_memory_init(&m) == ABLOOM_OK &&
                  abloom_get_stage_memory(f, stage, &m) == ABLOOM_OK;
       ++stage) {
    for (s = 0; s < m.shards; ++s) {
      uintptr_t start = ((uintptr_t)m.shard_words[s] + page - 1) & ~(page - 1);
      uintptr_t end = ((uintptr_t)m.shard_words[s] + m.blocks_per_shard * 64u) & ~(page - 1);
      if (end > start) (void)madvise((void *)start, end - start, MADV_DONTNEED);
    }
  }
#else
  (void)f;
#endif
}
%}
