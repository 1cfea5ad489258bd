package io.abloom.readme;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import io.abloom.Layout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Java code blocks of the READMEs (bindings/java/README.md, and the Java block of the
 * repository's README.md), line for line, with the declarations they assume and checks of what
 * they do in between: scripts/check-readme-blocks.py fails when a README line is missing here.
 * Outside package io.abloom, so that they use the public API only, as a reader's code does.
 *
 * <p>The README saves to relative paths: surefire runs the tests in target/test-work (the pom's
 * workingDirectory), and each test removes what it wrote.
 */
class ReadmeTest {

  @AfterEach
  void removeFiles() throws Exception {
    Files.deleteIfExists(Path.of("users.abloom"));
    Files.deleteIfExists(Path.of("keys.abloom"));
  }

  /** Packs keys as putAll(byte[], int[]) takes them: the bytes one after another, n+1 offsets. */
  private static int[] offsetsOf(String... keys) {
    int[] offsets = new int[keys.length + 1];
    for (int i = 0; i < keys.length; i++) {
      offsets[i + 1] = offsets[i] + keys[i].getBytes(StandardCharsets.UTF_8).length;
    }
    return offsets;
  }

  /** bindings/java/README.md's block of "Growing filters". */
  @Test
  void growingFilters() {
    long[] ids = new long[100_000];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = 7_000_000L + i;
    }
    try (BloomFilter g = BloomFilter.growing(0.01)) {    // no capacity: first stage 1024 keys
      g.putAll(ids);                                      // 100,000 keys: 7 stages
      g.mightContain(ids[0]);                             // true
      assertTrue(g.mightContain(ids[0]));
      int stages = g.stageCount();                        // 7
      assertEquals(7, stages);
      BloomFilter.Stage newest = g.stage(stages - 1);     // its k, bits, capacity, target, keys
      assertEquals(1024L << 6, newest.expectedInsertions());
      long keys = g.keyCount();                           // the keys the stages counted as new
      assertTrue(keys > 99_000 && keys <= 100_000, "" + keys);
    }
    BloomFilter.Builder b = BloomFilter.builder().growth(4.0).initialCapacity(5000).fpp(0.001);
    BloomFilter.GrowthPlan plan = b.growthPlan(1_000_000);  // stages, bytes, fpp bound: no allocation
    assertEquals(5, plan.stages(), "5000 * (1 + 4 + 16 + 64 + 256) >= 1e6");
    assertTrue(plan.fppBound() < 0.001 && plan.bytes() > 1_000_000);
  }

  /** bindings/java/README.md's first block. */
  @Test
  void quickStart() throws Exception {
    byte[] packed = "dave:eve".concat("frank:grace").getBytes(StandardCharsets.UTF_8);
    int[] offsets = offsetsOf("dave:eve", "frank:grace");
    try (BloomFilter f = BloomFilter.create(1_000_000, 0.01)) { // 1M keys at 1%
      f.put("alice:bob"); // String: its UTF-8 bytes
      f.put(42L); // long: 8 bytes, little-endian
      f.put(new byte[] {1, 2, 3});
      f.mightContain("alice:bob"); // true
      assertTrue(f.mightContain("alice:bob"));
      f.mightContain("carol:dan"); // false (1% of the time true)
      assertFalse(f.mightContain("carol:dan"));

      long added = f.putAll(packed, offsets); // n keys in one byte[] + n+1 offsets: one JNI call
      assertEquals(2, added);
      boolean[] hits = f.mightContainAll(packed, offsets);
      assertArrayEquals(new boolean[] {true, true}, hits);
      f.save(Path.of("users.abloom")); // crash-safe: temp file, fsync, rename
    }

    try (BloomFilter g = BloomFilter.open(Path.of("users.abloom"))) { // mmap, O(1)
      g.mightContain("alice:bob");
      assertTrue(g.mightContain("alice:bob") && g.mightContain(42L) && g.isReadOnly());
      assertTrue(g.mightContain(new byte[] {1, 2, 3}) && g.mightContain("frank:grace"));
    }
  }

  /** bindings/java/README.md's layout block ("Layouts"). */
  @Test
  void layouts() throws Exception {
    try (BloomFilter f = BloomFilter.builder()
        .expectedInsertions(10_000_000)
        .fpp(0.01)
        .layout(Layout.DISTINCT) // BloomFilter.Kind.BLOCKED, the default kind
        .build()) {
      f.layout(); // Layout.DISTINCT (left to the library: SPLIT)
      assertEquals(Layout.DISTINCT, f.layout());
      f.save(Path.of("keys.abloom")); // BloomFilter.open(...).layout() is DISTINCT again
    }
    try (BloomFilter g = BloomFilter.open(Path.of("keys.abloom"))) {
      assertEquals(Layout.DISTINCT, g.layout());
    }
    BloomFilter.Plan p = BloomFilter.builder().expectedInsertions(10_000_000).fpp(0.01).plan();
    BloomFilter.Plan d = BloomFilter.builder().expectedInsertions(10_000_000).fpp(0.01)
        .layout(Layout.DISTINCT).plan();
    // p.layout() SPLIT, 10.12 bits/key, k 7; d.layout() DISTINCT, 9.90 bits/key, k 6
    assertEquals(Layout.SPLIT, p.layout());
    assertEquals("10.12 7", String.format("%.2f %d", p.bitsPerKey(), p.hashFunctions()));
    assertEquals(Layout.DISTINCT, d.layout());
    assertEquals("9.90 6", String.format("%.2f %d", d.bitsPerKey(), d.hashFunctions()));
    BloomFilter.builder().expectedInsertions(10_000_000).fpp(1e-9).plan().layout(); // DISTINCT
    assertEquals(
        Layout.DISTINCT,
        BloomFilter.builder().expectedInsertions(10_000_000).fpp(1e-9).plan().layout());
    double fpp = BloomFilter.modelFpp(BloomFilter.Kind.BLOCKED, p.layout(), 10.0, 7); // the model
    assertTrue(fpp > 0.005 && fpp < 0.02, "model fpp " + fpp);
  }

  /** The Java block of the repository's README.md ("Bindings"). */
  @Test
  void repositoryReadme() {
    try (BloomFilter f = BloomFilter.create(1_000_000, 0.01)) { // Java: io.abloom
      f.put("alice:bob");
      boolean maybe = f.mightContain("alice:bob");
      assertTrue(maybe);
    }
  }
}
