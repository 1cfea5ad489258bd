package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * One filter per group ({@link AbloomSpark#aggregate}): each group's filter is byte for byte the
 * filter one process builds from the group's keys, for every key type, across partitions (so
 * buffers are serialized between stages and merged), with nulls skipped; the SQL form answers the
 * same; bad key types are refused on the driver.
 */
class AggregateTest {

  private static final SparkSession SPARK = TestSpark.spark();
  private static final int N = 30_000;
  private static final int GROUPS = 5;
  private static final Shape SHAPE = Shape.of(N / GROUPS, 0.01).withSeed(77).withShards(2);

  /** Row i's key, or null for every 53rd row; group 4 has only nulls. */
  private static Object key(int i, String type) {
    if (i % 53 == 0 || group(i) == 4) {
      return null;
    }
    return switch (type) {
      case "long" -> (long) i * 0x9E3779B97F4A7C15L;
      case "int" -> i * 7 - 50_000;
      case "string" -> "k" + i + (i % 3 == 0 ? "é漢" : "");
      case "binary" -> ("b" + i).getBytes(StandardCharsets.UTF_8);
      default -> throw new IllegalArgumentException(type);
    };
  }

  private static int group(int i) {
    return i % GROUPS;
  }

  private static Dataset<Row> dataset(String type, DataType dt) {
    List<Row> rows = new ArrayList<>(N);
    for (int i = 0; i < N; i++) {
      rows.add(RowFactory.create("g" + group(i), key(i, type)));
    }
    StructType schema = new StructType().add("g", DataTypes.StringType).add("key", dt, true);
    return SPARK.createDataFrame(rows, schema).repartition(6); // rows of a group in every partition
  }

  /** Each group's filter as one process builds it: the binding's calls, one key at a time. */
  private static Map<String, byte[]> local(String type) {
    Map<String, BloomFilter> filters = new HashMap<>();
    for (int g = 0; g < GROUPS; g++) {
      filters.put("g" + g, SHAPE.create());
    }
    for (int i = 0; i < N; i++) {
      Object k = key(i, type);
      BloomFilter f = filters.get("g" + group(i));
      if (k instanceof Long l) {
        f.put((long) l);
      } else if (k instanceof Integer n) {
        f.put((long) n);
      } else if (k instanceof String s) {
        f.put(s);
      } else if (k instanceof byte[] b) {
        f.put(b);
      }
    }
    Map<String, byte[]> out = new HashMap<>();
    filters.forEach(
        (g, f) -> {
          out.put(g, f.toByteArray());
          f.close();
        });
    return out;
  }

  private static void check(String type, DataType dt) {
    UserDefinedFunction agg = AbloomSpark.aggregate(SHAPE, dt);
    List<Row> rows =
        dataset(type, dt).groupBy("g").agg(agg.apply(functions.col("key")).as("f")).collectAsList();
    Map<String, byte[]> want = local(type);
    assertEquals(GROUPS, rows.size());
    for (Row r : rows) {
      String g = r.getString(0);
      byte[] got = (byte[]) r.get(1);
      assertArrayEquals(want.get(g), got, type + " keys, group " + g);
      try (BloomFilter f = BloomFilter.fromByteArray(got)) {
        long added = f.approximateElementCount();
        if (g.equals("g4")) {
          assertEquals(0, added, "a group of only nulls gives the empty filter"); // every key null
        } else {
          assertTrue(added > N / GROUPS / 2, "group " + g + ": " + added);
        }
      } catch (java.io.IOException e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void eachGroupIsTheOneProcessFilterForLongKeys() {
    check("long", DataTypes.LongType);
  }

  @Test
  void eachGroupIsTheOneProcessFilterForIntKeys() {
    check("int", DataTypes.IntegerType);
  }

  @Test
  void eachGroupIsTheOneProcessFilterForStringKeys() {
    check("string", DataTypes.StringType);
  }

  @Test
  void eachGroupIsTheOneProcessFilterForBinaryKeys() {
    check("binary", DataTypes.BinaryType);
  }

  @Test
  void theSqlFormGivesTheSameFilters() {
    AbloomSpark.registerAggregate(SPARK, "abloom_agg_test", SHAPE, DataTypes.StringType);
    dataset("string", DataTypes.StringType).createOrReplaceTempView("agg_strings");
    List<Row> rows =
        SPARK.sql("SELECT g, abloom_agg_test(key) FROM agg_strings GROUP BY g").collectAsList();
    Map<String, byte[]> want = local("string");
    assertEquals(GROUPS, rows.size());
    for (Row r : rows) {
      assertArrayEquals(want.get(r.getString(0)), (byte[]) r.get(1), "group " + r.getString(0));
    }
  }

  @Test
  void unsupportedKeyTypesAndShapesAreRefusedOnTheDriver() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AbloomSpark.aggregate(SHAPE, DataTypes.DoubleType));
    assertTrue(e.getMessage().contains("double"), e.getMessage());
    Shape threeShards = Shape.of(1000, 0.01).withShards(3); // a Shape, but no filter's
    assertThrows(
        IllegalArgumentException.class,
        () -> AbloomSpark.aggregate(threeShards, DataTypes.LongType));
  }
}
