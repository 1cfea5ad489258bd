package io.abloom;

import io.abloom.BloomFilter.Kind;
import io.abloom.BloomFilter.Storage;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * The state of one {@link BloomFilter}: its native handle and the guard around its native calls,
 * its shape and fixed facts (read once), and the Java probes of its stages. BloomFilter's public
 * methods are one-line calls into this class (the shape accessors) and the helpers that share it:
 * {@link SingleKeys} (the single-key calls, in Java), {@link BulkCalls} (the calls that cross into
 * native code once for many keys or the whole filter) and {@link FilterFiles} (serialized forms
 * and files).
 *
 * <p>The filter's {@link Cleaner} is registered on this object, not on the BloomFilter, which
 * holds it: every call keeps this object reachable until it returns ({@link #call}, and the
 * reachability fences of the single-key calls), so the Cleaner cannot free the native filter
 * under a call. The accessors check that the filter is open; the fields, read by {@link
 * BloomFilter#toString()}, {@link BloomFilter#equals} and {@link BloomFilter#hashCode} after
 * close too, do not.
 */
final class FilterCore {
  private static final Cleaner CLEANER = Cleaner.create();
  /** Whether close() unmaps read-only mappings at once (Windows: see {@link #guarded}). */
  static final boolean UNMAP_READ_ONLY_AT_CLOSE = NativeLoader.onWindows();

  final NativeHandle handle;
  final Cleaner.Cleanable cleanable;
  // The shape and fixed facts, read once: they never change for a handle.
  final Kind kind;
  final Layout layout;
  final int hashFunctions;
  final int shards;
  final long blocksPerShard;
  final long bits;
  final long capacity;
  final long seed;
  final double targetFpp;
  final double modelFpp;
  final Storage storage;
  final boolean readOnly;
  /** The file (or bytes) carried the stale mark when opened: see {@link #isStale()}. */
  final boolean stale;
  /**
   * The single-key calls' probe, in Java over the engine's own words (see {@link SingleKeys}); for
   * a growing filter, its first stage's (every stage hashes with the one seed, so it hashes keys
   * for all of them).
   */
  final Probe probe;
  /**
   * A growing filter's stages as Java probes them, oldest first; null for a fixed filter. Only
   * ever replaced by a longer array (under {@link #stagesLock}), and written before any add that
   * appended a stage returns: see {@link #publishStages}.
   */
  volatile Probe[] stageProbes;
  /** A growing filter's growth ({@code abloom_options.growth}); 0 for a fixed filter. */
  final double growth;
  /** Whether this is a growing filter (a chain of stages, see {@link BloomFilter#growing}). */
  final boolean growing;
  private final Object stagesLock = new Object();
  /**
   * Whether each single-key call registers with the close guard. A read-write mapping needs
   * it: its close() must sync and unmap the file at once (a deferred sync could rewrite the
   * header of a file another handle has since opened). A copy-on-write mapping takes it too: the
   * engine's info reports both as writable mappings and does not tell them apart. On Windows a
   * read-only mapping takes it as well: there a mapped file cannot be replaced (a save over it
   * fails) nor its folder removed until the view is unmapped, so close() must unmap at once, not
   * when the collector runs the Cleaner. Every other filter's memory outlives every call that can
   * still reach it (see {@link BloomFilter#close()}), so its calls take no guard.
   */
  final boolean guarded;
  /**
   * Whether the single-key calls take the plain path: a fixed filter that needs no guard. Read
   * once per call in place of {@code guarded} alone, so a fixed filter's test costs one branch,
   * as it did before growing filters; everything else takes the other path.
   */
  final boolean plain;

  /** Takes ownership of a native filter (freed here if anything fails). */
  FilterCore(long address, Object attachment) {
    this.handle = new NativeHandle(address, attachment);
    this.cleanable = CLEANER.register(this, handle);
    long[] info = new long[INFO_LONGS];
    int rc = AbloomNative.jab_info(address, info);
    long[] first = info;
    if (rc == 0 && info[16] != 0) { // a growing filter: its fixed shape is its first stage's
      first = new long[INFO_LONGS];
      rc = AbloomNative.jab_stage_info(address, 0, first);
    }
    if (rc != 0) {
      cleanable.clean();
      throw Errors.unchecked(rc, "abloom_get_info");
    }
    this.kind = Kind.of(info[0]);
    this.layout = Layout.of(first[12]);
    this.hashFunctions = (int) first[1];
    this.shards = (int) info[2];
    this.blocksPerShard = first[3];
    this.bits = first[4];
    this.capacity = first[6];
    this.seed = info[7];
    this.targetFpp = Double.longBitsToDouble(info[8]);
    this.modelFpp = Double.longBitsToDouble(first[9]);
    this.storage = info[10] == 1 ? Storage.VIEW : info[10] == 2 ? Storage.MAPPED : Storage.OWNED;
    this.readOnly = info[11] != 0;
    this.stale = info[13] != 0;
    this.growth = Double.longBitsToDouble(info[16]);
    this.growing = growth != 0;
    this.guarded = storage == Storage.MAPPED && (!readOnly || UNMAP_READ_ONLY_AT_CLOSE);
    this.plain = !guarded && !growing;
    try {
      this.probe = stageProbe(address, 0, Probe.MAX_CHUNK_SHIFT);
      if (growing) {
        this.stageProbes = new Probe[] {probe};
        publishStages(address);
      }
    } catch (RuntimeException | Error e) {
      cleanable.clean();
      throw e;
    }
  }

  /** The length of the array jab_info and jab_stage_info fill (abloom_filters.i; unchecked). */
  static final int INFO_LONGS = 18;

  /**
   * A probe over stage {@code stage}'s words (a fixed filter is its own stage 0) in chunks of
   * 2^chunkShift bytes: direct buffers over its shards (read-only ones for a read-only filter),
   * as {@link Probe#over} takes them, and the stage's own shape.
   */
  private Probe stageProbe(long address, int stage, int chunkShift) {
    long[] info = new long[INFO_LONGS];
    int rc = AbloomNative.jab_stage_info(address, stage, info);
    if (rc != 0) {
      throw Errors.unchecked(rc, "abloom_get_stage_info");
    }
    int n = (int) info[2];
    long blocks = info[3];
    long shardBytes = blocks * 64;
    int per = Probe.chunksPerShard(blocks, chunkShift);
    ByteBuffer[] chunks = new ByteBuffer[n * per];
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < per; c++) {
        long off = (long) c << chunkShift;
        long len = Math.min(1L << chunkShift, shardBytes - off);
        ByteBuffer b = AbloomNative.jab_shard_buffer(address, stage, s, off, len);
        if (b == null) {
          throw new IllegalStateException(
              "abloom: cannot reach the bits of shard " + s + " of stage " + stage);
        }
        chunks[s * per + c] = readOnly ? b.asReadOnlyBuffer() : b;
      }
    }
    return Probe.of(
        chunks, chunkShift, Kind.of(info[0]), Layout.of(info[12]), (int) info[1], n, blocks, seed);
  }

  /** A probe over this filter's words in chunks of 2^chunkShift bytes (tests cross chunks). */
  Probe probe(int chunkShift) {
    return stageProbe(0, chunkShift);
  }

  /** {@link #probe(int)} for stage {@code stage} of a growing filter (tests). */
  Probe stageProbe(int stage, int chunkShift) {
    return call(h -> stageProbe(h, stage, chunkShift));
  }

  /**
   * Makes the Java probes cover every stage the engine has now: probes for the stages appended
   * since the last call, published in one volatile write of a longer array. Called by every add
   * of a growing filter that saw the stage count pass the published one, before it returns, and
   * after every other call that can append stages (batches, union). Any key an add put in the
   * filter lies in a stage below the count that add read after itself, so every test that
   * happens after the add reads an array that covers that stage: no false negative. Stages only
   * ever grow and never move, so the probes already published stay valid. Runs inside the
   * caller's close guard (or in the constructor).
   */
  void publishStages(long address) {
    synchronized (stagesLock) {
      Probe[] now = stageProbes;
      int n = AbloomNative.jab_stages(address);
      if (n < 0) {
        throw Errors.unchecked(n, "abloom_get_stage_info");
      }
      if (n <= now.length) {
        return;
      }
      Probe[] next = Arrays.copyOf(now, n);
      for (int i = now.length; i < n; i++) {
        next[i] = stageProbe(address, i, Probe.MAX_CHUNK_SHIFT);
      }
      stageProbes = next;
    }
  }

  /** {@link BloomFilter#close()}: marks the handle closed, waits for calls in flight, releases. */
  void release() {
    if (handle.markClosed()) {
      handle.awaitQuiescent();
      if (guarded) {
        cleanable.clean();
      } else if (storage == Storage.OWNED) {
        AbloomNative.jab_release_pages(handle.address());
      }
    }
  }

  /**
   * Runs one native call on this filter's pointer under the close guard: close() waits for it to
   * return, and once the filter is closed it throws IllegalStateException instead of running.
   * The filter stays reachable until the call returns, so its Cleaner cannot free the pointer
   * under it. The single-key calls do not come here: they must not pay for a lambda per key.
   */
  <R> R call(LongFunction<R> call) {
    long h = handle.enter();
    try {
      return call.apply(h);
    } finally {
      handle.exit();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * {@link #call} for a call that may append stages to a growing filter (batch adds, union): the
   * new stages are published to the single-key tests before it returns, also when it fails part
   * way (some keys may be in by then).
   */
  <R> R callAdding(LongFunction<R> call) {
    if (!growing) {
      return call(call);
    }
    long h = handle.enter();
    try {
      return call.apply(h);
    } finally {
      try {
        publishStages(h);
      } finally {
        handle.exit();
        Reference.reachabilityFence(this);
      }
    }
  }


  /** The engine's info of the whole filter (stage &lt; 0) or of one stage, under the guard. */
  long[] info(int stage) {
    long[] out = new long[INFO_LONGS];
    int rc = call(h -> AbloomNative.jab_stage_info(h, stage, out));
    if (rc == AbloomError.RANGE.code()) {
      throw new IndexOutOfBoundsException(
          "abloom: stage " + stage + " of a filter of " + stageCount() + " stages");
    }
    if (rc != 0) {
      throw Errors.unchecked(rc, "abloom_get_stage_info");
    }
    return out;
  }

  // ---- shape: the bodies of BloomFilter's accessors ---------------------------------------------

  double targetFpp() {
    handle.checkOpen();
    return targetFpp;
  }

  double modelFpp() {
    if (growing) {
      return Double.longBitsToDouble(info(-1)[9]);
    }
    handle.checkOpen();
    return modelFpp;
  }

  long bitSize() {
    if (growing) {
      return info(-1)[4];
    }
    handle.checkOpen();
    return bits;
  }

  long expectedInsertions() {
    if (growing) {
      return info(-1)[6];
    }
    handle.checkOpen();
    return capacity;
  }

  int hashFunctions() {
    if (growing) {
      return (int) info(-1)[1];
    }
    handle.checkOpen();
    return hashFunctions;
  }

  Layout layout() {
    handle.checkOpen();
    return layout;
  }

  Kind kind() {
    handle.checkOpen();
    return kind;
  }

  int shards() {
    handle.checkOpen();
    return shards;
  }

  long seed() {
    handle.checkOpen();
    return seed;
  }

  Storage storage() {
    handle.checkOpen();
    return storage;
  }

  boolean isReadOnly() {
    handle.checkOpen();
    return readOnly;
  }

  boolean isStale() {
    handle.checkOpen();
    return stale;
  }

  boolean isClosed() {
    return handle.isClosed();
  }

  // ---- growing filters: the bodies of BloomFilter's accessors -----------------------------------

  boolean isGrowing() {
    handle.checkOpen();
    return growing;
  }

  double growth() {
    handle.checkOpen();
    return growth;
  }

  int stageCount() {
    int n = call(AbloomNative::jab_stages);
    if (n < 0) {
      throw Errors.unchecked(n, "stageCount");
    }
    return n;
  }

  boolean growthFailed() {
    return info(-1)[15] != 0;
  }

  long keyCount() {
    return info(-1)[17];
  }

  BloomFilter.Stage stage(int index) {
    if (index < 0) {
      handle.checkOpen();
      throw new IndexOutOfBoundsException("abloom: stage " + index + " (stages count from 0)");
    }
    return BloomFilter.Stage.of(index, info(index));
  }

  List<BloomFilter.Stage> stages() {
    int n = stageCount();
    List<BloomFilter.Stage> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(stage(i));
    }
    return List.copyOf(out);
  }

  // ---- comparing filters ------------------------------------------------------------------------

  /**
   * {@link BloomFilter#isCompatible}: both filters open and of one shape. This filter's closed
   * check comes first, then {@code other}'s (a null {@code other} throws there).
   */
  boolean compatible(BloomFilter other) {
    handle.checkOpen();
    FilterCore o = other.core;
    o.handle.checkOpen();
    return sameShape(o);
  }

  /**
   * {@link #compatible} without the open checks (for {@link BloomFilter#equals}). Growing
   * filters: made with the same options (their first stages' shapes, which the fields hold, and
   * the growth, first capacity and target: so every stage has the same shape as the other's);
   * never a growing filter and a fixed one.
   */
  boolean sameShape(FilterCore other) {
    return kind == other.kind
        && layout == other.layout
        && hashFunctions == other.hashFunctions
        && shards == other.shards
        && blocksPerShard == other.blocksPerShard
        && seed == other.seed
        && Double.compare(growth, other.growth) == 0
        && (!growing
            || capacity == other.capacity && Double.compare(targetFpp, other.targetFpp) == 0);
  }

  /**
   * {@link BloomFilter#equals} of two distinct filters: the same shape and the same bits, both
   * open (a closed filter equals no other). Never throws for a closed filter.
   */
  boolean sameBits(FilterCore other) {
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

  /** {@link BloomFilter#hashCode}: of the shape only (the fields, so also after close). */
  int shapeHash() {
    return Objects.hash(kind, layout, hashFunctions, shards, blocksPerShard, seed);
  }

  /** The shape, for the message of a failed combination (set operations). */
  String shape() {
    if (growing) {
      return "{growing, growth="
          + growth
          + ", kind="
          + kind
          + ", layout="
          + layout
          + ", first stage's capacity="
          + capacity
          + ", fpp="
          + targetFpp
          + ", shards="
          + shards
          + ", seed="
          + seed
          + "}";
    }
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

  /** {@link BloomFilter#toString}: never throws (the fields, and the published stages). */
  String describe() {
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
        + (growing ? ", growth=" + growth + ", stages=" + stageProbes.length : "")
        + (readOnly ? ", readOnly" : "")
        + (isClosed() ? ", closed" : "")
        + "}";
  }
}
