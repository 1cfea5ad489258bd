package io.abloom;

import java.nio.ByteBuffer;

/**
 * The blocked kind's distinct layout, for {@link Probe}: a key's bits are the first k distinct
 * candidates {@code (h2 * C^j) >>> 23} (j = 1, 2, ...) of its 512-bit block, h2 the key hash's low
 * 32 bits with bit 0 set (capi/abloom_layout.h).
 */
final class DistinctProbe {
  private DistinctProbe() {}

  /** C: candidate j of a blocked key is (h2 * C^j) >>> 23 of its 512-bit block. */
  static final int PROBE_MUL = 0x9E3779B9;

  /**
   * Whether all of the key's bits are set in the block at {@code base} (loads by address) or at
   * {@code block} of {@code b} (buffer loads; see {@link ShardMemory#load(long, ByteBuffer, int,
   * int)}).
   *
   * <p>The first k candidates are all among the key's bits, so a clear one proves absence and the
   * test stops there: out of cache that measured faster than testing all k with one branch
   * at the end, as the C kernels do (bench/JOURNAL.md, "The per-row SQL function in Java", where
   * the loop read 64-bit words; the classic test stops early too, the unrolled split test no
   * longer does: see {@link SplitProbe#test}). When all are set the key is present unless two of
   * them were one bit: {@code maybeRepeat} flags, from registers only, the keys where that may be
   * so, and {@link #mask} then decides exactly.
   */
  static boolean test(long base, ByteBuffer b, int block, int h2, int k) {
    int x = h2;
    long folded = 0;
    long maybeRepeat = 0;
    for (int j = 0; j < k; j++) {
      x *= PROBE_MUL;
      long bit = 1L << (x >>> 23);
      if ((bit & ~ShardMemory.load(base, b, block, (x >>> 29) << 3)) != 0) {
        return false;
      }
      maybeRepeat |= folded & bit;
      folded |= bit;
    }
    if (maybeRepeat == 0) {
      return true;
    }
    long[] m = mask(h2, k);
    for (int w = 0; w < 8; w++) {
      if ((m[w] & ~ShardMemory.load(base, b, block, w << 3)) != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The blocked key's 512-bit mask, word by word: its first k distinct candidates (at most 4k +
   * 64 candidates are looked at), as abloom_layout.h defines them (core/layout/layout.hpp's
   * block_mask).
   */
  static long[] mask(int h2, int k) {
    long[] m = new long[8];
    int set = 0;
    int x = h2;
    int limit = 4 * k + 64;
    for (int j = 1; j <= limit && (j <= k || set < k); j++) {
      x *= PROBE_MUL;
      long bit = 1L << (x >>> 23);
      int w = x >>> 29;
      if ((m[w] & bit) == 0) {
        m[w] |= bit;
        set++;
      }
    }
    return m;
  }

  /**
   * Sets the key's bits in the block at byte {@code block} of chunk {@code c}: whether one was
   * clear.
   */
  static boolean add(ShardMemory mem, int c, int block, int h2, int k, boolean exclusive) {
    long[] m = mask(h2, k);
    boolean fresh = false;
    for (int w = 0; w < 8; w++) {
      if (m[w] != 0) {
        fresh |= mem.set(c, block + (w << 3), m[w], exclusive);
      }
    }
    return fresh;
  }
}
