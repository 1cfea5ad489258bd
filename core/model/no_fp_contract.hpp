// No fused multiply-add in the rest of the file that includes this (see core/CMakeLists.txt): the
// header of a file holds doubles computed by the sizing model and the filter (the expected FPR,
// the inserted-key estimate), which must be the same bits on every machine, and ddmath.hpp's error
// terms hold only if every operation is rounded as written. Compilers fuse by default where the CPU
// has FMA (aarch64: GCC's C++ modes, clang everywhere), differently in each place a function is
// inlined. CMake passes -ffp-contract=off; this pragma covers the builds that cannot: cgo refuses
// that flag (it is not in its allowlist), and users' own builds (the Go, Rust and Python packages
// compile the engine with their own flags).
//
// Include it before any code whose doubles a file stores: the pragma holds from there to the end
// of the translation unit.
#pragma once

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
