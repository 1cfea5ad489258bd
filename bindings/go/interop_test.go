package abloom

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// buildInterop compiles testdata/interop.c against the installed library (pkg-config abloom),
// with an rpath so it runs without LD_LIBRARY_PATH.
func buildInterop(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "abloom").Output()
	if err != nil {
		t.Fatalf("pkg-config abloom: %v (set PKG_CONFIG_PATH to the install's lib/pkgconfig)", err)
	}
	libdir, err := exec.Command("pkg-config", "--variable=libdir", "abloom").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "interop")
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
	path := filepath.Join(t.TempDir(), "from-c.abloom")
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
	dir := t.TempDir()
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
