package abloom

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zeebo/xxh3"
)

// closedMessage is the message of the *Error a method named op gives on a closed filter.
func closedMessage(op string) string {
	return "abloom: " + op + ": filter is closed (or was never initialised)"
}

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
		if want := closedMessage(op); err.Error() != want {
			t.Fatalf("%s: panic message %q, want %q", op, err.Error(), want)
		}
	}()
	fn()
}

// closedCall is one method called on a closed filter f (other is an open filter).
type closedCall struct {
	method string // the *Filter method called
	panics bool   // a method without an error result: it panics
	asArg  bool   // f is the argument: a nil *Filter there is a nil argument, not a closed filter
	call   func(t *testing.T, f, other *Filter) error
}

// closedCalls holds every exported method of *Filter, but UnmarshalBinary and ReadFrom (they
// reopen a closed filter: TestReopenClosed, TestNilFilter), with arguments that would succeed on
// an open filter, and checks that nothing is returned or written beside the error.
var closedCalls = []closedCall{
	{method: "Close", call: func(t *testing.T, f, _ *Filter) error { return f.Close() }},
	{method: "Info", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.Info(); return nil }},
	{method: "Cap", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.Cap(); return nil }},
	{method: "K", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.K(); return nil }},
	{method: "Bits", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.Bits(); return nil }},
	{method: "StageInfo", call: func(t *testing.T, f, _ *Filter) error {
		info, err := f.StageInfo(0)
		if info != (Info{}) {
			t.Errorf("StageInfo: %+v from a closed filter", info)
		}
		return err
	}},
	{method: "Add", call: func(t *testing.T, f, _ *Filter) error { return f.Add([]byte("a")) }},
	{method: "AddString", call: func(t *testing.T, f, _ *Filter) error { return f.AddString("a") }},
	{method: "Test", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.Test([]byte("a")); return nil }},
	{method: "TestString", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.TestString("a"); return nil }},
	{method: "TestAndAdd", call: func(t *testing.T, f, _ *Filter) error {
		found, err := f.TestAndAdd([]byte("a"))
		if found {
			t.Error("TestAndAdd: true on a closed filter")
		}
		return err
	}},
	{method: "TestAndAddString", call: func(t *testing.T, f, _ *Filter) error {
		found, err := f.TestAndAddString("a")
		if found {
			t.Error("TestAndAddString: true on a closed filter")
		}
		return err
	}},
	{method: "AddBatch", call: func(t *testing.T, f, _ *Filter) error {
		n, err := f.AddBatch([][]byte{[]byte("a"), []byte("b")})
		if n != 0 {
			t.Errorf("AddBatch: %d added on a closed filter", n)
		}
		return err
	}},
	{method: "AddBatchStrings", call: func(t *testing.T, f, _ *Filter) error {
		n, err := f.AddBatchStrings([]string{"a", "b"})
		if n != 0 {
			t.Errorf("AddBatchStrings: %d added on a closed filter", n)
		}
		return err
	}},
	{method: "TestBatch", call: func(t *testing.T, f, _ *Filter) error {
		res := []bool{false, true}
		n, err := f.TestBatch([][]byte{[]byte("a"), []byte("b")}, res)
		if n != 0 || res[0] || !res[1] {
			t.Errorf("TestBatch on a closed filter: %d, results written %v", n, res)
		}
		return err
	}},
	{method: "TestBatchStrings", call: func(t *testing.T, f, _ *Filter) error {
		res := []bool{false, true}
		n, err := f.TestBatchStrings([]string{"a", "b"}, res)
		if n != 0 || res[0] || !res[1] {
			t.Errorf("TestBatchStrings on a closed filter: %d, results written %v", n, res)
		}
		return err
	}},
	{method: "TestAndAddBatch", call: func(t *testing.T, f, _ *Filter) error {
		res := []bool{false, true}
		n, err := f.TestAndAddBatch([][]byte{[]byte("a"), []byte("b")}, res)
		if n != 0 || res[0] || !res[1] {
			t.Errorf("TestAndAddBatch on a closed filter: %d, results written %v", n, res)
		}
		return err
	}},
	{method: "TestAndAddBatchStrings", call: func(t *testing.T, f, _ *Filter) error {
		res := []bool{false, true}
		n, err := f.TestAndAddBatchStrings([]string{"a", "b"}, res)
		if n != 0 || res[0] || !res[1] {
			t.Errorf("TestAndAddBatchStrings on a closed filter: %d, results written %v", n, res)
		}
		return err
	}},
	{method: "Union", call: func(t *testing.T, f, other *Filter) error { return f.Union(other) }},
	{method: "Intersect", call: func(t *testing.T, f, other *Filter) error { return f.Intersect(other) }},
	{method: "Clear", call: func(t *testing.T, f, _ *Filter) error { return f.Clear() }},
	{method: "Equal", panics: true, call: func(t *testing.T, f, other *Filter) error { f.Equal(other); return nil }},
	{method: "Clone", call: func(t *testing.T, f, _ *Filter) error {
		g, err := f.Clone()
		if g != nil {
			t.Error("Clone: a filter from a closed one")
		}
		return err
	}},
	{method: "EstimateCount", call: func(t *testing.T, f, _ *Filter) error {
		v, err := f.EstimateCount()
		if v != 0 {
			t.Errorf("EstimateCount: %g on a closed filter", v)
		}
		return err
	}},
	{method: "EstimateFPR", call: func(t *testing.T, f, _ *Filter) error {
		v, err := f.EstimateFPR()
		if v != 0 {
			t.Errorf("EstimateFPR: %g on a closed filter", v)
		}
		return err
	}},
	{method: "MarshalBinary", call: func(t *testing.T, f, _ *Filter) error {
		b, err := f.MarshalBinary()
		if b != nil {
			t.Errorf("MarshalBinary: %d bytes from a closed filter", len(b))
		}
		return err
	}},
	{method: "WriteTo", call: func(t *testing.T, f, _ *Filter) error {
		var buf bytes.Buffer
		n, err := f.WriteTo(&buf)
		if n != 0 || buf.Len() != 0 {
			t.Errorf("WriteTo: %d bytes (%d written) from a closed filter", n, buf.Len())
		}
		return err
	}},
	{method: "Save", call: func(t *testing.T, f, _ *Filter) error {
		path := filepath.Join(testDir(t), "x.abloom")
		err := f.Save(path)
		if _, serr := os.Stat(path); !errors.Is(serr, fs.ErrNotExist) {
			t.Errorf("Save of a closed filter made %s (%v)", path, serr)
		}
		return err
	}},
	{method: "Sync", call: func(t *testing.T, f, _ *Filter) error { return f.Sync() }},
	{method: "SetWriterMode", call: func(t *testing.T, f, _ *Filter) error { return f.SetWriterMode(ExclusiveWriter) }},
	{method: "WriterMode", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.WriterMode(); return nil }},
	{method: "SetThreads", call: func(t *testing.T, f, _ *Filter) error { return f.SetThreads(4) }},
	{method: "Threads", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.Threads(); return nil }},

	// A closed filter as the argument of another's method.
	{method: "Union", asArg: true, call: func(t *testing.T, f, other *Filter) error { return other.Union(f) }},
	{method: "Intersect", asArg: true, call: func(t *testing.T, f, other *Filter) error { return other.Intersect(f) }},
	{method: "Equal", asArg: true, panics: true, call: func(t *testing.T, f, other *Filter) error { other.Equal(f); return nil }},
	// Closed is told before a bad argument.
	{method: "Union", call: func(t *testing.T, f, _ *Filter) error { return f.Union(nil) }},
	{method: "Intersect", call: func(t *testing.T, f, _ *Filter) error { return f.Intersect(nil) }},
	{method: "Equal", panics: true, call: func(t *testing.T, f, _ *Filter) error { f.Equal(nil); return nil }},
	{method: "TestBatch", call: func(t *testing.T, f, _ *Filter) error {
		_, err := f.TestBatch([][]byte{[]byte("a")}, nil)
		return err
	}},
	{method: "TestBatchStrings", call: func(t *testing.T, f, _ *Filter) error {
		_, err := f.TestBatchStrings([]string{"a"}, nil)
		return err
	}},
	{method: "TestAndAddBatch", call: func(t *testing.T, f, _ *Filter) error {
		_, err := f.TestAndAddBatch([][]byte{[]byte("a")}, nil)
		return err
	}},
	{method: "TestAndAddBatchStrings", call: func(t *testing.T, f, _ *Filter) error {
		_, err := f.TestAndAddBatchStrings([]string{"a"}, nil)
		return err
	}},
	{method: "SetWriterMode", call: func(t *testing.T, f, _ *Filter) error { return f.SetWriterMode(WriterMode(99)) }},
	{method: "SetThreads", call: func(t *testing.T, f, _ *Filter) error { return f.SetThreads(MaxThreads + 1) }},
}

