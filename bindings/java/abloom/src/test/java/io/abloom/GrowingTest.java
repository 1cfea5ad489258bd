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

/**
 * Growing filters (BloomFilter.growing, Builder.growth): a chain of stages that holds its target
 * fpp at any count of keys. Their single-key tests run in Java over each stage's memory; the
 * engine stays the reference for every answer.
 */
class GrowingTest {
  @TempDir Path dir;

  private static BloomFilter grow(long first, double fpp, long seed) {
    return BloomFilter.builder().growth(2.0).initialCapacity(first).fpp(fpp).seed(seed).build();
  }

  /** Keys i in [from, to) as 8-byte longs. */
  private static long[] range(long from, long to) {
    long[] out = new long[(int) (to - from)];
    for (int i = 0; i < out.length; i++) {
      out[i] = from + i;
    }
    return out;
  }

  /**
   * The fpp stays below its target at 10 and 100 times the first stage: 200000 absent keys give
   * false positives ~ Binomial(200000, p) with p below 1% (mean at most 2000, sd 44.5); the bound
   * is six sd over that mean. Fixed seed, so the counts are deterministic.
   */
  @Test
  void holdsItsFppAtTenAndHundredTimesTheFirstStage() {
    try (BloomFilter f = grow(1000, 0.01, 0x5EED)) {
      assertTrue(f.isGrowing());
      long added = 0;
      for (long keys : new long[] {10_000, 100_000}) {
        // half key by key (Java probes, engine adds), half in one batch
        long half = added + (keys - added) / 2;
        for (long i = added; i < half; i++) {
          f.put(i);
        }
        f.putAll(range(half, keys));
        added = keys;
        assertEquals(
            BloomFilter.builder().growth(2.0).initialCapacity(1000).fpp(0.01).growthPlan(keys)
                .stages(),
            f.stageCount(),
            keys + " keys");
        for (long i = 0; i < keys; i++) {
          assertTrue(f.mightContain(i), "missing " + i);
        }
        int fp = 0;
        for (long i = 0; i < 200_000; i++) {
          fp += f.mightContain(1_000_000_000L + i) ? 1 : 0;
        }
        assertTrue(fp <= 2267, fp + " false positives of 200000 at " + keys + " keys");
        assertTrue(f.modelFpp() < 0.01, "the bound " + f.modelFpp());
        assertFalse(f.growthFailed());
        // keys counted as new: all but those a false positive made look present (under 1%)
        assertTrue(f.keyCount() <= keys && f.keyCount() >= keys * 99 / 100, "" + f.keyCount());
      }
      assertEquals(7, f.stageCount(), "1000 * (2^7 - 1) >= 100000 > 1000 * (2^6 - 1)");
    }
  }

