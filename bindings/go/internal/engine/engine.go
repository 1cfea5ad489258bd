//go:build !abloom_system

// Package engine compiles abloom's C++ engine into the Go program, so that the binding needs no
// installed C library: cgo compiles every .cpp file of this directory and the program is
// linked with the objects. scripts/bundle-engine.sh generates them: abloom_engine.hpp holds the
// engine (core/**/*.hpp, core/**/*.cpp and capi/abloom_capi.cpp) once, as an amalgamation, and
// each abloom_engine_NAME.cpp compiles core/ROOM/NAME.cpp's translation unit from it, the same as
// CMake's, token for token (each kernel keeps its own target attributes, filter.cpp, growth.cpp
// and sizing.cpp their fused-multiply-add pragma); abloom.h, abloom_layout.h and xxHash's
// xxhash.h are copies. Package capi imports this package for that alone and calls the C API (abloom_*) itself: the symbols resolve when
// the program is linked.
//
// With the build tag abloom_system this file is left out, so nothing here is compiled, and
// capi links the installed libabloom through pkg-config instead (capi/link_system.go).
//
// This is the only hand-written file here: the others are generated and never edited (edit
// core/ or capi/ and run scripts/bundle-engine.sh; CI fails when they differ).
//
// The flags are the CMake Release build's (CMakeLists.txt, core/ and capi/CMakeLists.txt):
//
//   - -std=c++20, with exceptions (the C++ default of g++ and clang++);
//   - -O3 -DNDEBUG: they come after Go's default CGO_CXXFLAGS (-O2 -g), so they win, and -g
//     stays (debug information for C frames in profilers and debuggers). Measured against
//     -O2: the batch calls are 5-10% faster, the compile takes about 15% longer;
//   - -fvisibility=hidden -fvisibility-inlines-hidden, as CMake's CXX_VISIBILITY_PRESET: no
//     engine symbol is exported from a shared object built with -buildmode=c-shared or plugin,
//     so it cannot clash with another copy of the library in the process (in an executable the
//     objects link as usual: hidden symbols resolve within one link);
//   - ABLOOM_STATIC_DEFINE: ABLOOM_API expands to nothing, for static linking;
//   - -I${SRCDIR}: the sources include "abloom_engine.hpp", "abloom.h" and <xxhash.h>, and the
//     bundled xxhash.h (pinned 0.8.1) must win over any system one;
//   - no -march: the AVX2 and AVX-512 kernels use function target attributes and are chosen at
//     run time, so one binary runs on any x86-64 CPU.
//
// All of them are in cgo's flag allowlist: users need no CGO_CXXFLAGS_ALLOW.
package engine

/*
#cgo CXXFLAGS: -std=c++20 -O3 -DNDEBUG -fvisibility=hidden -fvisibility-inlines-hidden
#cgo CXXFLAGS: -DABLOOM_STATIC_DEFINE -I${SRCDIR}
#cgo LDFLAGS: -lstdc++ -lm -lpthread
*/
import "C"
