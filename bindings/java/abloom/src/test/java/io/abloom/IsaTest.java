package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Forcing the native kernel, and answers that do not depend on it. */
class IsaTest {

  @Test
  void forceScalarAndBack() {
    Isa before = Isa.active();
    try {
      Isa best = Isa.supported();
      Isa.force(Isa.SCALAR);
      assertEquals(Isa.SCALAR, Isa.active());
      boolean arm = isAarch64();
      if (arm) {
        assertEquals(Isa.NEON, best, "every aarch64 CPU has NEON");
      } else {
        assertNotEquals(Isa.NEON, best);
      }
      for (Isa isa : Isa.values()) {
        // Each architecture runs scalar and its own kernels up to the CPU's best (an AVX-512 CPU
        // has AVX2); the other architecture's never.
        boolean runs =
            isa == Isa.SCALAR || isa == best || (isa == Isa.AVX2 && best == Isa.AVX512);
        if (!runs) {
          assertThrows(UnsupportedOperationException.class, () -> Isa.force(isa), isa.name());
        }
      }
      assertEquals(Isa.SCALAR, Isa.active(), "a refused force changes nothing");
      Isa.force(best);
      assertEquals(best, Isa.active());
      assertEquals("avx2", Isa.AVX2.nativeName());
      assertEquals("avx512", Isa.AVX512.nativeName());
      assertEquals("neon", Isa.NEON.nativeName());
    } finally {
      Isa.force(before);
    }
  }

  private static boolean isAarch64() {
    String arch = System.getProperty("os.arch");
    return arch.equals("aarch64") || arch.equals("arm64");
  }

  @Test
  void everyKernelBuildsTheSameBytes() throws Exception {
    Isa before = Isa.active();
    try {
      byte[][] built = new byte[2][];
      Isa[] kernels = {Isa.SCALAR, Isa.supported()};
      for (int i = 0; i < 2; i++) {
        Isa.force(kernels[i]);
        try (BloomFilter f =
            BloomFilter.builder().expectedInsertions(5_000).fpp(0.01).seed(9).build()) {
          for (int key = 0; key < 5_000; key++) {
            f.put("key-" + key);
          }
          built[i] = f.toByteArray();
        }
      }
      assertTrue(java.util.Arrays.equals(built[0], built[1]));
    } finally {
      Isa.force(before);
    }
  }
}
