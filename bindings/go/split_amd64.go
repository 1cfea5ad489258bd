//go:build amd64 && !purego

package abloom

// The split layout's probe in AVX2 assembly (split_amd64.s): all 16 32-bit words of the block
// at once, with no loop and no branch on the key. The Go probe (testSplit, addSplit in
// native.go) is a loop over the block's 64-bit words, and at 1M keys its length, not the
// memory, decided the time: a present key's instructions in testSplit were so many that the
// out-of-order core held barely one key's cache miss at a time (bench/JOURNAL.md, "Go: the
// split probe in AVX2 assembly, and a Close guard with no instruction").
//
// The assembly also finds the key's block (n.block's arithmetic, on n.shards to test and on
// n.writable to add), so a call passes only the filter and the hash. Computed in Go, the block
// address was a bounds check and a stack argument more, and at 100M keys a test cost 25-30%
// more (bench/JOURNAL.md, "The block address in the assembly").

// splitAsmBuilt: the assembly is in this build (it runs where splitAsmFor says).
const splitAsmBuilt = true

//go:noescape
func testSplitAVX2(n *native, h uint64) bool

//go:noescape
func addSplitAVX2(n *native, h uint64, exclusive bool) (present bool)

// splitAsmFor reports whether the assembly runs when the C engine's kernel is isa: AVX2 or
// AVX-512 (which every AVX-512 CPU pairs with AVX2), so that ABLOOM_ISA and ForceISA choose the
// Go kernel too, and the CPU and OS checks are the engine's.
func splitAsmFor(isa ISA) bool { return isa == ISAAVX2 || isa == ISAAVX512 }
