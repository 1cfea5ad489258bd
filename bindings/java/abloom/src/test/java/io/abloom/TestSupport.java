package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Paths and helpers shared by the tests. */
final class TestSupport {
  private TestSupport() {}

  static Path vectors() {
    return Path.of(System.getProperty("abloom.test.vectors", "../../../tests/vectors"));
  }

  static Path csrc() {
    return Path.of(System.getProperty("abloom.test.csrc", "src/test/c"));
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The 16-byte key of index i (splitmix64 of i and of i ^ a constant), deterministic. */
  static byte[] key16(long i) {
    byte[] k = new byte[16];
    long a = mix(i);
    long b = mix(i ^ 0x5DEECE66DL);
    for (int j = 0; j < 8; j++) {
      k[j] = (byte) (a >>> (8 * j));
      k[8 + j] = (byte) (b >>> (8 * j));
    }
    return k;
  }

  static long mix(long z) {
    z += 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * {@code pb.start()}, tried again (up to three times, half a second apart) when process creation
   * fails with Windows' ERROR_INTERNAL_ERROR (1359): wine's CreateProcess returns it now and then
   * on a loaded machine (it did once in CI, starting abloom.exe), and a second start succeeds. Any
   * other failure (a missing program: error=2) is thrown at once.
   */
  static Process start(ProcessBuilder pb) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return pb.start();
      } catch (IOException e) {
        String why = String.valueOf(e.getMessage());
        if (attempt == 3 || !why.contains("CreateProcess error=1359")) {
          throw e;
        }
        System.err.println("retrying after a failed process start: " + why);
        Thread.sleep(500);
      }
    }
  }

  /** Runs a command, returns stdout; fails the test on a non-zero exit. */
  static String run(List<String> command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    Process p = start(pb);
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + command);
    }
    String text = new String(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), () -> command + " failed:\n" + text);
    return text;
  }

  /**
   * Compiler and linker flags for a C program against the abloom under test: the same engine the
   * JNI library links in (libabloom.a), as build-native.sh wrote them to target/native/engine.cflags.
   */
  static List<String> cFlags() throws IOException {
    Path file = Path.of(System.getProperty("abloom.test.cflags", "target/native/engine.cflags"));
    return lines(file);
  }

  static List<String> lines(Path p) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
      if (!line.isEmpty()) {
        out.add(line);
      }
    }
    return out;
  }
}
