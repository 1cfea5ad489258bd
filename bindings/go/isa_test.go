package abloom

import (
	"errors"
	"runtime"
	"testing"
)

// The kernels a CPU of this architecture may run besides scalar, and those it never runs.
func isasOf(goarch string) (own, foreign []ISA) {
	switch goarch {
	case "amd64":
		return []ISA{ISAAVX2, ISAAVX512}, []ISA{ISANEON}
	case "arm64":
		return []ISA{ISANEON}, []ISA{ISAAVX2, ISAAVX512}
	}
	return nil, []ISA{ISAAVX2, ISAAVX512, ISANEON}
}

func TestForceISA(t *testing.T) {
	before := ActiveISA()
	defer func() {
		if err := ForceISA(before); err != nil {
			t.Fatalf("restoring %v: %v", before, err)
		}
	}()
	best := SupportedISA()
	own, foreign := isasOf(runtime.GOARCH)
	if best != ISAScalar && !contains(own, best) {
		t.Fatalf("SupportedISA() = %v on %s", best, runtime.GOARCH)
	}
	if runtime.GOARCH == "arm64" && best != ISANEON {
		t.Fatalf("SupportedISA() = %v on arm64, want neon (every arm64 CPU has it)", best)
	}
	if err := ForceISA(ISAScalar); err != nil {
		t.Fatal(err)
	}
	if got := ActiveISA(); got != ISAScalar {
		t.Fatalf("ActiveISA() = %v after forcing scalar", got)
	}
	if splitAsm.Load() {
		t.Fatal("the split probe is still assembly after forcing scalar")
	}
	// Another architecture's kernels, and (amd64) those above the CPU's best, are refused.
	for _, isa := range []ISA{ISAAVX2, ISAAVX512, ISANEON} {
		runs := isa == best || (isa == ISAAVX2 && best == ISAAVX512)
		if runs && contains(foreign, isa) {
			t.Fatalf("%v runs on %s", isa, runtime.GOARCH)
		}
		if runs {
			continue
		}
		if err := ForceISA(isa); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("ForceISA(%v) = %v on a %s CPU whose best is %v, want ErrUnsupported", isa, err, runtime.GOARCH, best)
		}
	}
	if err := ForceISA(ISA(9)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ForceISA(9) = %v, want ErrInvalid", err)
	}
	if got := ActiveISA(); got != ISAScalar || splitAsm.Load() {
		t.Fatalf("a refused force changed the kernel to %v (split probe in assembly: %v)", got, splitAsm.Load())
	}
	if best != ISAScalar {
		if err := ForceISA(best); err != nil || ActiveISA() != best {
			t.Fatalf("ForceISA(%v) = %v, active %v", best, err, ActiveISA())
		}
		// The split probe follows: assembly with the AVX2 and AVX-512 kernels (on amd64).
		if want := splitAsmFor(best); splitAsm.Load() != want {
			t.Fatalf("after ForceISA(%v) the split probe in assembly is %v, want %v", best, splitAsm.Load(), want)
		}
	}
	if ISAAVX2.String() != "avx2" || ISAAVX512.String() != "avx512" || ISANEON.String() != "neon" ||
		ISA(4).String() != "unknown" {
		t.Fatal("ISA names")
	}
}

func contains(list []ISA, isa ISA) bool {
	for _, x := range list {
		if x == isa {
			return true
		}
	}
	return false
}
