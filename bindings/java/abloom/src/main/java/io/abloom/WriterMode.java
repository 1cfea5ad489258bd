package io.abloom;

/**
 * How a filter's adds write its bits (see {@link BloomFilter#setWriterMode}).
 */
public enum WriterMode {
  /**
   * Any number of threads may add at once (the default): adds set their bits with atomic
   * read-modify-writes, which never lose a bit.
   */
  SHARED(0),
  /**
   * One thread adds at a time ({@code put}, {@code putIfAbsent}, {@code putAll}): adds use plain
   * loads and stores, which makes them faster (bench/RESULTS.md in the repository). Any number of
   * threads may still call {@code mightContain} and the other read-only methods meanwhile.
   * <b>Unsafe with concurrent writers</b>: two threads adding at once can lose each other's bits,
   * which gives false negatives.
   */
  EXCLUSIVE(1);

  private final int code;

  WriterMode(int code) {
    this.code = code;
  }

  int code() {
    return code;
  }

  static WriterMode of(int code) {
    for (WriterMode m : values()) {
      if (m.code == code) {
        return m;
      }
    }
    throw new IllegalStateException("unknown writer mode " + code);
  }
}
