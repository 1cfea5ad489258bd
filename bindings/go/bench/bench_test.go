package bench

import (
	"encoding/binary"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	abloom "github.com/abloom/abloom/bindings/go"
	"github.com/bits-and-blooms/bloom/v3"
)

// Side-by-side benchmarks of abloom (through the Go binding) and native Go filters on the
// same 16-byte keys, at a 1% target FPR:
//
//	abloom         this binding, default blocked kind
//	bitsandblooms  github.com/bits-and-blooms/bloom/v3 (classic, k hashes from one murmur3)
//	blockedgo      a pure-Go cache-line-blocked filter, the design of github.com/jcalabro/gloom
//	               (which the module proxy does not serve here), see blockedgo_test.go
//
// Every figure is ns per key. Sizes: -sizes=1M (default, quick) or -sizes=1M,100M:
//
//	go test -run '^$' -bench . -args -sizes=1M,100M
//
// Keys are derived from an index with a fixed seed (splitmix64). Test benchmarks probe a pool
// of up to 1M keys, already added ("present") or never added ("absent"), spread over the whole
// filter by the hash; Add benchmarks make their keys on the fly (the same cost for every
// filter) and start from an empty filter again every n keys, with the timer stopped.

var sizesFlag = flag.String("sizes", "1M", "comma-separated key counts (1M, 100M, 250K or plain numbers)")

const fpr = 0.01

func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "M"):
		mult, s = 1_000_000, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1_000, strings.TrimSuffix(s, "K")
	}
	v, err := strconv.Atoi(s)
	return v * mult, err
}

func sizes(b *testing.B) []string {
	var out []string
	for _, s := range strings.Split(*sizesFlag, ",") {
		if _, err := parseSize(s); err != nil {
			b.Fatalf("bad -sizes entry %q", s)
		}
		out = append(out, s)
	}
	return out
}

