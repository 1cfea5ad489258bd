package abloom

// Single-key Test and Add in Go, with no cgo call: a cgo call alone costs more than a whole test
// of a cached block. The C engine still owns the memory, the format, the batch
// calls, the set operations and the files; this file reads and writes the filter's words in
// place, where abloom_get_memory says they are, by the rules abloom.h gives for that:
//
//   - hash: XXH3-64 with the filter's seed (github.com/zeebo/xxh3, which native_test.go checks
//     against the C library's abloom_hash for every key length from 0 to 1024);
//   - where a key's bits go: capi/abloom_layout.h, the specification this port follows (its
//     steps and constants; docs/FORMAT.md, "Body", says the same in words);
//   - reads: one atomic 64-bit load per word (a plain MOV on amd64 and arm64);
//   - writes: an atomic OR per 64-bit word (LOCK OR), the C engine's own shared writes, so Go and
//     C writers can add to one filter at once; in ExclusiveWriter mode a plain load, OR and store,
//     as the engine then does.
//
// The memory is the C filter's, freed once no call holds its handle (filter.go): every use is
// between a load of the handle and a runtime.KeepAlive of it, and calls after Close find none.

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// The constants of the layout (capi/abloom_layout.h, the specification; docs/FORMAT.md).
const (
	probeMul32 = 0x9E3779B9         // C: candidate j of a blocked key is (h2 * C^j) >> 23
	golden64   = 0x9E3779B97F4A7C15 // G: classic's double-hashing step; half's r = h * G
	blockWords = 8                  // 64-bit words per 64-byte block
	halfK      = 8                  // the half layout's only k: a bit in each 32-bit word of a half
	splitMaxK  = 16
)

// maxCandidates is how many candidates a distinct-layout key may look at to find k distinct
// bits (4k + 64, as the format says).
func maxCandidates(k uint32) uint32 { return 4*k + 64 }

// probePowers[j] = C^j mod 2^32: the split layout takes C^(w+1) for word w and C^17. 32
// entries, so that an index masked with & 31 needs no bounds check.
var probePowers = func() (p [32]uint32) {
	x := uint32(1)
	for i := range p {
		p[i] = x
		x *= probeMul32
	}
	return p
}()

// splitAsm is set when the split layout's probe runs in assembly (split_amd64.go): when the C
// engine's kernel is AVX2 or AVX-512. ForceISA and ABLOOM_ISA move both together, so the Go
// probe still runs, and is tested, on every CPU.
var splitAsm atomic.Bool

func init() { splitAsm.Store(splitAsmFor(ActiveISA())) }

// probe is where a filter's keys put their bits.
type probe uint8

const (
	probeDistinct probe = iota // blocked kind, layout id 1
	probeSplit                 // blocked kind, layout id 2
	probeHalf                  // blocked kind, layout id 3
	probeClassic               // classic kind
	probeGrowing               // a growing filter: its stages' probes, newest first (stages.go)
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
	h         uintptr     // the C filter: only a growing filter's calls use it (probeGrowing)
	chain     *chain      // a growing filter's stages (probeGrowing); nil otherwise
}

