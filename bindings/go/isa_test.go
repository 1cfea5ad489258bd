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
	for isa := best + 1; isa <= ISAAVX512; isa++ {
		if err := ForceISA(isa); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("ForceISA(%v) = %v on a CPU whose best is %v, want ErrUnsupported", isa, err, best)
		}
	}
	if err := ForceISA(ISA(9)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ForceISA(9) = %v, want ErrInvalid", err)
	}
	if got := ActiveISA(); got != ISAScalar {
		t.Fatalf("a refused force changed the kernel to %v", got)
	}
	if best != ISAScalar {
		if err := ForceISA(best); err != nil || ActiveISA() != best {
			t.Fatalf("ForceISA(%v) = %v, active %v", best, err, ActiveISA())
		}
	}
	if ISAAVX2.String() != "avx2" || ISAAVX512.String() != "avx512" || ISA(7).String() != "unknown" {
		t.Fatal("ISA names")
	}
}
