package abloom

import (
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abloom/abloom/bindings/go/internal/capi"
	"github.com/zeebo/xxh3"
)

// A growing filter's single-key tests run in Go over its stages' memory (stages.go). These hold
// them to the engine's answers (abloom_test_hash, and abloom_test hashing in C), show that no cgo
// call is made, and check the publication of new stages against concurrent adds and Close.

// agreesWithC checks every key of ks: Test and TestString (Go, over the stages published) answer
// as abloom_test_hash and abloom_test do. want, if not nil, is the answer every key must get. It
// returns how many keys tested present.
func agreesWithC(t testing.TB, f *Filter, ks [][]byte, want *bool, what string) int {
	t.Helper()
	seed := f.Info().Seed
	ref := f.acquire()
	if ref == nil {
		t.Fatalf("%s: the filter is closed", what)
	}
	defer ref.release()
	defer runtime.KeepAlive(f)
	present := 0
	for i, k := range ks {
		goAnswer := f.Test(k)
		cHash := capi.TestHash(f.h, xxh3.HashSeed(k, seed)) == 1
		cKey := capi.Test(f.h, k) == 1
		if goAnswer != cHash || cHash != cKey || f.TestString(string(k)) != goAnswer {
			t.Fatalf("%s: key %d of %d: Go %v, abloom_test_hash %v, abloom_test %v", what, i, len(ks), goAnswer, cHash, cKey)
		}
		if want != nil && goAnswer != *want {
			t.Fatalf("%s: key %d of %d tests %v", what, i, len(ks), goAnswer)
		}
		if goAnswer {
			present++
		}
	}
	return present
}

// published is the number of stages f's tests probe in Go now (0 for a fixed filter), and
// whether they fell back to C.
func published(f *Filter) (stages int, cgo bool) {
	hd := f.load()
	if hd == nil || hd.nat.chain == nil {
		return 0, false
	}
	set := hd.nat.chain.set.Load()
	return len(set.stages), set.cgo
}

var yes, no = true, false

// Go answers as C for present and absent keys at every stage count from 1 to 7 (fewer for
// growth 16, whose stages grow too fast), for each layout and several growths, with keys added
// one at a time (Add, AddString, TestAndAdd: each publishes the stages it saw) and tested at once,
// and in batches (published after the batch).
func TestGrowingNativeMatchesC(t *testing.T) {
	budget := uint64(120_000) // keys per filter at most
	if raceEnabled {
		budget = 30_000
	}
	absent := keys(1<<40, 3000)
	type shape struct {
		name string
		opts []Option
	}
	shapes := []shape{
		{"split", []Option{WithLayout(LayoutSplit)}},
		{"distinct", []Option{WithLayout(LayoutDistinct)}},
		{"half", []Option{WithLayout(LayoutHalf)}},
		{"split-4-shards", []Option{WithShards(4), WithSeed(99)}},
	}
	if _, err := NewGrowing(0.01, WithKind(Classic)); err == nil {
		shapes = append(shapes, shape{"classic", []Option{WithKind(Classic)}})
	}
	for _, growth := range []float64{1.5, 2, 4, MaxGrowth} {
		for _, sh := range shapes {
			t.Run(sh.name+"/growth="+uitoa(uint64(growth*10))+"/10", func(t *testing.T) {
				opts := append([]Option{WithInitialCapacity(20), WithGrowth(growth)}, sh.opts...)
				f := mustGrowing(t, 0.01, opts...)
				var added [][]byte
				stagesSeen := map[int]bool{1: true}
				last := 1
				// After each add: at a new stage count, every key so far and the absent ones
				// answer the same in Go and in C.
				check := func() {
					n, cgo := published(f)
					if n == last {
						return
					}
					if info := f.Info(); uint32(n) != info.Stages || cgo {
						t.Fatalf("%d stages, %d published (cgo %v)", info.Stages, n, cgo)
					}
					last = n
					stagesSeen[n] = true
					agreesWithC(t, f, added, &yes, "added")
					fp := agreesWithC(t, f, absent, nil, "absent")
					if _, hi := binomialBounds(len(absent), 0.01); float64(fp) > hi {
						t.Fatalf("%d of %d absent keys test present", fp, len(absent))
					}
				}
				for i := uint64(0); i < budget && last < 7; {
					if i%3 == 0 {
						// A batch, which may append a stage or two.
						n := min(budget-i, 1+i/4)
						ks := keys(i, n)
						mustAddBatch(t, f, ks)
						added = append(added, ks...)
						i += n
						check()
						continue
					}
					// Single keys, each tested right after its add, the key before it too.
					for j := 0; j < 50 && i < budget && last < 7; j, i = j+1, i+1 {
						k := key(i)
						var err error
						switch i % 3 {
						case 0:
							err = f.Add(k)
						case 1:
							err = f.AddString(string(k))
						default:
							_, err = f.TestAndAdd(k)
						}
						if err != nil {
							t.Fatal(err)
						}
						added = append(added, k)
						agreesWithC(t, f, added[len(added)-min(2, len(added)):], &yes, "just added")
						check()
					}
				}
				want := 7
				if growth == MaxGrowth {
					want = 3
				}
				for s := 1; s <= want; s++ {
					if !stagesSeen[s] {
						t.Fatalf("never tested at %d stages (reached %d with %d keys)", s, f.Info().Stages, len(added))
					}
				}
				agreesWithC(t, f, added, &yes, "at the end")
				agreesWithC(t, f, absent, nil, "absent at the end")
			})
		}
	}
}

