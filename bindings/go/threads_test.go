package abloom

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// bulkKeys is above the C library's threshold for splitting a batch (65536 keys).
const bulkKeys = 70000

func TestMaxThreadsMatchesHeader(t *testing.T) {
	if MaxThreads != capi.ABLOOM_MAX_THREADS {
		t.Fatalf("MaxThreads = %d, header %d", MaxThreads, capi.ABLOOM_MAX_THREADS)
	}
}

func TestSetThreadsAndErrors(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	if got := f.Threads(); got != 1 {
		t.Fatalf("a filter made without WithThreads has %d threads, want 1", got)
	}
	for _, c := range []struct{ set, want uint32 }{{4, 4}, {0, 1}, {MaxThreads, MaxThreads}, {1, 1}, {3, 3}} {
		if err := f.SetThreads(c.set); err != nil {
			t.Fatalf("SetThreads(%d): %v", c.set, err)
		}
		if got := f.Threads(); got != c.want {
			t.Fatalf("SetThreads(%d): Threads() = %d, want %d", c.set, got, c.want)
		}
	}
	for _, n := range []uint32{MaxThreads + 1, 1000, math.MaxUint32} {
		err := f.SetThreads(n)
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("SetThreads(%d) = %v, want ErrInvalid", n, err)
		}
		var e *Error
		if !errors.As(err, &e) || e.Op != "SetThreads" {
			t.Fatalf("SetThreads(%d) error %#v does not name SetThreads", n, err)
		}
		if got := f.Threads(); got != 3 {
			t.Fatalf("a refused SetThreads(%d) changed the count to %d", n, got)
		}
	}
}

func TestThreadsStartAtTheOption(t *testing.T) {
	for _, c := range []struct{ opt, want uint32 }{{0, 1}, {1, 1}, {4, 4}, {MaxThreads, MaxThreads}} {
		f := mustNew(t, 1000, 0.01, WithThreads(c.opt))
		if got := f.Threads(); got != c.want {
			t.Fatalf("New(WithThreads(%d)).Threads() = %d, want %d", c.opt, got, c.want)
		}
	}
	if _, err := New(1000, 0.01, WithThreads(MaxThreads+1)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("New(WithThreads(%d)) = %v, want ErrInvalid", MaxThreads+1, err)
	}
}

func TestCloneCopiesThreads(t *testing.T) {
	f := mustNew(t, 1000, 0.01, WithThreads(2))
	if err := f.SetThreads(7); err != nil {
		t.Fatal(err)
	}
	c, err := f.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Threads(); got != 7 {
		t.Fatalf("a clone of a filter with 7 threads has %d", got)
	}
	// The count belongs to each handle.
	if err := c.SetThreads(1); err != nil || f.Threads() != 7 {
		t.Fatalf("SetThreads on the clone: %v, source now %d", err, f.Threads())
	}
}

// Opened and deserialized filters start at 1 thread whatever their source had: the count is not
// saved (the bytes of 1 and 4 threads are the same).
func TestThreadsNotSaved(t *testing.T) {
	f := mustNew(t, 1000, 0.01, WithThreads(4), WithSeed(3))
	_ = f.AddString("a")
	g := mustNew(t, 1000, 0.01, WithThreads(1), WithSeed(3))
	_ = g.AddString("a")
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if other, _ := g.MarshalBinary(); !bytes.Equal(data, other) {
		t.Fatal("the bytes of a 4-thread filter differ from a 1-thread one's")
	}
	check := func(how string, h *Filter) {
		t.Helper()
		if got := h.Threads(); got != 1 {
			t.Fatalf("%s: %d threads, want 1", how, got)
		}
		if !h.TestString("a") {
			t.Fatalf("%s: lost the key", how)
		}
	}

	u, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	check("Unmarshal", u)

	var z Filter
	if err := z.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	check("UnmarshalBinary into a zero Filter", &z)
	_ = z.SetThreads(5)
	if err := z.UnmarshalBinary(data); err != nil { // replaces an open filter with 5 threads
		t.Fatal(err)
	}
	check("UnmarshalBinary over an open filter", &z)
	_ = z.Close()

	var r Filter
	if _, err := r.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	check("ReadFrom", &r)
	_ = r.Close()

	path := filepath.Join(testDir(t), "f.abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]OpenFlag{nil, {VerifyChecksum}, {OpenCopyOnWrite}, {OpenReadWrite}} {
		o, err := Open(path, flags...)
		if err != nil {
			t.Fatal(err)
		}
		check("Open"+strconv.Itoa(len(flags)), o)
		// Read-only filters take a count too (for their TestBatch calls).
		if err := o.SetThreads(4); err != nil || o.Threads() != 4 {
			t.Fatalf("SetThreads(4) on a filter opened with %v: %v, %d", flags, err, o.Threads())
		}
		_ = o.Close()
	}
}

// stringKeys returns n keys of varying lengths (so that the batch is not of one length).
func stringKeys(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(from+i)
	}
	return out
}

