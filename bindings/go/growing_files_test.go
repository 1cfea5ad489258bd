package abloom

// Growing filters' bytes and files: round trips through every form, a read-write file that
// grows in place, and the golden vector. The other growing-filter tests are in growing_test.go.

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bytes, streams and files keep every stage, at one stage and at several.
func TestGrowingRoundTrips(t *testing.T) {
	opts := []Option{WithInitialCapacity(500), WithSeed(77)}
	for _, n := range []uint64{100, 1000, 15000} {
		t.Run(uitoa(n)+"-keys", func(t *testing.T) {
			f := mustGrowing(t, 0.01, opts...)
			ks := keys(0, n)
			mustAddBatch(t, f, ks)
			info := f.Info()
			fp, _ := GrowthFootprint(n, 0.01, opts...)
			if info.Stages != fp.Stages {
				t.Fatalf("%d stages, footprint %d", info.Stages, fp.Stages)
			}
			data, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			check := func(g *Filter, how string, storage Storage, readOnly bool) {
				t.Helper()
				gi := g.Info()
				if gi.Stages != info.Stages || gi.Growth != DefaultGrowth || gi.Keys != info.Keys || gi.Capacity != info.Capacity ||
					gi.Bytes != info.Bytes || gi.Seed != 77 || gi.Storage != storage || gi.ReadOnly != readOnly {
					t.Fatalf("%s: info %+v, want %+v", how, gi, info)
				}
				if !g.Equal(f) || !f.Equal(g) {
					t.Fatalf("%s: not Equal to the original", how)
				}
				allPresent(t, g, ks, how)
			}
			u, err := Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			defer u.Close()
			check(u, "Unmarshal", Owned, false)
			c, err := f.Clone()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			check(c, "Clone", Owned, false)

			// A stream: this filter, a fixed one, this filter again.
			fixed := mustNew(t, 100, 0.01)
			var stream bytes.Buffer
			for _, g := range []*Filter{f, fixed, f} {
				if _, err := g.WriteTo(&stream); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < 3; i++ {
				var r Filter
				if _, err := r.ReadFrom(&stream); err != nil {
					t.Fatalf("ReadFrom %d: %v", i, err)
				}
				if i == 1 {
					if !r.Equal(fixed) {
						t.Fatal("the fixed filter between two growing ones changed")
					}
				} else {
					check(&r, "ReadFrom", Owned, false)
				}
				_ = r.Close()
			}
			if stream.Len() != 0 {
				t.Fatalf("%d bytes left in the stream", stream.Len())
			}
			var short Filter
			if _, err := short.ReadFrom(bytes.NewReader(data[:len(data)-1])); !errors.Is(err, ErrTruncated) {
				t.Fatalf("ReadFrom of a cut chain: %v", err)
			}

			// A damaged last stage is refused.
			bad := append([]byte(nil), data...)
			bad[len(bad)-1] ^= 1
			if _, err := Unmarshal(bad); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Unmarshal of a damaged stage: %v", err)
			}

			dir := testDir(t)
			path := filepath.Join(dir, "g.abloom")
			if err := f.Save(path); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("the saved file differs from MarshalBinary (%v)", err)
			}
			for _, flags := range [][]OpenFlag{nil, {VerifyChecksum}} {
				g, err := Open(path, flags...)
				if err != nil {
					t.Fatal(err)
				}
				check(g, "Open", Mapped, true)
				if err := g.AddString("x"); !errors.Is(err, ErrReadOnly) {
					t.Fatalf("Add to a read-only growing file: %v", err)
				}
				if _, err := g.AddBatchStrings([]string{"x"}); !errors.Is(err, ErrReadOnly) {
					t.Fatalf("AddBatch to a read-only growing file: %v", err)
				}
				_ = g.Close()
			}
			// Copy-on-write: adds work, stages are appended, and the file never changes.
			w, err := Open(path, OpenCopyOnWrite)
			if err != nil {
				t.Fatal(err)
			}
			check(w, "OpenCopyOnWrite", Mapped, false)
			more := keys(n, 5*n) // past the capacity of the stages there are
			mustAddBatch(t, w, more)
			if w.Info().Stages <= info.Stages {
				t.Fatalf("copy-on-write adds did not grow the filter: %d stages", w.Info().Stages)
			}
			allPresent(t, w, ks, "copy-on-write, old keys")
			allPresent(t, w, more, "copy-on-write, new keys")
			// Saved to another path (Windows cannot replace a mapped file), it reopens whole.
			grown := filepath.Join(dir, "grown.abloom")
			if err := w.Save(grown); err != nil {
				t.Fatal(err)
			}
			g2, err := Open(grown, VerifyChecksum)
			if err != nil {
				t.Fatal(err)
			}
			if !g2.Equal(w) {
				t.Fatal("the grown copy-on-write filter saved and reopened differs")
			}
			_ = g2.Close()
			_ = w.Close()
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("copy-on-write adds reached the file (%v)", err)
			}
		})
	}
}

