package io.abloom;

/**
 * A checked read of a <b>stale</b> filter file: one that a writer opened {@link
 * BloomFilter.OpenMode#READ_WRITE} and did not sync ({@link BloomFilter#sync()} or {@link
 * BloomFilter#close()}), because it was killed or is still running. The file's header carries the
 * stale mark (docs/FORMAT.md). Its bits are valid, since adds only set bits, but its checksums are
 * not current, so every read that checks them fails with this exception: {@link
 * BloomFilter#open(java.nio.file.Path, BloomFilter.OpenMode, boolean)} with {@code
 * verifyChecksum}, {@link BloomFilter#wrap} with {@code verifyChecksum}, and the reads of its bytes
 * ({@link BloomFilter#fromByteArray(byte[])}, {@link BloomFilter#readFrom}).
 *
 * <p>What to do: open the file without {@code verifyChecksum} (O(1); {@link BloomFilter#isStale()}
 * then says true), or, once no writer has it open, seal it with {@link
 * BloomFilter#seal(java.nio.file.Path)}, which checks what can be checked without the checksum and
 * makes it current again. It is an {@link AbloomFormatException} (whose {@link #error()} is {@link
 * AbloomError#STALE}) only because those reads declare that exception: it is not corruption.
 */
public final class AbloomStaleException extends AbloomFormatException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception for a stale file or its bytes.
   *
   * @param message what was being read, and what to do about it
   */
  public AbloomStaleException(String message) {
    super(AbloomError.STALE, message);
  }
}
