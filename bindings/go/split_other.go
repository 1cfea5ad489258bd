//go:build !amd64 || purego

package abloom

// Without the amd64 assembly (split_amd64.s) the split layout's probe is Go's (native.go).

// splitAsmBuilt: the assembly is not in this build.
const splitAsmBuilt = false

func splitAsmFor(ISA) bool { return false }

func testSplitAVX2(*native, uint64) bool {
	panic("abloom: testSplitAVX2 without its assembly")
}

func addSplitAVX2(*native, uint64, bool) bool {
	panic("abloom: addSplitAVX2 without its assembly")
}
