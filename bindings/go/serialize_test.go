package abloom

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"testing/iotest"
)

func filled(t *testing.T, n uint64, opts ...Option) *Filter {
	t.Helper()
	f := mustNew(t, n, 0.01, opts...)
	if _, err := f.AddBatch(keys(0, n)); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestMarshalRoundTrip(t *testing.T) {
	f := filled(t, 20000, WithShards(4), WithSeed(99))
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(b)) != headerBytes+f.Info().Bytes {
		t.Fatalf("%d bytes for %d of body", len(b), f.Info().Bytes)
	}
	g, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.Equal(f) || g.Info().Storage != Owned || g.Info().ReadOnly {
		t.Fatal("round trip differs")
	}
	// UnmarshalBinary into an open filter replaces it.
	h := mustNew(t, 10, 0.5)
	if err := h.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !h.Equal(f) || h.Cap() != 20000 {
		t.Fatal("UnmarshalBinary did not replace the filter")
	}
	// On error it is left as it was.
	if err := h.UnmarshalBinary(b[:100]); !errors.Is(err, ErrTruncated) {
		t.Fatalf("truncated: %v", err)
	}
	if !h.Equal(f) {
		t.Fatal("failed UnmarshalBinary changed the filter")
	}
}

func TestUnmarshalRejectsBadBytes(t *testing.T) {
	f := filled(t, 1000)
	good, _ := f.MarshalBinary()
	mutate := func(fn func(b []byte) []byte) []byte {
		b := append([]byte(nil), good...)
		return fn(b)
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"short header", good[:64], ErrTruncated},
		{"header only", good[:headerBytes], ErrTruncated},
		{"missing last byte", good[:len(good)-1], ErrTruncated},
		{"trailing byte", append(append([]byte(nil), good...), 0), ErrCorrupt},
		{"bad magic", mutate(func(b []byte) []byte { b[0] ^= 1; return b }), ErrBadMagic},
		{"bad version", mutate(func(b []byte) []byte { b[8] = 2; return b }), ErrVersion},
		{"header bit flip", mutate(func(b []byte) []byte { b[40] ^= 4; return b }), ErrCorrupt},
		{"body bit flip", mutate(func(b []byte) []byte { b[len(b)-7] ^= 0x10; return b }), ErrChecksum},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Unmarshal(c.data)
			if g != nil || !errors.Is(err, c.want) {
				t.Fatalf("Unmarshal = %v, %v; want %v", g, err, c.want)
			}
			var z Filter
			if err := z.UnmarshalBinary(c.data); !errors.Is(err, c.want) {
				t.Fatalf("UnmarshalBinary: %v", err)
			}
			if err := z.Add(nil); !errors.Is(err, ErrClosed) {
				t.Fatal("failed UnmarshalBinary opened the zero Filter")
			}
			if _, err := z.ReadFrom(bytes.NewReader(c.data)); !errors.Is(err, c.want) &&
				!(c.want == ErrCorrupt && c.name == "trailing byte") {
				t.Fatalf("ReadFrom: %v", err)
			}
			path := filepath.Join(testDir(t), "bad.abloom")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if c.want == ErrChecksum {
				// O(1) open does not read the body; the verified one does.
				o, err := Open(path)
				if err != nil {
					t.Fatalf("unverified Open: %v", err)
				}
				_ = o.Close()
				if _, err := Open(path, VerifyChecksum); !errors.Is(err, ErrChecksum) {
					t.Fatalf("verified Open: %v", err)
				}
			} else if _, err := Open(path); !errors.Is(err, c.want) {
				t.Fatalf("Open: %v", err)
			}
		})
	}
}

