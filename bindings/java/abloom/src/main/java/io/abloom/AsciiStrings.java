package io.abloom;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A string's own bytes when they are its UTF-8 bytes, read without copying: the one job of this
 * class.
 *
 * <p>Why: a String key is hashed over its UTF-8 bytes, and reading them char by char into a
 * buffer cost a fifth of a {@code mightContain(String)} (bench/JOURNAL.md, "Java: ASCII strings
 * hashed in place").
 * A compact string (JDK 9+, JEP 254) whose coder is Latin-1 keeps one byte per char in its
 * {@code value} array; when every byte is below 0x80, those bytes are exactly its UTF-8
 * encoding, so they can be hashed where they lie.
 *
 * <p>How: the {@code value} and {@code coder} fields are read with {@code sun.misc.Unsafe}
 * (module jdk.unsupported, open to all; no {@code --add-opens} needed), where {@link
 * UnsafeHandles} says it is usable (as for {@link ShardMemory}'s loads by address). At class
 * initialisation a self-check reads two strings whose coders and bytes are known (an ASCII one,
 * a UTF-16 one); any surprise, a missing field or a failed lookup turns the class off, and
 * {@link #asciiBytes} then answers null for every string: callers fall back to encoding. So a
 * JDK whose strings differ (compact strings off, a renamed field) gets slower String keys, never
 * wrong hashes.
 */
final class AsciiStrings {
  private AsciiStrings() {}

  /** {@code Unsafe.getObject(Object, long)} bound to the Unsafe instance, or null when off. */
  private static final MethodHandle GET_OBJECT;

  /** {@code Unsafe.getByte(Object, long)} bound likewise. */
  private static final MethodHandle GET_BYTE;

  private static final long VALUE_OFFSET;
  private static final long CODER_OFFSET;

  /** The Latin-1 coder's value in {@code String.coder}. */
  private static final byte LATIN1 = 0;

  /** Eight bytes at a time, for the ASCII check. */
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Four bytes at a time, for keys of 4 to 7 bytes. */
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final long HIGH_BITS = 0x8080808080808080L;

  static {
    MethodHandle object = null;
    MethodHandle oneByte = null;
    long value = 0;
    long coder = 0;
    if (UnsafeHandles.usable("abloom.strings.encodeAlways")) {
      try {
        object =
            UnsafeHandles.find(
                "getObject", MethodType.methodType(Object.class, Object.class, long.class));
        oneByte =
            UnsafeHandles.find(
                "getByte", MethodType.methodType(byte.class, Object.class, long.class));
        Field valueField = String.class.getDeclaredField("value");
        Field coderField = String.class.getDeclaredField("coder");
        if (valueField.getType() != byte[].class || coderField.getType() != byte.class) {
          throw new IllegalStateException("String's fields are not the compact strings' ones");
        }
        value = UnsafeHandles.fieldOffset(valueField);
        coder = UnsafeHandles.fieldOffset(coderField);
        if (!selfCheck(object, oneByte, value, coder)) {
          object = null;
        }
      } catch (Throwable e) { // any failure above: encode instead
        object = null;
      }
    }
    GET_OBJECT = object;
    GET_BYTE = object == null ? null : oneByte;
    VALUE_OFFSET = value;
    CODER_OFFSET = coder;
  }

  /**
   * Reads strings whose answers are known: an ASCII string must be Latin-1 coded and show its own
   * bytes, and a string with a char above U+00FF must not be Latin-1 coded. {@code new String}
   * copies, so these are not interned constants someone else made.
   */
  private static boolean selfCheck(
      MethodHandle object, MethodHandle oneByte, long value, long coder) throws Throwable {
    String ascii = new String("abloom:0123456789".toCharArray());
    byte[] bytes = (byte[]) (Object) object.invokeExact((Object) ascii, value);
    byte asciiCoder = (byte) oneByte.invokeExact((Object) ascii, coder);
    if (asciiCoder != LATIN1
        || !Arrays.equals(bytes, ascii.getBytes(StandardCharsets.US_ASCII))) {
      return false; // compact strings off (every coder UTF-16), or another representation
    }
    // A UTF-16 coded string must not read as Latin-1: U+0100's low byte is 0x00, ASCII.
    String wide = new String(new char[] {'a', '\u0100'});
    byte wideCoder = (byte) oneByte.invokeExact((Object) wide, coder);
    return wideCoder != LATIN1;
  }

  /** Whether {@link #asciiBytes} can answer at all on this JVM; for tests and benchmarks. */
  static boolean enabled() {
    return GET_OBJECT != null;
  }

  /**
   * The string's own byte array when it is Latin-1 coded and all ASCII, so that its bytes are its
   * UTF-8 encoding; else null (or always null when {@link #enabled} is false). The array is the
   * string's: read it, never write it, and read {@code key.length()} bytes from 0.
   *
   * @param key the string
   * @return its bytes, or null when they must be encoded
   * @throws NullPointerException when key is null: checked here, because Unsafe's reads at an
   *     offset from null would read address {@code offset} and crash the JVM
   */
  static byte[] asciiBytes(String key) {
    Objects.requireNonNull(key, "key");
    if (GET_OBJECT == null) {
      return null;
    }
    byte[] value;
    byte coder;
    try {
      coder = (byte) GET_BYTE.invokeExact((Object) key, CODER_OFFSET);
      value = (byte[]) (Object) GET_OBJECT.invokeExact((Object) key, VALUE_OFFSET);
    } catch (Throwable e) {
      throw new AssertionError(e); // Unsafe's field reads throw nothing
    }
    return coder == LATIN1 && isAscii(value) ? value : null;
  }

  /**
   * Whether every byte is below 0x80. Eight bytes at a time, and the last eight (or four) read
   * once more, overlapping, instead of a byte loop over the tail: a key's length then sets no
   * branch but the word loop's, which runs once for 9 to 16 bytes. With {@code "user:" + id} keys
   * of 11 and 12 chars, a tail loop of 3 or 4 bytes mispredicted its exit on about half the keys.
   */
  static boolean isAscii(byte[] b) {
    int n = b.length;
    long or = 0;
    if (n >= 8) {
      for (int i = 0; i < n - 8; i += 8) {
        or |= (long) LONGS.get(b, i);
      }
      or |= (long) LONGS.get(b, n - 8);
    } else if (n >= 4) {
      or = (int) INTS.get(b, 0) | (int) INTS.get(b, n - 4); // a high bit of an int extends up
    } else {
      for (int i = 0; i < n; i++) {
        or |= b[i];
      }
    }
    return (or & HIGH_BITS) == 0;
  }
}