// Single-key tests of a growing filter make no cgo call: NumCgoCall does not move over 20000 of
// them (a few calls of the runtime's own may land meanwhile: a cleanup freeing another test's
// filter), where the cgo path before made one each. Nor do those of a filter read from bytes or
// opened from a file.
func TestGrowingNativeMakesNoCgoCall(t *testing.T) {
	f := mustGrowing(t, 0.01, WithInitialCapacity(100))
	for i := uint64(0); f.Info().Stages < 7; i += 100 {
		mustAddBatch(t, f, keys(i, 100))
	}
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	u, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	path := filepath.Join(testDir(t), "g.abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	present, absent := keys(0, 5000), keys(1<<40, 5000)
	for _, g := range []*Filter{f, u, m} {
		if n, cgo := published(g); n != 7 || cgo {
			t.Fatalf("%d stages published (cgo %v), want 7", n, cgo)
		}
		before := runtime.NumCgoCall()
		found := 0
		for i := range present {
			if g.Test(present[i]) {
				found++
			}
			if g.TestString(string(absent[i])) {
				found++
			}
		}
		calls := runtime.NumCgoCall() - before
		if calls > 20 {
			t.Fatalf("%d cgo calls for %d tests", calls, 2*len(present))
		}
		if found < len(present) || found > len(present)+len(absent)/20 {
			t.Fatalf("%d of %d present and %d absent keys test present", found, len(present), len(absent))
		}
	}
}

// Writers add single keys (and some batches) while stages are appended; each hands the key it
// has just added to a reader over a channel, and the reader tests it at once: the add returned
// before the test started, so it must be found. Other readers test every key published so far.
// Under -race this also checks the publication itself.
func TestGrowingNativeConcurrentNoFalseNegative(t *testing.T) {
	const writers = 4
	perWriter := uint64(12_000)
	if raceEnabled {
		perWriter = 4000
	}
	f := mustGrowing(t, 0.01, WithInitialCapacity(32))
	handoff := make(chan []byte, 64)
	progress := make([]atomic.Uint64, writers)
	var missing atomic.Int64
	var wg, readers sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			base := uint64(w) << 32
			for i := uint64(0); i < perWriter; {
				if i%500 == 499 {
					n := min(uint64(40), perWriter-i)
					if _, err := f.AddBatch(keys(base+i, n)); err != nil {
						t.Error(err)
						return
					}
					i += n
				} else {
					k := key(base + i)
					var err error
					if i%2 == 0 {
						err = f.Add(k)
					} else {
						_, err = f.TestAndAddString(string(k))
					}
					if err != nil {
						t.Error(err)
						return
					}
					handoff <- k
					i++
				}
				progress[w].Store(i)
			}
		}(w)
	}
	// The channel's readers: the key was added before it was sent.
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for k := range handoff {
				if !f.Test(k) || !f.TestString(string(k)) {
					missing.Add(1)
				}
			}
		}()
	}
	// A reader of every writer's keys up to its progress, oldest first, round after round.
	var sweeps atomic.Int64
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for w := 0; w < writers; w++ {
				upto := progress[w].Load()
				base := uint64(w) << 32
				for i := uint64(0); i < upto; i += 7 {
					if !f.Test(key(base + i)) {
						missing.Add(1)
					}
				}
			}
			sweeps.Add(1)
		}
	}()
	wg.Wait()
	close(handoff)
	close(stop)
	readers.Wait()
	if n := missing.Load(); n != 0 {
		t.Fatalf("%d keys added before their test were missing", n)
	}
	stages := f.Info().Stages
	if n, cgo := published(f); uint32(n) != stages || cgo || stages < 7 {
		t.Fatalf("%d stages, %d published (cgo %v)", stages, n, cgo)
	}
	for w := 0; w < writers; w++ {
		agreesWithC(t, f, keys(uint64(w)<<32, perWriter), &yes, "after the writers")
	}
	t.Logf("%d stages, %d sweeps", stages, sweeps.Load())
}

