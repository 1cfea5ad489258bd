package io.abloom;

/**
 * Where a key's k bits go inside its 64-byte (512-bit) block: the in-block layout of the {@link
 * BloomFilter.Kind#BLOCKED blocked} kind ({@link BloomFilter.Builder#layout}, reported by {@link
 * BloomFilter#layout()} and {@link BloomFilter.Plan#layout()}).
 *
 * <p>Every layout is exact to its sizing model, so a filter sized for an fpp gives that fpp. A
 * serialized filter or file records its layout: {@link BloomFilter#open}, {@link
 * BloomFilter#fromByteArray}, {@link BloomFilter#readFrom} and {@link BloomFilter#wrap} need no
 * option to read any of them. The layout is part of a filter's shape: filters of different
 * layouts never combine ({@link BloomFilter#isCompatible}).
 *
 * <p>Without {@link BloomFilter.Builder#layout} the library chooses: {@link #SPLIT} for a blocked
 * filter wherever its k is enough (an explicit {@link BloomFilter.Builder#hashFunctions k} up to
 * 16, or a target fpp whose best k for {@link #DISTINCT} is at most 16: targets down to about
 * 1e-6; with explicit bits and k left to sizing, the best distinct k at those bits per key
 * decides), {@link #DISTINCT} otherwise (the classic kind, an explicit k above 16, and lower
 * targets such as 1e-7 and below, where split's capped k would cost 3-14% more bits). {@link
 * BloomFilter.Plan#layout()} and {@link BloomFilter#layout()} say which one a filter got; ask for
 * one explicitly when it matters (for example to rebuild a file written with another). The
 * library never chooses {@link #HALF}: ask for it.
 *
 * <pre>{@code
 * try (BloomFilter f = BloomFilter.builder()
 *     .expectedInsertions(1_000_000)
 *     .fpp(0.01)
 *     .layout(Layout.DISTINCT)   // ~2% fewer bits at 1%, slower adds than the default SPLIT
 *     .build()) { ... }
 * }</pre>
 */
public enum Layout {
  /**
   * k distinct bits anywhere in the 512-bit block (format layout id 1). The fewest bits for a
   * target fpp, and any k up to 64. The only layout of the {@link BloomFilter.Kind#CLASSIC
   * classic} kind, and the blocked kind's default where {@link #SPLIT}'s k is not enough (an
   * explicit k above 16, targets below about 1e-6).
   */
  DISTINCT(1, 64),
  /**
   * One bit in each of k consecutive 32-bit words of the block (k at most 16): a key's bits are
   * one vector shift with no check for repeated positions, so adds run faster (1.5-1.9x in
   * cache, 1.2-1.35x out of it for bulk and exclusive adds) and tests about the same. Needs a few
   * percent more bits for the same fpp (2.3% at an fpp of 1%, 1.6% at 0.1%); sizing then picks k
   * within 1..16. Blocked kind only (format layout id 2); its default wherever k up to 16 is
   * enough (explicit k up to 16, targets down to about 1e-6).
   */
  SPLIT(2, 16),
  /**
   * One bit in each of the 8 32-bit words of one 32-byte half of the block, so k is always 8
   * (format layout id 3): the fewest instructions per key of any layout, for the fastest adds and
   * tests in cache, at about 4% more bits than {@link #SPLIT} for the same fpp at 1% and 7% at
   * 0.1%. Blocked kind only, and never the default: ask for it. With it, {@link
   * BloomFilter.Builder#hashFunctions} must be left to sizing (which takes 8) or be 8.
   */
  HALF(3, 8);

  /**
   * The only k of {@link #HALF} (the C library's ABLOOM_HALF_K): one bit in each 32-bit word of
   * half a block.
   */
  static final int HALF_K = 8;

  private final int code;
  private final int maxHashFunctions;

  Layout(int code, int maxHashFunctions) {
    this.code = code;
    this.maxHashFunctions = maxHashFunctions;
  }

  /**
   * The largest number of probes per key (k) this layout allows ({@link
   * BloomFilter.Builder#hashFunctions}).
   *
   * @return 64 for {@link #DISTINCT}, 16 for {@link #SPLIT}, 8 for {@link #HALF} (its only k)
   */
  public int maxHashFunctions() {
    return maxHashFunctions;
  }

  /**
   * Whether filters of {@code kind} can use this layout.
   *
   * @param kind a filter kind
   * @return true for {@link #DISTINCT} with either kind, and for {@link #SPLIT} and {@link
   *     #HALF} with {@link BloomFilter.Kind#BLOCKED}
   */
  public boolean supports(BloomFilter.Kind kind) {
    return this == DISTINCT || kind == BloomFilter.Kind.BLOCKED;
  }

  /** The ABLOOM_LAYOUT_* value. */
  int code() {
    return code;
  }

  /**
   * The layout of an ABLOOM_LAYOUT_* value the library reported (never the default, 0). An id
   * this binding does not know (a newer native library's) throws rather than being read as some
   * other layout, whose bits would give wrong answers.
   */
  static Layout of(long code) {
    for (Layout l : values()) {
      if (l.code == code) {
        return l;
      }
    }
    throw new IllegalStateException("abloom: layout id " + code + " is unknown to this binding");
  }

  /**
   * Throws the binding's exception for invalid options if {@code kind}, this layout and {@code k}
   * (0: not given) do not go together.
   */
  void check(BloomFilter.Kind kind, int k, String what) {
    if (!supports(kind)) {
      throw new IllegalArgumentException(
          "abloom: "
              + what
              + ": Layout."
              + this
              + " needs Kind.BLOCKED, got Kind."
              + kind
              + " (whose only layout is Layout.DISTINCT)");
    }
    if (this == HALF && k != 0 && k != HALF_K) {
      throw new IllegalArgumentException(
          "abloom: "
              + what
              + ": Layout.HALF always has "
              + HALF_K
              + " hash functions (one bit in each 32-bit word of half the block), got "
              + k);
    }
    if (k > maxHashFunctions) {
      throw new IllegalArgumentException(
          "abloom: "
              + what
              + ": Layout."
              + this
              + " allows at most "
              + maxHashFunctions
              + " hash functions (one bit per 32-bit word of the block), got "
              + k);
    }
  }

  /** {@link BloomFilter#modelFpp(BloomFilter.Kind, Layout, double, int)} for this layout. */
  double modelFpp(BloomFilter.Kind kind, double bitsPerKey, int hashFunctions) {
    if (!(bitsPerKey > 0.0 && bitsPerKey < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException(
          "abloom: modelFpp: bitsPerKey must be > 0 and finite, got " + bitsPerKey);
    }
    if (hashFunctions < 1 || hashFunctions > 64) {
      throw new IllegalArgumentException(
          "abloom: modelFpp: hashFunctions must be in 1..64, got " + hashFunctions);
    }
    check(kind, hashFunctions, "modelFpp");
    long[] out = new long[1];
    int rc = AbloomNative.jab_layout_model_fpr(kind.code, code(), bitsPerKey, hashFunctions, out);
    if (rc != 0) {
      throw Errors.unchecked(rc, "abloom_layout_model_fpr");
    }
    return Double.longBitsToDouble(out[0]);
  }
}
