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
 * reads; the bytes must be identical to what the binding builds from the same keys.
 */
class InteropTest {
  @TempDir static Path dir;
  static Path exe;

  @BeforeAll
  static void compile() throws Exception {
    exe = dir.resolve("interop");
    List<String> cmd = new ArrayList<>(List.of("cc", "-std=c11", "-O1", "-Wall", "-Werror"));
    cmd.add(TestSupport.csrc().resolve("interop.c").toString());
    cmd.add("-o");
    cmd.add(exe.toString());
    cmd.addAll(TestSupport.cFlags());
    TestSupport.run(cmd);
  }

  private static BloomFilter build(int n, long seed, int shards, BloomFilter.Kind kind) {
    BloomFilter f =
        BloomFilter.builder()
            .expectedInsertions(n)
            .fpp(0.01)
            .seed(seed)
            .shards(shards)
            .kind(kind)
            .build();
    for (int i = 0; i < n; i++) {
      f.put("key-" + i);
    }
    return f;
  }

  @Test
  void javaWritesCReads() throws Exception {
    for (BloomFilter.Kind kind : BloomFilter.Kind.values()) {
      int n = 20_000;
      Path file = dir.resolve("java-" + kind + ".abloom");
      int expectedFp;
      try (BloomFilter f = build(n, 1234, 4, kind)) {
        f.save(file);
        int fp = 0;
        for (int i = 0; i < 10_000; i++) {
          fp += f.mightContain("absent-" + i) ? 1 : 0;
        }
        expectedFp = fp;
        String out = TestSupport.run(List.of(exe.toString(), "check", file.toString(), "" + n)).trim();
        assertEquals("ok " + f.hashFunctions() + " 4 1234 " + fp, out);
      }
      // the streamed form too (written by writeTo), and a copy that reached C through readFrom
      try (BloomFilter f = build(n, 1234, 4, kind);
          java.io.OutputStream os = Files.newOutputStream(dir.resolve("stream.abloom"))) {
        f.writeTo(os);
      }
      String out =
          TestSupport.run(List.of(exe.toString(), "check", dir.resolve("stream.abloom").toString(), "" + n));
      assertTrue(out.trim().endsWith(" " + expectedFp), out);
    }
  }

  @Test
  void cWritesJavaReads() throws Exception {
    int n = 20_000;
    for (BloomFilter.Kind kind : BloomFilter.Kind.values()) {
      Path file = dir.resolve("c-" + kind + ".abloom");
      TestSupport.run(
          List.of(exe.toString(), "write", file.toString(), "" + n, "0xABCDEF", "2", "" + kind.code));
      try (BloomFilter g = BloomFilter.open(file, BloomFilter.OpenMode.READ_ONLY, true);
          BloomFilter mine = build(n, 0xABCDEF, 2, kind)) {
        assertEquals(kind, g.kind());
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
}
