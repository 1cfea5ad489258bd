package io.abloom;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The format's key-to-bits mapping in Java: the hash, and the test and add of every kind and
 * layout, over a filter's 64-bit words held in direct {@link ByteBuffer}s. {@link BloomFilter}
 * runs its single-key calls through it over the engine's own memory (no JNI call per key), and
 * the Spark module over a mapped file; applications need not use it.
 *
 * <p><b>The specification it follows</b> is capi/abloom_layout.h, the one definition of every
 * kind and layout, which the engine includes (docs/FORMAT.md, "Body", says it in words, and
 * tests/vectors/ pins it): shard = top shard_bits bits of h = XXH3-64(key, seed); block =
 * mulhi64(h &lt;&lt; shard_bits, blocks); the blocked kind's candidates (h2 * C^j) &gt;&gt;&gt; 23
 * of the block (the first k distinct ones), the split layout's one bit in each of k consecutive
 * 32-bit words, the half layout's one bit in each 32-bit word of one half of the block, the
 * classic kind's enhanced double hashing over the shard. Tests check every answer and every bit
 * an add sets against the engine's, and the hash against {@code abloom_hash}, bit for bit.
 *
 * <p><b>Memory.</b> Shard s, byte b lives in {@code chunks[s * chunksPerShard + (b >>>
 * chunkShift)]} at {@code b & (2^chunkShift - 1)}: a buffer holds under 2 GiB, so shards larger
 * than 2^chunkShift bytes span several buffers, each a whole number of 64-byte blocks. Words are
 * read with one aligned 64-bit load each and set with {@code
 * getAndBitwiseOr}, the same relaxed atomic OR as the engine's, after a load that skips words
 * whose bits are all set already (as the engine does, so shared cache lines stay clean). In
 * exclusive writer mode a word is loaded, ORed and stored (opaque), as the engine then does. So
 * this class and the engine's own calls may run on one filter at once from any threads.
 *
 * <p>Thread-safe; holds no lock. It never frees or unmaps anything: whoever made the buffers
 * keeps them valid while a call can reach them (see {@link BloomFilter#close()}).
 */
public final class Probe {
  /** The largest chunk: 2^30 bytes, a whole number of blocks under the 2 GiB buffer limit. */
  public static final int MAX_CHUNK_SHIFT = 30;

  // Which probe a filter's kind and layout take: one switch per call, to static methods the JIT
  // inlines (a call through an interface would see three classes in a process with every kind).
  private static final int DISTINCT = 0;
  private static final int SPLIT = 1;
  private static final int CLASSIC = 2;
  private static final int HALF = 3;

  private final ShardMemory memory;
  private final KeyHash keys;
  private final int shift; // 63 - shardBits: a key's shard is (h >>> 1) >>> shift
  private final int k;
  private final int probe;

  private Probe(ShardMemory memory, BloomFilter.Kind kind, Layout layout, int k, long seed) {
    this.memory = memory;
    this.keys = new KeyHash(seed);
    this.shift = 63 - memory.shardBits;
    this.k = k;
    probe = kind == BloomFilter.Kind.CLASSIC ? CLASSIC : blockedProbe(layout, k);
  }

  /**
   * The probe of a blocked layout. Every layout is named: a layout read as another would test
   * and set other bits than the engine's, so wrong answers, never an error. The switch has no
   * default, so a layout added to {@link Layout} without a probe here does not compile.
   */
  private static int blockedProbe(Layout layout, int k) {
    return switch (Objects.requireNonNull(layout, "layout")) {
      case DISTINCT -> DISTINCT;
      case SPLIT -> SPLIT;
      case HALF -> {
        // The half probe sets its fixed 8 bits whatever k says: a shape claiming another k is
        // not one the engine makes (it refuses such options and files).
        if (k != Layout.HALF_K) {
          throw new IllegalArgumentException(
              "abloom: Layout.HALF has " + Layout.HALF_K + " hash functions, got " + k);
        }
        yield HALF;
      }
    };
  }

  /**
   * The number of buffers each shard takes with chunks of 2^chunkShift bytes.
   *
   * @param blocksPerShard 64-byte blocks in each shard
   * @param chunkShift log2 of the chunk size, 6 to {@link #MAX_CHUNK_SHIFT}
   * @return ceil(blocksPerShard * 64 / 2^chunkShift)
   */
  public static int chunksPerShard(long blocksPerShard, int chunkShift) {
    return ShardMemory.chunksPerShard(blocksPerShard, chunkShift);
  }

  /**
   * A probe over a filter's words. The shape must be the filter's own ({@link BloomFilter}'s
   * accessors give it); each buffer must be direct and hold exactly its part of its shard:
   * {@code min(2^chunkShift, shardBytes - c * 2^chunkShift)} bytes for chunk c of a shard.
   *
   * @param chunks the shards' memory, shard after shard, {@link #chunksPerShard} buffers each
   * @param chunkShift log2 of the chunk size, 6 to {@link #MAX_CHUNK_SHIFT}
   * @param shape a filter of the same shape (kind, layout, k, shards, blocks, seed); only its
   *     shape is read
   * @return the probe
   * @throws IllegalArgumentException if the buffers do not match the shape
   * @throws UnsupportedOperationException if {@code shape} is a growing filter (a chain of
   *     stages, each of its own shape)
   */
  public static Probe over(ByteBuffer[] chunks, int chunkShift, BloomFilter shape) {
    if (shape.isGrowing()) {
      throw new UnsupportedOperationException(
          "abloom: Probe.over: a growing filter is a chain of stages of different shapes, not"
              + " one shape");
    }
    return of(
        chunks,
        chunkShift,
        shape.kind(),
        shape.layout(),
        shape.hashFunctions(),
        shape.shards(),
        shape.bitSize() / shape.shards() / 512,
        shape.seed());
  }

  static Probe of(
      ByteBuffer[] chunks,
      int chunkShift,
      BloomFilter.Kind kind,
      Layout layout,
      int k,
      int shards,
      long blocksPerShard,
      long seed) {
    Objects.requireNonNull(kind, "kind");
    ShardMemory memory = ShardMemory.of(chunks, chunkShift, shards, blocksPerShard);
    return new Probe(memory, kind, layout, k, seed);
  }

  // ---- hashing ------------------------------------------------------------------------------

  /**
   * The key's 64-bit hash, as the engine's {@code abloom_hash}: XXH3-64 of the bytes with the
   * filter's seed.
   *
   * @param key the array holding the key
   * @param offset where the key starts
   * @param length its length in bytes
   * @return the hash
   */
  public long hash(byte[] key, int offset, int length) {
    return keys.hash(key, offset, length);
  }

  /**
   * The hash of a string key: of its UTF-8 bytes ({@link String#getBytes} with UTF-8, malformed
   * surrogates as '?'). An ASCII string's bytes are hashed where the string keeps them, when
   * {@link AsciiStrings} can read them (JDK 17 to 23); otherwise ASCII strings of up to 256
   * characters are copied into a per-thread buffer rather than encoded into a new array: the
   * allocation, 32 bytes per call for a short key, cost more than the test itself once the young
   * generation had to grow.
   *
   * @param key the key
   * @return the hash
   */
  public long hash(String key) {
    return keys.hash(key);
  }

  /**
   * The hash of a buffer's remaining bytes; its position is not changed.
   *
   * @param key the key
   * @return the hash
   */
  public long hash(ByteBuffer key) {
    return keys.hash(key);
  }

  /**
   * The hash of a long key: of its 8 little-endian bytes.
   *
   * @param key the key
   * @return the hash
   */
  public long hash(long key) {
    return keys.hash(key);
  }

  // ---- tests and adds -----------------------------------------------------------------------

  /**
   * Whether every bit of hash {@code h} is set.
   *
   * @param h a key's hash ({@link #hash})
   * @return false if the key is definitely absent
   */
  public boolean test(long h) {
    long shard = (h >>> 1) >>> shift;
    boolean found;
    if (probe == CLASSIC) {
      found = ClassicProbe.test(memory, shard, h, k);
    } else {
      ShardMemory m = memory;
      long at = m.blockByte(h);
      int c = m.chunk(shard, at);
      int block = (int) at & m.chunkMask;
      // One array load: the address or the buffer, whichever loads go through.
      long base = m.base(c, block);
      ByteBuffer b = m.buffer(c);
      int h2 = (int) h | 1;
      switch (probe) {
        case DISTINCT -> found = DistinctProbe.test(base, b, block, h2, k);
        case SPLIT -> found = SplitProbe.test(base, b, block, h2, k);
        case HALF -> found = HalfProbe.test(base, b, block, h);
        default -> throw new AssertionError("probe " + probe); // set by the constructor only
      }
    }
    Reference.reachabilityFence(this); // the buffers stay valid until the loads are done
    return found;
  }

  /**
   * Sets the bits of hash {@code h}, exactly the engine's. The buffers must be writable.
   *
   * @param h a key's hash ({@link #hash})
   * @param exclusive the filter is in exclusive writer mode (one writing thread): plain stores
   * @return whether some bit was clear before (the key was definitely new)
   */
  public boolean add(long h, boolean exclusive) {
    // A key whose bits are all set already (a repeat, the common case when deduplicating)
    // needs no write: the test's shorter code costs less than the add's walk
    // over every word (at 100M keys a put of a present key took 1.5x a test without this).
    if (test(h)) {
      return false;
    }
    long shard = (h >>> 1) >>> shift;
    boolean fresh;
    if (probe == CLASSIC) {
      fresh = ClassicProbe.add(memory, shard, h, k, exclusive);
    } else {
      ShardMemory m = memory;
      long at = m.blockByte(h);
      int c = m.chunk(shard, at);
      int block = (int) at & m.chunkMask;
      int h2 = (int) h | 1;
      switch (probe) {
        case DISTINCT -> fresh = DistinctProbe.add(m, c, block, h2, k, exclusive);
        case SPLIT -> fresh = SplitProbe.add(m, c, block, h2, k, exclusive);
        case HALF -> fresh = HalfProbe.add(m, c, block, h, exclusive);
        default -> throw new AssertionError("probe " + probe);
      }
    }
    Reference.reachabilityFence(this);
    return fresh;
  }
}
