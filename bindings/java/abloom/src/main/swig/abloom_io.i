/*
 * abloom_io.i - wrapped serialization and file helpers of the Java binding's SWIG interface
 * (abloom.i includes it): serialize and deserialize (byte[] and native scratch memory for
 * streams), the header's body size, views over direct buffers, open, save and seal.
 */

%inline %{
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
%}
