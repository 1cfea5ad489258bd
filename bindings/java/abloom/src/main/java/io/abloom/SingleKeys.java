package io.abloom;

import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The single-key calls of a {@link BloomFilter} (put, putIfAbsent's bodies, mightContain) and the
 * writer mode they follow: the bodies of those public methods, over the filter's {@link
 * FilterCore}.
 *
 * <p>They run in Java ({@link Probe}), over the engine's words: no JNI call per key. The hash
 * needs nothing of the filter's state; the memory access is what close() must not race:
 *
 * <ul>
 *   <li>Unguarded filters (all but writable mappings, and on Windows read-only ones too): close()
 *       never frees or unmaps memory a call can still reach. It gives an owned filter's pages
 *       back (they then read as zeros) and leaves the free to the Cleaner, which runs only once
 *       the filter's core is unreachable, and every call keeps it reachable to its end. A call
 *       checks {@code closed} before its loads and again after them (a load-load fence between):
 *       an answer read from released pages is never returned, an IllegalStateException is thrown
 *       instead. No atomic write per call.
 *   <li>Guarded filters register with the handle's in-flight counter, as JNI calls do.
 *   <li>Growing filters test their stages in Java too, newest first (see {@link
 *       FilterCore#publishStages}), but add through the engine: only it counts a stage's new keys
 *       and appends the next stage.
 * </ul>
 *
 * <p>The core's fixed facts a call reads are copied into this object's own final fields, so a
 * call reads them here.
 */
final class SingleKeys {
  private final FilterCore core;
  private final NativeHandle handle;
  private final Probe probe;
  private final boolean plain;
  private final boolean guarded;
  private final boolean growing;
  private final boolean readOnly;
  /** The writer mode's Java side: plain stores in the single-key adds (setWriterMode). */
  private boolean exclusive;

  SingleKeys(FilterCore core) {
    this.core = core;
    this.handle = core.handle;
    this.probe = core.probe;
    this.plain = core.plain;
    this.guarded = core.guarded;
    this.growing = core.growing;
    this.readOnly = core.readOnly;
  }

  // ---- the bodies of BloomFilter's single-key calls -----------------------------------------

  boolean put(byte[] key, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, key.length);
    return addHash(probe.hash(key, offset, length));
  }

  boolean put(String key) {
    return addHash(probe.hash(key));
  }

  boolean put(long key) {
    return addHash(probe.hash(key));
  }

  boolean put(ByteBuffer key) {
    return addHash(probe.hash(key));
  }

  boolean mightContain(byte[] key) {
    return testHash(probe.hash(key, 0, key.length));
  }

  boolean mightContain(byte[] key, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, key.length);
    return testHash(probe.hash(key, offset, length));
  }

  boolean mightContain(String key) {
    return testHash(probe.hash(key));
  }

  boolean mightContain(long key) {
    return testHash(probe.hash(key));
  }

  boolean mightContain(ByteBuffer key) {
    return testHash(probe.hash(key));
  }

  // ---- the writer mode ------------------------------------------------------------------------

  /** {@link BloomFilter#writerMode()}: the engine's. */
  WriterMode writerMode() {
    return WriterMode.of(core.call(AbloomNative::abloom_get_writer_mode));
  }

  /** {@link BloomFilter#setWriterMode}: the engine's, then this class's adds. */
  void setWriterMode(WriterMode mode) {
    Objects.requireNonNull(mode, "mode");
    int rc = core.call(h -> AbloomNative.abloom_set_writer_mode(h, mode.code()));
    if (rc != 0) {
      throw Errors.unchecked(rc, "setWriterMode");
    }
    exclusive = mode == WriterMode.EXCLUSIVE;
  }

  // ---- tests and adds of a hash ---------------------------------------------------------------

  private boolean testHash(long hash) {
    if (!plain) {
      return testHashGuardedOrGrowing(hash);
    }
    handle.checkOpen();
    boolean found = probe.test(hash);
    VarHandle.loadLoadFence();
    handle.checkOpen();
    Reference.reachabilityFence(core);
    return found;
  }

  private boolean testHashGuardedOrGrowing(long hash) {
    if (guarded) {
      handle.enter();
      try {
        return growing ? testStages(hash) : probe.test(hash);
      } finally {
        handle.exit();
        Reference.reachabilityFence(core);
      }
    }
    handle.checkOpen();
    boolean found = testStages(hash);
    VarHandle.loadLoadFence();
    handle.checkOpen();
    Reference.reachabilityFence(core);
    return found;
  }

  /** A growing filter's test: in any stage published, newest (the largest, most keys) first. */
  private boolean testStages(long hash) {
    Probe[] all = core.stageProbes;
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
      if ((rc >>> 1) > core.stageProbes.length) {
        core.publishStages(h);
      }
      return (rc & 1) != 0;
    } finally {
      handle.exit();
      Reference.reachabilityFence(core);
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
        Reference.reachabilityFence(core);
      }
    }
    handle.checkOpen();
    boolean fresh = probe.add(hash, exclusive);
    VarHandle.loadLoadFence();
    handle.checkOpen();
    Reference.reachabilityFence(core);
    return fresh;
  }
}
