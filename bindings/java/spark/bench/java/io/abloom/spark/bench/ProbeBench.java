package io.abloom.spark.bench;

import io.abloom.BloomFilter;
import io.abloom.spark.MappedProbe;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The per-row test of the SQL function alone, without Spark around it: ns per key of {@code
 * MappedProbe.mightContain(long)} (the binding's {@code io.abloom.Probe} over the module's own
 * mapping of the file), of the binding's {@code BloomFilter.mightContain(long)} (the same probe in
 * Java over the engine's mapping, with its close checks) and of the engine's batch call ({@code
 * mightContainAll(long[])}, 65536 keys per JNI call: the C kernels' rate, the reference), on the
 * same file, alternating, best of R. Keys N - Q/2 .. N + Q/2 (Q = min(N, 20M)): half of them in
 * the filter. Each loop only sums the answers, so no key waits for the previous one's.
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
        double bestBatch = Double.MAX_VALUE;
        long first = n - q / 2;
        long[] keys = new long[1 << 16];
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
          t0 = System.nanoTime();
          long hitsBatch = 0;
          for (long i = first; i < first + q; i += keys.length) {
            int m = (int) Math.min(keys.length, first + q - i);
            for (int x = 0; x < m; x++) {
              keys[x] = i + x;
            }
            for (boolean b : jni.mightContainAll(m == keys.length ? keys : Arrays.copyOf(keys, m))) {
              hitsBatch += b ? 1 : 0;
            }
          }
          double b = (System.nanoTime() - t0) / (double) q;
          if (hits != hitsJni || hits != hitsBatch) {
            throw new IllegalStateException(
                "answers differ: " + hits + " vs " + hitsJni + " vs " + hitsBatch);
          }
          bestProbe = Math.min(bestProbe, p);
          bestJni = Math.min(bestJni, j);
          bestBatch = Math.min(bestBatch, b);
          System.out.printf(
              Locale.ROOT,
              "  run %d: MappedProbe %.1f ns/key, BloomFilter.mightContain %.1f, batch %.1f"
                  + " (%d hits)%n",
              r + 1, p, j, b, hits);
        }
        System.out.printf(
            Locale.ROOT,
            "| %,d keys | MappedProbe | %.1f ns | BloomFilter.mightContain | %.1f ns | engine batch"
                + " | %.1f ns |%n",
            n, bestProbe, bestJni, bestBatch);
      }
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }
}
