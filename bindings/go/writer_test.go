package abloom

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

func TestWriterModeValuesMatchHeader(t *testing.T) {
	if uint(SharedWriters) != capi.ABLOOM_WRITER_SHARED ||
		uint(ExclusiveWriter) != capi.ABLOOM_WRITER_EXCLUSIVE {
		t.Fatal("writer modes differ from the header")
	}
	if SharedWriters.String() != "shared" || ExclusiveWriter.String() != "exclusive" ||
		WriterMode(7).String() != "WriterMode(7)" {
		t.Fatal("WriterMode.String")
	}
}

func TestSetWriterModeAndErrors(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	if f.WriterMode() != SharedWriters {
		t.Fatalf("a new filter is %v", f.WriterMode())
	}
	if err := f.SetWriterMode(ExclusiveWriter); err != nil || f.WriterMode() != ExclusiveWriter {
		t.Fatalf("SetWriterMode(exclusive) = %v, mode %v", err, f.WriterMode())
	}
	if err := f.SetWriterMode(WriterMode(2)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("SetWriterMode(2) = %v, want ErrInvalid", err)
	}
	if f.WriterMode() != ExclusiveWriter {
		t.Fatal("a refused mode changed the filter")
	}
	c, err := f.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.WriterMode() != SharedWriters {
		t.Fatal("a clone starts shared")
	}
	_ = f.Close()
	if err := f.SetWriterMode(SharedWriters); !errors.Is(err, ErrClosed) {
		t.Fatalf("SetWriterMode after Close = %v, want ErrClosed", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("WriterMode after Close did not panic")
		}
	}()
	_ = f.WriterMode()
}

// Every write method sets the same bits, and answers the same, in either mode.
func TestExclusiveWriterSetsTheBitsSharedSets(t *testing.T) {
	build := func(mode WriterMode) ([]byte, []bool, []int) {
		f := mustNew(t, 20000, 0.01, WithSeed(9))
		other := mustNew(t, 20000, 0.01, WithSeed(9))
		for _, k := range keys(900000, 500) {
			if err := other.Add(k); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.SetWriterMode(mode); err != nil {
			t.Fatal(err)
		}
		var seen []bool
		var counts []int
		for i, k := range keys(0, 4000) {
			var err error
			if i%2 == 0 {
				err = f.Add(k)
			} else {
				err = f.AddString(string(k))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range append(keys(10000, 1000), keys(0, 100)...) {
			s, err := f.TestAndAdd(k)
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, s)
		}
		n, err := f.AddBatch(keys(20000, 3000))
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, n)
		strs := make([]string, 0, 2000)
		for _, k := range keys(30000, 2000) {
			strs = append(strs, string(k))
		}
		if n, err = f.AddBatchStrings(strs); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, n)
		if err := f.Union(other); err != nil {
			t.Fatal(err)
		}
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b, seen, counts
	}
	sharedBytes, sharedSeen, sharedCounts := build(SharedWriters)
	exclBytes, exclSeen, exclCounts := build(ExclusiveWriter)
	if !bytes.Equal(exclBytes, sharedBytes) {
		t.Fatal("the exclusive writer's filter differs from the shared one's")
	}
	for i := range sharedSeen {
		if exclSeen[i] != sharedSeen[i] {
			t.Fatalf("TestAndAdd %d: exclusive %v, shared %v", i, exclSeen[i], sharedSeen[i])
		}
	}
	for i := 1000; i < len(exclSeen); i++ {
		if !exclSeen[i] {
			t.Fatalf("TestAndAdd of a key added before reported it new (%d)", i)
		}
	}
	if exclCounts[0] != sharedCounts[0] || exclCounts[1] != sharedCounts[1] {
		t.Fatalf("batch counts: exclusive %v, shared %v", exclCounts, sharedCounts)
	}
}

// One exclusive writer, concurrent readers: every key the writer has published tests present.
func TestExclusiveWriterWithConcurrentReaders(t *testing.T) {
	const n, batch = 20000, 500
	f := mustNew(t, n, 0.01)
	if err := f.SetWriterMode(ExclusiveWriter); err != nil {
		t.Fatal(err)
	}
	ks := keys(50000, n)
	var published atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < n; i += batch {
			if _, err := f.AddBatch(ks[i : i+batch]); err != nil {
				failed.Store(true)
			}
			published.Store(int64(i + batch))
		}
	}()
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checked := 0
			for checked < n {
				upto := int(published.Load())
				for ; checked < upto; checked++ {
					if !f.Test(ks[checked]) {
						failed.Store(true)
					}
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		t.Fatal("a published key tested absent")
	}
}
