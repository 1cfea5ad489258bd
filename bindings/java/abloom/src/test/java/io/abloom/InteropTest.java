package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files exchanged with C, both ways: a small C program (src/test/c/interop.c, compiled here
 * against the abloom under test) checks files this binding saved, and saves files this binding
 * reads; the bytes must be identical to what the binding builds from the same keys. Blocked
 * filters with the layout left to the library (split at 1%, on both sides) and with {@link
 * Layout#DISTINCT}, {@link Layout#SPLIT} or {@link Layout#HALF} asked for, and classic ones.
 */
class InteropTest {
  @TempDir static Path dir;
  static Path exe;

  /**
   * The C program: -Dabloom.test.interop when set (on Windows, where no C compiler runs: the
   * x86_64-windows-gnu build of interop.c against the same engine, made by the cross compiler:
   * scripts/platform-builds.sh x86_64-windows-java), else compiled here with cc.
   */
  @BeforeAll
  static void compile() throws Exception {
    String prebuilt = System.getProperty("abloom.test.interop", "");
    if (!prebuilt.isEmpty()) {
      exe = Path.of(prebuilt);
      assertTrue(Files.isRegularFile(exe), "-Dabloom.test.interop=" + prebuilt + " is no file");
      return;
    }
    exe = dir.resolve("interop");
    List<String> cmd = new ArrayList<>(List.of("cc", "-std=c11", "-O1", "-Wall", "-Werror"));
    cmd.add(TestSupport.csrc().resolve("interop.c").toString());
    cmd.add("-o");
    cmd.add(exe.toString());
    cmd.addAll(TestSupport.cFlags());
    TestSupport.run(cmd);
  }

  /** A kind and a layout (null: left to the library), and the layout the filter must get. */
  private record Case(BloomFilter.Kind kind, Layout asked, Layout got) {
    /** The ABLOOM_LAYOUT_* interop.c passes in its options (0: the library's choice). */
    int layoutCode() {
      return asked == null ? 0 : asked.code();
    }

    @Override
    public String toString() {
      return kind + "/" + (asked == null ? "default" : asked);
    }
  }

  private static final List<Case> CASES =
      List.of(
          new Case(BloomFilter.Kind.BLOCKED, null, Layout.SPLIT),
          new Case(BloomFilter.Kind.BLOCKED, Layout.DISTINCT, Layout.DISTINCT),
          new Case(BloomFilter.Kind.BLOCKED, Layout.SPLIT, Layout.SPLIT),
          new Case(BloomFilter.Kind.BLOCKED, Layout.HALF, Layout.HALF),
          new Case(BloomFilter.Kind.CLASSIC, null, Layout.DISTINCT));

  private static BloomFilter build(int n, long seed, int shards, Case c) {
    BloomFilter.Builder b =
        BloomFilter.builder()
            .expectedInsertions(n)
            .fpp(0.01)
            .seed(seed)
            .shards(shards)
            .kind(c.kind);
    if (c.asked != null) {
      b.layout(c.asked);
    }
    BloomFilter f = b.build();
    assertEquals(c.got, f.layout(), c.toString());
    for (int i = 0; i < n; i++) {
      f.put("key-" + i);
    }
    return f;
  }

  @Test
  void javaWritesCReads() throws Exception {
    for (Case c : CASES) {
      int n = 20_000;
      Path file = dir.resolve("java-" + c.kind + "-" + c.layoutCode() + ".abloom");
      String expected;
      try (BloomFilter f = build(n, 1234, 4, c)) {
        f.save(file);
        int fp = 0;
        for (int i = 0; i < 10_000; i++) {
          fp += f.mightContain("absent-" + i) ? 1 : 0;
        }
        expected = "ok " + f.hashFunctions() + " 4 1234 " + c.got.code() + " " + fp;
        String out = TestSupport.run(List.of(exe.toString(), "check", file.toString(), "" + n)).trim();
        assertEquals(expected, out, c.toString());
      }
      // the streamed form too (written by writeTo), and a copy that reached C through readFrom
      try (BloomFilter f = build(n, 1234, 4, c);
          java.io.OutputStream os = Files.newOutputStream(dir.resolve("stream.abloom"))) {
        f.writeTo(os);
      }
      String out =
          TestSupport.run(List.of(exe.toString(), "check", dir.resolve("stream.abloom").toString(), "" + n));
      assertEquals(expected, out.trim(), c.toString());
    }
  }

  @Test
  void cWritesJavaReads() throws Exception {
    int n = 20_000;
    for (Case c : CASES) {
      BloomFilter.Kind kind = c.kind;
      Path file = dir.resolve("c-" + kind + "-" + c.layoutCode() + ".abloom");
      TestSupport.run(
          List.of(exe.toString(), "write", file.toString(), "" + n, "0xABCDEF", "2", "" + kind.code,
              "" + c.layoutCode()));
      try (BloomFilter g = BloomFilter.open(file, BloomFilter.OpenMode.READ_ONLY, true);
          BloomFilter mine = build(n, 0xABCDEF, 2, c)) {
        assertEquals(kind, g.kind());
        assertEquals(c.got, g.layout(), c + ": the layout C got");
        assertEquals(2, g.shards());
        assertEquals(0xABCDEF, g.seed());
        for (int i = 0; i < n; i++) {
          assertTrue(g.mightContain("key-" + i));
        }
        assertEquals(mine, g);
        assertArrayEquals(Files.readAllBytes(file), mine.toByteArray(), "same bytes as C");
        try (java.io.InputStream in = Files.newInputStream(file);
            BloomFilter s = BloomFilter.readFrom(in)) {
          assertEquals(mine, s);
        }
      }
    }
  }

  /** A growing filter of "key-0".."key-n-1" (growth 2, 1%), as interop.c's grow-write makes. */
  private static BloomFilter buildGrowing(int n, long seed, long first) {
    BloomFilter f =
        BloomFilter.builder().growth(2.0).initialCapacity(first).fpp(0.01).seed(seed).build();
    for (int i = 0; i < n; i++) {
      f.put("key-" + i);
    }
    return f;
  }

  /** Growing filters' files (a chain of stages), both ways, at one stage and at several. */
  @Test
  void growingFilesBothWays() throws Exception {
    for (int n : new int[] {500, 20_000}) {
      Path javaFile = dir.resolve("java-growing-" + n + ".abloom");
      String expected;
      try (BloomFilter f = buildGrowing(n, 77, 1000)) {
        f.save(javaFile);
        int fp = 0;
        for (int i = 0; i < 10_000; i++) {
          fp += f.mightContain("absent-" + i) ? 1 : 0;
        }
        assertEquals(n == 500 ? 1 : 5, f.stageCount(), n + " keys from a first stage of 1000");
        expected = "ok " + f.stageCount() + " 2 " + f.keyCount() + " " + fp;
      }
      String out = TestSupport.run(List.of(exe.toString(), "grow-check", javaFile.toString(), "" + n));
      assertEquals(expected, out.trim(), "C reads Java's growing file");

      Path cFile = dir.resolve("c-growing-" + n + ".abloom");
      TestSupport.run(List.of(exe.toString(), "grow-write", cFile.toString(), "" + n, "77", "1000"));
      try (BloomFilter g = BloomFilter.open(cFile, BloomFilter.OpenMode.READ_ONLY, true);
          BloomFilter mine = buildGrowing(n, 77, 1000)) {
        assertTrue(g.isGrowing());
        assertEquals(mine.stageCount(), g.stageCount());
        for (int i = 0; i < n; i++) {
          assertTrue(g.mightContain("key-" + i));
        }
        assertEquals(mine, g);
        assertArrayEquals(Files.readAllBytes(cFile), mine.toByteArray(), "same bytes as C");
        assertArrayEquals(Files.readAllBytes(cFile), Files.readAllBytes(javaFile));
      }
    }
  }
}
