package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native bulk calls' threads ({@link BloomFilter#setThreads}, {@link BloomFilter#threads}):
 * bad counts refused, where each filter starts, and batches above the split threshold giving the
 * single-threaded answers and bits on 4 threads.
 */
class ThreadsTest {

  /** Above the C library's threshold for splitting a batch (65536 keys). */
  private static final int N = 70_000;

  private static final int MAX = BloomFilter.MAX_THREADS;

  /** MAX accepted and MAX + 1 refused by the native call: MAX_THREADS is the header's limit. */
  @Test
  void setThreadsReadsBackAndRefusesBadCounts() {
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      assertEquals(1, f.threads(), "a new filter without the option");
      int[][] cases = {{4, 4}, {0, 1}, {MAX, MAX}, {1, 1}, {3, 3}};
      for (int[] c : cases) {
        f.setThreads(c[0]);
        assertEquals(c[1], f.threads(), "setThreads(" + c[0] + ")");
      }
      for (int bad : new int[] {MAX + 1, 1000, Integer.MAX_VALUE, -1, Integer.MIN_VALUE}) {
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> f.setThreads(bad), "" + bad);
        assertEquals(
            "abloom: setThreads: threads must be in 0..256, got " + bad, e.getMessage());
        assertEquals(3, f.threads(), "a refused setThreads(" + bad + ") changed the count");
      }
    }
  }

  @Test
  void builtFiltersStartAtTheOption() {
    int[][] cases = {{0, 1}, {1, 1}, {4, 4}, {MAX, MAX}};
    for (int[] c : cases) {
      try (BloomFilter f = BloomFilter.builder().expectedInsertions(1000).threads(c[0]).build()) {
        assertEquals(c[1], f.threads(), "Builder.threads(" + c[0] + ")");
      }
    }
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().threads(MAX + 1));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().threads(-1));
  }

  @Test
  void copiesCopyTheCountAndKeepTheirOwn() {
    try (BloomFilter f = BloomFilter.builder().expectedInsertions(1000).threads(2).build()) {
      f.setThreads(7);
      try (BloomFilter c = f.copy()) {
        assertEquals(7, c.threads());
        c.setThreads(1);
        assertEquals(7, f.threads());
        assertEquals(1, c.threads());
      }
    }
  }

  @Test
  void readAndOpenedFiltersStartAtOneThread(@TempDir Path tmp) throws Exception {
    try (BloomFilter f = BloomFilter.builder().expectedInsertions(1000).threads(4).seed(3).build();
        BloomFilter g = BloomFilter.builder().expectedInsertions(1000).threads(1).seed(3).build()) {
      f.put("a");
      g.put("a");
      byte[] bytes = f.toByteArray();
      assertArrayEquals(g.toByteArray(), bytes, "the count is in the bytes");
      Path path = tmp.resolve("f.abloom");
      f.save(path);
      ByteBuffer view = ByteBuffer.allocateDirect(bytes.length + 64).alignedSlice(64);
      view.put(bytes).flip();

      List<BloomFilter> loaded = new ArrayList<>();
      try {
        loaded.add(BloomFilter.fromByteArray(bytes));
        loaded.add(BloomFilter.readFrom(new java.io.ByteArrayInputStream(bytes)));
        loaded.add(BloomFilter.wrap(view, true));
        loaded.add(BloomFilter.open(path));
        for (BloomFilter.OpenMode mode : BloomFilter.OpenMode.values()) {
          loaded.add(BloomFilter.open(path, mode, true));
        }
        for (BloomFilter h : loaded) {
          assertEquals(1, h.threads(), h.toString());
          assertTrue(h.mightContain("a"));
          // Read-only filters take a count too (for their batch tests).
          h.setThreads(4);
          assertEquals(4, h.threads(), h.toString());
        }
      } finally {
        for (BloomFilter h : loaded) {
          h.close();
        }
      }
    }
  }

  private static List<byte[]> strings(String prefix, int from, int n) {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = from; i < from + n; i++) {
      out.add((prefix + i).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  /** Packed bytes and n + 1 long offsets of keys. */
  private static Object[] packed(List<byte[]> keys) {
    long[] offsets = new long[keys.size() + 1];
    int total = 0;
    for (int i = 0; i < keys.size(); i++) {
      offsets[i] = total;
      total += keys.get(i).length;
    }
    offsets[keys.size()] = total;
    byte[] buf = new byte[total];
    for (int i = 0; i < keys.size(); i++) {
      System.arraycopy(keys.get(i), 0, buf, (int) offsets[i], keys.get(i).length);
    }
    return new Object[] {buf, offsets};
  }

  private record Run(List<Long> added, List<Long> found, List<boolean[]> answers, byte[] bytes) {}

  private static int[] narrow(long[] offsets) {
    int[] out = new int[offsets.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = Math.toIntExact(offsets[i]);
    }
    return out;
  }

  private static long[] longs(long from, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = (from + i) * 7919;
    }
    return out;
  }

  /** Every batch form, on {@code threads} threads. */
  private static Run run(BloomFilter.Builder builder, int threads) {
    List<byte[]> listKeys = strings("list-", 0, N);
    Object[] p = packed(strings("packed-", 0, N));
    byte[] buf = (byte[]) p[0];
    long[] offsets = (long[]) p[1];
    Object[] p32 = packed(strings("packed32-", 0, N));
    byte[] buf32 = (byte[]) p32[0];
    int[] offsets32 = narrow((long[]) p32[1]);
    long[] longKeys = longs(0, N);
    Object[] d = packed(strings("direct-", 0, N));
    byte[] dbytes = (byte[]) d[0];
    ByteBuffer direct = ByteBuffer.allocateDirect(dbytes.length).put(dbytes).flip();
    long[] doffsets = (long[]) d[1];
    // Half present, half new.
    List<byte[]> probeList = strings("list-", N / 2, N);
    Object[] pp = packed(strings("packed-", N / 2, N));
    byte[] pbuf = (byte[]) pp[0];
    long[] poffsets = (long[]) pp[1];
    Object[] pd = packed(strings("direct-", N / 2, N));
    byte[] pdbytes = (byte[]) pd[0];
    ByteBuffer pdirect = ByteBuffer.allocateDirect(pdbytes.length).put(pdbytes).flip();
    long[] pdoffsets = (long[]) pd[1];
    Object[] pp32 = packed(strings("packed32-", N / 2, N));
    byte[] pbuf32 = (byte[]) pp32[0];
    int[] poffsets32 = narrow((long[]) pp32[1]);
    long[] probeLongs = longs(N / 2, N);

    List<Long> added = new ArrayList<>();
    List<Long> found = new ArrayList<>();
    List<boolean[]> answers = new ArrayList<>();
    try (BloomFilter f = builder.build();
        BloomFilter g = builder.build()) {
      f.setThreads(threads);
      g.setThreads(threads);
      added.add(f.putAll(listKeys));
      added.add(f.putAll(buf, offsets));
      added.add(f.putAll(direct, doffsets));
      added.add(f.putAll(probeList)); // half of it there already
      added.add(f.putAll(buf32, offsets32));
      added.add(f.putAll(longKeys));
      // g holds the first halves only, so that half of each probe is absent from it.
      g.putAll(listKeys);
      g.putAll(buf, offsets);
      g.putAll(direct, doffsets);
      g.putAll(buf32, offsets32);
      g.putAll(longKeys);
      for (BloomFilter h : List.of(f, g)) {
        boolean[] a = h.mightContainAll(probeList);
        answers.add(a);
        found.add(count(a));
        a = new boolean[N];
        found.add(h.mightContainAll(pbuf, poffsets, a));
        answers.add(a);
        a = h.mightContainAll(pbuf, poffsets);
        answers.add(a);
        a = new boolean[N];
        found.add(h.mightContainAll(pdirect, pdoffsets, a));
        answers.add(a);
        a = new boolean[N];
        found.add(h.mightContainAll(pbuf32, poffsets32, a));
        answers.add(a);
        a = h.mightContainAll(pbuf32, poffsets32);
        answers.add(a);
        a = h.mightContainAll(probeLongs);
        answers.add(a);
        found.add(count(a));
      }
      for (boolean[] a : answers.subList(answers.size() / 2, answers.size())) {
        for (int i = 0; i < N / 2; i++) {
          assertTrue(a[i], "a false negative");
        }
      }
      return new Run(added, found, answers, f.toByteArray());
    }
  }

  private static long count(boolean[] a) {
    long n = 0;
    for (boolean b : a) {
      n += b ? 1 : 0;
    }
    return n;
  }

  @Test
  void fourThreadsGiveTheSingleThreadedAnswersAndBits() {
    Object[][] shapes = {
      {"blocked split", BloomFilter.builder().layout(Layout.SPLIT)},
      {"blocked split, 8 shards", BloomFilter.builder().layout(Layout.SPLIT).shards(8)},
      {"blocked distinct", BloomFilter.builder().layout(Layout.DISTINCT)},
      {"classic, 8 shards", BloomFilter.builder().kind(BloomFilter.Kind.CLASSIC).shards(8)},
    };
    for (Object[] s : shapes) {
      String name = (String) s[0];
      BloomFilter.Builder b =
          ((BloomFilter.Builder) s[1]).expectedInsertions(8L * N).fpp(0.01).seed(11);
      Run one = run(b, 1);
      Run four = run(b, 4);
      assertEquals(one.added(), four.added(), name + ": keys new");
      assertTrue(
          one.added().get(0) >= N * 99L / 100 && one.added().get(3) <= N / 2 + 200,
          name + ": implausible counts " + one.added());
      assertEquals(one.found(), four.found(), name + ": keys found");
      for (int i = 0; i < one.answers().size(); i++) {
        assertArrayEquals(one.answers().get(i), four.answers().get(i), name + ": answers " + i);
      }
      assertArrayEquals(one.bytes(), four.bytes(), name + ": bits");
    }
  }

  @Test
  void anOpenedFilterGivenThreadsAnswersTheSame(@TempDir Path tmp) throws Exception {
    Path path = tmp.resolve("f.abloom");
    try (BloomFilter f = BloomFilter.create(2L * N, 0.01)) {
      f.putAll(strings("k", 0, N));
      f.save(path);
    }
    List<byte[]> probe = strings("k", N / 2, N);
    try (BloomFilter o = BloomFilter.open(path)) {
      boolean[] one = o.mightContainAll(probe);
      o.setThreads(4);
      boolean[] four = o.mightContainAll(probe);
      assertArrayEquals(one, four);
      assertTrue(count(one) >= N / 2);
      assertThrows(UnsupportedOperationException.class, () -> o.putAll(probe));
    }
  }

  @Test
  void setThreadsWhileOtherThreadsRunBatches() throws Exception {
    BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(3L * N).seed(4);
    List<List<byte[]>> batches = List.of(strings("t0-", 0, N), strings("t1-", 0, N));
    try (BloomFilter f = b.build();
        BloomFilter reference = b.build()) {
      for (List<byte[]> batch : batches) {
        reference.putAll(batch);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread setter =
          new Thread(
              () -> {
                try {
                  for (int i = 0; !stop.get(); i++) {
                    f.setThreads(i % 5);
                    int t = f.threads();
                    if (t < 1 || t > 4) {
                      throw new AssertionError("threads() = " + t);
                    }
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              });
      List<Thread> workers = new ArrayList<>();
      for (List<byte[]> batch : batches) {
        workers.add(
            new Thread(
                () -> {
                  try {
                    for (int rep = 0; rep < 3; rep++) {
                      f.putAll(batch);
                      boolean[] a = f.mightContainAll(batch);
                      if (count(a) != batch.size()) {
                        throw new AssertionError("a false negative beside setThreads");
                      }
                    }
                  } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                  }
                }));
      }
      setter.start();
      workers.forEach(Thread::start);
      for (Thread w : workers) {
        w.join();
      }
      stop.set(true);
      setter.join();
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      assertEquals(reference, f, "batches beside setThreads set other bits than one thread");
    }
  }

  @Test
  void afterClose() {
    BloomFilter f = BloomFilter.create(1000, 0.01);
    f.close();
    assertThrows(IllegalStateException.class, () -> f.setThreads(4));
    assertThrows(IllegalStateException.class, f::threads);
    // Closed is told before a bad count.
    assertThrows(IllegalStateException.class, () -> f.setThreads(MAX + 1));
  }
}
