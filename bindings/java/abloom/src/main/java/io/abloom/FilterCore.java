package io.abloom;

import io.abloom.BloomFilter.Kind;
import io.abloom.BloomFilter.Storage;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
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
  /** The single-key calls, in Java over the engine's own words (see "Single keys" below). */
  final Probe probe;
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
  /** The writer mode's Java side: plain stores in the single-key adds (setWriterMode). */
  boolean exclusive;

  /** Takes ownership of a native filter (freed here if anything fails). */
  FilterCore(long address, Object attachment) {
    this.handle = new NativeHandle(address, attachment);
    this.cleanable = CLEANER.register(this, handle);
    long[] info = new long[14]; // as many as jab_info writes (it does not check the length)
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
    this.stale = info[13] != 0;
    this.guarded = storage == Storage.MAPPED && (!readOnly || UNMAP_READ_ONLY_AT_CLOSE);
    try {
      this.probe = probe(shardBuffers(address, Probe.MAX_CHUNK_SHIFT), Probe.MAX_CHUNK_SHIFT);
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
    return probe(call(h -> shardBuffers(h, chunkShift)), chunkShift);
  }

  /** {@link Probe#over} this filter's shape (which takes a BloomFilter, not this superclass). */
  private Probe probe(ByteBuffer[] chunks, int chunkShift) {
    long blocks = bits / shards / 512;
    return Probe.of(chunks, chunkShift, kind, layout, hashFunctions, shards, blocks, seed);
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

  // ---- shape ------------------------------------------------------------------------------------

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

  /** {@link #compatible} without the open checks (for {@link BloomFilter#equals}). */
  final boolean sameShape(FilterCore other) {
    return kind == other.kind
        && layout == other.layout
        && hashFunctions == other.hashFunctions
        && shards == other.shards
        && blocksPerShard == other.blocksPerShard
        && seed == other.seed;
  }

  final String shape() {
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
