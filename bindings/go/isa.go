package abloom

import "github.com/abloom/abloom/bindings/go/internal/capi"

// ISA is one of the C library's instruction-set kernels for the blocked kind's hot loops.
//
// The library picks the best kernel the CPU supports at run time (on amd64: scalar, AVX2 or
// AVX-512; on arm64: NEON, which every arm64 CPU has); the environment variable ABLOOM_ISA
// ("scalar", "avx2", "avx512", "neon", "auto"; read once, at the library's first use) or
// [ForceISA] can ask for less. Each architecture runs its own kernels only, so the values are
// names, not an order: compare them for equality. Every kernel sets and tests the same bits, so
// the choice changes speed only, never answers or files.
type ISA uint32

const (
	// ISAScalar is the portable scalar kernel (every CPU).
	ISAScalar ISA = ISA(capi.ABLOOM_ISA_SCALAR)
	// ISAAVX2 is the AVX2 (with BMI2) kernel.
	ISAAVX2 ISA = ISA(capi.ABLOOM_ISA_AVX2)
	// ISAAVX512 is the AVX-512 (F and CD) kernel.
	ISAAVX512 ISA = ISA(capi.ABLOOM_ISA_AVX512)
	// ISANEON is the NEON (Advanced SIMD) kernel: every arm64 CPU, never amd64.
	ISANEON ISA = ISA(capi.ABLOOM_ISA_NEON)
)

// String returns the library's name for the kernel: "scalar", "avx2", "avx512", "neon" or
// "unknown".
func (i ISA) String() string {
	switch i {
	case ISAScalar:
		return "scalar"
	case ISAAVX2:
		return "avx2"
	case ISAAVX512:
		return "avx512"
	case ISANEON:
		return "neon"
	}
	return "unknown"
}

// SupportedISA returns the best kernel this CPU can run.
func SupportedISA() ISA { return ISA(capi.Abloom_isa_supported()) }

// ActiveISA returns the kernel in use now (process-wide).
func ActiveISA() ISA { return ISA(capi.Abloom_get_isa()) }

// ForceISA makes every filter in the process use kernel isa from now on, in the C library's
// batch calls and in the single-key calls made in Go (on amd64, ISAAVX2 and ISAAVX512 run the
// default layout's probe in AVX2 assembly, ISAScalar runs it in Go). It returns an error
// matching [ErrUnsupported] when this CPU cannot run it, and [ErrInvalid] for an unknown value;
// nothing changes then.
func ForceISA(isa ISA) error {
	if rc := capi.Abloom_set_isa(uint(isa)); rc != 0 {
		return newError("ForceISA", rc)
	}
	splitAsm.Store(splitAsmFor(isa)) // the Go-native probe follows (native.go)
	return nil
}