// A batch above the split threshold gives the same answers, counts and bits on 4 threads as on
// 1, for byte and string keys, blocked (split and distinct) and classic filters (classic splits
// by shard, so it gets 8).
func TestBatchThreadsMatchOneThread(t *testing.T) {
	shapes := []struct {
		name string
		opts []Option
	}{
		{"blocked split", []Option{WithLayout(LayoutSplit)}},
		{"blocked split 8 shards", []Option{WithLayout(LayoutSplit), WithShards(8)}},
		{"blocked distinct", []Option{WithLayout(LayoutDistinct)}},
		{"classic 8 shards", []Option{WithKind(Classic), WithShards(8)}},
	}
	byteKeys := keys(0, bulkKeys)
	strKeys := stringKeys("k", 0, bulkKeys)
	probe := append(keys(bulkKeys/2, bulkKeys), keys(0, 100)...) // half present, half new
	probeStr := stringKeys("k", bulkKeys/2, bulkKeys)
	type run struct {
		added []int
		found []int
		res   [][]bool
		bytes []byte
	}
	build := func(threads uint32, opts []Option) run {
		var r run
		f := mustNew(t, 2*bulkKeys, 0.01, append(opts, WithSeed(11))...)
		if err := f.SetThreads(threads); err != nil {
			t.Fatal(err)
		}
		for _, add := range []func() (int, error){
			func() (int, error) { return f.AddBatch(byteKeys) },
			func() (int, error) { return f.AddBatchStrings(strKeys) },
			func() (int, error) { return f.AddBatch(probe) }, // part already there
		} {
			n, err := add()
			if err != nil {
				t.Fatal(err)
			}
			r.added = append(r.added, n)
		}
		fresh := mustNew(t, 2*bulkKeys, 0.01, append(opts, WithSeed(11))...)
		_ = fresh.SetThreads(threads)
		if _, err := fresh.AddBatch(byteKeys); err != nil {
			t.Fatal(err)
		}
		for _, g := range []*Filter{f, fresh} {
			res := make([]bool, len(probe))
			n, err := g.TestBatch(probe, res)
			if err != nil {
				t.Fatal(err)
			}
			r.found, r.res = append(r.found, n), append(r.res, res)
			res = make([]bool, len(probeStr))
			if n, err = g.TestBatchStrings(probeStr, res); err != nil {
				t.Fatal(err)
			}
			r.found, r.res = append(r.found, n), append(r.res, res)
		}
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		r.bytes = b
		return r
	}
	for _, s := range shapes {
		one, four := build(1, s.opts), build(4, s.opts)
		if !bytes.Equal(one.bytes, four.bytes) {
			t.Fatalf("%s: the bits of 4 threads differ from 1 thread's", s.name)
		}
		for i := range one.added {
			if one.added[i] != four.added[i] {
				t.Fatalf("%s: add batch %d: %d new on 1 thread, %d on 4", s.name, i, one.added[i], four.added[i])
			}
		}
		if one.added[0] < bulkKeys*99/100 || one.added[2] > bulkKeys/2+200 {
			t.Fatalf("%s: implausible added counts %v", s.name, one.added)
		}
		for i := range one.found {
			if one.found[i] != four.found[i] {
				t.Fatalf("%s: test batch %d: %d found on 1 thread, %d on 4", s.name, i, one.found[i], four.found[i])
			}
			for j := range one.res[i] {
				if one.res[i][j] != four.res[i][j] {
					t.Fatalf("%s: test batch %d key %d: %v on 1 thread, %v on 4", s.name, i, j, one.res[i][j], four.res[i][j])
				}
			}
		}
		// The fresh filter holds byteKeys: the probe's first half and its 100 repeats are found.
		for j := 0; j < bulkKeys/2; j++ {
			if !one.res[2][j] {
				t.Fatalf("%s: key %d added but not found", s.name, j)
			}
		}
	}
}

// An opened, read-only filter given threads tests its batches as with one.
func TestOpenedFilterBatchThreads(t *testing.T) {
	f := mustNew(t, 2*bulkKeys, 0.01, WithSeed(2))
	if _, err := f.AddBatch(keys(0, bulkKeys)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testDir(t), "f.abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	o, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	probe := keys(bulkKeys/2, bulkKeys)
	one := make([]bool, len(probe))
	n1, err := o.TestBatch(probe, one)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.SetThreads(4); err != nil {
		t.Fatal(err)
	}
	four := make([]bool, len(probe))
	n4, err := o.TestBatch(probe, four)
	if err != nil {
		t.Fatal(err)
	}
	if n1 != n4 || n1 < bulkKeys/2 {
		t.Fatalf("found %d on 1 thread, %d on 4", n1, n4)
	}
	for i := range one {
		if one[i] != four[i] {
			t.Fatalf("key %d: %v on 1 thread, %v on 4", i, one[i], four[i])
		}
	}
	if _, err := o.AddBatch(probe); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("AddBatch on a read-only filter with threads: %v, want ErrReadOnly", err)
	}
}

// SetThreads may run while other goroutines run batch calls (each keeps the count it started
// with): the bits are those of a single-threaded build. Under -race this also checks that the
// Go side shares nothing unsynchronised.
func TestSetThreadsDuringBatches(t *testing.T) {
	f := mustNew(t, 3*bulkKeys, 0.01, WithSeed(4))
	ref := mustNew(t, 3*bulkKeys, 0.01, WithSeed(4))
	batches := [][][]byte{keys(0, bulkKeys), keys(bulkKeys, bulkKeys)}
	for _, b := range batches {
		if _, err := ref.AddBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg, setter sync.WaitGroup
	setter.Add(1)
	go func() {
		defer setter.Done()
		for i := uint32(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := f.SetThreads(i % 5); err != nil {
				t.Error(err)
				return
			}
			_ = f.Threads()
		}
	}()
	for _, b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := 0; rep < 3; rep++ {
				if _, err := f.AddBatch(b); err != nil {
					t.Error(err)
					return
				}
				res := make([]bool, len(b))
				if n, err := f.TestBatch(b, res); err != nil || n != len(b) {
					t.Errorf("TestBatch during SetThreads: %d of %d found, %v", n, len(b), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	setter.Wait()
	if !f.Equal(ref) {
		t.Fatal("batches beside SetThreads set other bits than a single-threaded build")
	}
}
