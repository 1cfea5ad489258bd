package io.abloom.spark;

import io.abloom.AbloomStaleException;
import io.abloom.BloomFilter;
import io.abloom.BloomFilter.OpenMode;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.classic.ExpressionUtils;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import scala.Function1;
import scala.collection.immutable.Seq;

/**
 * abloom filters over Spark: build one from a column of a Dataset, write it to any Hadoop file
 * system path, and test keys against a saved one in queries.
 *
 * <pre>{@code
 * try (BloomFilter f = AbloomSpark.build(users, "id", 10_000_000, 0.01)) {
 *   AbloomSpark.save(spark, f, "hdfs:///filters/users-2026-11-30.abloom");
 * }
 * AbloomSpark.register(spark, "known_user", "hdfs:///filters/users-2026-11-30.abloom");
 * spark.sql("SELECT * FROM events WHERE known_user(user_id)");
 * events.where(AbloomSpark.mightContain(spark, "hdfs:///filters/users-2026-11-30.abloom",
 *     col("user_id")));
 * }</pre>
 *
 * <p>Keys: string columns add their UTF-8 bytes, binary columns their bytes, bigint columns 8
 * bytes little-endian and int columns the same as bigint (widened), exactly as the Java binding's
 * {@code put(String)}, {@code put(byte[])} and {@code put(long)} do, so services in any language
 * test the same bytes. <b>Nulls are skipped</b>: a null is no key, and adds nothing.
 */
public final class AbloomSpark {

  /** Tree depth of the merge: partials are unioned on executors, in about sqrt(n) groups. */
  private static final int MERGE_DEPTH = 2;

  /** Shipped file name to the path it was shipped from (driver side, per JVM). */
  private static final Map<String, String> SHIPPED = new ConcurrentHashMap<>();

  private AbloomSpark() {}

  /**
   * Builds a filter of {@code expectedKeys} at {@code fpp} from a column: see {@link
   * #build(Dataset, String, Shape)}.
   *
   * @param ds the dataset
   * @param column the key column
   * @param expectedKeys the keys the filter is sized for
   * @param fpp the target false-positive rate at that many keys
   * @return the filter, on the driver; the caller closes it
   * @throws IllegalArgumentException if the column is missing, of an unsupported type, or the
   *     sizes are out of range
   */
  public static BloomFilter build(Dataset<?> ds, String column, long expectedKeys, double fpp) {
    return build(ds, column, Shape.of(expectedKeys, fpp));
  }

  /**
   * Builds a filter of the given shape from a column. Each partition adds its non-null keys into
   * its own filter of that shape (bulk calls, exclusive-writer mode); the partial filters are
   * merged by union in a tree ({@code treeAggregate}, depth 2), so the driver receives a few
   * partial filters, not one per partition. The result is bit for bit the filter that one process
   * would build by adding the same keys to {@code shape.create()}.
   *
   * <p>Memory: every task holding a partial holds a whole filter of the shape (its bytes, and
   * the native filter while adding), and the driver holds the result; a serialized filter travels
   * as one {@code byte[]}, so a shape must serialize to less than 2 GiB (about 1.7 billion keys at
   * 1%): see the README's plan for larger key sets.
   *
   * @param ds the dataset
   * @param column the key column (a name {@code Dataset.select} accepts); string, binary, bigint
   *     or int
   * @param shape the filter's shape
   * @return the filter, on the driver; the caller closes it
   * @throws IllegalArgumentException if the column is missing or of an unsupported type
   */
  public static BloomFilter build(Dataset<?> ds, String column, Shape shape) {
    Objects.requireNonNull(ds, "ds");
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(shape, "shape");
    Dataset<Row> keys = selectColumn(ds, column);
    KeyType type = KeyType.of(keys.schema().fields()[0].dataType(), column);
    shape.builder().plan(); // a shape the library rejects fails here, on the driver, not in tasks
    // Internal rows: the keys' bytes as Spark holds them (see PartitionBuilder).
    JavaRDD<InternalRow> rows = keys.queryExecution().toRdd().toJavaRDD();
    byte[] merged =
        rows.mapPartitions(new PartitionBuilder(shape, type))
            .treeAggregate(null, Partials::union, Partials::union, MERGE_DEPTH);
    return merged == null ? shape.create() : Partials.read(merged, "merged");
  }

