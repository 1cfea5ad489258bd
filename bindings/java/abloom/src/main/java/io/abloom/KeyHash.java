package io.abloom;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A key's 64-bit hash for {@link Probe}, as the engine's {@code abloom_hash}: XXH3-64 of the key's
 * bytes with the filter's seed (hash4j's, shaded into the jar). Strings hash their UTF-8 bytes,
 * longs their 8 little-endian bytes. Thread-safe; holds no lock.
 */
final class KeyHash {
  /** Keys up to this many bytes are encoded or copied into a per-thread buffer to be hashed. */
  private static final int SCRATCH_BYTES = 256;

  private static final ThreadLocal<byte[]> SCRATCH =
      ThreadLocal.withInitial(() -> new byte[SCRATCH_BYTES]);

  private final Hasher64 hasher;

  KeyHash(long seed) {
    this.hasher = Hashing.xxh3_64(seed);
  }

  /** The hash of {@code key[offset .. offset + length)}. */
  long hash(byte[] key, int offset, int length) {
    return hasher.hashBytesToLong(key, offset, length);
  }

  /**
   * The hash of a string key's UTF-8 bytes ({@link Probe#hash(String)}, which says why ASCII
   * strings take the two paths that allocate nothing).
   */
  long hash(String key) {
    byte[] own = AsciiStrings.asciiBytes(key);
    if (own != null) {
      return hasher.hashBytesToLong(own, 0, own.length);
    }
    int n = key.length();
    if (n <= SCRATCH_BYTES) {
      byte[] buf = SCRATCH.get();
      // Copy every char and OR them together, then check once: no exit in the loop, which
      // measured faster for "user:" + id keys than stopping at the first non-ASCII char
      // (bench/JOURNAL.md, "The per-row SQL function in Java").
      int or = 0;
      for (int i = 0; i < n; i++) {
        char c = key.charAt(i);
        buf[i] = (byte) c;
        or |= c;
      }
      if (or < 0x80) {
        return hasher.hashBytesToLong(buf, 0, n);
      }
    }
    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
    return hasher.hashBytesToLong(utf8, 0, utf8.length);
  }

  /** The hash of a buffer's remaining bytes; its position is not changed. */
  long hash(ByteBuffer key) {
    int pos = key.position();
    int len = key.remaining();
    if (key.hasArray()) {
      return hasher.hashBytesToLong(key.array(), key.arrayOffset() + pos, len);
    }
    // A direct or read-only buffer: hash4j reads arrays.
    byte[] copy = len <= SCRATCH_BYTES ? SCRATCH.get() : new byte[len];
    key.get(pos, copy, 0, len);
    return hasher.hashBytesToLong(copy, 0, len);
  }

  /** The hash of a long key: of its 8 little-endian bytes. */
  long hash(long key) {
    return hasher.hashLongToLong(key);
  }
}
