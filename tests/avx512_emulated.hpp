// The AVX-512 kernel (core/kernels/blocked_avx512_kernel.hpp) compiled against SIMDe's portable
// versions of the AVX-512 intrinsics: it runs on any CPU, so the kernel's logic is checked against
// the scalar reference even where the hardware lacks AVX-512 (where the native build is skipped).
#pragma once

#include "kernels/kernel_table.hpp"

namespace abloom::testing {

// The tables of both layouts (kLayouts) of the two variants.
extern const BlockedKernels kBlockedAvx512Emulated[kLayouts];        // repeat check: vpconflictd
extern const BlockedKernels kBlockedAvx512PackedEmulated[kLayouts];  // repeat check: packed

}  // namespace abloom::testing
