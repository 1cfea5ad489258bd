package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-key calls run in Java (io.abloom.Probe) over the engine's memory. The engine stays
 * the reference: its batch calls (one JNI call per batch, the C kernels) give the answers and
 * the bits every Java call must match exactly, on every shape and every kind of filter.
 */
class JavaPathTest {

  @TempDir Path dir;

  /** Every shape: both kinds, every layout (blocked), 1/4/64 shards, a zero and a random seed. */
  private static List<BloomFilter.Builder> shapes(long capacity, double fpp, SplittableRandom r) {
    List<BloomFilter.Builder> out = new ArrayList<>();
    for (BloomFilter.Kind kind : BloomFilter.Kind.values()) {
      for (Layout layout : Layout.values()) {
        if (!layout.supports(kind)) {
          continue;
        }
        for (int shards : new int[] {1, 4, 64}) {
          for (long seed : new long[] {0, r.nextLong()}) {
            BloomFilter.Builder b =
                BloomFilter.builder()
                    .expectedInsertions(capacity)
                    .fpp(fpp)
                    .kind(kind)
                    .shards(shards)
                    .seed(seed);
            out.add(kind == BloomFilter.Kind.BLOCKED ? b.layout(layout) : b);
          }
        }
      }
    }
    assertEquals(24, out.size()); // 18 blocked (3 layouts), 6 classic
    return out;
  }

  private static String describe(BloomFilter f) {
    return f.kind() + "/" + f.layout() + "/" + f.shards() + " shards/seed " + f.seed();
  }

  private static byte[] randomKey(SplittableRandom r, int length) {
    byte[] k = new byte[length];
    for (int i = 0; i < length; i++) {
      k[i] = (byte) r.nextInt();
    }
    return k;
  }

  private static byte[][] randomKeys(SplittableRandom r, int n, int maxLength) {
    byte[][] keys = new byte[n][];
    for (int i = 0; i < n; i++) {
      keys[i] = randomKey(r, r.nextInt(maxLength + 1));
    }
    return keys;
  }

  /** Loads go by address on the JDKs that allow it without a warning, and only there. */
  @Test
  void loadsGoByAddressWhereTheJdkAllowsIt() {
    boolean expected =
        Runtime.version().feature() < 24
            && java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN
            && !Boolean.getBoolean("abloom.probe.buffersOnly");
    assertEquals(expected, ShardMemory.loadsByAddress());
  }

  /**
   * The hash is the engine's, bit for bit, for every key length from 0 to 1024 and several
   * seeds: the same keys put one by one in Java and in one engine batch give byte-identical
   * files (a key hashed differently would set other bits). Long keys too.
   */
  @Test
  void javaHashAndAddsAreTheEnginesForEveryLengthAndSeed() {
    SplittableRandom r = new SplittableRandom(11);
    for (long seed : new long[] {0, 1, r.nextLong(), r.nextLong(), -1}) {
      List<byte[]> keys = new ArrayList<>();
      long[] longs = new long[1025];
      for (int len = 0; len <= 1024; len++) {
        keys.add(randomKey(r, len));
        longs[len] = r.nextLong();
      }
      BloomFilter.Builder b =
          BloomFilter.builder().expectedInsertions(100_000).fpp(0.01).seed(seed);
      try (BloomFilter java = b.build();
          BloomFilter engine = b.build()) {
        for (int len = 0; len <= 1024; len++) {
          assertTrue(java.put(keys.get(len)), "seed " + seed + ": a new key of " + len + " bytes");
          assertTrue(java.put(longs[len]), "seed " + seed + ": a new long key");
        }
        engine.putAll(keys);
        engine.putAll(longs);
        assertArrayEquals(engine.toByteArray(), java.toByteArray(), "seed " + seed);
        boolean[] all = engine.mightContainAll(keys);
        for (int len = 0; len <= 1024; len++) {
          assertTrue(all[len]);
          assertTrue(java.mightContain(keys.get(len)), "seed " + seed + ", length " + len);
          assertFalse(java.put(keys.get(len)), "a repeat is not new");
        }
      }
    }
  }

