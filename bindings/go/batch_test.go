package abloom

import (
	"errors"
	"strings"
	"testing"
)

func TestBatchMatchesSingle(t *testing.T) {
	a := mustNew(t, 50000, 0.01)
	b := mustNew(t, 50000, 0.01)
	// Mixed lengths, including empty keys and duplicates.
	var ks [][]byte
	var ss []string
	for i := uint64(0); i < 20000; i++ {
		k := key(i)[:i%17]
		if i%5 == 0 {
			k = []byte(strings.Repeat("x", int(i%300)))
		}
		ks = append(ks, k)
		ss = append(ss, string(k))
	}
	added, err := a.AddBatch(ks)
	if err != nil {
		t.Fatal(err)
	}
	newKeys := 0
	for _, k := range ks {
		seen, err := b.TestAndAdd(k)
		if err != nil {
			t.Fatal(err)
		}
		if !seen {
			newKeys++
		}
	}
	if added != newKeys {
		t.Fatalf("AddBatch reported %d new keys, TestAndAdd one by one %d", added, newKeys)
	}
	if !a.Equal(b) {
		t.Fatal("AddBatch and single adds give different bits")
	}
	c := mustNew(t, 50000, 0.01)
	if n, err := c.AddBatchStrings(ss); err != nil || n != added {
		t.Fatalf("AddBatchStrings = %d, %v", n, err)
	}
	if !c.Equal(a) {
		t.Fatal("AddBatchStrings differs from AddBatch")
	}

	probe := keys(1<<30, 30000)
	probe = append(probe, ks[:1000]...)
	res := make([]bool, len(probe)+5)
	for i := range res {
		res[i] = i%2 == 0
	}
	found, err := a.TestBatch(probe, res)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for i, k := range probe {
		if res[i] != a.Test(k) {
			t.Fatalf("TestBatch[%d] = %v, Test = %v", i, res[i], a.Test(k))
		}
		if res[i] {
			count++
		}
	}
	if found != count {
		t.Fatalf("found %d, %d trues", found, count)
	}
	for i := len(probe); i < len(res); i++ {
		if res[i] != (i%2 == 0) {
			t.Fatal("TestBatch wrote past len(keys)")
		}
	}
	strs := make([]string, len(probe))
	for i, k := range probe {
		strs[i] = string(k)
	}
	res2 := make([]bool, len(strs))
	found2, err := a.TestBatchStrings(strs, res2)
	if err != nil || found2 != found {
		t.Fatalf("TestBatchStrings = %d, %v", found2, err)
	}
	for i := range res2 {
		if res2[i] != res[i] {
			t.Fatalf("TestBatchStrings[%d] differs", i)
		}
	}
}

func TestBatchEdgeCases(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	if n, err := f.AddBatch(nil); n != 0 || err != nil {
		t.Fatalf("AddBatch(nil) = %d, %v", n, err)
	}
	if n, err := f.AddBatchStrings([]string{}); n != 0 || err != nil {
		t.Fatalf("AddBatchStrings(empty) = %d, %v", n, err)
	}
	if n, err := f.TestBatch(nil, nil); n != 0 || err != nil {
		t.Fatalf("TestBatch(nil) = %d, %v", n, err)
	}
	// All keys empty: a zero-length buffer with offsets.
	if n, err := f.AddBatch([][]byte{{}, nil, {}}); n != 1 || err != nil {
		t.Fatalf("AddBatch of empty keys = %d, %v", n, err)
	}
	if !f.Test(nil) {
		t.Fatal("empty key absent after AddBatch")
	}
	res := make([]bool, 2)
	if n, err := f.TestBatch([][]byte{nil, []byte("nope")}, res); err != nil || n != 1 || !res[0] {
		t.Fatalf("TestBatch = %d, %v, %v", n, err, res)
	}
	// results too short.
	_, err := f.TestBatch(keys(0, 3), make([]bool, 2))
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("short results: %v", err)
	}
	_, err = f.TestBatchStrings([]string{"a", "b"}, make([]bool, 1))
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("short results (strings): %v", err)
	}
	// A huge batch goes past the pooled-buffer bound and still works.
	big := make([][]byte, 2)
	big[0] = make([]byte, maxPooled+1)
	big[1] = []byte("after")
	if _, err := f.AddBatch(big); err != nil {
		t.Fatal(err)
	}
	if !f.Test(big[0]) || !f.TestString("after") {
		t.Fatal("big batch keys absent")
	}
}

