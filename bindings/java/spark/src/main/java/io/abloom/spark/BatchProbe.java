package io.abloom.spark;

import io.abloom.BloomFilter;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The rows of a partition whose key might be in a shipped filter, tested in batches: one native
 * call per {@value #BATCH} rows, in which the engine prefetches each key's block ahead of its
 * probe, so memory latency overlaps across keys. A per-row test (the SQL function) waits for each
 * key's cache miss in turn; out of cache that wait is most of its cost. Rows with a null key are
 * dropped (as {@code WHERE f(key)} drops them). Rows are copied while their batch waits (Spark
 * reuses the row objects it hands out).
 */
final class BatchProbe implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {

  private static final long serialVersionUID = 1L;

  static final int BATCH = 4096;

  private final String shippedName;
  private final String source;
  private final KeyType type;
  private final int ordinal;

  BatchProbe(String shippedName, String source, KeyType type, int ordinal) {
    this.shippedName = shippedName;
    this.source = source;
    this.type = type;
    this.ordinal = ordinal;
  }

  @Override
  public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
    return new Hits(rows, LoadedFilters.get(shippedName, source));
  }

  private final class Hits implements Iterator<InternalRow> {
    private final Iterator<InternalRow> in;
    private final BloomFilter filter;
    private final InternalRow[] batch = new InternalRow[BATCH];
    private final KeyBatch keys = new KeyBatch(BATCH, 1 << 16);
    private boolean[] hits = new boolean[0];
    private int size;
    private int next;

    Hits(Iterator<InternalRow> in, BloomFilter filter) {
      this.in = in;
      this.filter = filter;
    }

    @Override
    public boolean hasNext() {
      while (true) {
        while (next < size) {
          if (hits[next]) {
            return true;
          }
          batch[next++] = null;
        }
        if (!in.hasNext()) {
          return false;
        }
        fill();
      }
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      InternalRow r = batch[next];
      batch[next++] = null;
      return r;
    }

    private void fill() {
      size = 0;
      next = 0;
      while (size < BATCH && in.hasNext()) {
        InternalRow row = in.next();
        if (row.isNullAt(ordinal)) {
          continue;
        }
        switch (type) {
          case LONG -> keys.add(row.getLong(ordinal));
          case INT -> keys.add(row.getInt(ordinal));
          case STRING -> keys.add(row.getUTF8String(ordinal));
          case BINARY -> keys.add(row.getBinary(ordinal));
        }
        batch[size++] = row.copy();
      }
      hits = keys.testIn(filter);
    }
  }
}
