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
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-block layouts: defaults, the split and half layouts' answers, sizes, model, files and
 * errors, and the half layout's exact bits.
 */
class LayoutTest {
  private static final BloomFilter.Kind BLOCKED = BloomFilter.Kind.BLOCKED;
  private static final BloomFilter.Kind CLASSIC = BloomFilter.Kind.CLASSIC;
  private static final int N = 20_000;
  private static final int ABSENT = 200_000;
  private static final long SEED = 0x5B11_7E57_0000_0001L;

  private static BloomFilter.Builder split(long n, double fpp) {
    return blocked(Layout.SPLIT, n, fpp);
  }

  private static BloomFilter.Builder half(long n, double fpp) {
    return blocked(Layout.HALF, n, fpp);
  }

  private static BloomFilter.Builder blocked(Layout layout, long n, double fpp) {
    return BloomFilter.builder().expectedInsertions(n).fpp(fpp).seed(SEED).layout(layout);
  }

  /** The key-index of the i-th absent key (the added keys are 0 .. N-1). */
  private static long absent(int i) {
    return 50_000_000L + i;
  }

  /** A split filter of N fixed keys. */
  private static BloomFilter splitFilter() {
    return filled(Layout.SPLIT);
  }

  /** A filter of {@code layout} at 1% holding N fixed keys. */
  private static BloomFilter filled(Layout layout) {
    BloomFilter f = blocked(layout, N, 0.01).build();
    for (int i = 0; i < N; i++) {
      f.put(TestSupport.key16(i));
    }
    return f;
  }

  /** The layout id the serialized header records (bytes 20..23, little-endian). */
  private static int layoutId(byte[] bytes) {
    return (bytes[20] & 0xFF)
        | (bytes[21] & 0xFF) << 8
        | (bytes[22] & 0xFF) << 16
        | (bytes[23] & 0xFF) << 24;
  }

  /** The plan for these options, with {@code layout} given (null: left to the library). */
  private static BloomFilter.Plan planWith(
      long n, double fpp, BloomFilter.Kind kind, long bits, int k, Layout layout) {
    BloomFilter.Builder b =
        BloomFilter.builder().expectedInsertions(n).fpp(fpp).kind(kind).seed(SEED).bits(bits)
            .hashFunctions(k);
    return layout == null ? b.plan() : b.layout(layout).plan();
  }

