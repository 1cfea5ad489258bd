package io.abloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * A Bloom filter of byte-string keys, backed by the abloom C library: a set that answers "might
 * contain" (possibly a false positive, at the rate it was sized for) or "definitely does not
 * contain" (never wrong).
 *
 * <p>Modelled on Guava's {@code com.google.common.hash.BloomFilter}, without the {@code Funnel}:
 * keys are {@code byte[]} (or a slice, or a {@link ByteBuffer}), {@link String} (its UTF-8 bytes)
 * or {@code long} (its 8 bytes, <b>little-endian</b>), so the same key gives the same answer in
 * the C, Go and Rust bindings and the serialized form is the portable abloom format
 * (docs/FORMAT.md). Beyond Guava: batch calls that cross into native code once per batch,
 * test-and-add, intersection, memory-mapped files that open in O(1), and zero-copy views.
 *
 * <pre>{@code
 * try (BloomFilter f = BloomFilter.create(1_000_000, 0.01)) {
 *   f.put("alice");
 *   f.mightContain("alice");   // true
 *   f.mightContain("bob");     // false (or, 1% of the time, true)
 *   f.save(Path.of("users.abloom"));
 * }
 * try (BloomFilter g = BloomFilter.open(Path.of("users.abloom"))) { ... }   // mmap, O(1)
 * }</pre>
 *
 * <h2>Thread safety</h2>
 *
 * <p>A BloomFilter is <b>thread-safe</b>: any number of threads may call any of its methods at
 * once, without external locking. The native core is lock-free (relaxed atomic {@code fetch_or}
 * on 64-bit words): once a {@code put} of a key has returned, every {@code mightContain} of that
 * key ordered after it (by a join, a lock, a volatile, a queue) returns true. {@link
 * #intersect} and {@link #clear} are atomic per 64-bit word only: keys added while they run may or
 * may not survive. {@link #sync()} must not run while other threads add. A filter that one thread
 * fills (an offline build, one partition of a Spark job, a bulk load before serving) can switch
 * to {@link WriterMode#EXCLUSIVE} with {@link #setWriterMode}: its adds then use plain stores, and
 * only one thread may add at a time while any number may still test.
 *
 * <h2>Lifecycle</h2>
 *
 * <p>The filter's bits live in native memory (or a mapped file) until {@link #close()}, which is
 * idempotent and safe to call while other threads use the filter: it waits for calls already in
 * native code to return. After it, <b>every method throws {@link IllegalStateException}</b>, the
 * shape accessors ({@link #bitSize()}, {@link #kind()}, {@link #isCompatible}, ...) included,
 * except these, which never throw:
 *
 * <ul>
 *   <li>{@link #close()} (does nothing more) and {@link #isClosed()};
 *   <li>{@link #toString()}, which still describes the filter and says it is closed, so that
 *       loggers and debuggers can print any filter;
 *   <li>{@link #equals} and {@link #hashCode}: a closed filter equals only itself, and its hash
 *       code does not change on close, so the two stay consistent and a closed filter can still
 *       be found in and removed from a hash-based collection.
 * </ul>
 *
 * <p>Argument checks (null keys, bad indices or offsets) may come before the closed check. A
 * filter that becomes unreachable without being closed is freed by a {@link Cleaner}, but large
 * filters should be closed explicitly (try-with-resources), since the garbage collector does not
 * see their native size.
 *
 * <h2>Errors</h2>
 *
 * <p>Bad sizes and arguments throw {@link IllegalArgumentException} (also for combining filters
 * of different shapes); null keys {@link NullPointerException}; bad indices {@link
 * IndexOutOfBoundsException}; writes to a read-only filter (a read-only mapping or a view) {@link
 * UnsupportedOperationException}; native allocation failure {@link OutOfMemoryError}. Reading
 * serialized data throws the checked {@link AbloomFormatException} (an {@link IOException}) for
 * bad data, and file calls throw {@link IOException} (such as {@link
 * java.nio.file.NoSuchFileException}).
 */
public final class BloomFilter implements AutoCloseable {

  /**
   * The filter's kind: how a key's bits spread over the filter. Within a block, the blocked kind
   * also has a {@link Layout}.
   */
  public enum Kind {
    /**
     * The default: every key's bits lie in one 64-byte block (one cache line), so a lookup costs
     * at most one cache miss. About 3% more bits than {@link #CLASSIC} at 1% FPP.
     */
    BLOCKED(0),
    /** Bits spread over the whole shard: the fewest bits for a target FPP, k cache misses. */
    CLASSIC(1);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    static Kind of(long code) {
      return code == 1 ? CLASSIC : BLOCKED;
    }
  }

  /** How {@link #open(Path, OpenMode, boolean)} maps a file. */
  public enum OpenMode {
    /** Read-only: every write throws {@link UnsupportedOperationException}. */
    READ_ONLY(0),
    /** Private, writable mapping: adds work but never reach the file. */
    COPY_ON_WRITE(0x2),
    /**
     * Shared, writable mapping: adds persist to the file; {@link #sync()} (or {@link #close()})
     * rewrites the header's checksums.
     */
    READ_WRITE(0x4);

    final int flag;

    OpenMode(int flag) {
      this.flag = flag;
    }
  }

  /** Where a filter's bits live. */
  public enum Storage {
    /** Native memory the library allocated. */
    OWNED,
    /** A caller's direct buffer ({@link #wrap}): read-only. */
    VIEW,
    /** A memory-mapped file ({@link #open}). */
    MAPPED
  }

  /**
   * What a filter with some options would be, computed without allocating ({@link
   * Builder#plan()}).
   *
   * @param bits total bits
   * @param bytes total bytes of bit storage
   * @param hashFunctions probes (bits set) per key, k
   * @param shards shard count
   * @param blocksPerShard 64-byte blocks in each shard
   * @param bitsPerKey bits per expected insertion
   * @param expectedFpp the model's false-positive probability at the expected insertions, for
   *     this layout
   * @param layout the in-block layout: the one {@link Builder#layout} asked for, else the one the
   *     library chose ({@link Layout#SPLIT} for the blocked kind wherever k up to 16 is enough,
   *     {@link Layout#DISTINCT} otherwise; see {@link Layout}); always {@link Layout#DISTINCT}
   *     for the classic kind
   */
  public record Plan(
      long bits,
      long bytes,
      int hashFunctions,
      int shards,
      long blocksPerShard,
      double bitsPerKey,
      double expectedFpp,
      Layout layout) {}

  private static final Cleaner CLEANER = Cleaner.create();
  private static final int VERIFY_CHECKSUM = 0x1;
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;
  private static final int STREAM_CHUNK = 1 << 20;
  private static final double DEFAULT_FPP = 0.03;

  private final NativeHandle handle;
  private final Cleaner.Cleanable cleanable;
  // The shape and fixed facts, read once: they never change for a handle.
  private final Kind kind;
  private final Layout layout;
  private final int hashFunctions;
  private final int shards;
  private final long blocksPerShard;
  private final long bits;
  private final long capacity;
  private final long seed;
  private final double targetFpp;
  private final double modelFpp;
  private final Storage storage;
  private final boolean readOnly;
  /** The single-key calls, in Java over the engine's own words (see "Single keys" below). */
  private final Probe probe;
  /**
   * Whether each single-key call registers with the close guard. A read-write mapping needs
   * it: its close() must sync and unmap the file at once (a deferred sync could rewrite the
   * header of a file another handle has since opened). A copy-on-write mapping takes it too: the
   * engine's info reports both as writable mappings and does not tell them apart. Every other filter's memory outlives
   * every call that can still reach it (see {@link #close()}), so its calls take no guard.
   */
  private final boolean guarded;
  /** The writer mode's Java side: plain stores in the single-key adds (setWriterMode). */
  private boolean exclusive;

  /** Takes ownership of a native filter (freed here if anything fails). */
  private BloomFilter(long address, Object attachment) {
    this.handle = new NativeHandle(address, attachment);
    this.cleanable = CLEANER.register(this, handle);
    long[] info = new long[13];
    int rc = AbloomNative.jab_info(address, info);
    if (rc != 0) {
      cleanable.clean();
      throw Errors.unchecked(rc, "abloom_get_info");
    }
    this.kind = Kind.of(info[0]);
    this.layout = Layout.of(info[12]);
    this.hashFunctions = (int) info[1];
    this.shards = (int) info[2];
    this.blocksPerShard = info[3];
    this.bits = info[4];
    this.capacity = info[6];
    this.seed = info[7];
    this.targetFpp = Double.longBitsToDouble(info[8]);
    this.modelFpp = Double.longBitsToDouble(info[9]);
    this.storage = info[10] == 1 ? Storage.VIEW : info[10] == 2 ? Storage.MAPPED : Storage.OWNED;
    this.readOnly = info[11] != 0;
    this.guarded = storage == Storage.MAPPED && !readOnly;
    try {
      this.probe = Probe.over(shardBuffers(address, Probe.MAX_CHUNK_SHIFT), Probe.MAX_CHUNK_SHIFT, this);
    } catch (RuntimeException | Error e) {
      cleanable.clean();
      throw e;
    }
  }

  /**
   * Direct buffers over the filter's shards (read-only ones for a read-only filter), in chunks of
   * 2^chunkShift bytes, as {@link Probe#over} takes them.
   */
  private ByteBuffer[] shardBuffers(long address, int chunkShift) {
    long shardBytes = blocksPerShard * 64;
    int per = Probe.chunksPerShard(blocksPerShard, chunkShift);
    ByteBuffer[] chunks = new ByteBuffer[shards * per];
    for (int s = 0; s < shards; s++) {
      for (int c = 0; c < per; c++) {
        long off = (long) c << chunkShift;
        long len = Math.min(1L << chunkShift, shardBytes - off);
        ByteBuffer b = AbloomNative.jab_shard_buffer(address, s, off, len);
        if (b == null) {
          throw new IllegalStateException("abloom: cannot reach the bits of shard " + s);
        }
        chunks[s * per + c] = readOnly ? b.asReadOnlyBuffer() : b;
      }
    }
    return chunks;
  }

  /** A probe over this filter's words in chunks of 2^chunkShift bytes (tests cross chunks). */
  Probe probe(int chunkShift) {
    return Probe.over(call(h -> shardBuffers(h, chunkShift)), chunkShift, this);
  }

  /**
   * Runs one native call on this filter's pointer under the close guard: close() waits for it to
   * return, and once the filter is closed it throws IllegalStateException instead of running.
   * The filter stays reachable until the call returns, so its Cleaner cannot free the pointer
   * under it. The single-key calls do not come here: they must not pay for a lambda per key.
   */
  final <R> R call(LongFunction<R> call) {
    long h = handle.enter();
    try {
      return call.apply(h);
    } finally {
      handle.exit();
      Reference.reachabilityFence(this);
    }
  }

  /** A new BloomFilter from a handle-or-code result of the JNI layer (unchecked errors). */
  private static BloomFilter own(long result, String what) {
    if (result < 0) {
      throw Errors.unchecked(result, what);
    }
    return new BloomFilter(result, null);
  }

  /** A new BloomFilter from a handle-or-code result of a call that reads serialized data. */
  private static BloomFilter ownChecked(long result, String what, String file, Object attachment)
      throws IOException {
    if (result < 0) {
      throw Errors.checked(result, what, file);
    }
    return new BloomFilter(result, attachment);
  }

  // ---- creation ---------------------------------------------------------------------------------

  /**
   * A blocked filter sized for {@code expectedInsertions} distinct keys at a false-positive
   * probability of {@code fpp} (Guava's {@code create}): the fewest bits for which the model
   * predicts at most {@code fpp} at that many keys, in the {@link Layout} the library chooses
   * ({@link Layout#SPLIT} down to about 1e-6, {@link Layout#DISTINCT} below; {@link #layout()}
   * says which).
   *
   * @param expectedInsertions the number of distinct keys expected, &gt; 0
   * @param fpp the desired false-positive probability at that count, in (0, 1)
   * @return a new, empty filter; close it when done
   * @throws IllegalArgumentException if a value is out of range or the filter would be too large
   * @throws OutOfMemoryError if its native memory cannot be allocated
   */
  public static BloomFilter create(long expectedInsertions, double fpp) {
    return builder().expectedInsertions(expectedInsertions).fpp(fpp).build();
  }

  /**
   * {@link #create(long, double)} with an fpp of 3%, as Guava's default.
   *
   * @param expectedInsertions the number of distinct keys expected, &gt; 0
   * @return a new, empty filter
   * @throws IllegalArgumentException if {@code expectedInsertions} is not positive
   */
  public static BloomFilter create(long expectedInsertions) {
    return create(expectedInsertions, DEFAULT_FPP);
  }

  /**
   * A builder for all options: kind, in-block layout, shards, seed, explicit bits and k, bulk
   * threads.
   *
   * @return a new builder (expected insertions must still be set)
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Options for a new filter. Defaults: fpp 1%, {@link Kind#BLOCKED}, the {@link Layout} the
   * library chooses ({@link Layout#SPLIT} for the blocked kind wherever k up to 16 is enough,
   * {@link Layout#DISTINCT} otherwise), shards chosen by size (one per 16 MiB, at most 64),
   * seed 0, bits and k derived from expected insertions and fpp, bulk calls on the calling thread
   * only. Not thread-safe; build() may be called repeatedly.
   */
  public static final class Builder {
    private long expectedInsertions;
    private double fpp = 0.01;
    private Kind kind = Kind.BLOCKED;
    private Layout layout; // null: the library's choice (ABLOOM_LAYOUT_DEFAULT; see Layout)
    private int shards;
    private long seed;
    private long bits;
    private int hashFunctions;
    private int threads;

    private Builder() {}

    /**
     * The number of distinct keys the filter is sized for (its capacity). Required.
     *
     * @param expectedInsertions &gt; 0
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder expectedInsertions(long expectedInsertions) {
      if (expectedInsertions <= 0) {
        throw new IllegalArgumentException(
            "abloom: expectedInsertions must be positive, got " + expectedInsertions);
      }
      this.expectedInsertions = expectedInsertions;
      return this;
    }

    /**
     * The target false-positive probability at the expected insertions (not used when both
     * {@link #bits} and {@link #hashFunctions} are given).
     *
     * @param fpp in (0, 1)
     * @return this builder
     * @throws IllegalArgumentException if not in (0, 1)
     */
    public Builder fpp(double fpp) {
      if (!(fpp > 0.0 && fpp < 1.0)) {
        throw new IllegalArgumentException("abloom: fpp must be in (0, 1), got " + fpp);
      }
      this.fpp = fpp;
      return this;
    }

    /**
     * The kind: how a key's bits spread over the filter.
     *
     * @param kind {@link Kind#BLOCKED} (default) or {@link Kind#CLASSIC}
     * @return this builder
     */
    public Builder kind(Kind kind) {
      this.kind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    /**
     * The in-block layout of a blocked filter. Without this call the library chooses: {@link
     * Layout#SPLIT} for {@link Kind#BLOCKED} wherever its k is enough (an explicit {@link
     * #hashFunctions} up to 16, or an {@link #fpp} whose best k for {@link Layout#DISTINCT} is at
     * most 16: targets down to about 1e-6; with explicit {@link #bits} and k left to sizing, the
     * best distinct k at those bits per key decides), {@link Layout#DISTINCT} otherwise (the
     * classic kind, an explicit k above 16, lower targets). {@link #plan()} and the built
     * filter's {@link BloomFilter#layout()} report the one chosen; give it here to pin it (for
     * example to rebuild the bytes of a filter written with the other one). {@link Layout#SPLIT}
     * needs {@link Kind#BLOCKED} and at most 16 {@link #hashFunctions} (when k is derived, sizing
     * chooses it within 1..16); other combinations make {@link #plan()} and {@link #build()}
     * throw. The layout is recorded in the serialized form, so reading a filter back needs no
     * option.
     *
     * @param layout {@link Layout#DISTINCT} or {@link Layout#SPLIT}
     * @return this builder
     */
    public Builder layout(Layout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /**
     * The shard count: a power of two up to 65536, or 0 for the default. Sharding never changes
     * the FPP; it splits the bits into separately allocated arrays.
     *
     * @param shards 0 or a power of two &lt;= 65536
     * @return this builder
     * @throws IllegalArgumentException otherwise
     */
    public Builder shards(int shards) {
      if (shards < 0 || shards > 65536 || (shards & (shards - 1)) != 0) {
        throw new IllegalArgumentException(
            "abloom: shards must be 0 or a power of two up to 65536, got " + shards);
      }
      this.shards = shards;
      return this;
    }

    /**
     * The hash seed (default 0). Filters combine only when their seeds match; use a random seed
     * when keys may be chosen by an adversary.
     *
     * @param seed any value
     * @return this builder
     */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * An explicit total bit count (rounded up to whole 64-byte blocks per shard), or 0 to derive
     * it from expected insertions and fpp.
     *
     * @param bits &gt;= 0
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder bits(long bits) {
      if (bits < 0) {
        throw new IllegalArgumentException("abloom: bits must be >= 0, got " + bits);
      }
      this.bits = bits;
      return this;
    }

    /**
     * An explicit number of probes per key (k), or 0 to choose the optimum.
     *
     * @param hashFunctions 0..64
     * @return this builder
     * @throws IllegalArgumentException if outside 0..64
     */
    public Builder hashFunctions(int hashFunctions) {
      if (hashFunctions < 0 || hashFunctions > 64) {
        throw new IllegalArgumentException(
            "abloom: hashFunctions must be in 0..64, got " + hashFunctions);
      }
      this.hashFunctions = hashFunctions;
      return this;
    }

    /**
     * Threads the native bulk calls may use for batches of 65536 keys or more (0 or 1: the
     * calling thread only).
     *
     * @param threads 0..256
     * @return this builder
     * @throws IllegalArgumentException if outside 0..256
     */
    public Builder threads(int threads) {
      if (threads < 0 || threads > 256) {
        throw new IllegalArgumentException("abloom: threads must be in 0..256, got " + threads);
      }
      this.threads = threads;
      return this;
    }

    /** Checks what the native call would reject with a less specific message. */
    private void validate(String what) {
      if (expectedInsertions <= 0) {
        throw new IllegalArgumentException("abloom: expectedInsertions must be set");
      }
      if (layout != null) {
        layout.check(kind, hashFunctions, what);
      }
    }

    private int layoutCode() {
      return layout == null ? 0 : layout.code();
    }

    /**
     * Computes what {@link #build()} would allocate, without allocating.
     *
     * @return the sizes, k, layout and model FPP
     * @throws IllegalArgumentException if the options are invalid (also {@link Layout#SPLIT} with
     *     {@link Kind#CLASSIC} or more than 16 hash functions) or the filter too large
     */
    public Plan plan() {
      validate("plan");
      long[] out = new long[8];
      int rc =
          AbloomNative.jab_plan(
              expectedInsertions,
              fpp,
              kind.code,
              shards,
              seed,
              bits,
              hashFunctions,
              threads,
              layoutCode(),
              out);
      if (rc != 0) {
        throw Errors.unchecked(rc, "abloom_plan_compute");
      }
      return new Plan(
          out[3],
          out[4],
          (int) out[0],
          (int) out[1],
          out[2],
          Double.longBitsToDouble(out[5]),
          Double.longBitsToDouble(out[6]),
          Layout.of(out[7]));
    }

    /**
     * Allocates a new, empty filter.
     *
     * @return the filter; close it when done
     * @throws IllegalArgumentException if the options are invalid (also {@link Layout#SPLIT} with
     *     {@link Kind#CLASSIC} or more than 16 hash functions) or the filter too large
     * @throws OutOfMemoryError if its native memory cannot be allocated
     */
    public BloomFilter build() {
      validate("build");
      return own(
          AbloomNative.jab_create(
              expectedInsertions,
              fpp,
              kind.code,
              shards,
              seed,
              bits,
              hashFunctions,
              threads,
              layoutCode()),
          "abloom_create");
    }
  }

  // ---- sizing model -----------------------------------------------------------------------------

  /**
   * The false-positive probability the exact model of {@code kind} with the {@link
   * Layout#DISTINCT} layout predicts for a filter with {@code bitsPerKey} bits per distinct key
   * and {@code hashFunctions} probes per key, once full (the C library's {@code
   * abloom_model_fpr}). The same as {@link #modelFpp(Kind, Layout, double, int)} with {@link
   * Layout#DISTINCT}. A blocked filter whose layout was left to the library is usually {@link
   * Layout#SPLIT}: for it, pass its {@link BloomFilter#layout()} (or {@link Plan#layout()}) to
   * that method.
   *
   * @param kind the filter kind
   * @param bitsPerKey bits per key, &gt; 0 and finite
   * @param hashFunctions probes per key, 1..64
   * @return a probability in (0, 1]
   * @throws IllegalArgumentException if an argument is out of range
   */
  public static double modelFpp(Kind kind, double bitsPerKey, int hashFunctions) {
    return modelFpp(kind, Layout.DISTINCT, bitsPerKey, hashFunctions);
  }

  /**
   * The false-positive probability the exact model of {@code kind} and {@code layout} predicts
   * for a filter with {@code bitsPerKey} bits per distinct key and {@code hashFunctions} probes
   * per key, once full: classic, (1 - e^(-k/c))^k; blocked, a Poisson mixture over block loads
   * (for {@link Layout#SPLIT} with an inclusion-exclusion over the key's words). A {@link Plan}'s
   * {@link Plan#expectedFpp()} is this at its {@link Plan#bitsPerKey()} and k. Computes only;
   * allocates nothing.
   *
   * @param kind the filter kind
   * @param layout the in-block layout ({@link Layout#SPLIT} needs {@link Kind#BLOCKED})
   * @param bitsPerKey bits per key, &gt; 0 and finite
   * @param hashFunctions probes per key: 1..64, or 1..16 for {@link Layout#SPLIT}
   * @return a probability in (0, 1]
   * @throws IllegalArgumentException if an argument is out of range or {@code kind}, {@code
   *     layout} and {@code hashFunctions} do not go together
   */
  public static double modelFpp(Kind kind, Layout layout, double bitsPerKey, int hashFunctions) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(layout, "layout");
    if (!(bitsPerKey > 0.0 && bitsPerKey < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException(
          "abloom: modelFpp: bitsPerKey must be > 0 and finite, got " + bitsPerKey);
    }
    if (hashFunctions < 1 || hashFunctions > 64) {
      throw new IllegalArgumentException(
          "abloom: modelFpp: hashFunctions must be in 1..64, got " + hashFunctions);
    }
    layout.check(kind, hashFunctions, "modelFpp");
    long[] out = new long[1];
    int rc =
        AbloomNative.jab_layout_model_fpr(
            kind.code, layout.code(), bitsPerKey, hashFunctions, out);
    if (rc != 0) {
      throw Errors.unchecked(rc, "abloom_layout_model_fpr");
    }
    return Double.longBitsToDouble(out[0]);
  }

  // ---- single keys ------------------------------------------------------------------------------

  // Single-key calls run in Java (Probe), over the engine's words: no JNI call per key. The hash
  // needs nothing of the filter's state; the memory access is what close() must not race:
  //  - Unguarded filters (all but read-write mappings): close() never frees or unmaps memory a
  //    call can still reach. It gives an owned filter's pages back (they then read as zeros)
  //    and leaves the free to the Cleaner, which runs only once this object is unreachable, and
  //    every call keeps it reachable to its end. A call checks `closed` before its loads and
  //    again after them (a load-load fence between): an answer read from released pages is
  //    never returned, an IllegalStateException is thrown instead. No atomic write per call.
  //  - Guarded filters register with the handle's in-flight counter, as JNI calls do.

  private boolean testHash(long hash) {
    if (guarded) {
      handle.enter();
      try {
        return probe.test(hash);
      } finally {
        handle.exit();
        Reference.reachabilityFence(this);
      }
    }
    handle.checkOpen();
    boolean found = probe.test(hash);
    VarHandle.loadLoadFence();
    handle.checkOpen();
    Reference.reachabilityFence(this);
    return found;
  }

  /** Adds a hash; true if it was definitely new. */
  private boolean addHash(long hash) {
    if (readOnly) {
      handle.checkOpen();
      throw Errors.unchecked(AbloomError.READONLY.code(), "put");
    }
    if (guarded) {
      handle.enter();
      try {
        return probe.add(hash, exclusive);
      } finally {
        handle.exit();
        Reference.reachabilityFence(this);
      }
    }
    handle.checkOpen();
    boolean fresh = probe.add(hash, exclusive);
    VarHandle.loadLoadFence();
    handle.checkOpen();
    Reference.reachabilityFence(this);
    return fresh;
  }


  /**
   * Adds a key. Returns what Guava's {@code put} returns: whether the filter changed, which is
   * whether the key was (definitely) new, read from the same atomic pass that sets its bits.
   *
   * @param key the key's bytes (not retained)
   * @return true if some bit of the key was clear before (a new key); false if all were already
   *     set (a repeat, or a false positive)
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean put(byte[] key) {
    return put(key, 0, key.length);
  }

  /**
   * Adds the key {@code key[offset .. offset + length)}.
   *
   * @param key the array holding the key
   * @param offset where the key starts
   * @param length the key's length in bytes
   * @return true if the key was new (see {@link #put(byte[])})
   * @throws IndexOutOfBoundsException if the slice is outside the array
   * @throws IllegalStateException if the filter is closed
   */
  public boolean put(byte[] key, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, key.length);
    return addHash(probe.hash(key, offset, length));
  }

  /**
   * Adds a string key: its UTF-8 bytes.
   *
   * @param key the key
   * @return true if the key was new (see {@link #put(byte[])})
   * @throws IllegalStateException if the filter is closed
   */
  public boolean put(String key) {
    return addHash(probe.hash(key));
  }

  /**
   * Adds a long key: its 8 bytes in <b>little-endian</b> order (as every abloom binding does),
   * so {@code put(1L)} is {@code put(new byte[] {1, 0, 0, 0, 0, 0, 0, 0})}.
   *
   * @param key the key
   * @return true if the key was new (see {@link #put(byte[])})
   * @throws IllegalStateException if the filter is closed
   */
  public boolean put(long key) {
    return addHash(probe.hash(key));
  }

  /**
   * Adds the key made of the buffer's remaining bytes ({@code position} to {@code limit}); the
   * buffer's position is not changed. Direct buffers are read in place.
   *
   * @param key the key
   * @return true if the key was new (see {@link #put(byte[])})
   * @throws IllegalStateException if the filter is closed
   */
  public boolean put(ByteBuffer key) {
    return addHash(probe.hash(key));
  }

  /**
   * Test-and-add, named for what it guarantees: adds the key and tells whether it was absent,
   * from one atomic pass over its bits. When several threads putIfAbsent one new key at once,
   * at least one of them gets true (unless the key was already a false positive). Same result
   * as {@link #put(byte[])}.
   *
   * @param key the key's bytes
   * @return true if the key was definitely absent before this call (and is now added)
   * @throws IllegalStateException if the filter is closed
   */
  public boolean putIfAbsent(byte[] key) {
    return put(key, 0, key.length);
  }

  /**
   * {@link #putIfAbsent(byte[])} for a string's UTF-8 bytes.
   *
   * @param key the key
   * @return true if the key was definitely absent before this call
   * @throws IllegalStateException if the filter is closed
   */
  public boolean putIfAbsent(String key) {
    return put(key);
  }

  /**
   * {@link #putIfAbsent(byte[])} for a long's 8 little-endian bytes.
   *
   * @param key the key
   * @return true if the key was definitely absent before this call
   * @throws IllegalStateException if the filter is closed
   */
  public boolean putIfAbsent(long key) {
    return put(key);
  }

  /**
   * Whether the key might have been added: false means it definitely was not; true means it
   * was, or is a false positive.
   *
   * @param key the key's bytes
   * @return false if the key is definitely absent
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(byte[] key) {
    return testHash(probe.hash(key, 0, key.length));
  }

  /**
   * {@link #mightContain(byte[])} for the key {@code key[offset .. offset + length)}.
   *
   * @param key the array holding the key
   * @param offset where the key starts
   * @param length the key's length in bytes
   * @return false if the key is definitely absent
   * @throws IndexOutOfBoundsException if the slice is outside the array
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(byte[] key, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, key.length);
    return testHash(probe.hash(key, offset, length));
  }

  /**
   * {@link #mightContain(byte[])} for a string's UTF-8 bytes.
   *
   * @param key the key
   * @return false if the key is definitely absent
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(String key) {
    return testHash(probe.hash(key));
  }

  /**
   * {@link #mightContain(byte[])} for a long's 8 little-endian bytes.
   *
   * @param key the key
   * @return false if the key is definitely absent
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(long key) {
    return testHash(probe.hash(key));
  }

  /**
   * {@link #mightContain(byte[])} for the buffer's remaining bytes (position unchanged).
   *
   * @param key the key
   * @return false if the key is definitely absent
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(ByteBuffer key) {
    return testHash(probe.hash(key));
  }

  // ---- batches ----------------------------------------------------------------------------------

  private static long counted(long rc, String what) {
    if (rc < 0) {
      throw Errors.unchecked(rc, what);
    }
    return rc;
  }

  private static int batchSize(int offsetsLength) {
    if (offsetsLength < 1) {
      throw new IllegalArgumentException("abloom: offsets needs n + 1 entries, got none");
    }
    return offsetsLength - 1;
  }

  private static boolean[] results(boolean[] results, int n) {
    if (results.length < n) {
      throw new IllegalArgumentException(
          "abloom: results has " + results.length + " entries for " + n + " keys");
    }
    return results;
  }

  /**
   * Adds n keys packed in one array, in one native call: key i is {@code
   * packed[offsets[i] .. offsets[i+1])}. The offsets (n + 1 of them) must not decrease and must
   * stay within the array; they are all checked before any key is added. The batch is hashed
   * first and its blocks prefetched, so large filters add several times faster than key by key.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets into {@code packed}
   * @return how many of the keys were new (as {@link #put(byte[])} counts them)
   * @throws IllegalArgumentException if the offsets are empty, decrease or leave the array
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(byte[] packed, long[] offsets) {
    int n = batchSize(offsets.length);
    return counted(
        call(h -> AbloomNative.jab_add_packed(h, packed, packed.length, offsets, n)), "putAll");
  }

  /**
   * {@link #putAll(byte[], long[])} with int offsets.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing, non-negative offsets into {@code packed}
   * @return how many of the keys were new
   * @throws IllegalArgumentException if the offsets are empty, negative, decrease or leave the
   *     array (then nothing is added)
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(byte[] packed, int[] offsets) {
    int n = batchSize(offsets.length);
    return counted(
        call(h -> AbloomNative.jab_add_packed32(h, packed, packed.length, offsets, n)), "putAll");
  }

  /**
   * Adds keys packed in a <b>direct</b> buffer, in one native call: key i is the buffer's bytes
   * {@code position + offsets[i] .. position + offsets[i+1]}; {@code offsets[n]} must not exceed
   * {@code remaining()}. The position is not changed.
   *
   * @param packed a direct buffer
   * @param offsets n + 1 non-decreasing offsets, relative to the position
   * @return how many of the keys were new
   * @throws IllegalArgumentException if the buffer is not direct or the offsets are bad
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(ByteBuffer packed, long[] offsets) {
    int n = batchSize(offsets.length);
    requireDirect(packed);
    long rc =
        call(
            h ->
                AbloomNative.jab_add_packed_direct(
                    h, packed, packed.position(), packed.remaining(), offsets, n));
    Reference.reachabilityFence(packed);
    return counted(rc, "putAll");
  }

  /**
   * Adds every key of a list in one native call (the keys are first copied into one packed
   * array).
   *
   * @param keys the keys; no element may be null; at most 2 GiB in all
   * @return how many of the keys were new
   * @throws IllegalArgumentException if the keys total more than 2 GiB
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return putAll(p.bytes, p.offsets);
  }

  /**
   * Adds long keys (each its 8 little-endian bytes, as {@link #put(long)}) in one native call.
   *
   * @param keys the keys
   * @return how many of the keys were new
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(long[] keys) {
    return counted(call(h -> AbloomNative.jab_add_longs(h, keys, keys.length)), "putAll");
  }

  /**
   * Tests n packed keys (as {@link #putAll(byte[], long[])}) in one native call.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets
   * @return n answers: false where a key is definitely absent
   * @throws IllegalArgumentException if the offsets are empty, decrease or leave the array
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(byte[] packed, long[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    mightContainAll(packed, offsets, results);
    return results;
  }

  /**
   * Tests n packed keys into a caller's array (no allocation), in one native call.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets
   * @param results receives answer i at index i; at least n long
   * @return how many keys might be present (the number of true answers)
   * @throws IllegalArgumentException if the offsets are bad or {@code results} is too short
   * @throws IllegalStateException if the filter is closed
   */
  public long mightContainAll(byte[] packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        call(h -> AbloomNative.jab_test_packed(h, packed, packed.length, offsets, n, results)),
        "mightContainAll");
  }

  /**
   * {@link #mightContainAll(byte[], long[])} with int offsets.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing, non-negative offsets
   * @return n answers
   * @throws IllegalArgumentException if the offsets are bad
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(byte[] packed, int[] offsets) {
    boolean[] results = new boolean[batchSize(offsets.length)];
    mightContainAll(packed, offsets, results);
    return results;
  }

  /**
   * {@link #mightContainAll(byte[], long[], boolean[])} with int offsets.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing, non-negative offsets
   * @param results receives the answers; at least n long
   * @return how many keys might be present
   * @throws IllegalArgumentException if the offsets are bad or {@code results} is too short
   * @throws IllegalStateException if the filter is closed
   */
  public long mightContainAll(byte[] packed, int[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    return counted(
        call(h -> AbloomNative.jab_test_packed32(h, packed, packed.length, offsets, n, results)),
        "mightContainAll");
  }

  /**
   * Tests keys packed in a <b>direct</b> buffer (as {@link #putAll(ByteBuffer, long[])}).
   *
   * @param packed a direct buffer
   * @param offsets n + 1 non-decreasing offsets, relative to the position
   * @param results receives the answers; at least n long
   * @return how many keys might be present
   * @throws IllegalArgumentException if the buffer is not direct or the offsets are bad
   * @throws IllegalStateException if the filter is closed
   */
  public long mightContainAll(ByteBuffer packed, long[] offsets, boolean[] results) {
    int n = batchSize(offsets.length);
    results(results, n);
    requireDirect(packed);
    long rc =
        call(
            h ->
                AbloomNative.jab_test_packed_direct(
                    h, packed, packed.position(), packed.remaining(), offsets, n, results));
    Reference.reachabilityFence(packed);
    return counted(rc, "mightContainAll");
  }

  /**
   * Tests every key of a list in one native call.
   *
   * @param keys the keys; no element may be null
   * @return one answer per key, in list order
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(List<byte[]> keys) {
    Packed p = Packed.of(keys);
    return mightContainAll(p.bytes, p.offsets);
  }

  /**
   * Tests long keys (each its 8 little-endian bytes) in one native call.
   *
   * @param keys the keys
   * @return one answer per key
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(long[] keys) {
    boolean[] results = new boolean[keys.length];
    counted(
        call(h -> AbloomNative.jab_test_longs(h, keys, keys.length, results)), "mightContainAll");
    return results;
  }

  private static void requireDirect(ByteBuffer buffer) {
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("abloom: the buffer must be direct");
    }
  }

  /** A list of keys copied into one array plus n + 1 offsets. */
  private static final class Packed {
    final byte[] bytes;
    final long[] offsets;

    private Packed(byte[] bytes, long[] offsets) {
      this.bytes = bytes;
      this.offsets = offsets;
    }

    static Packed of(List<byte[]> keys) {
      long[] offsets = new long[keys.size() + 1];
      long total = 0;
      int i = 0;
      for (byte[] key : keys) {
        Objects.requireNonNull(key, "abloom: a key in the list is null");
        total += key.length;
        offsets[++i] = total;
      }
      if (i != keys.size()) {
        throw new IllegalStateException("abloom: the list changed while it was read");
      }
      if (total > MAX_ARRAY) {
        throw new IllegalArgumentException(
            "abloom: the keys total " + total + " bytes, over 2 GiB; split the batch");
      }
      byte[] bytes = new byte[(int) total];
      i = 0;
      for (byte[] key : keys) {
        System.arraycopy(key, 0, bytes, (int) offsets[i], key.length);
        i++;
      }
      return new Packed(bytes, offsets);
    }
  }

  // ---- set operations ---------------------------------------------------------------------------

  /**
   * Whether {@code other} has this filter's shape (kind, layout, bits, shards, k, seed), so that
   * {@link #putAll(BloomFilter)}, {@link #intersect} and {@link #equals} can combine them.
   *
   * @param other another open filter
   * @return true if the shapes match
   * @throws IllegalStateException if this filter or {@code other} is closed
   */
  public boolean isCompatible(BloomFilter other) {
    handle.checkOpen();
    other.handle.checkOpen();
    return sameShape(other);
  }

  /** {@link #isCompatible} without the open checks (for {@link #equals}). */
  private boolean sameShape(BloomFilter other) {
    return kind == other.kind
        && layout == other.layout
        && hashFunctions == other.hashFunctions
        && shards == other.shards
        && blocksPerShard == other.blocksPerShard
        && seed == other.seed;
  }

  private void requireCompatible(BloomFilter other, String what) {
    if (!isCompatible(other)) {
      throw new IllegalArgumentException(
          "abloom: "
              + what
              + ": filters of different shapes (kind, layout, bits, shards, k and seed must"
              + " match): "
              + shape()
              + " vs "
              + other.shape());
    }
  }

  private String shape() {
    return "{kind="
        + kind
        + ", layout="
        + layout
        + ", bits="
        + bits
        + ", shards="
        + shards
        + ", k="
        + hashFunctions
        + ", seed="
        + seed
        + "}";
  }

  /**
   * Union (Guava's {@code putAll(BloomFilter)}): afterwards this filter answers true for every
   * key of either. Safe while other threads add to either filter.
   *
   * @param other a compatible filter (see {@link #isCompatible}); may be this filter
   * @throws IllegalArgumentException if the shapes differ
   * @throws IllegalStateException if either filter is closed
   */
  public void putAll(BloomFilter other) {
    requireCompatible(other, "putAll");
    combine(other, true);
  }

  /**
   * Intersection: this filter keeps only the bits set in both, an over-approximation of the keys
   * in both (it may answer true for a key in only one of them).
   *
   * @param other a compatible filter
   * @throws IllegalArgumentException if the shapes differ
   * @throws IllegalStateException if either filter is closed
   */
  public void intersect(BloomFilter other) {
    requireCompatible(other, "intersect");
    combine(other, false);
  }

  private void combine(BloomFilter other, boolean union) {
    // Both pointers guarded: each call() keeps its own filter reachable.
    int rc =
        call(
            h ->
                other.call(
                    o ->
                        union
                            ? AbloomNative.abloom_union(h, o)
                            : AbloomNative.abloom_intersect(h, o)));
    if (rc != 0) {
      throw Errors.unchecked(rc, union ? "putAll" : "intersect");
    }
  }

  /**
   * Sets how this filter is written from now on. {@link WriterMode#EXCLUSIVE} makes adds faster
   * (plain stores instead of atomic ones) for a filter one thread fills, and is <b>unsafe with
   * concurrent writers</b>: two threads adding at once could lose each other's bits, giving false
   * negatives. Call it while no other thread writes to the filter. The mode belongs to this
   * object, not to the bits: it is not serialized, and every created, copied, read or opened
   * filter starts {@link WriterMode#SHARED}.
   *
   * @param mode the writer mode
   * @throws NullPointerException if {@code mode} is null
   * @throws IllegalStateException if the filter is closed
   */
  public void setWriterMode(WriterMode mode) {
    Objects.requireNonNull(mode, "mode");
    int rc = call(h -> AbloomNative.abloom_set_writer_mode(h, mode.code()));
    if (rc != 0) {
      throw Errors.unchecked(rc, "setWriterMode");
    }
    exclusive = mode == WriterMode.EXCLUSIVE;
  }

  /**
   * How this filter is written now (see {@link #setWriterMode}).
   *
   * @return the writer mode
   * @throws IllegalStateException if the filter is closed
   */
  public WriterMode writerMode() {
    return WriterMode.of(call(AbloomNative::abloom_writer_mode));
  }

  /**
   * Clears every bit: the filter is empty again, its shape unchanged.
   *
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public void clear() {
    int rc = call(AbloomNative::abloom_clear);
    if (rc != 0) {
      throw Errors.unchecked(rc, "clear");
    }
  }

  /**
   * A deep copy in newly allocated native memory (writable even if this one is read-only).
   *
   * @return a new filter with the same shape and bits; close it when done
   * @throws IllegalStateException if the filter is closed
   */
  public BloomFilter copy() {
    return own(call(AbloomNative::jab_clone), "copy");
  }

  // ---- introspection ----------------------------------------------------------------------------

  /**
   * Estimates the number of distinct keys added, from the fraction of set bits (Swamidass and
   * Baldi). Reads every bit: O(size).
   *
   * @return the estimate, rounded; {@code Long.MAX_VALUE} when every bit is set
   * @throws IllegalStateException if the filter is closed
   */
  public long approximateElementCount() {
    double v = call(AbloomNative::jab_estimate_count);
    if (v < 0) {
      throw new IllegalStateException("abloom: abloom_estimate_count failed");
    }
    return v >= 0x1p63 ? Long.MAX_VALUE : Math.round(v);
  }

  /**
   * The probability that a key never added tests true now, from the current fill (Guava's
   * {@code expectedFpp}). Grows as keys are added; compare with {@link #targetFpp()}. Reads
   * every bit: O(size).
   *
   * @return a probability in [0, 1]
   * @throws IllegalStateException if the filter is closed
   */
  public double expectedFpp() {
    double v = call(AbloomNative::jab_estimate_fpr);
    if (v < 0) {
      throw new IllegalStateException("abloom: abloom_estimate_fpr failed");
    }
    return v;
  }

  /**
   * The false-positive probability the filter was created for (0 when the layout was given
   * explicitly).
   *
   * @return the target fpp
   * @throws IllegalStateException if the filter is closed
   */
  public double targetFpp() {
    handle.checkOpen();
    return targetFpp;
  }

  /**
   * The model's false-positive probability once {@link #expectedInsertions()} distinct keys are
   * in: at most {@link #targetFpp()} for filters sized from it.
   *
   * @return the model fpp at capacity
   * @throws IllegalStateException if the filter is closed
   */
  public double modelFpp() {
    handle.checkOpen();
    return modelFpp;
  }

  /**
   * The number of bits (Guava's {@code bitSize}); the native memory is bitSize / 8 bytes.
   *
   * @return total bits
   * @throws IllegalStateException if the filter is closed
   */
  public long bitSize() {
    handle.checkOpen();
    return bits;
  }

  /**
   * The capacity the filter was sized for.
   *
   * @return expected insertions
   * @throws IllegalStateException if the filter is closed
   */
  public long expectedInsertions() {
    handle.checkOpen();
    return capacity;
  }

  /**
   * Probes (bits set) per key, k.
   *
   * @return 1..64
   * @throws IllegalStateException if the filter is closed
   */
  public int hashFunctions() {
    handle.checkOpen();
    return hashFunctions;
  }

  /**
   * The kind: how a key's bits spread over the filter.
   *
   * @return the kind
   * @throws IllegalStateException if the filter is closed
   */
  public Kind kind() {
    handle.checkOpen();
    return kind;
  }

  /**
   * The in-block layout, as the filter was created with (asked for, or chosen by the library
   * when {@link Builder#layout} was not called) or as its serialized form records it.
   *
   * @return {@link Layout#DISTINCT} or {@link Layout#SPLIT}; always {@link Layout#DISTINCT} for
   *     the classic kind
   * @throws IllegalStateException if the filter is closed
   */
  public Layout layout() {
    handle.checkOpen();
    return layout;
  }

  /**
   * The shard count.
   *
   * @return a power of two
   * @throws IllegalStateException if the filter is closed
   */
  public int shards() {
    handle.checkOpen();
    return shards;
  }

  /**
   * The hash seed.
   *
   * @return the seed
   * @throws IllegalStateException if the filter is closed
   */
  public long seed() {
    handle.checkOpen();
    return seed;
  }

  /**
   * Where the bits live.
   *
   * @return the storage
   * @throws IllegalStateException if the filter is closed
   */
  public Storage storage() {
    handle.checkOpen();
    return storage;
  }

  /**
   * Whether writes throw {@link UnsupportedOperationException} (a view, or a file opened
   * read-only).
   *
   * @return true if read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean isReadOnly() {
    handle.checkOpen();
    return readOnly;
  }

  /**
   * Whether {@link #close()} has been called. Never throws.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /**
   * The version of the native abloom library in use.
   *
   * @return "MAJOR.MINOR.PATCH"
   */
  public static String nativeVersion() {
    return AbloomNative.abloom_version_string();
  }

  // ---- serialization ----------------------------------------------------------------------------

  /**
   * The exact size of the serialized form ({@link #toByteArray}, {@link #writeTo}, {@link
   * #save}): a 128-byte header plus bitSize / 8.
   *
   * @return bytes
   * @throws IllegalStateException if the filter is closed
   */
  public long serializedSize() {
    handle.checkOpen();
    return 128 + bits / 8;
  }

  /**
   * The portable serialized form (docs/FORMAT.md), readable by every abloom binding. Safe while
   * other threads add.
   *
   * @return a new array of {@link #serializedSize()} bytes
   * @throws IllegalStateException if the filter is closed, or does not fit in a Java array (use
   *     {@link #writeTo} or {@link #save})
   */
  public byte[] toByteArray() {
    long size = serializedSize();
    if (size > MAX_ARRAY) {
      throw new IllegalStateException(
          "abloom: " + size + " bytes do not fit in a Java array; use writeTo or save");
    }
    byte[] out = new byte[(int) size];
    long rc = call(h -> AbloomNative.jab_serialize(h, out, out.length));
    if (rc != size) {
      throw Errors.unchecked(rc < 0 ? rc : AbloomError.INTERNAL.code(), "toByteArray");
    }
    return out;
  }

  /**
   * Writes the serialized form to a stream (Guava's {@code writeTo}); the stream is not closed.
   * Any size works (the bytes pass through a 1 MiB buffer). Safe while other threads add.
   *
   * @param out the stream
   * @throws IOException if the stream fails
   * @throws IllegalStateException if the filter is closed
   */
  public void writeTo(OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out");
    long size = serializedSize();
    long mem = AbloomNative.jab_malloc(size);
    if (mem == 0) {
      throw new OutOfMemoryError("abloom: cannot allocate " + size + " bytes to serialize");
    }
    try {
      long rc = call(h -> AbloomNative.jab_serialize_native(h, mem, size));
      if (rc != size) {
        throw Errors.unchecked(rc < 0 ? rc : AbloomError.INTERNAL.code(), "writeTo");
      }
      byte[] chunk = new byte[(int) Math.min(size, STREAM_CHUNK)];
      for (long at = 0; at < size; ) {
        int n = (int) Math.min(chunk.length, size - at);
        AbloomNative.jab_mget(mem, at, chunk, 0, n);
        out.write(chunk, 0, n);
        at += n;
      }
    } finally {
      AbloomNative.jab_mfree(mem);
    }
  }

  /**
   * Reads a filter written by {@link #writeTo} (or any abloom binding) from a stream, consuming
   * exactly its bytes (Guava's {@code readFrom}). The header is validated before the body is
   * read, and the checksum over everything after.
   *
   * @param in the stream (not closed)
   * @return a new filter (owned memory); close it when done
   * @throws AbloomFormatException if the bytes are not a valid filter, or the stream ends early
   *     ({@link AbloomError#TRUNCATED})
   * @throws IOException if the stream fails
   */
  public static BloomFilter readFrom(InputStream in) throws IOException {
    Objects.requireNonNull(in, "in");
    byte[] header = in.readNBytes(128);
    if (header.length < 128) {
      throw new AbloomFormatException(
          AbloomError.TRUNCATED,
          "abloom: readFrom: the stream ended after " + header.length + " of 128 header bytes");
    }
    long body = AbloomNative.jab_header_body_size(header, 0);
    if (body < 0) {
      throw Errors.checked(body, "readFrom", "<stream>");
    }
    long size = 128 + body;
    long mem = AbloomNative.jab_malloc(size);
    if (mem == 0) {
      throw new OutOfMemoryError("abloom: cannot allocate " + size + " bytes to deserialize");
    }
    try {
      AbloomNative.jab_mput(mem, 0, header, 0, 128);
      byte[] chunk = new byte[(int) Math.min(body, STREAM_CHUNK)];
      for (long at = 128; at < size; ) {
        int want = (int) Math.min(chunk.length, size - at);
        int got = in.readNBytes(chunk, 0, want);
        if (got > 0) {
          AbloomNative.jab_mput(mem, at, chunk, 0, got);
          at += got;
        }
        if (got < want) {
          throw new AbloomFormatException(
              AbloomError.TRUNCATED,
              "abloom: readFrom: the stream ended after " + at + " of " + size + " bytes");
        }
      }
      return ownChecked(AbloomNative.jab_deserialize_native(mem, size), "readFrom", "<stream>", null);
    } finally {
      AbloomNative.jab_mfree(mem);
    }
  }

  /**
   * A new filter from serialized bytes (a copy: the array is not retained), after full
   * validation: header, sizes and checksum.
   *
   * @param bytes exactly one serialized filter
   * @return a new filter; close it when done
   * @throws AbloomFormatException if the bytes are not a valid filter (bad magic, version,
   *     kind, truncated, corrupt, checksum mismatch, trailing bytes)
   */
  public static BloomFilter fromByteArray(byte[] bytes) throws AbloomFormatException {
    return fromByteArray(bytes, 0, bytes.length);
  }

  /**
   * {@link #fromByteArray(byte[])} over {@code bytes[offset .. offset + length)}.
   *
   * @param bytes the array
   * @param offset where the filter starts
   * @param length its length
   * @return a new filter
   * @throws AbloomFormatException if the bytes are not a valid filter
   * @throws IndexOutOfBoundsException if the slice is outside the array
   */
  public static BloomFilter fromByteArray(byte[] bytes, int offset, int length)
      throws AbloomFormatException {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    try {
      return ownChecked(
          AbloomNative.jab_deserialize(bytes, offset, length), "fromByteArray", "<bytes>", null);
    } catch (AbloomFormatException e) {
      throw e;
    } catch (IOException e) { // not reachable: no file is involved
      throw new IllegalStateException(e);
    }
  }

  /**
   * A zero-copy, read-only filter over serialized bytes in a <b>direct</b> buffer, from its
   * position to its limit, which must start 64-byte aligned ({@link ByteBuffer#alignedSlice} or
   * a {@link java.nio.MappedByteBuffer} gives that). The filter keeps the buffer reachable; its
   * bytes must not change while the filter is open.
   *
   * @param buffer a direct buffer holding one serialized filter
   * @param verifyChecksum also check the checksum over header and body (O(size)); the header is
   *     always checked
   * @return a read-only filter ({@link Storage#VIEW})
   * @throws IllegalArgumentException if the buffer is not direct or not 64-byte aligned
   * @throws AbloomFormatException if the bytes are not a valid filter
   */
  public static BloomFilter wrap(ByteBuffer buffer, boolean verifyChecksum)
      throws AbloomFormatException {
    requireDirect(buffer);
    long rc =
        AbloomNative.jab_view(
            buffer, buffer.position(), buffer.remaining(), verifyChecksum ? VERIFY_CHECKSUM : 0);
    try {
      return ownChecked(rc, "wrap", "<buffer>", buffer);
    } catch (AbloomFormatException e) {
      throw e;
    } catch (IOException e) { // not reachable
      throw new IllegalStateException(e);
    } finally {
      Reference.reachabilityFence(buffer);
    }
  }

  /**
   * Saves the filter to a file, crash-safely: a temporary file in the same directory, fsynced,
   * renamed over {@code path}, the directory fsynced. A crash leaves the old file or the new one,
   * complete. Safe while other threads add.
   *
   * @param path the file (default file system)
   * @throws IOException if a file system call fails (e.g. {@link
   *     java.nio.file.NoSuchFileException} for a missing directory)
   * @throws IllegalStateException if the filter is closed
   */
  public void save(Path path) throws IOException {
    byte[] name = nativePath(path);
    int rc = call(h -> AbloomNative.jab_save(h, name));
    if (rc != 0) {
      throw Errors.checked(rc, "save", path.toString());
    }
  }

  /**
   * Opens a saved filter read-only by mmap, in O(1) whatever its size: only the 128-byte header
   * is read and validated; pages load on first use. The file must not be truncated or rewritten
   * in place while the filter is open (see {@link #open(Path, OpenMode, boolean)}): replace it
   * with {@link #save} instead.
   *
   * @param path the file
   * @return a read-only filter ({@link Storage#MAPPED}); close it to unmap
   * @throws AbloomFormatException if the file is not a valid filter
   * @throws IOException if the file cannot be opened or mapped
   */
  public static BloomFilter open(Path path) throws IOException {
    return open(path, OpenMode.READ_ONLY, false);
  }

  /**
   * Opens a saved filter by mmap.
   *
   * <p><b>The file must not be truncated or rewritten in place while the filter is open</b>, by
   * this process or another: the filter reads the file's pages themselves. A read past the file's
   * new end raises {@code SIGBUS}, which kills the JVM (a file truncated to 0 bytes, or a large
   * one to its header), and the rest of its last page reads as zeros, so {@code mightContain}
   * silently answers false (every key of a small filter truncated to its 128-byte header).
   * Copying over the file in place ({@code cp}, a shell {@code >} redirection, {@link
   * java.nio.file.StandardOpenOption#TRUNCATE_EXISTING}, {@link java.io.FileOutputStream})
   * truncates it first. To update a file that is open, replace it instead: {@link #save} writes a
   * temporary file and renames it over the path, so the open filter keeps the old file, which
   * stays valid until {@link #close()}; open the path again to read the new one. (A filter opened
   * {@link OpenMode#READ_WRITE} then writes to the old file, which is gone once closed.)
   *
   * @param path the file
   * @param mode read-only, copy-on-write (adds stay in memory) or read-write (adds persist)
   * @param verifyChecksum also check the checksum over header and body (reads the whole file)
   * @return the mapped filter; close it to unmap (a read-write one is synced first)
   * @throws AbloomFormatException if the file is not a valid filter, or fails the checksum
   * @throws IOException if the file cannot be opened or mapped
   */
  public static BloomFilter open(Path path, OpenMode mode, boolean verifyChecksum)
      throws IOException {
    byte[] name = nativePath(path);
    int flags = mode.flag | (verifyChecksum ? VERIFY_CHECKSUM : 0);
    return ownChecked(AbloomNative.jab_open(name, flags), "open", path.toString(), null);
  }

  /**
   * For a filter opened {@link OpenMode#READ_WRITE}: rewrites the header (checksums, inserted-key
   * estimate) and flushes the mapping to the file. Other filters: nothing to do. Must not run
   * while other threads add to this filter.
   *
   * @throws IOException if flushing fails
   * @throws IllegalStateException if the filter is closed
   */
  public void sync() throws IOException {
    int rc = call(AbloomNative::abloom_sync);
    if (rc != 0) {
      throw Errors.checked(rc, "sync", "<mapped file>");
    }
  }

  private static byte[] nativePath(Path path) {
    if (path.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException("abloom: only paths of the default file system: " + path);
    }
    String jnu = System.getProperty("sun.jnu.encoding");
    Charset cs = jnu != null && Charset.isSupported(jnu) ? Charset.forName(jnu) : Charset.defaultCharset();
    byte[] bytes = path.toString().getBytes(cs);
    byte[] z = new byte[bytes.length + 1]; // NUL-terminated
    System.arraycopy(bytes, 0, z, 0, bytes.length);
    return z;
  }

  // ---- Object -----------------------------------------------------------------------------------

  /**
   * Two filters are equal when they have the same shape (kind, layout, bits, shards, k, seed) and
   * the same bits. A closed filter equals only itself (and no filter equals a closed one). Never
   * throws, even after {@link #close()}. O(size).
   *
   * @param obj another object
   * @return true if equal
   */
  @Override
  public boolean equals(Object obj) {
    if (this == obj) {
      return true;
    }
    if (!(obj instanceof BloomFilter)) {
      return false;
    }
    BloomFilter other = (BloomFilter) obj;
    if (!sameShape(other)) {
      return false;
    }
    long h = handle.tryEnter();
    if (h == 0) {
      return false;
    }
    try {
      long o = other.handle.tryEnter();
      if (o == 0) {
        return false;
      }
      try {
        int rc = AbloomNative.abloom_equal(h, o);
        if (rc < 0) {
          throw Errors.unchecked(rc, "equals");
        }
        return rc != 0;
      } finally {
        other.handle.exit();
        Reference.reachabilityFence(other);
      }
    } finally {
      handle.exit();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A hash of the shape only (like Guava's), so it is cheap, stable while keys are added, and
   * consistent with {@link #equals}. Never throws: after {@link #close()} it is unchanged, so a
   * closed filter can still be removed from a {@link java.util.HashSet} or {@link
   * java.util.HashMap} it was put in while open.
   *
   * @return the hash code
   */
  @Override
  public int hashCode() {
    return Objects.hash(kind, layout, hashFunctions, shards, blocksPerShard, seed);
  }

  /**
   * A short description: kind, layout, bits, k, shards, capacity, target fpp, storage, and
   * "closed" once closed. Never throws, even after {@link #close()} (loggers and debuggers call
   * it on any object).
   *
   * @return the description
   */
  @Override
  public String toString() {
    return "BloomFilter{kind="
        + kind
        + ", layout="
        + layout
        + ", bits="
        + bits
        + ", k="
        + hashFunctions
        + ", shards="
        + shards
        + ", expectedInsertions="
        + capacity
        + ", targetFpp="
        + targetFpp
        + ", storage="
        + storage
        + (readOnly ? ", readOnly" : "")
        + (isClosed() ? ", closed" : "")
        + "}";
  }

  /**
   * Closes the filter: every later call throws {@link IllegalStateException}, but for {@link
   * #isClosed()}, {@link #toString()}, {@link #equals} and {@link #hashCode} (see "Lifecycle" in
   * the class documentation). Idempotent: a second call does nothing and does not throw. Safe
   * while other threads use the filter: it waits for their calls already in native code to
   * return, and a single-key call racing it either answers as if before it or throws.
   *
   * <p>What it releases, and when: a read-write mapping is synced and unmapped at once, and a
   * copy-on-write one unmapped. An owned filter's memory is given back to the system at once
   * (its pages; the address range itself goes when this object is collected). A read-only
   * mapping, and a {@link #wrap wrapped} buffer, stay mapped until this object is collected, as a {@link
   * java.nio.MappedByteBuffer} does: the single-key calls read the filter's memory from Java
   * with no per-call guard, so it must outlive any call that may still be reading it.
   */
  @Override
  public void close() {
    if (handle.markClosed()) {
      handle.awaitQuiescent();
      if (guarded) {
        cleanable.clean();
      } else if (storage == Storage.OWNED) {
        AbloomNative.jab_release_pages(handle.address());
      }
    }
  }
}
