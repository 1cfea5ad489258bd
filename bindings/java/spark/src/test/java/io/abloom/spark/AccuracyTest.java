package io.abloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;

/**
 * A filter built by Spark at capacity: no false negatives, and a false-positive rate on absent
 * keys within the binomial bound of the 1% asked for (fixed seed and keys: deterministic).
 */
class AccuracyTest {

  private static final int KEYS = 300_000;
  private static final int ABSENT = 1_000_000;
  private static final double FPP = 0.01;

  @Test
  void noFalseNegativesAndTheTargetFprAtCapacity() {
    Dataset<Row> ds =
        TestSpark.spark()
            .range(0, KEYS, 1, 6)
            .select(functions.concat(functions.lit("url:"), functions.col("id")).as("url"));
    try (BloomFilter f = AbloomSpark.build(ds, "url", Shape.of(KEYS, FPP).withSeed(42))) {
      List<byte[]> present = new ArrayList<>(KEYS);
      for (int i = 0; i < KEYS; i++) {
        present.add(("url:" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      boolean[] hits = f.mightContainAll(present);
      int misses = 0;
      for (boolean h : hits) {
        misses += h ? 0 : 1;
      }
      assertEquals(0, misses, "false negatives");

      long positives = 0;
      for (int i = 0; i < ABSENT; i++) {
        positives += f.mightContain("absent:" + i) ? 1 : 0;
      }
      double fpr = (double) positives / ABSENT;
      // The filter is sized for FPP at KEYS keys; over ABSENT independent trials the count is
      // binomial: mean n p, sigma sqrt(n p (1 - p)). 4 sigma above the mean fails by chance with
      // probability 3e-5 (and the keys are fixed, so it is deterministic anyway).
      double bound = ABSENT * FPP + 4 * Math.sqrt(ABSENT * FPP * (1 - FPP));
      assertTrue(positives <= bound, "FPR " + fpr + " above the target " + FPP);
      // A filter with too few bits set would pass the bound trivially: the rate must be near 1%.
      assertTrue(fpr > FPP / 3, "FPR " + fpr + " implausibly low for a filter at capacity");
      assertTrue(f.expectedFpp() <= FPP * 1.05, "model FPP " + f.expectedFpp());
    }
  }
}
