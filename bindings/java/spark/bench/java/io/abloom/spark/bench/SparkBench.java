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
 * <p>{@code SparkBench N [REPS] [PARTITIONS] [bigint|string]}: N keys 0..N-1 (bigint), or the
 * strings {@code "user:" + i} (string), filters sized for N at 1% (abloom's in the layout the
 * library chooses, split at 1%); the query runs over N rows of
 * which half are keys. Spark's side tests strings with {@code mightContainString} in a UDF, as a
 * Spark user would. Run it through bench/run-bench.sh.
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

  /** The string key of number i (string mode). */
  private static String key(long i) {
    return "user:" + i;
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int parts = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    boolean strings = args.length > 3 && args[3].equals("string");
    if (args.length > 3 && !strings && !args[3].equals("bigint")) {
      throw new IllegalArgumentException("key type must be bigint or string, not " + args[3]);
    }
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
    if (strings) {
      org.apache.spark.sql.Column asString =
          functions.concat(functions.lit("user:"), functions.col("id").cast("string")).as("id");
      keys = keys.select(asString);
      probe = probe.select(asString);
    }
    System.out.printf(
        Locale.ROOT,
        "SparkBench: %,d %s keys at %.2f, %d partitions, local[2], best of %d%n",
        n,
        strings ? "string" : "bigint",
        FPP,
        parts,
        reps);

    // ---- build ----
    // Spark 4's df.stat().bloomFilter is an aggregate (BloomFilterAggregate) that caps the items
    // it sizes for at spark.sql.optimizer.runtime.bloomFilter.maxNumItems (4M) and the bits at
    // ...maxNumBits (64M bits, 8 MiB), silently: "spark" is what users get by default, "spark
    // uncapped" the same call with both caps raised, sized as asked (the same settings as abloom).
    double sparkBuild = Double.MAX_VALUE;
    double fullBuild = Double.MAX_VALUE;
    double abloomBuild = Double.MAX_VALUE;
    BloomFilter sf = null;
    BloomFilter ff = null;
    io.abloom.BloomFilter af = null;
    for (int r = 0; r < reps; r++) {
      sf = null;
      ff = null;
      long t0 = System.nanoTime();
      sf = keys.stat().bloomFilter("id", n, FPP);
      sparkBuild = Math.min(sparkBuild, seconds(t0));
      uncapped(spark, true);
      t0 = System.nanoTime();
      ff = keys.stat().bloomFilter("id", n, FPP);
      fullBuild = Math.min(fullBuild, seconds(t0));
      uncapped(spark, false);
      if (af != null) {
        af.close();
      }
      t0 = System.nanoTime();
      af = AbloomSpark.build(keys, "id", n, FPP);
      abloomBuild = Math.min(abloomBuild, seconds(t0));
      System.out.printf(
          Locale.ROOT,
          "  build run %d: spark %.2f s, spark uncapped %.2f s, abloom %.2f s%n",
          r + 1,
          sparkBuild,
          fullBuild,
          abloomBuild);
    }

    // ---- accuracy ----
    long step = Math.max(1, n / 2_000_000);
    long[] miss = new long[3];
    long checked = 0;
    for (long k = 0; k < n; k += step) {
      if (strings) {
        String key = key(k);
        miss[0] += sf.mightContainString(key) ? 0 : 1;
        miss[1] += ff.mightContainString(key) ? 0 : 1;
        miss[2] += af.mightContain(key) ? 0 : 1;
        checked++;
        continue;
      }
      miss[0] += sf.mightContainLong(k) ? 0 : 1;
      miss[1] += ff.mightContainLong(k) ? 0 : 1;
      miss[2] += af.mightContain(k) ? 0 : 1;
      checked++;
    }
    long[] fp = new long[3];
    long[] batch = new long[1 << 16];
    for (long base = n; base < n + ABSENT; base += batch.length) {
      for (int i = 0; i < batch.length; i++) {
        batch[i] = base + i;
        if (strings) {
          String key = key(base + i);
          fp[0] += sf.mightContainString(key) ? 1 : 0;
          fp[1] += ff.mightContainString(key) ? 1 : 0;
          fp[2] += af.mightContain(key) ? 1 : 0;
          continue;
        }
        fp[0] += sf.mightContainLong(base + i) ? 1 : 0;
        fp[1] += ff.mightContainLong(base + i) ? 1 : 0;
      }
      if (strings) {
        continue;
      }
      for (boolean hit : af.mightContainAll(batch)) {
        fp[2] += hit ? 1 : 0;
      }
    }
    long absentTested = (ABSENT + batch.length - 1) / batch.length * batch.length;

    // ---- memory and file ----
    Counter c = new Counter();
    sf.writeTo(c);
    Counter cf = new Counter();
    ff.writeTo(cf);
    double[] mem = {sf.bitSize() / 8.0 / n, ff.bitSize() / 8.0 / n, af.bitSize() / 8.0 / n};
    double[] fileSize = {(double) c.n / n, (double) cf.n / n, (double) af.serializedSize() / n};

    // ---- query ----
    Path dir = Files.createTempDirectory("abloom-spark-bench");
    Path file = dir.resolve("bench-" + n + ".abloom");
    AbloomSpark.save(spark, af, file.toString());
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<BloomFilter> bc = jsc.broadcast(sf);
    Broadcast<BloomFilter> bf = jsc.broadcast(ff);
    UserDefinedFunction sparkFn = sparkMightContain(bc, strings);
    UserDefinedFunction fullFn = sparkMightContain(bf, strings);
    // The floor computes each row's key as the filtered queries do (a string the optimizer
    // cannot fold away), but tests nothing.
    org.apache.spark.sql.Column floor =
        strings ? functions.length(functions.col("id")).gt(0) : functions.col("id").geq(0);
    Dataset<Row> plan =
        probe.where(AbloomSpark.mightContain(spark, file.toString(), functions.col("id")));
    System.out.println("abloom query plan:\n" + plan.queryExecution().executedPlan().treeString());
    double[] query = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    long[] kept = new long[5];
    for (int r = 0; r < reps; r++) {
      long t0 = System.nanoTime();
      kept[3] = probe.where(floor).count();
      query[3] = Math.min(query[3], seconds(t0));
      t0 = System.nanoTime();
      kept[0] = probe.where(sparkFn.apply(functions.col("id"))).count();
      query[0] = Math.min(query[0], seconds(t0));
      t0 = System.nanoTime();
      kept[1] = probe.where(fullFn.apply(functions.col("id"))).count();
      query[1] = Math.min(query[1], seconds(t0));
      t0 = System.nanoTime();
      kept[2] =
          probe.where(AbloomSpark.mightContain(spark, file.toString(), functions.col("id"))).count();
      query[2] = Math.min(query[2], seconds(t0));
      t0 = System.nanoTime();
      kept[4] = AbloomSpark.whereMightContain(spark, probe, "id", file.toString()).count();
      query[4] = Math.min(query[4], seconds(t0));
      System.out.printf(
          Locale.ROOT,
          "  query run %d: floor %.2f s, spark %.2f s, spark uncapped %.2f s, abloom %.2f s, abloom batched %.2f s%n",
          r + 1,
          query[3],
          query[0],
          query[1],
          query[2],
          query[4]);
    }

    String head = "| %,d " + (strings ? "string " : "") + "keys, 1%% | Spark `stat.bloomFilter` (default caps) | Spark, caps raised | abloom `AbloomSpark` | Spark (raised) / abloom |%n";
    System.out.printf(Locale.ROOT, "%n" + head, n);
    System.out.println("|---|---|---|---|---|");
    System.out.printf(Locale.ROOT, "| build (best of %d) | %.2f s | %.2f s | %.2f s | %.2fx (default caps: %.2fx) |%n", reps, sparkBuild, fullBuild, abloomBuild, fullBuild / abloomBuild, sparkBuild / abloomBuild);
    System.out.printf(Locale.ROOT, "| false negatives (%,d present keys) | %d | %d | %d | |%n", checked, miss[0], miss[1], miss[2]);
    System.out.printf(Locale.ROOT, "| FPR (%,d absent keys) | %.4f%% | %.4f%% | %.4f%% | |%n", absentTested, 100.0 * fp[0] / absentTested, 100.0 * fp[1] / absentTested, 100.0 * fp[2] / absentTested);
    System.out.printf(Locale.ROOT, "| k | %d | %d | %d | |%n", sparkK(sf), sparkK(ff), af.hashFunctions());
    System.out.printf(Locale.ROOT, "| memory per key | %.3f B (%.2f bits) | %.3f B (%.2f bits) | %.3f B (%.2f bits) | %.2fx |%n", mem[0], mem[0] * 8, mem[1], mem[1] * 8, mem[2], mem[2] * 8, mem[1] / mem[2]);
    System.out.printf(Locale.ROOT, "| file per key | %.3f B | %.3f B | %.3f B | %.2fx |%n", fileSize[0], fileSize[1], fileSize[2], fileSize[1] / fileSize[2]);
    System.out.printf(Locale.ROOT, "| query over %,d rows (best of %d; rows kept) | %.2f s (%,d) | %.2f s (%,d) | %.2f s (%,d) | %.2fx (default caps: %.2fx) |%n", n, reps, query[0], kept[0], query[1], kept[1], query[2], kept[2], query[1] / query[2], query[0] / query[2]);
    System.out.printf(Locale.ROOT, "| the same rows through `AbloomSpark.whereMightContain` (batched; rows kept) | | %.2f s (%,d) | %.2f s (%,d) | %.2fx (default caps: %.2fx) |%n", query[1], kept[1], query[4], kept[4], query[1] / query[4], query[0] / query[4]);
    System.out.printf(Locale.ROOT, "| the same query with `%s` (no filter: the floor) | %.2f s | | | |%n", strings ? "length(id) > 0" : "id >= 0", query[3]);
    af.close();
    spark.stop();
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }

  /** A UDF calling Spark's own test on a broadcast filter, as a Spark user would write it. */
  private static UserDefinedFunction sparkMightContain(Broadcast<BloomFilter> b, boolean strings) {
    return strings
        ? functions.udf(
            (UDF1<String, Boolean>) x -> b.value().mightContainString(x), DataTypes.BooleanType)
        : functions.udf(
            (UDF1<Long, Boolean>) x -> b.value().mightContainLong(x), DataTypes.BooleanType);
  }

    private static void uncapped(SparkSession spark, boolean raise) {
    String items = "spark.sql.optimizer.runtime.bloomFilter.maxNumItems";
    String bits = "spark.sql.optimizer.runtime.bloomFilter.maxNumBits";
    if (raise) {
      spark.conf().set(items, Long.toString(1L << 40));
      spark.conf().set(bits, Long.toString(1L << 40));
    } else {
      spark.conf().unset(items);
      spark.conf().unset(bits);
    }
  }

  /** Spark's k: BloomFilterImpl keeps it in a private field, shown nowhere else. */
  private static int sparkK(BloomFilter f) {
    try {
      java.lang.reflect.Field k = f.getClass().getDeclaredField("numHashFunctions");
      k.setAccessible(true);
      return k.getInt(f);
    } catch (ReflectiveOperationException e) {
      return -1;
    }
  }
}
