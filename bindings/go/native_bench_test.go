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
	"runtime"
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

// benchTests runs sub-benchmark name: test over ks in turn, b.N calls, reporting the share of
// positive answers.
func benchTests(b *testing.B, name string, ks [][]byte, test func([]byte) bool) {
	b.Run(name, func(b *testing.B) {
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
				benchTests(b, "n="+uitoa(uint64(n))+"/"+which+"/"+name, ks, test)
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

// A growing filter's single-key Test: Go over its stages, newest first (stages.go), against the
// cgo path it replaced, the previous Test as it was: the handle held (no acquire/release), the
// hash in Go, one cgo call of abloom_test_hash. The filter holds 100x its first stage's capacity
// (1024 keys, growth 2: 7 stages), 16-byte keys, 1% target; present keys are the ones added,
// absent ones never were, so an absent key probes all 7 stages.
//
//	go test -run '^$' -bench Growing -benchtime 2000000x
func BenchmarkGrowingTest(b *testing.B) {
	const first, keysIn = DefaultInitialCapacity, 100 * DefaultInitialCapacity
	f, err := NewGrowing(0.01, WithInitialCapacity(first))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for from := uint64(0); from < keysIn; from += 1 << 12 {
		if _, err := f.AddBatch(keys(from, min(1<<12, keysIn-from))); err != nil {
			b.Fatal(err)
		}
	}
	seed := f.Info().Seed
	for _, which := range []string{"present", "absent"} {
		base := uint64(0)
		if which == "absent" {
			base = 1 << 40
		}
		ks := keys(base, keysIn)
		run := func(name string, test func([]byte) bool) {
			benchTests(b, "stages="+uitoa(uint64(f.Info().Stages))+"/"+which+"/"+name, ks, test)
		}
		run("native", f.Test)
		run("cgo", func(k []byte) bool { // the previous Test: the handle held, as now
			hd := f.load()
			r := capi.TestHash(hd.nat.h, xxh3.HashSeed(k, seed)) == 1
			runtime.KeepAlive(hd)
			return r
		})
	}
}

// A growing filter's single-key Add (the engine's test-and-add and the stage count after it, in
// one cgo call, then a publication when a stage appeared: stages.go) against the previous Add, a
// bare cgo call of abloom_test_and_add_hash: what reading the count costs each add. Each runs on a
// filter of its own whose first stage holds every key (the steady state appends none), adding
// the same 2M keys, all new the first time round.
func BenchmarkGrowingAdd(b *testing.B) {
	var k [16]byte
	run := func(name string, add func(f *Filter, seed uint64, k []byte)) {
		b.Run(name, func(b *testing.B) {
			f, err := NewGrowing(0.01, WithInitialCapacity(1<<22))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			seed := f.Info().Seed
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				putKey(k[:], uint64(i&(1<<21-1)))
				add(f, seed, k[:])
			}
		})
	}
	run("native", func(f *Filter, _ uint64, k []byte) { _ = f.Add(k) })
	run("cgo", func(f *Filter, seed uint64, k []byte) { // the previous Add, the handle held
		hd := f.load()
		_ = capi.TestAndAddHash(hd.nat.h, xxh3.HashSeed(k, seed))
		runtime.KeepAlive(hd)
	})
}