  /**
   * Left to the library, a blocked filter gets SPLIT wherever split's k (at most 16) is enough: an
   * explicit k up to 16, a target whose best distinct k is at most 16 (1% .. 1e-5 here), explicit
   * bits whose best distinct k is; DISTINCT for the classic kind, an explicit k above 16 and low
   * targets (1e-7, 1e-9). Either way the plan is the one of that layout asked for explicitly.
   */
  @Test
  void theDefaultLayoutIsSplitWhereItsKSufficesElseDistinct() throws IOException {
    Object[][] cases = {
      // kind, fpp, bits, k, the layout the library must choose
      {BLOCKED, 0.01, 0L, 0, Layout.SPLIT},
      {BLOCKED, 0.05, 0L, 0, Layout.SPLIT},
      {BLOCKED, 0.001, 0L, 0, Layout.SPLIT},
      {BLOCKED, 1e-5, 0L, 0, Layout.SPLIT},
      {BLOCKED, 1e-7, 0L, 0, Layout.DISTINCT},
      {BLOCKED, 1e-9, 0L, 0, Layout.DISTINCT},
      {BLOCKED, 0.01, 0L, 16, Layout.SPLIT},
      {BLOCKED, 0.01, 0L, 17, Layout.DISTINCT},
      {BLOCKED, 0.01, 0L, 30, Layout.DISTINCT},
      {BLOCKED, 0.01, N * 10L, 0, Layout.SPLIT},
      {BLOCKED, 0.01, N * 10L, 7, Layout.SPLIT},
      {BLOCKED, 0.01, N * 60L, 0, Layout.DISTINCT},
      {CLASSIC, 0.01, 0L, 0, Layout.DISTINCT},
      {CLASSIC, 1e-9, 0L, 0, Layout.DISTINCT},
      {CLASSIC, 0.01, 0L, 7, Layout.DISTINCT},
    };
    for (Object[] c : cases) {
      BloomFilter.Kind kind = (BloomFilter.Kind) c[0];
      double fpp = (double) c[1];
      long bits = (long) c[2];
      int k = (int) c[3];
      Layout want = (Layout) c[4];
      String what = kind + " fpp " + fpp + " bits " + bits + " k " + k;
      BloomFilter.Plan p = planWith(N, fpp, kind, bits, k, null);
      assertEquals(want, p.layout(), what);
      assertEquals(planWith(N, fpp, kind, bits, k, want), p, what + ": the plan of " + want);
      if (k != 0) {
        assertEquals(k, p.hashFunctions(), what);
      }
      if (bits == 0 && k == 0) {
        assertTrue(p.expectedFpp() <= fpp, what + ": " + p);
      }
      BloomFilter.Builder b =
          BloomFilter.builder().expectedInsertions(N).fpp(fpp).kind(kind).seed(SEED).bits(bits)
              .hashFunctions(k);
      try (BloomFilter f = b.build();
          BloomFilter copy = f.copy();
          BloomFilter back = BloomFilter.fromByteArray(f.toByteArray())) {
        assertEquals(want, f.layout(), what);
        assertEquals(want, copy.layout(), what);
        assertEquals(want, back.layout(), what + ": the serialized form records it");
        assertEquals(want.code(), layoutId(f.toByteArray()), what + ": header layout id");
        assertEquals(p.bits(), f.bitSize(), what);
        assertEquals(p.hashFunctions(), f.hashFunctions(), what);
        assertEquals(p.expectedFpp(), f.modelFpp(), what);
        assertTrue(f.toString().contains("layout=" + want), f.toString());
        try (BloomFilter pinned = b.layout(want).build()) {
          assertEquals(f, pinned, what + ": the same filter as " + want + " asked for");
          assertTrue(f.isCompatible(pinned), what);
        }
      }
    }
    // The 1% default in particular: split (header layout id 2), 2-3% more bits than distinct.
    try (BloomFilter f = BloomFilter.create(N, 0.01);
        BloomFilter d = BloomFilter.builder().expectedInsertions(N).fpp(0.01)
            .layout(Layout.DISTINCT).build()) {
      assertEquals(Layout.SPLIT, f.layout());
      assertEquals(2, layoutId(f.toByteArray()));
      assertEquals(Layout.DISTINCT, d.layout());
      assertEquals(1, layoutId(d.toByteArray()));
      assertFalse(f.isCompatible(d), "the default and an explicit DISTINCT differ in shape");
      assertTrue(f.bitSize() > d.bitSize() && f.bitSize() <= d.bitSize() * 1.03,
          f.bitSize() + " against " + d.bitSize());
    }
    try (BloomFilter f = BloomFilter.create(N)) {
      assertEquals(Layout.SPLIT, f.layout(), "Guava's default 3%");
    }
    assertThrows(NullPointerException.class, () -> BloomFilter.builder().layout(null));
    assertEquals(64, Layout.DISTINCT.maxHashFunctions());
    assertEquals(16, Layout.SPLIT.maxHashFunctions());
    assertEquals(8, Layout.HALF.maxHashFunctions());
    assertTrue(Layout.DISTINCT.supports(CLASSIC) && Layout.DISTINCT.supports(BLOCKED));
    assertTrue(Layout.SPLIT.supports(BLOCKED));
    assertFalse(Layout.SPLIT.supports(CLASSIC));
    assertTrue(Layout.HALF.supports(BLOCKED));
    assertFalse(Layout.HALF.supports(CLASSIC));
  }

