//go:build !abloom_system

package capi

// The default build: the engine is compiled from the copy in ../engine (package engine, imported
// below for that alone) and linked into the program, so nothing needs to be installed. The
// headers come from the same copy, so they always match the code. These #cgo flags apply to
// every C file of the package (abloom_wrap.c and the preamble of fast.go).

/*
#cgo CFLAGS: -I${SRCDIR}/../engine -DABLOOM_STATIC_DEFINE
*/
import "C"

import _ "github.com/abloom/abloom/bindings/go/internal/engine" // the engine's objects