  private static Dataset<Row> selectColumn(Dataset<?> ds, String column) {
    try {
      return ds.select(column); // analyzed now: a missing column fails here
    } catch (RuntimeException e) {
      throw missingColumn(ds, column, e);
    } catch (Exception e) { // AnalysisException: checked in Java's eyes, thrown by Scala
      throw missingColumn(ds, column, e);
    }
  }

  private static IllegalArgumentException missingColumn(Dataset<?> ds, String column, Exception e) {
    return new IllegalArgumentException(
        "abloom: cannot use column '"
            + column
            + "' (columns: "
            + Arrays.toString(ds.columns())
            + "): "
            + e.getMessage(),
        e);
  }

  /**
   * An aggregate function that builds one filter per group: {@code
   * df.groupBy("day").agg(AbloomSpark.aggregate(shape, DataTypes.StringType).apply(col("user")))}
   * gives each group's filter as a binary column, its serialized bytes ({@link
   * BloomFilter#fromByteArray} reads them; write them to a file to serve them). Each is bit for
   * bit the filter one process builds by adding the group's non-null keys to {@code
   * shape.create()}, encoded as {@link #build} encodes them; a group with no non-null key gives
   * the empty filter of the shape.
   *
   * <p>Every group holds a whole filter of the shape while it aggregates (native memory, then its
   * bytes between stages): size the shape for one group's keys, and mind how many groups a task
   * aggregates at once. For one filter over a whole column, {@link #build} is faster (no
   * per-row conversion to a Java value).
   *
   * @param shape each group's filter's shape
   * @param keyType the input column's type: string, binary, bigint or int
   * @return the function, for {@code agg} or {@link #registerAggregate}
   * @throws IllegalArgumentException for another key type, or a shape the library rejects
   */
  public static UserDefinedFunction aggregate(Shape shape, DataType keyType) {
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(keyType, "keyType");
    KeyType type = KeyType.of(keyType, "key");
    shape.builder().plan(); // fails here, on the driver, not in tasks
    return udaf(GroupFilterAggregator.of(shape, type));
  }

  private static <K> UserDefinedFunction udaf(GroupFilterAggregator<K> aggregator) {
    return functions.udaf(aggregator, aggregator.inputEncoder());
  }

  /**
   * Registers {@link #aggregate} as a SQL aggregate function: {@code SELECT day, name(user) FROM
   * events GROUP BY day}.
   *
   * @param spark the session
   * @param name the function's name
   * @param shape each group's filter's shape
   * @param keyType the input column's type: string, binary, bigint or int
   * @throws IllegalArgumentException for another key type, or a shape the library rejects
   */
  public static void registerAggregate(
      SparkSession spark, String name, Shape shape, DataType keyType) {
    Objects.requireNonNull(spark, "spark");
    Objects.requireNonNull(name, "name");
    spark.udf().register(name, aggregate(shape, keyType));
  }

  /**
   * The union of two serialized filters (from {@link BloomFilter#toByteArray()}) of one shape:
   * the merge step of {@link #build}, for partial filters built elsewhere.
   *
   * @param a a serialized filter
   * @param b a serialized filter of the same shape
   * @return the serialized union
   * @throws IllegalArgumentException if the shapes differ (naming both) or either is not a
   *     serialized filter
   */
  public static byte[] union(byte[] a, byte[] b) {
    return Partials.union(Objects.requireNonNull(a, "a"), Objects.requireNonNull(b, "b"));
  }

  /**
   * Writes a filter to a path of any Hadoop file system ({@code hdfs://}, {@code s3a://}, {@code
   * file:}, or a plain path on the default one) with the session's Hadoop configuration. Crash-safe
   * where the file system allows: a temporary file beside the target, synced, then renamed over
   * it (atomic on local file systems; on HDFS an existing target is deleted first; object stores
   * have no atomic rename). On failure the temporary file is removed and the target is untouched.
   * Missing parent directories are created.
   *
   * @param spark the session (for its Hadoop configuration)
   * @param filter the filter
   * @param path the target path
   * @throws IOException if the path cannot be written (naming it)
   */
  public static void save(SparkSession spark, BloomFilter filter, String path) throws IOException {
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(path, "path");
    HadoopFiles.save(filter, path, spark.sparkContext().hadoopConfiguration());
  }

