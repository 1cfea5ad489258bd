package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import io.abloom.Layout;
import io.abloom.Probe;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-row probe over the module's own mapping of a file answers exactly as the engine's batch
 * calls do, for both kinds, every layout, several shard counts and seeds, across the boundaries
 * of its mappings, and for string rows on and off the heap. (The probe itself, io.abloom.Probe,
 * is checked key by key and bit by bit against the engine by the binding's JavaPathTest.)
 */
class MappedProbeTest {

  @TempDir Path dir;

  private static BloomFilter.Builder shape(
      BloomFilter.Kind kind, Layout layout, int shards, long seed, long capacity, double fpp) {
    BloomFilter.Builder b =
        BloomFilter.builder()
            .expectedInsertions(capacity)
            .fpp(fpp)
            .kind(kind)
            .shards(shards)
            .seed(seed);
    return kind == BloomFilter.Kind.BLOCKED ? b.layout(layout) : b;
  }

  /** Saves f, opens it back with the engine and maps it. */
  private MappedProbe saveAndMap(BloomFilter f, String name, int chunkShift) throws IOException {
    Path p = dir.resolve(name);
    f.save(p);
    try (BloomFilter opened = BloomFilter.open(p)) {
      return MappedProbe.of(opened, p, chunkShift);
    }
  }

  private static byte[] randomKey(SplittableRandom r, int length) {
    byte[] k = new byte[length];
    for (int i = 0; i < length; i++) {
      k[i] = (byte) r.nextInt();
    }
    return k;
  }

  /**
   * Every answer is the engine's, present and absent keys, over filled filters of every shape:
   * both kinds, every layout, 1/4/64 shards, two seeds; byte keys of 0..300 bytes and long keys.
   * Mappings of 4 KiB put many chunk boundaries in each filter.
   */
  @Test
  void answersAreTheEnginesForEveryShape() throws IOException {
    SplittableRandom r = new SplittableRandom(5);
    int n = 20_000;
    int checked = 0;
    for (BloomFilter.Kind kind : BloomFilter.Kind.values()) {
      for (Layout layout : Layout.values()) {
        if (!layout.supports(kind)) {
          continue;
        }
        for (int shards : new int[] {1, 4, 64}) {
          for (long seed : new long[] {0, r.nextLong()}) {
            String what = kind + "/" + layout + "/" + shards + " shards/seed " + seed;
            try (BloomFilter f = shape(kind, layout, shards, seed, 2L * n, 0.05).build()) {
              byte[][] keys = new byte[n][];
              for (int i = 0; i < n; i++) {
                keys[i] = randomKey(r, r.nextInt(301));
                f.putAll(List.of(keys[i]));
                f.putAll(new long[] {i});
              }
              for (int shift : new int[] {12, Probe.MAX_CHUNK_SHIFT}) {
                MappedProbe probe = saveAndMap(f, "shape.abloom", shift);
                int present = 0;
                for (int i = 0; i < n; i++) {
                  assertTrue(probe.mightContain(keys[i]), what + ": added key " + i);
                  assertTrue(probe.mightContain((long) i), what + ": added long " + i);
                  byte[] other = randomKey(r, r.nextInt(301));
                  boolean want = f.mightContainAll(List.of(other))[0];
                  assertEquals(want, probe.mightContain(other), what + ": absent key " + i);
                  long otherLong = r.nextLong();
                  assertEquals(
                      f.mightContainAll(new long[] {otherLong})[0],
                      probe.mightContain(otherLong),
                      what + ": long");
                  present += want ? 1 : 0;
                  checked += 4;
                }
                // At about 10 bits per key used for 2n keys at 5%, absent keys test present
                // some of the time: the equality above compares both answers, not just "false".
                assertTrue(present > n / 200 && present < n / 5, what + ": " + present);
              }
            }
          }
        }
      }
    }
    // 24 shapes (18 blocked: distinct, split and half; 6 classic), each mapped twice.
    assertEquals(24 * 2 * n * 4, checked);
  }

  /** String keys read in place from a row's bytes, or copied when off the heap. */
  @Test
  void utf8StringsAnswerAsTheirBytes() throws IOException {
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      f.put("alpha");
      f.put("ünïcødé");
      MappedProbe probe = saveAndMap(f, "strings.abloom", Probe.MAX_CHUNK_SHIFT);
      byte[] row = "xxalphayy".getBytes(StandardCharsets.UTF_8);
      assertTrue(probe.mightContain(UTF8String.fromBytes(row, 2, 5)));
      assertFalse(probe.mightContain(UTF8String.fromBytes(row, 1, 5)));
      assertTrue(probe.mightContain(UTF8String.fromString("ünïcødé")));
      long offHeap = Platform.allocateMemory(5);
      try {
        Platform.copyMemory(
            "alpha".getBytes(StandardCharsets.UTF_8), Platform.BYTE_ARRAY_OFFSET, null, offHeap, 5);
        assertTrue(probe.mightContain(UTF8String.fromAddress(null, offHeap, 5)));
      } finally {
        Platform.freeMemory(offHeap);
      }
      assertFalse(probe.mightContain(UTF8String.fromString("beta")));
    }
  }

  /** A file that no longer has the size of the filter opened from it is refused. */
  @Test
  void aFileThatChangedIsRefused() throws IOException {
    Path p = dir.resolve("changed.abloom");
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      f.save(p);
    }
    try (BloomFilter opened = BloomFilter.open(p)) {
      Files.write(p, new byte[] {1}, java.nio.file.StandardOpenOption.APPEND);
      IOException e = assertThrows(IOException.class, () -> MappedProbe.of(opened, p));
      assertTrue(e.getMessage().contains("changed"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> MappedProbe.of(opened, p, 5));
    }
  }
}
