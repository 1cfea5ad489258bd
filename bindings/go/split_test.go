package abloom

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
)

// The split layout's assembly probe (split_amd64.s) against its Go probe (native.go), on random
// blocks of every density, for every k the layout allows and every window start (the window
// wraps from word 15 to 0 for 15 starts out of 16 at k = 16): the same answer from Test, and
// from an add the same answer and the same block afterwards, shared and exclusive.
func TestSplitAsmMatchesGo(t *testing.T) {
	if !splitAsmBuilt {
		t.Skip("the assembly is not built here (split_other.go: not amd64, or -tags purego)")
	}
	if !splitAsmFor(SupportedISA()) {
		t.Skip("no AVX2 on this CPU, so the assembly never runs here (the Go probe is tested everywhere)")
	}
	rng := rand.New(rand.NewPCG(21, 9))
	starts := [16]int{}
	cases := 2_000_000
	if raceEnabled {
		cases = 200_000
	}
	for i := range cases {
		k := uint32(1 + i%splitMaxK)
		h := rng.Uint64()
		starts[(uint32(h)|1)*probePowers[17]>>28]++
		// Blocks from empty to full: each bit set with probability density.
		var blk [blockWords]uint64
		density := rng.IntN(9)
		for w := range blk {
			for range density {
				blk[w] |= rng.Uint64()
			}
			if density == 0 {
				blk[w] = 0
			}
		}
		if i%7 == 0 { // the key's own bits, all set: a present key
			var m [blockWords]uint64
			addSplit(&m, h, k, true)
			for w := range blk {
				blk[w] |= m[w]
			}
		}
		if got, want := testSplitAVX2(oneBlock(&blk, k), h), testSplit(&blk, h, k); got != want {
			t.Fatalf("test of h=%#x k=%d: assembly %v, Go %v (block %x)", h, k, got, want, blk)
		}
		for _, exclusive := range []bool{false, true} {
			a, g := blk, blk
			pa, pg := addSplitAVX2(oneBlock(&a, k), h, exclusive), addSplit(&g, h, k, exclusive)
			if pa != pg || a != g {
				t.Fatalf("add of h=%#x k=%d exclusive=%v: assembly %v %x, Go %v %x", h, k, exclusive, pa, a, pg, g)
			}
		}
	}
	for s, n := range starts {
		if n == 0 {
			t.Fatalf("no case started its window at word %d", s)
		}
	}
}

// oneBlock is a filter of one shard of one block, blk, so that the assembly, which finds the
// key's block itself, probes blk. (TestNativeMatchesC checks how it finds the block, in filters
// of many shards and blocks, against C.)
func oneBlock(blk *[blockWords]uint64, k uint32) *native {
	words := []unsafe.Pointer{unsafe.Pointer(blk)}
	return &native{shards: words, writable: words, blocks: 1, shift: 63, k: k}
}

// Where the assembly is not built (linux/arm64, any other non-amd64 GOARCH, -tags purego), the
// split layout's probe is Go's whatever kernel the C engine runs, so the split shapes of
// TestNativeMatchesC and TestNativeExclusiveAdds test testSplit and addSplit against the C engine
// there. Where it is built, ForceISA(ISAScalar) moves the probe to Go as well.
func TestSplitGoProbeRuns(t *testing.T) {
	if !splitAsmBuilt {
		for _, isa := range []ISA{ISAScalar, ISAAVX2, ISAAVX512} {
			if splitAsmFor(isa) {
				t.Fatalf("no assembly in this build, but splitAsmFor(%v) is true", isa)
			}
		}
	}
	if splitAsm.Load() != splitAsmFor(ActiveISA()) {
		t.Fatalf("split probe in assembly: %v, with kernel %v", splitAsm.Load(), ActiveISA())
	}
	if !splitAsmBuilt && splitAsm.Load() {
		t.Fatal("the split probe is set to the assembly, which this build lacks")
	}
	// A split filter answers through the probe splitAsm chose: every added key present, both
	// from Test and from TestAndAdd.
	f := mustNew(t, 10_000, 0.01, WithLayout(LayoutSplit), WithSeed(7))
	if f.Info().Layout != LayoutSplit {
		t.Fatalf("layout %v, want split", f.Info().Layout)
	}
	keys := randomKeys(rand.New(rand.NewPCG(5, 6)), 10_000)
	for _, k := range keys {
		if _, err := f.TestAndAdd(k); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys {
		if !f.Test(k) {
			t.Fatalf("false negative for a %d-byte key (split probe in assembly: %v)", len(k), splitAsm.Load())
		}
		if present, err := f.TestAndAdd(k); err != nil || !present {
			t.Fatalf("TestAndAdd of an added key = %v, %v", present, err)
		}
	}
	t.Logf("split probe: assembly built %v, running %v (kernel %v, GOARCH %s)",
		splitAsmBuilt, splitAsm.Load(), ActiveISA(), runtime.GOARCH)
}
