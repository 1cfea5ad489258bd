/* Run by ctest with ABLOOM_ISA set: checks that the library picked the kernel the variable asks
 * for (argv[1], or the best supported when argv[1] is "best"), and that a filter still works. */
#include <abloom.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  abloom_filter *f = NULL;
  uint32_t want, got;
  if (argc != 2) {
    fprintf(stderr, "usage: %s scalar|avx2|avx512|neon|best\n", argv[0]);
    return 2;
  }
  if (abloom_new(1000, 0.01, &f) != ABLOOM_OK || abloom_add(f, "x", 1) != ABLOOM_OK ||
      abloom_test(f, "x", 1) != 1) {
    fprintf(stderr, "filter broken\n");
    return 1;
  }
  abloom_free(f);
  want = strcmp(argv[1], "best") == 0     ? abloom_isa_supported()
         : strcmp(argv[1], "neon") == 0   ? ABLOOM_ISA_NEON
         : strcmp(argv[1], "avx512") == 0 ? ABLOOM_ISA_AVX512
         : strcmp(argv[1], "avx2") == 0   ? ABLOOM_ISA_AVX2
                                          : ABLOOM_ISA_SCALAR;
  got = abloom_get_isa();
  /* Asked for a set this CPU cannot run (an x86-64 CPU without AVX-512): the best runs. The
   * values are names, not an order, so the library is asked. Read the active kernel first: a
   * successful force changes it. */
  if (abloom_set_isa(want) != ABLOOM_OK) want = abloom_isa_supported();
  printf("ABLOOM_ISA asks %s: active %s (supported %s)\n", argv[1], abloom_isa_name(got),
         abloom_isa_name(abloom_isa_supported()));
  return got == want ? 0 : 1;
}
