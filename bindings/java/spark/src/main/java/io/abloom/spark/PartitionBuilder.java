package io.abloom.spark;

import io.abloom.BloomFilter;
import io.abloom.WriterMode;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One partition's filter: adds the partition's keys (column 0 of its rows, nulls skipped) into a
 * new filter of the build's shape, in batches through the binding's bulk calls, and returns its
 * serialized bytes, or nothing for a partition without keys (so an empty partition costs no
 * merge).
 *
 * <p>The rows are Spark's internal rows rather than {@code Row}s: a string key is then copied as
 * the UTF-8 bytes Spark already holds, with no decode to a Java {@code String} and re-encode. The
 * filter belongs to this task alone, so it is filled in the binding's exclusive-writer mode (plain
 * stores instead of atomic ones).
 */
final class PartitionBuilder implements FlatMapFunction<Iterator<InternalRow>, byte[]> {

  private static final long serialVersionUID = 1L;

  /** Keys per native call: enough to amortize the JNI crossing and fill the prefetch pipeline. */
  static final int BATCH_KEYS = 8192;

  /** Bytes of packed keys per native call, at most (a longer single key gets its own batch). */
  static final int BATCH_BYTES = 1 << 20;

  private final Shape shape;
  private final KeyType type;

  PartitionBuilder(Shape shape, KeyType type) {
    this.shape = shape;
    this.type = type;
  }

  @Override
  public Iterator<byte[]> call(Iterator<InternalRow> rows) {
    if (!rows.hasNext()) {
      return Collections.emptyIterator();
    }
    try (BloomFilter f = shape.create()) {
      f.setWriterMode(WriterMode.EXCLUSIVE);
      long keys =
          switch (type) {
            case LONG, INT -> addLongs(f, rows, type == KeyType.INT);
            case STRING, BINARY -> addBytes(f, rows, type == KeyType.STRING);
          };
      if (keys == 0) {
        return Collections.emptyIterator();
      }
      return Collections.singletonList(f.toByteArray()).iterator();
    }
  }

  private static long addLongs(BloomFilter f, Iterator<InternalRow> rows, boolean ints) {
    long[] batch = new long[BATCH_KEYS];
    int n = 0;
    long total = 0;
    while (rows.hasNext()) {
      InternalRow row = rows.next();
      if (row.isNullAt(0)) {
        continue;
      }
      batch[n++] = ints ? row.getInt(0) : row.getLong(0);
      if (n == batch.length) {
        f.putAll(batch);
        total += n;
        n = 0;
      }
    }
    if (n > 0) {
      f.putAll(Arrays.copyOf(batch, n));
      total += n;
    }
    return total;
  }

  private static long addBytes(BloomFilter f, Iterator<InternalRow> rows, boolean strings) {
    byte[] packed = new byte[BATCH_BYTES];
    int[] offsets = new int[BATCH_KEYS + 1];
    int n = 0;
    int used = 0;
    long total = 0;
    while (rows.hasNext()) {
      InternalRow row = rows.next();
      if (row.isNullAt(0)) {
        continue;
      }
      UTF8String s = strings ? row.getUTF8String(0) : null;
      byte[] b = strings ? null : row.getBinary(0);
      int len = strings ? s.numBytes() : b.length;
      if (used + len > packed.length && n > 0) {
        f.putAll(packed, Arrays.copyOf(offsets, n + 1));
        total += n;
        n = 0;
        used = 0;
      }
      if (len > packed.length) {
        packed = new byte[len];
      }
      if (strings) {
        s.writeToMemory(packed, Platform.BYTE_ARRAY_OFFSET + used);
      } else {
        System.arraycopy(b, 0, packed, used, len);
      }
      used += len;
      offsets[++n] = used;
      if (n == BATCH_KEYS) {
        f.putAll(packed, offsets);
        total += n;
        n = 0;
        used = 0;
      }
    }
    if (n > 0) {
      f.putAll(packed, Arrays.copyOf(offsets, n + 1));
      total += n;
    }
    return total;
  }
}
