package io.abloom.spark;

import io.abloom.BloomFilter;
import java.util.Arrays;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Keys queued for one bulk call of the Java binding, encoded as {@link KeyType} says: 64-bit keys
 * in a {@code long[]} ({@code putAll(long[])}, {@code mightContainAll(long[])}), byte keys packed
 * end to end with their offsets ({@code putAll(byte[], int[])}, {@code mightContainAll(byte[],
 * int[])}). One batch holds one kind of key (a column has one type). The build, the per-group
 * aggregate and the batched pre-filter all queue their keys here.
 */
final class KeyBatch {

  private final int maxKeys;
  private final int byteBudget;
  private final long[] longs;
  private final int[] offsets;
  private byte[] packed;
  private int count;
  private boolean bytes;

  /**
   * @param maxKeys keys per bulk call
   * @param byteBudget bytes of packed keys per bulk call: {@link #fits} says when the next key
   *     would pass it; the buffer still grows for a key that must join this batch
   */
  KeyBatch(int maxKeys, int byteBudget) {
    this.maxKeys = maxKeys;
    this.byteBudget = byteBudget;
    this.longs = new long[maxKeys];
    this.offsets = new int[maxKeys + 1];
    this.packed = new byte[byteBudget];
  }

  int size() {
    return count;
  }

  boolean isFull() {
    return count == maxKeys;
  }

  /**
   * Whether a byte key of {@code length} can join this batch within its byte budget (always, for
   * an empty batch: a key longer than the budget gets a call of its own).
   */
  boolean fits(int length) {
    return count == 0 || offsets[count] + length <= byteBudget;
  }

  void add(long key) {
    longs[count++] = key;
  }

  void add(byte[] key) {
    int at = reserve(key.length);
    System.arraycopy(key, 0, packed, at, key.length);
  }

  /** A string's UTF-8 bytes, copied from wherever Spark holds them. */
  void add(UTF8String key) {
    int at = reserve(key.numBytes());
    key.writeToMemory(packed, Platform.BYTE_ARRAY_OFFSET + at);
  }

  /** Room for the next packed key of {@code length} bytes; returns where it starts. */
  private int reserve(int length) {
    bytes = true;
    int at = offsets[count];
    if (at + length > packed.length) {
      packed = Arrays.copyOf(packed, Math.max(packed.length * 2, at + length));
    }
    offsets[++count] = at + length;
    return at;
  }

  /** Adds the queued keys to {@code filter} and empties the batch; returns how many there were. */
  int putInto(BloomFilter filter) {
    int n = count;
    if (n > 0) {
      if (bytes) {
        filter.putAll(packed, exactOffsets());
      } else {
        filter.putAll(exactLongs());
      }
    }
    clear();
    return n;
  }

  /** The filter's answer for each queued key, in order; empties the batch. */
  boolean[] testIn(BloomFilter filter) {
    boolean[] hits;
    if (count == 0) {
      hits = new boolean[0];
    } else {
      hits = bytes ? filter.mightContainAll(packed, exactOffsets()) : filter.mightContainAll(exactLongs());
    }
    clear();
    return hits;
  }

  private long[] exactLongs() {
    return count == maxKeys ? longs : Arrays.copyOf(longs, count);
  }

  private int[] exactOffsets() {
    return count == maxKeys ? offsets : Arrays.copyOf(offsets, count + 1);
  }

  private void clear() {
    count = 0;
  }
}
