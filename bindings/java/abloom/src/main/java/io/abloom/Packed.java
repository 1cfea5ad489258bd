package io.abloom;

import java.util.List;
import java.util.Objects;

/** A list of keys copied into one array plus n + 1 offsets. */
final class Packed {
  /** The largest Java array, in bytes, that every JVM allocates. */
  static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  final byte[] bytes;
  final long[] offsets;

  private Packed(byte[] bytes, long[] offsets) {
    this.bytes = bytes;
    this.offsets = offsets;
  }

  static Packed of(List<byte[]> keys) {
    long[] offsets = new long[keys.size() + 1];
    long total = 0;
    int i = 0;
    for (byte[] key : keys) {
      Objects.requireNonNull(key, "abloom: a key in the list is null");
      total += key.length;
      offsets[++i] = total;
    }
    if (i != keys.size()) {
      throw new IllegalStateException("abloom: the list changed while it was read");
    }
    if (total > MAX_ARRAY) {
      throw new IllegalArgumentException(
          "abloom: the keys total " + total + " bytes, over 2 GiB; split the batch");
    }
    byte[] bytes = new byte[(int) total];
    i = 0;
    for (byte[] key : keys) {
      System.arraycopy(key, 0, bytes, (int) offsets[i], key.length);
      i++;
    }
    return new Packed(bytes, offsets);
  }
}
