package io.abloom.spark;

import io.abloom.BloomFilter;
import io.abloom.WriterMode;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
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
      long keys = addKeys(f, rows);
      if (keys == 0) {
        return Collections.emptyIterator();
      }
      return Collections.singletonList(f.toByteArray()).iterator();
    }
  }

  private long addKeys(BloomFilter f, Iterator<InternalRow> rows) {
    KeyBatch batch = new KeyBatch(BATCH_KEYS, BATCH_BYTES);
    long total = 0;
    while (rows.hasNext()) {
      InternalRow row = rows.next();
      if (row.isNullAt(0)) {
        continue;
      }
      switch (type) {
        case LONG -> batch.add(row.getLong(0));
        case INT -> batch.add(row.getInt(0));
        case STRING -> {
          UTF8String s = row.getUTF8String(0);
          total += batch.fits(s.numBytes()) ? 0 : batch.putInto(f);
          batch.add(s);
        }
        case BINARY -> {
          byte[] b = row.getBinary(0);
          total += batch.fits(b.length) ? 0 : batch.putInto(f);
          batch.add(b);
        }
      }
      if (batch.isFull()) {
        total += batch.putInto(f);
      }
    }
    return total + batch.putInto(f);
  }
}
