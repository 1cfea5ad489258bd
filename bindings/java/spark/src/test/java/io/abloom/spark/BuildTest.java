package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import io.abloom.Layout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The union of the per-partition filters is the filter one process builds from the same keys:
 * byte for byte, for every key type, across many partitions (so the merge is a real tree), with
 * nulls skipped.
 */
class BuildTest {

  private static final SparkSession SPARK = TestSpark.spark();
  private static final int N = 60_000;
  private static final Shape SHAPE = Shape.of(N, 0.01).withSeed(0x5eed).withShards(4);

  private static StructType schema(org.apache.spark.sql.types.DataType type) {
    return new StructType().add("key", type, true).add("other", DataTypes.IntegerType, false);
  }

  /** Row i's key, or null for every 97th row. */
  private static Object key(int i, String type) {
    if (i % 97 == 0) {
      return null;
    }
    return switch (type) {
      case "long" -> (long) i * 0x9E3779B97F4A7C15L;
      case "int" -> i * 31 - 1_000_000;
      case "string" -> "user:" + i + (i % 5 == 0 ? ":é漢字" : "");
      case "binary" -> ("b" + i).getBytes(StandardCharsets.UTF_8);
      default -> throw new IllegalArgumentException(type);
    };
  }

  private static Dataset<Row> dataset(String type, org.apache.spark.sql.types.DataType dt, int parts) {
    List<Row> rows = new ArrayList<>(N);
    for (int i = 0; i < N; i++) {
      rows.add(RowFactory.create(key(i, type), i));
    }
    return SPARK.createDataFrame(rows, schema(dt)).repartition(parts);
  }

  /** What one process builds: the binding's own calls, one key at a time, nulls left out. */
  private static BloomFilter local(String type, Shape shape) {
    BloomFilter f = shape.create();
    for (int i = 0; i < N; i++) {
      Object k = key(i, type);
      if (k == null) {
        continue;
      }
      switch (type) {
        case "long" -> f.put((long) k);
        case "int" -> f.put((int) k); // widened to put(long), as a Java caller would
        case "string" -> f.put((String) k);
        default -> f.put((byte[]) k);
      }
    }
    return f;
  }

  private static void assertSameFilter(String type, org.apache.spark.sql.types.DataType dt, int parts) {
    assertSameFilter(type, dt, parts, SHAPE);
  }

  private static void assertSameFilter(
      String type, org.apache.spark.sql.types.DataType dt, int parts, Shape shape) {
    try (BloomFilter spark = AbloomSpark.build(dataset(type, dt, parts), "key", shape);
        BloomFilter one = local(type, shape)) {
      assertTrue(spark.isCompatible(one), type);
      assertEquals(one.layout(), spark.layout(), type);
      assertArrayEquals(one.toByteArray(), spark.toByteArray(), type + ": Spark's union differs");
      assertNotEquals(0, one.approximateElementCount());
    }
  }

  @Test
  void longColumnUnionIsTheOneProcessFilter() {
    assertSameFilter("long", DataTypes.LongType, 16);
  }

  @Test
  void stringColumnUnionIsTheOneProcessFilter() {
    assertSameFilter("string", DataTypes.StringType, 16);
  }

  @Test
  void binaryColumnUnionIsTheOneProcessFilter() {
    assertSameFilter("binary", DataTypes.BinaryType, 7);
  }

  @Test
  void intColumnUnionIsTheOneProcessFilter() {
    assertSameFilter("int", DataTypes.IntegerType, 5);
  }

  /**
   * SHAPE leaves the layout to the library, which gives split filters at 1%; both layouts asked
   * for explicitly give the one-process filter too.
   */
  @Test
  void bothLayoutsGiveTheOneProcessFilter() {
    try (BloomFilter f = SHAPE.create()) {
      assertEquals(Layout.SPLIT, f.layout(), "the library's choice at 1%");
    }
    for (Layout layout : Layout.values()) {
      Shape shape = SHAPE.withLayout(layout);
      try (BloomFilter f = shape.create()) {
        assertEquals(layout, f.layout());
      }
      assertSameFilter("string", DataTypes.StringType, 6, shape);
    }
  }

  @Test
  void oneBigPartitionAndManySmallOnesGiveTheSameFilter() {
    try (BloomFilter one = AbloomSpark.build(dataset("long", DataTypes.LongType, 1), "key", SHAPE);
        BloomFilter many =
            AbloomSpark.build(dataset("long", DataTypes.LongType, 40), "key", SHAPE)) {
      assertEquals(one, many);
    }
  }

  @Test
  void theShapeIsTheOneAskedFor() {
    // Low targets leave the library's choice at distinct: the asked-for layout must win both ways.
    for (double fpp : new double[] {0.001, 1e-9}) {
      for (Layout layout : Layout.values()) {
        Shape shape = Shape.of(10_000, fpp).withSeed(7).withShards(2).withLayout(layout);
        try (BloomFilter f =
                AbloomSpark.build(dataset("long", DataTypes.LongType, 3), "key", shape);
            BloomFilter empty = shape.create()) {
          assertTrue(f.isCompatible(empty));
          assertEquals(layout, f.layout(), layout + " at " + fpp);
          assertEquals(2, f.shards());
          assertEquals(7, f.seed());
          assertEquals(10_000, f.expectedInsertions());
          assertEquals(fpp, f.targetFpp());
        }
      }
    }
    // Left to the library: split at 0.1%, distinct at 1e-9.
    for (double fpp : new double[] {0.001, 1e-9}) {
      Shape shape = Shape.of(10_000, fpp).withSeed(7);
      Layout chosen = fpp < 1e-6 ? Layout.DISTINCT : Layout.SPLIT;
      try (BloomFilter f = AbloomSpark.build(dataset("long", DataTypes.LongType, 3), "key", shape);
          BloomFilter pinned = shape.withLayout(chosen).create()) {
        assertEquals(chosen, f.layout(), "the library's choice at " + fpp);
        assertTrue(f.isCompatible(pinned));
      }
    }
  }

  @Test
  void anEmptyOrAllNullColumnGivesAnEmptyFilterOfTheShape() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(RowFactory.create(null, i));
    }
    Dataset<Row> nulls = SPARK.createDataFrame(rows, schema(DataTypes.StringType)).repartition(3);
    try (BloomFilter f = AbloomSpark.build(nulls, "key", SHAPE);
        BloomFilter g = AbloomSpark.build(nulls.limit(0), "key", SHAPE);
        BloomFilter empty = SHAPE.create()) {
      assertEquals(empty, f);
      assertEquals(empty, g);
      assertEquals(0, f.approximateElementCount());
    }
  }

  @Test
  void theDefaultShapeBuildsFromExpectedKeysAndFpp() {
    try (BloomFilter f = AbloomSpark.build(dataset("string", DataTypes.StringType, 4), "key", N, 0.02);
        BloomFilter want = BloomFilter.create(N, 0.02)) {
      assertTrue(f.isCompatible(want));
      assertTrue(f.mightContain("user:1"));
    }
  }
}