// A growing filter's file opened read-write grows in place: stages appended to the file, every
// key there after Close, the file sealed; Sync leaves it stale, and Seal seals a stale one.
func TestGrowingReadWriteFile(t *testing.T) {
	path := filepath.Join(testDir(t), "g.abloom")
	a := mustGrowing(t, 0.01, WithInitialCapacity(100))
	mustAddBatch(t, a, keys(0, 150))
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, OpenReadWrite|VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	more := keys(1000, 3000)
	for _, k := range more {
		if err := w.Add(k); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.Info().Stages; got < 5 {
		t.Fatalf("%d stages after 3150 keys from 100", got)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, VerifyChecksum); !errors.Is(err, ErrStale) {
		t.Fatalf("a verifying open while the writer runs: %v", err)
	}
	stale := filepath.Join(testDir(t), "stale.abloom")
	if b, err := os.ReadFile(path); err != nil || os.WriteFile(stale, b, 0o644) != nil {
		t.Fatal("copying the stale file", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, stale} {
		if p == stale {
			if err := Seal(p); err != nil {
				t.Fatalf("Seal of a stale growing file: %v", err)
			}
		}
		g, err := Open(p, VerifyChecksum)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, k := range append(keys(0, 150), more...) {
			if !g.Test(k) {
				t.Fatalf("%s: key %q lost", p, k)
			}
		}
		g.Close()
	}
}

// The golden vector tests/vectors/growing_s1: a growing filter of three stages written by C
// reads with every recorded answer, and rebuilding it from its keys gives the same bytes.
func TestGrowingGoldenVector(t *testing.T) {
	const name, seed = "growing_s1", 0x6A0E1A6000000003
	path := filepath.Join(vectorDir, name+".abloom")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(file) != 3904 {
		t.Fatalf("%d bytes, README says 3904", len(file))
	}
	keyLines := readLines(t, filepath.Join(vectorDir, name+".keys.txt"))
	absentLines := readLines(t, filepath.Join(vectorDir, name+".absent.txt"))
	if len(keyLines) != 450 || len(absentLines) != 2000 {
		t.Fatalf("%d keys, %d absent lines", len(keyLines), len(absentLines))
	}
	check := func(f *Filter, how string) {
		t.Helper()
		info := f.Info()
		if info.Stages != 3 || info.Growth != 2 || info.Capacity != 700 || info.TargetFPR != 0.1 || info.Seed != seed ||
			info.Kind != Blocked || info.Layout != LayoutSplit || info.Shards != 1 || info.K != 9 || info.BlocksPerShard != 11 ||
			info.GrowthFailed {
			t.Fatalf("%s: info %+v", how, info)
		}
		for i, want := range []uint64{100, 200, 400} {
			s, err := f.StageInfo(i)
			if err != nil || s.Capacity != want {
				t.Fatalf("%s: stage %d: %+v, %v", how, i, s, err)
			}
		}
		for _, k := range keyLines {
			if !f.TestString(k) {
				t.Fatalf("%s: key %q tests 0", how, k)
			}
		}
		res := make([]bool, len(keyLines))
		if n, err := f.TestBatchStrings(keyLines, res); err != nil || n != len(keyLines) {
			t.Fatalf("%s: TestBatchStrings found %d of %d, %v", how, n, len(keyLines), err)
		}
		positives := 0
		absent := make([]string, len(absentLines))
		for i, line := range absentLines {
			answer, k, ok := strings.Cut(line, " ")
			if !ok || (answer != "0" && answer != "1") {
				t.Fatalf("bad absent line %q", line)
			}
			absent[i] = k
			if got := f.TestString(k); got != (answer == "1") {
				t.Fatalf("%s: absent key %q tests %v, recorded %s", how, k, got, answer)
			}
			if answer == "1" {
				positives++
			}
		}
		if positives != 1 {
			t.Fatalf("%d absent positives recorded, README says 1", positives)
		}
		res = make([]bool, len(absent))
		if n, err := f.TestBatchStrings(absent, res); err != nil || n != positives {
			t.Fatalf("%s: TestBatchStrings over absent keys found %d, want %d (%v)", how, n, positives, err)
		}
	}
	for _, flags := range [][]OpenFlag{{VerifyChecksum}, nil, {OpenCopyOnWrite}} {
		f, err := Open(path, flags...)
		if err != nil {
			t.Fatalf("Open(%v): %v", flags, err)
		}
		check(f, "Open")
		_ = f.Close()
	}
	u, err := Unmarshal(file)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	check(u, "Unmarshal")
	var r Filter
	if n, err := r.ReadFrom(bytes.NewReader(file)); err != nil || n != int64(len(file)) {
		t.Fatalf("ReadFrom = %d, %v", n, err)
	}
	defer r.Close()
	check(&r, "ReadFrom")

	// Rebuilt with the same options, one key at a time and in one batch: the same bytes.
	opts := []Option{WithInitialCapacity(100), WithGrowth(2), WithShards(1), WithSeed(seed)}
	one := mustGrowing(t, 0.1, opts...)
	for _, k := range keyLines {
		if err := one.AddString(k); err != nil {
			t.Fatal(err)
		}
	}
	batch := mustGrowing(t, 0.1, opts...)
	if _, err := batch.AddBatchStrings(keyLines); err != nil {
		t.Fatal(err)
	}
	for how, f := range map[string]*Filter{"single": one, "batch": batch} {
		b, err := f.MarshalBinary()
		if err != nil || !bytes.Equal(b, file) {
			t.Fatalf("%s rebuild: serialized bytes differ from %s (%v)", how, name, err)
		}
		saved := filepath.Join(testDir(t), "rebuilt.abloom")
		if err := f.Save(saved); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(saved); err != nil || !bytes.Equal(got, file) {
			t.Fatalf("%s rebuild: saved file differs (%v)", how, err)
		}
		if !f.Equal(u) {
			t.Fatalf("%s rebuild: not Equal to the vector", how)
		}
	}
}
