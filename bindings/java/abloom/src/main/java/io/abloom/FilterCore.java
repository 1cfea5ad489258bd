package io.abloom;

import io.abloom.BloomFilter.Kind;
import io.abloom.BloomFilter.Storage;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * The state of a {@link BloomFilter} (its native handle and its shape, read once), the guard
 * around its native calls, its single-key calls and its shape accessors. {@link BloomFilter}
 * extends it through {@link BulkCalls}, so every public method here is a public method of
 * BloomFilter, documented as one (javadoc shows the public members of a package-private
 * superclass as the subclass's own, and javac gives the subclass public bridges to them, so
 * reflection finds them there too: as {@code StringBuilder} over {@code AbstractStringBuilder}).
 * The split keeps each source file readable; it is not a type of its own.
 */
abstract class FilterCore {
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
   * The single-key calls, in Java over the engine's own words (see "Single keys" below); for a
   * growing filter, its first stage's (every stage hashes with the one seed, so it hashes keys
   * for all of them).
   */
  final Probe probe;
  /** A growing filter's growth ({@code abloom_options.growth}); 0 for a fixed filter. */
  final double growth;
  /** Whether this is a growing filter (a chain of stages, see {@link BloomFilter#growing}). */
  final boolean growing;
  /**
   * A growing filter's stages as Java probes them, oldest first; null for a fixed filter. Only
   * ever replaced by a longer array (under {@link #stagesLock}), and written before any add that
   * appended a stage returns: see {@link #publishStages}.
   */
  volatile Probe[] stages;
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
  private final boolean plain;
  /** The writer mode's Java side: plain stores in the single-key adds (setWriterMode). */
  boolean exclusive;

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
        this.stages = new Probe[] {probe};
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
  final void publishStages(long address) {
    synchronized (stagesLock) {
      Probe[] now = stages;
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
      stages = next;
    }
  }

  /** {@link BloomFilter#close()}: marks the handle closed, waits for calls in flight, releases. */
  final void release() {
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
  final <R> R call(LongFunction<R> call) {
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
  final <R> R callAdding(LongFunction<R> call) {
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

  // ---- single keys ------------------------------------------------------------------------------

  // Single-key calls run in Java (Probe), over the engine's words: no JNI call per key. The hash
  // needs nothing of the filter's state; the memory access is what close() must not race:
  //  - Unguarded filters (all but writable mappings, and on Windows read-only ones too): close()
  //    never frees or unmaps memory a
  //    call can still reach. It gives an owned filter's pages back (they then read as zeros)
  //    and leaves the free to the Cleaner, which runs only once this object is unreachable, and
  //    every call keeps it reachable to its end. A call checks `closed` before its loads and
  //    again after them (a load-load fence between): an answer read from released pages is
  //    never returned, an IllegalStateException is thrown instead. No atomic write per call.
  //  - Guarded filters register with the handle's in-flight counter, as JNI calls do.

  //  - Growing filters test their stages in Java too, newest first (see publishStages), but add
  //    through the engine: only it counts a stage's new keys and appends the next stage.

  private boolean testHash(long hash) {
    if (!plain) {
      return testHashGuardedOrGrowing(hash);
    }
    handle.checkOpen();
    boolean found = probe.test(hash);
    VarHandle.loadLoadFence();
    handle.checkOpen();
    Reference.reachabilityFence(this);
    return found;
  }

  private boolean testHashGuardedOrGrowing(long hash) {
    if (guarded) {
      handle.enter();
      try {
        return growing ? testStages(hash) : probe.test(hash);
      } finally {
        handle.exit();
        Reference.reachabilityFence(this);
      }
    }
    handle.checkOpen();
    boolean found = testStages(hash);
    VarHandle.loadLoadFence();
    handle.checkOpen();
    Reference.reachabilityFence(this);
    return found;
  }

  /** A growing filter's test: in any stage published, newest (the largest, most keys) first. */
  private boolean testStages(long hash) {
    Probe[] all = stages;
    for (int i = all.length - 1; i >= 0; i--) {
      if (all[i].test(hash)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A growing filter's add: the engine's test-and-add of the hash, which returns the stage count
   * it read after the add; stages appended since the last publication are published before this
   * returns.
   */
  private boolean addToStages(long hash) {
    long h = handle.enter();
    try {
      long rc = AbloomNative.jab_grow_add_hash(h, hash);
      if (rc < 0) {
        throw Errors.unchecked(rc, "put");
      }
      if ((rc >>> 1) > stages.length) {
        publishStages(h);
      }
      return (rc & 1) != 0;
    } finally {
      handle.exit();
      Reference.reachabilityFence(this);
    }
  }

  /** Adds a hash; true if it was definitely new. */
  private boolean addHash(long hash) {
    if (readOnly) {
      handle.checkOpen();
      throw Errors.unchecked(AbloomError.READONLY.code(), "put");
    }
    if (!plain) {
      if (growing) {
        return addToStages(hash);
      }
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
    handle.checkOpen();
    return targetFpp;
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
    if (growing) {
      return Double.longBitsToDouble(info(-1)[9]);
    }
    handle.checkOpen();
    return modelFpp;
  }

  /**
   * The number of bits (Guava's {@code bitSize}); the native memory is bitSize / 8 bytes. For a
   * growing filter, its stages' bits together now (it grows as stages are appended).
   *
   * @return total bits
   * @throws IllegalStateException if the filter is closed
   */
  public long bitSize() {
    if (growing) {
      return info(-1)[4];
    }
    handle.checkOpen();
    return bits;
  }

  /**
   * The capacity the filter was sized for. For a growing filter, the keys its stages now hold
   * before the next is appended (their capacities together; it grows with them).
   *
   * @return expected insertions
   * @throws IllegalStateException if the filter is closed
   */
  public long expectedInsertions() {
    if (growing) {
      return info(-1)[6];
    }
    handle.checkOpen();
    return capacity;
  }

  /**
   * Probes (bits set) per key, k. For a growing filter, its newest stage's (each stage has its
   * own: see {@link BloomFilter#stage}).
   *
   * @return 1..64
   * @throws IllegalStateException if the filter is closed
   */
  public int hashFunctions() {
    if (growing) {
      return (int) info(-1)[1];
    }
    handle.checkOpen();
    return hashFunctions;
  }

  /** The engine's info of the whole filter (stage &lt; 0) or of one stage, under the guard. */
  final long[] info(int stage) {
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
    handle.checkOpen();
    return growing;
  }

  /**
   * A growing filter's growth: each stage's capacity over the last's.
   *
   * @return in (1, {@link BloomFilter#MAX_GROWTH}] for a growing filter; 0 for a fixed one
   * @throws IllegalStateException if the filter is closed
   */
  public double growth() {
    handle.checkOpen();
    return growth;
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
    int n = call(AbloomNative::jab_stages);
    if (n < 0) {
      throw Errors.unchecked(n, "stageCount");
    }
    return n;
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
    return info(-1)[15] != 0;
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
    return info(-1)[17];
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
    if (index < 0) {
      handle.checkOpen();
      throw new IndexOutOfBoundsException("abloom: stage " + index + " (stages count from 0)");
    }
    return BloomFilter.Stage.of(index, info(index));
  }

  /**
   * Every stage now, oldest first ({@link #stage} of each).
   *
   * @return an unmodifiable list of {@link #stageCount()} stages
   * @throws IllegalStateException if the filter is closed
   */
  public List<BloomFilter.Stage> stages() {
    int n = stageCount();
    List<BloomFilter.Stage> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(stage(i));
    }
    return List.copyOf(out);
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
    handle.checkOpen();
    return stale;
  }

  /**
   * Whether {@link BloomFilter#close() close()} has been called. Never throws.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /** {@link BloomFilter#isCompatible}: both filters open and of one shape. */
  final boolean compatible(FilterCore other) {
    handle.checkOpen();
    other.handle.checkOpen();
    return sameShape(other);
  }

  /**
   * {@link #compatible} without the open checks (for {@link BloomFilter#equals}). Growing
   * filters: made with the same options (their first stages' shapes, which the fields hold, and
   * the growth, first capacity and target: so every stage has the same shape as the other's);
   * never a growing filter and a fixed one.
   */
  final boolean sameShape(FilterCore other) {
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

  final String shape() {
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
}
