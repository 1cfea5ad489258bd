package io.abloom;

import java.nio.ByteBuffer;

/**
 * The blocked kind's half layout, for {@link Probe}: one bit in each of the 8 32-bit words of one
 * 32-byte half of the key's 512-bit block, so k is always {@link Layout#HALF_K}
 * (capi/abloom_layout.h, "Half layout"; core/layout/layout.hpp's half_mask). From r = h * G mod
 * 2^64 (G the classic kind's multiplier): the half is bit 32 of r, and 32-bit word w of the half,
 * the low (even w) or high (odd w) half of its 64-bit word w / 2, gets bit {@code ((r << 5 * (w /
 * 2)) >>> 27) & 31} (even w) or {@code (r << 5 * (w / 2)) >>> 59} (odd w).
 *
 * <p>Unlike the other blocked layouts it takes the whole 64-bit hash, not h2: r mixes every bit
 * of h, whose low bits alone would repeat the block index's (the spec's note on
 * abloom_spec_half_r).
 */
final class HalfProbe {
  private HalfProbe() {}

  /** G: r = h * G mod 2^64 (abloom_spec_half_r). */
  private static final long HALF_MUL = 0x9E3779B97F4A7C15L;

  /** The byte offset, in its block, of the key's half: 0 or 32 (bit 32 of r). */
  private static int halfAt(long r) {
    return ((int) (r >>> 32) & 1) << 5;
  }

  /**
   * The key's two bits in 64-bit word {@code i} (0 .. 3) of its half: one in its low 32-bit word
   * (half word 2i) and one in its high one (half word 2i + 1). Each 64-bit word holds exactly two
   * of the key's bits, so a word is one load to test and one OR to set.
   */
  static long wordMask(long r, int i) {
    long x = r << (5 * i);
    // The explicit & 31: a long shift takes its count mod 64, which would let bit 32 of x in.
    return (1L << ((int) (x >>> 27) & 31)) | (1L << (32 + (int) (x >>> 59)));
  }

  /**
   * Whether all of the key's bits are set in the block at {@code base} or at {@code block} of
   * {@code b} (as {@link DistinctProbe#test} takes them).
   *
   * <p>Branch-free, as {@link SplitProbe#test} is and for its reason: the four words' clear bits
   * are ORed and checked once, so an absent key does not mispredict and throw away the next keys'
   * loads already in flight.
   */
  static boolean test(long base, ByteBuffer b, int block, long h) {
    long r = h * HALF_MUL;
    int at = halfAt(r);
    long miss = wordMask(r, 0) & ~ShardMemory.load(base, b, block, at);
    miss |= wordMask(r, 1) & ~ShardMemory.load(base, b, block, at + 8);
    miss |= wordMask(r, 2) & ~ShardMemory.load(base, b, block, at + 16);
    miss |= wordMask(r, 3) & ~ShardMemory.load(base, b, block, at + 24);
    return miss == 0;
  }

  /**
   * Sets the key's bits in the block at byte {@code block} of chunk {@code c}: whether one was
   * clear. Each of the half's four 64-bit words gets one OR of both of its bits, as the engine's
   * mask does.
   */
  static boolean add(ShardMemory mem, int c, int block, long h, boolean exclusive) {
    long r = h * HALF_MUL;
    int at = block + halfAt(r);
    boolean fresh = false;
    for (int i = 0; i < 4; i++) {
      fresh |= mem.set(c, at + (i << 3), wordMask(r, i), exclusive);
    }
    return fresh;
  }
}