  /** A random string of n chars: ASCII, or with one char of the given kind at a random place. */
  private static String randomString(SplittableRandom r, int n, int kind) {
    char[] c = new char[n];
    for (int i = 0; i < n; i++) {
      c[i] = (char) r.nextInt(0x80);
    }
    if (n > 0 && kind > 0) {
      int at = r.nextInt(n);
      switch (kind) {
        case 1 -> c[at] = (char) (0x80 + r.nextInt(0x80)); // Latin-1, not ASCII: 2 UTF-8 bytes
        case 2 -> c[at] = (char) (0x100 + r.nextInt(0x80)); // UTF-16 coded, low byte ASCII
        case 3 -> c[at] = (char) (0x800 + r.nextInt(0xD000)); // 3 UTF-8 bytes
        default -> c[at] = (char) (0xD800 + r.nextInt(0x800)); // a lone surrogate: '?'
      }
    }
    return new String(c);
  }

  /**
   * A String key is hashed as its UTF-8 bytes, whichever way its bytes are read: in place for
   * ASCII strings (AsciiStrings, on the JDKs that allow it), else encoded; for every length from
   * 0 to 300 and every kind of char, Latin-1 and UTF-16 coded strings whose low bytes look ASCII
   * included. The engine's batch of the UTF-8 bytes sets the same bits as Java's String puts.
   */
  @Test
  void stringKeysHashAsTheirUtf8Bytes() {
    boolean inPlace =
        Runtime.version().feature() < 24
            && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
            && !Boolean.getBoolean("abloom.strings.encodeAlways");
    assertEquals(inPlace, AsciiStrings.enabled());
    SplittableRandom r = new SplittableRandom(13);
    BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(20_000).fpp(0.01).seed(5);
    try (BloomFilter java = b.build();
        BloomFilter engine = b.build()) {
      Probe probe = java.core.probe(12);
      List<byte[]> utf8 = new ArrayList<>();
      for (int n = 0; n <= 300; n++) {
        for (int kind = 0; kind <= 4; kind++) {
          String s = randomString(r, n, kind);
          byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
          // A lone surrogate encodes as '?': ASCII bytes, but not a Latin-1 coded string.
          boolean asciiBytes = n == 0 || kind == 0 || kind == 4;
          assertEquals(asciiBytes, AsciiStrings.isAscii(bytes), "length " + n + ", kind " + kind);
          boolean ascii = n == 0 || kind == 0;
          byte[] own = AsciiStrings.asciiBytes(s);
          if (inPlace && ascii) {
            assertArrayEquals(bytes, own, "length " + n);
          } else {
            assertEquals(null, own, "length " + n + ", kind " + kind + ": not read in place");
          }
          assertEquals(probe.hash(bytes, 0, bytes.length), probe.hash(s), "length " + n);
          java.put(s);
          utf8.add(bytes);
        }
      }
      engine.putAll(utf8);
      assertArrayEquals(engine.toByteArray(), java.toByteArray());
      // A high bit in any of the eight bytes of a word, or in the tail, is seen.
      for (int n = 1; n <= 24; n++) {
        for (int at = 0; at < n; at++) {
          byte[] k = new byte[n];
          Arrays.fill(k, (byte) 'a');
          k[at] = (byte) (0x80 | r.nextInt(0x80));
          assertFalse(AsciiStrings.isAscii(k), "length " + n + ", high byte at " + at);
        }
      }
    }
  }

