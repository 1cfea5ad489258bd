package io.abloom.spark;

import io.abloom.BloomFilter;
import io.abloom.Probe;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Per-row tests of a saved filter in Java, with no JNI call per row, through the binding's own
 * probe ({@link io.abloom.Probe}: the format's hash and bit tests) over this class's mapping of
 * the file. Plain loads let the CPU overlap consecutive rows' cache misses, as Spark's own
 * {@code long[]} filter does (bench/JOURNAL.md, "The per-row SQL function in Java").
 *
 * <p>The C engine stays the authority on the file: {@link #of} takes a filter the engine opened
 * (and so validated) from the same file, reads its shape from it, and maps the file again here,
 * checking that the size is the one that shape gives. The mapping is Java's own ({@link
 * java.nio.MappedByteBuffer}s, one or more per shard), unmapped only once unreachable: the probe
 * holds the buffers and stays reachable through each test, so no read can touch an unmapped page
 * however the engine's filter is closed. Read-only; thread-safe.
 *
 * <p>Public only because the code Spark generates for {@code abloom_might_contain} calls it from
 * another class loader's package; not an API.
 */
public final class MappedProbe {

  /** docs/FORMAT.md: the header is 128 bytes and the body starts right after it. */
  static final long HEADER_BYTES = 128;

  private final Probe probe;

  private MappedProbe(Probe probe) {
    this.probe = probe;
  }

  /**
   * Maps {@code file} for per-row tests.
   *
   * @param validated the same file opened by the engine (which checked its header); only its
   *     shape is read, it may be closed afterwards
   * @param file the file
   * @return the probe
   * @throws IOException if the file cannot be mapped, or its size is not the one the validated
   *     shape gives (it changed after the engine opened it)
   */
  public static MappedProbe of(BloomFilter validated, Path file) throws IOException {
    return of(validated, file, Probe.MAX_CHUNK_SHIFT);
  }

  /** {@link #of(BloomFilter, Path)} with mappings of at most 2^chunkShift bytes (6 to 30). */
  static MappedProbe of(BloomFilter validated, Path file, int chunkShift) throws IOException {
    int shards = validated.shards();
    long shardBytes = validated.bitSize() / 8 / shards;
    long blocks = shardBytes / 64;
    int per = Probe.chunksPerShard(blocks, chunkShift);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size != HEADER_BYTES + shardBytes * shards) {
        throw new IOException(
            file
                + ": "
                + size
                + " bytes, but the filter opened from it needs "
                + (HEADER_BYTES + shardBytes * shards)
                + " (the file changed after it was opened)");
      }
      ByteBuffer[] chunks = new ByteBuffer[shards * per];
      for (int s = 0; s < shards; s++) {
        for (int c = 0; c < per; c++) {
          long start = (long) c << chunkShift;
          long len = Math.min(1L << chunkShift, shardBytes - start);
          chunks[s * per + c] =
              ch.map(FileChannel.MapMode.READ_ONLY, HEADER_BYTES + s * shardBytes + start, len);
        }
      }
      return new MappedProbe(Probe.over(chunks, chunkShift, validated));
    }
  }

  /**
   * @param key a 64-bit key (as {@code BloomFilter.put(long)} adds it)
   * @return false if the key is definitely absent
   */
  public boolean mightContain(long key) {
    return probe.test(probe.hash(key));
  }

  /**
   * @param key the key's bytes
   * @return false if the key is definitely absent
   */
  public boolean mightContain(byte[] key) {
    return probe.test(probe.hash(key, 0, key.length));
  }

  /**
   * A string column's value, by its UTF-8 bytes, read in place when they are on the heap.
   *
   * @param key the key
   * @return false if the key is definitely absent
   */
  public boolean mightContain(UTF8String key) {
    if (key.getBaseObject() instanceof byte[] array) {
      long offset = key.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET;
      return probe.test(probe.hash(array, (int) offset, key.numBytes()));
    }
    return mightContain(key.getBytes());
  }
}
