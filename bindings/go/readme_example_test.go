package abloom_test

// The code blocks of the READMEs (bindings/go/README.md, and the Go block of the repository's
// README.md), line for line, with the declarations they assume and checks of what they do in
// between: scripts/check-readme-blocks.py fails when a README line is missing here.

import abloom "github.com/abloom/abloom/bindings/go"

import (
	"fmt"
	"os"
	"strconv"
)

// inTempDir runs fn with a new temporary directory as the working directory (the README
// saves to a relative path), then goes back and removes it.
func inTempDir(fn func() error) error {
	back, err := os.Getwd()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "abloom-readme-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Chdir(dir); err != nil {
		return err
	}
	defer os.Chdir(back) // back to where the test started
	return fn()
}

// Example_readme is bindings/go/README.md's first block.
func Example_readme() {
	key := "did:plc:bob blocks did:plc:carol"
	keys := []string{"did:plc:alice blocks did:plc:mallory", key}
	results := make([]bool, len(keys))
	var asked bool
	var reopened bool
	err := inTempDir(func() error {
		f, err := abloom.New(1_000_000, 0.01) // 1M keys at 1% false positives
		if err != nil {
			return err
		}
		defer f.Close()

		err = f.AddString("did:plc:alice blocks did:plc:mallory")
		if err != nil {
			return err
		}
		if f.TestString(key) { // false: definitely absent; true: maybe present
			// ask the database
			asked = true
		}

		found, err := f.TestBatchStrings(keys, results) // one cgo call for the whole batch
		if err != nil || found != 1 {
			return fmt.Errorf("TestBatchStrings: %d found, %v", found, err)
		}
		err = f.Save("blocks.abloom") // crash-safe: temp file, fsync, rename
		if err != nil {
			return err
		}
		g, err := abloom.Open("blocks.abloom") // O(1), mmap, read-only
		if err != nil {
			return err
		}
		defer g.Close()
		reopened = g.TestString("did:plc:alice blocks did:plc:mallory") && g.Info().ReadOnly
		return nil
	})
	fmt.Println(err, asked, results, reopened)
	// Output: <nil> false [true false] true
}

// Example_repositoryReadme is the Go block of the repository's README.md ("Bindings").
func Example_repositoryReadme() {
	keys := []string{"alice:bob", "carol:dan"}
	results := make([]bool, len(keys))
	f, _ := abloom.New(1_000_000, 0.01) // Go: github.com/abloom/abloom/bindings/go
	defer f.Close()
	f.AddString("alice:bob")
	found, _ := f.TestBatchStrings(keys, results) // one cgo call per batch
	fmt.Println(found, results)
	// Output: 1 [true false]
}

// Example_readmeGrowing is bindings/go/README.md's "Growing filters" block.
func Example_readmeGrowing() {
	run := func() error {
		f, err := abloom.NewGrowing(0.01) // no capacity: it grows, its FPR stays below 1%
		if err != nil {
			return err
		}
		defer f.Close()
		for i := 0; i < 100_000; i++ {
			f.AddString("user-" + strconv.Itoa(i))
		}
		info := f.Info()
		fmt.Println(info.Stages, info.Capacity, info.ExpectedFPR < 0.01) // 7 130048 true

		plan, err := abloom.GrowthFootprint(10_000_000, 0.01, abloom.WithInitialCapacity(100_000))
		fmt.Println(plan.Stages, plan.Bytes>>20, plan.FPRBound < 0.01, err)
		return nil
	}
	fmt.Println(run())
	// Output:
	// 7 130048 true
	// 7 23 true <nil>
	// <nil>
}
