package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Behaviour of every public operation on working inputs. */
class ApiTest {

  @Test
  void createAndBasicAnswers() {
    try (BloomFilter f = BloomFilter.create(10_000, 0.01)) {
      assertEquals(BloomFilter.Kind.BLOCKED, f.kind());
      assertEquals(10_000, f.expectedInsertions());
      assertEquals(0.01, f.targetFpp());
      assertTrue(f.modelFpp() <= 0.01 && f.modelFpp() > 0.005, "model " + f.modelFpp());
      assertEquals(0, f.bitSize() % 512);
      assertEquals(BloomFilter.Storage.OWNED, f.storage());
      assertFalse(f.isReadOnly());
      assertEquals(0.0, f.expectedFpp());
      assertEquals(0, f.approximateElementCount());
      assertFalse(f.mightContain("alice"));
      assertTrue(f.put("alice"));
      assertFalse(f.put("alice"), "a repeat is not new");
      assertTrue(f.mightContain("alice"));
      assertTrue(f.mightContain(TestSupport.utf8("alice")));
      assertTrue(f.toString().contains("BLOCKED"));
    }
    try (BloomFilter g = BloomFilter.create(1000)) {
      assertEquals(0.03, g.targetFpp());
    }
    assertTrue(BloomFilter.nativeVersion().matches("\\d+\\.\\d+\\.\\d+"));
  }

  @Test
  void keyFormsAreTheirBytes() {
    try (BloomFilter f = BloomFilter.create(1000, 0.001)) {
      // long: 8 bytes little-endian
      f.put(0x0807060504030201L);
      assertTrue(f.mightContain(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
      assertTrue(f.putIfAbsent(new byte[] {9, 9}));
      assertFalse(f.putIfAbsent(new byte[] {9, 9}));
      // String: UTF-8, including characters outside the BMP and NUL
      String s = "gr\u00fc\u00dfe \ud83d\ude00 \u0000end";
      assertTrue(f.putIfAbsent(s));
      assertFalse(f.putIfAbsent(s));
      assertTrue(f.mightContain(TestSupport.utf8(s)));
      // a slice
      byte[] big = TestSupport.utf8("xxhello-worldyy");
      assertTrue(f.put(big, 2, 11));
      assertTrue(f.mightContain("hello-world"));
      assertTrue(f.mightContain(big, 2, 11));
      // the empty key
      assertTrue(f.put(new byte[0]));
      assertTrue(f.mightContain(""));
      // putIfAbsent(long)
      assertTrue(f.putIfAbsent(42L));
      assertFalse(f.putIfAbsent(42L));
      assertTrue(f.mightContain(new byte[] {42, 0, 0, 0, 0, 0, 0, 0}));
    }
  }

  @Test
  void everyKeyLengthTakesTheSamePathToTheSameBits() {
    // single keys up to 128 bytes are copied, longer ones pinned; batches always pin: all must
    // agree, around the threshold too
    int max = 300;
    List<byte[]> keys = new ArrayList<>();
    for (int len = 0; len <= max; len++) {
      byte[] k = new byte[len];
      for (int i = 0; i < len; i++) {
        k[i] = (byte) (len * 31 + i);
      }
      keys.add(k);
    }
    try (BloomFilter single = BloomFilter.create(1000, 0.001);
        BloomFilter batch = BloomFilter.create(1000, 0.001);
        BloomFilter buffers = BloomFilter.create(1000, 0.001)) {
      for (byte[] k : keys) {
        assertTrue(single.put(k));
        byte[] framed = new byte[k.length + 6];
        System.arraycopy(k, 0, framed, 3, k.length);
        assertTrue(single.mightContain(framed, 3, k.length));
        ByteBuffer heap = ByteBuffer.wrap(framed, 3, k.length);
        assertTrue(buffers.put(heap));
        assertTrue(buffers.mightContain(heap));
        assertFalse(buffers.put(heap.slice()));
      }
      assertEquals(keys.size(), batch.putAll(keys));
      assertEquals(single, batch);
      assertEquals(single, buffers);
      for (byte[] k : keys) {
        assertTrue(batch.mightContain(k));
        assertFalse(batch.put(k));
      }
    }
  }

  @Test
  void byteBuffers() {
    try (BloomFilter f = BloomFilter.create(1000, 0.001)) {
      ByteBuffer direct = ByteBuffer.allocateDirect(32);
      direct.put(TestSupport.utf8("..direct-key")).flip().position(2);
      assertTrue(f.put(direct));
      assertEquals(2, direct.position(), "position unchanged");
      assertTrue(f.mightContain("direct-key"));
      assertTrue(f.mightContain(direct));

      ByteBuffer heap = ByteBuffer.wrap(TestSupport.utf8("__heap-key__"), 2, 8).slice();
      assertTrue(f.put(heap));
      assertTrue(f.mightContain("heap-key"));
      ByteBuffer readOnly = ByteBuffer.wrap(TestSupport.utf8("ro-key")).asReadOnlyBuffer();
      assertFalse(f.mightContain(readOnly));
      assertTrue(f.put(readOnly));
      assertTrue(f.mightContain("ro-key"));
      assertTrue(f.mightContain(readOnly));
    }
  }

  private static byte[] packed(int n, long[] offsets, long base) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < n; i++) {
      offsets[i] = out.size();
      out.writeBytes(TestSupport.key16(base + i));
    }
    offsets[n] = out.size();
    return out.toByteArray();
  }

