package io.abloom.spark.bench;

import io.abloom.spark.AbloomSpark;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.util.sketch.BloomFilter;

/**
 * abloom's Spark module against Spark's own Bloom filter, in one local-mode run, on one key set:
 * build time ({@code AbloomSpark.build} vs {@code df.stat().bloomFilter}), accuracy at capacity
 * (false negatives, FPR on absent keys), memory and file size per key, and query time ({@code
 * might_contain} vs a UDF calling Spark's {@code mightContainLong} on a broadcast filter, in the
 * same query). Best of R runs each, the two alternating, so both see the same machine state.
 *
 * <p>{@code SparkBench N [REPS] [PARTITIONS]}: N keys 0..N-1 (bigint), filters sized for N at 1%;
 * the query runs over N rows of which half are keys. Run it through bench/run-bench.sh.
 */
public final class SparkBench {

  private static final double FPP = 0.01;
  private static final long ABSENT = 5_000_000;

  private SparkBench() {}

  /** A stream that only counts (the size of Spark's serialized filter). */
  private static final class Counter extends OutputStream {
    long n;

    @Override
    public void write(int b) {
      n++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      n += len;
    }
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int parts = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("abloom-spark-bench")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.maxResultSize", "0")
            .config("spark.sql.shuffle.partitions", String.valueOf(parts))
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    Dataset<Row> keys = spark.range(0, n, 1, parts).toDF("id");
    Dataset<Row> probe = spark.range(n / 2, n / 2 + n, 1, parts).toDF("id");
    System.out.printf(
        Locale.ROOT,
        "SparkBench: %,d bigint keys at %.2f, %d partitions, local[2], best of %d%n",
        n,
        FPP,
        parts,
        reps);

    // ---- build ----
    double sparkBuild = Double.MAX_VALUE;
    double abloomBuild = Double.MAX_VALUE;
    BloomFilter sf = null;
    io.abloom.BloomFilter af = null;
    for (int r = 0; r < reps; r++) {
      long t0 = System.nanoTime();
      sf = keys.stat().bloomFilter("id", n, FPP);
      sparkBuild = Math.min(sparkBuild, seconds(t0));
      if (af != null) {
        af.close();
      }
      t0 = System.nanoTime();
      af = AbloomSpark.build(keys, "id", n, FPP);
      abloomBuild = Math.min(abloomBuild, seconds(t0));
      System.out.printf(Locale.ROOT, "  build run %d: spark %.2f s, abloom %.2f s%n", r + 1, sparkBuild, abloomBuild);
    }

    // ---- accuracy ----
    long step = Math.max(1, n / 2_000_000);
    long sparkMiss = 0;
    long abloomMiss = 0;
    long checked = 0;
    for (long k = 0; k < n; k += step) {
      sparkMiss += sf.mightContainLong(k) ? 0 : 1;
      abloomMiss += af.mightContain(k) ? 0 : 1;
      checked++;
    }
    long sparkFp = 0;
    long abloomFp = 0;
    long[] batch = new long[1 << 16];
    for (long base = n; base < n + ABSENT; base += batch.length) {
      for (int i = 0; i < batch.length; i++) {
        batch[i] = base + i;
        sparkFp += sf.mightContainLong(base + i) ? 1 : 0;
      }
      for (boolean hit : af.mightContainAll(batch)) {
        abloomFp += hit ? 1 : 0;
      }
    }
    long absentTested = (ABSENT + batch.length - 1) / batch.length * batch.length;

    // ---- memory and file ----
    Counter c = new Counter();
    sf.writeTo(c);
    double sparkMem = sf.bitSize() / 8.0 / n;
    double sparkFile = (double) c.n / n;
    double abloomMem = af.bitSize() / 8.0 / n;
    double abloomFile = (double) af.serializedSize() / n;

    // ---- query ----
    Path dir = Files.createTempDirectory("abloom-spark-bench");
    Path file = dir.resolve("bench-" + n + ".abloom");
    AbloomSpark.save(spark, af, file.toString());
    Broadcast<BloomFilter> bc = JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(sf);
    UserDefinedFunction sparkFn =
        functions.udf((UDF1<Long, Boolean>) x -> bc.value().mightContainLong(x), DataTypes.BooleanType);
    Dataset<Row> plan =
        probe.where(AbloomSpark.mightContain(spark, file.toString(), functions.col("id")));
    System.out.println("abloom query plan:\n" + plan.queryExecution().executedPlan().treeString());
    double floorQuery = Double.MAX_VALUE;
    double sparkQuery = Double.MAX_VALUE;
    double abloomQuery = Double.MAX_VALUE;
    long sparkCount = 0;
    long abloomCount = 0;
    for (int r = 0; r < reps; r++) {
      long t0 = System.nanoTime();
      probe.where(functions.col("id").geq(0)).count();
      floorQuery = Math.min(floorQuery, seconds(t0));
      t0 = System.nanoTime();
      sparkCount = probe.where(sparkFn.apply(functions.col("id"))).count();
      sparkQuery = Math.min(sparkQuery, seconds(t0));
      t0 = System.nanoTime();
      abloomCount =
          probe.where(AbloomSpark.mightContain(spark, file.toString(), functions.col("id"))).count();
      abloomQuery = Math.min(abloomQuery, seconds(t0));
      System.out.printf(Locale.ROOT, "  query run %d: spark %.2f s, abloom %.2f s%n", r + 1, sparkQuery, abloomQuery);
    }

    System.out.printf(Locale.ROOT, "%n| %,d keys, 1%% | Spark `stat.bloomFilter` | abloom `AbloomSpark` | ratio |%n", n);
    System.out.println("|---|---|---|---|");
    System.out.printf(Locale.ROOT, "| build (best of %d) | %.2f s | %.2f s | %.2fx |%n", reps, sparkBuild, abloomBuild, sparkBuild / abloomBuild);
    System.out.printf(Locale.ROOT, "| false negatives (%,d present keys) | %d | %d | |%n", checked, sparkMiss, abloomMiss);
    System.out.printf(Locale.ROOT, "| FPR (%,d absent keys) | %.4f%% | %.4f%% | |%n", absentTested, 100.0 * sparkFp / absentTested, 100.0 * abloomFp / absentTested);
    // Spark's BloomFilter does not expose k: this is its sizing formula, round(m / n ln 2).
    long sparkK = Math.max(1, Math.round((double) sf.bitSize() / n * Math.log(2)));
    System.out.printf(Locale.ROOT, "| k | %d | %d | |%n", sparkK, af.hashFunctions());
    System.out.printf(Locale.ROOT, "| memory per key | %.3f B (%.2f bits) | %.3f B (%.2f bits) | %.2fx |%n", sparkMem, sparkMem * 8, abloomMem, abloomMem * 8, sparkMem / abloomMem);
    System.out.printf(Locale.ROOT, "| file per key | %.3f B | %.3f B | %.2fx |%n", sparkFile, abloomFile, sparkFile / abloomFile);
    System.out.printf(Locale.ROOT, "| query over %,d rows (best of %d) | %.2f s (%,d rows kept) | %.2f s (%,d rows kept) | %.2fx |%n", n, reps, sparkQuery, sparkCount, abloomQuery, abloomCount, sparkQuery / abloomQuery);
    System.out.printf(Locale.ROOT, "| the same query with `id >= 0` instead (the floor) | %.2f s | | |%n", floorQuery);
    af.close();
    spark.stop();
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }
}