// checkClosed calls every method on the closed filter f: those with an error result return an
// *Error matching ErrClosed that names them, the others panic with one. other stays usable.
func checkClosed(t *testing.T, f *Filter, other *Filter) {
	t.Helper()
	for _, c := range closedCalls {
		if c.asArg && f == nil {
			continue // TestNilFilter: ErrInvalid, or false for Equal
		}
		op := c.method
		if c.panics {
			mustPanicClosed(t, op, func() { _ = c.call(t, f, other) })
			continue
		}
		err := c.call(t, f, other)
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s on a closed filter: %v, want ErrClosed", c.method, err)
		} else if err.Error() != closedMessage(op) {
			t.Errorf("%s on a closed filter: %q, want %q", c.method, err.Error(), closedMessage(op))
		}
	}
	// other was neither changed nor closed by the failed calls.
	if !other.TestString("other") || other.TestString("a") {
		t.Error("the open filter changed")
	}
}

// Every exported method of *Filter is in closedCalls, or reopens a closed filter.
func TestClosedCallsCoverEveryMethod(t *testing.T) {
	covered := map[string]bool{"UnmarshalBinary": true, "ReadFrom": true}
	for _, c := range closedCalls {
		covered[c.method] = true
	}
	typ := reflect.TypeOf((*Filter)(nil))
	for i := 0; i < typ.NumMethod(); i++ {
		if name := typ.Method(i).Name; !covered[name] {
			t.Errorf("method %s is not tested on a closed filter (add it to closedCalls)", name)
		}
	}
	if len(covered) != typ.NumMethod() {
		t.Errorf("closedCalls names %d methods, *Filter has %d", len(covered), typ.NumMethod())
	}
}

