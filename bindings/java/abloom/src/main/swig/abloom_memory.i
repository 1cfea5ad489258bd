/*
 * abloom_memory.i - the filter's own memory for the Java binding's single-key calls (abloom.i
 * includes it): direct buffers over a stage's shards (io.abloom.ShardMemory), and giving an
 * owned filter's pages back at close().
 */

%inline %{
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
