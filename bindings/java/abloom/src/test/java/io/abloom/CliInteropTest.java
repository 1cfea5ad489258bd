package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The abloom command (cli/) and Java exchange files: a filter the command builds from lines or
 * from {@code --u64} ids opens in Java equal, bit for bit, to Java's filter of the same keys, the
 * command's query prints exactly the keys Java answers "maybe" for, and a filter Java saves passes
 * the command's verify and query. The command is {@code -Dabloom.prefix}'s bin/abloom (ci.sh
 * passes the install it tests); without that property the tests are skipped, saying so, and with
 * it a missing command fails them.
 */
class CliInteropTest {
  @TempDir Path dir;

  private static Path command() {
    String prefix = System.getProperty("abloom.test.prefix", "");
    Assumptions.assumeFalse(
        prefix.isEmpty(), "no abloom command: build with -Dabloom.prefix=PREFIX to run these");
    Path bin = Path.of(prefix, "bin", NativeLoader.onWindows() ? "abloom.exe" : "abloom");
    assertTrue(Files.isExecutable(bin), () -> "-Dabloom.prefix=" + prefix + " has no " + bin);
    return bin;
  }

  /** The command's exit status and standard output. */
  private record Result(int status, String out) {}

  private static Result run(String stdin, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(command().toString());
    cmd.addAll(List.of(args));
    Process p =
        TestSupport.start(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT));
    // Small inputs (at most a few hundred kB): written whole, then the output read.
    Thread writer =
        new Thread(
            () -> {
              try (var in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    writer.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    writer.join();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("timed out: " + cmd);
    }
    int status = p.exitValue();
    if (status != 0 && status != 1) {
      fail(cmd + " exited " + status);
    }
    return new Result(status, out);
  }

  private static List<String> keys(String prefix, int n) {
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(prefix + i);
    }
    return out;
  }

  private static String lines(List<String> keys) {
    StringBuilder sb = new StringBuilder();
    for (String k : keys) {
      sb.append(k).append('\n');
    }
    return sb.toString();
  }

  @Test
  void fileBuiltByTheCommandOpensInJava() throws Exception {
    List<String> present = keys("cli-key-", 5000);
    List<String> absent = keys("cli-absent-", 20000);
    Path file = dir.resolve("cli.abloom");
    assertEquals(
        0,
        run(lines(present), "build", "-q", "-o", file.toString(), "--capacity", "5000", "--fpr",
                "0.01", "--seed", "42")
            .status());
    try (BloomFilter f = BloomFilter.open(file, BloomFilter.OpenMode.READ_ONLY, true);
        BloomFilter g =
            BloomFilter.builder().expectedInsertions(5000).fpp(0.01).seed(42).build()) {
      assertEquals(5000, f.expectedInsertions());
      assertEquals(42, f.seed());
      for (String k : present) {
        assertTrue(f.mightContain(k), () -> k + " built by the command is missing in Java");
        g.put(k);
      }
      assertEquals(g, f, "the command's filter differs from Java's of the same keys");
      // Keys never added: the command prints exactly those Java answers "maybe" for.
      List<String> javaYes = new ArrayList<>();
      for (String k : absent) {
        if (f.mightContain(k)) {
          javaYes.add(k);
        }
      }
      Result q = run(lines(absent), "query", file.toString());
      assertEquals(lines(javaYes), q.out());
      assertTrue(
          javaYes.size() > 0 && javaYes.size() < 400,
          javaYes.size() + " false positives of 20000 at fpp 0.01 (about 200 expected)");
    }
  }

  @Test
  void u64FileBuiltByTheCommandAnswersJavaLongs() throws Exception {
    List<Long> ids = new ArrayList<>(List.of(0L, 1L, 255L, 256L, 1L << 32, Long.MAX_VALUE, -1L));
    for (long i = 0; i < 1000; i++) {
      ids.add(i * 0x9E3779B97F4A7C15L);
    }
    StringBuilder in = new StringBuilder();
    for (long id : ids) {
      in.append(Long.toUnsignedString(id)).append('\n'); // --u64 reads unsigned decimal
    }
    Path file = dir.resolve("ids.abloom");
    run(in.toString(), "build", "-q", "--u64", "-o", file.toString(), "--capacity", "1007");
    try (BloomFilter f = BloomFilter.open(file, BloomFilter.OpenMode.READ_ONLY, true);
        BloomFilter g = BloomFilter.create(1007, 0.01)) {
      for (long id : ids) {
        assertTrue(f.mightContain(id), () -> id + " built by the command is missing in Java");
        g.put(id);
      }
      assertEquals(g, f, "the command's --u64 filter differs from Java's of the same longs");
    }
  }

  @Test
  void fileSavedByJavaPassesTheCommand() throws Exception {
    List<String> present = keys("java-key-", 5000);
    Path file = dir.resolve("java.abloom");
    try (BloomFilter f =
        BloomFilter.builder().expectedInsertions(5000).fpp(0.01).shards(4).build()) {
      for (String k : present) {
        f.put(k);
      }
      f.save(file);
    }
    assertEquals(0, run("", "verify", file.toString()).status());
    assertEquals("5000\n", run(lines(present), "query", "--count", file.toString()).out());
    Result absent = run(lines(present), "query", "--absent", file.toString());
    assertEquals(1, absent.status(), "query --absent matched a key Java added");
    assertEquals("", absent.out());
  }

  /**
   * Keys on standard input with no --capacity: the command cannot count them first, and builds
   * a growing filter (its default first stage and growth), which opens in Java equal to Java's
   * growing filter of the same keys; and a growing file Java saves passes its verify and query.
   */
  @Test
  void growingFilesBothWays() throws Exception {
    List<String> present = keys("grow-key-", 5000);
    List<String> absent = keys("grow-absent-", 20000);
    Path file = dir.resolve("cli-growing.abloom");
    assertEquals(
        0,
        run(lines(present), "build", "-q", "-o", file.toString(), "--fpr", "0.01", "--seed", "42")
            .status());
    try (BloomFilter f = BloomFilter.open(file, BloomFilter.OpenMode.READ_ONLY, true);
        BloomFilter g = BloomFilter.builder().growth(2.0).fpp(0.01).seed(42).build()) {
      assertTrue(f.isGrowing(), "the command's filter of standard input is growing");
      assertEquals(BloomFilter.DEFAULT_GROWTH, f.growth());
      assertEquals(BloomFilter.DEFAULT_INITIAL_CAPACITY, f.stage(0).expectedInsertions());
      assertEquals(3, f.stageCount(), "5000 keys: 1024 + 2048 + 4096");
      for (String k : present) {
        assertTrue(f.mightContain(k), () -> k + " built by the command is missing in Java");
        g.put(k);
      }
      assertEquals(g, f, "the command's growing filter differs from Java's of the same keys");
      List<String> javaYes = new ArrayList<>();
      for (String k : absent) {
        if (f.mightContain(k)) {
          javaYes.add(k);
        }
      }
      assertEquals(lines(javaYes), run(lines(absent), "query", file.toString()).out());
      assertTrue(javaYes.size() < 400, javaYes.size() + " false positives of 20000 at 1%");
      Path saved = dir.resolve("java-growing.abloom");
      g.save(saved);
      assertEquals(0, run("", "verify", saved.toString()).status());
      assertEquals("5000\n", run(lines(present), "query", "--count", saved.toString()).out());
      Result none = run(lines(present), "query", "--absent", saved.toString());
      assertEquals(1, none.status(), "query --absent matched a key Java added");
    }
  }
}
