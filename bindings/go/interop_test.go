package abloom

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// buildInterop compiles testdata/interop.c against an installed C library (pkg-config abloom),
// with an rpath so it runs without LD_LIBRARY_PATH. The C side is always the installed library,
// built by CMake, whichever engine the Go side links (the bundled copy by default, the same
// library with -tags abloom_system), so files cross between two separate builds.
//
// ABLOOM_C_PREFIX, when set, is the install to use (its lib/pkgconfig is searched first, for
// this pkg-config only: the Go build itself does not look at it); ci.sh sets it, and the test
// then fails if the library is not there. Without it the test uses whatever pkg-config finds and
// is skipped, saying so, when that is nothing: the bundled build needs no installed library.
func buildInterop(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	prefix := os.Getenv("ABLOOM_C_PREFIX")
	pkgConfig := func(args ...string) ([]byte, error) {
		cmd := exec.Command("pkg-config", args...)
		if prefix != "" {
			path := filepath.Join(prefix, "lib", "pkgconfig") + string(os.PathListSeparator) +
				filepath.Join(prefix, "lib64", "pkgconfig")
			if old := os.Getenv("PKG_CONFIG_PATH"); old != "" {
				path += string(os.PathListSeparator) + old
			}
			cmd.Env = append(os.Environ(), "PKG_CONFIG_PATH="+path)
		}
		return cmd.Output()
	}
	flags, err := pkgConfig("--cflags", "--libs", "abloom")
	if err != nil {
		if prefix == "" {
			t.Skipf("no C library for the interop test: pkg-config abloom: %v "+
				"(set ABLOOM_C_PREFIX to an install of it, or PKG_CONFIG_PATH to its lib/pkgconfig)", err)
		}
		t.Fatalf("pkg-config abloom with ABLOOM_C_PREFIX=%s: %v", prefix, err)
	}
	libdir, err := pkgConfig("--variable=libdir", "abloom")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(testDir(t), "interop")
	args := []string{"-std=c99", "-Wall", "-Werror", "-O1", filepath.Join("testdata", "interop.c"), "-o", bin}
	args = append(args, strings.Fields(string(flags))...)
	args = append(args, "-Wl,-rpath,"+strings.TrimSpace(string(libdir)))
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
	}
	return bin
}

func interopRecipe() []Option {
	return []Option{WithKind(Classic), WithShards(2), WithSeed(42)}
}

