package abloom

import (
	"testing"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// What the safety machinery (the in-flight count that lets Close wait, KeepAlive) adds to a
// single Test over calling the C function directly. README.md quotes the difference.
func BenchmarkOverheadTestRaw(b *testing.B) {
	f := filledForBench(b)
	var k [16]byte
	for i := 0; i < b.N; i++ {
		putKey(k[:], uint64(i))
		capi.Test(f.h, k[:])
	}
}

func BenchmarkOverheadTestFilter(b *testing.B) {
	f := filledForBench(b)
	var k [16]byte
	for i := 0; i < b.N; i++ {
		putKey(k[:], uint64(i))
		f.Test(k[:])
	}
}

func filledForBench(b *testing.B) *Filter {
	f := mustNew(b, 1_000_000, 0.01)
	if _, err := f.AddBatch(keys(0, 100000)); err != nil {
		b.Fatal(err)
	}
	return f
}