  /**
   * The split test is unrolled, one case per k: every k from 1 to 16 answers as the engine does,
   * present and absent keys, byte[] and long, with both answers among the absent keys.
   */
  @Test
  void splitAnswersAreTheEnginesForEveryK() {
    SplittableRandom r = new SplittableRandom(17);
    int n = 3_000;
    for (int k = 1; k <= 16; k++) {
      BloomFilter.Builder b =
          BloomFilter.builder()
              .expectedInsertions(n)
              .layout(Layout.SPLIT)
              .bits(8L * n)
              .hashFunctions(k)
              .seed(r.nextLong());
      try (BloomFilter f = b.build()) {
        byte[][] added = randomKeys(r, n, 40);
        f.putAll(List.of(added));
        byte[][] other = randomKeys(r, n, 40);
        boolean[] want = f.mightContainAll(List.of(other));
        long[] longs = r.longs(n).toArray();
        boolean[] wantLongs = f.mightContainAll(longs);
        int present = 0;
        for (int i = 0; i < n; i++) {
          assertTrue(f.mightContain(added[i]), "k " + k + ": an added key");
          assertEquals(want[i], f.mightContain(other[i]), "k " + k + ": key " + i);
          assertEquals(wantLongs[i], f.mightContain(longs[i]), "k " + k + ": long " + i);
          present += want[i] ? 1 : 0;
        }
        assertTrue(present > 0 && present < n / 2, "k " + k + ": " + present + " absent present");
      }
    }
  }

  /**
   * The half test and add take the whole hash, not only its low 32 bits as the other blocked
   * layouts do: in one block, hashes that differ from added ones only in their high 32 bits, or
   * only in their low ones, test as the engine tests them, and adds by hash set the engine's bits.
   */
  @Test
  void halfUsesEveryBitOfTheHash() {
    BloomFilter.Builder b =
        BloomFilter.builder().expectedInsertions(4).layout(Layout.HALF).bits(512);
    SplittableRandom r = new SplittableRandom(19);
    int hits = 0;
    for (int round = 0; round < 300; round++) {
      try (BloomFilter java = b.build();
          BloomFilter engine = b.build()) {
        Probe p = java.core.probe(12);
        long[] added = r.longs(3).toArray();
        for (long h : added) {
          assertEquals(p.add(h, round % 2 == 0), engineAdd(engine, h) == 1, "round " + round);
        }
        assertArrayEquals(engine.toByteArray(), java.toByteArray(), "round " + round);
        for (long h : added) {
          assertTrue(p.test(h));
          long high = h ^ (r.nextLong() & 0xFFFF_FFFF_0000_0000L);
          long low = h ^ (r.nextLong() & 0x0000_0000_FFFF_FFFFL);
          long bit = h ^ (1L << r.nextInt(64));
          for (long other : new long[] {high, low, bit}) {
            boolean want = engine.core.<Integer>call(e -> AbloomNative.jab_test_hash(e, other)) == 1;
            assertEquals(want, p.test(other), "round " + round + ": " + Long.toHexString(other));
            hits += want ? 1 : 0;
          }
        }
      }
    }
    // Nearly all absent in the engine: a probe that ignored the bits that changed would have
    // found them present (the same bits as an added hash).
    assertTrue(hits < 300 * 9 / 10, "present: " + hits);
  }

  /** The engine's add of a hash: 1 if some bit was clear. */
  private static int engineAdd(BloomFilter f, long hash) {
    long rc = f.core.<Long>call(e -> AbloomNative.jab_grow_add_hash(e, hash));
    assertTrue(rc >= 0, "rc " + rc);
    return (int) (rc & 1);
  }

  /**
   * A half probe needs the layout's only k: a shape that claims another is refused, not probed
   * with 8 bits it does not have. A layout is never taken for another.
   */
  @Test
  void probesRefuseShapesTheEngineNeverMakes() {
    ByteBuffer[] one = {ByteBuffer.allocateDirect(64)};
    BloomFilter.Kind blocked = BloomFilter.Kind.BLOCKED;
    for (int k : new int[] {1, 7, 9, 16}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> Probe.of(one, 6, blocked, Layout.HALF, k, 1, 1, 0));
      assertTrue(e.getMessage().contains("got " + k), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> Probe.of(one, 6, blocked, null, 8, 1, 1, 0));
    // Over one block of ones, every layout's probe finds every key; over zeros, none.
    ByteBuffer ones = ByteBuffer.allocateDirect(64);
    for (int i = 0; i < 64; i++) {
      ones.put(i, (byte) -1);
    }
    for (Layout layout : Layout.values()) {
      Probe full = Probe.of(new ByteBuffer[] {ones}, 6, blocked, layout, 8, 1, 1, 0);
      Probe empty = Probe.of(one, 6, blocked, layout, 8, 1, 1, 0);
      SplittableRandom r = new SplittableRandom(23);
      for (int i = 0; i < 100; i++) {
        long h = r.nextLong();
        assertTrue(full.test(h), layout + " " + i);
        assertFalse(empty.test(h), layout + " " + i);
      }
    }
  }