// openOther is an open filter holding the key "other", the second operand of checkClosed.
func openOther(t *testing.T) *Filter {
	other := mustNew(t, 1000, 0.01)
	if err := other.AddString("other"); err != nil {
		t.Fatal(err)
	}
	return other
}

func TestUseAfterClose(t *testing.T) {
	other := openOther(t)
	f, err := New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.AddString("a")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	checkClosed(t, f, other)
}

// A closed read-write mapping: Close synced it once; the second Close and Sync fail and write
// nothing.
func TestUseAfterCloseMapped(t *testing.T) {
	other := openOther(t)
	path := filepath.Join(testDir(t), "rw.abloom")
	if err := mustNew(t, 1000, 0.01).Save(path); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddString("a"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	checkClosed(t, f, other)
	g, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.TestString("a") {
		t.Fatal("key added before Close not in the file")
	}
}

func TestZeroFilter(t *testing.T) {
	other := openOther(t)
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

// Methods on a nil *Filter behave as on a closed filter: no nil dereference.
func TestNilFilter(t *testing.T) {
	other := openOther(t)
	var f *Filter
	checkClosed(t, f, other)

	b, _ := other.MarshalBinary()
	if err := f.UnmarshalBinary(b); !errors.Is(err, ErrClosed) || err.Error() != closedMessage("UnmarshalBinary") {
		t.Errorf("UnmarshalBinary on nil: %v", err)
	}
	r := bytes.NewReader(b)
	if n, err := f.ReadFrom(r); n != 0 || !errors.Is(err, ErrClosed) || err.Error() != closedMessage("ReadFrom") {
		t.Errorf("ReadFrom on nil: %d, %v", n, err)
	}
	if r.Len() != len(b) {
		t.Errorf("ReadFrom on nil read %d bytes", len(b)-r.Len())
	}
	// As an argument, a nil *Filter is a bad argument, as documented, not a closed filter.
	if err := other.Union(f); !errors.Is(err, ErrInvalid) {
		t.Errorf("Union(nil): %v, want ErrInvalid", err)
	}
	if err := other.Intersect(f); !errors.Is(err, ErrInvalid) {
		t.Errorf("Intersect(nil): %v, want ErrInvalid", err)
	}
	if other.Equal(f) {
		t.Error("Equal(nil) is true")
	}
}

// UnmarshalBinary and ReadFrom reopen a closed filter, with the new filter's shape.
func TestReopenClosed(t *testing.T) {
	src := mustNew(t, 5000, 0.001, WithSeed(7))
	_ = src.AddString("x")
	b, _ := src.MarshalBinary()
	for _, how := range []string{"UnmarshalBinary", "ReadFrom"} {
		f, err := New(1000, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		if how == "UnmarshalBinary" {
			err = f.UnmarshalBinary(b)
		} else {
			_, err = f.ReadFrom(bytes.NewReader(b))
		}
		if err != nil {
			t.Fatalf("%s on a closed filter: %v", how, err)
		}
		if !f.TestString("x") || !f.Equal(src) || f.Info() != src.Info() || f.Cap() != 5000 {
			t.Fatalf("%s: reopened filter differs", how)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); !errors.Is(err, ErrClosed) {
			t.Fatalf("%s: second Close: %v", how, err)
		}
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

// Concurrent Close calls: exactly one frees and returns nil, the others ErrClosed.
func TestConcurrentClose(t *testing.T) {
	for round := 0; round < 50; round++ {
		f, _ := New(1000, 0.01)
		var wg sync.WaitGroup
		var ok atomic.Int64
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch err := f.Close(); {
				case err == nil:
					ok.Add(1)
				case !errors.Is(err, ErrClosed):
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 1 {
			t.Fatalf("%d of 4 concurrent Close calls returned nil, want 1", ok.Load())
		}
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
	// Closed filters are freed by the same cleanup, once each.
	before = cleanupsRun.Load()
	var leases []*lease
	for i := 0; i < 10; i++ {
		f, _ := New(1000, 0.01)
		leases = append(leases, f.live.Load().lease)
		_ = f.Close()
	}
	waitFreed(t, leases...)
	if got := cleanupsRun.Load() - before; got < 10 {
		t.Fatalf("cleanup ran %d times for 10 closed filters", got)
	}
}

// waitFreed runs garbage collections until the cleanups of leases have run (5 s at most).
func waitFreed(t *testing.T, leases ...*lease) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, l := range leases {
		for !l.freed.Load() {
			if time.Now().After(deadline) {
				t.Fatal("a closed filter was not freed")
			}
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}
}

// A single-key call in flight when Close runs keeps the memory: the C filter is freed only
// once the call's handle is dropped. Here a test holds the handle as Test does.
func TestCloseKeepsMemoryForCallsInFlight(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	_ = f.AddString("k")
	hd := f.load() // what Test holds while it reads the words
	l := hd.lease
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if l.freed.Load() {
		t.Fatal("Close freed the memory of a filter whose handle a call still held")
	}
	// The call goes on reading the filter's words: they are intact.
	n := &hd.nat
	if !n.test(xxh3.HashStringSeed("k", n.seed)) {
		t.Fatal("the words changed under a call in flight")
	}
	runtime.KeepAlive(hd)
	waitFreed(t, l)
	if f.load() != nil {
		t.Fatal("a closed filter has a handle")
	}
}

// Past releaseAtBytes of closed filters awaiting their cleanup, Close runs a garbage collection
// itself: a large filter's memory comes back without the program's help.
func TestCloseCollectsLargeFilters(t *testing.T) {
	// About 300 MiB of bits, calloc'ed: pages never touched cost no memory.
	f := mustNew(t, 250_000_000, 0.01)
	if f.Info().Bytes < releaseAtBytes {
		t.Fatalf("the filter has %d bytes, fewer than %d", f.Info().Bytes, releaseAtBytes)
	}
	l := f.live.Load().lease
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// No runtime.GC here: Close ran one. The cleanup itself runs on its own goroutine.
	deadline := time.Now().Add(5 * time.Second)
	for !l.freed.Load() {
		if time.Now().After(deadline) {
			t.Fatal("a closed 300 MiB filter was not freed without a collection from the caller")
		}
		time.Sleep(time.Millisecond)
	}
}
