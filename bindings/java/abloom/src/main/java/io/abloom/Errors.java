package io.abloom;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Maps the C library's negative return codes to Java exceptions. */
final class Errors {
  private static final int ENOENT = 2;
  private static final int EPERM = 1;
  private static final int EACCES = 13;
  private static final int EEXIST = 17;
  private static final int ENOTDIR = 20;

  private Errors() {}

  static String message(int rc, String what) {
    return "abloom: " + what + ": " + AbloomNative.abloom_strerror(rc) + " (" + AbloomError.of(rc) + ")";
  }

  /**
   * The unchecked exception (or error) for a code from a call that takes no serialized data.
   * Never returns normally for {@link AbloomError#NOMEM}: that throws an OutOfMemoryError.
   */
  static RuntimeException unchecked(long rc, String what) {
    int code = (int) rc;
    String msg = message(code, what);
    switch (AbloomError.of(code)) {
      case NULL:
        return new NullPointerException(msg);
      case INVALID:
      case RANGE:
      case MISMATCH:
      case ALIGNMENT:
        return new IllegalArgumentException(msg);
      case NOMEM:
        throw new OutOfMemoryError(msg);
      case READONLY:
      case UNSUPPORTED:
        return new UnsupportedOperationException(msg);
      default:
        return new IllegalStateException(msg);
    }
  }

  /**
   * The exception for a code from a call that reads serialized data or touches files: an {@link
   * AbloomStaleException} for a stale file (or its bytes), an {@link AbloomFormatException} for
   * bad data, an IOException (NoSuchFileException, ...) for a failed
   * file system call, else what {@link #unchecked} gives (thrown).
   */
  static IOException checked(long rc, String what, String file) throws IOException {
    int code = (int) rc;
    AbloomError error = AbloomError.of(code);
    if (error == AbloomError.STALE) {
      // The C library's text names C calls; this one names what a Java caller can do.
      return new AbloomStaleException(
          "abloom: "
              + what
              + ": "
              + file
              + ": the filter file is stale (STALE): a writer that opened it READ_WRITE did not"
              + " sync it (killed, or still running), so its bits are valid but its checksums are"
              + " not current; open it without verifyChecksum to read it, or seal it with"
              + " BloomFilter.seal(path) once no writer has it open");
    }
    if (error.isFormatError()) {
      return new AbloomFormatException(error, message(code, what));
    }
    if (error == AbloomError.IO) {
      int errno = AbloomNative.jab_last_errno();
      String reason = errno != 0 ? AbloomNative.jab_errno_string(errno) : "file system error";
      switch (errno) {
        case ENOENT:
          return new NoSuchFileException(file, null, "abloom: " + what + ": " + reason);
        case EPERM:
        case EACCES:
          return new AccessDeniedException(file, null, "abloom: " + what + ": " + reason);
        case EEXIST:
          return new FileAlreadyExistsException(file, null, "abloom: " + what + ": " + reason);
        case ENOTDIR:
          return new NotDirectoryException(file);
        default:
          return new IOException("abloom: " + what + ": " + file + ": " + reason);
      }
    }
    throw unchecked(rc, what);
  }
}
