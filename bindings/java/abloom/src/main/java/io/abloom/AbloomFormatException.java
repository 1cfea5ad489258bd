package io.abloom;

import java.io.IOException;

/**
 * Serialized filter bytes (a file, a stream, a byte array or a buffer) that abloom refuses: not
 * an abloom filter, an unknown format version, kind or hash, truncated, corrupt (a header
 * checksum or field that does not hold, or trailing bytes), or a body checksum that does not
 * match. {@link #error()} tells which, as the C library's code.
 *
 * <p>One subclass: {@link AbloomStaleException}, for the bytes of a file that a read-write writer
 * did not sync. Those are not corrupt, but they fail the same checked reads, whose signatures
 * declare this exception; and before the library told the two apart they were a {@link
 * AbloomError#CHECKSUM} error here, so code that catches this exception still refuses them. Catch
 * the subclass first to treat them apart.
 */
public sealed class AbloomFormatException extends IOException permits AbloomStaleException {
  private static final long serialVersionUID = 1L;

  /** The C error. */
  private final AbloomError error;

  /**
   * Creates an exception for a format error.
   *
   * @param error which check failed
   * @param message what was being read, and why it failed
   */
  public AbloomFormatException(AbloomError error, String message) {
    super(message);
    this.error = error;
  }

  /**
   * Which check the data failed.
   *
   * @return one of {@link AbloomError#BAD_MAGIC}, {@link AbloomError#VERSION}, {@link
   *     AbloomError#UNSUPPORTED}, {@link AbloomError#TRUNCATED}, {@link AbloomError#CORRUPT},
   *     {@link AbloomError#CHECKSUM}, or {@link AbloomError#STALE} for an {@link
   *     AbloomStaleException}
   */
  public AbloomError error() {
    return error;
  }

  /**
   * The C library's error code of {@link #error()}.
   *
   * @return a negative {@code ABLOOM_ERR_*} value
   */
  public int errorCode() {
    return error.code();
  }
}
