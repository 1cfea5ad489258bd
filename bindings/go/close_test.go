package abloom

import (
	"bytes"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mustPanicClosed runs fn and checks it panics with an *Error matching ErrClosed that names op.
func mustPanicClosed(t *testing.T, op string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, ErrClosed) {
			t.Fatalf("%s: recovered %v, want an ErrClosed panic", op, r)
		}
		if want := "abloom: " + op + ": filter is closed (or was never initialised)"; err.Error() != want {
			t.Fatalf("%s: panic message %q, want %q", op, err.Error(), want)
		}
	}()
	fn()
}

func checkClosed(t *testing.T, f *Filter, other *Filter) {
	t.Helper()
	errs := map[string]error{}
	errs["Add"] = f.Add([]byte("a"))
	errs["AddString"] = f.AddString("a")
	_, errs["TestAndAdd"] = f.TestAndAdd([]byte("a"))
	_, errs["TestAndAddString"] = f.TestAndAddString("a")
	_, errs["AddBatch"] = f.AddBatch([][]byte{[]byte("a")})
	_, errs["AddBatchStrings"] = f.AddBatchStrings([]string{"a"})
	_, errs["TestBatch"] = f.TestBatch([][]byte{[]byte("a")}, make([]bool, 1))
	_, errs["TestBatchStrings"] = f.TestBatchStrings(nil, nil)
	errs["Union"] = f.Union(other)
	errs["Intersect"] = f.Intersect(other)
	errs["Union"+"From"] = other.Union(f)
	errs["Clear"] = f.Clear()
	_, errs["Clone"] = f.Clone()
	_, errs["EstimateCount"] = f.EstimateCount()
	_, errs["EstimateFPR"] = f.EstimateFPR()
	_, errs["MarshalBinary"] = f.MarshalBinary()
	_, errs["WriteTo"] = f.WriteTo(&bytes.Buffer{})
	errs["Save"] = f.Save(filepath.Join(t.TempDir(), "x.abloom"))
	errs["Sync"] = f.Sync()
	for op, err := range errs {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", op, err)
		}
	}
	mustPanicClosed(t, "Test", func() { f.Test([]byte("a")) })
	mustPanicClosed(t, "TestString", func() { f.TestString("a") })
	mustPanicClosed(t, "Equal", func() { f.Equal(other) })
	mustPanicClosed(t, "Equal", func() { other.Equal(f) })
	if err := f.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestUseAfterClose(t *testing.T) {
	other := mustNew(t, 1000, 0.01)
	f, err := New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.AddString("a")
	info := f.Info()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	checkClosed(t, f, other)
	// The shape stays readable.
	if f.Info() != info || f.Cap() != 1000 {
		t.Fatal("Info changed by Close")
	}
}

func TestZeroFilter(t *testing.T) {
	other := mustNew(t, 1000, 0.01)
	var f Filter
	checkClosed(t, &f, other)

	// A zero Filter becomes usable through UnmarshalBinary.
	_ = other.AddString("x")
	b, _ := other.MarshalBinary()
	var g Filter
	if err := g.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.TestString("x") || !g.Equal(other) {
		t.Fatal("unmarshalled zero Filter wrong")
	}
}

// Close while many goroutines use the filter: they see either a result or ErrClosed (a panic
// for Test), never a crash, and Close waits for calls in flight.
func TestCloseWhileInUse(t *testing.T) {
	for round := 0; round < 20; round++ {
		f, err := New(100000, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var calls, closedSeen atomic.Int64
		start := make(chan struct{})
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				<-start
				batch := keys(uint64(g)*1000, 64)
				res := make([]bool, 64)
				for i := uint64(0); ; i++ {
					var err error
					switch i % 4 {
					case 0:
						err = f.Add(key(i))
					case 1:
						_, err = f.AddBatch(batch)
					case 2:
						_, err = f.TestBatch(batch, res)
					case 3:
						func() {
							defer func() {
								if r := recover(); r != nil {
									err = r.(error)
								}
							}()
							f.Test(key(i))
						}()
					}
					if err != nil {
						if !errors.Is(err, ErrClosed) {
							t.Errorf("unexpected error %v", err)
						}
						closedSeen.Add(1)
						return
					}
					calls.Add(1)
				}
			}(g)
		}
		close(start)
		time.Sleep(2 * time.Millisecond)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if closedSeen.Load() != 8 {
			t.Fatalf("%d goroutines saw ErrClosed, want 8", closedSeen.Load())
		}
	}
}

// Concurrent Close calls: exactly one frees, all return nil.
func TestConcurrentClose(t *testing.T) {
	for round := 0; round < 50; round++ {
		f, _ := New(1000, 0.01)
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f.Close(); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
}

// A filter dropped without Close is freed by its cleanup.
func TestCleanupFreesUnreachable(t *testing.T) {
	before := cleanupsRun.Load()
	for i := 0; i < 10; i++ {
		f, err := New(1000, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		_ = f.AddString("dropped")
	}
	deadline := time.Now().Add(5 * time.Second)
	for cleanupsRun.Load()-before < 10 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := cleanupsRun.Load() - before; got < 10 {
		t.Fatalf("%d of 10 dropped filters freed by the cleanup", got)
	}
	// Closed filters are not freed twice: Close stops the cleanup.
	before = cleanupsRun.Load()
	for i := 0; i < 10; i++ {
		f, _ := New(1000, 0.01)
		_ = f.Close()
	}
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := cleanupsRun.Load() - before; got != 0 {
		t.Fatalf("cleanup ran %d times for closed filters", got)
	}
}
