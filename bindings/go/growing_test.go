package abloom

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// Growing filters (NewGrowing): a chain of stages, each growth times the last, whose FPR stays
// below the target at any count.

func mustGrowing(t testing.TB, fpr float64, opts ...Option) *Filter {
	t.Helper()
	f, err := NewGrowing(fpr, opts...)
	if err != nil {
		t.Fatalf("NewGrowing(%g): %v", fpr, err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func mustAddBatch(t testing.TB, f *Filter, ks [][]byte) {
	t.Helper()
	if _, err := f.AddBatch(ks); err != nil {
		t.Fatal(err)
	}
}

// allPresent checks every key with Test and with TestBatch.
func allPresent(t testing.TB, f *Filter, ks [][]byte, what string) {
	t.Helper()
	for i, k := range ks {
		if !f.Test(k) {
			t.Fatalf("%s: key %d of %d missing (Test)", what, i, len(ks))
		}
	}
	res := make([]bool, len(ks))
	if n, err := f.TestBatch(ks, res); err != nil || n != len(ks) {
		t.Fatalf("%s: TestBatch found %d of %d (%v)", what, n, len(ks), err)
	}
}

// falsePositives counts the keys of absent that test present, singly and in one batch (the two
// must agree).
func falsePositives(t testing.TB, f *Filter, absent [][]byte) int {
	t.Helper()
	single := 0
	for _, k := range absent {
		if f.Test(k) {
			single++
		}
	}
	res := make([]bool, len(absent))
	n, err := f.TestBatch(absent, res)
	if err != nil || n != single {
		t.Fatalf("TestBatch counts %d false positives, Test %d (%v)", n, single, err)
	}
	return single
}

func TestGrowingConstantsMatchHeader(t *testing.T) {
	if DefaultGrowth != capi.ABLOOM_DEFAULT_GROWTH || MaxGrowth != capi.ABLOOM_MAX_GROWTH ||
		DefaultInitialCapacity != capi.ABLOOM_DEFAULT_INITIAL_CAPACITY || MaxStages != capi.ABLOOM_MAX_STAGES {
		t.Fatalf("constants %v %v %v %v differ from abloom.h's", DefaultGrowth, MaxGrowth, DefaultInitialCapacity, MaxStages)
	}
}

// The FPR stays below the target at 10x and 100x the first stage's capacity, where a fixed filter
// of the first stage's size is long past its own.
func TestGrowingHoldsItsFPR(t *testing.T) {
	const first, target = 1000, 0.01
	f := mustGrowing(t, target, WithInitialCapacity(first), WithSeed(0x6A0E))
	absent := keys(1<<40, 200_000)
	added := uint64(0)
	for _, n := range []uint64{10 * first, 100 * first} {
		mustAddBatch(t, f, keys(added, n-added))
		added = n
		info := f.Info()
		fp, err := GrowthFootprint(n, target, WithInitialCapacity(first))
		if err != nil {
			t.Fatal(err)
		}
		// The fewest stages of 1000, 2000, 4000, ... that hold n keys.
		stages := uint32(0)
		for c, total := uint64(first), uint64(0); total < n; c *= 2 {
			total += c
			stages++
		}
		if info.Stages != stages || fp.Stages != stages || info.Bytes != fp.Bytes || info.ExpectedFPR != fp.FPRBound {
			t.Fatalf("%d keys: info %+v, footprint %+v, want %d stages", n, info, fp, stages)
		}
		if info.Capacity != first*(1<<stages-1) || info.GrowthFailed || info.Growth != DefaultGrowth {
			t.Fatalf("%d keys: info %+v", n, info)
		}
		if !(info.ExpectedFPR > 0 && info.ExpectedFPR < target) || info.TargetFPR != target {
			t.Fatalf("%d keys: the bound %g is not below the target %g", n, info.ExpectedFPR, info.TargetFPR)
		}
		// New keys counted: all but the few a false positive made look present.
		if lo, _ := binomialBounds(int(n), info.ExpectedFPR); info.Keys > n || float64(info.Keys) < lo {
			t.Fatalf("%d keys: %d counted as new", n, info.Keys)
		}
		allPresent(t, f, keys(0, n), "growing")
		// The false positives among 200k absent keys: Binomial(200k, p), p below the bound.
		got := falsePositives(t, f, absent)
		if _, hi := binomialBounds(len(absent), info.ExpectedFPR); float64(got) > hi {
			t.Fatalf("%d keys: %d false positives of %d, above the bound's %g", n, got, len(absent), hi)
		}
		t.Logf("%d keys, %d stages: %d false positives of %d (bound %.4g)", n, stages, got, len(absent), info.ExpectedFPR)
	}
	// A fixed filter of the first stage's capacity, given 10x its keys, is far above the target:
	// the check above is one that a filter that did not grow fails.
	fixed := mustNew(t, first, target, WithSeed(0x6A0E))
	mustAddBatch(t, fixed, keys(0, 10*first))
	if got := falsePositives(t, fixed, absent[:20_000]); got < 20_000*10*target {
		t.Fatalf("a full fixed filter shows only %d false positives of 20000", got)
	}
}

// Keys stay present across stage boundaries, added one at a time or in batches that straddle
// them, and every add is seen by the test that follows it.
func TestGrowingNoFalseNegativesAcrossStages(t *testing.T) {
	for _, growth := range []float64{1.5, DefaultGrowth, MaxGrowth} {
		t.Run("growth="+uitoa(uint64(growth*10))+"/10", func(t *testing.T) {
			ks := keys(0, 5000)
			single := mustGrowing(t, 0.01, WithInitialCapacity(100), WithGrowth(growth))
			stages := uint32(1)
			for i, k := range ks {
				if i%2 == 0 {
					if err := single.Add(k); err != nil {
						t.Fatal(err)
					}
				} else if _, err := single.TestAndAdd(k); err != nil {
					t.Fatal(err)
				}
				if !single.Test(k) {
					t.Fatalf("key %d missing right after its add", i)
				}
				if found, err := single.TestAndAdd(k); err != nil || !found {
					t.Fatalf("key %d: a second TestAndAdd says new (%v)", i, err)
				}
				if s := single.Info().Stages; s != stages {
					// A stage was appended: every key so far is still there.
					stages = s
					allPresent(t, single, ks[:i+1], "after a new stage")
				}
			}
			if want, _ := GrowthFootprint(uint64(len(ks)), 0.01, WithInitialCapacity(100), WithGrowth(growth)); stages < 2 || stages != want.Stages {
				t.Fatalf("%d stages, footprint says %d", stages, want.Stages)
			}
			batch := mustGrowing(t, 0.01, WithInitialCapacity(100), WithGrowth(growth))
			for i := 0; i < len(ks); i += 77 {
				end := min(i+77, len(ks))
				mustAddBatch(t, batch, ks[i:end])
				allPresent(t, batch, ks[:end], "batch")
			}
			if batch.Info().Stages != stages {
				t.Fatalf("batch adds made %d stages, single adds %d", batch.Info().Stages, stages)
			}
		})
	}
}

// Writers add (single keys and batches) from 1 and 8 goroutines while readers test the keys
// already added: no false negative at any time, though stages are appended meanwhile.
func TestGrowingConcurrentAddTest(t *testing.T) {
	for _, writers := range []int{1, 8} {
		t.Run(uitoa(uint64(writers))+"-writers", func(t *testing.T) {
			perWriter := uint64(16000 / writers)
			f := mustGrowing(t, 0.01, WithInitialCapacity(64))
			progress := make([]atomic.Uint64, writers)
			var checked atomic.Int64
			var failed atomic.Bool // a reader found a key missing (and stopped)
			var readers sync.WaitGroup
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					base := uint64(w) * perWriter
					for i := uint64(0); i < perWriter; {
						if i%200 < 100 {
							var err error
							if i%2 == 0 {
								err = f.Add(key(base + i))
							} else {
								_, err = f.TestAndAdd(key(base + i))
							}
							if err != nil {
								t.Error(err)
								return
							}
							i++
						} else {
							n := min(uint64(25), perWriter-i)
							if _, err := f.AddBatch(keys(base+i, n)); err != nil {
								t.Error(err)
								return
							}
							i += n
						}
						progress[w].Store(i) // published after the add returned
						if i >= perWriter/2 {
							// Halfway, wait for the readers to have checked some keys, so that
							// they do while stages are still being appended, however fast the
							// writers run.
							for checked.Load() == 0 && !failed.Load() {
								runtime.Gosched()
							}
						}
					}
				}(w)
			}
			for r := 0; r < 2; r++ {
				readers.Add(1)
				go func(r int) {
					defer readers.Done()
					res := make([]bool, 16)
					for j := uint64(r); ; j++ {
						select {
						case <-stop:
							return
						default:
						}
						w := int(j) % writers
						upto := progress[w].Load()
						if upto == 0 {
							continue
						}
						base := uint64(w) * perWriter
						// The newest key published, and a batch of the ones before it.
						if !f.Test(key(base + upto - 1)) {
							t.Errorf("writer %d's key %d missing after its add returned", w, upto-1)
							failed.Store(true)
							return
						}
						from := upto - min(upto, 16)
						if n, err := f.TestBatch(keys(base+from, upto-from), res); err != nil || n != int(upto-from) {
							t.Errorf("writer %d's keys %d..%d: %d found (%v)", w, from, upto, n, err)
							failed.Store(true)
							return
						}
						checked.Add(1)
					}
				}(r)
			}
			wg.Wait()
			close(stop)
			readers.Wait()
			if checked.Load() == 0 {
				t.Fatal("the readers checked nothing")
			}
			total := uint64(writers) * perWriter
			allPresent(t, f, keys(0, total), "after the writers")
			if s := f.Info().Stages; s < 6 {
				t.Fatalf("only %d stages: the test did not grow the filter", s)
			}
		})
	}
}

// Of goroutines that TestAndAdd the same new keys at once, at least one is told each is new.
func TestGrowingConcurrentTestAndAdd(t *testing.T) {
	const goroutines, n = 4, 3000
	f := mustGrowing(t, 0.01, WithInitialCapacity(100))
	newCount := make([]atomic.Int32, n)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range uint64(n) {
				found, err := f.TestAndAdd(key(i))
				if err != nil {
					t.Error(err)
					return
				}
				if !found {
					newCount[i].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	missed := 0
	for i := range newCount {
		if newCount[i].Load() == 0 {
			missed++ // every caller saw it present: only a false positive allows that
		}
	}
	if _, hi := binomialBounds(n, 0.01); float64(missed) > hi {
		t.Fatalf("%d of %d keys were never reported new", missed, n)
	}
	allPresent(t, f, keys(0, n), "TestAndAdd")
}

// The calls the C library refuses for growing filters give ErrUnsupported, naming the call, and
// change nothing.
func TestGrowingUnsupportedCalls(t *testing.T) {
	a := mustGrowing(t, 0.01, WithInitialCapacity(100))
	b := mustGrowing(t, 0.01, WithInitialCapacity(100))
	mustAddBatch(t, a, keys(0, 1000))
	mustAddBatch(t, b, keys(500, 1000))
	before, _ := a.MarshalBinary()
	err := a.Intersect(b)
	if !errors.Is(err, ErrUnsupported) || !strings.HasPrefix(err.Error(), "abloom: Intersect: ") {
		t.Fatalf("Intersect of growing filters: %v", err)
	}
	if after, _ := a.MarshalBinary(); !bytes.Equal(before, after) {
		t.Fatal("a refused Intersect changed the filter")
	}
}

// Union combines growing filters made with the same options, stage by stage; Equal, Clone and
// Clear work on the whole chain.
func TestGrowingSetOperations(t *testing.T) {
	opts := []Option{WithInitialCapacity(1000), WithSeed(5)}
	a := mustGrowing(t, 0.01, opts...)
	b := mustGrowing(t, 0.01, opts...)
	mustAddBatch(t, a, keys(0, 3000))
	mustAddBatch(t, b, keys(3000, 9000))
	if a.Info().Stages != 2 || b.Info().Stages != 4 {
		t.Fatalf("stages %d and %d, want 2 and 4", a.Info().Stages, b.Info().Stages)
	}
	c, err := a.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := a.Union(b); err != nil {
		t.Fatal(err)
	}
	// a grew to b's stage count; it holds both sets of keys.
	if info := a.Info(); info.Stages != 4 || info.Keys != c.Info().Keys+b.Info().Keys {
		t.Fatalf("after Union: %+v (keys %d + %d)", info, c.Info().Keys, b.Info().Keys)
	}
	allPresent(t, a, keys(0, 12000), "union")
	if a.Equal(c) || !c.Equal(c) {
		t.Fatal("Equal: the clone taken before the union still equals it")
	}
	// Union of a filter with itself changes nothing.
	snap, _ := a.Clone()
	defer snap.Close()
	if err := a.Union(a); err != nil || !a.Equal(snap) {
		t.Fatalf("a.Union(a): %v, changed %v", err, !a.Equal(snap))
	}

	for name, other := range map[string]*Filter{
		"fixed":          mustNew(t, 1000, 0.01, WithSeed(5)),
		"growth":         mustGrowing(t, 0.01, append(opts, WithGrowth(3))...),
		"first capacity": mustGrowing(t, 0.01, WithInitialCapacity(999), WithSeed(5)),
		"fpr":            mustGrowing(t, 0.02, opts...),
		"seed":           mustGrowing(t, 0.01, WithInitialCapacity(1000), WithSeed(6)),
	} {
		if err := a.Union(other); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Union with a different %s: %v", name, err)
		}
		if err := other.Union(a); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Union into a different %s: %v", name, err)
		}
		if a.Equal(other) || other.Equal(a) {
			t.Errorf("Equal to a filter of a different %s", name)
		}
	}
	if !a.Equal(snap) {
		t.Fatal("refused unions changed the filter")
	}

	if err := c.Clear(); err != nil {
		t.Fatal(err)
	}
	if info := c.Info(); info.Keys != 0 || info.Stages != 2 {
		t.Fatalf("after Clear: %+v (stages are kept, empty)", info)
	}
	if n, _ := c.TestBatch(keys(0, 3000), make([]bool, 3000)); n != 0 {
		t.Fatalf("%d keys still present after Clear", n)
	}
	if est, err := c.EstimateCount(); err != nil || est != 0 {
		t.Fatalf("EstimateCount after Clear: %g, %v", est, err)
	}
	// New keys go to the newest stage: the chain does not grow until it is full again.
	mustAddBatch(t, c, keys(0, 1000))
	if c.Info().Stages != 2 {
		t.Fatalf("%d stages after Clear and 1000 keys", c.Info().Stages)
	}
}

// Info and StageInfo describe the chain and each stage as the schedule makes them.
func TestGrowingInfoAndStageInfo(t *testing.T) {
	f := mustGrowing(t, 0.01, WithInitialCapacity(1000), WithGrowth(3), WithKind(Classic), WithShards(2), WithSeed(9))
	empty := f.Info()
	if empty.Stages != 1 || empty.Keys != 0 || empty.Capacity != 1000 || empty.Growth != 3 || f.Cap() != 1000 {
		t.Fatalf("empty: %+v", empty)
	}
	mustAddBatch(t, f, keys(0, 20000)) // 1000 + 3000 + 9000 < 20000 <= ... + 27000
	info := f.Info()
	if info.Stages != 4 || info.Capacity != 40000 || info.Kind != Classic || info.Shards != 2 || info.Seed != 9 ||
		info.TargetFPR != 0.01 || info.Storage != Owned || info.ReadOnly || info.Stale || info.GrowthFailed {
		t.Fatalf("info %+v", info)
	}
	if f.Cap() != info.Capacity || f.Bits() != info.Bits || f.K() != uint(info.K) {
		t.Fatalf("Cap %d, Bits %d, K %d differ from the info %+v", f.Cap(), f.Bits(), f.K(), info)
	}
	var capacity, keys, bytes, bits uint64
	var targets, expected float64
	for i := 0; i < int(info.Stages); i++ {
		s, err := f.StageInfo(i)
		if err != nil {
			t.Fatal(err)
		}
		if want := uint64(1000 * math.Pow(3, float64(i))); s.Capacity != want {
			t.Fatalf("stage %d: capacity %d, want %d", i, s.Capacity, want)
		}
		if s.Stages != info.Stages || s.Growth != 3 || s.Kind != Classic || s.Shards != 2 || s.Seed != 9 || s.Bytes*8 != s.Bits {
			t.Fatalf("stage %d: %+v", i, s)
		}
		if !(s.ExpectedFPR > 0 && s.ExpectedFPR <= s.TargetFPR) {
			t.Fatalf("stage %d: expected FPR %g above its target %g", i, s.ExpectedFPR, s.TargetFPR)
		}
		// Full stages counted their capacity of new keys; the newest holds the rest.
		if i < int(info.Stages)-1 && s.Keys != s.Capacity {
			t.Fatalf("stage %d: %d keys, capacity %d", i, s.Keys, s.Capacity)
		}
		capacity += s.Capacity
		keys += s.Keys
		bytes += s.Bytes
		bits += s.Bits
		targets += s.TargetFPR
		expected += s.ExpectedFPR
	}
	if capacity != info.Capacity || keys != info.Keys || bytes != info.Bytes || bits != info.Bits {
		t.Fatalf("stages sum to capacity %d, keys %d, bytes %d; the chain says %+v", capacity, keys, bytes, info)
	}
	if targets > info.TargetFPR || math.Abs(expected-info.ExpectedFPR) > 1e-12 {
		t.Fatalf("stage targets sum to %g, expected FPRs to %g; the chain %+v", targets, expected, info)
	}
	for _, i := range []int{-1, int(info.Stages), MaxStages, math.MaxInt} {
		if _, err := f.StageInfo(i); !errors.Is(err, ErrRange) {
			t.Fatalf("StageInfo(%d): %v", i, err)
		}
	}

	// A fixed filter is its own one stage.
	fixed := mustNew(t, 1000, 0.01)
	fi := fixed.Info()
	if fi.Stages != 1 || fi.Growth != 0 || fi.Keys != 0 || fi.GrowthFailed {
		t.Fatalf("fixed info %+v", fi)
	}
	if s, err := fixed.StageInfo(0); err != nil || s != fi {
		t.Fatalf("fixed StageInfo(0) = %+v, %v; Info %+v", s, err, fi)
	}
	if _, err := fixed.StageInfo(1); !errors.Is(err, ErrRange) {
		t.Fatalf("fixed StageInfo(1): %v", err)
	}
}

func TestGrowingBadArguments(t *testing.T) {
	for _, g := range []float64{0, 1, 0.5, -2, math.Nextafter(MaxGrowth, 100), 17, math.Inf(1), math.NaN()} {
		if f, err := NewGrowing(0.01, WithGrowth(g)); !errors.Is(err, ErrInvalid) || f != nil ||
			!strings.HasPrefix(err.Error(), "abloom: NewGrowing: ") {
			t.Errorf("NewGrowing with growth %g: %v", g, err)
		}
		if _, err := GrowthFootprint(1000, 0.01, WithGrowth(g)); !errors.Is(err, ErrInvalid) {
			t.Errorf("GrowthFootprint with growth %g: %v", g, err)
		}
	}
	for _, fpr := range []float64{0, 1, -0.1, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := NewGrowing(fpr); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewGrowing(%g): %v", fpr, err)
		}
		if _, err := GrowthFootprint(1000, fpr); !errors.Is(err, ErrInvalid) {
			t.Errorf("GrowthFootprint at fpr %g: %v", fpr, err)
		}
	}
	for name, opt := range map[string]Option{
		"initial capacity 0": WithInitialCapacity(0),
		"bits":               WithBits(1 << 20),
		"k":                  WithK(7),
		"kind":               WithKind(Kind(9)),
		"shards":             WithShards(3),
	} {
		if _, err := NewGrowing(0.01, opt); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewGrowing with %s: %v", name, err)
		}
	}
	// The growing options belong to NewGrowing: New and ComputePlan size a fixed filter.
	for name, opt := range map[string]Option{"growth": WithGrowth(2), "initial capacity": WithInitialCapacity(100)} {
		if f, err := New(1000, 0.01, opt); !errors.Is(err, ErrInvalid) || f != nil || !strings.HasPrefix(err.Error(), "abloom: New: ") {
			t.Errorf("New with %s: %v", name, err)
		}
		if _, err := ComputePlan(1000, 0.01, opt); !errors.Is(err, ErrInvalid) {
			t.Errorf("ComputePlan with %s: %v", name, err)
		}
	}
	if _, err := GrowthFootprint(0, 0.01); !errors.Is(err, ErrInvalid) {
		t.Errorf("GrowthFootprint of 0 keys: %v", err)
	}
	if _, err := GrowthFootprint(math.MaxUint64, 0.01); !errors.Is(err, ErrRange) || !strings.HasPrefix(err.Error(), "abloom: GrowthFootprint: ") {
		t.Errorf("GrowthFootprint past the stage limit: %v", err)
	}
	// The edges of the ranges are accepted.
	for _, g := range []float64{math.Nextafter(1, 2), MaxGrowth} {
		f, err := NewGrowing(0.5, WithGrowth(g), WithInitialCapacity(1))
		if err != nil {
			t.Fatalf("NewGrowing with growth %g: %v", g, err)
		}
		if f.Info().Growth != g {
			t.Fatalf("growth %g reads back as %g", g, f.Info().Growth)
		}
		_ = f.Close()
	}
}

