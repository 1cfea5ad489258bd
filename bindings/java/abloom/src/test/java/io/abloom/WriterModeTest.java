package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The writer modes: defaults, errors, identical bits, one writer beside concurrent readers. */
class WriterModeTest {

  @Test
  void defaultsAndErrors() throws Exception {
    BloomFilter f = BloomFilter.create(1000, 0.01);
    assertEquals(WriterMode.SHARED, f.writerMode());
    f.setWriterMode(WriterMode.EXCLUSIVE);
    assertEquals(WriterMode.EXCLUSIVE, f.writerMode());
    assertThrows(NullPointerException.class, () -> f.setWriterMode(null));
    assertEquals(WriterMode.EXCLUSIVE, f.writerMode());
    try (BloomFilter copy = f.copy();
        BloomFilter read = BloomFilter.fromByteArray(f.toByteArray())) {
      assertEquals(WriterMode.SHARED, copy.writerMode(), "a copy starts shared");
      assertEquals(WriterMode.SHARED, read.writerMode(), "so does a deserialized filter");
    }
    f.close();
    assertThrows(IllegalStateException.class, () -> f.setWriterMode(WriterMode.SHARED));
    assertThrows(IllegalStateException.class, f::writerMode);
  }

  private static byte[] build(WriterMode mode, boolean[] seen, long[] counts) {
    try (BloomFilter f = BloomFilter.builder().expectedInsertions(20_000).seed(11).build();
        BloomFilter other = BloomFilter.builder().expectedInsertions(20_000).seed(11).build()) {
      for (long i = 0; i < 500; i++) {
        other.put(TestSupport.key16(900_000 + i));
      }
      f.setWriterMode(mode);
      for (long i = 0; i < 3000; i++) {
        f.put(TestSupport.key16(i));
      }
      for (long i = 0; i < 2000; i++) {
        f.put(i * 7919);
      }
      for (int i = 0; i < 1100; i++) {
        seen[i] = !f.putIfAbsent(TestSupport.key16(i < 1000 ? 10_000 + i : i - 1000));
      }
      List<byte[]> batch = new ArrayList<>();
      for (long i = 0; i < 3000; i++) {
        batch.add(TestSupport.key16(20_000 + i));
      }
      counts[0] = f.putAll(batch);
      long[] longs = new long[2000];
      for (int i = 0; i < longs.length; i++) {
        longs[i] = 31_000_000L + i;
      }
      counts[1] = f.putAll(longs);
      f.putAll(other);
      return f.toByteArray();
    }
  }

  @Test
  void exclusiveSetsTheBitsSharedSets() {
    boolean[] sharedSeen = new boolean[1100];
    boolean[] exclusiveSeen = new boolean[1100];
    long[] sharedCounts = new long[2];
    long[] exclusiveCounts = new long[2];
    byte[] shared = build(WriterMode.SHARED, sharedSeen, sharedCounts);
    byte[] exclusive = build(WriterMode.EXCLUSIVE, exclusiveSeen, exclusiveCounts);
    assertArrayEquals(shared, exclusive);
    assertArrayEquals(sharedSeen, exclusiveSeen);
    assertArrayEquals(sharedCounts, exclusiveCounts);
    for (int i = 1000; i < 1100; i++) {
      assertTrue(exclusiveSeen[i], "a key added before is reported present");
    }
  }

  @Test
  void oneExclusiveWriterWithConcurrentReaders() throws Exception {
    final int n = 20_000;
    final int batch = 500;
    try (BloomFilter f = BloomFilter.create(n, 0.01)) {
      f.setWriterMode(WriterMode.EXCLUSIVE);
      AtomicInteger published = new AtomicInteger();
      AtomicBoolean failed = new AtomicBoolean();
      Thread writer =
          new Thread(
              () -> {
                for (int i = 0; i < n; i += batch) {
                  List<byte[]> part = new ArrayList<>();
                  for (int j = i; j < i + batch; j++) {
                    part.add(TestSupport.key16(j));
                  }
                  f.putAll(part);
                  published.set(i + batch);
                }
              });
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        readers.add(
            new Thread(
                () -> {
                  int checked = 0;
                  while (checked < n) {
                    int upto = published.get();
                    for (; checked < upto; checked++) {
                      if (!f.mightContain(TestSupport.key16(checked))) {
                        failed.set(true);
                      }
                    }
                    Thread.onSpinWait();
                  }
                }));
      }
      writer.start();
      readers.forEach(Thread::start);
      writer.join();
      for (Thread t : readers) {
        t.join();
      }
      assertFalse(failed.get(), "a published key tested absent");
    }
  }
}
