package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.AbloomError;
import io.abloom.AbloomStaleException;
import io.abloom.BloomFilter;
import io.abloom.BloomFilter.OpenMode;
import io.abloom.Layout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SQL function over a saved filter answers as the Java API does, for every key type and every
 * layout (the long keys' filter has the layout the library chooses, split; the string keys' one
 * asks for distinct; a third asks for half), and pre-filters a semi-join without changing its
 * result.
 */
class QueryTest {

  private static final SparkSession SPARK = TestSpark.spark();
  private static final int KEYS = 20_000;
  private static Path dir;
  private static Path longs;
  private static Path strings;

  @BeforeAll
  static void saveFilters() throws IOException {
    dir = TestSpark.tempDirUntilExit("query");
    longs = dir.resolve("query-longs.abloom");
    strings = dir.resolve("query-strings.abloom");
    // Small filters (high fpp) so that many absent keys test true too: the answers compared
    // below are then a real mix of true and false.
    try (BloomFilter f = Shape.of(KEYS, 0.2).withSeed(3).create()) {
      assertEquals(Layout.SPLIT, f.layout(), "the library's choice");
      for (long i = 0; i < KEYS; i++) {
        f.put(i * 7);
      }
      AbloomSpark.save(SPARK, f, longs.toString());
    }
    try (BloomFilter f = Shape.of(KEYS, 0.2).withSeed(3).withLayout(Layout.DISTINCT).create()) {
      assertEquals(Layout.DISTINCT, f.layout());
      for (int i = 0; i < KEYS; i++) {
        f.put("k" + i);
        f.put(new byte[] {(byte) i, (byte) (i >> 8), 0x7f});
      }
      AbloomSpark.save(SPARK, f, strings.toString());
    }
    AbloomSpark.register(SPARK, "in_longs", longs.toString());
    AbloomSpark.register(SPARK, "in_strings", strings.toString());
  }

  @Test
  void sqlAnswersAreTheJavaApisForLongAndIntKeys() throws IOException {
    SPARK.range(0, 3 * 7 * KEYS, 1, 4).createOrReplaceTempView("ids");
    List<Row> rows =
        SPARK
            .sql("SELECT id, in_longs(id), in_longs(CAST(id AS INT)) FROM ids")
            .collectAsList();
    assertEquals(3 * 7 * KEYS, rows.size());
    int trues = 0;
    try (BloomFilter f = BloomFilter.open(longs)) {
      for (Row r : rows) {
        boolean want = f.mightContain(r.getLong(0));
        assertEquals(want, r.getBoolean(1), "key " + r.getLong(0));
        assertEquals(want, r.getBoolean(2), "int key " + r.getLong(0));
        trues += want ? 1 : 0;
      }
    }
    assertTrue(trues >= KEYS && trues < rows.size() / 2, "trues " + trues);
  }

  /**
   * A half filter (which the library never chooses): the SQL function's per-row test in Java and
   * the batched filter keep exactly the rows the engine's batch test keeps.
   */
  @Test
  void sqlAnswersAreTheEnginesOverAHalfFilter() throws IOException {
    Path half = dir.resolve("query-half.abloom");
    Shape shape = Shape.of(KEYS, 0.2).withSeed(5).withLayout(Layout.HALF);
    try (BloomFilter f = shape.create()) {
      assertEquals(Layout.HALF, f.layout());
      assertEquals(8, f.hashFunctions());
      for (long i = 0; i < KEYS; i++) {
        f.put(i * 7);
      }
      AbloomSpark.save(SPARK, f, half.toString());
    }
    AbloomSpark.register(SPARK, "in_half", half.toString());
    SPARK.range(0, 3 * 7 * KEYS, 1, 4).createOrReplaceTempView("half_ids");
    List<Row> rows = SPARK.sql("SELECT id, in_half(id) FROM half_ids").collectAsList();
    long[] ids = new long[rows.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = rows.get(i).getLong(0);
    }
    int trues = 0;
    try (BloomFilter f = BloomFilter.open(half)) {
      assertEquals(Layout.HALF, f.layout());
      boolean[] want = f.mightContainAll(ids);
      for (int i = 0; i < ids.length; i++) {
        assertEquals(want[i], rows.get(i).getBoolean(1), "key " + ids[i]);
        trues += want[i] ? 1 : 0;
      }
    }
    assertTrue(trues >= KEYS && trues < rows.size() / 2, "trues " + trues);
    Dataset<Row> all = SPARK.range(0, 3 * 7 * KEYS, 1, 4).toDF();
    assertEquals(trues, AbloomSpark.whereMightContain(SPARK, all, "id", half.toString()).count());
  }

