package io.abloom;

/**
 * The native library's instruction-set kernels for the blocked kind's hot loops.
 *
 * <p>The library picks the best kernel the CPU supports at run time (on x86-64: scalar, AVX2 or
 * AVX-512; on aarch64: NEON, which every aarch64 CPU has); the environment variable {@code
 * ABLOOM_ISA} ({@code scalar}, {@code avx2}, {@code avx512}, {@code neon}, {@code auto}; read once,
 * at the library's first use) or {@link #force} can ask for less. Each architecture runs its own
 * kernels only: the declaration order is not an order of capability. Every kernel sets and tests
 * the same bits, so the choice changes speed only, never answers or files. The setting is
 * process-wide and thread-safe.
 */
public enum Isa {
  /** The portable scalar kernel (every CPU). */
  SCALAR(0),
  /** The AVX2 (with BMI2) kernel (x86-64). */
  AVX2(1),
  /** The AVX-512 (F and CD) kernel (x86-64). */
  AVX512(2),
  /** The NEON (Advanced SIMD) kernel: every aarch64 CPU, never x86-64. */
  NEON(3);

  private final int code;

  Isa(int code) {
    this.code = code;
  }

  private static Isa of(long code) {
    for (Isa isa : values()) {
      if (isa.code == code) {
        return isa;
      }
    }
    return SCALAR;
  }

  /**
   * The best kernel this CPU can run.
   *
   * @return the kernel
   */
  public static Isa supported() {
    return of(AbloomNative.abloom_isa_supported());
  }

  /**
   * The kernel in use now.
   *
   * @return the kernel
   */
  public static Isa active() {
    return of(AbloomNative.abloom_get_isa());
  }

  /**
   * Uses {@code isa} from now on, for every filter in the process.
   *
   * @param isa the kernel
   * @throws UnsupportedOperationException if this CPU cannot run it (nothing changes then)
   */
  public static void force(Isa isa) {
    int rc = AbloomNative.abloom_set_isa(isa.code);
    if (rc != 0) {
      throw new UnsupportedOperationException(
          "abloom: kernel " + isa.nativeName() + ": " + AbloomNative.abloom_strerror(rc));
    }
  }

  /**
   * The native library's name for this kernel.
   *
   * @return "scalar", "avx2", "avx512" or "neon"
   */
  public String nativeName() {
    return AbloomNative.abloom_isa_name(code);
  }
}