  /** The filter kinds the single-key calls must work on, each holding the same bits. */
  private List<BloomFilter> everyStorage(BloomFilter f, String name) throws IOException {
    List<BloomFilter> out = new ArrayList<>();
    out.add(f.copy());
    out.add(BloomFilter.fromByteArray(f.toByteArray()));
    Path p = dir.resolve(name);
    f.save(p);
    out.add(BloomFilter.open(p));
    out.add(BloomFilter.open(p, BloomFilter.OpenMode.COPY_ON_WRITE, true));
    Path rw = dir.resolve(name + ".rw");
    f.save(rw);
    out.add(BloomFilter.open(rw, BloomFilter.OpenMode.READ_WRITE, false));
    byte[] bytes = f.toByteArray();
    ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length + 64).alignedSlice(64);
    direct.put(bytes).flip();
    out.add(BloomFilter.wrap(direct, true));
    return out;
  }

  /**
   * Every answer of every single-key overload is the engine's batch answer, present and absent
   * keys of 0..300 bytes, on every shape, on created, deserialized, mapped (read-only,
   * copy-on-write, read-write) and wrapped filters, and through probes with 4 KiB chunks, which
   * put many chunk boundaries in each shard.
   */
  @Test
  void answersAreTheEnginesForEveryShapeAndStorage() throws IOException {
    SplittableRandom r = new SplittableRandom(5);
    int n = 4_000;
    long checked = 0;
    for (BloomFilter.Builder b : shapes(2L * n, 0.05, r)) {
      try (BloomFilter f = b.build()) {
        byte[][] added = randomKeys(r, n, 300);
        f.putAll(List.of(added));
        long[] longs = r.longs(n).toArray();
        f.putAll(longs);
        byte[][] other = randomKeys(r, n, 300);
        boolean[] want = f.mightContainAll(List.of(other));
        long[] otherLongs = r.longs(n).toArray();
        boolean[] wantLongs = f.mightContainAll(otherLongs);
        int present = 0;
        for (boolean w : want) {
          present += w ? 1 : 0;
        }
        // Some absent keys test present, so the comparisons below check both answers.
        assertTrue(present > n / 400 && present < n / 5, describe(f) + ": " + present);
        List<BloomFilter> storages = everyStorage(f, "s.abloom");
        try {
          for (BloomFilter g : storages) {
            String what = describe(f) + " " + g.storage() + (g.isReadOnly() ? " ro" : "");
            for (int i = 0; i < n; i++) {
              assertTrue(g.mightContain(added[i]), what + ": added key " + i);
              assertTrue(g.mightContain(longs[i]), what + ": added long " + i);
              assertEquals(want[i], g.mightContain(other[i]), what + ": key " + i);
              assertEquals(wantLongs[i], g.mightContain(otherLongs[i]), what + ": long " + i);
              checked += 4;
            }
          }
          // The other overloads and the chunked probe, on the owned filter.
          Probe chunked = f.core.probe(12);
          for (int i = 0; i < n; i++) {
            byte[] k = other[i];
            assertEquals(want[i], chunked.test(chunked.hash(k, 0, k.length)), "chunked " + i);
            assertTrue(chunked.test(chunked.hash(added[i], 0, added[i].length)));
            assertEquals(wantLongs[i], chunked.test(chunked.hash(otherLongs[i])));
            ByteBuffer d = ByteBuffer.allocateDirect(k.length + 3);
            d.position(3);
            d.put(k).position(3);
            assertEquals(want[i], f.mightContain(d), "direct buffer " + i);
            assertEquals(3, d.position());
            byte[] padded = new byte[k.length + 2];
            System.arraycopy(k, 0, padded, 1, k.length);
            assertEquals(want[i], f.mightContain(padded, 1, k.length), "slice " + i);
            assertEquals(want[i], f.mightContain(ByteBuffer.wrap(padded, 1, k.length)));
            assertEquals(
                want[i], f.mightContain(ByteBuffer.wrap(padded, 1, k.length).asReadOnlyBuffer()));
            checked += 6;
          }
        } finally {
          for (BloomFilter g : storages) {
            g.close();
          }
        }
      }
    }
    assertEquals(24L * n * (6 * 4 + 6), checked);
  }

  /**
   * Java adds set exactly the engine's bits: every shape, both writer modes, every key type,
   * and through a read-write mapping; the files are byte-identical to the engine's batch adds.
   */
  @Test
  void javaAddsSetTheEnginesBits() throws IOException {
    SplittableRandom r = new SplittableRandom(7);
    int n = 3_000;
    for (BloomFilter.Builder b : shapes(3L * n, 0.02, r)) {
      byte[][] keys = randomKeys(r, n, 300);
      String[] strings = new String[n];
      for (int i = 0; i < n; i++) {
        strings[i] = "user:" + r.nextInt() + (i % 7 == 0 ? "\u00e9\u4e2d\ud83d\ude00" : "");
      }
      long[] longs = r.longs(n).toArray();
      try (BloomFilter engine = b.build()) {
        long newKeys = engine.putAll(List.of(keys));
        List<byte[]> utf8 = new ArrayList<>();
        for (String s : strings) {
          utf8.add(s.getBytes(StandardCharsets.UTF_8));
        }
        long newStrings = engine.putAll(utf8);
        long newLongs = engine.putAll(longs);
        byte[] want = engine.toByteArray();
        for (WriterMode mode : WriterMode.values()) {
          try (BloomFilter java = b.build()) {
            java.setWriterMode(mode);
            // In the engine's order, so that each put's "new" must be the engine's too.
            long fresh = 0;
            for (int i = 0; i < n; i++) {
              fresh += java.put(keys[i]) ? 1 : 0;
            }
            assertEquals(newKeys, fresh, describe(java) + " " + mode + ": new byte[] keys");
            fresh = 0;
            for (int i = 0; i < n; i++) {
              fresh += java.putIfAbsent(strings[i]) ? 1 : 0;
            }
            assertEquals(newStrings, fresh, describe(java) + " " + mode + ": new strings");
            fresh = 0;
            for (int i = 0; i < n; i++) {
              ByteBuffer d = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
              d.putLong(0, longs[i]);
              fresh += (i % 2 == 0 ? java.put(longs[i]) : java.put(d)) ? 1 : 0;
            }
            assertEquals(newLongs, fresh, describe(java) + " " + mode + ": new longs");
            // Nearly every key is new to a filter sized for more than all of them.
            assertTrue(newKeys + newStrings + newLongs > 3 * n * 0.9, describe(java));
            assertArrayEquals(want, java.toByteArray(), describe(java) + " " + mode);
          }
        }
        // Through a read-write mapping of an empty file (the guarded path), then read back.
        Path p = dir.resolve("rw.abloom");
        try (BloomFilter empty = b.build()) {
          empty.save(p);
        }
        try (BloomFilter mapped = BloomFilter.open(p, BloomFilter.OpenMode.READ_WRITE, false)) {
          for (int i = 0; i < n; i++) {
            mapped.put(keys[i]);
            mapped.put(strings[i]);
            mapped.put(longs[i]);
          }
        }
        try (BloomFilter back = BloomFilter.open(p, BloomFilter.OpenMode.READ_ONLY, true)) {
          assertArrayEquals(want, back.toByteArray(), describe(engine) + " read-write mapping");
        }
      }
    }
  }

  /** The chunking arithmetic and its argument checks. */
  @Test
  void chunksAreCountedAndCheckedExactly() {
    assertEquals(1, Probe.chunksPerShard(1, 6));
    assertEquals(2, Probe.chunksPerShard(2, 6));
    assertEquals(1, Probe.chunksPerShard(1L << 24, 30));
    assertEquals(2, Probe.chunksPerShard((1L << 24) + 1, 30));
    assertEquals(4, Probe.chunksPerShard(256, 12));
    assertEquals(5, Probe.chunksPerShard(257, 12));
    assertThrows(IllegalArgumentException.class, () -> Probe.chunksPerShard(1, 5));
    assertThrows(IllegalArgumentException.class, () -> Probe.chunksPerShard(1, 31));
    assertThrows(IllegalArgumentException.class, () -> Probe.chunksPerShard(0, 12));
    assertThrows(IllegalArgumentException.class, () -> Probe.chunksPerShard(1L << 40, 6));
    try (BloomFilter f = BloomFilter.create(10_000, 0.01)) {
      assertThrows(IllegalArgumentException.class, () -> f.core.probe(5));
      ByteBuffer heap = ByteBuffer.allocate((int) (f.bitSize() / 8));
      assertThrows(
          IllegalArgumentException.class,
          () -> Probe.over(new ByteBuffer[] {heap}, Probe.MAX_CHUNK_SHIFT, f));
      ByteBuffer small = ByteBuffer.allocateDirect((int) (f.bitSize() / 8) - 64);
      assertThrows(
          IllegalArgumentException.class,
          () -> Probe.over(new ByteBuffer[] {small}, Probe.MAX_CHUNK_SHIFT, f));
      assertThrows(
          IllegalArgumentException.class,
          () -> Probe.over(new ByteBuffer[0], Probe.MAX_CHUNK_SHIFT, f));
    }
  }

  /** Keys with a repeat among their first k candidates take further ones, as the engine does. */
  @Test
  void repeatedCandidatesAreTheEngines() {
    SplittableRandom r = new SplittableRandom(9);
    // One 512-bit block and k = 16: repeats among the first k candidates are common.
    BloomFilter.Builder b =
        BloomFilter.builder()
            .kind(BloomFilter.Kind.BLOCKED)
            .layout(Layout.DISTINCT)
            .bits(512)
            .hashFunctions(16)
            .expectedInsertions(4);
    for (int round = 0; round < 300; round++) {
      try (BloomFilter java = b.build();
          BloomFilter engine = b.build()) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          keys.add(randomKey(r, 8));
          java.put(keys.get(i));
        }
        engine.putAll(keys);
        assertArrayEquals(engine.toByteArray(), java.toByteArray(), "round " + round);
        List<byte[]> probes = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          probes.add(randomKey(r, 8));
        }
        boolean[] want = engine.mightContainAll(probes);
        for (int i = 0; i < 50; i++) {
          assertEquals(want[i], java.mightContain(probes.get(i)), "round " + round + " key " + i);
        }
      }
    }
  }

  /** Read-only filters refuse Java adds with the library's error, and keep their bytes. */
  @Test
  void readOnlyFiltersRefuseJavaAdds() throws IOException {
    Path p = dir.resolve("ro.abloom");
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      f.put("a");
      f.save(p);
    }
    byte[] before = Files.readAllBytes(p);
    byte[] bytes;
    try (BloomFilter ro = BloomFilter.open(p)) {
      bytes = ro.toByteArray();
      UnsupportedOperationException e =
          assertThrows(UnsupportedOperationException.class, () -> ro.put("b"));
      assertTrue(e.getMessage().contains("read-only"), e.getMessage());
      assertThrows(UnsupportedOperationException.class, () -> ro.put(new byte[] {1}));
      assertThrows(UnsupportedOperationException.class, () -> ro.put(7L));
      assertThrows(UnsupportedOperationException.class, () -> ro.putIfAbsent("c"));
      assertThrows(UnsupportedOperationException.class, () -> ro.put(ByteBuffer.wrap(new byte[3])));
      assertTrue(ro.mightContain("a"));
    }
    ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length + 64).alignedSlice(64);
    direct.put(bytes).flip();
    try (BloomFilter view = BloomFilter.wrap(direct, true)) {
      assertThrows(UnsupportedOperationException.class, () -> view.put("b"));
      assertTrue(view.mightContain("a"));
    }
    assertArrayEquals(before, Files.readAllBytes(p));
    assertArrayEquals(bytes, before);
  }
}