  @Test
  void sqlAnswersAreTheJavaApisForStringAndBinaryKeys() throws IOException {
    List<Row> in = new ArrayList<>();
    for (int i = 0; i < 2 * KEYS; i++) {
      in.add(RowFactory.create("k" + i, new byte[] {(byte) i, (byte) (i >> 8), 0x7f}));
    }
    StructType schema =
        new StructType().add("s", DataTypes.StringType).add("b", DataTypes.BinaryType);
    SPARK.createDataFrame(in, schema).createOrReplaceTempView("sb");
    List<Row> rows = SPARK.sql("SELECT s, b, in_strings(s), in_strings(b) FROM sb").collectAsList();
    try (BloomFilter f = BloomFilter.open(strings)) {
      for (Row r : rows) {
        assertEquals(f.mightContain(r.getString(0)), r.getBoolean(2), r.getString(0));
        assertEquals(f.mightContain((byte[]) r.get(1)), r.getBoolean(3), r.getString(0));
      }
    }
    long absentTrue = rows.stream().filter(r -> r.getBoolean(2)).count() - KEYS;
    assertTrue(absentTrue > 0 && absentTrue < KEYS, "absent keys testing true: " + absentTrue);
  }

  @Test
  void theBatchedFilterKeepsTheRowsTheFunctionKeeps() throws IOException {
    // 10,007 rows in 3 partitions: more than two batches of 4096 and a partial one; every 11th
    // key is null (dropped by both).
    Dataset<Row> longRows =
        SPARK
            .range(0, 10_007, 1, 3)
            .selectExpr("IF(id % 11 = 0, NULL, id * 7 + id % 2) AS k", "id AS v", "CAST(id AS STRING) AS s");
    Dataset<Row> viaFunction =
        longRows.where(AbloomSpark.mightContain(SPARK, longs.toString(), functions.col("k")));
    Dataset<Row> viaBatch = AbloomSpark.whereMightContain(SPARK, longRows, "k", longs.toString());
    List<Row> want = viaFunction.orderBy("v").collectAsList();
    assertEquals(want, viaBatch.orderBy("v").collectAsList());
    assertTrue(want.size() > 1000 && want.size() < 9000, "rows kept: " + want.size());

    Dataset<Row> stringRows =
        SPARK.range(0, 9000, 1, 2).selectExpr("IF(id % 13 = 0, NULL, CONCAT('k', id)) AS key", "id");
    List<Row> wantS =
        stringRows
            .where(AbloomSpark.mightContain(SPARK, strings.toString(), functions.col("key")))
            .orderBy("id")
            .collectAsList();
    List<Row> gotS =
        AbloomSpark.whereMightContain(SPARK, stringRows, "key", strings.toString())
            .orderBy("id")
            .collectAsList();
    assertEquals(wantS, gotS);
    assertTrue(gotS.size() > 8000, "string rows kept: " + gotS.size());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AbloomSpark.whereMightContain(SPARK, stringRows, "nope", strings.toString()));
    assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
  }

  @Test
  void aNullKeyGivesNull() {
    Row r = SPARK.sql("SELECT in_longs(CAST(NULL AS BIGINT)), in_strings(CAST(NULL AS STRING))").first();
    assertNull(r.get(0));
    assertNull(r.get(1));
  }

  @Test
  void theColumnFunctionPrefiltersASemiJoin() throws IOException {
    // small: 500 keys; big: 400k rows, of which 2000 have a key of small.
    Dataset<Row> small = SPARK.range(0, 500).selectExpr("id * 1000 AS key", "id AS tag");
    Dataset<Row> big = SPARK.range(0, 400_000, 1, 4).selectExpr("id AS key", "id % 13 AS v");
    Path file = dir.resolve("small-keys.abloom");
    try (BloomFilter f = AbloomSpark.build(small, "key", 500, 0.01)) {
      AbloomSpark.save(SPARK, f, file.toString());
    }
    Dataset<Row> pre = big.where(AbloomSpark.mightContain(SPARK, file.toString(), functions.col("key")));
    long kept = pre.count();
    long joined = pre.join(small, "key").count();
    long plain = big.join(small, "key").count();
    assertEquals(plain, joined, "the pre-filter changed the join");
    assertEquals(400, plain);
    // 400 true matches plus about 1% of the other 399,600 rows; a useless filter would keep all.
    assertTrue(kept >= 400 && kept < 400 + 8_000, "rows kept by the pre-filter: " + kept);
  }

  @Test
  void anUnsupportedKeyTypeFailsTheQueryWhenAnalyzed() {
    // Analysis fails (sql() analyzes eagerly): no task runs.
    Exception e = assertThrows(Exception.class, () -> SPARK.sql("SELECT in_longs(1.5D)"));
    assertTrue(causes(e).contains("in_longs: abloom: column '1.5D' has type double"), causes(e));
    Exception c =
        assertThrows(
            Exception.class,
            () -> SPARK.range(3).select(AbloomSpark.mightContain(SPARK, longs.toString(), functions.col("id").cast("timestamp"))));
    assertTrue(causes(c).contains("has type timestamp"), causes(c));
  }

  @Test
  void theWrongNumberOfArgumentsIsAClearError() {
    Exception e = assertThrows(Exception.class, () -> SPARK.sql("SELECT in_longs(1L, 2L)"));
    assertTrue(causes(e).contains("in_longs takes one argument (the key), got 2"), causes(e));
  }

  @Test
  void theColumnFunctionAndTheSqlFunctionAgree() throws IOException {
    Dataset<Row> ids = SPARK.range(0, 7 * KEYS, 3, 3).toDF();
    long viaColumn = ids.where(AbloomSpark.mightContain(SPARK, longs.toString(), functions.col("id"))).count();
    long viaSql = ids.where("in_longs(id)").count();
    assertEquals(viaSql, viaColumn);
    assertTrue(viaColumn > 0);
  }

  @Test
  void aMissingFileIsAClearError() {
    IOException e =
        assertThrows(
            IOException.class,
            () -> AbloomSpark.register(SPARK, "nope", dir.resolve("missing.abloom").toString()));
    assertTrue(e.getMessage().contains("no filter file at"), e.getMessage());
  }

  /**
   * A damaged file is refused by register on the driver, naming the file and the library's
   * reason, before the function exists: a flipped body byte (which the executors' O(1) open would
   * not see: it answers with false negatives), a flipped header byte, a truncated file, and bytes
   * that are no filter at all. Each under a name of its own (Spark ships files by name).
   */
  @Test
  void aDamagedFileIsRefusedOnTheDriver() throws IOException {
    byte[] good = Files.readAllBytes(longs);
    byte[] body = good.clone();
    body[good.length - 7] ^= 0x10;
    byte[] header = good.clone();
    header[40] ^= 0x01; // blocks per shard
    byte[] truncated = java.util.Arrays.copyOf(good, good.length - 64);
    byte[] foreign = "not a filter, just text\n".repeat(10).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Object[][] cases = {
      {"damaged-body.abloom", body, "checksum"},
      {"damaged-header.abloom", header, "checksum"},
      {"truncated.abloom", truncated, "truncated"},
      {"foreign.abloom", foreign, "magic"},
    };
    for (Object[] c : cases) {
      Path file = dir.resolve((String) c[0]);
      Files.write(file, (byte[]) c[1]);
      String function = "bad_" + ((String) c[0]).replaceAll("[^a-z]", "_");
      IOException e =
          assertThrows(IOException.class, () -> AbloomSpark.register(SPARK, function, file.toString()));
      String all = causes(e);
      assertTrue(e.getMessage().contains(file.getFileName().toString()), all);
      assertTrue(e.getMessage().contains("is not a usable filter"), all);
      assertTrue(all.toLowerCase(java.util.Locale.ROOT).contains((String) c[2]), all);
      assertFalse(SPARK.catalog().functionExists(function), function + " must not exist");
    }
    // The good file's copy under a fresh name registers: the check refuses only what is damaged.
    Path copy = dir.resolve("good-copy.abloom");
    Files.write(copy, good);
    AbloomSpark.register(SPARK, "good_copy", copy.toString());
    assertTrue(SPARK.catalog().functionExists("good_copy"));
  }

  /**
   * A stale file (a READ_WRITE writer did not sync it) is refused on the driver with the stale
   * exception itself, naming the file and what to do, not as corruption; once sealed, the same
   * path registers and answers for every key, those the writer added included.
   */
  @Test
  void aStaleFileIsRefusedWithTheStaleExceptionUntilSealed() throws IOException {
    Path source = dir.resolve("stale-source.abloom");
    Files.copy(longs, source);
    Path stale = dir.resolve("stale.abloom");
    try (BloomFilter rw = BloomFilter.open(source, OpenMode.READ_WRITE, false)) {
      rw.put(-1L); // an add the copy below carries unsynced
      Files.copy(source, stale); // the bytes a writer killed now would leave
    }
    AbloomStaleException e =
        assertThrows(
            AbloomStaleException.class, () -> AbloomSpark.register(SPARK, "in_stale", stale.toString()));
    String all = causes(e);
    assertEquals(AbloomError.STALE, e.error());
    assertTrue(e.getMessage().contains(stale.getFileName().toString()), all);
    assertTrue(e.getMessage().contains("is not a usable filter: it is stale"), all);
    assertTrue(e.getMessage().contains("seal"), all);
    assertTrue(e.getCause() instanceof AbloomStaleException, all);
    assertFalse(SPARK.catalog().functionExists("in_stale"));

    BloomFilter.seal(stale);
    AbloomSpark.register(SPARK, "in_stale", stale.toString());
    List<Row> rows =
        SPARK.sql("SELECT in_stale(CAST(-1 AS BIGINT)), in_stale(CAST(7 AS BIGINT))").collectAsList();
    assertEquals(List.of(RowFactory.create(true, true)), rows);
  }

  /**
   * A growing filter (a chain of stages, which the executors' per-row probe does not read) is
   * refused on the driver, naming the file and what to build instead, before the function exists.
   */
  @Test
  void aGrowingFilterIsRefusedOnTheDriver() throws IOException {
    Path file = dir.resolve("growing.abloom");
    try (BloomFilter g = BloomFilter.growing(0.01)) {
      for (long i = 0; i < 5000; i++) {
        g.put(i);
      }
      g.save(file);
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AbloomSpark.register(SPARK, "in_growing", file.toString()));
    assertTrue(e.getMessage().contains(file.getFileName().toString()), e.getMessage());
    assertTrue(e.getMessage().contains("is a growing filter"), e.getMessage());
    assertTrue(e.getMessage().contains("--capacity"), e.getMessage());
    assertFalse(SPARK.catalog().functionExists("in_growing"));
  }

  @Test
  void twoFilesOfOneNameAreRefused() throws IOException {
    Path other = Files.createDirectories(dir.resolve("other"));
    Path same = other.resolve(longs.getFileName().toString());
    Files.copy(longs, same);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AbloomSpark.register(SPARK, "in_other", same.toString()));
    assertTrue(e.getMessage().contains("already shipped"), e.getMessage());
  }

  /** Every message of an exception's cause chain. */
  static String causes(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    return sb.toString();
  }
}
