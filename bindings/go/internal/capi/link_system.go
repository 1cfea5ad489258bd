//go:build abloom_system

package capi

// -tags abloom_system: link the C library installed by CMake (libabloom.so.0) through
// pkg-config, with its own headers; nothing of ../engine is compiled. Set PKG_CONFIG_PATH to the
// install's lib/pkgconfig when it is not in a system location, and let the loader find the
// library at run time (an rpath through CGO_LDFLAGS, or LD_LIBRARY_PATH).

/*
#cgo pkg-config: abloom
*/
import "C"
