package abloom

// What the Go-native single-key path costs against the cgo call it replaced, and what its Close
// guard costs: the handle that Filter.Test and Add hold (a plain load), against the counted
// guard of the cgo calls (acquire/release: two uncontended atomic adds on a per-goroutine-stack
// stripe) and against no guard at all.
// 16-byte keys, 1% target, default shape; a pool of up to 1M keys, present or absent.
//
//	go test -run '^$' -bench NativeTest -benchtime 2s -args -native-sizes=1M,100M
//
// guarded: Filter.Test or Add (what users call); counted: the same probe between
// acquire/release; unguarded: the probe alone (not safe against a concurrent Close: measurement
// only); unguarded-go-probe: the same with the split layout's Go probe, on CPUs where its
// assembly runs; cgo: the path before the Go-native one, a cgo call between acquire/release.

import (
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/abloom/abloom/bindings/go/internal/capi"
	"github.com/zeebo/xxh3"
)

var nativeSizes = flag.String("native-sizes", "1M", "key counts for BenchmarkNative*, e.g. 1M,100M")

func nativeBenchSizes(b *testing.B) []int {
	var out []int
	for _, s := range strings.Split(*nativeSizes, ",") {
		mult := 1
		if strings.HasSuffix(s, "M") {
			mult, s = 1_000_000, strings.TrimSuffix(s, "M")
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("bad -native-sizes entry %q", s)
		}
		out = append(out, v*mult)
	}
	return out
}

func BenchmarkNativeTest(b *testing.B) {
	for _, n := range nativeBenchSizes(b) {
		f, err := New(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		nat := &f.live.Load().nat
		for from := 0; from < n; from += 1 << 16 {
			if _, err := f.AddBatch(keys(uint64(from), uint64(min(1<<16, n-from)))); err != nil {
				b.Fatal(err)
			}
		}
		pool := min(n, 1<<20)
		for _, which := range []string{"present", "absent"} {
			base := uint64(0)
			if which == "absent" {
				base = 1 << 40
			}
			ks := keys(base, uint64(pool))
			run := func(name string, test func([]byte) bool) {
				b.Run("n="+uitoa(uint64(n))+"/"+which+"/"+name, func(b *testing.B) {
					pos, j := 0, 0
					for i := 0; i < b.N; i++ {
						if test(ks[j]) {
							pos++
						}
						if j++; j == len(ks) {
							j = 0
						}
					}
					b.ReportMetric(float64(pos)/float64(b.N), "positive/key")
				})
			}
			run("guarded", f.Test)
			run("counted", func(k []byte) bool {
				h := xxh3.HashSeed(k, nat.seed)
				ref := f.acquire()
				r := nat.test(h)
				ref.release()
				return r
			})
			run("unguarded", func(k []byte) bool { return nat.test(xxh3.HashSeed(k, nat.seed)) })
			if nat.probe == probeSplit && splitAsm.Load() { // the Go probe where assembly runs
				run("unguarded-go-probe", func(k []byte) bool {
					h := xxh3.HashSeed(k, nat.seed)
					return testSplit(nat.block(nat.shards, h), h, nat.k)
				})
			}
			run("cgo", func(k []byte) bool {
				ref := f.acquire()
				r := capi.Test(f.h, k) == 1
				ref.release()
				return r
			})
		}
		_ = f.Close()
	}
}

func BenchmarkNativeAdd(b *testing.B) {
	for _, n := range nativeBenchSizes(b) {
		for _, mode := range []WriterMode{SharedWriters, ExclusiveWriter} {
			f, err := New(uint64(n), 0.01)
			if err != nil {
				b.Fatal(err)
			}
			_ = f.SetWriterMode(mode)
			nat := &f.live.Load().nat
			var k [16]byte
			run := func(name string, add func([]byte)) {
				b.Run("n="+uitoa(uint64(n))+"/"+mode.String()+"/"+name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if i%n == 0 && i > 0 {
							b.StopTimer()
							_ = f.Clear()
							b.StartTimer()
						}
						putKey(k[:], uint64(i%n))
						add(k[:])
					}
				})
			}
			run("guarded", func(k []byte) { _ = f.Add(k) })
			run("counted", func(k []byte) {
				h := xxh3.HashSeed(k, nat.seed)
				ref := f.acquire()
				_, _ = nat.add(h)
				ref.release()
			})
			run("unguarded", func(k []byte) { _, _ = nat.add(xxh3.HashSeed(k, nat.seed)) })
			run("cgo", func(k []byte) {
				ref := f.acquire()
				_ = capi.Add(f.h, k)
				ref.release()
			})
			_ = f.Close()
		}
	}
}