func TestStreamOfFilters(t *testing.T) {
	a := filled(t, 1000)
	b := filled(t, 3000, WithKind(Classic))
	var buf bytes.Buffer
	na, err := a.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := b.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	buf.WriteString("tail")
	r := iotest.HalfReader(&buf) // short reads
	var x, y Filter
	if n, err := x.ReadFrom(r); err != nil || n != na {
		t.Fatalf("first ReadFrom = %d, %v (wrote %d)", n, err, na)
	}
	defer x.Close()
	if n, err := y.ReadFrom(r); err != nil || n != nb {
		t.Fatalf("second ReadFrom = %d, %v (wrote %d)", n, err, nb)
	}
	defer y.Close()
	if !x.Equal(a) || !y.Equal(b) {
		t.Fatal("stream round trip differs")
	}
	if rest, _ := io.ReadAll(r); string(rest) != "tail" {
		t.Fatalf("ReadFrom read past its filter: %q left", rest)
	}
	// End of stream: ErrTruncated wrapping io.EOF / io.ErrUnexpectedEOF.
	var z Filter
	if _, err := z.ReadFrom(bytes.NewReader(nil)); !errors.Is(err, ErrTruncated) || !errors.Is(err, io.EOF) {
		t.Fatalf("empty stream: %v", err)
	}
	full, _ := a.MarshalBinary()
	if _, err := z.ReadFrom(bytes.NewReader(full[:len(full)-10])); !errors.Is(err, ErrTruncated) ||
		!errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut stream: %v", err)
	}
	// Reader errors pass through.
	boom := errors.New("boom")
	if _, err := z.ReadFrom(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Fatalf("reader error: %v", err)
	}
	if _, err := z.ReadFrom(io.MultiReader(bytes.NewReader(full[:200]), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Fatalf("reader error in body: %v", err)
	}
	// Writer errors pass through.
	if _, err := a.WriteTo(failWriter{boom}); !errors.Is(err, boom) {
		t.Fatalf("writer error: %v", err)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

func TestSaveOpen(t *testing.T) {
	dir := testDir(t)
	f := filled(t, 10000, WithSeed(5))
	path := filepath.Join(dir, "f.abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("Save left %d files", len(entries))
	}
	for _, flags := range [][]OpenFlag{nil, {VerifyChecksum}, {OpenReadOnly}} {
		g, err := Open(path, flags...)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Equal(f) || g.Info().Storage != Mapped || !g.Info().ReadOnly {
			t.Fatalf("Open(%v) info %+v", flags, g.Info())
		}
		_ = g.Close()
	}

	// Copy-on-write: adds work but never reach the file.
	cow, err := Open(path, OpenCopyOnWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := cow.AddString("cow-only"); err != nil || !cow.TestString("cow-only") || cow.Info().ReadOnly {
		t.Fatalf("copy-on-write add: %v", err)
	}
	_ = cow.Close()
	g, _ := Open(path, VerifyChecksum)
	if g.TestString("cow-only") || !g.Equal(f) {
		t.Fatal("copy-on-write add reached the file")
	}
	_ = g.Close()

	// Read-write: adds persist, Sync rewrites the checksums (and marks the file stale again),
	// Close seals it.
	rw, err := Open(path, OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.AddString("persisted"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, VerifyChecksum); !errors.Is(err, ErrStale) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("stale checksum not reported as ErrStale before Sync: %v", err)
	}
	if err := rw.Sync(); err != nil {
		t.Fatal(err)
	}
	// The handle may still write, so Sync leaves the file marked stale: a writer killed after it
	// leaves a file that reads as stale, never as corrupt. Its keys are there.
	if _, err := Open(path, VerifyChecksum); !errors.Is(err, ErrStale) {
		t.Fatalf("after Sync, with the writer open: %v, want ErrStale", err)
	}
	g, err = Open(path, 0)
	if err != nil || !g.TestString("persisted") || !g.Info().Stale {
		t.Fatalf("after Sync: %v", err)
	}
	_ = g.Close()
	if err := rw.AddString("persisted-2"); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	g, err = Open(path, VerifyChecksum)
	if err != nil || !g.TestString("persisted-2") {
		t.Fatalf("after Close: %v", err)
	}
	_ = g.Close()

	// Sync on other filters does nothing.
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// The safe way to update a file that is open (Open's doc): Save over it. Save renames a new
// file over the path, so the open filter keeps reading the old one, whole, until it is closed.
// (Truncating it in place instead would make its tests raise SIGBUS or read zeros.)
func TestSaveOverOpenFile(t *testing.T) {
	path := filepath.Join(testDir(t), "f.abloom")
	f := filled(t, 100000) // 121 KiB of bits: many pages past the new file's end
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	old, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	small := mustNew(t, 10, 0.01, WithSeed(9))
	_ = small.AddString("new")
	if err := small.Save(path); err != nil {
		// Windows may refuse to replace a mapped file (capi/abloom.h, abloom_save): EBUSY, with
		// the old file whole and still open; once the filter is closed, the save goes through.
		if runtime.GOOS != "windows" || !errors.Is(err, ErrIO) || !errors.Is(err, syscall.EBUSY) {
			t.Fatal(err)
		}
		again, err := Open(path, VerifyChecksum)
		if err != nil || !again.Equal(f) || !old.Equal(f) {
			t.Fatalf("after a refused Save: %v", err)
		}
		_ = again.Close()
		_ = old.Close()
		if err := small.Save(path); err != nil {
			t.Fatalf("Save once the file is closed: %v", err)
		}
		expectFileHolds(t, path, small)
		return
	}
	res := make([]bool, 100000)
	if n, err := old.TestBatch(keys(0, 100000), res); err != nil || n != 100000 {
		t.Fatalf("the open filter after Save over its file: %d of 100000 keys, %v", n, err)
	}
	if !old.Equal(f) {
		t.Fatal("the open filter changed when its file was replaced")
	}
	expectFileHolds(t, path, small)
}

// expectFileHolds checks that the file at path opens, verified, as the filter want, which holds
// the key "new".
func expectFileHolds(t *testing.T, path string, want *Filter) {
	t.Helper()
	g, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.Equal(want) || !g.TestString("new") {
		t.Fatal("Open after Save does not read the new file")
	}
}

func TestFileErrors(t *testing.T) {
	dir := testDir(t)
	f := filled(t, 100)
	missing := filepath.Join(dir, "nope", "f.abloom")
	err := f.Save(missing)
	var e *Error
	if !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) ||
		e.Path != missing || e.Op != "Save" {
		t.Fatalf("Save into a missing directory: %#v", err)
	}
	if want := "abloom: Save " + missing + ": "; len(err.Error()) <= len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("message %q", err.Error())
	}
	g, err := Open(filepath.Join(dir, "absent.abloom"))
	if g != nil || !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open missing: %v", err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrIO) {
		t.Fatalf("Open a directory: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "x"), OpenCopyOnWrite, OpenReadWrite); !errors.Is(err, ErrInvalid) {
		t.Fatalf("conflicting flags: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "x"), OpenFlag(0x100)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown flag: %v", err)
	}
	path := filepath.Join(dir, "f.abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root ignores permissions
		_ = os.Chmod(path, 0o444)
		if _, err := Open(path, OpenReadWrite); !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("read-write open of a read-only file: %v", err)
		}
	}
	if err := f.Save(dir); !errors.Is(err, ErrIO) {
		t.Fatalf("Save over a directory: %v", err)
	}
	var errno syscall.Errno
	if err := f.Save(dir); !errors.As(err, &errno) || errno == 0 {
		t.Fatalf("Save error carries no errno: %v", err)
	}
}