  @Test
  void batches() {
    int n = 20_000;
    long[] offsets = new long[n + 1];
    byte[] keys = packed(n, offsets, 0);
    long[] absentOffsets = new long[n + 1];
    byte[] absent = packed(n, absentOffsets, 1L << 40);
    try (BloomFilter f = BloomFilter.create(2 * n, 0.01);
        BloomFilter g = BloomFilter.create(2 * n, 0.01)) {
      long added = f.putAll(keys, offsets);
      assertTrue(added > n - 50 && added <= n, "added " + added);
      assertEquals(0, f.putAll(keys, offsets), "second time nothing is new");
      for (int i = 0; i < n; i++) {
        g.put(TestSupport.key16(i));
      }
      assertEquals(f, g, "batch and single adds set the same bits");

      boolean[] res = f.mightContainAll(keys, offsets);
      for (boolean b : res) {
        assertTrue(b);
      }
      boolean[] into = new boolean[n + 5];
      long found = f.mightContainAll(absent, absentOffsets, into);
      int fp = 0;
      for (int i = 0; i < n; i++) {
        assertEquals(f.mightContain(TestSupport.key16((1L << 40) + i)), into[i]);
        fp += into[i] ? 1 : 0;
      }
      assertEquals(fp, found);
      assertTrue(fp < n * 0.01, "fp " + fp); // half full: well under 1%

      // int offsets
      int[] io = new int[n + 1];
      for (int i = 0; i <= n; i++) {
        io[i] = (int) absentOffsets[i];
      }
      assertArrayEquals(f.mightContainAll(absent, absentOffsets), f.mightContainAll(absent, io));
      try (BloomFilter h = BloomFilter.create(2 * n, 0.01)) {
        int[] ko = new int[n + 1];
        for (int i = 0; i <= n; i++) {
          ko[i] = (int) offsets[i];
        }
        assertEquals(added, h.putAll(keys, ko));
        assertEquals(f, h);
        boolean[] r2 = new boolean[n];
        assertEquals(n, h.mightContainAll(keys, ko, r2));
      }

      // direct buffer batches, at a non-zero position
      ByteBuffer d = ByteBuffer.allocateDirect(absent.length + 3);
      d.position(3);
      d.put(absent).position(3);
      boolean[] rd = new boolean[n];
      assertEquals(found, f.mightContainAll(d, absentOffsets, rd));
      for (int i = 0; i < n; i++) {
        assertEquals(into[i], rd[i]);
      }
      try (BloomFilter h = BloomFilter.create(2 * n, 0.01)) {
        assertTrue(h.putAll(d, absentOffsets) > n - 50);
        assertEquals(n, h.mightContainAll(absent, absentOffsets, new boolean[n]));
      }

      // List<byte[]>
      List<byte[]> list = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        list.add(TestSupport.key16(5_000_000 + i));
      }
      try (BloomFilter h = BloomFilter.create(1000, 0.01)) {
        assertEquals(100, h.putAll(list));
        for (boolean b : h.mightContainAll(list)) {
          assertTrue(b);
        }
        for (byte[] k : list) {
          assertTrue(h.mightContain(k));
        }
      }
      // empty batches
      assertEquals(0, f.putAll(new byte[0], new long[] {0}));
      assertEquals(0, f.mightContainAll(new byte[0], new long[] {0}).length);
      assertEquals(0, f.putAll(List.of()));
    }
  }

  @Test
  void longBatches() {
    long[] keys = new long[10_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = TestSupport.mix(i);
    }
    try (BloomFilter f = BloomFilter.create(20_000, 0.01);
        BloomFilter g = BloomFilter.create(20_000, 0.01)) {
      long added = f.putAll(keys);
      assertTrue(added > 9_950, "added " + added);
      for (long k : keys) {
        g.put(k);
      }
      assertEquals(f, g);
      for (boolean b : g.mightContainAll(keys)) {
        assertTrue(b);
      }
      long[] absent = new long[10_000];
      for (int i = 0; i < absent.length; i++) {
        absent[i] = TestSupport.mix(1_000_000 + i);
      }
      boolean[] r = f.mightContainAll(absent);
      for (int i = 0; i < absent.length; i++) {
        assertEquals(f.mightContain(absent[i]), r[i]);
      }
    }
  }

  @Test
  void falsePositiveRateMatchesTheModel() {
    // 100k keys at 1%; 200k absent keys. Model FPR <= 1%; binomial sd at 1% of 200k is ~44.
    int n = 100_000;
    int m = 200_000;
    for (BloomFilter.Kind kind : BloomFilter.Kind.values()) {
      try (BloomFilter f =
          BloomFilter.builder().expectedInsertions(n).fpp(0.01).kind(kind).seed(42).build()) {
        for (int i = 0; i < n; i++) {
          f.put(TestSupport.key16(i));
        }
        int fp = 0;
        for (int i = 0; i < m; i++) {
          fp += f.mightContain(TestSupport.key16(10_000_000L + i)) ? 1 : 0;
        }
        double expected = f.modelFpp() * m;
        assertTrue(
            Math.abs(fp - expected) < 6 * Math.sqrt(expected) + 0.08 * expected,
            kind + ": " + fp + " false positives, model " + expected);
        long est = f.approximateElementCount();
        assertTrue(Math.abs(est - n) < n * 0.03, kind + " estimate " + est);
        double cur = f.expectedFpp();
        assertTrue(Math.abs(cur - f.modelFpp()) < f.modelFpp() * 0.25, kind + " fpp " + cur);
      }
    }
  }

  @Test
  void setOperations() {
    BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(1000).fpp(0.01).seed(7);
    try (BloomFilter a = b.build();
        BloomFilter c = b.build()) {
      assertTrue(a.isCompatible(c));
      assertEquals(a, c);
      assertEquals(a.hashCode(), c.hashCode());
      a.put("a-only");
      a.put("both");
      c.put("c-only");
      c.put("both");
      assertNotEquals(a, c);
      try (BloomFilter u = a.copy()) {
        assertEquals(a, u);
        u.putAll(c);
        assertTrue(u.mightContain("a-only") && u.mightContain("c-only") && u.mightContain("both"));
        u.putAll(u); // with itself: no change
        assertTrue(u.mightContain("both"));
      }
      try (BloomFilter i = a.copy()) {
        i.intersect(c);
        assertTrue(i.mightContain("both"));
        assertFalse(i.mightContain("a-only"));
        assertFalse(i.mightContain("c-only"));
      }
      try (BloomFilter k = a.copy()) {
        k.clear();
        assertFalse(k.mightContain("a-only"));
        assertEquals(0, k.approximateElementCount());
        assertTrue(a.mightContain("a-only"), "copy is independent");
      }
      assertNotEquals(a, "not a filter");
      assertNotEquals(a, null);
      assertEquals(a, a);
    }
    try (BloomFilter x = BloomFilter.builder().expectedInsertions(1000).seed(1).build();
        BloomFilter y = BloomFilter.builder().expectedInsertions(1000).seed(2).build()) {
      assertFalse(x.isCompatible(y));
      assertNotEquals(x, y);
    }
  }

  @Test
  void builderOptions() {
    BloomFilter.Plan p =
        BloomFilter.builder()
            .expectedInsertions(1_000_000)
            .fpp(0.01)
            .kind(BloomFilter.Kind.CLASSIC)
            .shards(8)
            .plan();
    assertEquals(8, p.shards());
    assertEquals(7, p.hashFunctions());
    assertEquals(p.bits(), p.bytes() * 8);
    assertEquals(p.bits(), (long) p.shards() * p.blocksPerShard() * 512);
    assertTrue(p.expectedFpp() <= 0.01);
    assertTrue(p.bitsPerKey() > 9 && p.bitsPerKey() < 10.5, "bits/key " + p.bitsPerKey());
    try (BloomFilter f =
        BloomFilter.builder()
            .expectedInsertions(1_000_000)
            .fpp(0.01)
            .kind(BloomFilter.Kind.CLASSIC)
            .shards(8)
            .seed(99)
            .threads(2)
            .build()) {
      assertEquals(BloomFilter.Kind.CLASSIC, f.kind());
      assertEquals(8, f.shards());
      assertEquals(99, f.seed());
      assertEquals(p.bits(), f.bitSize());
      // a threaded bulk add (>= 65536 keys) sets the same bits as single adds
      int n = 70_000;
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        keys[i] = i;
      }
      f.putAll(keys);
      try (BloomFilter g = f.copy()) {
        g.clear();
        for (long k : keys) {
          g.put(k);
        }
        assertEquals(f, g);
      }
    }
    try (BloomFilter e =
        BloomFilter.builder().expectedInsertions(100).bits(4096).hashFunctions(3).build()) {
      assertEquals(4096, e.bitSize());
      assertEquals(3, e.hashFunctions());
      assertEquals(0.0, e.targetFpp());
    }
  }

  @Test
  void serializationRoundTrips(@TempDir Path tmp) throws IOException {
    try (BloomFilter f = BloomFilter.builder().expectedInsertions(5000).shards(2).seed(3).build()) {
      for (int i = 0; i < 3000; i++) {
        f.put(TestSupport.key16(i));
      }
      byte[] bytes = f.toByteArray();
      assertEquals(f.serializedSize(), bytes.length);
      try (BloomFilter g = BloomFilter.fromByteArray(bytes)) {
        assertEquals(f, g);
      }
      byte[] framed = new byte[bytes.length + 10];
      System.arraycopy(bytes, 0, framed, 5, bytes.length);
      try (BloomFilter g = BloomFilter.fromByteArray(framed, 5, bytes.length)) {
        assertEquals(f, g);
      }
      // writeTo / readFrom: exactly the filter's bytes are consumed
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      f.writeTo(out);
      out.write(new byte[] {1, 2, 3});
      ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
      try (BloomFilter g = BloomFilter.readFrom(in)) {
        assertEquals(f, g);
      }
      assertEquals(3, in.available());
      // save / open, every mode
      Path p = tmp.resolve("f.abloom");
      f.save(p);
      assertArrayEquals(bytes, Files.readAllBytes(p));
      f.save(p); // over an existing file
      try (BloomFilter g = BloomFilter.open(p)) {
        assertEquals(BloomFilter.Storage.MAPPED, g.storage());
        assertTrue(g.isReadOnly());
        assertEquals(f, g);
        assertThrows(UnsupportedOperationException.class, () -> g.put("x"));
        try (BloomFilter w = g.copy()) {
          assertFalse(w.isReadOnly());
          w.put("x");
          assertTrue(w.mightContain("x"));
        }
      }
      try (BloomFilter g = BloomFilter.open(p, BloomFilter.OpenMode.COPY_ON_WRITE, true)) {
        assertFalse(g.isReadOnly());
        g.put("cow-key");
        assertTrue(g.mightContain("cow-key"));
      }
      assertArrayEquals(bytes, Files.readAllBytes(p), "copy-on-write never reaches the file");
      try (BloomFilter g = BloomFilter.open(p, BloomFilter.OpenMode.READ_WRITE, false)) {
        g.put("rw-key");
        g.sync();
        g.put("rw-key-2");
      } // close syncs
      try (BloomFilter g = BloomFilter.open(p, BloomFilter.OpenMode.READ_ONLY, true)) {
        assertTrue(g.mightContain("rw-key"));
        assertTrue(g.mightContain("rw-key-2"));
        g.sync(); // nothing to do for a read-only mapping
      }
      // a view
      ByteBuffer buf = ByteBuffer.allocateDirect(bytes.length + 64).alignedSlice(64);
      buf.put(bytes).flip();
      try (BloomFilter v = BloomFilter.wrap(buf, true)) {
        assertEquals(f, v);
        assertThrows(UnsupportedOperationException.class, () -> v.put(1L));
        assertThrows(UnsupportedOperationException.class, v::clear);
      }
    }
  }

  /**
   * The safe way to update a file that is open ({@code open}'s javadoc): save over it. save
   * renames a new file over the path, so the open filter keeps reading the old one, whole.
   * (Truncating it in place instead would make mightContain raise SIGBUS or read zeros.)
   * Windows may refuse to replace a file that a filter has mapped (abloom_save in abloom.h; wine
   * 8 always does): there the save may fail instead, with EBUSY, leaving both files whole and no
   * temporary file behind; once the reader is closed, the same save succeeds.
   */
  @Test
  void saveOverAnOpenFile(@TempDir Path tmp) throws IOException {
    Path path = tmp.resolve("f.abloom");
    int n = 100_000; // 121 KiB of bits: many pages past the new file's end
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = i;
    }
    try (BloomFilter f = BloomFilter.create(n, 0.01);
        BloomFilter small = BloomFilter.builder().expectedInsertions(10).seed(9).build()) {
      f.putAll(keys);
      f.save(path);
      small.put("new");
      boolean replaced;
      try (BloomFilter old = BloomFilter.open(path)) {
        replaced = saveOverMapped(small, path);
        boolean[] hits = old.mightContainAll(keys);
        for (int i = 0; i < n; i++) {
          assertTrue(hits[i], "key " + i + " lost when the open file was replaced");
        }
        assertEquals(f, old);
        try (BloomFilter g = BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true)) {
          assertEquals(replaced ? small : f, g, "the file at the path is whole");
          assertEquals(replaced, g.mightContain("new"));
        }
      }
      try (java.util.stream.Stream<Path> files = Files.list(tmp)) {
        assertEquals(List.of(path), files.collect(java.util.stream.Collectors.toList()),
            "no temporary file is left beside the target");
      }
      if (!replaced) { // Windows: with the reader closed (and unmapped at once), the save works
        small.save(path);
        try (BloomFilter g = BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true)) {
          assertEquals(small, g);
        }
      }
    }
  }

  /** small.save(path) over a mapped file: true if it replaced it, false if Windows refused (EBUSY). */
  static boolean saveOverMapped(BloomFilter small, Path path) throws IOException {
    if (!NativeLoader.onWindows()) {
      small.save(path);
      return true;
    }
    try {
      small.save(path);
      return true;
    } catch (IOException e) {
      String ebusy = AbloomNative.jab_errno_string(16); // EBUSY, 16 in the UCRT as on Linux
      assertTrue(e.getMessage().endsWith(": " + ebusy), () -> "not EBUSY: " + e);
      return false;
    }
  }

  /**
   * Paths are Unicode everywhere: a folder and a file with spaces and non-ASCII letters (the C
   * library takes UTF-8 on Windows and converts it for the OS; on POSIX the JVM's file-name
   * encoding). Skipped where the JVM itself cannot name such a file (a POSIX JVM under the C
   * locale).
   */
  @Test
  void nonAsciiPaths(@TempDir Path tmp) throws IOException {
    Path dir;
    try {
      dir = Files.createDirectory(tmp.resolve("gr\u00fc\u00dfe \u65e5\u672c"));
    } catch (java.nio.file.InvalidPathException e) {
      org.junit.jupiter.api.Assumptions.abort("the JVM cannot name non-ASCII files here: " + e);
      return;
    }
    Path path = dir.resolve("f\u00e9 \u00e0.abloom");
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      f.put("x");
      f.save(path);
      assertTrue(Files.isRegularFile(path), "saved under its Unicode name");
      try (BloomFilter g = BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true)) {
        assertEquals(f, g);
      }
      assertArrayEquals(f.toByteArray(), Files.readAllBytes(path));
    }
  }

  @Test
  void closeIsIdempotent() {
    BloomFilter f = BloomFilter.create(100, 0.01);
    assertFalse(f.isClosed());
    f.close();
    assertTrue(f.isClosed());
    f.close();
    assertTrue(f.isClosed());
    assertTrue(f.toString().contains("closed"));
  }
}
