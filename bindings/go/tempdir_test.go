package abloom

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// testDir is t.TempDir, removed file by file with os.Remove rather than by os.RemoveAll. Since Go
// 1.26, RemoveAll on Windows deletes with POSIX semantics (FileDispositionInformationEx), which
// wine 8, where CI runs these tests as Windows programs, does not implement: its "Invalid
// function" fails every test's clean-up. os.Remove (DeleteFile, RemoveDirectory) works on every
// system, wine included.
func testDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "abloom-go-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := removeTree(dir); err != nil {
			t.Errorf("removing the test directory: %v", err)
		}
	})
	return dir
}

// removeTree removes dir and everything in it, deepest first.
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.IsDir() {
			err = removeTree(path)
		} else {
			err = os.Remove(path)
		}
		if err != nil {
			return err
		}
	}
	if err := os.Remove(dir); err != nil {
		left, _ := os.ReadDir(dir)
		names := make([]string, 0, len(left))
		for _, e := range left {
			names = append(names, e.Name())
		}
		return fmt.Errorf("%w (left: %v)", err, names)
	}
	return nil
}
