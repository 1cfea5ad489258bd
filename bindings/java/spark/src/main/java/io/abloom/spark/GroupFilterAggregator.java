package io.abloom.spark;

import io.abloom.BloomFilter;
import io.abloom.WriterMode;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;

/**
 * One filter per group, as an aggregate function ({@link AbloomSpark#aggregate}): {@code
 * df.groupBy(g).agg(f.apply(col(k)))} gives each group's filter as its serialized bytes, bit for
 * bit the filter one process builds by adding the group's non-null keys to {@code shape.create()}.
 *
 * <p>Spark keeps a group's buffer ({@link Partial}) as an object while a task adds its rows, and
 * serializes it only between stages; the buffer holds a native filter of the shape, filled in the
 * exclusive-writer mode (a buffer belongs to one task) through the bulk calls (keys are queued
 * and added {@value #BATCH} at a time). Buffers merge by union. Each group holds a whole filter of
 * the shape while it aggregates: size the shape for a group, not for the table.
 *
 * @param <K> the input's Java type: {@code Long}, {@code Integer}, {@code String} or {@code
 *     byte[]}
 */
final class GroupFilterAggregator<K> extends Aggregator<K, GroupFilterAggregator.Partial, byte[]> {

  private static final long serialVersionUID = 1L;

  /** Keys queued before one bulk call. */
  static final int BATCH = 4096;

  private final Shape shape;
  private final KeyType type;
  private final Encoder<K> input;

  private GroupFilterAggregator(Shape shape, KeyType type, Encoder<K> input) {
    this.shape = shape;
    this.type = type;
    this.input = input;
  }

  /** The aggregator for a key type, with the encoder of its input. */
  static GroupFilterAggregator<?> of(Shape shape, KeyType type) {
    return switch (type) {
      case LONG -> new GroupFilterAggregator<>(shape, type, Encoders.LONG());
      case INT -> new GroupFilterAggregator<>(shape, type, Encoders.INT());
      case STRING -> new GroupFilterAggregator<>(shape, type, Encoders.STRING());
      case BINARY -> new GroupFilterAggregator<>(shape, type, Encoders.BINARY());
    };
  }

  /** The encoder Spark converts the input column with. */
  Encoder<K> inputEncoder() {
    return input;
  }

  @Override
  public Partial zero() {
    return new Partial(shape);
  }

  @Override
  public Partial reduce(Partial b, K key) {
    if (key != null) {
      switch (type) {
        case LONG -> b.add((Long) key);
        case INT -> b.add((long) (Integer) key);
        case STRING -> b.add(((String) key).getBytes(StandardCharsets.UTF_8));
        case BINARY -> b.add((byte[]) key);
      }
    }
    return b;
  }

  @Override
  public Partial merge(Partial b1, Partial b2) {
    return b1.absorb(b2);
  }

  @Override
  public byte[] finish(Partial reduction) {
    return reduction.finish();
  }

  @Override
  public Encoder<Partial> bufferEncoder() {
    return Encoders.javaSerialization(Partial.class);
  }

  @Override
  public Encoder<byte[]> outputEncoder() {
    return Encoders.BINARY();
  }

  /**
   * A group's filter while it aggregates: created at its first key, with keys queued for the next
   * bulk call. Serialized (between stages) as the filter's bytes; a buffer with no key yet
   * serializes as nothing and becomes the empty filter of the shape at the end. Public only because
   * Spark encodes buffers of public classes alone; not an API.
   */
  public static final class Partial implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Bytes of packed keys per bulk call, at most (a longer single key gets its own call). */
    private static final int BATCH_BYTES = 1 << 16;

    private final Shape shape;
    private transient BloomFilter filter;
    private transient KeyBatch queued;

    Partial(Shape shape) {
      this.shape = shape;
    }

    private BloomFilter filter() {
      if (filter == null) {
        filter = shape.create();
        filter.setWriterMode(WriterMode.EXCLUSIVE); // one task owns a buffer
      }
      return filter;
    }

    private KeyBatch queued() {
      if (queued == null) {
        queued = new KeyBatch(BATCH, BATCH_BYTES);
      }
      return queued;
    }

    void add(long key) {
      queued().add(key);
      if (queued.isFull()) {
        flush();
      }
    }

    void add(byte[] key) {
      KeyBatch q = queued();
      if (!q.fits(key.length)) {
        flush();
      }
      q.add(key);
      if (q.isFull()) {
        flush();
      }
    }

    private void flush() {
      if (queued != null && queued.size() > 0) {
        queued.putInto(filter());
      }
    }

    /** The union of this and {@code other} (of the same shape), here; other is spent. */
    Partial absorb(Partial other) {
      other.flush();
      flush();
      if (other.filter == null) {
        return this;
      }
      if (filter == null) {
        filter = other.filter;
      } else {
        filter.putAll(other.filter);
        other.filter.close();
      }
      other.filter = null;
      return this;
    }

    /** The group's filter as its bytes; frees the native filter. */
    byte[] finish() {
      flush();
      if (filter == null) {
        try (BloomFilter empty = shape.create()) {
          return empty.toByteArray();
        }
      }
      try {
        return filter.toByteArray();
      } finally {
        filter.close();
        filter = null;
      }
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
      flush();
      out.defaultWriteObject();
      out.writeObject(filter == null ? null : filter.toByteArray());
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      byte[] bytes = (byte[]) in.readObject();
      if (bytes != null) {
        filter = Partials.read(bytes, "aggregate buffer");
        filter.setWriterMode(WriterMode.EXCLUSIVE);
      }
    }
  }
}
