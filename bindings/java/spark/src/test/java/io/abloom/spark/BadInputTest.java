package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** Each bad input is a clear error, raised on the driver before any task runs where possible. */
class BadInputTest {

  private static final SparkSession SPARK = TestSpark.spark();

  private static Dataset<Row> table() {
    return SPARK.range(0, 100).selectExpr("id", "CAST(id AS DOUBLE) AS score", "array(id) AS arr");
  }

  @Test
  void aMissingColumnNamesItAndTheColumnsThereAre() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> AbloomSpark.build(table(), "nope", 100, 0.01));
    assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
    assertTrue(e.getMessage().contains("[id, score, arr]"), e.getMessage());
  }

  @Test
  void anUnsupportedTypeNamesTheTypeAndTheSupportedOnes() {
    for (String[] c : new String[][] {{"score", "double"}, {"arr", "array<bigint>"}}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> AbloomSpark.build(table(), c[0], 100, 0.01));
      assertTrue(e.getMessage().contains("has type " + c[1]), e.getMessage());
      assertTrue(e.getMessage().contains("string, binary, bigint and int"), e.getMessage());
    }
  }

  @Test
  void mismatchedShapesDoNotMerge() {
    try (BloomFilter a = Shape.of(1000, 0.01).create();
        BloomFilter seed = Shape.of(1000, 0.01).withSeed(1).create();
        BloomFilter size = Shape.of(5000, 0.01).create()) {
      for (BloomFilter other : new BloomFilter[] {seed, size}) {
        IllegalArgumentException e =
            assertThrows(
                IllegalArgumentException.class,
                () -> AbloomSpark.union(a.toByteArray(), other.toByteArray()));
        assertTrue(e.getMessage().contains("different shapes"), e.getMessage());
      }
    }
  }

  @Test
  void bytesThatAreNoFilterDoNotMerge() {
    try (BloomFilter a = Shape.of(1000, 0.01).create()) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> AbloomSpark.union(a.toByteArray(), new byte[] {1, 2, 3}));
      assertTrue(e.getMessage().contains("not a serialized filter"), e.getMessage());
    }
  }

  @Test
  void badSizesAreRefusedBeforeAnyTask() {
    assertThrows(IllegalArgumentException.class, () -> AbloomSpark.build(table(), "id", 0, 0.01));
    assertThrows(IllegalArgumentException.class, () -> AbloomSpark.build(table(), "id", 100, 1.5));
    assertThrows(IllegalArgumentException.class, () -> AbloomSpark.build(table(), "id", 100, 0.0));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AbloomSpark.build(table(), "id", Shape.of(100, 0.01).withShards(3)));
    assertTrue(e.getMessage().contains("shards"), e.getMessage());
  }
}