// A file saved by C opens in Go (mmap, with and without the checksum check, and by bytes).
func TestInteropCSavedOpensInGo(t *testing.T) {
	bin := buildInterop(t)
	path := filepath.Join(testDir(t), "from-c.abloom")
	if out, err := exec.Command(bin, "write", path).CombinedOutput(); err != nil {
		t.Fatalf("C writer: %v\n%s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var loaded []*Filter
	for _, flags := range [][]OpenFlag{{VerifyChecksum}, nil} {
		f, err := Open(path, flags...)
		if err != nil {
			t.Fatal(err)
		}
		loaded = append(loaded, f)
	}
	u, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	loaded = append(loaded, u)
	// The same filter built in Go.
	g := mustNew(t, 5000, 0.01, interopRecipe()...)
	for i := 0; i < 5000; i++ {
		_ = g.AddString("c-key-" + strconv.Itoa(i))
	}
	for _, f := range loaded {
		info := f.Info()
		if info.Kind != Classic || info.Shards != 2 || info.Seed != 42 || info.Capacity != 5000 {
			t.Fatalf("info %+v", info)
		}
		for i := 0; i < 5000; i++ {
			if !f.TestString("c-key-" + strconv.Itoa(i)) {
				t.Fatalf("C key %d missing in Go", i)
			}
		}
		if !f.Equal(g) {
			t.Fatal("C-built filter differs from the Go-built one")
		}
		_ = f.Close()
	}
	b, _ := g.MarshalBinary()
	if string(b) != string(data) {
		t.Fatal("Go serializes the same keys to different bytes than C saved")
	}
}

// A file saved by Go opens in C (abloom_open with the checksum check, and abloom_deserialize),
// through Save and through WriteTo.
func TestInteropGoSavedOpensInC(t *testing.T) {
	bin := buildInterop(t)
	f := mustNew(t, 5000, 0.01, interopRecipe()...)
	ks := make([]string, 5000)
	for i := range ks {
		ks[i] = "go-key-" + strconv.Itoa(i)
	}
	if _, err := f.AddBatchStrings(ks); err != nil {
		t.Fatal(err)
	}
	dir := testDir(t)
	saved := filepath.Join(dir, "from-go.abloom")
	if err := f.Save(saved); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(dir, "from-go-writeto.abloom")
	w, err := os.Create(written)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// And a file opened read-write in Go, added to, then closed (header rewritten by Close).
	rw := filepath.Join(dir, "from-go-rw.abloom")
	empty := mustNew(t, 5000, 0.01, interopRecipe()...)
	if err := empty.Save(rw); err != nil {
		t.Fatal(err)
	}
	m, err := Open(rw, OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddBatchStrings(ks); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{saved, written, rw} {
		if out, err := exec.Command(bin, "check", p).CombinedOutput(); err != nil {
			t.Fatalf("C checker on %s: %v\n%s", filepath.Base(p), err, out)
		}
	}
	// The checker really checks: a filter without the keys fails it.
	bad := filepath.Join(dir, "empty.abloom")
	if err := empty.Save(bad); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "check", bad).CombinedOutput(); err == nil {
		t.Fatalf("C checker accepted an empty filter: %s", out)
	}
}

// The growing recipe of testdata/interop.c: growth 2 from a first stage of 1000 keys, FPR 1%,
// seed 42; its 5000 keys fill three stages.
func interopGrowingRecipe() []Option {
	return []Option{WithInitialCapacity(1000), WithGrowth(2), WithSeed(42)}
}

// A growing filter's file crosses both ways: C writes, Go reads (mapped and by bytes) and finds
// the bytes it would write itself; Go writes (Save, and a copy-on-write open grown and saved),
// C reads.
func TestInteropGrowing(t *testing.T) {
	bin := buildInterop(t)
	dir := testDir(t)
	fromC := filepath.Join(dir, "from-c-growing.abloom")
	if out, err := exec.Command(bin, "write-growing", fromC).CombinedOutput(); err != nil {
		t.Fatalf("C writer: %v\n%s", err, out)
	}
	data, err := os.ReadFile(fromC)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGrowing(t, 0.01, interopGrowingRecipe()...)
	for i := 0; i < 5000; i++ {
		if err := g.AddString("c-key-" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := g.MarshalBinary(); string(b) != string(data) {
		t.Fatal("Go serializes the same keys to different bytes than C saved")
	}
	var loaded []*Filter
	for _, flags := range [][]OpenFlag{{VerifyChecksum}, nil, {OpenCopyOnWrite}} {
		f, err := Open(fromC, flags...)
		if err != nil {
			t.Fatal(err)
		}
		loaded = append(loaded, f)
	}
	u, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	loaded = append(loaded, u)
	for _, f := range loaded {
		info := f.Info()
		if info.Stages != 3 || info.Growth != 2 || info.Seed != 42 || info.Capacity != 7000 || info.Keys != g.Info().Keys {
			t.Fatalf("info %+v", info)
		}
		for i := 0; i < 5000; i++ {
			if !f.TestString("c-key-" + strconv.Itoa(i)) {
				t.Fatalf("C key %d missing in Go", i)
			}
		}
		if !f.Equal(g) {
			t.Fatal("the C-built growing filter differs from the Go-built one")
		}
		_ = f.Close()
	}

	ks := make([]string, 5000)
	for i := range ks {
		ks[i] = "go-key-" + strconv.Itoa(i)
	}
	f := mustGrowing(t, 0.01, interopGrowingRecipe()...)
	if _, err := f.AddBatchStrings(ks); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "from-go-growing.abloom")
	if err := f.Save(saved); err != nil {
		t.Fatal(err)
	}
	// Half the keys saved, opened copy-on-write, grown by the other half in Go, saved anew.
	half := mustGrowing(t, 0.01, interopGrowingRecipe()...)
	if _, err := half.AddBatchStrings(ks[:1500]); err != nil {
		t.Fatal(err)
	}
	halfPath := filepath.Join(dir, "half.abloom")
	if err := half.Save(halfPath); err != nil {
		t.Fatal(err)
	}
	w, err := Open(halfPath, OpenCopyOnWrite)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks[1500:] {
		if err := w.AddString(k); err != nil {
			t.Fatal(err)
		}
	}
	grown := filepath.Join(dir, "from-go-grown.abloom")
	err = w.Save(grown)
	_ = w.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{saved, grown} {
		if out, err := exec.Command(bin, "check-growing", p).CombinedOutput(); err != nil {
			t.Fatalf("C checker on %s: %v\n%s", filepath.Base(p), err, out)
		}
	}
	// The checker really checks: the half-filled file (two stages) and a fixed filter fail it.
	fixed := filepath.Join(dir, "fixed.abloom")
	if err := mustNew(t, 5000, 0.01, WithSeed(42)).Save(fixed); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{halfPath, fixed} {
		if out, err := exec.Command(bin, "check-growing", p).CombinedOutput(); err == nil {
			t.Fatalf("C checker accepted %s: %s", filepath.Base(p), out)
		}
	}
}
