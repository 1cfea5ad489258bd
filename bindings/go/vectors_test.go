package abloom

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The golden vectors of the repository's tests/vectors (see the README there): written once by
// the C library, they pin the format and the bit layout. The test reads them there, from a
// checkout: Go runs a module's tests only in its own tree, never from the module cache.
var vectorDir = filepath.Join("..", "..", "tests", "vectors")

type vector struct {
	name           string
	kind           Kind
	layout         Layout
	shards         uint32
	seed           uint64
	k              uint32
	blocksPerShard uint64
	fileBytes      int
	absentPositive int
}

var vectors = []vector{
	{"blocked_s1", Blocked, LayoutDistinct, 1, 0x0123456789ABCDEF, 7, 9, 704, 31},
	{"blocked_s4", Blocked, LayoutDistinct, 4, 0xFEDCBA9876543210, 8, 3, 896, 5},
	{"classic_s1", Classic, LayoutDistinct, 1, 0x00000000DEADBEEF, 7, 9, 704, 10},
	{"classic_s4", Classic, LayoutDistinct, 4, 0x8000000000000001, 9, 3, 896, 1},
	{"split_s1", Blocked, LayoutSplit, 1, 0x5B117000000000A1, 7, 9, 704, 13},
	{"split_s4", Blocked, LayoutSplit, 4, 0xA100000000075B11, 9, 3, 896, 8},
	{"half_s1", Blocked, LayoutHalf, 1, 0x4A1F000000000A18, 8, 10, 768, 10},
	{"half_s4", Blocked, LayoutHalf, 4, 0x8A0000000000F1A4, 8, 3, 896, 8},
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func (v vector) options() []Option {
	opts := []Option{WithKind(v.kind), WithShards(v.shards), WithSeed(v.seed)}
	if v.kind == Blocked {
		opts = append(opts, WithLayout(v.layout))
	}
	return opts
}

// checkVector checks one loaded filter against the vector: info, every key, every absent answer.
func checkVector(t *testing.T, v vector, f *Filter, keys []string, absent []string) {
	t.Helper()
	info := f.Info()
	if info.Kind != v.kind || info.Layout != v.layout || info.Shards != v.shards || info.Seed != v.seed || info.K != v.k ||
		info.BlocksPerShard != v.blocksPerShard || info.Capacity != 450 || info.TargetFPR != 0.01 {
		t.Fatalf("%s: info %+v", v.name, info)
	}
	for _, k := range keys {
		if !f.TestString(k) {
			t.Fatalf("%s: key %q tests 0", v.name, k)
		}
	}
	res := make([]bool, len(keys))
	if n, err := f.TestBatchStrings(keys, res); err != nil || n != len(keys) {
		t.Fatalf("%s: TestBatchStrings found %d of %d, %v", v.name, n, len(keys), err)
	}
	positives := 0
	absentKeys := make([]string, len(absent))
	for i, line := range absent {
		answer, k, ok := strings.Cut(line, " ")
		if !ok || (answer != "0" && answer != "1") {
			t.Fatalf("%s: bad absent line %q", v.name, line)
		}
		absentKeys[i] = k
		if got := f.TestString(k); got != (answer == "1") {
			t.Fatalf("%s: absent key %q tests %v, recorded %s", v.name, k, got, answer)
		}
		if answer == "1" {
			positives++
		}
	}
	if positives != v.absentPositive {
		t.Fatalf("%s: %d absent positives recorded, README says %d", v.name, positives, v.absentPositive)
	}
	res = make([]bool, len(absentKeys))
	if n, err := f.TestBatchStrings(absentKeys, res); err != nil || n != positives {
		t.Fatalf("%s: TestBatchStrings over absent keys found %d, want %d (%v)", v.name, n, positives, err)
	}
}

func TestGoldenVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			path := filepath.Join(vectorDir, v.name+".abloom")
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(file) != v.fileBytes {
				t.Fatalf("%d bytes, README says %d", len(file), v.fileBytes)
			}
			keys := readLines(t, filepath.Join(vectorDir, v.name+".keys.txt"))
			absent := readLines(t, filepath.Join(vectorDir, v.name+".absent.txt"))
			if len(keys) != 450 || len(absent) != 2000 {
				t.Fatalf("%d keys, %d absent lines", len(keys), len(absent))
			}

			// Every way of loading it.
			for _, flags := range [][]OpenFlag{{VerifyChecksum}, nil, {OpenCopyOnWrite}, {OpenCopyOnWrite, VerifyChecksum}} {
				f, err := Open(path, flags...)
				if err != nil {
					t.Fatalf("Open(%v): %v", flags, err)
				}
				checkVector(t, v, f, keys, absent)
				_ = f.Close()
			}
			u, err := Unmarshal(file)
			if err != nil {
				t.Fatal(err)
			}
			defer u.Close()
			checkVector(t, v, u, keys, absent)
			var r Filter
			if n, err := r.ReadFrom(bytes.NewReader(file)); err != nil || n != int64(len(file)) {
				t.Fatalf("ReadFrom = %d, %v", n, err)
			}
			defer r.Close()
			checkVector(t, v, &r, keys, absent)

			// Rebuilding from the keys with the same options gives the same bytes: one key at
			// a time, and in one batch.
			one := mustNew(t, 450, 0.01, v.options()...)
			for _, k := range keys {
				if err := one.AddString(k); err != nil {
					t.Fatal(err)
				}
			}
			batch := mustNew(t, 450, 0.01, v.options()...)
			if _, err := batch.AddBatchStrings(keys); err != nil {
				t.Fatal(err)
			}
			for name, f := range map[string]*Filter{"single": one, "batch": batch} {
				b, err := f.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b, file) {
					t.Fatalf("%s rebuild: serialized bytes differ from %s", name, v.name)
				}
				var buf bytes.Buffer
				if _, err := f.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), file) {
					t.Fatalf("%s rebuild: WriteTo differs (%v)", name, err)
				}
				saved := filepath.Join(testDir(t), "rebuilt.abloom")
				if err := f.Save(saved); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(saved)
				if err != nil || !bytes.Equal(got, file) {
					t.Fatalf("%s rebuild: saved file differs (%v)", name, err)
				}
				if !f.Equal(u) {
					t.Fatalf("%s rebuild: not Equal to the vector", name)
				}
			}
			// With the layout given explicitly (bits and k) the body is identical.
			explicit := mustNew(t, 450, 0.01, append(v.options(),
				WithBits(uint64(v.shards)*v.blocksPerShard*512), WithK(v.k))...)
			if _, err := explicit.AddBatchStrings(keys); err != nil {
				t.Fatal(err)
			}
			b, _ := explicit.MarshalBinary()
			if !bytes.Equal(b[headerBytes:], file[headerBytes:]) {
				t.Fatal("explicit layout: body differs")
			}
		})
	}
}
