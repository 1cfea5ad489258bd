package io.abloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The native filter pointer of one {@link BloomFilter}, the guard that keeps {@code close()} from
 * freeing it while another thread is inside a native call, and the {@link java.lang.ref.Cleaner}
 * action that frees it (it holds no reference to the BloomFilter).
 *
 * <p>The guard is an in-flight counter striped over padded cache lines (by thread id), so
 * threads calling into one filter do not all write one shared word. A call does {@link #enter}
 * (increment its stripe, then read {@code closed}) and {@link #exit} (decrement); {@code close}
 * sets {@code closed}, then waits until every stripe is zero. Both sides use volatile accesses
 * (sequentially consistent), so either the caller sees {@code closed} and backs out, or close
 * sees the caller's increment and waits for it.
 */
final class NativeHandle implements Runnable {
  private static final int STRIPES = 16; // a power of two
  private static final int PAD = 16; // longs per stripe: 128 bytes, two cache lines
  private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle CLOSED;

  static {
    try {
      CLOSED = MethodHandles.lookup().findVarHandle(NativeHandle.class, "closed", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long address;
  private final long[] counts = new long[(STRIPES + 1) * PAD];
  @SuppressWarnings("unused") // read and written through CLOSED
  private volatile boolean closed;
  /** Kept reachable until the pointer is freed: the buffer under a view, or null. */
  @SuppressWarnings("unused")
  private final Object attachment;

  NativeHandle(long address, Object attachment) {
    this.address = address;
    this.attachment = attachment;
  }

  private static int stripe() {
    long id = Thread.currentThread().getId();
    return (int) ((id * 0x9E3779B97F4A7C15L) >>> (64 - 4)) * PAD + PAD;
  }

  /**
   * Registers a call in flight and returns the pointer.
   *
   * @throws IllegalStateException if the filter is closed
   */
  long enter() {
    int i = stripe();
    COUNTS.getAndAdd(counts, i, 1L);
    if ((boolean) CLOSED.getVolatile(this)) {
      COUNTS.getAndAdd(counts, i, -1L);
      throw closed();
    }
    return address;
  }

  /**
   * Checks that the filter is open, for calls that read no native memory (the shape accessors).
   *
   * @throws IllegalStateException if the filter is closed
   */
  void checkOpen() {
    if ((boolean) CLOSED.getVolatile(this)) {
      throw closed();
    }
  }

  private static IllegalStateException closed() {
    return new IllegalStateException("abloom: the BloomFilter is closed");
  }

  /** Like {@link #enter} but returns 0 instead of throwing when closed. */
  long tryEnter() {
    int i = stripe();
    COUNTS.getAndAdd(counts, i, 1L);
    if ((boolean) CLOSED.getVolatile(this)) {
      COUNTS.getAndAdd(counts, i, -1L);
      return 0L;
    }
    return address;
  }

  /** Ends a call registered by {@link #enter} in this thread. */
  void exit() {
    COUNTS.getAndAdd(counts, stripe(), -1L);
  }

  /** The pointer, for close() once the handle is closed and quiescent (no guard). */
  long address() {
    return address;
  }

  boolean isClosed() {
    return (boolean) CLOSED.getVolatile(this);
  }

  /** Marks the handle closed; true for the one caller that did it. */
  boolean markClosed() {
    return CLOSED.compareAndSet(this, false, true);
  }

  /** Waits until no call is in flight (after {@link #markClosed}, none can start). */
  void awaitQuiescent() {
    for (int spins = 0; ; spins++) {
      long sum = 0;
      for (int s = 1; s <= STRIPES; s++) {
        sum += (long) COUNTS.getVolatile(counts, s * PAD);
      }
      if (sum == 0) {
        return;
      }
      if (spins < 100) {
        Thread.onSpinWait();
      } else if (spins < 200) {
        Thread.yield();
      } else {
        LockSupport.parkNanos(50_000L);
      }
    }
  }

  /** The Cleaner action: frees the native filter. The Cleaner runs it at most once. */
  @Override
  public void run() {
    AbloomNative.abloom_free(address);
  }
}