  /**
   * The ids the format records, both ways; an id the binding does not know fails rather than
   * being read as another layout.
   */
  @Test
  void layoutIdsMapBothWaysAndUnknownOnesFail() {
    assertEquals(1, Layout.DISTINCT.code());
    assertEquals(2, Layout.SPLIT.code());
    assertEquals(3, Layout.HALF.code());
    for (Layout l : Layout.values()) {
      assertEquals(l, Layout.of(l.code()));
    }
    for (long unknown : new long[] {0, 4, 5, -1, 1L << 32 | 1}) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> Layout.of(unknown));
      assertTrue(e.getMessage().contains("layout id " + unknown), e.getMessage());
    }
    // The engine refuses an unknown layout id in options and in its model.
    long[] out = new long[8];
    int invalid = AbloomError.INVALID.code();
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 0, 0, 4, 0.0, out));
    assertEquals(invalid, AbloomNative.jab_create(N, 0.01, BLOCKED.code, 0, 0, 0, 0, 0, 4, 0.0));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(BLOCKED.code, 4, 10.0, 8, out));
  }

  /**
   * The library never chooses the half layout, whatever the target, k or bits: it must be asked
   * for. Asked for, every target gets k 8 (the only one), and the plan meets the target.
   */
  @Test
  void halfIsNeverTheDefaultAndAlwaysHasEightHashFunctions() {
    for (double fpp : new double[] {0.2, 0.05, 0.01, 0.001, 1e-5, 1e-7}) {
      BloomFilter.Plan byDefault = BloomFilter.builder().expectedInsertions(N).fpp(fpp).plan();
      assertNotEquals(Layout.HALF, byDefault.layout(), "fpp " + fpp);
      BloomFilter.Plan p = half(N, fpp).plan();
      assertEquals(Layout.HALF, p.layout(), "fpp " + fpp);
      assertEquals(8, p.hashFunctions(), "fpp " + fpp);
      assertTrue(p.expectedFpp() <= fpp && p.expectedFpp() > fpp / 2, "fpp " + fpp + ": " + p);
      assertEquals(p, half(N, fpp).hashFunctions(8).plan(), "fpp " + fpp + ": k 8 given");
    }
    for (int k : new int[] {0, 8}) {
      BloomFilter.Plan byDefault =
          BloomFilter.builder().expectedInsertions(N).bits(N * 12L).hashFunctions(k).plan();
      assertEquals(Layout.SPLIT, byDefault.layout(), "k " + k);
      BloomFilter.Plan p = half(N, 0.01).bits(N * 12L).hashFunctions(k).plan();
      assertEquals(8, p.hashFunctions(), "explicit bits, k " + k);
      assertEquals(Layout.HALF, p.layout());
      try (BloomFilter f = half(N, 0.01).bits(N * 12L).hashFunctions(k).build()) {
        assertEquals(Layout.HALF, f.layout());
        assertEquals(8, f.hashFunctions());
        assertEquals(p.bits(), f.bitSize());
        assertEquals(3, layoutId(f.toByteArray()), "the header records layout id 3");
        assertTrue(f.toString().contains("layout=HALF"), f.toString());
      }
    }
  }

  @Test
  void splitFilterHasNoFalseNegativesAndMeetsItsModel() {
    BloomFilter.Plan p = split(N, 0.01).plan();
    assertTrue(p.hashFunctions() >= 1 && p.hashFunctions() <= 16, "k " + p.hashFunctions());
    hasNoFalseNegativesAndMeetsItsModel(Layout.SPLIT);
  }

  @Test
  void halfFilterHasNoFalseNegativesAndMeetsItsModel() {
    assertEquals(8, half(N, 0.01).plan().hashFunctions());
    hasNoFalseNegativesAndMeetsItsModel(Layout.HALF);
  }

  /** A filter of {@code layout} at 1%: its plan, every added key present, the measured fpp. */
  private static void hasNoFalseNegativesAndMeetsItsModel(Layout layout) {
    BloomFilter.Plan p = blocked(layout, N, 0.01).plan();
    assertEquals(layout, p.layout());
    assertTrue(p.expectedFpp() <= 0.01 && p.expectedFpp() > 0.005, "model " + p.expectedFpp());
    try (BloomFilter f = filled(layout)) {
      assertEquals(layout, f.layout());
      assertEquals(BLOCKED, f.kind());
      assertEquals(p.hashFunctions(), f.hashFunctions());
      assertEquals(p.bits(), f.bitSize());
      assertEquals(p.shards(), f.shards());
      assertEquals(p.expectedFpp(), f.modelFpp());
      assertEquals(0.01, f.targetFpp());
      assertTrue(f.toString().contains("layout=" + layout), f.toString());
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        byte[] key = TestSupport.key16(i);
        assertTrue(f.mightContain(key), "added key " + i);
        keys.add(key);
      }
      for (boolean hit : f.mightContainAll(keys)) {
        assertTrue(hit);
      }
      // The measured rate on fresh keys: a binomial draw around the model's (exact) FPR.
      int fp = 0;
      for (int i = 0; i < ABSENT; i++) {
        fp += f.mightContain(TestSupport.key16(absent(i))) ? 1 : 0;
      }
      double rate = (double) fp / ABSENT;
      double model = p.expectedFpp();
      double sigma = Math.sqrt(model * (1 - model) / ABSENT);
      String msg =
          layout + ": measured " + rate + " (" + fp + " of " + ABSENT + "), model " + model;
      assertTrue(rate <= model + 5 * sigma, msg);
      assertTrue(rate >= model - 10 * sigma, msg);
      double est = f.approximateElementCount();
      assertTrue(Math.abs(est - N) < N * 0.05, "estimate " + est);
    }
  }

  @Test
  void splitAndDistinctDoNotMix() {
    BloomFilter.Builder b = split(N, 0.01).bits(N * 10L).hashFunctions(7);
    try (BloomFilter s = b.build();
        BloomFilter d = b.layout(Layout.DISTINCT).build()) {
      assertEquals(s.bitSize(), d.bitSize());
      assertEquals(s.hashFunctions(), d.hashFunctions());
      assertFalse(s.isCompatible(d), "the layout is part of the shape");
      assertNotEquals(s, d);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.putAll(d));
      assertTrue(e.getMessage().contains("layout=SPLIT"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> d.intersect(s));
      for (int i = 0; i < 1000; i++) {
        s.put(TestSupport.key16(i));
        d.put(TestSupport.key16(i));
      }
      byte[] sb = s.toByteArray();
      byte[] db = d.toByteArray();
      assertEquals(2, layoutId(sb));
      assertEquals(1, layoutId(db));
      assertFalse(
          java.util.Arrays.equals(sb, 128, sb.length, db, 128, db.length),
          "the same keys set other bits");
    }
  }

  /** Split, half and distinct filters of the same bits and k are three shapes that never mix. */
  @Test
  void halfMixesWithNeitherSplitNorDistinct() {
    BloomFilter.Builder b = half(N, 0.01).bits(N * 10L).hashFunctions(8);
    try (BloomFilter h = b.build();
        BloomFilter s = b.layout(Layout.SPLIT).build();
        BloomFilter d = b.layout(Layout.DISTINCT).build()) {
      for (BloomFilter other : new BloomFilter[] {s, d}) {
        String what = "half and " + other.layout();
        assertEquals(h.bitSize(), other.bitSize(), what);
        assertEquals(h.hashFunctions(), other.hashFunctions(), what);
        assertFalse(h.isCompatible(other), what + ": the layout is part of the shape");
        assertFalse(other.isCompatible(h), what);
        assertNotEquals(h, other, what);
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> h.putAll(other));
        assertTrue(e.getMessage().contains("layout=HALF"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> other.intersect(h));
      }
      for (int i = 0; i < 1000; i++) {
        h.put(TestSupport.key16(i));
        s.put(TestSupport.key16(i));
      }
      byte[] hb = h.toByteArray();
      byte[] sb = s.toByteArray();
      assertEquals(3, layoutId(hb));
      assertEquals(2, layoutId(sb));
      assertFalse(
          java.util.Arrays.equals(hb, 128, hb.length, sb, 128, sb.length),
          "the same keys set other bits");
    }
  }

  /**
   * The half layout's price for its speed: more bits than split for the same fpp, more so at
   * lower targets, and always more than distinct.
   */
  @Test
  void halfNeedsAFewPercentMoreBitsThanSplit() {
    double[][] bounds = {{0.01, 1.02, 1.07}, {0.001, 1.04, 1.10}};
    for (double[] c : bounds) {
      double fpp = c[0];
      for (long n : new long[] {10_000, 1_000_000, 100_000_000}) {
        BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(n).fpp(fpp);
        BloomFilter.Plan d = b.layout(Layout.DISTINCT).plan();
        BloomFilter.Plan s = b.layout(Layout.SPLIT).plan();
        BloomFilter.Plan h = b.layout(Layout.HALF).plan();
        assertEquals(Layout.HALF, h.layout());
        assertTrue(h.expectedFpp() <= fpp, "fpp " + fpp + ", n " + n + ": " + h);
        double ratio = h.bitsPerKey() / s.bitsPerKey();
        String msg =
            "fpp " + fpp + ", n " + n + ": half " + h.bitsPerKey() + " bits/key, split "
                + s.bitsPerKey() + " (x" + ratio + "), distinct " + d.bitsPerKey();
        assertTrue(ratio >= c[1] && ratio <= c[2], msg);
        assertTrue(h.bitsPerKey() > d.bitsPerKey(), msg);
      }
    }
  }

  @Test
  void splitNeedsOnlyAFewPercentMoreBits() {
    for (double fpp : new double[] {0.01, 0.001}) {
      for (long n : new long[] {10_000, 1_000_000, 100_000_000}) {
        BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(n).fpp(fpp);
        BloomFilter.Plan byDefault = b.plan();
        BloomFilter.Plan d = b.layout(Layout.DISTINCT).plan();
        BloomFilter.Plan s = b.layout(Layout.SPLIT).plan();
        assertEquals(Layout.DISTINCT, d.layout());
        assertEquals(Layout.SPLIT, s.layout());
        assertEquals(s, byDefault, "fpp " + fpp + ", n " + n + ": the default is split");
        assertTrue(s.expectedFpp() <= fpp && d.expectedFpp() <= fpp);
        String msg =
            "fpp " + fpp + ", n " + n + ": split " + s.bitsPerKey() + " bits/key (k "
                + s.hashFunctions() + "), distinct " + d.bitsPerKey() + " (k "
                + d.hashFunctions() + ")";
        // measured: +2.1-2.3% at 1%, +1.6-1.7% at 0.1%
        assertTrue(s.bitsPerKey() >= d.bitsPerKey(), msg);
        assertTrue(s.bitsPerKey() <= d.bitsPerKey() * 1.03, msg);
      }
    }
  }

  @Test
  void modelFppAgreesWithPlans() {
    for (BloomFilter.Kind kind : BloomFilter.Kind.values()) {
      for (Layout layout : Layout.values()) {
        if (!layout.supports(kind)) {
          continue;
        }
        for (double fpp : new double[] {0.05, 0.01, 0.001, 1e-5}) {
          for (long n : new long[] {450, 100_000, 10_000_000}) {
            BloomFilter.Plan p =
                BloomFilter.builder().expectedInsertions(n).fpp(fpp).kind(kind).layout(layout)
                    .plan();
            double model = BloomFilter.modelFpp(kind, layout, p.bitsPerKey(), p.hashFunctions());
            assertEquals(
                p.expectedFpp(), model, p.expectedFpp() * 1e-9, kind + " " + layout + " " + p);
            assertTrue(model <= fpp, kind + " " + layout + " " + p);
            if (layout == Layout.DISTINCT) {
              assertEquals(
                  model, BloomFilter.modelFpp(kind, p.bitsPerKey(), p.hashFunctions()), 0.0);
            }
          }
        }
      }
    }
    // The split layout's bits collide more: a higher rate for the same bits and k.
    for (int k = 2; k <= 16; k++) {
      double d = BloomFilter.modelFpp(BLOCKED, Layout.DISTINCT, 10.0, k);
      double s = BloomFilter.modelFpp(BLOCKED, Layout.SPLIT, 10.0, k);
      assertTrue(s > d, "k " + k + ": split " + s + ", distinct " + d);
      assertTrue(s > 0 && s < 1, "k " + k + ": split " + s);
    }
    // The half layout's bits are confined to half a block: a higher rate than split's at k 8.
    for (double bitsPerKey : new double[] {6.0, 10.0, 16.0}) {
      double s = BloomFilter.modelFpp(BLOCKED, Layout.SPLIT, bitsPerKey, 8);
      double h = BloomFilter.modelFpp(BLOCKED, Layout.HALF, bitsPerKey, 8);
      assertTrue(h > s && h < 1, bitsPerKey + " bits/key: half " + h + ", split " + s);
    }
    for (Layout layout : new Layout[] {Layout.SPLIT, Layout.HALF}) {
      try (BloomFilter f = filled(layout)) {
        assertEquals(
            f.modelFpp(),
            BloomFilter.modelFpp(BLOCKED, layout, (double) f.bitSize() / N, f.hashFunctions()),
            f.modelFpp() * 1e-9,
            layout.toString());
      }
    }
  }

  @Test
  void splitSurvivesEverySerializedForm(@TempDir Path tmp) throws IOException {
    survivesEverySerializedForm(Layout.SPLIT, tmp);
  }

  @Test
  void halfSurvivesEverySerializedForm(@TempDir Path tmp) throws IOException {
    survivesEverySerializedForm(Layout.HALF, tmp);
  }

  /**
   * A filter of {@code layout} read back every way keeps its layout, shape, bits and answers; a
   * read-write mapping keeps adding in it; union and intersection work.
   */
  private static void survivesEverySerializedForm(Layout layout, Path tmp) throws IOException {
    try (BloomFilter f = filled(layout)) {
      byte[] bytes = f.toByteArray();
      assertEquals(layout.code(), layoutId(bytes), "the header records the layout's id");
      boolean[] answers = new boolean[10_000];
      for (int i = 0; i < answers.length; i++) {
        answers[i] = f.mightContain(TestSupport.key16(absent(i)));
      }
      List<BloomFilter> copies = new ArrayList<>();
      try {
        copies.add(BloomFilter.fromByteArray(bytes));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.writeTo(out);
        assertArrayEquals(bytes, out.toByteArray());
        copies.add(BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray())));
        Path path = tmp.resolve(layout + ".abloom");
        f.save(path);
        assertArrayEquals(bytes, Files.readAllBytes(path));
        copies.add(BloomFilter.open(path));
        copies.add(BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true));
        copies.add(BloomFilter.open(path, BloomFilter.OpenMode.COPY_ON_WRITE, true));
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes.length + 64).alignedSlice(64);
        buf.put(bytes).flip();
        copies.add(BloomFilter.wrap(buf, true));
        copies.add(f.copy());
        for (BloomFilter g : copies) {
          String how = layout + " " + g.storage() + (g.isReadOnly() ? " read-only" : "");
          assertEquals(layout, g.layout(), how);
          assertEquals(f.hashFunctions(), g.hashFunctions(), how);
          assertEquals(f.modelFpp(), g.modelFpp(), how);
          assertTrue(f.isCompatible(g), how);
          assertEquals(f, g, how);
          assertEquals(f.hashCode(), g.hashCode(), how);
          for (int i = 0; i < N; i++) {
            assertTrue(g.mightContain(TestSupport.key16(i)), how + ": added key " + i);
          }
          for (int i = 0; i < answers.length; i++) {
            assertEquals(answers[i], g.mightContain(TestSupport.key16(absent(i))), how);
          }
          assertArrayEquals(bytes, g.toByteArray(), how);
        }
        // A read-write mapping keeps adding in the layout, and persists.
        try (BloomFilter rw = BloomFilter.open(path, BloomFilter.OpenMode.READ_WRITE, true)) {
          assertEquals(layout, rw.layout());
          rw.put("added through the mapping");
          f.put("added through the mapping");
        }
        try (BloomFilter again = BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true)) {
          assertEquals(layout, again.layout());
          assertEquals(layout.code(), layoutId(Files.readAllBytes(path)));
          assertTrue(again.mightContain("added through the mapping"));
          assertEquals(f, again);
        }
        // union and intersection of filters of the layout work
        try (BloomFilter u = blocked(layout, N, 0.01).build()) {
          u.putAll(f);
          assertEquals(f, u);
          u.intersect(f);
          assertEquals(f, u);
        }
      } finally {
        for (BloomFilter g : copies) {
          g.close();
        }
      }
    }
  }

  /**
   * The body bits of hash {@code h} in a half filter of {@code 2^shardBits} shards of {@code
   * blocks} blocks, as capi/abloom_layout.h's "Half layout" words them, one 32-bit word at a time
   * (HalfProbe works in 64-bit words): bit b of a shard is bit b &amp; 7 of its byte b &gt;&gt; 3.
   */
  private static long[] specHalfBits(long h, int shardBits, long blocks) {
    long shard = shardBits == 0 ? 0 : h >>> (64 - shardBits);
    long block =
        BigInteger.valueOf(h << shardBits)
            .and(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE))
            .multiply(BigInteger.valueOf(blocks))
            .shiftRight(64)
            .longValueExact();
    long r = h * 0x9E3779B97F4A7C15L;
    long half = (r >>> 32) & 1;
    long[] bits = new long[8];
    for (int w = 0; w < 8; w++) {
      long x = r << (5 * (w / 2));
      long bit = w % 2 == 0 ? (x >>> 27) & 31 : x >>> 59;
      long word32 = 8 * half + w; // 32-bit word of the block
      bits[w] = shard * blocks * 512 + block * 512 + word32 * 32 + bit;
    }
    return bits;
  }

  /** The set bits of a serialized filter's body, as bit indexes from the body's start. */
  private static List<Long> setBits(byte[] serialized) {
    List<Long> out = new ArrayList<>();
    for (int i = 128; i < serialized.length; i++) {
      for (int b = 0; b < 8; b++) {
        if ((serialized[i] >> b & 1) != 0) {
          out.add((long) (i - 128) * 8 + b);
        }
      }
    }
    return out;
  }

  /**
   * A key of a half filter sets exactly the 8 bits the specification gives, one in each 32-bit
   * word of one half of its block, whether the engine adds it (a batch) or Java does (either
   * writer mode); and a filter holding only that key tests it present, in Java and in C.
   */
  @Test
  void aHalfKeySetsExactlyTheSpecsEightBits() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(31);
    int[] halves = new int[2];
    for (int shardBits : new int[] {0, 2}) {
      for (long blocks : new long[] {1, 7, 1000}) {
        BloomFilter.Builder b =
            half(1000, 0.01).bits((blocks << shardBits) * 512).shards(1 << shardBits)
                .seed(r.nextLong());
        for (int key = 0; key < 60; key++) {
          byte[] k = new byte[1 + r.nextInt(40)];
          r.nextBytes(k);
          try (BloomFilter engine = b.build()) {
            assertEquals(blocks, engine.bitSize() / 512 >> shardBits);
            long h = engine.core.probe(12).hash(k, 0, k.length);
            long[] want = specHalfBits(h, shardBits, blocks);
            List<Long> wantList = new ArrayList<>();
            for (long bit : want) {
              wantList.add(bit);
            }
            java.util.Collections.sort(wantList);
            // one per 32-bit word of one 32-byte half: 8 distinct bits
            for (int w = 0; w < 8; w++) {
              assertEquals(want[0] / 256 * 8 + w, want[w] / 32, "word " + w);
            }
            halves[(int) (want[0] / 256 % 2)]++;
            engine.putAll(List.of(k));
            String what = "shards " + (1 << shardBits) + ", blocks " + blocks + ", key " + key;
            assertEquals(wantList, setBits(engine.toByteArray()), what + ": the engine's bits");
            assertTrue(engine.mightContain(k), what);
            for (WriterMode mode : WriterMode.values()) {
              try (BloomFilter java = b.build()) {
                java.setWriterMode(mode);
                assertTrue(java.put(k), what + " " + mode);
                assertEquals(wantList, setBits(java.toByteArray()), what + " " + mode);
                assertTrue(java.mightContainAll(List.of(k))[0], what + " " + mode);
                assertFalse(java.put(k), what + " " + mode + ": a repeat is not new");
              }
            }
          }
        }
      }
    }
    assertTrue(halves[0] > 100 && halves[1] > 100, "both halves: " + halves[0] + ", " + halves[1]);
  }

  /** A growing filter of the half layout: every stage is half, and Java answers as the engine. */
  @Test
  void aGrowingHalfFilterAnswersAsTheEngine() {
    try (BloomFilter g =
        BloomFilter.builder().growth(2.0).initialCapacity(1000).fpp(0.01).layout(Layout.HALF)
            .build()) {
      List<byte[]> absent = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        g.put(TestSupport.key16(i));
        absent.add(TestSupport.key16(absent(i)));
      }
      assertTrue(g.stageCount() >= 4, "stages " + g.stageCount());
      for (int i = 0; i < g.stageCount(); i++) {
        assertEquals(Layout.HALF, g.stage(i).layout(), "stage " + i);
        assertEquals(8, g.stage(i).hashFunctions(), "stage " + i);
      }
      boolean[] want = g.mightContainAll(absent);
      int fp = 0;
      for (int i = 0; i < N; i++) {
        assertTrue(g.mightContain(TestSupport.key16(i)), "added key " + i);
        assertEquals(want[i], g.mightContain(absent.get(i)), "absent key " + i);
        fp += want[i] ? 1 : 0;
      }
      assertTrue(fp > 0 && fp <= N * 0.01 * 1.5, "false positives " + fp);
    }
  }

  private static void rejected(String[] words, Executable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    for (String w : words) {
      assertTrue(e.getMessage().contains(w), "message lacks '" + w + "': " + e.getMessage());
    }
  }

  @Test
  void badCombinationsAreRejected() {
    String[] classic = {"Layout.SPLIT", "Kind.BLOCKED", "Kind.CLASSIC"};
    BloomFilter.Builder c = split(N, 0.01).kind(CLASSIC);
    rejected(classic, c::build);
    rejected(classic, c::plan);
    rejected(classic, () -> BloomFilter.modelFpp(CLASSIC, Layout.SPLIT, 10.0, 7));

    String[] tooMany = {"Layout.SPLIT", "at most 16", "got 17"};
    BloomFilter.Builder k17 = split(N, 0.01).hashFunctions(17);
    rejected(tooMany, k17::build);
    rejected(tooMany, k17::plan);
    rejected(tooMany, () -> BloomFilter.modelFpp(BLOCKED, Layout.SPLIT, 10.0, 17));
    rejected(new String[] {"got 17"}, split(N, 0.01).bits(N * 20L).hashFunctions(17)::build);

    // the largest k, and k 17 with the distinct layout, are fine
    assertEquals(16, split(N, 1e-6).hashFunctions(16).plan().hashFunctions());
    assertEquals(17, split(N, 0.01).hashFunctions(17).layout(Layout.DISTINCT).plan().hashFunctions());
    BloomFilter.modelFpp(BLOCKED, Layout.SPLIT, 10.0, 16);
    // k chosen by sizing stays within the split layout's range even at tiny targets
    BloomFilter.Plan tiny = split(N, 1e-9).plan();
    assertTrue(tiny.hashFunctions() <= 16 && tiny.expectedFpp() <= 1e-9, tiny.toString());

    // The half layout: blocked only, and k 8 only (given, or left to sizing).
    String[] halfClassic = {"Layout.HALF", "Kind.BLOCKED", "Kind.CLASSIC"};
    BloomFilter.Builder hc = half(N, 0.01).kind(CLASSIC);
    rejected(halfClassic, hc::build);
    rejected(halfClassic, hc::plan);
    rejected(halfClassic, () -> BloomFilter.modelFpp(CLASSIC, Layout.HALF, 10.0, 8));
    rejected(halfClassic, () -> BloomFilter.builder().growth(2.0).kind(CLASSIC)
        .layout(Layout.HALF).build());
    for (int k : new int[] {1, 7, 9, 16, 64}) {
      String[] notEight = {"Layout.HALF", "8", "got " + k};
      BloomFilter.Builder hk = half(N, 0.01).hashFunctions(k);
      rejected(notEight, hk::build);
      rejected(notEight, hk::plan);
      rejected(notEight, half(N, 0.01).bits(N * 20L).hashFunctions(k)::build);
      rejected(notEight, () -> BloomFilter.modelFpp(BLOCKED, Layout.HALF, 10.0, k));
    }
    assertEquals(8, half(N, 0.01).hashFunctions(8).plan().hashFunctions());
    assertTrue(BloomFilter.modelFpp(BLOCKED, Layout.HALF, 10.0, 8) > 0);

    // other bad arguments of the model
    for (double bpk : new double[] {0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY}) {
      rejected(new String[] {"bitsPerKey"}, () -> BloomFilter.modelFpp(BLOCKED, Layout.SPLIT, bpk, 7));
    }
    rejected(new String[] {"hashFunctions"}, () -> BloomFilter.modelFpp(BLOCKED, 10.0, 0));
    rejected(new String[] {"hashFunctions"}, () -> BloomFilter.modelFpp(CLASSIC, 10.0, 65));
    assertThrows(NullPointerException.class, () -> BloomFilter.modelFpp(null, Layout.SPLIT, 10, 7));
    assertThrows(NullPointerException.class, () -> BloomFilter.modelFpp(BLOCKED, null, 10, 7));

    // The C library refuses the same combinations (ABLOOM_ERR_INVALID), should a check be missed.
    long[] out = new long[8];
    int invalid = AbloomError.INVALID.code();
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, CLASSIC.code, 0, 0, 0, 0, 0, 2, 0.0, out));
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 17, 0, 2, 0.0, out));
    assertEquals(invalid, AbloomNative.jab_create(N, 0.01, CLASSIC.code, 0, 0, 0, 0, 0, 2, 0.0));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(CLASSIC.code, 2, 10.0, 7, out));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(BLOCKED.code, 2, 10.0, 17, out));
    // ... and the half layout (3) with the classic kind or a k other than 8
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, CLASSIC.code, 0, 0, 0, 0, 0, 3, 0.0, out));
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 7, 0, 3, 0.0, out));
    assertEquals(invalid, AbloomNative.jab_create(N, 0.01, BLOCKED.code, 0, 0, 0, 9, 0, 3, 0.0));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(BLOCKED.code, 3, 10.0, 7, out));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(CLASSIC.code, 3, 10.0, 8, out));
    // the half layout asked for with k left to sizing: k 8
    assertEquals(0, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 0, 0, 3, 0.0, out));
    assertEquals(Layout.HALF.code(), out[7]);
    assertEquals(8, out[0]);
    // ABLOOM_LAYOUT_DEFAULT (0) resolves by the rule: split where its k suffices, else distinct
    assertEquals(0, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 0, 0, 0, 0.0, out));
    assertEquals(Layout.SPLIT.code(), out[7], "ABLOOM_LAYOUT_DEFAULT at 1%: split");
    assertEquals(0, AbloomNative.jab_plan(N, 1e-9, BLOCKED.code, 0, 0, 0, 0, 0, 0, 0.0, out));
    assertEquals(Layout.DISTINCT.code(), out[7], "ABLOOM_LAYOUT_DEFAULT at 1e-9: distinct");
    assertEquals(0, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 17, 0, 0, 0.0, out));
    assertEquals(Layout.DISTINCT.code(), out[7], "ABLOOM_LAYOUT_DEFAULT with k 17: distinct");
    assertEquals(0, AbloomNative.jab_plan(N, 0.01, CLASSIC.code, 0, 0, 0, 0, 0, 0, 0.0, out));
    assertEquals(Layout.DISTINCT.code(), out[7], "ABLOOM_LAYOUT_DEFAULT, classic: distinct");
    // and its model is the model of the layout such options get
    long[] model = new long[1];
    assertEquals(0, AbloomNative.jab_layout_model_fpr(BLOCKED.code, 0, 10.0, 7, model));
    assertEquals(
        BloomFilter.modelFpp(BLOCKED, Layout.SPLIT, 10.0, 7), Double.longBitsToDouble(model[0]));
    assertEquals(0, AbloomNative.jab_layout_model_fpr(BLOCKED.code, 0, 30.0, 17, model));
    double distinct17 = BloomFilter.modelFpp(BLOCKED, Layout.DISTINCT, 30.0, 17);
    assertEquals(distinct17, Double.longBitsToDouble(model[0]));
    assertEquals(0, AbloomNative.jab_layout_model_fpr(CLASSIC.code, 0, 10.0, 7, model));
    assertEquals(
        BloomFilter.modelFpp(CLASSIC, Layout.DISTINCT, 10.0, 7), Double.longBitsToDouble(model[0]));
    // and the binding maps that code to the same exception type as its own checks
    assertTrue(Errors.unchecked(invalid, "plan") instanceof IllegalArgumentException);
  }
}