func TestReadOnlyWritesFail(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	_ = f.AddString("k")
	path := testDir(t) + "/ro.abloom"
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.Info().ReadOnly || g.Info().Storage != Mapped {
		t.Fatalf("info %+v", g.Info())
	}
	errs := []error{g.Add([]byte("x")), g.AddString("x"), g.Clear(), g.Union(f), g.Intersect(f)}
	_, e := g.TestAndAdd([]byte("x"))
	errs = append(errs, e)
	_, e = g.TestAndAddString("x")
	errs = append(errs, e)
	_, e = g.AddBatch(keys(0, 3))
	errs = append(errs, e)
	_, e = g.AddBatchStrings([]string{"x"})
	errs = append(errs, e)
	for i, err := range errs {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("write %d to read-only filter: %v", i, err)
		}
	}
	if g.TestString("x") || !g.TestString("k") {
		t.Fatal("read-only filter changed")
	}
	// Reads work, and a clone is writable.
	c, err := g.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.AddString("x"); err != nil || !c.TestString("x") || c.Info().ReadOnly {
		t.Fatalf("clone of read-only: %v", err)
	}
	// Reading from a read-only filter into a writable one works.
	if err := f.Union(g); err != nil {
		t.Fatal(err)
	}
}

// dedupeKeys is a batch of mixed lengths (empty keys too) with repeats of its own earlier keys
// and of the key just before, and some keys of `old` (keys added before the batch).
func dedupeKeys(n int, old [][]byte) [][]byte {
	var ks [][]byte
	for i := 0; i < n; i++ {
		k := key(uint64(i) + 1000000)[:i%17]
		switch {
		case i%7 == 3:
			k = ks[i/2]
		case i%11 == 5:
			k = ks[i-1]
		case i%13 == 0 && len(old) > 0:
			k = old[i%len(old)]
		}
		ks = append(ks, k)
	}
	return ks
}

