package io.abloom;

import io.abloom.BloomFilter.OpenMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How {@link BloomFilter}'s serialized forms and files are read and written: its size, byte
 * arrays, streams through a native buffer, wrapped buffers, mapped files (open, sync, seal),
 * crash-safe saves and the native form of a path. The public methods with their documentation are
 * BloomFilter's; these are their bodies (over the filter's {@link FilterCore}).
 */
final class FilterFiles {
  static final int VERIFY_CHECKSUM = 0x1;
  private static final int STREAM_CHUNK = 1 << 20;

  private FilterFiles() {}

  static long serializedSize(FilterCore filter) {
    if (filter.growing) {
      long n = filter.call(AbloomNative::jab_serialized_size);
      if (n < 0) {
        throw Errors.unchecked(n, "serializedSize");
      }
      return n;
    }
    filter.handle.checkOpen();
    return 128 + filter.bits / 8;
  }

  static byte[] toByteArray(FilterCore filter) {
    long size = serializedSize(filter);
    if (size > Packed.MAX_ARRAY) {
      throw new IllegalStateException(
          "abloom: " + size + " bytes do not fit in a Java array; use writeTo or save");
    }
    byte[] out = new byte[(int) size];
    long rc = filter.call(h -> AbloomNative.jab_serialize(h, out, out.length));
    if (filter.growing && rc == AbloomError.TOO_SMALL.code()) {
      return toByteArray(filter); // another thread appended a stage since the size was read
    }
    if (rc != size) {
      throw Errors.unchecked(rc < 0 ? rc : AbloomError.INTERNAL.code(), "toByteArray");
    }
    return out;
  }

  static void writeTo(FilterCore filter, OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out");
    // A growing filter may gain a stage between the size and the copy (another thread adding):
    // the copy then finds the buffer too small, and is tried again at the new size.
    while (!writeOnce(filter, out)) {}
  }

  /** One try of {@link #writeTo}: false, with nothing written, if the filter outgrew the size. */
  private static boolean writeOnce(FilterCore filter, OutputStream out) throws IOException {
    long size = serializedSize(filter);
    long mem = AbloomNative.jab_malloc(size);
    if (mem == 0) {
      throw new OutOfMemoryError("abloom: cannot allocate " + size + " bytes to serialize");
    }
    try {
      long rc = filter.call(h -> AbloomNative.jab_serialize_native(h, mem, size));
      if (filter.growing && rc == AbloomError.TOO_SMALL.code()) {
        return false;
      }
      if (rc != size) {
        throw Errors.unchecked(rc < 0 ? rc : AbloomError.INTERNAL.code(), "writeTo");
      }
      byte[] chunk = new byte[(int) Math.min(size, STREAM_CHUNK)];
      for (long at = 0; at < size; ) {
        int n = (int) Math.min(chunk.length, size - at);
        AbloomNative.jab_mget(mem, at, chunk, 0, n);
        out.write(chunk, 0, n);
        at += n;
      }
      return true;
    } finally {
      AbloomNative.jab_mfree(mem);
    }
  }

  static void save(FilterCore filter, Path path) throws IOException {
    byte[] name = nativePath(path);
    int rc = filter.call(h -> AbloomNative.jab_save(h, name));
    if (rc != 0) {
      throw Errors.checked(rc, "save", path.toString());
    }
  }

  static void sync(FilterCore filter) throws IOException {
    int rc = filter.call(AbloomNative::abloom_sync);
    if (rc != 0) {
      throw Errors.checked(rc, "sync", "<mapped file>");
    }
  }

  static BloomFilter readFrom(InputStream in) throws IOException {
    Objects.requireNonNull(in, "in");
    byte[] header = in.readNBytes(128);
    if (header.length < 128) {
      throw new AbloomFormatException(
          AbloomError.TRUNCATED,
          "abloom: readFrom: the stream ended after " + header.length + " of 128 header bytes");
    }
    long body = AbloomNative.jab_header_body_size(header, 0);
    if (body < 0) {
      throw Errors.checked(body, "readFrom", "<stream>");
    }
    long size = 128 + body;
    long mem = AbloomNative.jab_malloc(size);
    if (mem == 0) {
      throw new OutOfMemoryError("abloom: cannot allocate " + size + " bytes to deserialize");
    }
    try {
      AbloomNative.jab_mput(mem, 0, header, 0, 128);
      byte[] chunk = new byte[(int) Math.min(body, STREAM_CHUNK)];
      for (long at = 128; at < size; ) {
        int want = (int) Math.min(chunk.length, size - at);
        int got = in.readNBytes(chunk, 0, want);
        if (got > 0) {
          AbloomNative.jab_mput(mem, at, chunk, 0, got);
          at += got;
        }
        if (got < want) {
          throw new AbloomFormatException(
              AbloomError.TRUNCATED,
              "abloom: readFrom: the stream ended after " + at + " of " + size + " bytes");
        }
      }
      long rc = AbloomNative.jab_deserialize_native(mem, size);
      return BloomFilter.ownChecked(rc, "readFrom", "<stream>", null);
    } finally {
      AbloomNative.jab_mfree(mem);
    }
  }

