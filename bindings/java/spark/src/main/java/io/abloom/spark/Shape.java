package io.abloom.spark;

import io.abloom.BloomFilter;
import io.abloom.Layout;
import java.io.Serializable;
import java.util.Objects;

/**
 * The shape every partial filter of one Spark build shares: capacity, target false-positive
 * rate, seed, shard count and layout. The Java binding's builder derives bits and k (and the
 * layout, when it is left to the library) from these deterministically, so every executor that
 * calls {@link #create()} gets a filter of the same shape, and the partial filters can be merged
 * by union. Immutable and serializable (it travels to the executors inside the tasks).
 *
 * @param expectedKeys the keys the filter is sized for, &gt;= 1
 * @param fpp the target false-positive rate at {@code expectedKeys}, in (0, 1)
 * @param seed the hash seed (the binding's default is 0)
 * @param shards the shard count, a power of two in 1..65536, or 0 to let the library choose (one
 *     per 16 MiB)
 * @param layout the block layout, or null to let the library choose ({@link Layout#SPLIT}
 *     wherever its k, at most 16, is enough: targets down to about 1e-6; {@link Layout#DISTINCT}
 *     below; the built filter's {@link BloomFilter#layout()} says which). {@link Layout#HALF} is
 *     never chosen: ask for it with {@link #withLayout}; its k is always 8
 */
public record Shape(long expectedKeys, double fpp, long seed, int shards, Layout layout)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /**
   * Checks the arguments.
   *
   * @param expectedKeys the keys the filter is sized for
   * @param fpp the target false-positive rate
   * @param seed the hash seed
   * @param shards the shard count, or 0
   * @param layout the layout, or null for the library's choice
   * @throws IllegalArgumentException if {@code expectedKeys} &lt; 1 or {@code fpp} is not in (0,
   *     1) or {@code shards} is negative
   */
  public Shape {
    if (expectedKeys < 1) {
      throw new IllegalArgumentException("abloom: expectedKeys must be >= 1, got " + expectedKeys);
    }
    if (!(fpp > 0.0 && fpp < 1.0)) {
      throw new IllegalArgumentException("abloom: fpp must be in (0, 1), got " + fpp);
    }
    if (shards < 0) {
      throw new IllegalArgumentException("abloom: shards must be >= 0, got " + shards);
    }
  }

  /**
   * The default shape for {@code expectedKeys} at {@code fpp}: seed 0, shards and layout chosen
   * by the library.
   *
   * @param expectedKeys the keys the filter is sized for
   * @param fpp the target false-positive rate
   * @return the shape
   * @throws IllegalArgumentException if an argument is out of range
   */
  public static Shape of(long expectedKeys, double fpp) {
    return new Shape(expectedKeys, fpp, 0L, 0, null);
  }

  /**
   * This shape with another seed.
   *
   * @param newSeed the hash seed
   * @return a new shape
   */
  public Shape withSeed(long newSeed) {
    return new Shape(expectedKeys, fpp, newSeed, shards, layout);
  }

  /**
   * This shape with an explicit shard count.
   *
   * @param newShards a power of two in 1..65536 (checked by {@link #create()})
   * @return a new shape
   */
  public Shape withShards(int newShards) {
    return new Shape(expectedKeys, fpp, seed, newShards, layout);
  }

  /**
   * This shape with another layout, given explicitly instead of left to the library (for
   * example {@link Layout#DISTINCT} for the fewest bits, {@link Layout#HALF} for the fastest adds
   * and tests in cache, or to match filters written with one).
   *
   * @param newLayout the layout
   * @return a new shape
   */
  public Shape withLayout(Layout newLayout) {
    return new Shape(expectedKeys, fpp, seed, shards, Objects.requireNonNull(newLayout, "layout"));
  }

  /**
   * The builder for this shape (add options that do not change the shape, such as threads).
   *
   * @return a builder set to this shape
   */
  public BloomFilter.Builder builder() {
    BloomFilter.Builder b =
        BloomFilter.builder().expectedInsertions(expectedKeys).fpp(fpp).seed(seed);
    if (shards > 0) {
      b.shards(shards);
    }
    if (layout != null) {
      b.layout(layout);
    }
    return b;
  }

  /**
   * A new empty filter of this shape; the caller closes it.
   *
   * @return the filter
   * @throws IllegalArgumentException if the native library rejects the shape (for example a
   *     shard count that is not a power of two, or a filter too large)
   */
  public BloomFilter create() {
    return builder().build();
  }
}
