package io.abloom.spark;

import io.abloom.BloomFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkFiles;

/**
 * The filters this JVM (an executor, or the driver in local mode) has opened, by the name they
 * were shipped under with {@code SparkContext.addFile}: each is opened once per JVM, by mmap from
 * the executor's local copy, and shared by every task and thread (lookups are thread-safe). They
 * stay open for the JVM's life: a mapping costs no heap, and its pages are the OS page cache's,
 * shared by every executor on the host that maps the same file.
 */
final class LoadedFilters {

  private static final ConcurrentHashMap<String, BloomFilter> OPEN = new ConcurrentHashMap<>();

  private LoadedFilters() {}

  static BloomFilter get(String shippedName) {
    return OPEN.computeIfAbsent(shippedName, LoadedFilters::open);
  }

  private static BloomFilter open(String shippedName) {
    String local = SparkFiles.get(shippedName);
    try {
      return BloomFilter.open(Path.of(local));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "abloom_might_contain: cannot open the shipped filter " + shippedName + " at " + local,
          e);
    }
  }
}
