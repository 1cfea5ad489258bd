/*
 * abloom_batches.i - wrapped batch helpers of the Java binding's SWIG interface (abloom.i includes
 * it): packed keys with long[] or int[] offsets, in a byte[] or a direct buffer, and long[] keys;
 * adds, tests and test-and-adds, one JNI call per batch.
 */

%inline %{
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
%}