  /**
   * Tests a column against a saved filter: {@code mightContain(spark, path, col("key"))} is true
   * where the key might be in the filter, false where it is not, null where the key is null. The
   * key column must be string, binary, bigint or int (checked when the query is analyzed), encoded
   * as {@link #build} encodes it. The file is shipped to the executors with {@code
   * SparkContext.addFile}, and each executor opens its local copy once, by mmap (see {@link
   * #register}).
   *
   * @param spark the session
   * @param path the filter file, on any Hadoop file system
   * @param key the key column
   * @return a boolean column
   * @throws IOException if the file is missing, or is not a valid filter (checked once, here on
   *     the driver, with its checksum: a corrupt or truncated file fails here, naming the file; a
   *     stale one with an {@link AbloomStaleException})
   * @throws IllegalArgumentException if another file of the same name was shipped before, or the
   *     file holds a growing filter (the functions read fixed filters only)
   */
  public static Column mightContain(SparkSession spark, String path, Column key)
      throws IOException {
    Objects.requireNonNull(key, "key");
    String name = ship(spark, path);
    return ExpressionUtils.column(
        new MightContainExpression(
            ExpressionUtils.expression(key), name, SHIPPED.get(name), "abloom_might_contain"));
  }

  /**
   * The rows of {@code ds} whose key might be in a saved filter: the rows {@code
   * ds.where(mightContain(spark, path, col(column)))} keeps, but tested in batches of 4096 keys
   * per native call, with each key's block prefetched ahead of its probe, instead of one call and
   * one waited-for cache miss per row. For pre-filtering the big side of a semi-join when the
   * filter is larger than the CPU caches. Rows with a null key are dropped.
   *
   * @param ds the dataset
   * @param column the key column (string, binary, bigint or int)
   * @param path the filter file, on any Hadoop file system
   * @param spark the session (classic)
   * @return the rows kept, with the schema of {@code ds}
   * @throws IOException if the file is missing, or is not a valid filter (checked once, here on
   *     the driver, with its checksum: a corrupt or truncated file fails here, naming the file; a
   *     stale one with an {@link AbloomStaleException})
   * @throws IllegalArgumentException if the column is missing or of an unsupported type,
   *     another file of the same name was shipped before, or the file holds a growing filter
   */
  public static Dataset<Row> whereMightContain(
      SparkSession spark, Dataset<Row> ds, String column, String path) throws IOException {
    Objects.requireNonNull(ds, "ds");
    Objects.requireNonNull(column, "column");
    if (!(spark instanceof org.apache.spark.sql.classic.SparkSession classic)) {
      throw new IllegalArgumentException(
          "abloom: whereMightContain needs a classic SparkSession, got " + spark.getClass().getName());
    }
    Dataset<Row> key = selectColumn(ds, column);
    KeyType type = KeyType.of(key.schema().fields()[0].dataType(), column);
    int ordinal = ds.schema().fieldIndex(key.schema().fields()[0].name());
    String shipped = ship(spark, path);
    JavaRDD<InternalRow> rows = ds.queryExecution().toRdd().toJavaRDD();
    JavaRDD<InternalRow> kept =
        rows.mapPartitions(new BatchProbe(shipped, SHIPPED.get(shipped), type, ordinal));
    return classic.internalCreateDataFrame(kept.rdd(), ds.schema(), false);
  }

  /**
   * Registers a SQL function of one key over a saved filter, callable from SQL ({@code SELECT ...
   * WHERE name(key)}) and PySpark ({@code F.expr("name(key)")}, after calling this method through
   * {@code spark._jvm.io.abloom.spark.AbloomSpark.register(spark._jsparkSession, name, path)}), as
   * a temporary function of the session. Same answers as {@link #mightContain}.
   *
   * <p>Why {@code addFile} and mmap rather than a broadcast of the bytes: a broadcast
   * deserializes the whole filter into each executor's heap (and the driver's), capped at 2 GiB
   * per array; a shipped file is fetched once per executor and mapped, costs no heap, opens in
   * O(1), and its pages are shared through the page cache by every executor of a host. It is also
   * how services open the same file. One file is one filter: write a new version under a new
   * name (Spark does not ship a path twice), never over a file in use, and keep the file while
   * the session runs (executors started later fetch it from its path).
   *
   * @param spark the session (Spark classic; not a Spark Connect client)
   * @param name the SQL function's name, e.g. {@code abloom_might_contain}
   * @param path the filter file, on any Hadoop file system
   * @throws IOException if the file is missing, or is not a valid filter (checked once, here on
   *     the driver, with its checksum: a corrupt or truncated file fails here, naming the file; a
   *     stale one with an {@link AbloomStaleException})
   * @throws IllegalArgumentException if another file of the same name was shipped before, the
   *     file holds a growing filter (the functions read fixed filters only), or the session is not
   *     a classic one
   */
  public static void register(SparkSession spark, String name, String path) throws IOException {
    Objects.requireNonNull(name, "name");
    if (!(spark instanceof org.apache.spark.sql.classic.SparkSession classic)) {
      throw new IllegalArgumentException(
          "abloom: register needs a classic SparkSession, got " + spark.getClass().getName());
    }
    String shipped = ship(spark, path);
    String source = SHIPPED.get(shipped);
    Function1<Seq<Expression>, Expression> builder =
        args -> {
          if (args.size() != 1) {
            throw new IllegalArgumentException(
                name + " takes one argument (the key), got " + args.size());
          }
          return new MightContainExpression(args.head(), shipped, source, name);
        };
    classic.sessionState().functionRegistry().createOrReplaceTempFunction(name, builder, "scala_udf");
  }

