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
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** The in-block layouts: defaults, the split layout's answers, sizes, model, files and errors. */
class LayoutTest {
  private static final BloomFilter.Kind BLOCKED = BloomFilter.Kind.BLOCKED;
  private static final BloomFilter.Kind CLASSIC = BloomFilter.Kind.CLASSIC;
  private static final int N = 20_000;
  private static final int ABSENT = 200_000;
  private static final long SEED = 0x5B11_7E57_0000_0001L;

  private static BloomFilter.Builder split(long n, double fpp) {
    return BloomFilter.builder().expectedInsertions(n).fpp(fpp).seed(SEED).layout(Layout.SPLIT);
  }

  /** The key-index of the i-th absent key (the added keys are 0 .. N-1). */
  private static long absent(int i) {
    return 50_000_000L + i;
  }

  /** A split filter of N fixed keys. */
  private static BloomFilter splitFilter() {
    BloomFilter f = split(N, 0.01).build();
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

  @Test
  void defaultIsDistinct() {
    BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(N).fpp(0.01).seed(SEED);
    BloomFilter.Plan p = b.plan();
    assertEquals(Layout.DISTINCT, p.layout());
    assertEquals(p, b.layout(Layout.DISTINCT).plan(), "the default is the distinct layout");
    try (BloomFilter f = BloomFilter.create(N, 0.01);
        BloomFilter g = b.build();
        BloomFilter copy = g.copy()) {
      assertEquals(Layout.DISTINCT, f.layout());
      assertEquals(Layout.DISTINCT, g.layout());
      assertEquals(Layout.DISTINCT, copy.layout());
      assertEquals(1, layoutId(g.toByteArray()));
      assertTrue(g.toString().contains("layout=DISTINCT"), g.toString());
    }
    BloomFilter.Builder c = BloomFilter.builder().expectedInsertions(N).kind(CLASSIC);
    assertEquals(Layout.DISTINCT, c.plan().layout(), "the classic kind's only layout");
    try (BloomFilter f = c.build()) {
      assertEquals(Layout.DISTINCT, f.layout());
    }
    try (BloomFilter f = c.layout(Layout.DISTINCT).build()) {
      assertEquals(Layout.DISTINCT, f.layout());
    }
    assertThrows(NullPointerException.class, () -> BloomFilter.builder().layout(null));
    assertEquals(64, Layout.DISTINCT.maxHashFunctions());
    assertEquals(16, Layout.SPLIT.maxHashFunctions());
    assertTrue(Layout.DISTINCT.supports(CLASSIC) && Layout.DISTINCT.supports(BLOCKED));
    assertTrue(Layout.SPLIT.supports(BLOCKED));
    assertFalse(Layout.SPLIT.supports(CLASSIC));
  }

  @Test
  void splitFilterHasNoFalseNegativesAndMeetsItsModel() {
    BloomFilter.Plan p = split(N, 0.01).plan();
    assertEquals(Layout.SPLIT, p.layout());
    assertTrue(p.hashFunctions() >= 1 && p.hashFunctions() <= 16, "k " + p.hashFunctions());
    assertTrue(p.expectedFpp() <= 0.01 && p.expectedFpp() > 0.005, "model " + p.expectedFpp());
    try (BloomFilter f = splitFilter()) {
      assertEquals(Layout.SPLIT, f.layout());
      assertEquals(BLOCKED, f.kind());
      assertEquals(p.hashFunctions(), f.hashFunctions());
      assertEquals(p.bits(), f.bitSize());
      assertEquals(p.shards(), f.shards());
      assertEquals(p.expectedFpp(), f.modelFpp());
      assertEquals(0.01, f.targetFpp());
      assertTrue(f.toString().contains("layout=SPLIT"), f.toString());
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
      String msg = "measured " + rate + " (" + fp + " of " + ABSENT + "), model " + model;
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

  @Test
  void splitNeedsOnlyAFewPercentMoreBits() {
    for (double fpp : new double[] {0.01, 0.001}) {
      for (long n : new long[] {10_000, 1_000_000, 100_000_000}) {
        BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(n).fpp(fpp);
        BloomFilter.Plan d = b.plan();
        BloomFilter.Plan s = b.layout(Layout.SPLIT).plan();
        assertEquals(Layout.DISTINCT, d.layout());
        assertEquals(Layout.SPLIT, s.layout());
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
    try (BloomFilter f = splitFilter()) {
      assertEquals(
          f.modelFpp(),
          BloomFilter.modelFpp(
              BLOCKED, Layout.SPLIT, (double) f.bitSize() / N, f.hashFunctions()),
          f.modelFpp() * 1e-9);
    }
  }

  @Test
  void splitSurvivesEverySerializedForm(@TempDir Path tmp) throws IOException {
    try (BloomFilter f = splitFilter()) {
      byte[] bytes = f.toByteArray();
      assertEquals(2, layoutId(bytes), "the header records layout id 2");
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
        Path path = tmp.resolve("split.abloom");
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
          String how = g.storage() + (g.isReadOnly() ? " read-only" : "");
          assertEquals(Layout.SPLIT, g.layout(), how);
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
        // A read-write mapping keeps adding in the split layout, and persists.
        try (BloomFilter rw = BloomFilter.open(path, BloomFilter.OpenMode.READ_WRITE, true)) {
          assertEquals(Layout.SPLIT, rw.layout());
          rw.put("added through the mapping");
          f.put("added through the mapping");
        }
        try (BloomFilter again = BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true)) {
          assertEquals(Layout.SPLIT, again.layout());
          assertTrue(again.mightContain("added through the mapping"));
          assertEquals(f, again);
        }
        // union and intersection of split filters work
        try (BloomFilter u = split(N, 0.01).build()) {
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
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, CLASSIC.code, 0, 0, 0, 0, 0, 2, out));
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 17, 0, 2, out));
    assertEquals(invalid, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 0, 0, 3, out));
    assertEquals(invalid, AbloomNative.jab_create(N, 0.01, CLASSIC.code, 0, 0, 0, 0, 0, 2));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(CLASSIC.code, 2, 10.0, 7, out));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(BLOCKED.code, 2, 10.0, 17, out));
    assertEquals(invalid, AbloomNative.jab_layout_model_fpr(BLOCKED.code, 3, 10.0, 7, out));
    assertEquals(0, AbloomNative.jab_plan(N, 0.01, BLOCKED.code, 0, 0, 0, 0, 0, 0, out));
    assertEquals(Layout.DISTINCT.code(), out[7], "ABLOOM_LAYOUT_DEFAULT resolves to distinct");
    // and the binding maps that code to the same exception type as its own checks
    assertTrue(Errors.unchecked(invalid, "plan") instanceof IllegalArgumentException);
  }
}
