package io.abloom;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.abloom.bench.AbloomVsGuava;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The steps between the floor (hash plus one word of a random block) and a BloomFilter's
 * mightContain(long), on one filter of n long keys at 1% (split layout, k = 7) and a pool of
 * 2^20 keys, half present: the hash alone, the binding's {@link Probe} without the close checks,
 * the whole call; then the split test over a {@code long[]} or {@code int[]} copy of the bits in
 * several forms (a loop with an early exit or none, unrolled by k, 64-bit words or 32-bit lanes),
 * which chose Probe's unrolled 32-bit-lane test; and three ways to hash a String key. In package
 * io.abloom to reach the filter's Probe. bench/JOURNAL.md, "Java: the split test unrolled over
 * 32-bit lanes", has the figures.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar -p n=1000000,100000000 ProbeSteps}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "-Xms2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ProbeSteps {
  static final int POOL = 1 << 20;

  @Param({"1000000"})
  public long n;

  BloomFilter filter;
  Probe probe;
  long[] pool;
  String[] strings;
  long[] words;
  long blocks;
  Hasher64 hasher = Hashing.xxh3_64(0);
  int next;

  /** JMH instantiates the benchmark class. */
  public ProbeSteps() {}

  @Setup(Level.Trial)
  public void setup() {
    filter = BloomFilter.create(n, 0.01);
    long[] chunk = new long[1 << 16];
    for (long i = 0; i < n; i += chunk.length) {
      int m = (int) Math.min(chunk.length, n - i);
      for (int j = 0; j < m; j++) {
        chunk[j] = AbloomVsGuava.mix(i + j);
      }
      filter.putAll(m == chunk.length ? chunk : java.util.Arrays.copyOf(chunk, m));
    }
    probe = filter.core.probe(Probe.MAX_CHUNK_SHIFT);
    pool = new long[POOL];
    strings = new String[POOL];
    for (int q = 0; q < POOL; q++) {
      long r = AbloomVsGuava.mix(q + 0x1234567L) >>> 1;
      long index = (q & 1) == 0 ? r % n : n + r % n;
      pool[q] = AbloomVsGuava.mix(index);
      strings[q] = "user:" + index;
    }
    words = new long[Math.toIntExact(filter.bitSize() / 64)];
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < words.length; i++) {
      words[i] = r.nextLong() | r.nextLong();
    }
    blocks = words.length / 8;
  }

  @TearDown(Level.Trial)
  public void close() {
    filter.close();
  }

  @Benchmark
  public boolean floor() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    long block = Math.multiplyHigh(h >>> 1, blocks);
    return (words[(int) (block << 3) + (int) (h & 7)] & (1L << (h >>> 58))) != 0;
  }

  @Benchmark
  public long hashOnly() {
    return probe.hash(pool[next++ & (POOL - 1)]);
  }

  @Benchmark
  public boolean probeTest() {
    return probe.test(probe.hash(pool[next++ & (POOL - 1)]));
  }

  @Benchmark
  public boolean mightContain() {
    return filter.mightContain(pool[next++ & (POOL - 1)]);
  }

  @Benchmark
  public long strCurrent() {
    return probe.hash(strings[next++ & (POOL - 1)]);
  }

  @Benchmark
  public long strAlloc() {
    byte[] b = strings[next++ & (POOL - 1)].getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return hasher.hashBytesToLong(b, 0, b.length);
  }

  static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[256]);

  @Benchmark
  public long strHashBytesOnly() {
    String key = strings[next++ & (POOL - 1)];
    return hasher.hashBytesToLong(SCRATCH.get(), 0, key.length());
  }

  // ---- the split test over a long[] (the same bits as the filter's, set here) ----
  long[] split;
  int k;
  static final int C = 0x9E3779B9;
  static final int[] P = new int[18];

  static {
    int x = 1;
    for (int i = 0; i < P.length; i++) {
      P[i] = x;
      x *= C;
    }
  }

  @Setup(Level.Trial)
  public void setupSplit() {
    k = filter.hashFunctions();
    split = new long[Math.toIntExact(filter.bitSize() / 64)];
    for (long i = 0; i < n; i++) {
      long h = hasher.hashLongToLong(AbloomVsGuava.mix(i));
      int base = blockOf(h);
      int h2 = (int) h | 1;
      int s = (h2 * P[17]) >>> 28;
      for (int j = 0; j < k; j++) {
        int w = (s + j) & 15;
        split[base + (w >>> 1)] |= 1L << (32 * (w & 1) + ((h2 * P[w + 1]) >>> 27));
      }
    }
    setupInts();
  }

  int blockOf(long h) {
    long b = split.length / 8;
    return (int) ((Math.multiplyHigh(h, b) + ((h >> 63) & b)) << 3);
  }

  @Benchmark
  public boolean arrEarlyExit() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    int base = blockOf(h);
    int h2 = (int) h | 1;
    int s = (h2 * P[17]) >>> 28;
    for (int j = 0; j < k; j++) {
      int w = (s + j) & 15;
      long bit = 1L << (32 * (w & 1) + ((h2 * P[w + 1]) >>> 27));
      if ((bit & ~split[base + (w >>> 1)]) != 0) {
        return false;
      }
    }
    return true;
  }

  @Benchmark
  public boolean arrBranchFree() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    int base = blockOf(h);
    int h2 = (int) h | 1;
    int s = (h2 * P[17]) >>> 28;
    long miss = 0;
    for (int j = 0; j < k; j++) {
      int w = (s + j) & 15;
      long bit = 1L << (32 * (w & 1) + ((h2 * P[w + 1]) >>> 27));
      miss |= bit & ~split[base + (w >>> 1)];
    }
    return miss == 0;
  }

  @Benchmark
  public boolean arrOneWord() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    int base = blockOf(h);
    int h2 = (int) h | 1;
    int s = (h2 * P[17]) >>> 28;
    long bit = 1L << (32 * (s & 1) + ((h2 * P[s + 1]) >>> 27));
    return (bit & ~split[base + (s >>> 1)]) == 0;
  }

  private long term(int h2, int sj, int base) {
    int w = sj & 15;
    long bit = 1L << (((w & 1) << 5) + ((h2 * P[w + 1]) >>> 27));
    return bit & ~split[base + (w >>> 1)];
  }

  @Benchmark
  @SuppressWarnings("fallthrough")
  public boolean arrUnrolled() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    int base = blockOf(h);
    int h2 = (int) h | 1;
    int s = (h2 * P[17]) >>> 28;
    long miss = 0;
    switch (k) {
      case 16:
        miss |= term(h2, s + 15, base);
      case 15:
        miss |= term(h2, s + 14, base);
      case 14:
        miss |= term(h2, s + 13, base);
      case 13:
        miss |= term(h2, s + 12, base);
      case 12:
        miss |= term(h2, s + 11, base);
      case 11:
        miss |= term(h2, s + 10, base);
      case 10:
        miss |= term(h2, s + 9, base);
      case 9:
        miss |= term(h2, s + 8, base);
      case 8:
        miss |= term(h2, s + 7, base);
      case 7:
        miss |= term(h2, s + 6, base);
      case 6:
        miss |= term(h2, s + 5, base);
      case 5:
        miss |= term(h2, s + 4, base);
      case 4:
        miss |= term(h2, s + 3, base);
      case 3:
        miss |= term(h2, s + 2, base);
      case 2:
        miss |= term(h2, s + 1, base);
      case 1:
        miss |= term(h2, s + 0, base);
        break;
      default:
        throw new IllegalStateException();
    }
    return miss == 0;
  }

  int[] ints;
  /** M32[i] = C^((i mod 16) + 1), L32[i] = i mod 16: lane i of a key starting at lane s <= 15. */
  static final int[] M32 = new int[32];
  static final int[] L32 = new int[32];

  static {
    for (int i = 0; i < 32; i++) {
      M32[i] = P[(i & 15) + 1];
      L32[i] = i & 15;
    }
  }

  void setupInts() {
    ints = new int[split.length * 2];
    for (int i = 0; i < split.length; i++) {
      ints[2 * i] = (int) split[i];
      ints[2 * i + 1] = (int) (split[i] >>> 32);
    }
  }

  @Benchmark
  @SuppressWarnings("fallthrough")
  public boolean arrInts() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    int base = blockOf(h) * 2;
    int h2 = (int) h | 1;
    int s = (h2 * P[17]) >>> 28;
    int miss = 0;
    switch (k) {
      case 16:
        miss |= (1 << ((h2 * M32[s + 15]) >>> 27)) & ~ints[base + L32[s + 15]];
      case 15:
        miss |= (1 << ((h2 * M32[s + 14]) >>> 27)) & ~ints[base + L32[s + 14]];
      case 14:
        miss |= (1 << ((h2 * M32[s + 13]) >>> 27)) & ~ints[base + L32[s + 13]];
      case 13:
        miss |= (1 << ((h2 * M32[s + 12]) >>> 27)) & ~ints[base + L32[s + 12]];
      case 12:
        miss |= (1 << ((h2 * M32[s + 11]) >>> 27)) & ~ints[base + L32[s + 11]];
      case 11:
        miss |= (1 << ((h2 * M32[s + 10]) >>> 27)) & ~ints[base + L32[s + 10]];
      case 10:
        miss |= (1 << ((h2 * M32[s + 9]) >>> 27)) & ~ints[base + L32[s + 9]];
      case 9:
        miss |= (1 << ((h2 * M32[s + 8]) >>> 27)) & ~ints[base + L32[s + 8]];
      case 8:
        miss |= (1 << ((h2 * M32[s + 7]) >>> 27)) & ~ints[base + L32[s + 7]];
      case 7:
        miss |= (1 << ((h2 * M32[s + 6]) >>> 27)) & ~ints[base + L32[s + 6]];
      case 6:
        miss |= (1 << ((h2 * M32[s + 5]) >>> 27)) & ~ints[base + L32[s + 5]];
      case 5:
        miss |= (1 << ((h2 * M32[s + 4]) >>> 27)) & ~ints[base + L32[s + 4]];
      case 4:
        miss |= (1 << ((h2 * M32[s + 3]) >>> 27)) & ~ints[base + L32[s + 3]];
      case 3:
        miss |= (1 << ((h2 * M32[s + 2]) >>> 27)) & ~ints[base + L32[s + 2]];
      case 2:
        miss |= (1 << ((h2 * M32[s + 1]) >>> 27)) & ~ints[base + L32[s + 1]];
      case 1:
        miss |= (1 << ((h2 * M32[s + 0]) >>> 27)) & ~ints[base + L32[s + 0]];
        break;
      default:
        throw new IllegalStateException();
    }
    return miss == 0;
  }

  @Benchmark
  public boolean arrIntsLoop() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    int base = blockOf(h) * 2;
    int h2 = (int) h | 1;
    int s = (h2 * P[17]) >>> 28;
    int miss = 0;
    for (int j = s; j < s + k; j++) {
      miss |= (1 << ((h2 * M32[j]) >>> 27)) & ~ints[base + L32[j]];
    }
    return miss == 0;
  }

  @Benchmark
  @SuppressWarnings("fallthrough")
  public boolean arrIntsEarly() {
    long h = hasher.hashLongToLong(pool[next++ & (POOL - 1)]);
    int base = blockOf(h) * 2;
    int h2 = (int) h | 1;
    int s = (h2 * P[17]) >>> 28;
    switch (k) {
      case 16:
        if (((1 << ((h2 * M32[s + 15]) >>> 27)) & ~ints[base + L32[s + 15]]) != 0) {
          return false;
        }
      case 15:
        if (((1 << ((h2 * M32[s + 14]) >>> 27)) & ~ints[base + L32[s + 14]]) != 0) {
          return false;
        }
      case 14:
        if (((1 << ((h2 * M32[s + 13]) >>> 27)) & ~ints[base + L32[s + 13]]) != 0) {
          return false;
        }
      case 13:
        if (((1 << ((h2 * M32[s + 12]) >>> 27)) & ~ints[base + L32[s + 12]]) != 0) {
          return false;
        }
      case 12:
        if (((1 << ((h2 * M32[s + 11]) >>> 27)) & ~ints[base + L32[s + 11]]) != 0) {
          return false;
        }
      case 11:
        if (((1 << ((h2 * M32[s + 10]) >>> 27)) & ~ints[base + L32[s + 10]]) != 0) {
          return false;
        }
      case 10:
        if (((1 << ((h2 * M32[s + 9]) >>> 27)) & ~ints[base + L32[s + 9]]) != 0) {
          return false;
        }
      case 9:
        if (((1 << ((h2 * M32[s + 8]) >>> 27)) & ~ints[base + L32[s + 8]]) != 0) {
          return false;
        }
      case 8:
        if (((1 << ((h2 * M32[s + 7]) >>> 27)) & ~ints[base + L32[s + 7]]) != 0) {
          return false;
        }
      case 7:
        if (((1 << ((h2 * M32[s + 6]) >>> 27)) & ~ints[base + L32[s + 6]]) != 0) {
          return false;
        }
      case 6:
        if (((1 << ((h2 * M32[s + 5]) >>> 27)) & ~ints[base + L32[s + 5]]) != 0) {
          return false;
        }
      case 5:
        if (((1 << ((h2 * M32[s + 4]) >>> 27)) & ~ints[base + L32[s + 4]]) != 0) {
          return false;
        }
      case 4:
        if (((1 << ((h2 * M32[s + 3]) >>> 27)) & ~ints[base + L32[s + 3]]) != 0) {
          return false;
        }
      case 3:
        if (((1 << ((h2 * M32[s + 2]) >>> 27)) & ~ints[base + L32[s + 2]]) != 0) {
          return false;
        }
      case 2:
        if (((1 << ((h2 * M32[s + 1]) >>> 27)) & ~ints[base + L32[s + 1]]) != 0) {
          return false;
        }
      case 1:
        if (((1 << ((h2 * M32[s + 0]) >>> 27)) & ~ints[base + L32[s + 0]]) != 0) {
          return false;
        }
        break;
      default:
        throw new IllegalStateException();
    }
    return true;
  }
}
