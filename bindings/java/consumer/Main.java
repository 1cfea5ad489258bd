package consumer;

import io.abloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Uses io.abloom as an application would. args[0]: a golden vector's path without extension;
 * args[1]: the folder to save java.abloom and java.keys.txt into.
 */
public final class Main {
  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError("consumer: " + what);
    }
  }

  public static void main(String[] args) throws Exception {
    try (BloomFilter f = BloomFilter.create(10_000, 0.01)) {
      int changed = 0;
      for (int i = 0; i < 10_000; i++) {
        changed += f.put("key-" + i) ? 1 : 0; // false only for a key that was a false positive
      }
      check(changed > 9_700, "only " + changed + " of 10000 new keys changed the filter");
      f.put(42L);
      f.put(new byte[] {1, 2, 3});
      byte[] packed = "abcdefgh".getBytes(StandardCharsets.UTF_8);
      f.putAll(packed, new long[] {0, 3, 8});
      for (int i = 0; i < 10_000; i++) {
        check(f.mightContain("key-" + i), "key-" + i + " missing");
      }
      check(f.mightContain(42L) && f.mightContain(new byte[] {1, 2, 3}), "long/byte[] key missing");
      boolean[] hits = f.mightContainAll(packed, new long[] {0, 3, 8});
      check(hits[0] && hits[1], "batch keys missing");
      int fp = 0;
      for (int i = 0; i < 10_000; i++) {
        fp += f.mightContain("absent-" + i) ? 1 : 0;
      }
      check(fp < 300, fp + " false positives in 10000 absent keys, at 1%");
      System.out.println("consumer: created a filter, added 10003 keys, all present, " + fp
          + " false positives in 10000 absent keys");
    }
    Path file = Path.of(args[0] + ".abloom");
    try (BloomFilter g = BloomFilter.open(file)) {
      check(g.kind() == BloomFilter.Kind.BLOCKED && g.shards() == 1 && g.hashFunctions() == 7
          && g.seed() == 0x0123456789ABCDEFL, "the shape of " + file + ": " + g);
      List<String> keys = Files.readAllLines(Path.of(args[0] + ".keys.txt"), StandardCharsets.UTF_8);
      int present = 0;
      for (String key : keys) {
        if (!key.isEmpty()) {
          check(g.mightContain(key), "key '" + key + "' of " + file + " missing");
          present++;
        }
      }
      check(present == 450, present + " keys, expected 450");
      int answers = 0;
      for (String line : Files.readAllLines(Path.of(args[0] + ".absent.txt"), StandardCharsets.UTF_8)) {
        if (!line.isEmpty()) {
          int sp = line.indexOf(' ');
          check(g.mightContain(line.substring(sp + 1)) == line.startsWith("1 "),
              "absent key answer differs: " + line);
          answers++;
        }
      }
      System.out.println("consumer: opened " + file.getFileName() + " (written by the C library): "
          + present + " keys present, " + answers + " recorded absent-key answers match");
    }
    // A filter of its own, for other languages to read: OUT/java.abloom and its keys.
    Path out = Path.of(args[1]);
    Files.createDirectories(out);
    StringBuilder keyLines = new StringBuilder();
    try (BloomFilter mine = BloomFilter.builder().expectedInsertions(2_000).fpp(0.01).shards(4)
        .seed(0x4A415641L).build()) {
      for (int i = 0; i < 1_000; i++) {
        String key = "java-key-" + i;
        mine.put(key);
        keyLines.append(key).append('\n');
      }
      mine.save(out.resolve("java.abloom"));
    }
    Files.writeString(out.resolve("java.keys.txt"), keyLines, StandardCharsets.UTF_8);
    try (BloomFilter back = BloomFilter.open(out.resolve("java.abloom"))) {
      for (int i = 0; i < 1_000; i++) {
        check(back.mightContain("java-key-" + i), "java-key-" + i + " missing from the saved file");
      }
      System.out.println("consumer: saved java.abloom (" + back + ") and java.keys.txt, reopened:"
          + " 1000 keys present");
    }
    System.out.println("consumer: ok");
  }
}
