package example;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import io.abloom.BloomFilter;
import io.abloom.spark.AbloomSpark;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A first abloom job (bindings/java/spark/README.md, "Run it"): build a filter over a column of a
 * generated Dataset, save it as one abloom file, register it as a SQL function and query it.
 *
 * <pre>spark-submit --master local[2] --jars abloom-0.1.0.jar,abloom-spark-0.1.0.jar \
 *     --class example.BuildAndQuery examples.jar /tmp/users.abloom</pre>
 *
 * Exits with status 1 if a user added is not found, or if the false positives among users never
 * added are far from the 1% asked for.
 */
public final class BuildAndQuery {
  private BuildAndQuery() {}

  public static void main(String[] args) throws Exception {
    String path = args.length > 0 ? args[0] : "/tmp/users.abloom";
    long users = 100_000;
    SparkSession spark = SparkSession.builder().appName("abloom example").getOrCreate();
    try {
      // 1. Some data: user ids "user:0" .. "user:99999", in 4 partitions.
      Dataset<Row> ds =
          spark.range(0, users, 1, 4).select(concat(lit("user:"), col("id")).as("user_id"));
      // 2. Build one filter over the column (one per partition, merged) and save it.
      try (BloomFilter f = AbloomSpark.build(ds, "user_id", users, 0.01)) {
        AbloomSpark.save(spark, f, path);
        System.out.println("built " + f + " and saved it to " + path);
      }
      // 3. Query it in SQL: every user added is found; about 1% of others are false positives.
      AbloomSpark.register(spark, "known_user", path);
      ds.createOrReplaceTempView("users");
      spark.range(users, 2 * users).selectExpr("concat('user:', id) AS user_id")
          .createOrReplaceTempView("others");
      long found =
          spark.sql("SELECT count(*) FROM users WHERE known_user(user_id)").first().getLong(0);
      long falsePositives =
          spark.sql("SELECT count(*) FROM others WHERE known_user(user_id)").first().getLong(0);
      System.out.printf(
          "found %d of %d users; %d false positives in %d others (%.2f%%)%n",
          found, users, falsePositives, users, 100.0 * falsePositives / users);
      // 1% of 100000 is 1000; a binomial deviation is about 31, so 800..1200 is over 6 of them.
      if (found != users || falsePositives < 800 || falsePositives > 1200) {
        System.err.println("unexpected answers");
        System.exit(1);
      }
    } finally {
      spark.stop();
    }
  }
}
