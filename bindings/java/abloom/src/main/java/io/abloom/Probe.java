package io.abloom;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The format's key-to-bits mapping in Java: the hash, and the test and add of every kind and
 * layout, over a filter's 64-bit words held in direct {@link ByteBuffer}s. {@link BloomFilter}
 * runs its single-key calls through it over the engine's own memory (no JNI call per key), and
 * the Spark module over a mapped file; applications need not use it.
 *
 * <p><b>The specification it follows</b> is core/abloom_layout.h, the blocked layouts' one
 * definition, which the engine's kernels include (docs/FORMAT.md, "Body", in words; the classic
 * kind in core/layout.hpp): shard = top shard_bits bits of h = XXH3-64(key, seed); block =
 * mulhi64(h &lt;&lt; shard_bits, blocks); the blocked kind's candidates (h2 * C^j) &gt;&gt;&gt; 23
 * of the block (the first k distinct ones), the split layout's one bit in each of k consecutive
 * 32-bit words, the classic kind's enhanced double hashing over the shard. Tests check every
 * answer and every bit an add sets against the engine's, and the hash against {@code
 * abloom_hash}, bit for bit.
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

  private static final VarHandle WORDS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** C: candidate j of a blocked key is (h2 * C^j) >>> 23 of its 512-bit block. */
  private static final int PROBE_MUL = 0x9E3779B9;

  /** G: the classic kind's double-hashing step. */
  private static final long GOLDEN64 = 0x9E3779B97F4A7C15L;

  /** P[j] = C^j mod 2^32: the split layout uses C^(w+1) for word w and C^17 for the start. */
  private static final int[] POWERS = new int[18];

  static {
    int x = 1;
    for (int i = 0; i < POWERS.length; i++) {
      POWERS[i] = x;
      x *= PROBE_MUL;
    }
  }

  private static final int DISTINCT = 0;
  private static final int SPLIT = 1;
  private static final int CLASSIC = 2;

  private final ByteBuffer[] chunks;
  /** Each chunk's address, for {@link #RAW_LOAD} (unused without it). */
  private final long[] addresses;
  private final int chunkShift;
  private final int chunkMask;
  private final int chunksPerShard;
  private final Hasher64 hasher;
  private final long blocks; // 64-byte blocks per shard
  private final long bitsPerShard;
  private final int shardBits;
  private final int shift; // 63 - shardBits: a key's shard is (h >>> 1) >>> shift
  private final int k;
  private final int probe;

  private Probe(
      ByteBuffer[] chunks,
      int chunkShift,
      BloomFilter.Kind kind,
      Layout layout,
      int k,
      int shards,
      long blocksPerShard,
      long seed) {
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
    this.hasher = Hashing.xxh3_64(seed);
    this.shardBits = Integer.numberOfTrailingZeros(shards);
    this.shift = 63 - shardBits;
    this.blocks = blocksPerShard;
    this.bitsPerShard = blocksPerShard * 512;
    this.k = k;
    if (kind == BloomFilter.Kind.CLASSIC) {
      probe = CLASSIC;
    } else {
      probe = layout == Layout.SPLIT ? SPLIT : DISTINCT;
    }
  }

  /**
   * The number of buffers each shard takes with chunks of 2^chunkShift bytes.
   *
   * @param blocksPerShard 64-byte blocks in each shard
   * @param chunkShift log2 of the chunk size, 6 to {@link #MAX_CHUNK_SHIFT}
   * @return ceil(blocksPerShard * 64 / 2^chunkShift)
   */
  public static int chunksPerShard(long blocksPerShard, int chunkShift) {
    checkChunkShift(chunkShift);
    long bytes = blocksPerShard << 6;
    long n = (bytes + (1L << chunkShift) - 1) >>> chunkShift;
    if (blocksPerShard <= 0 || n > Integer.MAX_VALUE / 64) {
      throw new IllegalArgumentException("abloom: " + blocksPerShard + " blocks per shard");
    }
    return (int) n;
  }

  private static void checkChunkShift(int chunkShift) {
    if (chunkShift < 6 || chunkShift > MAX_CHUNK_SHIFT) {
      throw new IllegalArgumentException(
          "abloom: chunkShift " + chunkShift + " outside 6.." + MAX_CHUNK_SHIFT);
    }
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
    return new Probe(own, chunkShift, kind, layout, k, shards, blocksPerShard, seed);
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
    return hasher.hashBytesToLong(key, offset, length);
  }

  /** Keys up to this many bytes are encoded or copied into a per-thread buffer to be hashed. */
  private static final int SCRATCH_BYTES = 256;

  private static final ThreadLocal<byte[]> SCRATCH =
      ThreadLocal.withInitial(() -> new byte[SCRATCH_BYTES]);

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
    byte[] own = AsciiStrings.asciiBytes(key);
    if (own != null) {
      return hasher.hashBytesToLong(own, 0, own.length);
    }
    int n = key.length();
    if (n <= SCRATCH_BYTES) {
      byte[] buf = SCRATCH.get();
      // Copy every char and OR them together, then check once: no exit in the loop, which
      // measured 12% faster for "user:" + id keys than stopping at the first non-ASCII char.
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

  /**
   * The hash of a buffer's remaining bytes; its position is not changed.
   *
   * @param key the key
   * @return the hash
   */
  public long hash(ByteBuffer key) {
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

  /**
   * The hash of a long key: of its 8 little-endian bytes.
   *
   * @param key the key
   * @return the hash
   */
  public long hash(long key) {
    return hasher.hashLongToLong(key);
  }

  // ---- where a key's bits are ---------------------------------------------------------------

  /** The index of the chunk holding byte {@code at} of shard {@code shard}. */
  private int chunk(long shard, long at) {
    return (int) shard * chunksPerShard + (int) (at >>> chunkShift);
  }

  /** The byte offset, in its shard, of h's block: mulhi64(h << shardBits, blocks) * 64. */
  private long blockByte(long h) {
    // Unsigned multiply-high: blocks < 2^63, so only the sign of the first factor needs the
    // correction.
    long x = h << shardBits;
    return (Math.multiplyHigh(x, blocks) + ((x >> 63) & blocks)) << 6;
  }

  /**
   * One aligned 64-bit load of the word at byte {@code at} of chunk {@code c}.
   *
   * <p>Where the JDK allows it without a warning, by address ({@link #RAW_LOAD}): no bounds or
   * buffer-state check, which out of cache let more keys' misses overlap (the per-row SQL test
   * measured 20% faster so, bench/JOURNAL.md, "The per-row SQL function in Java"). It is safe
   * because every offset this class forms is inside its chunk by construction: a block below
   * {@code blocks} of a shard below the shard count, in chunks whose sizes {@link #of} checked;
   * and every public method keeps this probe, hence its buffers, reachable until its loads are
   * done. Elsewhere, the little-endian buffer's own {@code getLong} (a single load; 1.7x faster
   * than a {@link VarHandle} view, whose access-mode checks the JIT did not hoist).
   */
  private long load(int c, int at) {
    return RAW_LOAD != null ? raw(addresses[c] + at) : chunks[c].getLong(at);
  }

  /**
   * {@link #load} for the words of one block: {@code base} is the block's address (used when
   * loading by address), {@code b} and {@code block} its buffer and offset (used otherwise), so
   * the per-word loop does no array access.
   */
  private static long load(long base, ByteBuffer b, int block, int offset) {
    return RAW_LOAD != null ? raw(base + offset) : b.getLong(block + offset);
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
  private boolean set(int c, int at, long mask, boolean exclusive) {
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

  // ---- tests --------------------------------------------------------------------------------

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
      found = testClassic(shard, h);
    } else {
      long at = blockByte(h);
      int c = chunk(shard, at);
      int block = (int) at & chunkMask;
      // One array load: the address or the buffer, whichever loads go through.
      long base = RAW_LOAD != null ? addresses[c] + block : 0;
      ByteBuffer b = RAW_LOAD != null ? null : chunks[c];
      int h2 = (int) h | 1;
      found =
          probe == DISTINCT
              ? testDistinct(base, b, block, h2)
              : testSplit(base, b, block, h2);
    }
    Reference.reachabilityFence(this); // the buffers stay valid until the loads are done
    return found;
  }

  /**
   * The first k candidates are all among the key's bits, so a clear one proves absence and the
   * test stops there: out of cache that measured 1.5x faster than testing all k with one branch
   * at the end, as the C kernels do (bench/JOURNAL.md, "The per-row SQL function in Java", where
   * the loop read 64-bit words; the classic test stops early too, the unrolled split test no
   * longer does: see {@link #testSplit}). When all are set the key is present unless two of them
   * were one bit: {@code maybeRepeat} flags, from registers only, the keys where that may be so,
   * and {@link #distinctMask} then decides exactly.
   */
  private boolean testDistinct(long base, ByteBuffer b, int block, int h2) {
    int x = h2;
    long folded = 0;
    long maybeRepeat = 0;
    for (int j = 0; j < k; j++) {
      x *= PROBE_MUL;
      long bit = 1L << (x >>> 23);
      if ((bit & ~load(base, b, block, (x >>> 29) << 3)) != 0) {
        return false;
      }
      maybeRepeat |= folded & bit;
      folded |= bit;
    }
    if (maybeRepeat == 0) {
      return true;
    }
    long[] m = distinctMask(h2);
    for (int w = 0; w < 8; w++) {
      if ((m[w] & ~load(base, b, block, w << 3)) != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The blocked key's 512-bit mask, word by word: its first k distinct candidates (at most 4k +
   * 64 candidates are looked at), as abloom_layout.h defines them (core/layout.hpp's block_mask).
   */
  private long[] distinctMask(int h2) {
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
   * One bit in each of k consecutive 32-bit words (lanes) of the block, from a hashed start s:
   * lane s + j (mod 16) holds bit (h2 * C^(lane + 1)) >>> 27. Unrolled, one case per lane and
   * entered at the key's k-th lane from the end, with 32-bit loads of the lanes themselves: at
   * 1M and 100M keys that took 20% less time than a loop over j with 64-bit loads (fewer
   * instructions per key, so more keys' misses overlap; bench/JOURNAL.md, "Java: the split test
   * unrolled over 32-bit lanes"). Branch-free: the lanes' clear bits are ORed and checked once.
   * Stopping at the first clear lane mispredicts on about half the absent keys, and each
   * mispredict throws away the next keys' loads already in flight: in cache the branch-free test
   * measured faster, out of cache the two were within the noise (bench/JOURNAL.md, "Java: the
   * split test without early exits").
   */
  @SuppressWarnings("fallthrough")
  private boolean testSplit(long base, ByteBuffer b, int block, int h2) {
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
    int at = LANE_AT[lane];
    int word = RAW_LOAD != null ? rawInt(base + at) : b.getInt(block + at);
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

  /** The classic kind: k bits over the whole shard, by enhanced double hashing. */
  private boolean testClassic(long shard, long h) {
    long x = h << shardBits;
    long y = h * GOLDEN64;
    for (int i = 0; i < k; i++) {
      long pos = Math.multiplyHigh(x, bitsPerShard) + ((x >> 63) & bitsPerShard);
      long at = (pos >>> 6) << 3;
      if ((load(chunk(shard, at), (int) at & chunkMask) & (1L << pos)) == 0) {
        return false;
      }
      x += y;
      y += (i + 1) * GOLDEN64;
    }
    return true;
  }

  // ---- adds ---------------------------------------------------------------------------------

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
      fresh = addClassic(shard, h, exclusive);
    } else {
      long at = blockByte(h);
      int c = chunk(shard, at);
      int block = (int) at & chunkMask;
      int h2 = (int) h | 1;
      fresh =
          probe == DISTINCT
              ? addDistinct(c, block, h2, exclusive)
              : addSplit(c, block, h2, exclusive);
    }
    Reference.reachabilityFence(this);
    return fresh;
  }

  private boolean addDistinct(int c, int block, int h2, boolean exclusive) {
    long[] m = distinctMask(h2);
    boolean fresh = false;
    for (int w = 0; w < 8; w++) {
      if (m[w] != 0) {
        fresh |= set(c, block + (w << 3), m[w], exclusive);
      }
    }
    return fresh;
  }

  private boolean addSplit(int c, int block, int h2, boolean exclusive) {
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
        fresh |= set(c, block + (pendingWord << 3), pending, exclusive);
        pending = 0;
      }
      pendingWord = word;
      pending |= bit;
    }
    if (pendingWord >= 0) {
      fresh |= set(c, block + (pendingWord << 3), pending, exclusive);
    }
    return fresh;
  }

  private boolean addClassic(long shard, long h, boolean exclusive) {
    long x = h << shardBits;
    long y = h * GOLDEN64;
    boolean fresh = false;
    for (int i = 0; i < k; i++) {
      long pos = Math.multiplyHigh(x, bitsPerShard) + ((x >> 63) & bitsPerShard);
      long at = (pos >>> 6) << 3;
      fresh |= set(chunk(shard, at), (int) at & chunkMask, 1L << pos, exclusive);
      x += y;
      y += (i + 1) * GOLDEN64;
    }
    return fresh;
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