// Defaults: DefaultInitialCapacity and DefaultGrowth.
func TestGrowingDefaults(t *testing.T) {
	f := mustGrowing(t, 0.01)
	if info := f.Info(); info.Capacity != DefaultInitialCapacity || info.Growth != DefaultGrowth || info.Stages != 1 || info.Shards != 1 {
		t.Fatalf("defaults: %+v", info)
	}
	fp, err := GrowthFootprint(100_000, 0.01)
	if err != nil || fp.Stages != 7 || !(fp.FPRBound < 0.01) { // 1024 * (2^7 - 1) >= 100000
		t.Fatalf("footprint at 100000 keys: %+v, %v", fp, err)
	}
}

// Writer mode, threads and estimates on a growing filter.
func TestGrowingWriterModeThreadsEstimates(t *testing.T) {
	const n = 70_000 // above the 65536 keys from which a batch uses threads
	ks := keys(0, n)
	shared := mustGrowing(t, 0.01, WithInitialCapacity(5000))
	for _, k := range ks[:n/2] {
		if err := shared.Add(k); err != nil {
			t.Fatal(err)
		}
	}
	mustAddBatch(t, shared, ks[n/2:])

	exclusive := mustGrowing(t, 0.01, WithInitialCapacity(5000))
	if err := exclusive.SetWriterMode(ExclusiveWriter); err != nil || exclusive.WriterMode() != ExclusiveWriter {
		t.Fatalf("SetWriterMode: %v", err)
	}
	for _, k := range ks[:n/2] {
		if err := exclusive.Add(k); err != nil {
			t.Fatal(err)
		}
	}
	mustAddBatch(t, exclusive, ks[n/2:])
	if !exclusive.Equal(shared) {
		t.Fatal("exclusive-writer adds set other bits than shared ones")
	}

	threaded := mustGrowing(t, 0.01, WithInitialCapacity(5000), WithThreads(4))
	if threaded.Threads() != 4 {
		t.Fatalf("Threads() = %d", threaded.Threads())
	}
	one := mustGrowing(t, 0.01, WithInitialCapacity(5000))
	added4, err4 := threaded.AddBatch(ks)
	added1, err1 := one.AddBatch(ks)
	if err4 != nil || err1 != nil || added4 != added1 || !threaded.Equal(one) || threaded.Info().Keys != one.Info().Keys {
		t.Fatalf("4 threads added %d (%v), 1 thread %d (%v); equal %v", added4, err4, added1, err1, threaded.Equal(one))
	}
	res := make([]bool, n)
	if found, err := threaded.TestBatch(ks, res); err != nil || found != n {
		t.Fatalf("threaded TestBatch found %d (%v)", found, err)
	}
	allPresent(t, one, ks, "one thread")

	est, err := shared.EstimateCount()
	if err != nil || math.Abs(est-n) > 0.05*n {
		t.Fatalf("EstimateCount %g for %d keys (%v)", est, n, err)
	}
	fpr, err := shared.EstimateFPR()
	if err != nil || !(fpr > 0 && fpr < shared.Info().TargetFPR) {
		t.Fatalf("EstimateFPR %g (%v), target %g", fpr, err, shared.Info().TargetFPR)
	}
}

// A closed growing filter fails as a closed fixed one does, also for StageInfo.
func TestGrowingUseAfterClose(t *testing.T) {
	other := openOther(t)
	f, err := NewGrowing(0.01, WithInitialCapacity(10))
	if err != nil {
		t.Fatal(err)
	}
	mustAddBatch(t, f, keys(0, 100))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	checkClosed(t, f, other)
	if err := f.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}
