package abloom

import (
	"encoding/binary"
	"math"
	"testing"
)

// key returns a 16-byte key derived from i and a fixed seed (splitmix64), so every test and
// benchmark sees the same keys.
func key(i uint64) []byte {
	b := make([]byte, 16)
	putKey(b, i)
	return b
}

func putKey(b []byte, i uint64) {
	binary.LittleEndian.PutUint64(b, mix(i^0x5eed))
	binary.LittleEndian.PutUint64(b[8:], mix(i+0x9E3779B97F4A7C15))
}

func mix(z uint64) uint64 {
	z += 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func keys(from, n uint64) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = key(from + uint64(i))
	}
	return out
}

func mustNew(t testing.TB, capacity uint64, fpr float64, opts ...Option) *Filter {
	t.Helper()
	f, err := New(capacity, fpr, opts...)
	if err != nil {
		t.Fatalf("New(%d, %g): %v", capacity, fpr, err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// binomialBounds returns [lo, hi] holding a Binomial(n, p) count with overwhelming probability
// (mean +- 6 standard deviations, plus 3 for small counts).
func binomialBounds(n int, p float64) (lo, hi float64) {
	mean := float64(n) * p
	sd := math.Sqrt(float64(n) * p * (1 - p))
	return math.Max(0, mean-6*sd-3), mean + 6*sd + 3
}
