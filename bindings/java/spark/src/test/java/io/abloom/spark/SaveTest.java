package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Saving through Hadoop's FileSystem: the file opens in the Java binding (and so in C, Go and
 * Rust: one format), replaces an older file, and a failed save leaves nothing behind, no
 * temporary file and no checksum sidecar.
 */
class SaveTest {

  private static final SparkSession SPARK = TestSpark.spark();
  private Path dir;

  @BeforeEach
  void makeDir() {
    dir = TestSpark.tempDir("save");
  }

  @AfterEach
  void removeDir() {
    TestSpark.delete(dir);
  }

  private static BloomFilter filter(int keys) {
    BloomFilter f = Shape.of(1000, 0.01).create();
    for (int i = 0; i < keys; i++) {
      f.put("key" + i);
    }
    return f;
  }

  @Test
  void aSavedFileOpensAsTheSameFilterAndLeavesNothingElse() throws IOException {
    Path target = dir.resolve("sub/dir/f.abloom"); // missing parents are created
    try (BloomFilter f = filter(500)) {
      AbloomSpark.save(SPARK, f, target.toString());
      try (BloomFilter back = BloomFilter.open(target, BloomFilter.OpenMode.READ_ONLY, true)) {
        assertEquals(f, back);
      }
      assertEquals(f.serializedSize(), Files.size(target));
    }
    assertEquals(List.of("f.abloom"), TestSpark.names(target.getParent()));
  }

  @Test
  void aFileUriWorksAndASaveReplacesTheOldFile() throws IOException {
    Path target = dir.resolve("f.abloom");
    try (BloomFilter small = filter(10); BloomFilter big = filter(900)) {
      AbloomSpark.save(SPARK, small, target.toUri().toString());
      AbloomSpark.save(SPARK, big, "file:" + target);
      try (BloomFilter back = BloomFilter.open(target)) {
        assertEquals(big, back);
      }
    }
    assertEquals(List.of("f.abloom"), TestSpark.names(dir));
  }

  @Test
  void aParentThatIsAFileIsAClearErrorAndLeavesNothing() throws IOException {
    Path notADir = Files.writeString(dir.resolve("plain.txt"), "x");
    try (BloomFilter f = filter(5)) {
      IOException e =
          assertThrows(
              IOException.class,
              () -> AbloomSpark.save(SPARK, f, notADir.resolve("f.abloom").toString()));
      assertTrue(e.getMessage().contains("plain.txt"), e.getMessage());
    }
    assertEquals(List.of("plain.txt"), TestSpark.names(dir));
  }

  @Test
  void aTargetThatIsADirectoryIsAClearErrorAndLeavesNothing() throws IOException {
    Path target = Files.createDirectories(dir.resolve("f.abloom"));
    Files.writeString(target.resolve("inside"), "x");
    try (BloomFilter f = filter(5)) {
      IOException e =
          assertThrows(IOException.class, () -> AbloomSpark.save(SPARK, f, target.toString()));
      assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
    }
    assertEquals(List.of("f.abloom"), TestSpark.names(dir));
    assertEquals(List.of("inside"), TestSpark.names(target));
  }

  @Test
  void aFailureWhileWritingRemovesTheTemporaryFileAndKeepsTheOldOne() throws IOException {
    Path target = dir.resolve("f.abloom");
    try (BloomFilter old = filter(10)) {
      AbloomSpark.save(SPARK, old, target.toString());
      BloomFilter closed = filter(5);
      closed.close(); // writing it fails after the temporary file is created
      assertThrows(IllegalStateException.class, () -> AbloomSpark.save(SPARK, closed, target.toString()));
      assertEquals(List.of("f.abloom"), TestSpark.names(dir));
      try (BloomFilter back = BloomFilter.open(target)) {
        assertEquals(old, back);
      }
    }
  }
}
