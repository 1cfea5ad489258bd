package io.abloom.spark;

import io.abloom.BloomFilter;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkFiles;
import org.apache.spark.deploy.SparkHadoopUtil;

/**
 * The filters this JVM (an executor, or the driver in local mode) has opened, by the name they
 * were shipped under with {@code SparkContext.addFile}: each is opened once per JVM, by mmap from
 * the executor's local copy, and shared by every task and thread (lookups are thread-safe). They
 * stay open for the JVM's life: a mapping costs no heap, and its pages are the OS page cache's,
 * shared by every executor on the host that maps the same file.
 *
 * <p>Public only because the code Spark generates for {@code abloom_might_contain} calls {@link
 * #probe} from another class loader's package; not an API.
 */
public final class LoadedFilters {

  /** A shipped file, opened by the engine (batched tests) and mapped for per-row tests. */
  private record Loaded(BloomFilter filter, MappedProbe probe) {}

  private static final ConcurrentHashMap<String, Loaded> OPEN = new ConcurrentHashMap<>();

  private LoadedFilters() {}

  /**
   * The filter shipped under a name, opened on first use in this JVM.
   *
   * @param shippedName the name given to {@code SparkContext.addFile}
   * @param source the path it was shipped from (opened directly on the driver, where no task
   *     fetched a copy)
   * @return the open filter, shared; never close it
   * @throws java.io.UncheckedIOException if it cannot be opened
   */
  public static BloomFilter get(String shippedName, String source) {
    return OPEN.computeIfAbsent(shippedName, name -> open(name, source)).filter();
  }

  /**
   * The same filter's per-row probe: Java reads of the same file's mapped pages, with no native
   * call per key (see {@link MappedProbe}).
   *
   * @param shippedName the name given to {@code SparkContext.addFile}
   * @param source the path it was shipped from
   * @return the probe, shared
   * @throws java.io.UncheckedIOException if the filter cannot be opened
   */
  public static MappedProbe probe(String shippedName, String source) {
    return OPEN.computeIfAbsent(shippedName, name -> open(name, source)).probe();
  }

  private static Loaded open(String shippedName, String source) {
    Path local = Path.of(SparkFiles.get(shippedName));
    try {
      if (!Files.exists(local)) {
        // Not a task: the optimizer evaluates a function over a local relation (a Dataset made
        // from a driver-side list) on the driver, where no task has fetched the shipped copy.
        local = driverCopy(source);
      }
      BloomFilter filter = BloomFilter.open(local);
      try {
        return new Loaded(filter, MappedProbe.of(filter, local));
      } catch (IOException | RuntimeException e) {
        filter.close();
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "abloom_might_contain: cannot open the filter " + shippedName + " (from " + source + ")",
          e);
    }
  }

  /** The source file itself when local, else a copy in a temporary file deleted at exit. */
  private static Path driverCopy(String source) throws IOException {
    org.apache.hadoop.fs.Path src = new org.apache.hadoop.fs.Path(source);
    if ("file".equals(src.toUri().getScheme())) {
      return Path.of(src.toUri());
    }
    Configuration conf = SparkHadoopUtil.get().newConfiguration(SparkEnv.get().conf());
    FileSystem fs = src.getFileSystem(conf);
    File tmp = File.createTempFile("abloom-driver-", "-" + src.getName());
    tmp.deleteOnExit();
    fs.copyToLocalFile(false, src, new org.apache.hadoop.fs.Path(tmp.toURI()), true);
    return tmp.toPath();
  }
}
