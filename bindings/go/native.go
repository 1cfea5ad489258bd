package abloom

// Single-key Test and Add in Go, with no cgo call: a cgo call alone costs about 35 ns, more than
// a whole test of a cached block. The C engine still owns the memory, the format, the batch
// calls, the set operations and the files; this file reads and writes the filter's words in
// place, where abloom_get_memory says they are, by the rules abloom.h gives for that:
//
//   - hash: XXH3-64 with the filter's seed (github.com/zeebo/xxh3, which native_test.go checks
//     against the C library's abloom_hash for every key length from 0 to 1024);
//   - where a key's bits go: docs/FORMAT.md ("Body"), the same constants as core/layout.hpp;
//   - reads: one atomic 64-bit load per word (a plain MOV on amd64 and arm64);
//   - writes: an atomic OR per 64-bit word (LOCK OR), the C engine's own shared writes, so Go and
//     C writers can add to one filter at once; in ExclusiveWriter mode a plain load, OR and store,
//     as the engine then does.
//
// The memory is freed by Close, so every use is between acquire and release (filter.go): Close
// waits for the calls in flight, and later calls see the filter closed before they read a word.

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// The constants of the layout (docs/FORMAT.md, core/layout.hpp).
const (
	probeMul32 = 0x9E3779B9         // C: candidate j of a blocked key is (h2 * C^j) >> 23
	golden64   = 0x9E3779B97F4A7C15 // G: the classic kind's double-hashing step
	blockWords = 8                  // 64-bit words per 64-byte block
	splitMaxK  = 16
)

// maxCandidates is how many candidates a distinct-layout key may look at to find k distinct
// bits (4k + 64, as the format says).
func maxCandidates(k uint32) uint32 { return 4*k + 64 }

// probePowers[j] = C^j mod 2^32, for every candidate any k <= 64 may need.
var probePowers = func() (p [4*64 + 64 + 1]uint32) {
	x := uint32(1)
	for i := range p {
		p[i] = x
		x *= probeMul32
	}
	return p
}()

// probe is where a filter's keys put their bits.
type probe uint8

const (
	probeDistinct probe = iota // blocked kind, layout id 1
	probeSplit                 // blocked kind, layout id 2
	probeClassic               // classic kind
)

// native is what Go needs to probe a filter's memory: read once, when the handle is made.
type native struct {
	shards    []unsafe.Pointer // each shard's first word, in C memory
	writable  []unsafe.Pointer // the same, from abloom_get_writable_shards; nil when read-only
	blocks    uint64           // 64-byte blocks per shard
	bits      uint64           // bits per shard (blocks * 512), for the classic kind
	seed      uint64
	shardBits uint32
	shift     uint32 // 63 - shardBits: the shard is (h >> 1) >> shift
	k         uint32
	probe     probe
	exclusive atomic.Bool // ExclusiveWriter mode: plain stores
}

// readNative fills n from the C handle h.
func readNative(h uintptr, n *native) int {
	var m capi.Memory
	if rc := capi.GetMemory(h, &m); rc != 0 {
		return rc
	}
	*n = native{
		shards:    m.Shards,
		blocks:    m.BlocksPerShard,
		bits:      m.BlocksPerShard * 512,
		seed:      m.Seed,
		shardBits: m.ShardBits,
		shift:     63 - m.ShardBits,
		k:         m.K,
	}
	switch {
	case m.Kind == uint32(Classic):
		n.probe = probeClassic
	case m.Layout == uint32(LayoutSplit):
		n.probe = probeSplit
	default:
		n.probe = probeDistinct
	}
	if m.ReadOnly == 0 {
		w, rc := capi.GetWritableShards(h, len(m.Shards))
		if rc != 0 {
			return rc
		}
		n.writable = w
	}
	return 0
}

// block returns the 64-byte block of hash h in the shard at base.
func (n *native) block(base unsafe.Pointer, h uint64) *[blockWords]uint64 {
	hi, _ := bits.Mul64(h<<n.shardBits, n.blocks)
	return (*[blockWords]uint64)(unsafe.Add(base, hi*64))
}

// test reports whether all of hash h's bits are set.
func (n *native) test(h uint64) bool {
	base := n.shards[(h>>1)>>n.shift]
	switch n.probe {
	case probeDistinct:
		return testDistinct(n.block(base, h), h, n.k)
	case probeSplit:
		return testSplit(n.block(base, h), h, n.k)
	}
	return n.testClassic(base, h)
}

// add sets hash h's bits and reports whether they were all set before. ok is false when the
// filter is read-only (nothing is written then).
func (n *native) add(h uint64) (present, ok bool) {
	if n.writable == nil {
		return false, false
	}
	base := n.writable[(h>>1)>>n.shift]
	exclusive := n.exclusive.Load()
	switch n.probe {
	case probeDistinct:
		m := distinctMask(h, n.k)
		return orMask(n.block(base, h), &m, exclusive), true
	case probeSplit:
		m := splitMask(h, n.k)
		return orMask(n.block(base, h), &m, exclusive), true
	}
	return n.addClassic(base, h, exclusive), true
}

