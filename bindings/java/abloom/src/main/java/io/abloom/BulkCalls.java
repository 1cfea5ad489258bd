package io.abloom;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The public calls of a {@link BloomFilter} that cross into native code once for many keys or
 * the whole filter: batches, set operations, writer mode, estimates and serialization. Each runs
 * under the close guard ({@link FilterCore#call}). Like {@link FilterCore}, a part of
 * BloomFilter kept in its own file: BloomFilter extends it, and its public methods are
 * BloomFilter's, documented as such.
 */
abstract class BulkCalls extends FilterCore {
  BulkCalls(long address, Object attachment) {
    super(address, attachment);
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

  /**
   * Adds n keys packed in one array, in one native call: key i is {@code
   * packed[offsets[i] .. offsets[i+1])}. The offsets (n + 1 of them) must not decrease and must
   * stay within the array; they are all checked before any key is added. The batch is hashed
   * first and its blocks prefetched, so large filters add several times faster than key by key.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets into {@code packed}
   * @return how many of the keys were new (as {@link #put(byte[])} counts them)
   * @throws IllegalArgumentException if the offsets are empty, decrease or leave the array
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(byte[] packed, long[] offsets) {
    int n = batchSize(offsets.length);
    return counted(
        callAdding(h -> AbloomNative.jab_add_packed(h, packed, packed.length, offsets, n)), "putAll");
  }

  /**
   * {@link #putAll(byte[], long[])} with int offsets.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing, non-negative offsets into {@code packed}
   * @return how many of the keys were new
   * @throws IllegalArgumentException if the offsets are empty, negative, decrease or leave the
   *     array (then nothing is added)
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(byte[] packed, int[] offsets) {
    int n = batchSize(offsets.length);
    return counted(
        callAdding(h -> AbloomNative.jab_add_packed32(h, packed, packed.length, offsets, n)), "putAll");
  }

  /**
   * Adds keys packed in a <b>direct</b> buffer, in one native call: key i is the buffer's bytes
   * {@code position + offsets[i] .. position + offsets[i+1]}; {@code offsets[n]} must not exceed
   * {@code remaining()}. The position is not changed.
   *
   * @param packed a direct buffer
   * @param offsets n + 1 non-decreasing offsets, relative to the position
   * @return how many of the keys were new
   * @throws IllegalArgumentException if the buffer is not direct or the offsets are bad
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(ByteBuffer packed, long[] offsets) {
    int n = batchSize(offsets.length);
    requireDirect(packed);
    long rc =
        callAdding(
            h ->
                AbloomNative.jab_add_packed_direct(
                    h, packed, packed.position(), packed.remaining(), offsets, n));
    Reference.reachabilityFence(packed);
    return counted(rc, "putAll");
  }

  /**
   * Adds every key of a list in one native call (the keys are first copied into one packed
   * array).
   *
   * @param keys the keys; no element may be null; at most 2 GiB in all
   * @return how many of the keys were new
   * @throws IllegalArgumentException if the keys total more than 2 GiB
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return putAll(p.bytes, p.offsets);
  }

  /**
   * Adds long keys (each its 8 little-endian bytes, as {@link #put(long)}) in one native call.
   *
   * @param keys the keys
   * @return how many of the keys were new
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(long[] keys) {
    return counted(callAdding(h -> AbloomNative.jab_add_longs(h, keys, keys.length)), "putAll");
  }

  /**
   * Tests n packed keys (as {@link #putAll(byte[], long[])}) in one native call.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets
   * @return n answers: false where a key is definitely absent
   * @throws IllegalArgumentException if the offsets are empty, decrease or leave the array
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(byte[] packed, long[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    mightContainAll(packed, offsets, results);
    return results;
  }

  /**
   * Tests n packed keys into a caller's array (no allocation), in one native call.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets
   * @param results receives answer i at index i; at least n long
   * @return how many keys might be present (the number of true answers)
   * @throws IllegalArgumentException if the offsets are bad or {@code results} is too short
   * @throws IllegalStateException if the filter is closed
   */
  public long mightContainAll(byte[] packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        call(h -> AbloomNative.jab_test_packed(h, packed, packed.length, offsets, n, results)),
        "mightContainAll");
  }

  /**
   * {@link #mightContainAll(byte[], long[])} with int offsets.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing, non-negative offsets
   * @return n answers
   * @throws IllegalArgumentException if the offsets are bad
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(byte[] packed, int[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    mightContainAll(packed, offsets, results);
    return results;
  }

  /**
   * {@link #mightContainAll(byte[], long[], boolean[])} with int offsets.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing, non-negative offsets
   * @param results receives the answers; at least n long
   * @return how many keys might be present
   * @throws IllegalArgumentException if the offsets are bad or {@code results} is too short
   * @throws IllegalStateException if the filter is closed
   */
  public long mightContainAll(byte[] packed, int[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        call(h -> AbloomNative.jab_test_packed32(h, packed, packed.length, offsets, n, results)),
        "mightContainAll");
  }

  /**
   * Tests keys packed in a <b>direct</b> buffer (as {@link #putAll(ByteBuffer, long[])}).
   *
   * @param packed a direct buffer
   * @param offsets n + 1 non-decreasing offsets, relative to the position
   * @param results receives the answers; at least n long
   * @return how many keys might be present
   * @throws IllegalArgumentException if the buffer is not direct or the offsets are bad
   * @throws IllegalStateException if the filter is closed
   */
  public long mightContainAll(ByteBuffer packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    requireDirect(packed);
    long rc =
        call(
            h ->
                AbloomNative.jab_test_packed_direct(
                    h, packed, packed.position(), packed.remaining(), offsets, n, results));
    Reference.reachabilityFence(packed);
    return counted(rc, "mightContainAll");
  }

  /**
   * Tests every key of a list in one native call.
   *
   * @param keys the keys; no element may be null
   * @return one answer per key, in list order
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return mightContainAll(p.bytes, p.offsets);
  }

  /**
   * Tests long keys (each its 8 little-endian bytes) in one native call.
   *
   * @param keys the keys
   * @return one answer per key
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(long[] keys) {
    boolean[] results = new boolean[keys.length];
    counted(
        call(h -> AbloomNative.jab_test_longs(h, keys, keys.length, results)), "mightContainAll");
    return results;
  }

  /**
   * {@link #putIfAbsent(byte[])} of n packed keys (as {@link #putAll(byte[], long[])}), in order,
   * in one native call: answer i is true where key i was definitely absent before (new, now
   * added), false where it was already there (added before, by an earlier key of this batch, or a
   * false positive). The answers and the bits are those of n calls of putIfAbsent; the batch is
   * tested in bulk first (its blocks prefetched), then only the keys not found are added, so
   * deduplicating a stream of mostly repeated keys costs about what {@link
   * #mightContainAll(byte[], long[])} does.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets into {@code packed}
   * @return n answers: true where a key was new
   * @throws IllegalArgumentException if the offsets are empty, decrease or leave the array (then
   *     nothing is added)
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] putAllIfAbsent(byte[] packed, long[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    putAllIfAbsent(packed, offsets, results);
    return results;
  }

  /**
   * {@link #putAllIfAbsent(byte[], long[])} into a caller's array (no allocation).
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets into {@code packed}
   * @param results receives answer i (true: key i was new) at index i; at least n long; left
   *     alone on error
   * @return how many of the keys were new (the number of true answers)
   * @throws IllegalArgumentException if the offsets are bad or {@code results} is too short (then
   *     nothing is added)
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public long putAllIfAbsent(byte[] packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        callAdding(
            h -> AbloomNative.jab_test_and_add_packed(h, packed, packed.length, offsets, n, results)),
        "putAllIfAbsent");
  }

  /**
   * {@link #putAllIfAbsent(byte[], long[])} for every key of a list (the keys are first copied
   * into one packed array).
   *
   * @param keys the keys; no element may be null; at most 2 GiB in all
   * @return one answer per key, in list order: true where the key was new
   * @throws IllegalArgumentException if the keys total more than 2 GiB
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] putAllIfAbsent(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return putAllIfAbsent(p.bytes, p.offsets);
  }

  /**
   * {@link #putAllIfAbsent(byte[], long[])} for long keys (each its 8 little-endian bytes, as
   * {@link #putIfAbsent(long)}).
   *
   * @param keys the keys
   * @return one answer per key: true where the key was new
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] putAllIfAbsent(long[] keys) {
    boolean[] results = new boolean[keys.length];
    counted(
        callAdding(h -> AbloomNative.jab_test_and_add_longs(h, keys, keys.length, results)),
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
    if (!compatible(other)) {
      throw new IllegalArgumentException(
          "abloom: "
              + what
              + ": filters of different shapes (kind, layout, bits, shards, k and seed must"
              + " match): "
              + shape()
              + " vs "
              + other.shape());
    }
  }

  /**
   * Union (Guava's {@code putAll(BloomFilter)}): afterwards this filter answers true for every
   * key of either. Safe while other threads add to either filter.
   *
   * <p>Growing filters combine stage by stage, when both were made with the same options: this
   * filter first grows to {@code other}'s stage count, then each stage takes the other's bits and
   * count of keys. A stage may so end with more keys than its capacity, and the chain's fpp above
   * its target ({@link #expectedFpp()} says by how much): growing filters meant to be combined
   * should each hold fewer keys than the stages they share take, or be filled as one (threads of
   * one process add to one growing filter at once rather than each to a copy).
   *
   * @param other a compatible filter (see {@link #isCompatible}); may be this filter
   * @throws IllegalArgumentException if the shapes differ (also a growing filter and a fixed one,
   *     or growing filters made with different options), or this growing filter cannot grow to
   *     {@code other}'s stages
   * @throws IllegalStateException if either filter is closed
   */
  public void putAll(BloomFilter other) {
    requireCompatible(other, "putAll");
    combine(other, true);
  }

  /**
   * Intersection: this filter keeps only the bits set in both, an over-approximation of the keys
   * in both (it may answer true for a key in only one of them). Not for growing filters: a key
   * two chains hold may sit in different stages of each, and a stage-by-stage intersection would
   * lose it (a false negative).
   *
   * @param other a compatible filter
   * @throws IllegalArgumentException if the shapes differ
   * @throws UnsupportedOperationException if either filter is growing
   * @throws IllegalStateException if either filter is closed
   */
  public void intersect(BloomFilter other) {
    handle.checkOpen();
    other.handle.checkOpen();
    if (growing || other.growing) {
      throw new UnsupportedOperationException(
          "abloom: intersect: not supported for growing filters (a key two chains hold may sit"
              + " in different stages of each, so a stage-by-stage intersection would lose it)");
    }
    requireCompatible(other, "intersect");
    combine(other, false);
  }

  private void combine(BloomFilter other, boolean union) {
    // Both pointers guarded: each call() keeps its own filter reachable.
    int rc =
        callAdding(
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

  /**
   * How this filter is written now (see {@link BloomFilter#setWriterMode(WriterMode)
   * setWriterMode(io.abloom.WriterMode)}).
   *
   * @return the writer mode
   * @throws IllegalStateException if the filter is closed
   */
  public WriterMode writerMode() {
    return WriterMode.of(call(AbloomNative::abloom_writer_mode));
  }

  /**
   * Clears every bit: the filter is empty again, its shape unchanged.
   *
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public void clear() {
    int rc = call(AbloomNative::abloom_clear);
    if (rc != 0) {
      throw Errors.unchecked(rc, "clear");
    }
  }

  /**
   * A deep copy in newly allocated native memory (writable even if this one is read-only).
   *
   * @return a new filter with the same shape and bits; close it when done
   * @throws IllegalStateException if the filter is closed
   */
  public BloomFilter copy() {
    return BloomFilter.own(call(AbloomNative::jab_clone), "copy");
  }

  // ---- estimates --------------------------------------------------------------------------------

  /**
   * Estimates the number of distinct keys added, from the fraction of set bits (Swamidass and
   * Baldi). Reads every bit: O(size).
   *
   * @return the estimate, rounded; {@code Long.MAX_VALUE} when every bit is set
   * @throws IllegalStateException if the filter is closed
   */
  public long approximateElementCount() {
    double v = call(AbloomNative::jab_estimate_count);
    if (v < 0) {
      throw new IllegalStateException("abloom: abloom_estimate_count failed");
    }
    return v >= 0x1p63 ? Long.MAX_VALUE : Math.round(v);
  }

  /**
   * The probability that a key never added tests true now, from the current fill (Guava's
   * {@code expectedFpp}). Grows as keys are added; compare with {@link #targetFpp()}. Reads
   * every bit: O(size).
   *
   * @return a probability in [0, 1]
   * @throws IllegalStateException if the filter is closed
   */
  public double expectedFpp() {
    double v = call(AbloomNative::jab_estimate_fpr);
    if (v < 0) {
      throw new IllegalStateException("abloom: abloom_estimate_fpr failed");
    }
    return v;
  }

  // ---- serialization ----------------------------------------------------------------------------

  /**
   * The exact size of the serialized form ({@link #toByteArray}, {@link #writeTo}, {@link
   * #save}): a 128-byte header plus bitSize / 8. For a growing filter, the chain's form now
   * (docs/FORMAT.md, "Growing filters": a chain header, a table of the stages and each stage
   * with its own header); it grows as stages are appended.
   *
   * @return bytes
   * @throws IllegalStateException if the filter is closed
   */
  public long serializedSize() {
    if (growing) {
      long n = call(AbloomNative::jab_serialized_size);
      if (n < 0) {
        throw Errors.unchecked(n, "serializedSize");
      }
      return n;
    }
    handle.checkOpen();
    return 128 + bits / 8;
  }

  /**
   * The portable serialized form (docs/FORMAT.md), readable by every abloom binding. Safe while
   * other threads add.
   *
   * @return a new array of {@link #serializedSize()} bytes
   * @throws IllegalStateException if the filter is closed, or does not fit in a Java array (use
   *     {@link #writeTo} or {@link #save})
   */
  public byte[] toByteArray() {
    long size = serializedSize();
    if (size > Packed.MAX_ARRAY) {
      throw new IllegalStateException(
          "abloom: " + size + " bytes do not fit in a Java array; use writeTo or save");
    }
    byte[] out = new byte[(int) size];
    long rc = call(h -> AbloomNative.jab_serialize(h, out, out.length));
    if (growing && rc == AbloomError.TOO_SMALL.code()) {
      return toByteArray(); // another thread appended a stage since the size was read
    }
    if (rc != size) {
      throw Errors.unchecked(rc < 0 ? rc : AbloomError.INTERNAL.code(), "toByteArray");
    }
    return out;
  }

  /**
   * Writes the serialized form to a stream (Guava's {@code writeTo}); the stream is not closed.
   * Any size works (the bytes pass through a 1 MiB buffer). Safe while other threads add.
   *
   * @param out the stream
   * @throws IOException if the stream fails
   * @throws IllegalStateException if the filter is closed
   */
  public void writeTo(OutputStream out) throws IOException {
    FilterFiles.writeTo(this, out);
  }

  /**
   * Saves the filter to a file, crash-safely: a temporary file in the same directory, fsynced,
   * renamed over {@code path}, the directory fsynced. A crash leaves the old file or the new one,
   * complete. Safe while other threads add.
   *
   * @param path the file (default file system)
   * @throws IOException if a file system call fails (e.g. {@link
   *     java.nio.file.NoSuchFileException} for a missing directory)
   * @throws IllegalStateException if the filter is closed
   */
  public void save(Path path) throws IOException {
    byte[] name = FilterFiles.nativePath(path);
    int rc = call(h -> AbloomNative.jab_save(h, name));
    if (rc != 0) {
      throw Errors.checked(rc, "save", path.toString());
    }
  }

}
