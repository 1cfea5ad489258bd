package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The golden vectors of tests/vectors (written by C), every in-block layout: read them every way,
 * rebuild them bit for bit.
 */
class GoldenVectorsTest {

  static Stream<Arguments> vectors() {
    BloomFilter.Kind blocked = BloomFilter.Kind.BLOCKED;
    BloomFilter.Kind classic = BloomFilter.Kind.CLASSIC;
    return Stream.of(
        Arguments.of("blocked_s1", blocked, Layout.DISTINCT, 1, 0x0123456789ABCDEFL, 7, 9L, 704, 31),
        Arguments.of("blocked_s4", blocked, Layout.DISTINCT, 4, 0xFEDCBA9876543210L, 8, 3L, 896, 5),
        Arguments.of("classic_s1", classic, Layout.DISTINCT, 1, 0x00000000DEADBEEFL, 7, 9L, 704, 10),
        Arguments.of("classic_s4", classic, Layout.DISTINCT, 4, 0x8000000000000001L, 9, 3L, 896, 1),
        // the split layout (format layout id 2), made with ABLOOM_LAYOUT_SPLIT in the options
        Arguments.of("split_s1", blocked, Layout.SPLIT, 1, 0x5B117000000000A1L, 7, 9L, 704, 13),
        Arguments.of("split_s4", blocked, Layout.SPLIT, 4, 0xA100000000075B11L, 9, 3L, 896, 8),
        // the half layout (format layout id 3), made with ABLOOM_LAYOUT_HALF in the options
        Arguments.of("half_s1", blocked, Layout.HALF, 1, 0x4A1F000000000A18L, 8, 10L, 768, 10),
        Arguments.of("half_s4", blocked, Layout.HALF, 4, 0x8A0000000000F1A4L, 8, 3L, 896, 8));
  }

  /**
   * The builders that must make a vector's bytes: the layout given explicitly (the blocked_*
   * vectors were written with the distinct layout, the split_* ones with the split layout, the
   * half_* ones with the half layout), and,
   * for the classic kind (whose only layout is distinct), also left to the library.
   */
  private static List<BloomFilter.Builder> builders(
      BloomFilter.Kind kind, Layout layout, int shards, long seed) {
    List<BloomFilter.Builder> out = new ArrayList<>();
    if (kind == BloomFilter.Kind.CLASSIC) {
      out.add(BloomFilter.builder());
    }
    out.add(BloomFilter.builder().layout(layout));
    for (BloomFilter.Builder b : out) {
      b.expectedInsertions(450).fpp(0.01).kind(kind).shards(shards).seed(seed);
    }
    return out;
  }

  /** The vector's keys, absent keys and their recorded answers. */
  private static final class Vector {
    final byte[] file;
    final List<byte[]> keys = new ArrayList<>();
    final List<byte[]> absent = new ArrayList<>();
    final List<Boolean> answers = new ArrayList<>();

    Vector(String name) throws IOException {
      Path dir = TestSupport.vectors();
      file = Files.readAllBytes(dir.resolve(name + ".abloom"));
      for (String line : TestSupport.lines(dir.resolve(name + ".keys.txt"))) {
        keys.add(TestSupport.utf8(line));
      }
      for (String line : TestSupport.lines(dir.resolve(name + ".absent.txt"))) {
        int sp = line.indexOf(' ');
        answers.add(line.substring(0, sp).equals("1"));
        absent.add(TestSupport.utf8(line.substring(sp + 1)));
      }
    }
  }

