package abloom

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Many goroutines add disjoint key ranges (single keys and batches) while others test keys
// already added: no false negatives at any time, and every key is present afterwards.
func TestConcurrentAddTest(t *testing.T) {
	const writers, perWriter = 8, 20000
	for _, kind := range []Kind{Blocked, Classic} {
		t.Run(kind.String(), func(t *testing.T) {
			f := mustNew(t, writers*perWriter, 0.01, WithKind(kind), WithShards(4))
			var done atomic.Int64 // keys below done*... are published per writer
			progress := make([]atomic.Uint64, writers)
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					base := uint64(w) * perWriter
					for i := uint64(0); i < perWriter; {
						if i%1000 < 500 {
							if err := f.Add(key(base + i)); err != nil {
								t.Error(err)
								return
							}
							i++
						} else {
							n := min(uint64(100), perWriter-i)
							if _, err := f.AddBatch(keys(base+i, n)); err != nil {
								t.Error(err)
								return
							}
							i += n
						}
						progress[w].Store(i) // published after the add returned
					}
				}(w)
			}
			var readers sync.WaitGroup
			stop := make(chan struct{})
			for r := 0; r < 4; r++ {
				readers.Add(1)
				go func(r int) {
					defer readers.Done()
					res := make([]bool, 32)
					for j := uint64(0); ; j++ {
						select {
						case <-stop:
							return
						default:
						}
						w := int(j+uint64(r)) % writers
						upto := progress[w].Load()
						if upto == 0 {
							continue
						}
						i := mix(j) % upto
						if !f.Test(key(uint64(w)*perWriter + i)) {
							t.Errorf("false negative: writer %d key %d (published %d)", w, i, upto)
							return
						}
						if upto >= 32 {
							from := uint64(w)*perWriter + mix(j+1)%(upto-31)
							if n, err := f.TestBatch(keys(from, 32), res); err != nil || n != 32 {
								t.Errorf("batch false negative: %d of 32, %v", n, err)
								return
							}
						}
						done.Add(1)
					}
				}(r)
			}
			wg.Wait()
			close(stop)
			readers.Wait()
			for i := uint64(0); i < writers*perWriter; i++ {
				if !f.Test(key(i)) {
					t.Fatalf("false negative after join for key %d", i)
				}
			}
			if done.Load() == 0 {
				t.Fatal("readers made no checks")
			}
		})
	}
}

// Several goroutines TestAndAdd the same new keys at once: for each key at least one is told
// it was new.
func TestConcurrentTestAndAdd(t *testing.T) {
	f := mustNew(t, 100000, 0.0001)
	const n, g = 2000, 8
	var wg sync.WaitGroup
	newCount := make([]atomic.Int32, n)
	for w := 0; w < g; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				seen, err := f.TestAndAdd(key(uint64(i)))
				if err != nil {
					t.Error(err)
					return
				}
				if !seen {
					newCount[i].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	fp := 0
	for i := range newCount {
		if newCount[i].Load() == 0 {
			fp++ // only possible when the key was already a false positive
		}
	}
	if lo, hi := binomialBounds(n, 0.0001*2); float64(fp) < lo || float64(fp) > hi {
		t.Fatalf("%d keys were reported present by every goroutine", fp)
	}
}

// Union into a filter others add to.
func TestConcurrentUnion(t *testing.T) {
	dst := mustNew(t, 100000, 0.01, WithSeed(3))
	src := mustNew(t, 100000, 0.01, WithSeed(3))
	if _, err := src.AddBatch(keys(0, 20000)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := uint64(0); i < 5000; i++ {
				_ = dst.Add(key(1<<32 + uint64(w)*5000 + i))
			}
		}(w)
	}
	for i := 0; i < 10; i++ {
		if err := dst.Union(src); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	for i := uint64(0); i < 20000; i++ {
		if !dst.Test(key(i)) {
			t.Fatalf("union lost key %d", i)
		}
	}
	for i := uint64(0); i < 20000; i++ {
		if !dst.Test(key(1<<32 + i)) {
			t.Fatalf("concurrent add lost key %d", i)
		}
	}
}
