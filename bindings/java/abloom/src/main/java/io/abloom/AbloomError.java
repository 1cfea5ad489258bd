package io.abloom;

/**
 * The error codes of the abloom C library ({@code ABLOOM_ERR_*} in {@code abloom.h}). Carried by
 * {@link AbloomFormatException}; the binding maps the others to standard Java exceptions.
 */
public enum AbloomError {
  /** A required pointer was null (ABLOOM_ERR_NULL, -1). */
  NULL(-1),
  /** An argument is outside its domain (ABLOOM_ERR_INVALID, -2). */
  INVALID(-2),
  /** The requested filter is too large (ABLOOM_ERR_RANGE, -3). */
  RANGE(-3),
  /** Native memory allocation failed (ABLOOM_ERR_NOMEM, -4). */
  NOMEM(-4),
  /** Two filters do not have the same shape (ABLOOM_ERR_MISMATCH, -5). */
  MISMATCH(-5),
  /** An internal failure in the library, a bug (ABLOOM_ERR_INTERNAL, -6). */
  INTERNAL(-6),
  /** A write to a read-only filter (ABLOOM_ERR_READONLY, -7). */
  READONLY(-7),
  /** Serialized data: not an abloom filter, the magic bytes are wrong (ABLOOM_ERR_BAD_MAGIC, -8). */
  BAD_MAGIC(-8),
  /** Serialized data: a format version this library does not read (ABLOOM_ERR_VERSION, -9). */
  VERSION(-9),
  /** Serialized data: an unknown kind, layout or hash (ABLOOM_ERR_UNSUPPORTED, -10). */
  UNSUPPORTED(-10),
  /** Serialized data: shorter than its header says (ABLOOM_ERR_TRUNCATED, -11). */
  TRUNCATED(-11),
  /** Serialized data: a bad header checksum, inconsistent fields or trailing bytes (ABLOOM_ERR_CORRUPT, -12). */
  CORRUPT(-12),
  /** Serialized data: the checksum over header and body does not match (ABLOOM_ERR_CHECKSUM, -13). */
  CHECKSUM(-13),
  /** A view over a buffer that is not 64-byte aligned (ABLOOM_ERR_ALIGNMENT, -14). */
  ALIGNMENT(-14),
  /** A file system call failed (ABLOOM_ERR_IO, -15). */
  IO(-15),
  /** A caller's buffer is too small for the serialized filter (ABLOOM_ERR_TOO_SMALL, -16). */
  TOO_SMALL(-16),
  /**
   * Serialized data: a filter file left stale by a {@link BloomFilter.OpenMode#READ_WRITE} writer
   * that did not sync it (killed, or still running): its bits are valid, its checksums are not
   * current, so a checked read cannot pass (ABLOOM_ERR_STALE, -17). Carried by {@link
   * AbloomStaleException}; see {@link BloomFilter#seal}.
   */
  STALE(-17),
  /** A code this binding does not know (from a newer library). */
  UNKNOWN(Integer.MIN_VALUE);

  private final int code;

  AbloomError(int code) {
    this.code = code;
  }

  /**
   * The C library's integer code.
   *
   * @return the negative {@code ABLOOM_ERR_*} value ({@code Integer.MIN_VALUE} for {@link #UNKNOWN})
   */
  public int code() {
    return code;
  }

  /**
   * The C library's English description of this code ({@code abloom_strerror}).
   *
   * @return a short message, never null
   */
  public String description() {
    return AbloomNative.abloom_strerror(code);
  }

  /**
   * The constant for a C error code.
   *
   * @param code a negative {@code ABLOOM_ERR_*} value
   * @return its constant, or {@link #UNKNOWN}
   */
  public static AbloomError of(int code) {
    for (AbloomError e : values()) {
      if (e.code == code) {
        return e;
      }
    }
    return UNKNOWN;
  }

  /**
   * True for the codes that {@link AbloomFormatException} carries: bad serialized data, and
   * {@link #STALE} (not bad, but it fails the same checked reads, which declare that exception).
   */
  boolean isFormatError() {
    return code <= BAD_MAGIC.code && code >= CHECKSUM.code || this == STALE;
  }
}
