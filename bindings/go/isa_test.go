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
	if s := SupportedISA(); s != ISAScalar && s != ISAAVX2 {
		t.Fatalf("SupportedISA() = %v", s)
	}
	if err := ForceISA(ISAScalar); err != nil {
		t.Fatal(err)
	}
	if got := ActiveISA(); got != ISAScalar {
		t.Fatalf("ActiveISA() = %v after forcing scalar", got)
	}
	if err := ForceISA(ISAAVX512); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("ForceISA(avx512) = %v, want ErrUnsupported", err)
	}
	if err := ForceISA(ISA(9)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ForceISA(9) = %v, want ErrInvalid", err)
	}
	if got := ActiveISA(); got != ISAScalar {
		t.Fatalf("a refused force changed the kernel to %v", got)
	}
	if ISAAVX2.String() != "avx2" || ISA(7).String() != "unknown" {
		t.Fatal("ISA names")
	}
}
