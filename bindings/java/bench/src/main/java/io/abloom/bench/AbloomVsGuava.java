package io.abloom.bench;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import com.google.common.hash.Funnels;
import io.abloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * abloom's BloomFilter against Guava's on the same keys: {@code n} 16-byte keys inserted (key i
 * is derived from i by splitmix64), both filters sized for n at 1% (abloom's in the layout the
 * library chooses, split at 1%), then queried with a pool of 2^20 keys, half inserted and half
 * not, picked at random positions (so a large filter really misses the cache). Times are per key: the batch benchmarks test {@link #BATCH} keys per
 * invocation (abloom: one {@code mightContainAll} call; Guava: a loop, its only way).
 *
 * <p>Run: {@code bash bindings/java/bench/run-bench.sh} (1M and 100M) or {@code --quick} (1M).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "-Xms2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AbloomVsGuava {
  /** Keys per batch call. */
  public static final int BATCH = 1024;

  static final int POOL = 1 << 20;
  static final int KEY = 16;

  /** JMH instantiates the benchmark class. */
  public AbloomVsGuava() {}

  /** splitmix64. */
  public static long mix(long z) {
    z += 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Writes key i (16 bytes) at out[at ..]. */
  static void key(long i, byte[] out, int at) {
    long a = mix(i);
    long b = mix(i ^ 0x5DEECE66DL);
    for (int j = 0; j < 8; j++) {
      out[at + j] = (byte) (a >>> (8 * j));
      out[at + 8 + j] = (byte) (b >>> (8 * j));
    }
  }

  /** String key i, as a service's might be. */
  static String stringKey(long i) {
    return "user:" + i;
  }

  /** The query pool, shared by both sides: the same keys in the same order. */
  @State(Scope.Benchmark)
  public static class Pool {
    /** Inserted keys (the 100M case needs -Xmx of about 2 GiB for Guava plus the pool). */
    @Param({"1000000"})
    public long n;

    byte[][] keys; // for single calls
    String[] strings; // the same picks as String keys: "user:" + index
    long[] longs; // and as long keys: mix(index)
    byte[][] batches; // POOL / BATCH packed batches of BATCH keys
    long[] offsets; // 0, 16, 32, ... (the same for every batch)
    int next;
    int nextBatch;

    @Setup(Level.Trial)
    public void setup() {
      keys = new byte[POOL][];
      strings = new String[POOL];
      longs = new long[POOL];
      batches = new byte[POOL / BATCH][BATCH * KEY];
      for (int q = 0; q < POOL; q++) {
        long r = mix(q + 0x1234567L) >>> 1;
        long index = (q & 1) == 0 ? r % n : n + r % n; // even: inserted; odd: never inserted
        byte[] k = new byte[KEY];
        key(index, k, 0);
        keys[q] = k;
        strings[q] = stringKey(index);
        longs[q] = mix(index);
        System.arraycopy(k, 0, batches[q / BATCH], (q % BATCH) * KEY, KEY);
      }
      offsets = new long[BATCH + 1];
      for (int j = 0; j <= BATCH; j++) {
        offsets[j] = (long) j * KEY;
      }
    }
  }

  /** An abloom filter (blocked, 1%) holding keys 0 .. n-1. */
  @State(Scope.Benchmark)
  public static class Abloom {
    BloomFilter filter;
    boolean[] results = new boolean[BATCH];

    @Setup(Level.Trial)
    public void setup(Pool pool) {
      filter = BloomFilter.create(pool.n, 0.01);
      int chunk = 1 << 16;
      byte[] buf = new byte[chunk * KEY];
      long[] offs = new long[chunk + 1];
      for (int j = 0; j <= chunk; j++) {
        offs[j] = (long) j * KEY;
      }
      for (long i = 0; i < pool.n; i += chunk) {
        int m = (int) Math.min(chunk, pool.n - i);
        for (int j = 0; j < m; j++) {
          key(i + j, buf, j * KEY);
        }
        filter.putAll(buf, m == chunk ? offs : java.util.Arrays.copyOf(offs, m + 1));
      }
    }

    @TearDown(Level.Trial)
    public void close() {
      filter.close();
    }
  }

  /** Guava's filter (byte-array funnel, 1%) holding the same keys. */
  @State(Scope.Benchmark)
  public static class Guava {
    com.google.common.hash.BloomFilter<byte[]> filter;

    @Setup(Level.Trial)
    public void setup(Pool pool) {
      filter = com.google.common.hash.BloomFilter.create(Funnels.byteArrayFunnel(), pool.n, 0.01);
      byte[] k = new byte[KEY];
      for (long i = 0; i < pool.n; i++) {
        key(i, k, 0);
        filter.put(k);
      }
    }
  }

  /** abloom filters (1%) holding String keys 0 .. n-1 and long keys 0 .. n-1 (each its own). */
  @State(Scope.Benchmark)
  public static class AbloomTyped {
    BloomFilter strings;
    BloomFilter longs;

    @Setup(Level.Trial)
    public void setup(Pool pool) {
      strings = BloomFilter.create(pool.n, 0.01);
      longs = BloomFilter.create(pool.n, 0.01);
      int chunk = 1 << 16;
      long[] ls = new long[chunk];
      byte[] buf = new byte[chunk * 32];
      long[] offs = new long[chunk + 1];
      for (long i = 0; i < pool.n; i += chunk) {
        int m = (int) Math.min(chunk, pool.n - i);
        int at = 0;
        for (int j = 0; j < m; j++) {
          byte[] k = stringKey(i + j).getBytes(StandardCharsets.UTF_8);
          System.arraycopy(k, 0, buf, at, k.length);
          at += k.length;
          offs[j + 1] = at;
          ls[j] = mix(i + j);
        }
        strings.putAll(buf, java.util.Arrays.copyOf(offs, m + 1));
        longs.putAll(java.util.Arrays.copyOf(ls, m));
      }
    }

    @TearDown(Level.Trial)
    public void close() {
      strings.close();
      longs.close();
    }
  }

  /** Guava's filters (1%; UTF-8 string funnel, long funnel) holding the same keys. */
  @State(Scope.Benchmark)
  public static class GuavaTyped {
    com.google.common.hash.BloomFilter<CharSequence> strings;
    com.google.common.hash.BloomFilter<Long> longs;

    @Setup(Level.Trial)
    public void setup(Pool pool) {
      strings =
          com.google.common.hash.BloomFilter.create(
              Funnels.stringFunnel(StandardCharsets.UTF_8), pool.n, 0.01);
      longs = com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), pool.n, 0.01);
      for (long i = 0; i < pool.n; i++) {
        strings.put(stringKey(i));
        longs.put(mix(i));
      }
    }
  }

  /**
   * The floor of a single-key test: what any filter with one hash and one cache line per key
   * must spend at least. The key's XXH3-64 (hash4j, as abloom's), then one 64-bit word of a
   * random 64-byte block of a {@code long[]} as large as abloom's filter, and one bit of it:
   * no shard, no k probes, no close checks. abloom's time against it is its overhead; Guava's
   * against it bounds the ratio any such filter can reach on this machine.
   */
  @State(Scope.Benchmark)
  public static class Floor {
    long[] words;
    long blocks;
    Hasher64 hasher = Hashing.xxh3_64(0);

    @Setup(Level.Trial)
    public void setup(Abloom a) {
      words = new long[Math.toIntExact(a.filter.bitSize() / 64)];
      SplittableRandom r = new SplittableRandom(7);
      for (int i = 0; i < words.length; i++) {
        words[i] = r.nextLong() | r.nextLong(); // 3/4 of the bits set: mostly "present"
      }
      blocks = words.length / 8;
    }

    boolean test(long h) {
      long block = Math.multiplyHigh(h >>> 1, blocks); // h >>> 1 < 2^63: a signed multiply-high
      return (words[(int) (block << 3) + (int) (h & 7)] & (1L << (h >>> 58))) != 0;
    }
  }

  // ---- single mightContain ----

  /** The floor (see {@link Floor}) for one 16-byte key. */
  @Benchmark
  public boolean floorMightContain(Pool pool, Floor f) {
    byte[] k = pool.keys[pool.next++ & (POOL - 1)];
    return f.test(f.hasher.hashBytesToLong(k, 0, k.length));
  }

  /** The floor (see {@link Floor}) for one long key. */
  @Benchmark
  public boolean floorMightContainLong(Pool pool, Floor f) {
    return f.test(f.hasher.hashLongToLong(pool.longs[pool.next++ & (POOL - 1)]));
  }

  /** abloom: one String key per call (its UTF-8 bytes). */
  @Benchmark
  public boolean abloomMightContainString(Pool pool, AbloomTyped a) {
    return a.strings.mightContain(pool.strings[pool.next++ & (POOL - 1)]);
  }

  /** Guava: one String key per call (UTF-8 funnel). */
  @Benchmark
  public boolean guavaMightContainString(Pool pool, GuavaTyped g) {
    return g.strings.mightContain(pool.strings[pool.next++ & (POOL - 1)]);
  }

  /** abloom: one long key per call. */
  @Benchmark
  public boolean abloomMightContainLong(Pool pool, AbloomTyped a) {
    return a.longs.mightContain(pool.longs[pool.next++ & (POOL - 1)]);
  }

  /** Guava: one long key per call (long funnel; boxed, as its API takes it). */
  @Benchmark
  public boolean guavaMightContainLong(Pool pool, GuavaTyped g) {
    return g.longs.mightContain(pool.longs[pool.next++ & (POOL - 1)]);
  }

  /** abloom: one key per call. */
  @Benchmark
  public boolean abloomMightContain(Pool pool, Abloom a) {
    return a.filter.mightContain(pool.keys[pool.next++ & (POOL - 1)]);
  }

  /** Guava: one key per call. */
  @Benchmark
  public boolean guavaMightContain(Pool pool, Guava g) {
    return g.filter.mightContain(pool.keys[pool.next++ & (POOL - 1)]);
  }

  // ---- batches: time per key ----

  /** abloom: BATCH keys in one mightContainAll call. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long abloomMightContainBatch(Pool pool, Abloom a) {
    byte[] batch = pool.batches[pool.nextBatch++ & (POOL / BATCH - 1)];
    return a.filter.mightContainAll(batch, pool.offsets, a.results);
  }

  /** Guava: the same BATCH keys, one mightContain each. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long guavaMightContainBatch(Pool pool, Guava g) {
    int b = pool.nextBatch++ & (POOL / BATCH - 1);
    long found = 0;
    for (int j = 0; j < BATCH; j++) {
      found += g.filter.mightContain(pool.keys[b * BATCH + j]) ? 1 : 0;
    }
    return found;
  }

  // ---- adds (for information; the pool's keys are half new the first time round) ----

  /** abloom: one put per call. */
  @Benchmark
  public boolean abloomPut(Pool pool, Abloom a) {
    return a.filter.put(pool.keys[pool.next++ & (POOL - 1)]);
  }

  /** Guava: one put per call. */
  @Benchmark
  public boolean guavaPut(Pool pool, Guava g) {
    return g.filter.put(pool.keys[pool.next++ & (POOL - 1)]);
  }

  /** abloom: BATCH keys in one putAll call. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long abloomPutBatch(Pool pool, Abloom a) {
    byte[] batch = pool.batches[pool.nextBatch++ & (POOL / BATCH - 1)];
    return a.filter.putAll(batch, pool.offsets);
  }
}