// testDistinct: the first k candidates all belong to the key's bits (its bits are the first k
// distinct candidates), so one clear bit among them proves absence. Only when two of them might
// be equal (same position mod 64, spotted in `folded`) are the distinct candidates walked.
func testDistinct(blk *[blockWords]uint64, h uint64, k uint32) bool {
	h2 := uint32(h) | 1
	var missing, folded, maybeRepeat uint64
	for _, p := range probePowers[1 : k+1] {
		c := (h2 * p) >> 23
		b := uint64(1) << (c & 63)
		missing |= b &^ atomic.LoadUint64(&blk[(c>>6)&7])
		maybeRepeat |= folded & b
		folded |= b
	}
	if missing != 0 {
		return false
	}
	if maybeRepeat == 0 {
		return true
	}
	m := distinctMask(h, k)
	for w := range blk {
		if m[w]&^atomic.LoadUint64(&blk[w]) != 0 {
			return false
		}
	}
	return true
}

// distinctMask is the key's k distinct bits, as masks of the block's words: the first k
// candidates, then more (rarely: about k^2/1024 of keys) until k are distinct.
func distinctMask(h uint64, k uint32) (m [blockWords]uint64) {
	h2 := uint32(h) | 1
	var set uint32
	for j := uint32(1); j <= maxCandidates(k) && (j <= k || set < k); j++ {
		c := (h2 * probePowers[j]) >> 23
		b := uint64(1) << (c & 63)
		w := &m[(c>>6)&7]
		if *w&b == 0 {
			set++
			*w |= b
		}
	}
	return m
}

// splitMask: one bit in each of k consecutive 32-bit words of the block, from a hashed start.
func splitMask(h uint64, k uint32) (m [blockWords]uint64) {
	h2 := uint32(h) | 1
	s := (h2 * probePowers[17]) >> 28
	for j := range k & 31 {
		w := (s + j) & 15
		bit := (h2 * probePowers[w+1]) >> 27
		m[(w>>1)&7] |= uint64(1) << (32*(w&1) + bit)
	}
	return m
}

func testSplit(blk *[blockWords]uint64, h uint64, k uint32) bool {
	h2 := uint32(h) | 1
	s := (h2 * probePowers[17]) >> 28
	var missing uint64
	for j := range k & 31 {
		w := (s + j) & 15
		bit := (h2 * probePowers[w+1]) >> 27
		missing |= (uint64(1) << (32*(w&1) + bit)) &^ atomic.LoadUint64(&blk[(w>>1)&7])
	}
	return missing == 0
}

// orMask ORs m into the block and reports whether every bit was set before. Words already
// holding their bits are not written, so a shared cache line stays clean.
func orMask(blk *[blockWords]uint64, m *[blockWords]uint64, exclusive bool) bool {
	present := true
	for w, mask := range m {
		if mask != 0 && !setBits(&blk[w], mask, exclusive) {
			present = false
		}
	}
	return present
}

// setBits sets mask in *p and reports whether all of it was set before.
func setBits(p *uint64, mask uint64, exclusive bool) bool {
	old := atomic.LoadUint64(p)
	if old&mask == mask {
		return true
	}
	if exclusive {
		// One writer: a plain store, which lets the next keys' loads overlap (a locked OR
		// orders them). A whole-word store, so concurrent readers see the word before or after.
		*p = old | mask
		return false
	}
	return atomic.OrUint64(p, mask)&mask == mask
}

// The classic kind: k bits over the whole shard, by enhanced double hashing in 64-bit fixed
// point.
func (n *native) testClassic(base unsafe.Pointer, h uint64) bool {
	x, y := h<<n.shardBits, h*golden64
	words := unsafe.Slice((*uint64)(base), n.blocks*blockWords)
	for i := range uint64(n.k) {
		pos, _ := bits.Mul64(x, n.bits)
		if atomic.LoadUint64(&words[pos>>6])&(uint64(1)<<(pos&63)) == 0 {
			return false
		}
		x += y
		y += (i + 1) * golden64
	}
	return true
}

func (n *native) addClassic(base unsafe.Pointer, h uint64, exclusive bool) bool {
	x, y := h<<n.shardBits, h*golden64
	words := unsafe.Slice((*uint64)(base), n.blocks*blockWords)
	present := true
	for i := range uint64(n.k) {
		pos, _ := bits.Mul64(x, n.bits)
		if !setBits(&words[pos>>6], uint64(1)<<(pos&63), exclusive) {
			present = false
		}
		x += y
		y += (i + 1) * golden64
	}
	return present
}
