package io.abloom;

import java.nio.ByteBuffer;

/**
 * The blocked kind's split layout, for {@link Probe}: one bit in each of k consecutive 32-bit
 * words (lanes) of the key's 512-bit block, from a hashed start s: lane s + j (mod 16) holds bit
 * {@code (h2 * C^(lane + 1)) >>> 27}, and s is {@code (h2 * C^17) >>> 28} (capi/abloom_layout.h;
 * C is {@link DistinctProbe#PROBE_MUL}).
 */
final class SplitProbe {
  private SplitProbe() {}

  /** P[j] = C^j mod 2^32: the split layout uses C^(w+1) for word w and C^17 for the start. */
  private static final int[] POWERS = new int[18];

  static {
    int x = 1;
    for (int i = 0; i < POWERS.length; i++) {
      POWERS[i] = x;
      x *= DistinctProbe.PROBE_MUL;
    }
  }

  /**
   * Whether all of the key's bits are set in the block at {@code base} or at {@code block} of
   * {@code b} (as {@link DistinctProbe#test} takes them).
   *
   * <p>Unrolled, one case per lane and entered at the key's k-th lane from the end, with 32-bit
   * loads of the lanes themselves: at 1M and 100M keys that took 20% less time than a loop over j
   * with 64-bit loads (fewer instructions per key, so more keys' misses overlap; bench/JOURNAL.md,
   * "Java: the split test unrolled over 32-bit lanes"). Branch-free: the lanes' clear bits are
   * ORed and checked once. Stopping at the first clear lane mispredicts on about half the absent
   * keys, and each mispredict throws away the next keys' loads already in flight: in cache the
   * branch-free test measured faster, out of cache the two were within the noise (bench/JOURNAL.md,
   * "Java: the split test without early exits").
   */
  @SuppressWarnings("fallthrough")
  static boolean test(long base, ByteBuffer b, int block, int h2, int k) {
    int s = (h2 * POWERS[17]) >>> 28;
    int miss = 0;
    switch (k) {
      case 16:
        miss |= laneMiss(base, b, block, h2, s + 15);
      case 15:
        miss |= laneMiss(base, b, block, h2, s + 14);
      case 14:
        miss |= laneMiss(base, b, block, h2, s + 13);
      case 13:
        miss |= laneMiss(base, b, block, h2, s + 12);
      case 12:
        miss |= laneMiss(base, b, block, h2, s + 11);
      case 11:
        miss |= laneMiss(base, b, block, h2, s + 10);
      case 10:
        miss |= laneMiss(base, b, block, h2, s + 9);
      case 9:
        miss |= laneMiss(base, b, block, h2, s + 8);
      case 8:
        miss |= laneMiss(base, b, block, h2, s + 7);
      case 7:
        miss |= laneMiss(base, b, block, h2, s + 6);
      case 6:
        miss |= laneMiss(base, b, block, h2, s + 5);
      case 5:
        miss |= laneMiss(base, b, block, h2, s + 4);
      case 4:
        miss |= laneMiss(base, b, block, h2, s + 3);
      case 3:
        miss |= laneMiss(base, b, block, h2, s + 2);
      case 2:
        miss |= laneMiss(base, b, block, h2, s + 1);
      case 1:
        miss |= laneMiss(base, b, block, h2, s + 0);
        return miss == 0;
      default:
        throw new AssertionError("split k " + k); // Layout.check allows 1..16
    }
  }

  /** The key's bit in split lane {@code lane} where it is clear in the word, else 0. */
  private static int laneMiss(long base, ByteBuffer b, int block, int h2, int lane) {
    int bit = 1 << ((h2 * LANE_MUL[lane]) >>> 27);
    int word = ShardMemory.loadInt(base, b, block, LANE_AT[lane]);
    return bit & ~word;
  }

  /** LANE_MUL[i] = C^((i mod 16) + 1): lane i's multiplier, for lanes s + j < 32. */
  private static final int[] LANE_MUL = new int[32];

  /** LANE_AT[i] = (i mod 16) * 4: lane i's byte offset in its block. */
  private static final int[] LANE_AT = new int[32];

  static {
    for (int i = 0; i < 32; i++) {
      LANE_MUL[i] = POWERS[(i & 15) + 1];
      LANE_AT[i] = (i & 15) << 2;
    }
  }

  /**
   * Sets the key's bits in the block at byte {@code block} of chunk {@code c}: whether one was
   * clear.
   */
  static boolean add(ShardMemory mem, int c, int block, int h2, int k, boolean exclusive) {
    boolean fresh = false;
    // Split: the k words from s, two 32-bit words per 64-bit word. A 64-bit word gets one OR
    // with both of its halves' bits, as the engine's mask does.
    int s = (h2 * POWERS[17]) >>> 28;
    long pending = 0;
    int pendingWord = -1;
    for (int j = 0; j < k; j++) {
      int w = (s + j) & 15;
      int word = w >>> 1;
      long bit = 1L << (32 * (w & 1) + ((h2 * POWERS[w + 1]) >>> 27));
      if (word != pendingWord && pendingWord >= 0) {
        fresh |= mem.set(c, block + (pendingWord << 3), pending, exclusive);
        pending = 0;
      }
      pendingWord = word;
      pending |= bit;
    }
    if (pendingWord >= 0) {
      fresh |= mem.set(c, block + (pendingWord << 3), pending, exclusive);
    }
    return fresh;
  }
}
