package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;

/**
 * Writes what the bindings' file-exchange checks read: spark.abloom, built and saved by Spark,
 * and spark.keys.txt, its keys one per line. ci.sh sets abloom.exchange.dir and then has an
 * independent C program (tests/install/deb/file_reader.c, built against the C library) open the
 * file, verify its checksum and find every key. Here the file is checked through the Java
 * binding's mmap open, with the checksum verified.
 */
class ExchangeTest {

  private static final int KEYS = 5000;

  @Test
  void sparkWritesAFileAndItsKeysForOtherLanguages() throws IOException {
    String configured = System.getProperty("abloom.exchange.dir", "");
    Path out = configured.isEmpty() ? TestSpark.tempDir("exchange") : Path.of(configured);
    Files.createDirectories(out);
    try {
      Dataset<Row> ds =
          TestSpark.spark()
              .range(0, KEYS, 1, 3)
              .select(functions.concat(functions.lit("spark:"), functions.col("id")).as("k"));
      Path file = out.resolve("spark.abloom");
      try (BloomFilter f = AbloomSpark.build(ds, "k", KEYS, 0.01)) {
        AbloomSpark.save(TestSpark.spark(), f, file.toString());
      }
      List<String> keys = new ArrayList<>(KEYS);
      for (int i = 0; i < KEYS; i++) {
        keys.add("spark:" + i);
      }
      Files.writeString(out.resolve("spark.keys.txt"), String.join("\n", keys) + "\n", StandardCharsets.UTF_8);
      try (BloomFilter back = BloomFilter.open(file, BloomFilter.OpenMode.READ_ONLY, true)) {
        for (String k : keys) {
          assertTrue(back.mightContain(k), k);
        }
        assertEquals(KEYS, back.expectedInsertions());
      }
    } finally {
      if (configured.isEmpty()) {
        TestSpark.delete(out);
      }
    }
  }
}
