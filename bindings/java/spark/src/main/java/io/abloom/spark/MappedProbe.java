package io.abloom.spark;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.abloom.BloomFilter;
import io.abloom.Layout;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Per-row tests of a saved filter in Java itself, over the file's mapped bytes: no JNI call per
 * row. A JNI call does not only cost its own nanoseconds: the thread-state changes around it and
 * the binding's close guard (an atomic increment and decrement) order memory, so each row's cache
 * miss was waited for in turn (about 300 ns per row out of cache). Plain loads from a mapped
 * buffer let the CPU overlap the misses of consecutive rows, as Spark's own {@code long[]}
 * filter does.
 *
 * <p>The C engine stays the authority on the file: {@link #of} takes a filter the engine opened
 * (and so validated) from the same file, reads its shape from it, and maps the file again here,
 * checking that the size is the one that shape gives. The probes are docs/FORMAT.md's ("Body"),
 * the same constants as core/layout.hpp and the Go binding's native path (bindings/go/native.go);
 * the hash is XXH3-64 with the filter's seed, from hash4j ({@code MappedProbeTest} checks it
 * against the engine's own hash for every key length from 0 to 1024, and every answer against the
 * engine's on both kinds, both layouts and several shard counts).
 *
 * <p>Read-only by design: the query side never writes. The mappings are Java {@link
 * java.nio.MappedByteBuffer}s, unmapped only once unreachable; this probe holds them and keeps
 * itself reachable through each test, so no read can touch an unmapped page. Words are read by
 * address with Spark's {@link Platform} (Unsafe) rather than through the buffers: their bounds
 * and state checks made a row's test 20% slower out of cache (bench/RESULTS.md). Every address
 * is inside a mapping by construction (see {@code word}). Thread-safe.
 *
 * <p>Public only because the code Spark generates for {@code abloom_might_contain} calls it from
 * another class loader's package; not an API.
 */
public final class MappedProbe {

  /** docs/FORMAT.md: the header is 128 bytes and the body starts right after it. */
  static final long HEADER_BYTES = 128;

  /**
   * Each mapping covers 2^30 bytes of the body (a buffer holds under 2 GiB), a whole number of
   * blocks. Tests use smaller chunks to cross chunk boundaries in small files.
   */
  static final int CHUNK_SHIFT = 30;

  /** C: candidate j of a blocked key is (h2 * C^j) >>> 23 of the block. */
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

  /** The mappings: held so that they stay mapped while this probe is reachable. */
  private final ByteBuffer[] chunks;

  /** Each mapping's address, read with Spark's {@link Platform} (no bounds check: see test). */
  private final long[] addresses;

  private final int chunkShift;
  private final long chunkMask;
  private final Hasher64 hasher;
  private final long blocks; // 64-byte blocks per shard
  private final long bitsPerShard;
  private final int shardBits;
  private final int shift; // 63 - shardBits: a key's shard is (h >>> 1) >>> shift
  private final int k;
  private final int probe;

  private MappedProbe(ByteBuffer[] chunks, int chunkShift, BloomFilter shape) {
    this.chunks = chunks;
    this.addresses = new long[chunks.length];
    for (int i = 0; i < chunks.length; i++) {
      addresses[i] = addressOf(chunks[i]);
    }
    this.chunkShift = chunkShift;
    this.chunkMask = (1L << chunkShift) - 1;
    this.hasher = Hashing.xxh3_64(shape.seed());
    this.shardBits = Integer.numberOfTrailingZeros(shape.shards());
    this.shift = 63 - shardBits;
    this.bitsPerShard = shape.bitSize() / shape.shards();
    this.blocks = bitsPerShard / 512;
    this.k = shape.hashFunctions();
    if (shape.kind() == BloomFilter.Kind.CLASSIC) {
      probe = CLASSIC;
    } else {
      probe = shape.layout() == Layout.SPLIT ? SPLIT : DISTINCT;
    }
  }

  /**
   * Maps {@code file} for per-row tests.
   *
   * @param validated the same file opened by the engine (which checked its header); only its
   *     shape is read, it may be closed afterwards
   * @param file the file
   * @return the probe
   * @throws IOException if the file cannot be mapped, or its size is not the one the validated
   *     shape gives (it changed after the engine opened it)
   */
  public static MappedProbe of(BloomFilter validated, Path file) throws IOException {
    return of(validated, file, CHUNK_SHIFT);
  }

  /** {@link #of(BloomFilter, Path)} with mappings of 2^chunkShift bytes (6 to 30). */
  static MappedProbe of(BloomFilter validated, Path file, int chunkShift) throws IOException {
    if (chunkShift < 6 || chunkShift > CHUNK_SHIFT) {
      throw new IllegalArgumentException("chunkShift " + chunkShift + " outside 6..30");
    }
    long chunkMask = (1L << chunkShift) - 1;
    long body = validated.bitSize() / 8;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (body == 0 || size != HEADER_BYTES + body) {
        throw new IOException(
            file
                + ": "
                + size
                + " bytes, but the filter opened from it needs "
                + (HEADER_BYTES + body)
                + " (the file changed after it was opened)");
      }
      int n = (int) ((body + chunkMask) >>> chunkShift);
      ByteBuffer[] chunks = new ByteBuffer[n];
      for (int i = 0; i < n; i++) {
        long start = (long) i << chunkShift;
        long len = Math.min(chunkMask + 1, body - start);
        chunks[i] =
            ch.map(FileChannel.MapMode.READ_ONLY, HEADER_BYTES + start, len)
                .order(ByteOrder.LITTLE_ENDIAN);
      }
      return new MappedProbe(chunks, chunkShift, validated);
    }
  }

  /**
   * @param key a 64-bit key (as {@code BloomFilter.put(long)} adds it)
   * @return false if the key is definitely absent
   */
  public boolean mightContain(long key) {
    return test(hasher.hashLongToLong(key));
  }

  /**
   * @param key the key's bytes
   * @return false if the key is definitely absent
   */
  public boolean mightContain(byte[] key) {
    return test(hasher.hashBytesToLong(key, 0, key.length));
  }

  /**
   * A string column's value, by its UTF-8 bytes, read in place when they are on the heap.
   *
   * @param key the key
   * @return false if the key is definitely absent
   */
  public boolean mightContain(UTF8String key) {
    if (key.getBaseObject() instanceof byte[] array) {
      long offset = key.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET;
      return test(hasher.hashBytesToLong(array, (int) offset, key.numBytes()));
    }
    return mightContain(key.getBytes());
  }

  /** Whether every bit of hash {@code h} is set. */
  boolean test(long h) {
    long shard = (h >>> 1) >>> shift;
    if (probe == CLASSIC) {
      boolean found = testClassic(shard, h);
      Reference.reachabilityFence(this);
      return found;
    }
    // Block mulhi64(h << shardBits, blocks), unsigned: blocks < 2^63, so only the sign of the
    // first factor needs the correction.
    long x = h << shardBits;
    long block = Math.multiplyHigh(x, blocks) + ((x >> 63) & blocks);
    long at = (shard * blocks + block) << 6;
    long address = addresses[(int) (at >>> chunkShift)] + (at & chunkMask);
    int h2 = (int) h | 1;
    boolean found = probe == DISTINCT ? testDistinct(address, h2) : testSplit(address, h2);
    Reference.reachabilityFence(this); // the mappings stay mapped until the reads are done
    return found;
  }

  /**
   * Word {@code w} (0..7) of the block at {@code block}. A plain load with no bounds check (the
   * JNI-free path is only worth having if it is as short as the engine's): every address this
   * class forms is a block below {@code blocks} of a shard below the shard count, inside a
   * mapping it holds, so it cannot leave the mapped file.
   */
  private static long word(long block, int w) {
    long v = Platform.getLong(null, block + ((long) w << 3));
    return SWAP ? Long.reverseBytes(v) : v;
  }

  /**
   * The first k candidates are all among the key's bits, so a clear one proves absence, and the
   * test stops there (measured faster here than testing all k with one branch, as the engine's
   * kernels do: see bench/RESULTS.md). When all are set the key is present unless two of them
   * are one bit (a register-only check flags the keys where that may be so; {@link
   * #presentDistinct} then decides exactly).
   */
  private boolean testDistinct(long block, int h2) {
    int x = h2;
    long folded = 0;
    long maybeRepeat = 0;
    for (int j = 0; j < k; j++) {
      x *= PROBE_MUL;
      long b = 1L << (x >>> 23);
      if ((b & ~word(block, x >>> 29)) != 0) {
        return false;
      }
      maybeRepeat |= folded & b;
      folded |= b;
    }
    return maybeRepeat == 0 || presentDistinct(block, h2);
  }

  /**
   * A key whose first k candidates are set: present if they are k distinct bits, else its next
   * distinct candidates (up to k distinct in all, at most 4k + 64 candidates) must be set too.
   */
  private boolean presentDistinct(long block, int h2) {
    long[] m = new long[8];
    long repeats = 0;
    int x = h2;
    for (int j = 0; j < k; j++) {
      x *= PROBE_MUL;
      long b = 1L << (x >>> 23);
      int w = x >>> 29;
      repeats |= m[w] & b;
      m[w] |= b;
    }
    if (repeats == 0) {
      return true;
    }
    int set = 0;
    for (long w : m) {
      set += Long.bitCount(w);
    }
    for (int j = k + 1; set < k && j <= 4 * k + 64; j++) {
      x *= PROBE_MUL;
      long b = 1L << (x >>> 23);
      int w = x >>> 29;
      if ((m[w] & b) != 0) {
        continue;
      }
      m[w] |= b;
      set++;
      if ((word(block, w) & b) == 0) {
        return false;
      }
    }
    return true;
  }

  /** One bit in each of k consecutive 32-bit words of the block, from a hashed start. */
  private boolean testSplit(long block, int h2) {
    int s = (h2 * POWERS[17]) >>> 28;
    for (int j = 0; j < k; j++) {
      int w = (s + j) & 15;
      long bit = 1L << (32 * (w & 1) + ((h2 * POWERS[w + 1]) >>> 27));
      if ((bit & ~word(block, w >>> 1)) != 0) {
        return false;
      }
    }
    return true;
  }

  /** The classic kind: k bits over the whole shard, by enhanced double hashing. */
  private boolean testClassic(long shard, long h) {
    long x = h << shardBits;
    long y = h * GOLDEN64;
    long shardByte = shard * blocks << 6;
    for (int i = 0; i < k; i++) {
      long pos = Math.multiplyHigh(x, bitsPerShard) + ((x >> 63) & bitsPerShard);
      long at = shardByte + ((pos >>> 6) << 3);
      long v = Platform.getLong(null, addresses[(int) (at >>> chunkShift)] + (at & chunkMask));
      if (((SWAP ? Long.reverseBytes(v) : v) & (1L << pos)) == 0) {
        return false;
      }
      x += y;
      y += (i + 1) * GOLDEN64;
    }
    return true;
  }

  /** The format is little-endian; a big-endian JVM reverses each word it loads. */
  private static final boolean SWAP = ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN;

  /** The offset of {@code java.nio.Buffer.address} for {@link Platform#getLong}. */
  private static final long ADDRESS_FIELD = addressFieldOffset();

  /**
   * Found as Spark's own {@code Platform} finds its offsets, through {@code sun.misc.Unsafe}
   * (module jdk.unsupported, open to all), by reflection so that no compile-time reference to it
   * trips -Werror.
   */
  private static long addressFieldOffset() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      java.lang.reflect.Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
      theUnsafe.setAccessible(true);
      Object unsafe = theUnsafe.get(null);
      return (long)
          unsafeClass
              .getMethod("objectFieldOffset", java.lang.reflect.Field.class)
              .invoke(unsafe, java.nio.Buffer.class.getDeclaredField("address"));
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException(
          "abloom: cannot find java.nio.Buffer.address through sun.misc.Unsafe", e);
    }
  }

  /**
   * A direct buffer's address, checked against the buffer's own reads of its first and last
   * words, so that a JVM where the field means something else fails here, not with wrong answers.
   */
  private static long addressOf(ByteBuffer chunk) {
    long address = Platform.getLong(chunk, ADDRESS_FIELD);
    int last = chunk.capacity() - 8;
    if (!chunk.isDirect()
        || address == 0
        || last < 0
        || word(address, 0) != chunk.getLong(0)
        || word(address + last, 0) != chunk.getLong(last)) {
      throw new IllegalStateException("abloom: cannot read the mapped filter by address");
    }
    return address;
  }
}
