package io.abloom.spark;

import io.abloom.AbloomFormatException;
import io.abloom.BloomFilter;

/**
 * The merge step of a build: the union of two serialized partial filters, as serialized bytes
 * again (what Spark moves between tasks; a native filter handle cannot travel). Null stands for
 * "no keys yet" (the zero of the tree aggregation), so empty partitions cost nothing.
 */
final class Partials {

  private Partials() {}

  /**
   * The union of two serialized filters of one shape.
   *
   * @param a a serialized filter, or null
   * @param b a serialized filter, or null
   * @return the union's bytes ({@code a} or {@code b} itself when the other is null)
   * @throws IllegalArgumentException if the shapes differ or the bytes are not a filter
   */
  static byte[] union(byte[] a, byte[] b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    try (BloomFilter x = read(a, "left"); BloomFilter y = read(b, "right")) {
      x.putAll(y); // checks the shapes: IllegalArgumentException naming both
      return x.toByteArray();
    }
  }

  static BloomFilter read(byte[] bytes, String side) {
    try {
      return BloomFilter.fromByteArray(bytes);
    } catch (AbloomFormatException e) {
      throw new IllegalArgumentException(
          "abloom: merge: the " + side + " filter is not a serialized filter: " + e.getMessage(),
          e);
    }
  }
}