  /** No key is ever missed across stage boundaries: checked right after each add, and all. */
  @Test
  void noFalseNegativesAcrossStageBoundaries() {
    try (BloomFilter one = grow(50, 0.01, 3);
        BloomFilter batch = grow(50, 0.01, 3)) {
      for (int i = 0; i < 20_000; i++) {
        byte[] k = TestSupport.key16(i);
        one.put(k);
        assertTrue(one.mightContain(k), "key " + i + " right after its put");
      }
      for (int from = 0; from < 20_000; from += 777) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = from; i < Math.min(20_000, from + 777); i++) {
          keys.add(TestSupport.key16(i));
        }
        batch.putAll(keys);
        for (byte[] k : keys) {
          assertTrue(batch.mightContain(k), "a key of the batch from " + from);
        }
      }
      assertTrue(one.stageCount() >= 9, "stages: " + one.stageCount());
      assertEquals(one.stageCount(), batch.stageCount());
      for (int i = 0; i < 20_000; i++) {
        byte[] k = TestSupport.key16(i);
        assertTrue(one.mightContain(k) && batch.mightContain(k), "key " + i);
      }
      assertEquals(one, batch, "the same keys one by one and in batches: the same bits");
    }
  }

  /** Every shape of stage: the Java path answers as the engine's abloom_test, key by key. */
  @Test
  void theJavaPathAnswersAsTheEngine() {
    List<BloomFilter.Builder> shapes =
        List.of(
            BloomFilter.builder().growth(2.0).initialCapacity(100).fpp(0.05),
            BloomFilter.builder().growth(3.0).initialCapacity(64).fpp(0.01).layout(Layout.DISTINCT)
                .shards(4).seed(-7),
            BloomFilter.builder().growth(1.5).initialCapacity(200).fpp(0.02)
                .kind(BloomFilter.Kind.CLASSIC).seed(99));
    for (BloomFilter.Builder b : shapes) {
      try (BloomFilter f = b.build()) {
        for (int i = 0; i < 6000; i++) {
          f.put("k" + i);
        }
        assertTrue(f.stageCount() >= 4, f.toString());
        int positives = 0;
        for (int i = 0; i < 6000; i++) {
          byte[] k = TestSupport.utf8("k" + i);
          assertEquals(1, (int) f.core.<Integer>call(h -> AbloomNative.jab_test_key(h, k, k.length)));
          assertTrue(f.mightContain(k));
        }
        for (int i = 0; i < 30_000; i++) {
          byte[] k = TestSupport.utf8("absent" + i);
          boolean engine = (int) f.core.<Integer>call(h -> AbloomNative.jab_test_key(h, k, k.length)) == 1;
          assertEquals(engine, f.mightContain(k), f + ": absent" + i);
          long hash = f.core.probe.hash(k, 0, k.length);
          assertEquals(engine ? 1 : 0, (int) f.core.<Integer>call(h -> AbloomNative.jab_test_hash(h, hash)));
          positives += engine ? 1 : 0;
        }
        assertTrue(positives > 0 && positives < 30_000 / 10, positives + " " + f);
        // every stage is probed where the engine says it lies, and no stage answers for all
        for (int s = 0; s < f.stageCount(); s++) {
          Probe p = f.core.stageProbe(s, 12);
          int hits = 0;
          for (int i = 0; i < 1000; i++) {
            hits += p.test(p.hash(TestSupport.utf8("absent" + i), 0, ("absent" + i).length())) ? 1 : 0;
          }
          assertTrue(hits < 500, "stage " + s + ": " + hits);
        }
      }
    }
  }

  @Test
  void roundTripsKeepEveryStage() throws IOException {
    for (int keys : new int[] {10, 250, 5000}) {
      try (BloomFilter f = grow(100, 0.01, 17)) {
        for (int i = 0; i < keys; i++) {
          f.put("rt" + i);
        }
        int stages = f.stageCount();
        // a stage is appended once the newest has taken its capacity: 100, 300, ..., 6300
        assertEquals(keys == 10 ? 1 : keys == 250 ? 2 : 6, stages, keys + " keys");
        byte[] bytes = f.toByteArray();
        assertEquals(f.serializedSize(), bytes.length);
        Path path = dir.resolve("g" + keys + ".abloom");
        f.save(path);
        assertArrayEquals(bytes, Files.readAllBytes(path));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.writeTo(out);
        assertArrayEquals(bytes, out.toByteArray());
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length + 64).alignedSlice(64);
        direct.put(bytes).flip();
        List<BloomFilter> read = new ArrayList<>();
        try {
          read.add(BloomFilter.fromByteArray(bytes));
          read.add(BloomFilter.readFrom(new ByteArrayInputStream(bytes)));
          read.add(BloomFilter.open(path));
          read.add(BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true));
          read.add(BloomFilter.open(path, BloomFilter.OpenMode.COPY_ON_WRITE, true));
          read.add(BloomFilter.wrap(direct, true));
          read.add(f.copy());
          for (BloomFilter g : read) {
            assertTrue(g.isGrowing());
            assertEquals(stages, g.stageCount(), g.toString());
            assertEquals(f, g, g.toString());
            assertEquals(f.hashCode(), g.hashCode());
            for (int i = 0; i < keys; i++) {
              assertTrue(g.mightContain("rt" + i), g + ": rt" + i);
            }
            assertArrayEquals(bytes, g.toByteArray());
          }
          assertThrows(UnsupportedOperationException.class, () -> read.get(2).put("x"));
          // copy-on-write: it grows in memory, the file stays as it was
          BloomFilter cow = read.get(4);
          for (int i = 0; i < 3000; i++) {
            cow.put("more" + i);
          }
          assertTrue(cow.stageCount() > stages);
          for (int i = 0; i < 3000; i++) {
            assertTrue(cow.mightContain("more" + i));
          }
          assertArrayEquals(bytes, Files.readAllBytes(path));
        } finally {
          for (BloomFilter g : read) {
            g.close();
          }
        }
        // a damaged stage is refused
        byte[] bad = bytes.clone();
        bad[bad.length - 1] ^= 1;
        AbloomFormatException e =
            assertThrows(AbloomFormatException.class, () -> BloomFilter.fromByteArray(bad));
        assertEquals(AbloomError.CHECKSUM, e.error());
        assertThrows(
            AbloomFormatException.class,
            () -> BloomFilter.readFrom(new ByteArrayInputStream(bytes, 0, bytes.length - 1)));
      }
    }
  }

  @Test
  void unionsStageByStageAndRefusesOtherShapes() {
    try (BloomFilter a = grow(200, 0.01, 5);
        BloomFilter b = grow(200, 0.01, 5);
        BloomFilter fixed = BloomFilter.create(1000, 0.01);
        BloomFilter otherGrowth =
            BloomFilter.builder().growth(4.0).initialCapacity(200).fpp(0.01).seed(5).build();
        BloomFilter otherFirst = grow(300, 0.01, 5);
        BloomFilter otherFpp = grow(200, 0.02, 5)) {
      a.putAll(range(0, 500));
      b.putAll(range(500, 3000));
      assertTrue(a.isCompatible(b));
      int bStages = b.stageCount();
      assertTrue(a.stageCount() < bStages);
      a.putAll(b);
      assertEquals(bStages, a.stageCount(), "a grew to b's stages");
      for (long i = 0; i < 3000; i++) {
        assertTrue(a.mightContain(i), "key " + i + " after the union");
      }
      for (BloomFilter other : List.of(fixed, otherGrowth, otherFirst, otherFpp)) {
        assertFalse(a.isCompatible(other), other.toString());
        assertNotEquals(a, other);
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> a.putAll(other), other.toString());
        assertTrue(e.getMessage().contains("growing"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> other.putAll(a));
      }
      // the engine's own check, should the Java one be passed: ABLOOM_ERR_MISMATCH
      assertEquals(
          AbloomError.MISMATCH.code(),
          (int) a.core.<Integer>call(h -> fixed.core.call(o -> AbloomNative.abloom_union(h, o))));
      assertEquals(
          AbloomError.MISMATCH.code(),
          (int) a.core.<Integer>call(h -> otherGrowth.core.call(o -> AbloomNative.abloom_union(h, o))));
    }
  }

  @Test
  void unsupportedCallsSaySo() throws IOException {
    Path path = dir.resolve("u.abloom");
    try (BloomFilter a = BloomFilter.growing(0.01);
        BloomFilter b = BloomFilter.growing(0.01);
        BloomFilter fixed = BloomFilter.create(1000, 0.01)) {
      a.putAll(range(0, 5000));
      a.save(path);
      UnsupportedOperationException e =
          assertThrows(UnsupportedOperationException.class, () -> a.intersect(b));
      assertTrue(e.getMessage().contains("growing"), e.getMessage());
      assertThrows(UnsupportedOperationException.class, () -> fixed.intersect(a));
      assertThrows(UnsupportedOperationException.class, () -> a.intersect(fixed));
      assertEquals(
          AbloomError.UNSUPPORTED.code(),
          (int) a.core.<Integer>call(h -> b.core.call(o -> AbloomNative.abloom_intersect(h, o))));
      assertThrows(
          UnsupportedOperationException.class,
          () -> Probe.over(new ByteBuffer[0], Probe.MAX_CHUNK_SHIFT, a));
      for (int i = 0; i < 5000; i++) {
        assertTrue(a.mightContain(i), "intersect left a unchanged");
      }
    }
    // A chain file of the first form (no place in its table for another stage) cannot grow in
    // place: refused, untouched.
    Path first = dir.resolve("first.abloom");
    Files.copy(TestSupport.vectors().resolve("first-written/growing_s1.abloom"), first);
    byte[] before = Files.readAllBytes(first);
    UnsupportedOperationException e =
        assertThrows(
            UnsupportedOperationException.class,
            () -> BloomFilter.open(first, BloomFilter.OpenMode.READ_WRITE, false));
    assertTrue(e.getMessage().contains("COPY_ON_WRITE"), e.getMessage());
    assertArrayEquals(before, Files.readAllBytes(first), "the file untouched");
    // a file the engine refuses for itself keeps its format error
    Path junk = dir.resolve("junk.abloom");
    Files.write(junk, new byte[200]);
    assertThrows(
        AbloomFormatException.class,
        () -> BloomFilter.open(junk, BloomFilter.OpenMode.READ_WRITE, false));
  }

  @Test
  void aGrowingFileGrowsInPlaceReadWrite() throws IOException {
    Path path = dir.resolve("rw.abloom");
    try (BloomFilter a = BloomFilter.builder().growth(2.0).initialCapacity(100).fpp(0.01).build()) {
      a.putAll(range(0, 150));
      a.save(path);
    }
    Path copy = dir.resolve("stale.abloom");
    try (BloomFilter rw = BloomFilter.open(path, BloomFilter.OpenMode.READ_WRITE, true)) {
      rw.putAll(range(1000, 4000));
      assertTrue(rw.stageCount() >= 5, "stages: " + rw.stageCount());
      rw.sync();
      // a verifying reader sees the writer's file as stale; a copy is what a kill would leave
      assertThrows(
          AbloomStaleException.class,
          () -> BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true));
      Files.copy(path, copy);
    }
    BloomFilter.seal(copy);
    for (Path p : List.of(path, copy)) {
      try (BloomFilter sealed = BloomFilter.open(p, BloomFilter.OpenMode.READ_ONLY, true)) {
        for (int i = 0; i < 150; i++) {
          assertTrue(sealed.mightContain(i), p + ": key " + i);
        }
        for (int i = 1000; i < 4000; i++) {
          assertTrue(sealed.mightContain(i), p + ": key " + i);
        }
      }
    }
  }

  @Test
  void infoAndStagesDescribeTheChain() {
    BloomFilter.Builder b =
        BloomFilter.builder().growth(2.0).initialCapacity(1000).fpp(0.01).seed(8).shards(2);
    try (BloomFilter f = b.build()) {
      assertEquals(2.0, f.growth());
      assertEquals(1, f.stageCount());
      assertEquals(0, f.keyCount());
      assertEquals(1000, f.expectedInsertions());
      assertEquals(0.01, f.targetFpp());
      f.putAll(range(0, 10_000));
      assertEquals(4, f.stageCount(), "1000 + 2000 + 4000 < 10000 <= 15000");
      List<BloomFilter.Stage> stages = f.stages();
      assertEquals(4, stages.size());
      long capacity = 0;
      long bits = 0;
      long keys = 0;
      double bound = 0;
      double targets = 0;
      for (int i = 0; i < 4; i++) {
        BloomFilter.Stage s = stages.get(i);
        assertEquals(s, f.stage(i));
        assertEquals(i, s.index());
        assertEquals(1000L << i, s.expectedInsertions());
        assertEquals(2, s.shards());
        assertEquals(BloomFilter.Kind.BLOCKED, s.kind());
        assertEquals(s.shards() * s.blocksPerShard() * 512, s.bitSize());
        assertTrue(s.modelFpp() <= s.targetFpp(), s.toString());
        targets += s.targetFpp();
        if (i < 3) {
          assertEquals(s.expectedInsertions(), s.keyCount(), "a full stage: " + s);
        }
        capacity += s.expectedInsertions();
        bits += s.bitSize();
        keys += s.keyCount();
        bound += s.modelFpp();
      }
      assertEquals(capacity, f.expectedInsertions());
      assertEquals(bits, f.bitSize());
      assertEquals(keys, f.keyCount());
      assertEquals(bound, f.modelFpp(), 1e-12);
      assertTrue(targets < f.targetFpp(), "the stages' targets share the chain's: " + targets);
      assertEquals(stages.get(3).hashFunctions(), f.hashFunctions(), "the newest stage's k");
      BloomFilter.GrowthPlan plan = b.growthPlan(10_000);
      assertEquals(4, plan.stages());
      assertEquals(bits / 8, plan.bytes());
      assertEquals(bound, plan.fppBound(), 1e-12);
      assertEquals(1000, b.plan().bits() > 0 ? stages.get(0).expectedInsertions() : -1);
      assertEquals(stages.get(0).bitSize(), b.plan().bits(), "plan(): the first stage");
      assertThrows(IndexOutOfBoundsException.class, () -> f.stage(4));
      assertThrows(IndexOutOfBoundsException.class, () -> f.stage(-1));
      assertTrue(f.toString().contains("stages=4"), f.toString());
      assertTrue(f.approximateElementCount() > 9000 && f.approximateElementCount() < 11_000);
      assertTrue(f.expectedFpp() > 0 && f.expectedFpp() < 0.01);
      // clear: every stage kept, empty
      f.clear();
      assertEquals(4, f.stageCount());
      assertEquals(0, f.keyCount());
      assertFalse(f.mightContain(5L));
      f.put(5L);
      assertTrue(f.mightContain(5L));
    }
    // a fixed filter is its own one stage
    try (BloomFilter f = BloomFilter.create(5000, 0.01)) {
      assertFalse(f.isGrowing());
      assertEquals(0.0, f.growth());
      assertEquals(1, f.stageCount());
      assertEquals(0, f.keyCount());
      assertFalse(f.growthFailed());
      BloomFilter.Stage s = f.stage(0);
      assertEquals(f.bitSize(), s.bitSize());
      assertEquals(f.hashFunctions(), s.hashFunctions());
      assertEquals(5000, s.expectedInsertions());
      assertThrows(IndexOutOfBoundsException.class, () -> f.stage(1));
    }
    // the defaults
    try (BloomFilter f = BloomFilter.growing()) {
      assertEquals(BloomFilter.DEFAULT_GROWTH, f.growth());
      assertEquals(BloomFilter.DEFAULT_INITIAL_CAPACITY, f.expectedInsertions());
      assertEquals(0.01, f.targetFpp());
    }
  }

  @Test
  void badArgumentsAreRefused() {
    for (double bad : new double[] {1.0, 0.5, -2.0, 16.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().growth(bad), "" + bad);
    }
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().initialCapacity(0));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.growing(0.0));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.growing(1.0));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BloomFilter.builder().growth(2.0).bits(1 << 20).build());
    assertTrue(e.getMessage().contains("bits and hashFunctions"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> BloomFilter.builder().growth(2.0).hashFunctions(7).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> BloomFilter.builder().growth(2.0).kind(BloomFilter.Kind.CLASSIC).layout(Layout.SPLIT)
            .build());
    assertThrows(
        IllegalStateException.class, () -> BloomFilter.builder().expectedInsertions(10).growthPlan(5));
    assertThrows(
        IllegalArgumentException.class, () -> BloomFilter.builder().growth(2.0).growthPlan(0));
    // more than MAX_STAGES stages' worth of keys
    assertThrows(
        IllegalArgumentException.class,
        () -> BloomFilter.builder().growth(1.01).initialCapacity(1).growthPlan(Long.MAX_VALUE));
    // growth 0 is a fixed filter again, which needs its capacity
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().growth(0).build());
    BloomFilter f = BloomFilter.growing();
    f.close();
    assertThrows(IllegalStateException.class, () -> f.put(1L));
    assertThrows(IllegalStateException.class, () -> f.mightContain(1L));
    assertThrows(IllegalStateException.class, f::stageCount);
    assertThrows(IllegalStateException.class, () -> f.stage(0));
    assertThrows(IllegalStateException.class, f::keyCount);
    assertThrows(IllegalStateException.class, f::bitSize);
    assertTrue(f.toString().contains("closed"));
  }

  /** tests/vectors/growing_s1 (written by C): read every way, rebuilt byte for byte. */
  @Test
  void theGrowingGoldenVector() throws IOException {
    Path dirv = TestSupport.vectors();
    Path path = dirv.resolve("growing_s1.abloom");
    byte[] file = Files.readAllBytes(path);
    List<byte[]> keys = new ArrayList<>();
    for (String line : TestSupport.lines(dirv.resolve("growing_s1.keys.txt"))) {
      keys.add(TestSupport.utf8(line));
    }
    List<byte[]> absent = new ArrayList<>();
    List<Boolean> answers = new ArrayList<>();
    for (String line : TestSupport.lines(dirv.resolve("growing_s1.absent.txt"))) {
      int sp = line.indexOf(' ');
      answers.add(line.substring(0, sp).equals("1"));
      absent.add(TestSupport.utf8(line.substring(sp + 1)));
    }
    assertEquals(450, keys.size());
    assertEquals(2000, absent.size());
    ByteBuffer direct = ByteBuffer.allocateDirect(file.length + 64).alignedSlice(64);
    direct.put(file).flip();
    List<BloomFilter> read = new ArrayList<>();
    try {
      read.add(BloomFilter.fromByteArray(file));
      read.add(BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true));
      read.add(BloomFilter.readFrom(new ByteArrayInputStream(file)));
      read.add(BloomFilter.wrap(direct, false));
      for (BloomFilter f : read) {
        assertTrue(f.isGrowing());
        assertEquals(3, f.stageCount());
        assertEquals(2.0, f.growth());
        assertEquals(700, f.expectedInsertions(), "100 + 200 + 400");
        assertEquals(0.1, f.targetFpp());
        assertEquals(0x6A0E1A6000000003L, f.seed());
        assertEquals(1, f.shards());
        assertEquals(150, f.stage(2).keyCount(), "the third stage holds 150");
        for (byte[] k : keys) {
          assertTrue(f.mightContain(k), () -> f + ": missing " + new String(k));
        }
        int fp = 0;
        boolean[] batch = f.mightContainAll(absent);
        for (int i = 0; i < absent.size(); i++) {
          boolean got = f.mightContain(absent.get(i));
          assertEquals(answers.get(i), got, "absent key " + i);
          assertEquals(got, batch[i], "batch, absent key " + i);
          fp += got ? 1 : 0;
        }
        assertEquals(1, fp, "1 of 2000 (tests/vectors/README.md)");
        assertArrayEquals(file, f.toByteArray());
      }
    } finally {
      for (BloomFilter f : read) {
        f.close();
      }
    }
    BloomFilter.Builder b =
        BloomFilter.builder()
            .growth(2.0)
            .initialCapacity(100)
            .fpp(0.1)
            .shards(1)
            .seed(0x6A0E1A6000000003L);
    try (BloomFilter one = b.build();
        BloomFilter batch = b.build()) {
      for (byte[] k : keys) {
        one.put(k);
      }
      batch.putAll(keys);
      assertArrayEquals(file, one.toByteArray(), "one by one");
      assertArrayEquals(file, batch.toByteArray(), "one batch");
      Path saved = dir.resolve("growing_s1.abloom");
      one.save(saved);
      assertArrayEquals(file, Files.readAllBytes(saved), "save");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      batch.writeTo(out);
      assertArrayEquals(file, out.toByteArray(), "writeTo");
    }
  }
}
