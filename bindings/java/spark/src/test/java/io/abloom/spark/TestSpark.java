package io.abloom.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * The one local SparkSession every test class shares (starting Spark costs seconds): two
 * worker threads, few shuffle partitions, no UI. Surefire runs every class in one JVM.
 */
final class TestSpark {

  private TestSpark() {}

  private static final class Holder {
    static final SparkSession SPARK =
        SparkSession.builder()
            .master("local[2]")
            .appName("abloom-spark-tests")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.default.parallelism", "4")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.adaptive.enabled", "false")
            .getOrCreate();
  }

  static SparkSession spark() {
    return Holder.SPARK;
  }

  /** A new empty folder under the system temporary folder; {@link #delete} removes it. */
  static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory("abloom-spark-" + prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A new empty folder removed when the JVM exits: for filter files shipped to the executors,
   * which Spark may fetch again from their source path as long as the session runs.
   */
  static Path tempDirUntilExit(String prefix) {
    Path dir = tempDir(prefix);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
    return dir;
  }

  static void delete(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The names in a folder, sorted. */
  static List<String> names(Path dir) {
    try (Stream<Path> all = Files.list(dir)) {
      List<String> out = new ArrayList<>();
      all.forEach(p -> out.add(p.getFileName().toString()));
      out.sort(null);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
