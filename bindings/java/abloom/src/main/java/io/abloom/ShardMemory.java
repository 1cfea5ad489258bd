package io.abloom;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A filter's (or one stage's) shards as {@link Probe} reads and writes them: direct buffers of
 * 2^chunkShift bytes (chunks), where a key's block lies in them, and the loads and stores of their
 * 64-bit words. Shard s, byte b lives in {@code chunks[s * chunksPerShard + (b >>> chunkShift)]} at
 * {@code b & (2^chunkShift - 1)} (see Probe's "Memory"). The probes of each kind and layout
 * ({@link DistinctProbe}, {@link SplitProbe}, {@link HalfProbe}, {@link ClassicProbe}) go through
 * it.
 *
 * <p>Thread-safe; holds no lock. It never frees or unmaps anything: whoever made the buffers keeps
 * them valid while a call can reach them.
 */
final class ShardMemory {
  private static final VarHandle WORDS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final ByteBuffer[] chunks;
  /** Each chunk's address, for {@link #RAW_LOAD} (unused without it). */
  private final long[] addresses;
  private final int chunkShift;
  /** 2^chunkShift - 1: a byte's offset in its chunk. */
  final int chunkMask;
  private final int chunksPerShard;
  private final long blocks; // 64-byte blocks per shard
  /** The bits of a shard (the classic kind's range). */
  final long bitsPerShard;
  /** log2 of the shard count. */
  final int shardBits;

  private ShardMemory(ByteBuffer[] chunks, int chunkShift, int shards, long blocksPerShard) {
    this.chunks = chunks;
    this.addresses = new long[chunks.length];
    if (RAW_LOAD != null) {
      for (int i = 0; i < chunks.length; i++) {
        addresses[i] = addressOf(chunks[i]);
      }
    }
    this.chunkShift = chunkShift;
    this.chunkMask = (int) ((1L << chunkShift) - 1);
    this.chunksPerShard = chunksPerShard(blocksPerShard, chunkShift);
    this.shardBits = Integer.numberOfTrailingZeros(shards);
    this.blocks = blocksPerShard;
    this.bitsPerShard = blocksPerShard * 512;
  }

  /** {@link Probe#chunksPerShard}. */
  static int chunksPerShard(long blocksPerShard, int chunkShift) {
    checkChunkShift(chunkShift);
    long bytes = blocksPerShard << 6;
    long n = (bytes + (1L << chunkShift) - 1) >>> chunkShift;
    if (blocksPerShard <= 0 || n > Integer.MAX_VALUE / 64) {
      throw new IllegalArgumentException("abloom: " + blocksPerShard + " blocks per shard");
    }
    return (int) n;
  }

  private static void checkChunkShift(int chunkShift) {
    if (chunkShift < 6 || chunkShift > Probe.MAX_CHUNK_SHIFT) {
      throw new IllegalArgumentException(
          "abloom: chunkShift " + chunkShift + " outside 6.." + Probe.MAX_CHUNK_SHIFT);
    }
  }

  /**
   * The shards' memory over {@code chunks}, checked against the shape (as {@link Probe#over}
   * documents) and taken as little-endian duplicates (the caller's buffers are not changed).
   */
  static ShardMemory of(ByteBuffer[] chunks, int chunkShift, int shards, long blocksPerShard) {
    int per = chunksPerShard(blocksPerShard, chunkShift);
    if (shards <= 0 || Integer.bitCount(shards) != 1 || chunks.length != (long) shards * per) {
      throw new IllegalArgumentException(
          "abloom: " + chunks.length + " buffers for " + shards + " shards of " + per);
    }
    long shardBytes = blocksPerShard << 6;
    for (int i = 0; i < chunks.length; i++) {
      long start = (long) (i % per) << chunkShift;
      long want = Math.min(1L << chunkShift, shardBytes - start);
      ByteBuffer c = chunks[i];
      if (c == null || !c.isDirect() || c.capacity() != want) {
        throw new IllegalArgumentException(
            "abloom: buffer " + i + " is not a direct buffer of " + want + " bytes");
      }
    }
    ByteBuffer[] own = new ByteBuffer[chunks.length];
    for (int i = 0; i < own.length; i++) {
      own[i] = chunks[i].duplicate().order(ByteOrder.LITTLE_ENDIAN); // the format's order
    }
    return new ShardMemory(own, chunkShift, shards, blocksPerShard);
  }

  // ---- where a key's bits are ---------------------------------------------------------------

  /** The index of the chunk holding byte {@code at} of shard {@code shard}. */
  int chunk(long shard, long at) {
    return (int) shard * chunksPerShard + (int) (at >>> chunkShift);
  }

  /** The byte offset, in its shard, of h's block: mulhi64(h << shardBits, blocks) * 64. */
  long blockByte(long h) {
    // Unsigned multiply-high: blocks < 2^63, so only the sign of the first factor needs the
    // correction.
    long x = h << shardBits;
    return (Math.multiplyHigh(x, blocks) + ((x >> 63) & blocks)) << 6;
  }

  /** The address of byte {@code block} of chunk {@code c} when loads go by address, else 0. */
  long base(int c, int block) {
    return RAW_LOAD != null ? addresses[c] + block : 0;
  }

  /** Chunk {@code c} when loads go through the buffers, else null. */
  ByteBuffer buffer(int c) {
    return RAW_LOAD != null ? null : chunks[c];
  }

  /**
   * One aligned 64-bit load of the word at byte {@code at} of chunk {@code c}.
   *
   * <p>Where the JDK allows it without a warning, by address ({@link #RAW_LOAD}): no bounds or
   * buffer-state check, which out of cache let more keys' misses overlap (the per-row SQL test
   * measured faster so, bench/JOURNAL.md, "The per-row SQL function in Java"). It is safe
   * because every offset the probes form is inside its chunk by construction: a block below
   * {@code blocks} of a shard below the shard count, in chunks whose sizes {@link #of} checked;
   * and every public method of {@link Probe} keeps the probe, hence this memory and its buffers,
   * reachable until its loads are done. Elsewhere, the little-endian buffer's own {@code getLong}
   * (a single load; faster than a {@link VarHandle} view, whose access-mode checks the JIT did
   * not hoist).
   */
  long load(int c, int at) {
    return RAW_LOAD != null ? raw(addresses[c] + at) : chunks[c].getLong(at);
  }

  /**
   * {@link #load} for the words of one block: {@code base} is the block's address (used when
   * loading by address), {@code b} and {@code block} its buffer and offset (used otherwise), so
   * the per-word loop does no array access.
   */
  static long load(long base, ByteBuffer b, int block, int offset) {
    return RAW_LOAD != null ? raw(base + offset) : b.getLong(block + offset);
  }

  /** {@link #load(long, ByteBuffer, int, int)} of the 32-bit word at {@code offset}. */
  static int loadInt(long base, ByteBuffer b, int block, int offset) {
    return RAW_LOAD != null ? rawInt(base + offset) : b.getInt(block + offset);
  }

  private static int rawInt(long address) {
    try {
      return (int) RAW_LOAD_INT.invokeExact(address);
    } catch (Throwable e) {
      throw new AssertionError(e); // Unsafe.getInt(long) throws nothing
    }
  }

  private static long raw(long address) {
    try {
      return (long) RAW_LOAD.invokeExact(address);
    } catch (Throwable e) {
      throw new AssertionError(e); // Unsafe.getLong(long) throws nothing
    }
  }

  /**
   * Sets {@code mask} in the word at {@code at} unless all of it is set already; whether some
   * bit of it was clear (the engine's SharedWriter / ExclusiveWriter set_bits).
   */
  boolean set(int c, int at, long mask, boolean exclusive) {
    ByteBuffer b = chunks[c];
    long old = load(c, at);
    if ((old & mask) == mask) {
      return false;
    }
    if (exclusive) {
      WORDS.setOpaque(b, at, old | mask);
      return true;
    }
    return ((long) WORDS.getAndBitwiseOr(b, at, mask) & mask) != mask;
  }

  // ---- loads by address -------------------------------------------------------------------

  /**
   * {@code sun.misc.Unsafe.getLong(long address)} ({@link UnsafeHandles}), where Unsafe is
   * usable and {@code abloom.probe.buffersOnly} is not set; else null, and the buffers' own loads
   * are used.
   */
  private static final MethodHandle RAW_LOAD;

  /** {@code Unsafe.getInt(long address)} bound likewise (null exactly when RAW_LOAD is). */
  private static final MethodHandle RAW_LOAD_INT;

  /** {@code Unsafe.getLong(Object, long)} bound likewise: a buffer's address field. */
  private static final MethodHandle FIELD_LOAD;

  /** The offset of {@code java.nio.Buffer.address}. */
  private static final long ADDRESS_OFFSET;

  static {
    MethodHandle raw = null;
    MethodHandle rawInt = null;
    MethodHandle field = null;
    long offset = 0;
    if (UnsafeHandles.usable("abloom.probe.buffersOnly")) {
      try {
        raw = UnsafeHandles.find("getLong", MethodType.methodType(long.class, long.class));
        rawInt = UnsafeHandles.find("getInt", MethodType.methodType(int.class, long.class));
        field =
            UnsafeHandles.find(
                "getLong", MethodType.methodType(long.class, Object.class, long.class));
        offset = UnsafeHandles.fieldOffset(java.nio.Buffer.class.getDeclaredField("address"));
      } catch (ReflectiveOperationException | RuntimeException e) {
        raw = null; // not available here: the buffers' own loads
        rawInt = null;
        field = null;
      }
    }
    RAW_LOAD = raw;
    RAW_LOAD_INT = rawInt;
    FIELD_LOAD = field;
    ADDRESS_OFFSET = offset;
  }

  /** Whether loads go by address (see {@link #RAW_LOAD}); for tests and benchmarks. */
  static boolean loadsByAddress() {
    return RAW_LOAD != null;
  }

  /**
   * A direct buffer's address, checked against the buffer's own loads of its first and last
   * words, so that a JVM where the field means something else fails here, not with wrong answers.
   * Other threads may be adding to the words meanwhile (a growing filter's new stage is probed
   * while adds fill it), and adds only set bits: each load by address must hold every bit of the
   * buffer's load before it and no bit its load after it lacks.
   */
  private static long addressOf(ByteBuffer chunk) {
    long address;
    int end = chunk.capacity() - 8;
    try {
      address = (long) FIELD_LOAD.invokeExact((Object) chunk, ADDRESS_OFFSET);
    } catch (Throwable e) {
      throw new IllegalStateException("abloom: cannot read a buffer by address", e);
    }
    if (address == 0 || !loadsAgree(chunk, address, 0) || !loadsAgree(chunk, address, end)) {
      throw new IllegalStateException("abloom: cannot read a buffer by address");
    }
    return address;
  }

  /** Whether the word at {@code at} read by address lies between the buffer's two reads of it. */
  private static boolean loadsAgree(ByteBuffer chunk, long address, int at) {
    long before = (long) WORDS.getVolatile(chunk, at);
    long raw;
    try {
      raw = (long) RAW_LOAD.invokeExact(address + at);
    } catch (Throwable e) {
      throw new IllegalStateException("abloom: cannot read a buffer by address", e);
    }
    VarHandle.loadLoadFence();
    long after = (long) WORDS.getVolatile(chunk, at);
    return (before & ~raw) == 0 && (raw & ~after) == 0;
  }
}