  private static void check(
      BloomFilter f, Vector v, BloomFilter.Kind kind, Layout layout, int shards, long seed, int k,
      long blocks, int falsePositives) {
    assertEquals(kind, f.kind());
    assertEquals(layout, f.layout(), "the layout the file records");
    assertEquals(shards, f.shards());
    assertEquals(seed, f.seed());
    assertEquals(k, f.hashFunctions());
    assertEquals(blocks * shards * 512, f.bitSize());
    assertEquals(450, f.expectedInsertions());
    assertEquals(0.01, f.targetFpp());
    assertEquals(450, v.keys.size());
    assertEquals(2000, v.absent.size());
    for (byte[] key : v.keys) {
      assertTrue(f.mightContain(key), () -> "missing key " + new String(key));
    }
    int fp = 0;
    for (int i = 0; i < v.absent.size(); i++) {
      boolean got = f.mightContain(v.absent.get(i));
      assertEquals(v.answers.get(i), got, "absent key " + i);
      fp += got ? 1 : 0;
    }
    assertEquals(falsePositives, fp);
    // the same answers from the batch calls
    boolean[] all = f.mightContainAll(v.keys);
    for (boolean b : all) {
      assertTrue(b);
    }
    boolean[] abs = f.mightContainAll(v.absent);
    for (int i = 0; i < abs.length; i++) {
      assertEquals(v.answers.get(i), abs[i], "batch absent key " + i);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void readsEveryWay(
      String name, BloomFilter.Kind kind, Layout layout, int shards, long seed, int k, long blocks,
      int size, int falsePositives, @TempDir Path tmp) throws IOException {
    Vector v = new Vector(name);
    assertEquals(size, v.file.length);
    Path path = TestSupport.vectors().resolve(name + ".abloom");

    try (BloomFilter f = BloomFilter.open(path, BloomFilter.OpenMode.READ_ONLY, true)) {
      assertEquals(BloomFilter.Storage.MAPPED, f.storage());
      assertTrue(f.isReadOnly());
      check(f, v, kind, layout, shards, seed, k, blocks, falsePositives);
      assertArrayEquals(v.file, f.toByteArray());
    }
    try (BloomFilter f = BloomFilter.open(path)) {
      check(f, v, kind, layout, shards, seed, k, blocks, falsePositives);
    }
    try (BloomFilter f = BloomFilter.fromByteArray(v.file)) {
      assertEquals(BloomFilter.Storage.OWNED, f.storage());
      assertFalse(f.isReadOnly());
      check(f, v, kind, layout, shards, seed, k, blocks, falsePositives);
    }
    try (BloomFilter f = BloomFilter.readFrom(new ByteArrayInputStream(v.file))) {
      check(f, v, kind, layout, shards, seed, k, blocks, falsePositives);
    }
    for (boolean verify : new boolean[] {false, true}) {
      ByteBuffer buf = ByteBuffer.allocateDirect(v.file.length + 64).alignedSlice(64);
      buf.put(v.file).flip();
      try (BloomFilter f = BloomFilter.wrap(buf, verify)) {
        assertEquals(BloomFilter.Storage.VIEW, f.storage());
        assertTrue(f.isReadOnly());
        check(f, v, kind, layout, shards, seed, k, blocks, falsePositives);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void rebuildsIdenticalBytes(
      String name, BloomFilter.Kind kind, Layout layout, int shards, long seed, int k, long blocks,
      int size, int falsePositives, @TempDir Path tmp) throws IOException {
    Vector v = new Vector(name);
    for (BloomFilter.Builder b : builders(kind, layout, shards, seed)) {
      rebuild(b, v, name, kind, layout, k, blocks, shards, seed, tmp);
    }
  }

  /**
   * The blocked vectors' options with the layout left to the library give split filters at 1%
   * (the library's choice there): the split_* vectors' shape, and never the distinct blocked_*
   * bytes, which therefore ask for {@link Layout#DISTINCT} above, nor the half_* bytes (the
   * library never chooses {@link Layout#HALF}).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void theBlockedDefaultLayoutIsSplit(
      String name, BloomFilter.Kind kind, Layout layout, int shards, long seed, int k, long blocks,
      int size, int falsePositives) throws IOException {
    BloomFilter.Builder b =
        BloomFilter.builder().expectedInsertions(450).fpp(0.01).kind(kind).shards(shards).seed(seed);
    Layout chosen = kind == BloomFilter.Kind.BLOCKED ? Layout.SPLIT : Layout.DISTINCT;
    assertEquals(chosen, b.plan().layout());
    Vector v = new Vector(name);
    try (BloomFilter f = b.build()) {
      assertEquals(chosen, f.layout());
      f.putAll(v.keys);
      byte[] bytes = f.toByteArray();
      assertEquals(chosen.code(), bytes[20], "the header's layout id");
      assertEquals(layout == chosen, java.util.Arrays.equals(v.file, bytes), name);
    }
  }

  private static void rebuild(
      BloomFilter.Builder b, Vector v, String name, BloomFilter.Kind kind, Layout layout, int k,
      long blocks, int shards, long seed, Path tmp) throws IOException {
    try (BloomFilter one = b.build();
        BloomFilter batch = b.build();
        BloomFilter fromOnDisk = BloomFilter.open(TestSupport.vectors().resolve(name + ".abloom"))) {
      assertEquals(layout, one.layout());
      long newOnes = 0;
      for (byte[] key : v.keys) {
        newOnes += one.put(key) ? 1 : 0;
      }
      assertEquals(newOnes, batch.putAll(v.keys), "put and putAll count the same new keys");
      assertTrue(newOnes > 440 && newOnes <= 450, "new keys: " + newOnes);
      assertArrayEquals(v.file, one.toByteArray(), "one by one");
      assertArrayEquals(v.file, batch.toByteArray(), "one batch");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      one.writeTo(out);
      assertArrayEquals(v.file, out.toByteArray(), "writeTo");
      Path saved = tmp.resolve(name + ".abloom");
      one.save(saved);
      assertArrayEquals(v.file, Files.readAllBytes(saved), "save");
      assertEquals(one, fromOnDisk);
      assertEquals(one.hashCode(), fromOnDisk.hashCode());
    }
    // explicit bits and k (and the layout): the same body
    BloomFilter.Plan plan = b.plan();
    assertEquals(k, plan.hashFunctions());
    assertEquals(blocks, plan.blocksPerShard());
    assertEquals(layout, plan.layout());
    try (BloomFilter explicit =
        BloomFilter.builder()
            .expectedInsertions(450)
            .kind(kind)
            .layout(layout)
            .shards(shards)
            .seed(seed)
            .bits(plan.bits())
            .hashFunctions(plan.hashFunctions())
            .build()) {
      assertEquals(layout, explicit.layout());
      explicit.putAll(v.keys);
      byte[] bytes = explicit.toByteArray();
      for (int i = 128; i < bytes.length; i++) {
        assertEquals(v.file[i], bytes[i], "body byte " + i);
      }
    }
  }
}
