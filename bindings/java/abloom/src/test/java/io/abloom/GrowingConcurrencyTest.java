package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A growing filter's single-key tests run in Java over the stages it has published, while adds
 * go through the engine, which appends the stages: no test that happens after an add may miss
 * its key, however many stages were appended meanwhile and by whichever thread. Writers add
 * (key by key and in batches) and then publish how far they got through a shared counter;
 * readers read a counter and test keys below it, which happened before. Writers wait halfway
 * until every reader has tested (on a loaded machine they could otherwise finish first).
 */
class GrowingConcurrencyTest {
  private static final int WRITERS = 8;
  private static final int READERS = 4;
  private static final int KEYS_PER_WRITER = 12_000;
  private static final int BATCH = 300;

  /** Writer w's key i: disjoint ranges, as 8-byte longs or their 16-byte form. */
  private static long key(int w, long i) {
    return ((long) w << 40) | i;
  }

  @Test
  void testsNeverMissAKeyWhoseAddHappenedBefore() throws Exception {
    // a small first stage: 96000 keys take about eleven stage boundaries
    try (BloomFilter f =
        BloomFilter.builder().growth(2.0).initialCapacity(64).fpp(0.01).seed(0xC0DE).build()) {
      AtomicLongArray done = new AtomicLongArray(WRITERS); // keys each writer has added
      AtomicInteger writing = new AtomicInteger(WRITERS);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLongArray tested = new AtomicLongArray(READERS);
      CountDownLatch everyReaderTested = new CountDownLatch(READERS);
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        final int writer = w;
        threads.add(
            new Thread(
                () -> {
                  try {
                    boolean bytes = writer % 4 >= 2; // byte[] keys for half, longs for half
                    for (int i = 0; i < KEYS_PER_WRITER; i += BATCH) {
                      if (i == KEYS_PER_WRITER / 2 / BATCH * BATCH) {
                        // bounded: a reader that fails stops testing, and the test says why
                        everyReaderTested.await(60, TimeUnit.SECONDS);
                      }
                      if (writer % 2 == 0) { // key by key
                        for (int j = i; j < i + BATCH; j++) {
                          if (bytes) {
                            f.put(TestSupport.key16(key(writer, j)));
                          } else {
                            f.put(key(writer, j));
                          }
                          done.set(writer, j + 1); // published after the add returned
                        }
                      } else { // in batches
                        if (bytes) {
                          List<byte[]> keys = new ArrayList<>(BATCH);
                          for (int j = i; j < i + BATCH; j++) {
                            keys.add(TestSupport.key16(key(writer, j)));
                          }
                          f.putAll(keys);
                        } else {
                          long[] keys = new long[BATCH];
                          for (int j = 0; j < BATCH; j++) {
                            keys[j] = key(writer, i + j);
                          }
                          f.putAll(keys);
                        }
                        done.set(writer, i + BATCH);
                      }
                    }
                  } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                  } finally {
                    writing.decrementAndGet();
                  }
                }));
      }
      for (int r = 0; r < READERS; r++) {
        final int reader = r;
        threads.add(
            new Thread(
                () -> {
                  SplittableRandom rnd = new SplittableRandom(reader);
                  try {
                    while (writing.get() > 0 && failure.get() == null) {
                      int w = rnd.nextInt(WRITERS);
                      long upTo = done.get(w);
                      if (upTo == 0) {
                        continue;
                      }
                      // the newest key (just past a stage boundary, often) and a random older one
                      for (long i : new long[] {upTo - 1, rnd.nextLong(upTo)}) {
                        boolean found =
                            w % 4 >= 2
                                ? f.mightContain(TestSupport.key16(key(w, i)))
                                : f.mightContain(key(w, i));
                        if (!found) {
                          throw new AssertionError(
                              "false negative: writer " + w + " key " + i + " of " + upTo);
                        }
                      }
                      if (tested.incrementAndGet(reader) == 1) {
                        everyReaderTested.countDown();
                      }
                    }
                  } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                  }
                }));
      }
      for (Thread t : threads) {
        t.start();
      }
      for (Thread t : threads) {
        t.join();
      }
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      for (int r = 0; r < READERS; r++) {
        assertTrue(tested.get(r) > 0, "reader " + r + " tested nothing");
      }
      int stages = f.stageCount();
      assertTrue(stages >= 10, "stages: " + stages);
      assertEquals(stages, f.core.stageProbes.length, "every stage published");
      for (int w = 0; w < WRITERS; w++) {
        for (int i = 0; i < KEYS_PER_WRITER; i++) {
          boolean found =
              w % 4 >= 2 ? f.mightContain(TestSupport.key16(key(w, i))) : f.mightContain(key(w, i));
          assertTrue(found, "writer " + w + " key " + i + " after the join");
        }
      }
    }
  }

  /** The same with one thread: every add is seen by the next test, at every stage boundary. */
  @Test
  void oneThreadSeesEachAddAtOnce() {
    try (BloomFilter f = BloomFilter.builder().growth(2.0).initialCapacity(16).fpp(0.01).build()) {
      int seen = 1;
      for (long i = 0; i < 40_000; i++) {
        f.put(i);
        assertTrue(f.mightContain(i), "key " + i);
        if (f.core.stageProbes.length != seen) {
          seen = f.core.stageProbes.length;
          for (long j = 0; j <= i; j++) { // a new stage: every earlier key still found
            assertTrue(f.mightContain(j), "key " + j + " at stage " + seen);
          }
        }
      }
      assertTrue(seen >= 11, "stages: " + seen);
    }
  }
}
