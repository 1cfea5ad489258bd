package io.abloom;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The calls of a {@link BloomFilter} that cross into native code once for many keys or the whole
 * filter: batches, set operations, clearing and copying, bulk threads and estimates (the bodies
 * of those public methods; serialization is {@link FilterFiles}'). Each runs under the close guard
 * of the filter's {@link FilterCore} ({@link FilterCore#call}, or {@link FilterCore#callAdding}
 * where it may append a growing filter's stages).
 */
final class BulkCalls {
  private final FilterCore core;

  BulkCalls(FilterCore core) {
    this.core = core;
  }

  // ---- batches ----------------------------------------------------------------------------------

  private static long counted(long rc, String what) {
    if (rc < 0) {
      throw Errors.unchecked(rc, what);
    }
    return rc;
  }

  private static int batchSize(int offsetsLength) {
    if (offsetsLength < 1) {
      throw new IllegalArgumentException("abloom: offsets needs n + 1 entries, got none");
    }
    return offsetsLength - 1;
  }

  private static boolean[] results(boolean[] results, int n) {
    if (results.length < n) {
      throw new IllegalArgumentException(
          "abloom: results has " + results.length + " entries for " + n + " keys");
    }
    return results;
  }

  long putAll(byte[] packed, long[] offsets) {
    int n = batchSize(offsets.length);
    return counted(
        core.callAdding(h -> AbloomNative.jab_add_packed(h, packed, packed.length, offsets, n)),
        "putAll");
  }

  long putAll(byte[] packed, int[] offsets) {
    int n = batchSize(offsets.length);
    return counted(
        core.callAdding(h -> AbloomNative.jab_add_packed32(h, packed, packed.length, offsets, n)),
        "putAll");
  }

  long putAll(ByteBuffer packed, long[] offsets) {
    int n = batchSize(offsets.length);
    requireDirect(packed);
    long rc =
        core.callAdding(
            h ->
                AbloomNative.jab_add_packed_direct(
                    h, packed, packed.position(), packed.remaining(), offsets, n));
    Reference.reachabilityFence(packed);
    return counted(rc, "putAll");
  }

  long putAll(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return putAll(p.bytes, p.offsets);
  }

  long putAll(long[] keys) {
    return counted(
        core.callAdding(h -> AbloomNative.jab_add_longs(h, keys, keys.length)), "putAll");
  }

  boolean[] mightContainAll(byte[] packed, long[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    mightContainAll(packed, offsets, results);
    return results;
  }

  long mightContainAll(byte[] packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        core.call(h -> AbloomNative.jab_test_packed(h, packed, packed.length, offsets, n, results)),
        "mightContainAll");
  }

  boolean[] mightContainAll(byte[] packed, int[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    mightContainAll(packed, offsets, results);
    return results;
  }

  long mightContainAll(byte[] packed, int[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        core.call(
            h -> AbloomNative.jab_test_packed32(h, packed, packed.length, offsets, n, results)),
        "mightContainAll");
  }

  long mightContainAll(ByteBuffer packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    requireDirect(packed);
    long rc =
        core.call(
            h ->
                AbloomNative.jab_test_packed_direct(
                    h, packed, packed.position(), packed.remaining(), offsets, n, results));
    Reference.reachabilityFence(packed);
    return counted(rc, "mightContainAll");
  }

  boolean[] mightContainAll(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return mightContainAll(p.bytes, p.offsets);
  }

  boolean[] mightContainAll(long[] keys) {
    boolean[] results = new boolean[keys.length];
    counted(
        core.call(h -> AbloomNative.jab_test_longs(h, keys, keys.length, results)),
        "mightContainAll");
    return results;
  }

  boolean[] putAllIfAbsent(byte[] packed, long[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    putAllIfAbsent(packed, offsets, results);
    return results;
  }

  long putAllIfAbsent(byte[] packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        core.callAdding(
            h ->
                AbloomNative.jab_test_and_add_packed(
                    h, packed, packed.length, offsets, n, results)),
        "putAllIfAbsent");
  }

  boolean[] putAllIfAbsent(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return putAllIfAbsent(p.bytes, p.offsets);
  }

  boolean[] putAllIfAbsent(long[] keys) {
    boolean[] results = new boolean[keys.length];
    counted(
        core.callAdding(h -> AbloomNative.jab_test_and_add_longs(h, keys, keys.length, results)),
        "putAllIfAbsent");
    return results;
  }

  static void requireDirect(ByteBuffer buffer) {
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("abloom: the buffer must be direct");
    }
  }

  // ---- set operations ---------------------------------------------------------------------------

  private void requireCompatible(BloomFilter other, String what) {
    if (!core.compatible(other)) {
      throw new IllegalArgumentException(
          "abloom: "
              + what
              + ": filters of different shapes (kind, layout, bits, shards, k and seed must"
              + " match): "
              + core.shape()
              + " vs "
              + other.core.shape());
    }
  }

  /** {@link BloomFilter#putAll(BloomFilter)}: union. */
  void union(BloomFilter other) {
    requireCompatible(other, "putAll");
    combine(other.core, true);
  }

  void intersect(BloomFilter other) {
    core.handle.checkOpen();
    FilterCore o = other.core;
    o.handle.checkOpen();
    if (core.growing || o.growing) {
      throw new UnsupportedOperationException(
          "abloom: intersect: not supported for growing filters (a key two chains hold may sit"
              + " in different stages of each, so a stage-by-stage intersection would lose it)");
    }
    requireCompatible(other, "intersect");
    combine(o, false);
  }

  private void combine(FilterCore other, boolean union) {
    // Both pointers guarded: each call() keeps its own filter reachable.
    int rc =
        core.callAdding(
            h ->
                other.call(
                    o ->
                        union
                            ? AbloomNative.abloom_union(h, o)
                            : AbloomNative.abloom_intersect(h, o)));
    if (rc != 0) {
      throw Errors.unchecked(rc, union ? "putAll" : "intersect");
    }
  }

  // ---- the whole filter -------------------------------------------------------------------------

  void clear() {
    int rc = core.call(AbloomNative::abloom_clear);
    if (rc != 0) {
      throw Errors.unchecked(rc, "clear");
    }
  }

  BloomFilter copy() {
    return BloomFilter.own(core.call(AbloomNative::jab_clone), "copy");
  }

  void setThreads(int threads) {
    // Checked natively, after the closed check (a negative count is above the maximum there).
    int rc = core.call(h -> AbloomNative.abloom_set_threads(h, Integer.toUnsignedLong(threads)));
    if (rc == AbloomError.INVALID.code()) {
      throw new IllegalArgumentException(
          "abloom: setThreads: threads must be in 0.."
              + BloomFilter.MAX_THREADS
              + ", got "
              + threads);
    }
    if (rc != 0) {
      throw Errors.unchecked(rc, "setThreads");
    }
  }

  int threads() {
    return core.call(AbloomNative::abloom_get_threads);
  }

  // ---- estimates --------------------------------------------------------------------------------

  long approximateElementCount() {
    double v = core.call(AbloomNative::jab_estimate_count);
    if (v < 0) {
      throw new IllegalStateException("abloom: abloom_estimate_count failed");
    }
    return v >= 0x1p63 ? Long.MAX_VALUE : Math.round(v);
  }

  double expectedFpp() {
    double v = core.call(AbloomNative::jab_estimate_fpr);
    if (v < 0) {
      throw new IllegalStateException("abloom: abloom_estimate_fpr failed");
    }
    return v;
  }
}