// readNative fills n from the C handle h.
func readNative(h uintptr, n *native) int {
	var m capi.Memory
	if rc := capi.GetMemory(h, &m); rc != 0 {
		return rc
	}
	if rc := fillNative(&m, n); rc != 0 {
		return rc
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

// fillNative fills n's shape and read-only shards from m (a fixed filter's memory, or a stage's).
func fillNative(m *capi.Memory, n *native) int {
	if len(m.Shards) > capi.ABLOOM_MAX_SHARDS || len(m.Shards) != 1<<m.ShardBits {
		// The header promises 1 << shard_bits shards, at most ABLOOM_MAX_SHARDS; the assembly
		// indexes them without a bounds check.
		return codeInternal
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
	// Every kind and layout is named: one this file does not know (a newer libabloom under
	// -tags abloom_system) must not be probed as another, which would answer wrongly. It fails
	// instead, with ErrInternal: the handle is refused, or a growing filter's stage appended
	// later is tested through C from then on (stages.go).
	switch {
	case m.Kind == uint32(Classic) && m.Layout == uint32(LayoutDistinct):
		n.probe = probeClassic
	case m.Kind != uint32(Blocked):
		return codeInternal
	case m.Layout == uint32(LayoutSplit):
		n.probe = probeSplit
	case m.Layout == uint32(LayoutDistinct):
		n.probe = probeDistinct
	case m.Layout == uint32(LayoutHalf) && m.K == halfK:
		// The probe sets halfK bits whatever k says, so a k the format forbids is refused.
		n.probe = probeHalf
	default:
		return codeInternal
	}
	return 0
}

// block returns the 64-byte block of hash h: its shard is the top shardBits bits of h, its
// block in the shard mulhi64(h << shardBits, blocks). Shift counts are masked with & 63 (they
// are below 64 anyway) so that Go emits a bare shift, without its "count >= 64 gives 0" fixup.
// The split layout's assembly (SPLIT_BLOCK in split_amd64.s) computes the same.
func (n *native) block(shards []unsafe.Pointer, h uint64) *[blockWords]uint64 {
	base := shards[(h>>1)>>(n.shift&63)]
	hi, _ := bits.Mul64(h<<(n.shardBits&63), n.blocks)
	return (*[blockWords]uint64)(unsafe.Add(base, hi*64))
}

// test reports whether all of hash h's bits are set. (Filter.Test and TestString call the
// split layout's assembly themselves where it runs: one call frame less.)
func (n *native) test(h uint64) bool {
	switch n.probe {
	case probeDistinct:
		return testDistinct(n.block(n.shards, h), h, n.k)
	case probeSplit:
		if splitAsm.Load() {
			return testSplitAVX2(n, h)
		}
		return testSplit(n.block(n.shards, h), h, n.k)
	case probeHalf:
		return testHalf(n.block(n.shards, h), h)
	case probeGrowing:
		return n.chain.test(n, h)
	}
	return n.testClassic(n.shards[(h>>1)>>(n.shift&63)], h)
}

// add sets hash h's bits and reports whether they were all set before. ok is false when the
// filter is read-only (nothing is written then).
func (n *native) add(h uint64) (present, ok bool) {
	if n.writable == nil {
		return false, false
	}
	exclusive := n.exclusive.Load()
	switch n.probe {
	case probeDistinct:
		var m [blockWords]uint64
		touched := distinctMask(h, n.k, &m)
		return orMask(n.block(n.writable, h), &m, touched, exclusive), true
	case probeSplit:
		if splitAsm.Load() {
			return addSplitAVX2(n, h, exclusive), true
		}
		return addSplit(n.block(n.writable, h), h, n.k, exclusive), true
	case probeHalf:
		return addHalf(n.block(n.writable, h), h, exclusive), true
	}
	return n.addClassic(n.writable[(h>>1)>>(n.shift&63)], h, exclusive), true
}

// testDistinct: the first k candidates all belong to the key's bits (its bits are the first k
// distinct candidates), so a clear bit among them proves absence, and the test stops there: most
// tested keys are absent, and half of them stop at the first bit. (Unlike the C kernels, which
// test all k bits with no branch on the block, the early exit measured faster here on absent
// keys, and hardly slower on present ones: bench/JOURNAL.md, "Go: single keys without cgo". In
// Go the extra instructions of the full pass cost more than the mispredicted exits.) When they are
// all set, the key is present unless two of them are the same bit; the pass notes in maybeRepeat
// whether two share a bit position mod 64 (a register-only check that also flags about a quarter
// of the keys with no repeat at k = 7), and only then does presentDistinct look exactly.
// Candidate j is bit (h2 * C^j) >> 23 of the block: x runs through h2 * C^j, one multiply per
// candidate; its top 3 bits are the word, the next 6 the bit.
func testDistinct(blk *[blockWords]uint64, h uint64, k uint32) bool {
	h2 := uint32(h) | 1
	x := h2
	var folded, maybeRepeat uint64
	for range k {
		x *= probeMul32
		b := bitMask[(x>>23)&63]
		if b&^atomic.LoadUint64(&blk[x>>29]) != 0 {
			return false
		}
		maybeRepeat |= folded & b
		folded |= b
	}
	if maybeRepeat == 0 {
		return true
	}
	return presentDistinct(blk, h2, k)
}

// bitMask[i] = 1 << i. A table load instead of a variable shift: on amd64 (GOAMD64=v1, no SHLX)
// a shift needs its count in CL, and the register shuffling around it cost the probe loop two
// more instructions per bit.
var bitMask = func() (t [64]uint64) {
	for i := range t {
		t[i] = 1 << i
	}
	return t
}()

// presentDistinct decides a key whose first k candidates are all set: present if they are k
// distinct bits; otherwise (a repeat among them: about k^2/1024 of keys) its next distinct
// candidates, up to k distinct in all, must be set too. It repeats distinctMask's walk rather than
// calling it and checking the mask: that shorter form cost present keys about 21 more
// instructions and 0.2 more mispredicted branches each (cachegrind, 200K-key harness).
func presentDistinct(blk *[blockWords]uint64, h2, k uint32) bool {
	var m [blockWords]uint64
	var repeats uint64
	x := h2
	for range k {
		x *= probeMul32
		b := uint64(1) << ((x >> 23) & 63)
		repeats |= m[x>>29] & b
		m[x>>29] |= b
	}
	if repeats == 0 {
		return true
	}
	set := uint32(0)
	for _, w := range m {
		set += uint32(bits.OnesCount64(w))
	}
	for j := k + 1; set < k && j <= maxCandidates(k); j++ {
		x *= probeMul32
		b := uint64(1) << ((x >> 23) & 63)
		w := x >> 29
		if m[w]&b != 0 {
			continue
		}
		m[w] |= b
		set++
		if atomic.LoadUint64(&blk[w])&b == 0 {
			return false
		}
	}
	return true
}

// distinctMask is the key's k distinct bits, as masks of the block's words, and the set of
// words they fall in (bit w for word w). The first k candidates are taken in a loop with no
// data-dependent branch; only when two of them were the same bit (about k^2/1024 of keys) are
// further candidates taken until k are distinct.
func distinctMask(h uint64, k uint32, m *[blockWords]uint64) (touched uint32) {
	x := uint32(h) | 1
	var repeats uint64
	for range k {
		x *= probeMul32
		b := bitMask[(x>>23)&63]
		w := x >> 29
		repeats |= m[w] & b
		m[w] |= b
		touched |= wordBit[w]
	}
	if repeats == 0 {
		return touched
	}
	set := uint32(0)
	for _, v := range m {
		set += uint32(bits.OnesCount64(v))
	}
	for j := k + 1; set < k && j <= maxCandidates(k); j++ {
		x *= probeMul32
		b := bitMask[(x>>23)&63]
		w := x >> 29
		if m[w]&b == 0 {
			set++
			m[w] |= b
			touched |= wordBit[w]
		}
	}
	return touched
}

// wordBit[w] = 1 << w, a table for the same reason as bitMask.
var wordBit = [blockWords]uint32{1, 2, 4, 8, 16, 32, 64, 128}

// The split layout, a 64-bit word of the block at a time: both 32-bit halves' bits with one
// load (or one locked OR), so at most (k + 2) / 2 words (4 at k = 7, against 7 one bit at a
// time). The window of k 32-bit words starts at word s and may wrap from word 15 to word 0; the
// key's bit in 32-bit word w is (h2 * C^(w+1)) >> 27. So x runs through h2 * C^(w+1), one
// multiply per 32-bit word from the low half of s's 64-bit word, and starts again at h2 * C where
// the window wraps: always between two 64-bit words, since 16 is even. Only the first and last
// 64-bit words can hold a half outside the window (the first one's low half when s is odd, the
// last one's high half when the window ends mid-word): those masks are made once, not per word.
// (Against a table load of C^(w+1) and an arithmetic half mask per word, this made tests faster:
// bench/JOURNAL.md, "Go: the split probe word by word". Plain values, not a walker struct with
// methods: that kept its fields in memory, and was slower still.)
//
// splitStart returns x for the first word, h2 * C (x after a wrap), the first 64-bit word, how
// many words the window covers, and the masks of the halves in the window in the first word
// (`in`) and in the last one (`last`).
func splitStart(h uint64, k uint32) (x, restart, word, words uint32, in, last uint64) {
	h2 := uint32(h) | 1
	s := (h2 * probePowers[17]) >> 28
	end := s + k&31 // one past the last 32-bit word, unwrapped
	return h2 * probePowers[(s|1)&31], h2 * probeMul32, s >> 1, (end + 1 - s&^1) >> 1,
		^uint64(0) << ((s & 1) << 5), ^uint64(0) >> ((end & 1) << 5)
}

// splitPair is the key's bits in one 64-bit word (x for its low half), and x for the next word.
func splitPair(x uint32) (uint64, uint32) {
	lo := bitMask[x>>27]
	x *= probeMul32
	return lo | bitMask[32+x>>27], x * probeMul32
}

// testSplit reports whether all of the key's bits are set, stopping at the first word that
// misses one, as testDistinct does.
func testSplit(blk *[blockWords]uint64, h uint64, k uint32) bool {
	x, restart, word, words, in, last := splitStart(h, k)
	var m uint64
	for ; words > 1; words-- { // every word but the last
		m, x = splitPair(x)
		if m&in&^atomic.LoadUint64(&blk[word&7]) != 0 {
			return false
		}
		in = ^uint64(0)
		if word++; word == blockWords {
			word, x = 0, restart
		}
	}
	m, _ = splitPair(x)
	return m&in&last&^atomic.LoadUint64(&blk[word&7]) == 0
}

// addSplit sets the key's bits, one setBits per word, and reports whether they were all set.
func addSplit(blk *[blockWords]uint64, h uint64, k uint32, exclusive bool) bool {
	x, restart, word, words, in, last := splitStart(h, k)
	present := true
	var m uint64
	for ; words > 1; words-- {
		m, x = splitPair(x)
		if !setBits(&blk[word&7], m&in, exclusive) {
			present = false
		}
		in = ^uint64(0)
		if word++; word == blockWords {
			word, x = 0, restart
		}
	}
	m, _ = splitPair(x)
	return setBits(&blk[word&7], m&in&last, exclusive) && present
}

// The half layout (abloom_spec_half_r, abloom_spec_half_index and abloom_spec_half_bit in
// capi/abloom_layout.h), a 64-bit word of the block at a time. r = h * G; bit 32 of r picks the
// half, 64-bit words 4 * half .. 4 * half + 3 of the block. The key's bit in 32-bit word w of the
// half is the top 5 bits of the low (w even) or high (w odd) 32-bit half of x = r << 5 (w / 2),
// so 64-bit word j of the half takes two bits, both from x = r << 5j: (x >> 27) & 31 in its low
// half and x >> 59 in its high half. Every word of the half gets a bit, so the key touches all
// four words and none outside them: no window, no repeat check, and the four words are written
// out rather than looped over (the loop's counter and branch cost more than the words' work).
//
// halfPair is the key's two bits in one 64-bit word, from x for that word.
func halfPair(x uint64) uint64 {
	return bitMask[(x>>27)&31] | bitMask[32+x>>59]
}

// halfWord is the block's first 64-bit word of the key's half: 4 * half, with half bit 32 of r.
func halfWord(r uint64) uint32 { return uint32(r>>30) & 4 }

// testHalf reports whether all 8 of the key's bits are set. Unlike testDistinct and testSplit it
// reads all four words and decides once, with no early exit: the words are one 32-byte run of
// one cache line, so stopping early saves a few instructions but not a miss, while the exit
// branch, taken at a word the hash decides, is mispredicted on many absent keys; the branch-free
// form measured faster on absent keys in cache and out of it, and about the same on present ones.
func testHalf(blk *[blockWords]uint64, h uint64) bool {
	x := h * golden64
	w := halfWord(x)
	miss := halfPair(x) &^ atomic.LoadUint64(&blk[w&7])
	miss |= halfPair(x<<5) &^ atomic.LoadUint64(&blk[(w+1)&7])
	miss |= halfPair(x<<10) &^ atomic.LoadUint64(&blk[(w+2)&7])
	miss |= halfPair(x<<15) &^ atomic.LoadUint64(&blk[(w+3)&7])
	return miss == 0
}

// addHalf sets the key's 8 bits, one setBits per word of its half, and reports whether they
// were all set. Each setBits runs whatever the others returned: every word gets its bits.
func addHalf(blk *[blockWords]uint64, h uint64, exclusive bool) bool {
	x := h * golden64
	w := halfWord(x)
	p0 := setBits(&blk[w&7], halfPair(x), exclusive)
	p1 := setBits(&blk[(w+1)&7], halfPair(x<<5), exclusive)
	p2 := setBits(&blk[(w+2)&7], halfPair(x<<10), exclusive)
	p3 := setBits(&blk[(w+3)&7], halfPair(x<<15), exclusive)
	return p0 && p1 && p2 && p3
}

// orMask ORs m into the block's touched words and reports whether every bit was set before.
// The loop runs over the touched words only (a count the hash decides, known early), so no
// branch depends on which of the 8 words the key happens to use; words already holding their
// bits are not written, so a shared cache line stays clean.
func orMask(blk *[blockWords]uint64, m *[blockWords]uint64, touched uint32, exclusive bool) bool {
	present := true
	for ; touched != 0; touched &= touched - 1 {
		w := bits.TrailingZeros32(touched) & 7
		if !setBits(&blk[w], m[w], exclusive) {
			present = false
		}
	}
	return present
}

// setBits sets mask in *p and reports whether all of it was set before, from one load: a key
// is reported new when its add saw one of its bits clear. Of concurrent adds of one new key, at
// least one is told so, because bits only go from 0 to 1 and some add loaded the word before any
// of them wrote it (the C engine reasons the same way). So the OR's own result is not needed,
// and LOCK OR is enough where a fetch-or would be a LOCK CMPXCHG loop in Go.
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
	atomic.OrUint64(p, mask)
	return false
}

// The classic kind: k bits over the whole shard, by enhanced double hashing in 64-bit fixed
// point (abloom_spec_classic_start and abloom_spec_classic_next in core/abloom_layout.h).
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