  /**
   * Opens the file once on the driver with its checksum verified (header and body), so that a
   * corrupt, truncated or foreign file fails here, naming the file and the library's reason,
   * rather than later in a task on an executor, or never: the executors' O(1) open checks the
   * header alone, and a damaged body would answer with false negatives. A file on another file
   * system is copied to a local temporary file for the check, then deleted.
   */
  private static void verifyOnDriver(FileSystem fs, Path p, String qualified) throws IOException {
    java.nio.file.Path local;
    java.nio.file.Path copy = null;
    if ("file".equals(fs.makeQualified(p).toUri().getScheme())) {
      local = java.nio.file.Path.of(fs.makeQualified(p).toUri());
    } else {
      copy = java.nio.file.Files.createTempFile("abloom-verify-", "-" + p.getName());
      fs.copyToLocalFile(false, p, new Path(copy.toUri()), true);
      local = copy;
    }
    try {
      try (BloomFilter f = BloomFilter.open(local, OpenMode.READ_ONLY, true)) {
        // Opened and verified. The executors' per-row probe maps one fixed filter's bits: a
        // growing filter's chain (several stages, each probed) is not what it reads.
        if (f.isGrowing()) {
          throw new IllegalArgumentException(
              "abloom: "
                  + qualified
                  + " is a growing filter ("
                  + f.stageCount()
                  + " stages); Spark's functions read fixed filters only: build it with a"
                  + " capacity (AbloomSpark.build, io.abloom.BloomFilter.create, or the command's"
                  + " build --capacity N)");
        }
      }
    } catch (AbloomStaleException e) {
      // Kept as its own type, so that a caller can tell it from corruption and seal the file. The
      // executors' O(1) open would read it, but its body cannot be checked, and a writer that is
      // still running would change it under the query.
      AbloomStaleException stale =
          new AbloomStaleException(
              "abloom: "
                  + qualified
                  + " is not a usable filter: it is stale (a writer that opened it READ_WRITE did"
                  + " not sync it: killed, or still running), so its checksum cannot be verified;"
                  + " once no writer has it open, seal it (io.abloom.BloomFilter.seal, or the"
                  + " command abloom seal) and use it again");
      stale.initCause(e);
      throw stale;
    } catch (IOException e) {
      throw new IOException("abloom: " + qualified + " is not a usable filter: " + e.getMessage(), e);
    } finally {
      if (copy != null) {
        java.nio.file.Files.deleteIfExists(copy);
      }
    }
  }

  /**
   * Ships a filter file to the executors once per path, and returns the name SparkFiles knows it
   * by. SparkFiles keys files by name alone: two paths with one name would silently share the
   * first one's content, so that is an error.
   */
  private static String ship(SparkSession spark, String path) throws IOException {
    Objects.requireNonNull(spark, "spark");
    Objects.requireNonNull(path, "path");
    Path p = new Path(path);
    FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
    if (!fs.exists(p) || !fs.getFileStatus(p).isFile()) {
      throw new IOException("abloom: no filter file at " + path);
    }
    String qualified = fs.makeQualified(p).toString();
    String name = p.getName();
    if (!qualified.equals(SHIPPED.get(name))) {
      verifyOnDriver(fs, p, qualified);
    }
    String before = SHIPPED.putIfAbsent(name, qualified);
    if (before != null && !before.equals(qualified)) {
      throw new IllegalArgumentException(
          "abloom: a filter named "
              + name
              + " was already shipped from "
              + before
              + "; Spark ships files by name, so give "
              + qualified
              + " another name");
    }
    if (before == null) {
      spark.sparkContext().addFile(qualified);
    }
    return name;
  }
}
