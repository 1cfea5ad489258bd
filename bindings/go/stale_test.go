package abloom

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// staleFile makes the file a killed read-write writer leaves: a saved filter of 300 keys, opened
// with OpenReadWrite, 300 more keys added, and the file's bytes copied before the writer syncs.
// It returns the stale copy's path and both key sets.
func staleFile(t *testing.T) (string, []string) {
	t.Helper()
	dir := testDir(t)
	intact := filepath.Join(dir, "intact.abloom")
	f, err := New(2000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var keys []string
	for i := 0; i < 600; i++ {
		keys = append(keys, fmt.Sprintf("key-%d", i))
	}
	for _, k := range keys[:300] {
		f.AddString(k)
	}
	if err := f.Save(intact); err != nil {
		t.Fatal(err)
	}
	rw, err := Open(intact, OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if rw.Info().Stale {
		t.Fatal("a saved file opened read-write reports stale")
	}
	for _, k := range keys[300:] {
		if err := rw.AddString(k); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(intact)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "stale.abloom")
	if err := os.WriteFile(stale, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	return stale, keys
}

func TestStaleOpenAndInfo(t *testing.T) {
	path, keys := staleFile(t)
	_, err := Open(path, VerifyChecksum)
	if !errors.Is(err, ErrStale) || errors.Is(err, ErrChecksum) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("verified open of a stale file: %v, want ErrStale only", err)
	}
	b, _ := os.ReadFile(path)
	if _, err := Unmarshal(b); !errors.Is(err, ErrStale) {
		t.Fatalf("Unmarshal of stale bytes: %v", err)
	}
	for _, flags := range [][]OpenFlag{nil, {OpenCopyOnWrite}} {
		g, err := Open(path, flags...)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Info().Stale {
			t.Fatalf("Open(%v) of a stale file: Info().Stale false", flags)
		}
		for _, k := range keys {
			if !g.TestString(k) {
				t.Fatalf("key %q missing from the stale file", k)
			}
		}
		_ = g.Close()
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("readers changed the stale file")
	}
}

func TestSeal(t *testing.T) {
	path, keys := staleFile(t)
	if err := Seal(path); err != nil {
		t.Fatal(err)
	}
	g, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatalf("verified open after Seal: %v", err)
	}
	if g.Info().Stale {
		t.Fatal("sealed file reports stale")
	}
	for _, k := range keys {
		if !g.TestString(k) {
			t.Fatalf("key %q missing after Seal", k)
		}
	}
	_ = g.Close()
	sealed, _ := os.ReadFile(path)
	if err := Seal(path); err != nil {
		t.Fatalf("Seal of a sealed file: %v", err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, sealed) {
		t.Fatal("Seal rewrote a sealed file")
	}

	// Corrupt (not stale): refused with ErrChecksum, the file left as it is.
	bad := append([]byte(nil), sealed...)
	bad[headerBytes+10] ^= 0x40
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Seal(path); !errors.Is(err, ErrChecksum) {
		t.Fatalf("Seal of a corrupt file: %v, want ErrChecksum", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, bad) {
		t.Fatal("Seal wrote a corrupt file")
	}

	missing := filepath.Join(filepath.Dir(path), "missing.abloom")
	var e *Error
	err = Seal(missing)
	if !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) ||
		e.Op != "Seal" || e.Path != missing {
		t.Fatalf("Seal of a missing file: %v", err)
	}
}
