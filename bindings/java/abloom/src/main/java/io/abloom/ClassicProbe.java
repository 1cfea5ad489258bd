package io.abloom;

/**
 * The classic kind, for {@link Probe}: k bits over the whole shard by enhanced double hashing, bit
 * i at mulhi64(x_i, bitsPerShard) with x_0 = h &lt;&lt; shardBits, x_(i+1) = x_i + y_i, y_0 = h *
 * G, y_(i+1) = y_i + (i + 1) * G (core/layout/layout.hpp).
 */
final class ClassicProbe {
  private ClassicProbe() {}

  /** G: the classic kind's double-hashing step. */
  private static final long GOLDEN64 = 0x9E3779B97F4A7C15L;

  /** Whether every bit of hash {@code h} is set in shard {@code shard}; stops at a clear one. */
  static boolean test(ShardMemory mem, long shard, long h, int k) {
    long x = h << mem.shardBits;
    long y = h * GOLDEN64;
    for (int i = 0; i < k; i++) {
      long pos = Math.multiplyHigh(x, mem.bitsPerShard) + ((x >> 63) & mem.bitsPerShard);
      long at = (pos >>> 6) << 3;
      if ((mem.load(mem.chunk(shard, at), (int) at & mem.chunkMask) & (1L << pos)) == 0) {
        return false;
      }
      x += y;
      y += (i + 1) * GOLDEN64;
    }
    return true;
  }

  /** Sets the bits of hash {@code h} in shard {@code shard}; whether one was clear. */
  static boolean add(ShardMemory mem, long shard, long h, int k, boolean exclusive) {
    long x = h << mem.shardBits;
    long y = h * GOLDEN64;
    boolean fresh = false;
    for (int i = 0; i < k; i++) {
      long pos = Math.multiplyHigh(x, mem.bitsPerShard) + ((x >> 63) & mem.bitsPerShard);
      long at = (pos >>> 6) << 3;
      fresh |= mem.set(mem.chunk(shard, at), (int) at & mem.chunkMask, 1L << pos, exclusive);
      x += y;
      y += (i + 1) * GOLDEN64;
    }
    return fresh;
  }
}
