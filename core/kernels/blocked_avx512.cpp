// The blocked kind's AVX-512 kernel, native build: blocked_avx512_kernel.hpp compiled with
// AVX-512 F and CD enabled for its functions only (target attributes, no -mavx512f), so nothing
// else in the library uses AVX-512 instructions. kernel_dispatch.cpp calls into this table only
// when the CPU and the OS support AVX-512 F and CD (plus AVX2 and BMI2, which every such CPU has).
#include "kernels/kernel_table.hpp"

#if defined(__x86_64__)

// GCC 12's AVX-512 intrinsics start their results from _mm512_undefined_epi32() (`__Y = __Y`),
// which its -Wmaybe-uninitialized (and, where it can prove it, -Wuninitialized) reports at every
// use once inlined (GCC bug 105593, fixed in 13). The value is never read: silence those two
// warnings, in this file only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#define ABLOOM_AVX512_FN __attribute__((target("avx512f,avx512cd,avx2,bmi,bmi2")))
#define ABLOOM_AVX512_ASM_LOAD 1
#define ABLOOM_AVX512_WIDE kBlockedAvx2[0]
#include "kernels/blocked_avx512_kernel.hpp"

namespace abloom {

const BlockedKernels kBlockedAvx512[kLayouts] = {kAvx512Kernels[0], kAvx512Kernels[1],
                                                 kAvx512Kernels[2]};
const BlockedKernels kBlockedAvx512Packed[kLayouts] = {
    kAvx512PackedKernels[0], kAvx512PackedKernels[1], kAvx512PackedKernels[2]};

}  // namespace abloom

#endif  // __x86_64__ (elsewhere kernel_dispatch.cpp never asks for this table)
