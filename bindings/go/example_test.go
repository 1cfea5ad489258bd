package abloom_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	abloom "github.com/abloom/abloom/bindings/go"
)

func Example() {
	f, err := abloom.New(1_000_000, 0.01) // 1M keys at 1% false positives
	if err != nil {
		panic(err)
	}
	defer f.Close()

	_ = f.AddString("alice:bob")
	fmt.Println(f.TestString("alice:bob")) // may be present
	fmt.Println(f.TestString("carol:dan")) // definitely absent
	// Output:
	// true
	// false
}

func ExampleNew_options() {
	f, err := abloom.New(100_000, 0.001,
		abloom.WithKind(abloom.Classic), abloom.WithShards(4), abloom.WithSeed(42))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	info := f.Info()
	fmt.Println(info.Kind, info.Shards, info.Seed, info.ExpectedFPR <= 0.001)
	// Output: classic 4 42 true
}

func ExampleWithLayout() {
	// The default at 1% is the split layout (one bit per 32-bit word of the block, for faster
	// adds); the distinct layout takes about 2% less memory. A saved file remembers its layout.
	for _, opts := range [][]abloom.Option{nil, {abloom.WithLayout(abloom.LayoutDistinct)}} {
		f, err := abloom.New(10_000_000, 0.01, opts...)
		if err != nil {
			panic(err)
		}
		info := f.Info()
		fmt.Printf("%s %s, k=%d, %.2f bits/key\n", info.Kind, info.Layout, info.K,
			float64(info.Bits)/float64(info.Capacity))
		f.Close()
	}
	// Output:
	// blocked split, k=7, 10.12 bits/key
	// blocked distinct, k=6, 9.90 bits/key
}

func ExampleNew_error() {
	_, err := abloom.New(0, 0.01)
	fmt.Println(errors.Is(err, abloom.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true
	// abloom: New: an argument is outside its valid domain
}

func ExampleComputePlan() {
	p, err := abloom.ComputePlan(10_000_000, 0.01)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %s, k=%d, %.2f bits/key, %d shards\n", p.Kind, p.Layout, p.K, p.BitsPerKey, p.Shards)
	// Output: blocked split, k=7, 10.12 bits/key, 1 shards
}

func ExampleFilter_TestBatch() {
	f, _ := abloom.New(1000, 0.01)
	defer f.Close()
	added, _ := f.AddBatchStrings([]string{"alice", "bob", "alice"})
	fmt.Println("new keys:", added)

	queries := [][]byte{[]byte("alice"), []byte("mallory"), []byte("bob")}
	results := make([]bool, len(queries))
	found, _ := f.TestBatch(queries, results) // one call into C for the whole batch
	fmt.Println(found, results)
	// Output:
	// new keys: 2
	// 2 [true false true]
}

func ExampleFilter_TestAndAdd() {
	f, _ := abloom.New(1000, 0.01)
	defer f.Close()
	for _, url := range []string{"/a", "/b", "/a"} {
		seen, _ := f.TestAndAddString(url)
		fmt.Println(url, seen)
	}
	// Output:
	// /a false
	// /b false
	// /a true
}

func ExampleFilter_Union() {
	a, _ := abloom.New(1000, 0.01, abloom.WithSeed(7))
	b, _ := abloom.New(1000, 0.01, abloom.WithSeed(7))
	c, _ := abloom.New(1000, 0.01, abloom.WithSeed(8))
	defer a.Close()
	defer b.Close()
	defer c.Close()
	_ = a.AddString("x")
	_ = b.AddString("y")
	fmt.Println(a.Union(b), a.TestString("y"))
	fmt.Println(errors.Is(a.Union(c), abloom.ErrIncompatible))
	// Output:
	// <nil> true
	// true
}

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "abloom-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "blocks.abloom")

	f, _ := abloom.New(1_000_000, 0.01)
	_ = f.AddString("did:plc:alice blocks did:plc:mallory")
	if err := f.Save(path); err != nil { // crash-safe: temp file, fsync, rename
		panic(err)
	}
	_ = f.Close()

	g, err := abloom.Open(path) // mmap, O(1): only the header is read and checked
	if err != nil {
		panic(err)
	}
	defer g.Close()
	fmt.Println(g.TestString("did:plc:alice blocks did:plc:mallory"), g.Info().ReadOnly)

	_, err = abloom.Open(filepath.Join(dir, "missing.abloom"))
	fmt.Println(errors.Is(err, abloom.ErrIO), errors.Is(err, fs.ErrNotExist))
	// Output:
	// true true
	// true true
}

func ExampleFilter_MarshalBinary() {
	f, _ := abloom.New(1000, 0.01)
	defer f.Close()
	_ = f.AddString("k")
	data, _ := f.MarshalBinary()

	var g abloom.Filter // a zero Filter is filled by UnmarshalBinary
	if err := g.UnmarshalBinary(data); err != nil {
		panic(err)
	}
	defer g.Close()
	fmt.Println(g.TestString("k"), g.Equal(f))

	data[200] ^= 1 // corrupt the body
	_, err := abloom.Unmarshal(data)
	fmt.Println(errors.Is(err, abloom.ErrCorrupt), errors.Is(err, abloom.ErrChecksum))
	// Output:
	// true true
	// true true
}

func ExampleFilter_WriteTo() {
	f, _ := abloom.New(1000, 0.01)
	defer f.Close()
	_ = f.AddString("k")
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		panic(err)
	}
	var g abloom.Filter
	if _, err := g.ReadFrom(&buf); err != nil { // reads exactly one filter
		panic(err)
	}
	defer g.Close()
	fmt.Println(g.TestString("k"))
	// Output: true
}

func ExampleFilter_Close() {
	f, _ := abloom.New(1000, 0.01)
	_ = f.Close()
	fmt.Println(errors.Is(f.AddString("k"), abloom.ErrClosed))
	fmt.Println(errors.Is(f.Close(), abloom.ErrClosed)) // as os.File: only the first Close counts
	defer func() { fmt.Println("recovered:", recover()) }()
	f.TestString("k") // methods without an error result panic
	// Output:
	// true
	// true
	// recovered: abloom: TestString: filter is closed (or was never initialised)
}

func ExampleFilter_SetWriterMode() {
	f, _ := abloom.New(1_000_000, 0.01)
	defer f.Close()
	// A bulk load by one goroutine: plain stores instead of atomic ones.
	_ = f.SetWriterMode(abloom.ExclusiveWriter)
	_, _ = f.AddBatchStrings([]string{"alice:bob", "carol:dan"})
	// Back to lock-free adds from any number of goroutines, before they start.
	_ = f.SetWriterMode(abloom.SharedWriters)
	fmt.Println(f.TestString("carol:dan"), f.WriterMode())
	// Output: true shared
}

func ExampleFilter_SetThreads() {
	g, _ := abloom.New(1_000_000, 0.01, abloom.WithThreads(4))
	data, _ := g.MarshalBinary()
	_ = g.Close()
	// The count is not saved: a filter read back (or opened) starts at 1 thread.
	f, _ := abloom.Unmarshal(data)
	defer f.Close()
	fmt.Println(f.Threads())
	// Its batches of 65536 keys or more now run on up to 4 threads, with the same answers.
	_ = f.SetThreads(4)
	fmt.Println(f.Threads())
	fmt.Println(f.SetThreads(abloom.MaxThreads + 1))
	// Output:
	// 1
	// 4
	// abloom: SetThreads: an argument is outside its valid domain
}
