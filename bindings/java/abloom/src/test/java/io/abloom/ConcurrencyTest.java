package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Many threads on one filter: no false negatives, test-and-add's guarantee, close under load. */
class ConcurrencyTest {
  private static final int THREADS = 8;
  private ExecutorService pool;

  @BeforeEach
  void start() {
    pool = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
  }

  private <T> List<T> runAll(List<Callable<T>> tasks) throws Exception {
    List<Future<T>> futures = new ArrayList<>();
    for (Callable<T> t : tasks) {
      futures.add(pool.submit(t));
    }
    List<T> out = new ArrayList<>();
    for (Future<T> f : futures) {
      out.add(f.get(120, TimeUnit.SECONDS));
    }
    return out;
  }

  @Test
  void manyThreadsAddAndTestWithoutFalseNegatives() throws Exception {
    int perThread = 40_000;
    try (BloomFilter f = BloomFilter.create((long) THREADS * perThread, 0.01)) {
      CountDownLatch go = new CountDownLatch(1);
      List<Callable<Long>> tasks = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        final long base = (long) t * perThread;
        final int mode = t % 3;
        tasks.add(
            () -> {
              go.await();
              long checked = 0;
              int batch = 256;
              for (int i = 0; i < perThread; i += batch) {
                long[] offsets = new long[batch + 1];
                byte[] packed = new byte[batch * 16];
                for (int j = 0; j < batch; j++) {
                  System.arraycopy(TestSupport.key16(base + i + j), 0, packed, j * 16, 16);
                  offsets[j + 1] = (j + 1) * 16L;
                }
                if (mode == 0) {
                  f.putAll(packed, offsets);
                } else if (mode == 1) {
                  for (int j = 0; j < batch; j++) {
                    f.put(TestSupport.key16(base + i + j));
                  }
                } else {
                  for (int j = 0; j < batch; j++) {
                    f.putIfAbsent(TestSupport.key16(base + i + j));
                  }
                }
                // this thread's adds are ordered before its own tests: never a false negative
                for (boolean b : f.mightContainAll(packed, offsets)) {
                  if (!b) {
                    throw new AssertionError("false negative right after add");
                  }
                }
                for (int j = 0; j < batch; j += 17) {
                  if (!f.mightContain(TestSupport.key16(base + i + j))) {
                    throw new AssertionError("false negative (single) right after add");
                  }
                  checked++;
                }
                // and read what others are doing (any answer is fine; it must not fail)
                f.mightContain(TestSupport.key16((base + i + 7919L * 13) % (THREADS * perThread)));
              }
              return checked;
            });
      }
      go.countDown();
      long checked = runAll(tasks).stream().mapToLong(Long::longValue).sum();
      assertTrue(checked > 0);
      // after every join: every key of every thread is in
      for (long i = 0; i < (long) THREADS * perThread; i++) {
        if (!f.mightContain(TestSupport.key16(i))) {
          throw new AssertionError("false negative for key " + i);
        }
      }
      long est = f.approximateElementCount();
      assertTrue(Math.abs(est - THREADS * perThread) < THREADS * perThread * 0.03, "est " + est);
    }
  }

  @Test
  void concurrentPutIfAbsentReportsEveryNewKeyAtLeastOnce() throws Exception {
    int keys = 20_000;
    AtomicIntegerArray wins = new AtomicIntegerArray(keys);
    try (BloomFilter f = BloomFilter.create(keys, 0.01)) {
      CountDownLatch go = new CountDownLatch(1);
      List<Callable<Void>> tasks = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        final int start = t * 997;
        tasks.add(
            () -> {
              go.await();
              for (int i = 0; i < keys; i++) {
                int k = (start + i) % keys;
                if (f.putIfAbsent(TestSupport.key16(k))) {
                  wins.incrementAndGet(k);
                }
              }
              return null;
            });
      }
      go.countDown();
      runAll(tasks);
      int none = 0;
      for (int k = 0; k < keys; k++) {
        if (wins.get(k) == 0) {
          none++; // only a key that was already a false positive when first added
        }
      }
      // at 1% (and less while the filter fills), expect ~100; 6 sd above is ~160
      assertTrue(none < 200, none + " keys were never reported new");
    }
  }

  @Test
  void unionWhileAdding() throws Exception {
    BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(200_000).seed(11);
    try (BloomFilter src = b.build();
        BloomFilter dst = b.build()) {
      CountDownLatch go = new CountDownLatch(1);
      List<Callable<Void>> tasks = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        final long base = t * 50_000L;
        tasks.add(
            () -> {
              go.await();
              for (long i = 0; i < 50_000; i++) {
                src.put(base + i);
              }
              return null;
            });
      }
      tasks.add(
          () -> {
            go.await();
            for (int r = 0; r < 20; r++) {
              dst.putAll(src);
            }
            return null;
          });
      go.countDown();
      runAll(tasks);
      dst.putAll(src);
      for (long i = 0; i < 200_000; i++) {
        assertTrue(dst.mightContain(i));
      }
      assertEquals(src, dst);
    }
  }

  @Test
  void closeWaitsForALongNativeCall() throws Exception {
    long[] keys = new long[4_000_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i;
    }
    for (int round = 0; round < 3; round++) {
      BloomFilter f = BloomFilter.create(keys.length, 0.01);
      CountDownLatch calling = new CountDownLatch(1);
      Future<Long> worker =
          pool.submit(
              () -> {
                calling.countDown();
                try {
                  return f.putAll(keys); // a long call: close must not free under it
                } catch (IllegalStateException e) {
                  return -1L; // close came first
                }
              });
      calling.await();
      Thread.sleep(round);
      f.close();
      long added = worker.get(60, TimeUnit.SECONDS);
      assertTrue(added == -1L || added > keys.length * 0.98, "added " + added);
      assertTrue(f.isClosed());
    }
  }

  @Test
  void closeWhileOtherThreadsUseTheFilter() throws Exception {
    for (int round = 0; round < 20; round++) {
      BloomFilter f = BloomFilter.create(100_000, 0.01);
      BloomFilter other = BloomFilter.create(100_000, 0.01);
      AtomicLong calls = new AtomicLong();
      CountDownLatch started = new CountDownLatch(THREADS - 2);
      List<Callable<String>> tasks = new ArrayList<>();
      for (int t = 0; t < THREADS - 2; t++) {
        final int mode = t;
        tasks.add(
            () -> {
              started.countDown();
              byte[] packed = new byte[64 * 16];
              long[] offsets = new long[65];
              for (int j = 0; j <= 64; j++) {
                offsets[j] = j * 16L;
              }
              try {
                for (long i = 0; ; i++) {
                  switch (mode % 6) {
                    case 0:
                      f.put(i);
                      break;
                    case 1:
                      f.mightContain(TestSupport.key16(i));
                      break;
                    case 2:
                      f.putAll(packed, offsets);
                      break;
                    case 3:
                      f.mightContainAll(packed, offsets);
                      break;
                    case 4:
                      other.putAll(f);
                      break;
                    default:
                      f.toByteArray();
                      break;
                  }
                  calls.incrementAndGet();
                }
              } catch (IllegalStateException e) {
                return e.getMessage();
              }
            });
      }
      List<Future<String>> futures = new ArrayList<>();
      for (Callable<String> t : tasks) {
        futures.add(pool.submit(t));
      }
      started.await();
      Thread.sleep(5);
      // two closers at once
      Future<?> c1 = pool.submit(f::close);
      Future<?> c2 = pool.submit(f::close);
      c1.get(30, TimeUnit.SECONDS);
      c2.get(30, TimeUnit.SECONDS);
      assertTrue(f.isClosed());
      for (Future<String> fu : futures) {
        String msg = fu.get(30, TimeUnit.SECONDS);
        assertTrue(msg.contains("closed"), msg);
      }
      assertTrue(calls.get() > 0);
      other.close();
    }
  }
}
