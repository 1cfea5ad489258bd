package io.abloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

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
   * The most threads the native bulk calls of one filter may use ({@link Builder#threads}, {@link
   * #setThreads}): the C library's {@code ABLOOM_MAX_THREADS}.
   */
  public static final int MAX_THREADS = 256;

  /** A growing filter's default growth ({@link Builder#growth}): each stage twice the last. */
  public static final double DEFAULT_GROWTH = 2.0;

  /** The largest growth of a growing filter ({@link Builder#growth}). */
  public static final double MAX_GROWTH = 16.0;

  /**
   * A growing filter's first stage capacity when none is given ({@link
   * Builder#initialCapacity}).
   */
  public static final long DEFAULT_INITIAL_CAPACITY = 1024;

  /**
   * The most stages a growing filter has: it cannot grow past them (nor past the library's size
   * limit), see {@link #growthFailed()}.
   */
  public static final int MAX_STAGES = 64;

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
     * rewrites the header's checksums. Until then the file is marked stale: a writer killed
     * before that leaves it stale ({@link AbloomStaleException}, {@link #seal}).
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

  /**
   * One stage of a filter ({@link #stage}): a growing filter's stages are filters of their own
   * shapes, each with its capacity and fpp target; a fixed filter is its own stage 0.
   *
   * @param index the stage's place in the chain, 0 the oldest
   * @param kind its kind (every stage's is the filter's)
   * @param layout its in-block layout
   * @param hashFunctions its probes per key, k
   * @param shards its shard count
   * @param blocksPerShard its 64-byte blocks in each shard
   * @param bitSize its bits
   * @param expectedInsertions its capacity: the new keys it takes before the next stage is
   *     appended
   * @param targetFpp its fpp target (a growing filter's stages take ever smaller shares of the
   *     chain's)
   * @param modelFpp the model's fpp at its capacity
   * @param keyCount the keys it counted as new (0 for a fixed filter, which does not count)
   */
  public record Stage(
      int index,
      Kind kind,
      Layout layout,
      int hashFunctions,
      int shards,
      long blocksPerShard,
      long bitSize,
      long expectedInsertions,
      double targetFpp,
      double modelFpp,
      long keyCount) {
    static Stage of(int index, long[] info) {
      return new Stage(
          index,
          Kind.of(info[0]),
          Layout.of(info[12]),
          (int) info[1],
          (int) info[2],
          info[3],
          info[4],
          info[6],
          Double.longBitsToDouble(info[8]),
          Double.longBitsToDouble(info[9]),
          info[17]);
    }
  }

  /**
   * What a growing filter reaches at some count of distinct keys, computed without allocating
   * ({@link Builder#growthPlan}).
   *
   * @param stages the stages it then has (the fewest whose capacities together hold the keys)
   * @param bytes their bytes of bit storage together
   * @param fppBound the sum of their model fpps at their capacities: the bound on its fpp then,
   *     below the target
   */
  public record GrowthPlan(int stages, long bytes, double fppBound) {}

  private static final double DEFAULT_FPP = 0.03;

  /**
   * The filter's state: its native handle, shape and probes (the bodies of the shape accessors).
   * This class holds the API and its documentation; every public instance method is a call
   * into this object, {@link #keys}, {@link #bulk} or {@link FilterFiles}.
   */
  final FilterCore core;

  /** The single-key calls and the writer mode. */
  private final SingleKeys keys;

  /** The calls into native code for many keys or the whole filter. */
  private final BulkCalls bulk;

  /** Takes ownership of a native filter (freed here if anything fails). */
  private BloomFilter(long address, Object attachment) {
    this.core = new FilterCore(address, attachment);
    this.keys = new SingleKeys(core);
    this.bulk = new BulkCalls(core);
  }

  /** A new BloomFilter from a handle-or-code result of the JNI layer (unchecked errors). */
  static BloomFilter own(long result, String what) {
    if (result < 0) {
      throw Errors.unchecked(result, what);
    }
    return new BloomFilter(result, null);
  }

  /** A new BloomFilter from a handle-or-code result of a call that reads serialized data. */
  static BloomFilter ownChecked(long result, String what, String file, Object attachment)
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
   * A growing filter: it needs no count of keys up front and holds a false-positive probability
   * of at most {@code fpp} at any count. It is a chain of blocked filters (stages): the first
   * takes {@link #DEFAULT_INITIAL_CAPACITY} keys, each next one {@link #DEFAULT_GROWTH} times the
   * last, each with its share of the target, so that the chain's fpp stays below {@code fpp}. Every call of a
   * fixed filter works on it, but for {@link #intersect}, {@link OpenMode#READ_WRITE} and {@link
   * #seal}, which throw {@link UnsupportedOperationException}. Tests cost one probe per stage
   * (newest first), so a filter whose size is known is faster fixed. {@link Builder#growth} sets
   * the other options.
   *
   * @param fpp the false-positive probability to hold, in (0, 1)
   * @return a new, empty growing filter; close it when done
   * @throws IllegalArgumentException if {@code fpp} is out of range
   */
  public static BloomFilter growing(double fpp) {
    return builder().growth(DEFAULT_GROWTH).fpp(fpp).build();
  }

  /**
   * {@link #growing(double)} at 1%.
   *
   * @return a new, empty growing filter; close it when done
   */
  public static BloomFilter growing() {
    return growing(0.01);
  }

  /**
   * A builder for all options: kind, in-block layout, shards, seed, explicit bits and k, bulk
   * threads, growth.
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
    private double growth;

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
     * example to rebuild the bytes of a filter written with another one). {@link Layout#SPLIT}
     * needs {@link Kind#BLOCKED} and at most 16 {@link #hashFunctions} (when k is derived, sizing
     * chooses it within 1..16), {@link Layout#HALF} (never chosen by the library) {@link
     * Kind#BLOCKED} and k 8 or left to sizing; other combinations make {@link #plan()} and {@link
     * #build()} throw. The layout is recorded in the serialized form, so reading a filter back
     * needs no option.
     *
     * @param layout {@link Layout#DISTINCT}, {@link Layout#SPLIT} or {@link Layout#HALF}
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
     * calling thread only). The filter starts with it; {@link BloomFilter#setThreads} changes it
     * later.
     *
     * @param threads 0..{@link BloomFilter#MAX_THREADS} (256)
     * @return this builder
     * @throws IllegalArgumentException if outside 0..256
     */
    public Builder threads(int threads) {
      if (threads < 0 || threads > MAX_THREADS) {
        throw new IllegalArgumentException(
            "abloom: threads must be in 0.." + MAX_THREADS + ", got " + threads);
      }
      this.threads = threads;
      return this;
    }

    /**
     * Makes the filter a growing one ({@link BloomFilter#growing}): a chain of stages, each
     * {@code growth} times the capacity of the last, that holds {@link #fpp} at any count of
     * keys. Its first stage takes {@link #initialCapacity} keys ({@link
     * BloomFilter#DEFAULT_INITIAL_CAPACITY} if not given). {@link #kind}, {@link #layout}, {@link
     * #shards} and {@link #seed} apply to every stage; {@link #bits} and {@link #hashFunctions}
     * must be left at 0 (each stage is sized from its own target). 0 (the default) makes a
     * fixed filter.
     *
     * @param growth 0, or in (1, {@link BloomFilter#MAX_GROWTH}] ({@link
     *     BloomFilter#DEFAULT_GROWTH} is 2)
     * @return this builder
     * @throws IllegalArgumentException otherwise (NaN included)
     */
    public Builder growth(double growth) {
      if (!(growth == 0.0 || growth > 1.0 && growth <= MAX_GROWTH)) {
        throw new IllegalArgumentException(
            "abloom: growth must be 0 (a fixed filter) or in (1, " + MAX_GROWTH + "], got "
                + growth);
      }
      this.growth = growth;
      return this;
    }

    /**
     * A growing filter's first stage capacity: the keys it takes before the second stage is
     * appended. The same option as {@link #expectedInsertions}, named for a growing filter; not
     * calling either gives {@link BloomFilter#DEFAULT_INITIAL_CAPACITY}.
     *
     * @param initialCapacity &gt; 0
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder initialCapacity(long initialCapacity) {
      if (initialCapacity <= 0) {
        throw new IllegalArgumentException(
            "abloom: initialCapacity must be positive, got " + initialCapacity);
      }
      this.expectedInsertions = initialCapacity;
      return this;
    }

    /**
     * What a growing filter of these options reaches at {@code keys} distinct keys, computed
     * without allocating: its stages, their bytes together and the bound on its fpp then (the C
     * library's {@code abloom_growth_footprint}).
     *
     * @param keys distinct keys, &gt; 0
     * @return the plan
     * @throws IllegalStateException if {@link #growth} was not set (a fixed filter: see {@link
     *     #plan()})
     * @throws IllegalArgumentException if {@code keys} is not positive, the options are invalid,
     *     or the filter cannot grow that far ({@link BloomFilter#MAX_STAGES} or the size limit)
     */
    public GrowthPlan growthPlan(long keys) {
      if (growth == 0.0) {
        throw new IllegalStateException("abloom: growthPlan: set a growth first (a fixed filter)");
      }
      if (keys <= 0) {
        throw new IllegalArgumentException("abloom: growthPlan: keys must be positive, got " + keys);
      }
      validate("growthPlan");
      long[] out = new long[3];
      int rc =
          AbloomNative.jab_growth_footprint(
              expectedInsertions, fpp, kind.code, shards, seed, layoutCode(), growth, keys, out);
      if (rc != 0) {
        throw Errors.unchecked(rc, "abloom_growth_footprint");
      }
      return new GrowthPlan((int) out[0], out[1], Double.longBitsToDouble(out[2]));
    }

    /** Checks what the native call would reject with a less specific message. */
    private void validate(String what) {
      if (growth != 0.0) {
        if (bits != 0 || hashFunctions != 0) {
          throw new IllegalArgumentException(
              "abloom: " + what + ": a growing filter sizes each stage itself: bits and"
                  + " hashFunctions must be 0");
        }
      } else if (expectedInsertions <= 0) {
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
     * Computes what {@link #build()} would allocate, without allocating. For a growing filter,
     * its first stage ({@link #growthPlan} plans the chain).
     *
     * @return the sizes, k, layout and model FPP
     * @throws IllegalArgumentException if the options are invalid (also {@link Layout#SPLIT} with
     *     {@link Kind#CLASSIC} or more than 16 hash functions, {@link Layout#HALF} with {@link
     *     Kind#CLASSIC} or a k other than 8) or the filter too large
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
              growth,
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
     *     {@link Kind#CLASSIC} or more than 16 hash functions, {@link Layout#HALF} with {@link
     *     Kind#CLASSIC} or a k other than 8) or the filter too large
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
              layoutCode(),
              growth),
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
   * @param layout the in-block layout ({@link Layout#SPLIT} and {@link Layout#HALF} need {@link
   *     Kind#BLOCKED})
   * @param bitsPerKey bits per key, &gt; 0 and finite
   * @param hashFunctions probes per key: 1..64, 1..16 for {@link Layout#SPLIT}, 8 for {@link
   *     Layout#HALF}
   * @return a probability in (0, 1]
   * @throws IllegalArgumentException if an argument is out of range or {@code kind}, {@code
   *     layout} and {@code hashFunctions} do not go together
   */
  public static double modelFpp(Kind kind, Layout layout, double bitsPerKey, int hashFunctions) {
    Objects.requireNonNull(kind, "kind");
    return Objects.requireNonNull(layout, "layout").modelFpp(kind, bitsPerKey, hashFunctions);
  }

  /**
   * The version of the native abloom library in use.
   *
   * @return "MAJOR.MINOR.PATCH"
   */
  public static String nativeVersion() {
    return AbloomNative.abloom_version_string();
  }

  // ---- serialized forms and files ---------------------------------------------------------------

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
    return FilterFiles.readFrom(in);
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
    return FilterFiles.fromByteArray(bytes, offset, length);
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
    return FilterFiles.wrap(buffer, verifyChecksum);
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
   * @throws AbloomStaleException if {@code verifyChecksum} and the file is stale (a read-write
   *     writer did not sync it): open it without {@code verifyChecksum}, or {@link #seal} it
   * @throws IOException if the file cannot be opened or mapped
   */
  public static BloomFilter open(Path path, OpenMode mode, boolean verifyChecksum)
      throws IOException {
    return FilterFiles.open(path, mode, verifyChecksum);
  }

  /**
   * Seals a <b>stale</b> file: one that a writer opened {@link OpenMode#READ_WRITE} and did not
   * sync, because it was killed (see {@link AbloomStaleException}), so that checked reads of it
   * ({@code verifyChecksum}, {@link #fromByteArray(byte[])}, {@link #readFrom}) pass again. Without
   * a current checksum it checks what can be checked: the header (as {@link #open(Path)} does), the
   * file's size, and its fill against the inserted-key estimate the header stored when the writer
   * opened it (adds only set bits, so the estimate from the bits cannot be lower). Then, as {@link
   * #sync()} does, it rewrites the estimate and both checksums, clears the stale mark and flushes
   * the file durably.
   *
   * <p>A file that is not stale is only verified, never written: it returns if the checksum
   * matches (nothing to do), and throws {@link AbloomFormatException} ({@link
   * AbloomError#CHECKSUM}) if not: sealing never papers over corruption, and a file it refuses is
   * left as it was.
   *
   * <p><b>Never seal a file that a writer still has open {@link OpenMode#READ_WRITE}</b> (in this
   * process or another, such as {@code abloom add}): its adds after the seal would leave the
   * checksum wrong and unmarked, so later checked reads would report corruption. The stale mark
   * cannot tell a killed writer from a running one; the caller must know. A stale file must be
   * writable (it is mapped read-write, as its writer did); one that is not stale need only be
   * readable.
   *
   * @param path the file
   * @throws AbloomFormatException if the file is not a valid filter: {@link AbloomError#CHECKSUM}
   *     for an intact-looking file whose checksum does not match, {@link AbloomError#CORRUPT} for
   *     a stale one whose bits were cleared by something other than adds, or a bad header ({@link
   *     AbloomError#BAD_MAGIC}, {@link AbloomError#TRUNCATED}, ...); the file is not written
   * @throws IOException if the file cannot be opened or written ({@link
   *     java.nio.file.NoSuchFileException}, {@link java.nio.file.AccessDeniedException}, ...)
   * @throws IllegalArgumentException if the path is not of the default file system
   */
  public static void seal(Path path) throws IOException {
    FilterFiles.seal(Objects.requireNonNull(path, "path"));
  }

  // ---- layout, compatibility, writer mode, threads, sync ----------------------------------------

  /**
   * The in-block layout, as the filter was created with (asked for, or chosen by the library
   * when {@link Builder#layout} was not called) or as its serialized form records it.
   *
   * @return {@link Layout#DISTINCT}, {@link Layout#SPLIT} or {@link Layout#HALF}; always {@link
   *     Layout#DISTINCT} for the classic kind; a growing filter's first stage's (see {@link
   *     #stage} for each)
   * @throws IllegalStateException if the filter is closed
   */
  public Layout layout() {
    return core.layout();
  }

  /**
   * Whether {@code other} has this filter's shape (kind, layout, bits, shards, k, seed), so that
   * {@link #putAll(BloomFilter)}, {@link #intersect} and {@link #equals} can combine them. Growing
   * filters: whether both were made with the same options (also growth, first capacity and
   * target fpp), whatever their stage counts; a growing filter and a fixed one never are.
   *
   * @param other another open filter
   * @return true if the shapes match
   * @throws IllegalStateException if this filter or {@code other} is closed
   */
  public boolean isCompatible(BloomFilter other) {
    return core.compatible(other);
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
    keys.setWriterMode(mode);
  }

  /**
   * Sets how many threads the native bulk calls on this filter may use from now on, as {@link
   * Builder#threads} does for a new filter: a batch of 65536 keys or more is split across them,
   * and the answers, the bits set and the counts of new keys are exactly the single-threaded ones.
   * This holds for every {@code putAll} and {@code mightContainAll}: those of {@code long[]} keys
   * and of {@code int[]} offsets, which otherwise go to the engine 4096 keys a call, then go
   * 65536 a call (through 512 KiB of native scratch memory).
   *
   * <p>The count belongs to this object, not to the bits: it is not serialized. A filter from
   * {@link Builder#build} starts with {@link Builder#threads} (1 without it); one that is read,
   * opened or wrapped ({@link #fromByteArray}, {@link #readFrom}, {@link #open}, {@link #wrap})
   * with 1; a {@link #copy()} with this filter's current count. It may be called at any time, also
   * while other threads run batches on this filter (each batch keeps the count it started with),
   * and on read-only filters (for their batch tests).
   *
   * @param threads 0..{@link #MAX_THREADS} (0 or 1: the calling thread only)
   * @throws IllegalArgumentException if outside 0..{@link #MAX_THREADS} (the count is then
   *     unchanged)
   * @throws IllegalStateException if the filter is closed
   */
  public void setThreads(int threads) {
    bulk.setThreads(threads);
  }

  /**
   * How many threads the native bulk calls on this filter may use (see {@link #setThreads}).
   *
   * @return 1..{@link #MAX_THREADS} (1 after {@code setThreads(0)})
   * @throws IllegalStateException if the filter is closed
   */
  public int threads() {
    return bulk.threads();
  }

  /**
   * For a filter opened {@link OpenMode#READ_WRITE}: rewrites the header (checksums, inserted-key
   * estimate, and clears the stale mark) and flushes the mapping to the file. Other filters: nothing to do. Must not run
   * while other threads add to this filter.
   *
   * @throws IOException if flushing fails
   * @throws IllegalStateException if the filter is closed
   */
  public void sync() throws IOException {
    FilterFiles.sync(core);
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
    return core.sameBits(((BloomFilter) obj).core);
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
    return core.shapeHash();
  }

  /**
   * A short description: kind, layout, bits, k, shards, capacity, target fpp, storage, a growing
   * filter's growth and stages, and "closed" once closed (a growing filter's shape is its first
   * stage's). Never throws, even after {@link #close()} (loggers and debuggers call
   * it on any object).
   *
   * @return the description
   */
  @Override
  public String toString() {
    return core.describe();
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
   * with no per-call guard, so it must outlive any call that may still be reading it. On Windows,
   * where a mapped file can be neither replaced (a {@link #save} over it fails) nor deleted
   * while mapped, a read-only mapping is unmapped at once too, and its single-key calls take
   * the same guard as a read-write mapping's.
   */
  @Override
  public void close() {
    core.release();
  }

  // ---- batches ----------------------------------------------------------------------------------

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
    return bulk.putAll(packed, offsets);
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
    return bulk.putAll(packed, offsets);
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
    return bulk.putAll(packed, offsets);
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
    return bulk.putAll(keys);
  }

  /**
   * Adds long keys (each its 8 little-endian bytes, as {@link #put(long)}) in one native call.
   *
   * @param keys the keys
   * @return how many of the keys were new
   * @throws IllegalStateException if the filter is closed
   */
  public long putAll(long[] keys) {
    return bulk.putAll(keys);
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
    return bulk.mightContainAll(packed, offsets);
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
    return bulk.mightContainAll(packed, offsets, results);
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
    return bulk.mightContainAll(packed, offsets);
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
    return bulk.mightContainAll(packed, offsets, results);
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
    return bulk.mightContainAll(packed, offsets, results);
  }

  /**
   * Tests every key of a list in one native call.
   *
   * @param keys the keys; no element may be null
   * @return one answer per key, in list order
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(List<byte[]> keys) {
    return bulk.mightContainAll(keys);
  }

  /**
   * Tests long keys (each its 8 little-endian bytes) in one native call.
   *
   * @param keys the keys
   * @return one answer per key
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] mightContainAll(long[] keys) {
    return bulk.mightContainAll(keys);
  }

  /**
   * {@link #putIfAbsent(byte[])} of n packed keys (as {@link #putAll(byte[], long[])}), in order,
   * in one native call: answer i is true where key i was definitely absent before (new, now
   * added), false where it was already there (added before, by an earlier key of this batch, or a
   * false positive). The answers and the bits are those of n calls of putIfAbsent; the batch is
   * tested in bulk first (its blocks prefetched), then only the keys not found are added, so
   * deduplicating a stream of mostly repeated keys costs about what {@link
   * #mightContainAll(byte[], long[])} does.
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets into {@code packed}
   * @return n answers: true where a key was new
   * @throws IllegalArgumentException if the offsets are empty, decrease or leave the array (then
   *     nothing is added)
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] putAllIfAbsent(byte[] packed, long[] offsets) {
    return bulk.putAllIfAbsent(packed, offsets);
  }

  /**
   * {@link #putAllIfAbsent(byte[], long[])} into a caller's array (no allocation).
   *
   * @param packed the keys' bytes, back to back
   * @param offsets n + 1 non-decreasing offsets into {@code packed}
   * @param results receives answer i (true: key i was new) at index i; at least n long; left
   *     alone on error
   * @return how many of the keys were new (the number of true answers)
   * @throws IllegalArgumentException if the offsets are bad or {@code results} is too short (then
   *     nothing is added)
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public long putAllIfAbsent(byte[] packed, long[] offsets, boolean[] results) {
    return bulk.putAllIfAbsent(packed, offsets, results);
  }

  /**
   * {@link #putAllIfAbsent(byte[], long[])} for every key of a list (the keys are first copied
   * into one packed array).
   *
   * @param keys the keys; no element may be null; at most 2 GiB in all
   * @return one answer per key, in list order: true where the key was new
   * @throws IllegalArgumentException if the keys total more than 2 GiB
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] putAllIfAbsent(List<byte[]> keys) {
    return bulk.putAllIfAbsent(keys);
  }

  /**
   * {@link #putAllIfAbsent(byte[], long[])} for long keys (each its 8 little-endian bytes, as
   * {@link #putIfAbsent(long)}).
   *
   * @param keys the keys
   * @return one answer per key: true where the key was new
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean[] putAllIfAbsent(long[] keys) {
    return bulk.putAllIfAbsent(keys);
  }

  // ---- set operations, the whole filter ---------------------------------------------------------

  /**
   * Union (Guava's {@code putAll(BloomFilter)}): afterwards this filter answers true for every
   * key of either. Safe while other threads add to either filter.
   *
   * <p>Growing filters combine stage by stage, when both were made with the same options: this
   * filter first grows to {@code other}'s stage count, then each stage takes the other's bits and
   * count of keys. A stage may so end with more keys than its capacity, and the chain's fpp above
   * its target ({@link #expectedFpp()} says by how much): growing filters meant to be combined
   * should each hold fewer keys than the stages they share take, or be filled as one (threads of
   * one process add to one growing filter at once rather than each to a copy).
   *
   * @param other a compatible filter (see {@link #isCompatible}); may be this filter
   * @throws IllegalArgumentException if the shapes differ (also a growing filter and a fixed one,
   *     or growing filters made with different options), or this growing filter cannot grow to
   *     {@code other}'s stages
   * @throws IllegalStateException if either filter is closed
   */
  public void putAll(BloomFilter other) {
    bulk.union(other);
  }

  /**
   * Intersection: this filter keeps only the bits set in both, an over-approximation of the keys
   * in both (it may answer true for a key in only one of them). Not for growing filters: a key
   * two chains hold may sit in different stages of each, and a stage-by-stage intersection would
   * lose it (a false negative).
   *
   * @param other a compatible filter
   * @throws IllegalArgumentException if the shapes differ
   * @throws UnsupportedOperationException if either filter is growing
   * @throws IllegalStateException if either filter is closed
   */
  public void intersect(BloomFilter other) {
    bulk.intersect(other);
  }

  /**
   * How this filter is written now (see {@link BloomFilter#setWriterMode(WriterMode)
   * setWriterMode(io.abloom.WriterMode)}).
   *
   * @return the writer mode
   * @throws IllegalStateException if the filter is closed
   */
  public WriterMode writerMode() {
    return keys.writerMode();
  }

  /**
   * Clears every bit: the filter is empty again, its shape unchanged.
   *
   * @throws UnsupportedOperationException if the filter is read-only
   * @throws IllegalStateException if the filter is closed
   */
  public void clear() {
    bulk.clear();
  }

  /**
   * A deep copy in newly allocated native memory (writable even if this one is read-only).
   *
   * @return a new filter with the same shape and bits; close it when done
   * @throws IllegalStateException if the filter is closed
   */
  public BloomFilter copy() {
    return bulk.copy();
  }

  // ---- estimates --------------------------------------------------------------------------------

  /**
   * Estimates the number of distinct keys added, from the fraction of set bits (Swamidass and
   * Baldi). Reads every bit: O(size).
   *
   * @return the estimate, rounded; {@code Long.MAX_VALUE} when every bit is set
   * @throws IllegalStateException if the filter is closed
   */
  public long approximateElementCount() {
    return bulk.approximateElementCount();
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
    return bulk.expectedFpp();
  }

  // ---- serialization ----------------------------------------------------------------------------

  /**
   * The exact size of the serialized form ({@link #toByteArray}, {@link #writeTo}, {@link
   * #save}): a 128-byte header plus bitSize / 8. For a growing filter, the chain's form now
   * (docs/FORMAT.md, "Growing filters": a chain header, a table of the stages and each stage
   * with its own header); it grows as stages are appended.
   *
   * @return bytes
   * @throws IllegalStateException if the filter is closed
   */
  public long serializedSize() {
    return FilterFiles.serializedSize(core);
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
    return FilterFiles.toByteArray(core);
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
    FilterFiles.writeTo(core, out);
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
    FilterFiles.save(core, path);
  }

  // ---- single keys ------------------------------------------------------------------------------

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
    return keys.put(key, offset, length);
  }

  /**
   * Adds a string key: its UTF-8 bytes.
   *
   * @param key the key
   * @return true if the key was new (see {@link #put(byte[])})
   * @throws IllegalStateException if the filter is closed
   */
  public boolean put(String key) {
    return keys.put(key);
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
    return keys.put(key);
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
    return keys.put(key);
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
    return keys.mightContain(key);
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
    return keys.mightContain(key, offset, length);
  }

  /**
   * {@link #mightContain(byte[])} for a string's UTF-8 bytes.
   *
   * @param key the key
   * @return false if the key is definitely absent
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(String key) {
    return keys.mightContain(key);
  }

  /**
   * {@link #mightContain(byte[])} for a long's 8 little-endian bytes.
   *
   * @param key the key
   * @return false if the key is definitely absent
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(long key) {
    return keys.mightContain(key);
  }

  /**
   * {@link #mightContain(byte[])} for the buffer's remaining bytes (position unchanged).
   *
   * @param key the key
   * @return false if the key is definitely absent
   * @throws IllegalStateException if the filter is closed
   */
  public boolean mightContain(ByteBuffer key) {
    return keys.mightContain(key);
  }

  // ---- shape ------------------------------------------------------------------------------------

  /**
   * The false-positive probability the filter was created for (0 when the layout was given
   * explicitly). For a growing filter, the whole chain's target, which it holds at any count of
   * keys.
   *
   * @return the target fpp
   * @throws IllegalStateException if the filter is closed
   */
  public double targetFpp() {
    return core.targetFpp();
  }

  /**
   * The model's false-positive probability once {@link #expectedInsertions()} distinct keys are
   * in: at most {@link #targetFpp()} for filters sized from it. For a growing filter, the bound
   * on the chain's now: the sum of its stages' model fpps at their capacities.
   *
   * @return the model fpp at capacity
   * @throws IllegalStateException if the filter is closed
   */
  public double modelFpp() {
    return core.modelFpp();
  }

  /**
   * The number of bits (Guava's {@code bitSize}); the native memory is bitSize / 8 bytes. For a
   * growing filter, its stages' bits together now (it grows as stages are appended).
   *
   * @return total bits
   * @throws IllegalStateException if the filter is closed
   */
  public long bitSize() {
    return core.bitSize();
  }

  /**
   * The capacity the filter was sized for. For a growing filter, the keys its stages now hold
   * before the next is appended (their capacities together; it grows with them).
   *
   * @return expected insertions
   * @throws IllegalStateException if the filter is closed
   */
  public long expectedInsertions() {
    return core.expectedInsertions();
  }

  /**
   * Probes (bits set) per key, k. For a growing filter, its newest stage's (each stage has its
   * own: see {@link BloomFilter#stage}).
   *
   * @return 1..64
   * @throws IllegalStateException if the filter is closed
   */
  public int hashFunctions() {
    return core.hashFunctions();
  }

  // ---- growing filters -----------------------------------------------------------------------

  /**
   * Whether this is a growing filter ({@link BloomFilter#growing}, {@link
   * BloomFilter.Builder#growth}): a chain of stages that holds its target fpp at any count of
   * keys. Read from the bytes or file for a filter read or opened.
   *
   * @return true for a growing filter, false for a fixed one
   * @throws IllegalStateException if the filter is closed
   */
  public boolean isGrowing() {
    return core.isGrowing();
  }

  /**
   * A growing filter's growth: each stage's capacity over the last's.
   *
   * @return in (1, {@link BloomFilter#MAX_GROWTH}] for a growing filter; 0 for a fixed one
   * @throws IllegalStateException if the filter is closed
   */
  public double growth() {
    return core.growth();
  }

  /**
   * The number of stages now: 1 for a fixed filter (its own one stage); for a growing filter,
   * one more each time its newest stage has taken its capacity of new keys, up to {@link
   * BloomFilter#MAX_STAGES}.
   *
   * @return 1..{@link BloomFilter#MAX_STAGES}
   * @throws IllegalStateException if the filter is closed
   */
  public int stageCount() {
    return core.stageCount();
  }

  /**
   * Whether a growing filter could not append a stage when it had to ({@link
   * BloomFilter#MAX_STAGES}, the size limits, or no memory): its newest stage then takes every
   * key past its capacity, and the target fpp is no longer held. Always false for a fixed
   * filter.
   *
   * @return true if growth failed
   * @throws IllegalStateException if the filter is closed
   */
  public boolean growthFailed() {
    return core.growthFailed();
  }

  /**
   * The keys a growing filter's stages counted as new: exact with one writer, at worst a little
   * over with several at once (a key whose bits were all set already, a repeat or a false
   * positive, is not counted). A fixed filter does not count its keys: 0 (see {@link
   * BloomFilter#approximateElementCount}).
   *
   * @return keys counted as new; 0 for a fixed filter
   * @throws IllegalStateException if the filter is closed
   */
  public long keyCount() {
    return core.keyCount();
  }

  /**
   * One stage of this filter, 0 the oldest, as a filter of its own: its shape, capacity, target
   * and model fpp, and the keys it counted. A fixed filter is its own stage 0.
   *
   * @param index 0 .. {@link #stageCount()} - 1
   * @return the stage
   * @throws IndexOutOfBoundsException if there is no such stage
   * @throws IllegalStateException if the filter is closed
   */
  public BloomFilter.Stage stage(int index) {
    return core.stage(index);
  }

  /**
   * Every stage now, oldest first ({@link #stage} of each).
   *
   * @return an unmodifiable list of {@link #stageCount()} stages
   * @throws IllegalStateException if the filter is closed
   */
  public List<BloomFilter.Stage> stages() {
    return core.stages();
  }

  // ---- kind, shards, seed, storage ---------------------------------------------------------------

  /**
   * The kind: how a key's bits spread over the filter.
   *
   * @return the kind
   * @throws IllegalStateException if the filter is closed
   */
  public Kind kind() {
    return core.kind();
  }

  /**
   * The shard count.
   *
   * @return a power of two
   * @throws IllegalStateException if the filter is closed
   */
  public int shards() {
    return core.shards();
  }

  /**
   * The hash seed.
   *
   * @return the seed
   * @throws IllegalStateException if the filter is closed
   */
  public long seed() {
    return core.seed();
  }

  /**
   * Where the bits live.
   *
   * @return the storage
   * @throws IllegalStateException if the filter is closed
   */
  public Storage storage() {
    return core.storage();
  }

  /**
   * Whether writes throw {@link UnsupportedOperationException} (a view, or a file opened
   * read-only).
   *
   * @return true if read-only
   * @throws IllegalStateException if the filter is closed
   */
  public boolean isReadOnly() {
    return core.isReadOnly();
  }

  /**
   * Whether the file (or the bytes of {@link BloomFilter#wrap}) carried the stale mark when this
   * filter was opened over it without {@code verifyChecksum}: a writer that opened it {@link
   * BloomFilter.OpenMode#READ_WRITE} did not sync it (killed, or still running). The bits are
   * valid and every call works, but a checked read of the file fails with {@link
   * AbloomStaleException} until it is sealed ({@link BloomFilter#seal}). For a filter opened {@link
   * BloomFilter.OpenMode#READ_WRITE}: whether the file was stale before this open marked it (its
   * {@link BloomFilter#sync()} or {@link BloomFilter#close()} then seals it). Always false for a
   * filter that was created, copied or read ({@link BloomFilter#fromByteArray(byte[])}, {@link
   * BloomFilter#readFrom}: those refuse stale bytes). Read once, at the open: it does not change.
   *
   * @return true if the file was stale when opened
   * @throws IllegalStateException if the filter is closed
   */
  public boolean isStale() {
    return core.isStale();
  }

  /**
   * Whether {@link BloomFilter#close() close()} has been called. Never throws.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return core.isClosed();
  }
}