// TestAndAddBatch and TestAndAddBatchStrings answer, count and set bits as one TestAndAdd per
// key, on a fixed filter and on a growing one the batch takes across several stages; the keys
// test present afterwards (the growing filter's Test probes its stages in Go, which must see the
// stages the batch appended).
func TestTestAndAddBatchMatchesSingle(t *testing.T) {
	old := keys(0, 300)
	ks := dedupeKeys(20000, old)
	ss := make([]string, len(ks))
	for i, k := range ks {
		ss[i] = string(k)
	}
	for _, growing := range []bool{false, true} {
		make3 := func() (a, b, c *Filter) {
			fs := make([]*Filter, 3)
			for i := range fs {
				if growing {
					fs[i] = mustGrowing(t, 0.01, WithInitialCapacity(1000))
				} else {
					fs[i] = mustNew(t, 20000, 0.01)
				}
				mustAddBatch(t, fs[i], old)
			}
			return fs[0], fs[1], fs[2]
		}
		batch, single, strs := make3()
		before := batch.Info().Stages
		res := make([]bool, len(ks)+3)
		res[len(ks)], res[len(ks)+1] = true, true
		added, err := batch.TestAndAddBatch(ks, res)
		if err != nil {
			t.Fatal(err)
		}
		newKeys, repeats := 0, 0
		for i, k := range ks {
			seen, err := single.TestAndAdd(k)
			if err != nil {
				t.Fatal(err)
			}
			if res[i] != seen {
				t.Fatalf("growing %v: TestAndAddBatch[%d] = %v, TestAndAdd = %v", growing, i, res[i], seen)
			}
			if seen {
				repeats++
			} else {
				newKeys++
			}
		}
		if added != newKeys || repeats == 0 || newKeys == 0 {
			t.Fatalf("growing %v: TestAndAddBatch reported %d new keys, TestAndAdd one by one %d (%d repeats)", growing, added, newKeys, repeats)
		}
		if !res[len(ks)] || !res[len(ks)+1] || res[len(ks)+2] {
			t.Fatal("TestAndAddBatch wrote past len(keys)")
		}
		if !batch.Equal(single) || batch.Info().Keys != single.Info().Keys {
			t.Fatalf("growing %v: TestAndAddBatch and TestAndAdd give different filters", growing)
		}
		if growing && batch.Info().Stages < before+2 {
			t.Fatalf("the batch crossed %d stage boundaries, want at least 2", batch.Info().Stages-before)
		}
		allPresent(t, batch, ks, "after TestAndAddBatch")

		res2 := make([]bool, len(ss))
		added2, err := strs.TestAndAddBatchStrings(ss, res2)
		if err != nil || added2 != added {
			t.Fatalf("TestAndAddBatchStrings = %d, %v; want %d", added2, err, added)
		}
		for i := range ss {
			if res2[i] != res[i] {
				t.Fatalf("TestAndAddBatchStrings[%d] differs", i)
			}
		}
		if !strs.Equal(batch) {
			t.Fatal("TestAndAddBatchStrings differs from TestAndAddBatch")
		}
		// Again: every key present now, none new.
		if n, err := batch.TestAndAddBatch(ks[:100], res); err != nil || n != 0 || !res[0] || !res[99] {
			t.Fatalf("second TestAndAddBatch = %d, %v", n, err)
		}
	}
}

func TestTestAndAddBatchErrors(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	if n, err := f.TestAndAddBatch(nil, nil); n != 0 || err != nil {
		t.Fatalf("TestAndAddBatch(nil) = %d, %v", n, err)
	}
	if n, err := f.TestAndAddBatchStrings([]string{}, nil); n != 0 || err != nil {
		t.Fatalf("TestAndAddBatchStrings(empty) = %d, %v", n, err)
	}
	// Results too short: ErrInvalid, nothing added.
	if _, err := f.TestAndAddBatch(keys(0, 3), make([]bool, 2)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short results: %v", err)
	}
	if _, err := f.TestAndAddBatchStrings([]string{"a", "b"}, make([]bool, 1)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short results (strings): %v", err)
	}
	if f.Test(key(0)) || f.TestString("a") || f.Info().Keys != 0 {
		t.Fatal("a refused batch added keys")
	}
	// Empty keys: one new key, then a repeat.
	res := make([]bool, 3)
	if n, err := f.TestAndAddBatch([][]byte{{}, nil, {}}, res); n != 1 || err != nil || res[0] || !res[1] || !res[2] {
		t.Fatalf("TestAndAddBatch of empty keys = %d, %v, %v", n, err, res)
	}

	// Read-only: ErrReadOnly, nothing added, results untouched.
	path := testDir(t) + "/tab.abloom"
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ro := []bool{true, true}
	if _, err := g.TestAndAddBatch(keys(0, 2), ro); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only TestAndAddBatch: %v", err)
	}
	if _, err := g.TestAndAddBatchStrings([]string{"x", "y"}, ro); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only TestAndAddBatchStrings: %v", err)
	}
	if !ro[0] || !ro[1] || g.Test(key(0)) || g.TestString("x") {
		t.Fatal("read-only filter changed")
	}

	// Closed: ErrClosed whatever the arguments.
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.TestAndAddBatch(keys(0, 3), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
	if _, err := g.TestAndAddBatchStrings(nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed (strings): %v", err)
	}
}