func mix(z uint64) uint64 {
	z += 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// putKey writes key number i (16 bytes) to b.
func putKey(b []byte, i uint64) {
	binary.LittleEndian.PutUint64(b, mix(i))
	binary.LittleEndian.PutUint64(b[8:], mix(i^0xA5A5A5A5A5A5A5A5))
}

// absentBase numbers the keys never added.
const absentBase = 1 << 62

// pool is a set of keys in one flat buffer, with slice and string views into it.
type pool struct {
	flat  []byte
	views [][]byte
	strs  []string
}

func newPool(from uint64, n int) *pool {
	p := &pool{flat: make([]byte, 16*n), views: make([][]byte, n), strs: make([]string, n)}
	for i := 0; i < n; i++ {
		k := p.flat[16*i : 16*i+16 : 16*i+16]
		putKey(k, from+uint64(i))
		p.views[i] = k
		p.strs[i] = unsafe.String(&k[0], len(k)) // the buffer is never written again
	}
	return p
}

// env is one size's filters, filled with keys 0..n-1, and its probe pools.
type env struct {
	n               int
	present, absent *pool
	ab              *abloom.Filter
	bb              *bloom.BloomFilter
	bg              *blockedGo
	plan            abloom.Plan
}

var (
	envMu sync.Mutex
	envs  = map[string]*env{}
)

func getEnv(b *testing.B, size string) *env {
	envMu.Lock()
	defer envMu.Unlock()
	if e, ok := envs[size]; ok {
		return e
	}
	b.StopTimer()
	defer b.StartTimer()
	n, _ := parseSize(size)
	// One size at a time in memory: 100M keys take ~120 MB per filter.
	for k, e := range envs {
		_ = e.ab.Close()
		delete(envs, k)
	}
	e := &env{n: n}
	var err error
	if e.ab, err = abloom.New(uint64(n), fpr); err != nil {
		b.Fatal(err)
	}
	if e.plan, err = abloom.ComputePlan(uint64(n), fpr); err != nil {
		b.Fatal(err)
	}
	e.bb = bloom.NewWithEstimates(uint(n), fpr)
	e.bg = newBlockedGo(e.plan.Bits, e.plan.K)
	const step = 1 << 16
	for from := 0; from < n; from += step {
		chunk := newPool(uint64(from), min(step, n-from))
		if _, err := e.ab.AddBatch(chunk.views); err != nil {
			b.Fatal(err)
		}
		for _, k := range chunk.views {
			e.bb.Add(k)
			e.bg.Add(k)
		}
	}
	p := min(n, 1<<20)
	e.present = newPool(0, p)
	e.absent = newPool(absentBase, p)
	envs[size] = e
	return e
}

// probe runs test over the keys (a pool's byte or string views), b.N keys in all, and
// reports the positive rate.
func probe[K []byte | string](b *testing.B, keys []K, test func(K) bool) {
	j, pos := 0, 0
	for i := 0; i < b.N; i++ {
		if test(keys[j]) {
			pos++
		}
		if j++; j == len(keys) {
			j = 0
		}
	}
	b.ReportMetric(float64(pos)/float64(b.N), "positive/key")
}

// eachPool runs body as n=SIZE/present and n=SIZE/absent for every size, with the size's
// filters and that pool of keys.
func eachPool(b *testing.B, body func(b *testing.B, e *env, p *pool)) {
	for _, size := range sizes(b) {
		for _, which := range []string{"present", "absent"} {
			b.Run(fmt.Sprintf("n=%s/%s", size, which), func(b *testing.B) {
				e := getEnv(b, size)
				p := e.present
				if which == "absent" {
					p = e.absent
				}
				body(b, e, p)
			})
		}
	}
}

func BenchmarkTest(b *testing.B) {
	eachPool(b, func(b *testing.B, e *env, p *pool) {
		b.Run("abloom", func(b *testing.B) { probe(b, p.views, e.ab.Test) })
		b.Run("bitsandblooms", func(b *testing.B) { probe(b, p.views, e.bb.Test) })
		b.Run("blockedgo", func(b *testing.B) { probe(b, p.views, e.bg.Test) })
	})
}

// BenchmarkTestString: the same keys as strings. blockedgo has no string call; it tests the
// string's bytes, viewed without a copy, as a caller of a []byte-only filter would.
func BenchmarkTestString(b *testing.B) {
	eachPool(b, func(b *testing.B, e *env, p *pool) {
		b.Run("abloom", func(b *testing.B) { probe(b, p.strs, e.ab.TestString) })
		b.Run("bitsandblooms", func(b *testing.B) { probe(b, p.strs, e.bb.TestString) })
		b.Run("blockedgo", func(b *testing.B) {
			probe(b, p.strs, func(s string) bool { return e.bg.Test(unsafe.Slice(unsafe.StringData(s), len(s))) })
		})
	})
}

const batch = 1024

// BenchmarkTestBatch: abloom tests 1024 keys per call (TestBatch); the native filters, which
// have no batch call, loop over the same keys.
func BenchmarkTestBatch(b *testing.B) {
	eachPool(b, func(b *testing.B, e *env, p *pool) {
		loop := func(b *testing.B, test func(keys [][]byte, res []bool) int) {
			res := make([]bool, batch)
			pos := 0
			j := 0
			for done := 0; done < b.N; {
				m := min(batch, b.N-done, len(p.views)-j)
				pos += test(p.views[j:j+m], res[:m])
				if j += m; j == len(p.views) {
					j = 0
				}
				done += m
			}
			b.ReportMetric(float64(pos)/float64(b.N), "positive/key")
		}
		b.Run("abloom", func(b *testing.B) {
			loop(b, func(keys [][]byte, res []bool) int {
				n, err := e.ab.TestBatch(keys, res)
				if err != nil {
					b.Fatal(err)
				}
				return n
			})
		})
		native := func(test func([]byte) bool) func(keys [][]byte, res []bool) int {
			return func(keys [][]byte, res []bool) int {
				n := 0
				for i, k := range keys {
					res[i] = test(k)
					if res[i] {
						n++
					}
				}
				return n
			}
		}
		b.Run("bitsandblooms", func(b *testing.B) { loop(b, native(e.bb.Test)) })
		b.Run("blockedgo", func(b *testing.B) { loop(b, native(e.bg.Test)) })
	})
}

// addLoop adds b.N fresh keys (made on the fly), clearing the filter every n keys with the
// timer stopped.
func addLoop(b *testing.B, n int, clear func(), add func([]byte)) {
	var k [16]byte
	for i := 0; i < b.N; i++ {
		if i%n == 0 && i > 0 {
			b.StopTimer()
			clear()
			b.StartTimer()
		}
		putKey(k[:], uint64(i%n))
		add(k[:])
	}
}

func BenchmarkAdd(b *testing.B) {
	for _, size := range sizes(b) {
		b.Run("n="+size, func(b *testing.B) {
			n, _ := parseSize(size)
			plan, _ := abloom.ComputePlan(uint64(n), fpr)
			b.Run("abloom", func(b *testing.B) {
				f, err := abloom.New(uint64(n), fpr)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				addLoop(b, n, func() { _ = f.Clear() }, func(k []byte) {
					if err := f.Add(k); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run("bitsandblooms", func(b *testing.B) {
				f := bloom.NewWithEstimates(uint(n), fpr)
				addLoop(b, n, func() { f.ClearAll() }, func(k []byte) { f.Add(k) })
			})
			b.Run("blockedgo", func(b *testing.B) {
				f := newBlockedGo(plan.Bits, plan.K)
				addLoop(b, n, f.Clear, f.Add)
			})
		})
	}
}

// BenchmarkAddBatch: abloom adds 1024 keys per call; the others loop.
func BenchmarkAddBatch(b *testing.B) {
	for _, size := range sizes(b) {
		b.Run("n="+size, func(b *testing.B) {
			n, _ := parseSize(size)
			plan, _ := abloom.ComputePlan(uint64(n), fpr)
			loop := func(b *testing.B, clear func(), add func([][]byte)) {
				chunk := newPool(0, batch)
				next := 0
				for i := 0; i < b.N; i += batch {
					m := min(batch, b.N-i)
					if next+m > n {
						b.StopTimer()
						clear()
						next = 0
						b.StartTimer()
					}
					for j := 0; j < m; j++ {
						putKey(chunk.views[j], uint64(next+j))
					}
					add(chunk.views[:m])
					next += m
				}
			}
			b.Run("abloom", func(b *testing.B) {
				f, err := abloom.New(uint64(n), fpr)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				loop(b, func() { _ = f.Clear() }, func(ks [][]byte) {
					if _, err := f.AddBatch(ks); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run("bitsandblooms", func(b *testing.B) {
				f := bloom.NewWithEstimates(uint(n), fpr)
				loop(b, func() { f.ClearAll() }, func(ks [][]byte) {
					for _, k := range ks {
						f.Add(k)
					}
				})
			})
			b.Run("blockedgo", func(b *testing.B) {
				f := newBlockedGo(plan.Bits, plan.K)
				loop(b, f.Clear, func(ks [][]byte) {
					for _, k := range ks {
						f.Add(k)
					}
				})
			})
		})
	}
}

// BenchmarkAddParallel: concurrent adds from GOMAXPROCS goroutines. abloom is lock-free;
// bits-and-blooms is not safe for concurrent use, so it gets a mutex (what a Go service would
// do); blockedgo uses atomic ORs (like gloom's AtomicFilter). The filters are not cleared: the
// keys wrap around at n.
func BenchmarkAddParallel(b *testing.B) {
	for _, size := range sizes(b) {
		b.Run("n="+size, func(b *testing.B) {
			n, _ := parseSize(size)
			plan, _ := abloom.ComputePlan(uint64(n), fpr)
			par := func(b *testing.B, add func([]byte)) {
				var next atomic.Uint64
				b.RunParallel(func(pb *testing.PB) {
					var k [16]byte
					i := next.Add(1<<40) % uint64(n) // each goroutine its own run of keys
					for pb.Next() {
						putKey(k[:], i)
						add(k[:])
						if i++; i == uint64(n) {
							i = 0
						}
					}
				})
			}
			b.Run("abloom", func(b *testing.B) {
				f, err := abloom.New(uint64(n), fpr)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				par(b, func(k []byte) { _ = f.Add(k) })
			})
			b.Run("bitsandblooms+mutex", func(b *testing.B) {
				f := bloom.NewWithEstimates(uint(n), fpr)
				var mu sync.Mutex
				par(b, func(k []byte) {
					mu.Lock()
					f.Add(k)
					mu.Unlock()
				})
			})
			b.Run("blockedgo-atomic", func(b *testing.B) {
				f := newBlockedGo(plan.Bits, plan.K)
				par(b, f.AddAtomic)
			})
		})
	}
}

// BenchmarkTestParallel: concurrent tests of present keys.
func BenchmarkTestParallel(b *testing.B) {
	for _, size := range sizes(b) {
		b.Run("n="+size, func(b *testing.B) {
			e := getEnv(b, size)
			par := func(b *testing.B, test func([]byte) bool) {
				var next atomic.Uint64
				b.RunParallel(func(pb *testing.PB) {
					j := int(next.Add(7919)) % len(e.present.views)
					for pb.Next() {
						if !test(e.present.views[j]) {
							b.Error("false negative")
						}
						if j++; j == len(e.present.views) {
							j = 0
						}
					}
				})
			}
			b.Run("abloom", func(b *testing.B) { par(b, e.ab.Test) })
			b.Run("bitsandblooms", func(b *testing.B) { par(b, e.bb.Test) })
			b.Run("blockedgo", func(b *testing.B) { par(b, e.bg.Test) })
		})
	}
}
