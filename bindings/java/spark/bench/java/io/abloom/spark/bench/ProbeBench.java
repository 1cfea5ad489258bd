package io.abloom.spark.bench;

import io.abloom.BloomFilter;
import io.abloom.spark.MappedProbe;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The per-row test of the SQL function alone, without Spark around it: ns per key of {@code
 * MappedProbe.mightContain(long)} (Java reads of the mapped file) against the Java binding's
 * {@code BloomFilter.mightContain(long)} (one JNI call per key) on the same file opened by mmap,
 * alternating, best of R. Keys N - Q/2 .. N + Q/2 (Q = min(N, 20M)): half of them in the filter.
 * Each loop only sums the answers, so no key waits for the previous one's.
 *
 * <p>{@code ProbeBench N [REPS]}; run it as bench/run-bench.sh runs SparkBench, with {@code
 * ABLOOM_BENCH_MAIN=io.abloom.spark.bench.ProbeBench}.
 */
public final class ProbeBench {

  private ProbeBench() {}

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    long q = Math.min(n, 20_000_000L);
    Path dir = Files.createTempDirectory("abloom-probe-bench");
    Path file = dir.resolve("probe.abloom");
    try {
      try (BloomFilter f = BloomFilter.create(n, 0.01)) {
        long[] batch = new long[1 << 16];
        for (long i = 0; i < n; i += batch.length) {
          int m = (int) Math.min(batch.length, n - i);
          for (int j = 0; j < m; j++) {
            batch[j] = i + j;
          }
          f.putAll(m == batch.length ? batch : java.util.Arrays.copyOf(batch, m));
        }
        f.save(file);
      }
      try (BloomFilter jni = BloomFilter.open(file)) {
        MappedProbe probe = MappedProbe.of(jni, file);
        double bestProbe = Double.MAX_VALUE;
        double bestJni = Double.MAX_VALUE;
        long first = n - q / 2;
        for (int r = 0; r < reps; r++) {
          long t0 = System.nanoTime();
          long hits = 0;
          for (long i = first; i < first + q; i++) {
            hits += probe.mightContain(i) ? 1 : 0;
          }
          double p = (System.nanoTime() - t0) / (double) q;
          t0 = System.nanoTime();
          long hitsJni = 0;
          for (long i = first; i < first + q; i++) {
            hitsJni += jni.mightContain(i) ? 1 : 0;
          }
          double j = (System.nanoTime() - t0) / (double) q;
          if (hits != hitsJni) {
            throw new IllegalStateException("answers differ: " + hits + " vs " + hitsJni);
          }
          bestProbe = Math.min(bestProbe, p);
          bestJni = Math.min(bestJni, j);
          System.out.printf(
              Locale.ROOT, "  run %d: probe %.1f ns/key, jni %.1f ns/key (%d hits)%n", r + 1, p, j,
              hits);
        }
        System.out.printf(
            Locale.ROOT,
            "| %,d keys | per-row test, Java probe | %.1f ns | JNI call | %.1f ns | %.2fx |%n",
            n, bestProbe, bestJni, bestJni / bestProbe);
      }
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }
}
