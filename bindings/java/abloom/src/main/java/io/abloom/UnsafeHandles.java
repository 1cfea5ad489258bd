package io.abloom;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteOrder;

/**
 * {@code sun.misc.Unsafe}'s methods as method handles bound to its instance, on the JDKs where
 * they may be used: the one place that decides it, for {@link ShardMemory} (loads by address) and
 * {@link AsciiStrings} (a string's own bytes).
 *
 * <p>Usable on a little-endian JDK older than 24: JDK 24 warns on the first use of Unsafe's
 * memory-access methods (JEP 498), which a library must not make its users see. Found by
 * reflection (module jdk.unsupported, open to all), as Spark's {@code Platform} does, so no
 * compile-time reference trips -Werror; a constant method handle is inlined by the JIT into the
 * plain load.
 */
final class UnsafeHandles {
  private UnsafeHandles() {}

  private static final Class<?> UNSAFE_CLASS;

  /** The Unsafe instance, or null where it is not to be used. */
  private static final Object UNSAFE;

  static {
    Class<?> c = null;
    Object u = null;
    if (Runtime.version().feature() < 24 && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
      try {
        c = Class.forName("sun.misc.Unsafe");
        Field theUnsafe = c.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        u = theUnsafe.get(null);
      } catch (ReflectiveOperationException | RuntimeException e) {
        u = null; // not here: every handle lookup fails, and callers use their fallback
      }
    }
    UNSAFE_CLASS = c;
    UNSAFE = u;
  }

  /**
   * Whether Unsafe may be used here and the system property {@code off} (a user's switch for one
   * use) is not set to true.
   *
   * @param off the name of the property that turns this use off
   * @return whether to look handles up
   */
  static boolean usable(String off) {
    return UNSAFE != null && !Boolean.getBoolean(off);
  }

  /**
   * Unsafe's method {@code name} of type {@code type}, bound to the instance.
   *
   * @param name the method's name
   * @param type its type, without the receiver
   * @return the bound handle
   * @throws ReflectiveOperationException when there is no such method, or Unsafe is not usable
   */
  static MethodHandle find(String name, MethodType type) throws ReflectiveOperationException {
    if (UNSAFE == null) {
      throw new ClassNotFoundException("sun.misc.Unsafe is not used on this JVM");
    }
    return MethodHandles.lookup().findVirtual(UNSAFE_CLASS, name, type).bindTo(UNSAFE);
  }

  /**
   * The offset of a field in its objects ({@code Unsafe.objectFieldOffset}).
   *
   * @param field the field
   * @return its offset
   * @throws ReflectiveOperationException when Unsafe is not usable
   */
  static long fieldOffset(Field field) throws ReflectiveOperationException {
    try {
      return (long)
          find("objectFieldOffset", MethodType.methodType(long.class, Field.class))
              .invokeExact(field);
    } catch (ReflectiveOperationException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new ReflectiveOperationException(e);
    }
  }
}