  static BloomFilter fromByteArray(byte[] bytes, int offset, int length)
      throws AbloomFormatException {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    return ownFormat(
        AbloomNative.jab_deserialize(bytes, offset, length), "fromByteArray", "<bytes>", null);
  }

  static BloomFilter wrap(ByteBuffer buffer, boolean verifyChecksum)
      throws AbloomFormatException {
    BulkCalls.requireDirect(buffer);
    long rc =
        AbloomNative.jab_view(
            buffer, buffer.position(), buffer.remaining(), verifyChecksum ? VERIFY_CHECKSUM : 0);
    try {
      return ownFormat(rc, "wrap", "<buffer>", buffer);
    } finally {
      Reference.reachabilityFence(buffer);
    }
  }

  /** {@link BloomFilter#ownChecked} for a result that involves no file: only format errors. */
  private static BloomFilter ownFormat(long result, String what, String where, Object attachment)
      throws AbloomFormatException {
    try {
      return BloomFilter.ownChecked(result, what, where, attachment);
    } catch (AbloomFormatException e) {
      throw e;
    } catch (IOException e) { // not reachable: no file is involved
      throw new IllegalStateException(e);
    }
  }

  static BloomFilter open(Path path, OpenMode mode, boolean verifyChecksum) throws IOException {
    byte[] name = nativePath(path);
    int flags = mode.flag | (verifyChecksum ? VERIFY_CHECKSUM : 0);
    long rc = AbloomNative.jab_open(name, flags);
    if (rc == AbloomError.UNSUPPORTED.code() && mode == OpenMode.READ_WRITE) {
      refuseGrowing(name, path, "open READ_WRITE");
    }
    return BloomFilter.ownChecked(rc, "open", path.toString(), null);
  }

  static void seal(Path path) throws IOException {
    byte[] name = nativePath(path);
    int rc = AbloomNative.jab_seal(name);
    if (rc != 0) {
      throw Errors.checked(rc, "seal", path.toString());
    }
  }

  /**
   * After the engine refused a file as UNSUPPORTED for {@code what}: if the file is a growing
   * filter's (it opens read-only), the refusal is the call's, not the file's (a chain file of the
   * first form, whose table has no place for another stage), so throws an
   * UnsupportedOperationException that says so; otherwise returns (the file's own error stands).
   */
  private static void refuseGrowing(byte[] name, Path path, String what) {
    long ro = AbloomNative.jab_open(name, OpenMode.READ_ONLY.flag);
    if (ro < 0) {
      return;
    }
    boolean growing;
    try (BloomFilter f = BloomFilter.own(ro, "open")) {
      growing = f.isGrowing();
    }
    if (growing) {
      throw new UnsupportedOperationException(
          "abloom: "
              + what
              + ": "
              + path
              + ": a growing filter's file of the first form (its stage table has no place for"
              + " another stage, so it cannot grow in place): open it COPY_ON_WRITE and save it"
              + " again");
    }
  }

  /**
   * The path as the C library takes it, NUL-ended: its bytes in the JVM's file-name encoding
   * (what the OS calls take on POSIX), but UTF-8 on Windows, where the C library takes UTF-8 and
   * converts it to UTF-16 itself (the file-name encoding there is the ANSI code page, which
   * cannot spell most names).
   */
  static byte[] nativePath(Path path) {
    if (path.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException("abloom: only paths of the default file system: " + path);
    }
    String jnu = System.getProperty("sun.jnu.encoding");
    Charset cs =
        NativeLoader.onWindows()
            ? StandardCharsets.UTF_8
            : jnu != null && Charset.isSupported(jnu) ? Charset.forName(jnu) : Charset.defaultCharset();
    byte[] bytes = path.toString().getBytes(cs);
    byte[] z = new byte[bytes.length + 1]; // NUL-terminated
    System.arraycopy(bytes, 0, z, 0, bytes.length);
    return z;
  }
}