// Union may append stages to its receiver: they are published before it returns, and the
// other filter's keys test present in Go.
func TestGrowingNativeAfterUnion(t *testing.T) {
	opts := []Option{WithInitialCapacity(50), WithSeed(5)}
	f := mustGrowing(t, 0.01, opts...)
	g := mustGrowing(t, 0.01, opts...)
	mustAddBatch(t, f, keys(0, 40))
	mustAddBatch(t, g, keys(1000, 3000))
	if n, _ := published(f); n != 1 {
		t.Fatalf("%d stages published before the union", n)
	}
	if err := f.Union(g); err != nil {
		t.Fatal(err)
	}
	if n, cgo := published(f); uint32(n) != g.Info().Stages || cgo || n < 5 {
		t.Fatalf("%d stages published after the union, the other filter has %d (cgo %v)", n, g.Info().Stages, cgo)
	}
	agreesWithC(t, f, keys(1000, 3000), &yes, "the other filter's keys")
	agreesWithC(t, f, keys(0, 40), &yes, "the receiver's keys")
	agreesWithC(t, f, keys(1<<40, 2000), nil, "absent")
}

// Filters read from bytes, a stream or a file have their stages mapped or copied; Go probes
// them where they are, and answers as C. A copy-on-write file grows stages in memory of its own.
func TestGrowingNativeReadFilters(t *testing.T) {
	opts := []Option{WithInitialCapacity(300), WithSeed(77), WithGrowth(3)}
	f := mustGrowing(t, 0.01, opts...)
	ks := keys(0, 20_000)
	mustAddBatch(t, f, ks)
	if f.Info().Stages < 4 {
		t.Fatalf("only %d stages", f.Info().Stages)
	}
	absent := keys(1<<40, 3000)
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testDir(t), "g.abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	check := func(g *Filter, how string) {
		t.Helper()
		if n, cgo := published(g); uint32(n) != f.Info().Stages || cgo {
			t.Fatalf("%s: %d stages published (cgo %v), want %d", how, n, cgo, f.Info().Stages)
		}
		agreesWithC(t, g, ks, &yes, how)
		if a, b := agreesWithC(t, g, absent, nil, how+", absent"), agreesWithC(t, f, absent, nil, "the original, absent"); a != b {
			t.Fatalf("%s: %d absent keys test present, %d in the original", how, a, b)
		}
	}
	u, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	check(u, "Unmarshal")
	var r Filter
	if err := r.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check(&r, "UnmarshalBinary")
	c, err := f.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	check(c, "Clone")
	for _, flags := range [][]OpenFlag{nil, {VerifyChecksum}} {
		m, err := Open(path, flags...)
		if err != nil {
			t.Fatal(err)
		}
		check(m, "Open")
		_ = m.Close()
	}
	w, err := Open(path, OpenCopyOnWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	check(w, "OpenCopyOnWrite")
	more := keys(1<<20, 60_000)
	for i, k := range more {
		if err := w.Add(k); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 && !w.Test(k) {
			t.Fatalf("copy-on-write: key %d missing after its add", i)
		}
	}
	if n, _ := published(w); uint32(n) <= f.Info().Stages {
		t.Fatalf("copy-on-write adds published %d stages, the file has %d", n, f.Info().Stages)
	}
	agreesWithC(t, w, ks, &yes, "copy-on-write, the file's keys")
	agreesWithC(t, w, more, &yes, "copy-on-write, new keys")
}

// Close while goroutines add (appending stages) and test: each sees results or ErrClosed (a
// panic for Test), never a crash; a test whose handle was loaded before Close still reads every
// stage published, whose memory the handle keeps.
func TestGrowingNativeCloseWhileInUse(t *testing.T) {
	for round := 0; round < 10; round++ {
		f, err := NewGrowing(0.01, WithInitialCapacity(16))
		if err != nil {
			t.Fatal(err)
		}
		mustAddBatch(t, f, keys(1<<30, 100))
		var wg sync.WaitGroup
		var closedSeen atomic.Int64
		start := make(chan struct{})
		for g := 0; g < 6; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				<-start
				for i := uint64(g) << 32; ; i++ {
					var err error
					switch i % 3 {
					case 0:
						err = f.Add(key(i))
					case 1:
						_, err = f.AddBatch(keys(i, 8))
					default:
						func() {
							defer func() {
								if r := recover(); r != nil {
									err = r.(error)
								}
							}()
							if !f.Test(key(1<<30 + i%100)) {
								err = errors.New("a key added before the goroutines started is missing")
							}
						}()
					}
					if err != nil {
						if !errors.Is(err, ErrClosed) {
							t.Error(err)
						}
						closedSeen.Add(1)
						return
					}
				}
			}(g)
		}
		close(start)
		time.Sleep(2 * time.Millisecond)
		hd := f.load() // as a test in flight holds it
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if closedSeen.Load() != 6 {
			t.Fatalf("%d goroutines saw ErrClosed, want 6", closedSeen.Load())
		}
		runtime.GC()
		n := &hd.nat
		for i := uint64(0); i < 100; i++ {
			if !n.test(xxh3.HashSeed(key(1<<30+i), n.seed)) {
				t.Fatal("a closed filter's stages changed under a handle still held")
			}
		}
		runtime.KeepAlive(hd)
	}
}
