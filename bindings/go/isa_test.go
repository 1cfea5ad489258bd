package abloom

import (
	"errors"
	"testing"
)

func TestForceISA(t *testing.T) {
	before := ActiveISA()
	defer func() {
		if err := ForceISA(before); err != nil {
			t.Fatalf("restoring %v: %v", before, err)
		}
	}()
	best := SupportedISA()
	if best != ISAScalar && best != ISAAVX2 && best != ISAAVX512 {
		t.Fatalf("SupportedISA() = %v", best)
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
	for isa := best + 1; isa <= ISAAVX512; isa++ {
		if err := ForceISA(isa); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("ForceISA(%v) = %v on a CPU whose best is %v, want ErrUnsupported", isa, err, best)
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
	if ISAAVX2.String() != "avx2" || ISAAVX512.String() != "avx512" || ISA(7).String() != "unknown" {
		t.Fatal("ISA names")
	}
}
