package capi

import (
	"encoding/binary"
	"testing"
)

// The two ways to call abloom_test from Go: SWIG's generated wrapper, and the hand-written
// noescape/nocallback cgo call (fast.go). The filter is small (in cache), so the figures are
// the per-call overhead plus a cached probe. README.md quotes them.

func benchFilter(b *testing.B) uintptr {
	out := []uintptr{0}
	if rc := Abloom_new(100000, 0.01, out); rc != 0 {
		b.Fatal(Strerror(rc))
	}
	b.Cleanup(func() { Abloom_free(out[0]) })
	return out[0]
}

func BenchmarkTestSWIG(b *testing.B) {
	f := benchFilter(b)
	var k [16]byte
	for i := 0; i < b.N; i++ {
		binary.LittleEndian.PutUint64(k[:], uint64(i))
		Abloom_test(f, k[:])
	}
}

func BenchmarkTestFast(b *testing.B) {
	f := benchFilter(b)
	var k [16]byte
	for i := 0; i < b.N; i++ {
		binary.LittleEndian.PutUint64(k[:], uint64(i))
		Test(f, k[:])
	}
}

func BenchmarkTestPackedSWIG(b *testing.B) {
	f := benchFilter(b)
	const n = 1024
	buf := make([]byte, 16*n)
	offs := make([]uint64, n+1)
	for i := range offs {
		offs[i] = uint64(16 * i)
	}
	res := make([]byte, n)
	found := []uint64{0}
	for i := 0; i < b.N; i += n {
		binary.LittleEndian.PutUint64(buf, uint64(i))
		Abloom_test_packed(f, buf, offs, n, res, found)
	}
}

func BenchmarkTestPackedFast(b *testing.B) {
	f := benchFilter(b)
	const n = 1024
	buf := make([]byte, 16*n)
	offs := make([]uint64, n+1)
	for i := range offs {
		offs[i] = uint64(16 * i)
	}
	res := make([]byte, n)
	for i := 0; i < b.N; i += n {
		binary.LittleEndian.PutUint64(buf, uint64(i))
		TestPacked(f, buf, offs, n, unsafePointer(res))
	}
}
