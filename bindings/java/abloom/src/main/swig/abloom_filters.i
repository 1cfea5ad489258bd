/*
 * abloom_filters.i - wrapped helpers of the Java binding's SWIG interface for a filter as a whole
 * (abloom.i includes it): create, plan, the model fpr, clone, info and stage info, the growth
 * footprint, a growing filter's single-key add, the hash tests and the estimates.
 */

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
%}
