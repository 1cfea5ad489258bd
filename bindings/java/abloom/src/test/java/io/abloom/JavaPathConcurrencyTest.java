package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-key calls in Java beside other threads: beside engine batch adds, and racing
 * close(), which must never let them read freed memory nor answer from released pages.
 */
class JavaPathConcurrencyTest {

  @TempDir Path dir;

  /**
   * Java adds from two threads, engine batch adds from a third and Java tests from a fourth, all
   * at once on one filter: no key is lost, and no key whose add returned is ever missing.
   */
  @Test
  void javaAndEngineAddsAndTestsRunConcurrently() throws Exception {
    int perThread = 60_000;
    try (BloomFilter f = BloomFilter.create(4L * perThread, 0.01)) {
      AtomicInteger published = new AtomicInteger(); // Java keys 0 .. published-1 are added
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean done = new AtomicBoolean();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int base = t * perThread;
        threads.add(
            new Thread(
                () -> {
                  await(start);
                  for (int i = 0; i < perThread; i++) {
                    f.put("java:" + (base + i));
                    if (base == 0) {
                      published.set(i + 1);
                    }
                  }
                }));
      }
      threads.add(
          new Thread(
              () -> {
                await(start);
                for (int from = 0; from < perThread; from += 1000) {
                  List<byte[]> batch = new ArrayList<>();
                  for (int i = from; i < from + 1000; i++) {
                    batch.add(("jni:" + i).getBytes(StandardCharsets.UTF_8));
                  }
                  f.putAll(batch);
                }
              }));
      Thread tester =
          new Thread(
              () -> {
                await(start);
                SplittableRandom r = new SplittableRandom(3);
                while (!done.get()) {
                  int upTo = published.get();
                  if (upTo > 0) {
                    int i = r.nextInt(upTo);
                    if (!f.mightContain("java:" + i)) {
                      failure.compareAndSet(null, new AssertionError("lost java:" + i));
                    }
                  }
                }
              });
      for (Thread t : threads) {
        t.start();
      }
      tester.start();
      start.countDown();
      for (Thread t : threads) {
        t.join();
      }
      done.set(true);
      tester.join();
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      for (int i = 0; i < 2 * perThread; i++) {
        assertTrue(f.mightContain("java:" + i), "java:" + i);
      }
      List<byte[]> jni = new ArrayList<>();
      for (int i = 0; i < perThread; i++) {
        jni.add(("jni:" + i).getBytes(StandardCharsets.UTF_8));
        assertTrue(f.mightContain("jni:" + i), "jni:" + i);
      }
      for (boolean b : f.mightContainAll(jni)) {
        assertTrue(b);
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * close() racing single-key calls, 1,000 rounds over owned filters (whose pages close() gives
   * back, so they read as zeros), read-only and read-write mappings: every call either answers
   * as the open filter would (its keys present, adds accepted) or throws
   * IllegalStateException; nothing else, and no crash.
   */
  @Test
  @Timeout(300)
  void closeRacingSingleKeyCallsGivesOnlyIllegalState() throws Exception {
    int keys = 2_000;
    Path ro = dir.resolve("race.abloom");
    Path rwSource = dir.resolve("race-rw.abloom");
    byte[][] present = new byte[keys][];
    // Sized over 2 MiB, so the owned filter's memory is mapped memory the engine gives back.
    try (BloomFilter f = BloomFilter.create(2_000_000, 0.01)) {
      for (int i = 0; i < keys; i++) {
        present[i] = ("k" + i).getBytes(StandardCharsets.UTF_8);
        f.put(present[i]);
      }
      f.save(ro);
      f.save(rwSource);
    }
    ConcurrentLinkedQueue<Throwable> wrong = new ConcurrentLinkedQueue<>();
    AtomicInteger illegalState = new AtomicInteger();
    for (int round = 0; round < 1000; round++) {
      BloomFilter f;
      switch (round % 4) {
        case 0:
        case 1:
          try (BloomFilter src = BloomFilter.open(ro)) {
            f = src.copy();
          }
          break;
        case 2:
          f = BloomFilter.open(ro);
          break;
        default:
          Path rw = dir.resolve("rw" + round + ".abloom");
          Files.copy(rwSource, rw);
          f = BloomFilter.open(rw, BloomFilter.OpenMode.READ_WRITE, false);
          break;
      }
      CountDownLatch go = new CountDownLatch(1);
      Thread[] readers = new Thread[3];
      for (int t = 0; t < readers.length; t++) {
        int id = t;
        readers[t] =
            new Thread(
                () -> {
                  await(go);
                  SplittableRandom r = new SplittableRandom(id);
                  try {
                    for (int i = 0; ; i++) {
                      byte[] k = present[r.nextInt(keys)];
                      boolean ok =
                          id == 2 && !f.isReadOnly()
                              ? !f.put(k) // a present key: put says "not new"
                              : f.mightContain(k);
                      if (!ok) {
                        wrong.add(new AssertionError("a present key answered absent"));
                        return;
                      }
                    }
                  } catch (IllegalStateException e) {
                    illegalState.incrementAndGet();
                  } catch (Throwable e) {
                    wrong.add(e);
                  }
                });
        readers[t].start();
      }
      go.countDown();
      Thread.sleep(0, 200_000);
      f.close();
      for (Thread t : readers) {
        t.join();
      }
      if (!wrong.isEmpty()) {
        throw new AssertionError("round " + round + " (" + f.storage() + ")", wrong.peek());
      }
    }
    assertEquals(3000, illegalState.get());
  }
}
