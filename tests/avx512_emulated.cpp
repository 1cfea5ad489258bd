// See avx512_emulated.hpp. SIMDe's native aliases map each _mm512_* intrinsic the kernel names to
// its portable implementation (this file is compiled without -mavx512f), so the kernel's source is
// compiled here unchanged.
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#define ABLOOM_AVX512_FN
#define ABLOOM_AVX512_ASM_LOAD 0
#define ABLOOM_AVX512_WIDE kBlockedScalar[0]
#include "avx512_emulated.hpp"
#include "kernels/blocked_avx512_kernel.hpp"

namespace abloom::testing {

const BlockedKernels kBlockedAvx512Emulated[kLayouts] = {kAvx512Kernels[0], kAvx512Kernels[1],
                                                         kAvx512Kernels[2]};
const BlockedKernels kBlockedAvx512PackedEmulated[kLayouts] = {
    kAvx512PackedKernels[0], kAvx512PackedKernels[1], kAvx512PackedKernels[2]};

}  // namespace abloom::testing
