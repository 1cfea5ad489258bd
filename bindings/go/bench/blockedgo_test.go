package bench

import (
	"math/bits"
	"sync/atomic"

	"github.com/zeebo/xxh3"
)

// blockedGo is a minimal pure-Go cache-line-blocked Bloom filter: one XXH3 hash per key, all k
// bits in one 64-byte block, the block picked by multiply-high. It is a stand-in for
// github.com/jcalabro/gloom (the same design, unavailable from the module proxy here): it
// shows what a native Go filter of that kind costs per call, with no cgo. Its layout is
// abloom's shape (same bits and k) so that memory traffic matches; its bits are not abloom's.
type blockedGo struct {
	blocks [][8]uint64
	k      uint32
}

func newBlockedGo(bits uint64, k uint32) *blockedGo {
	return &blockedGo{blocks: make([][8]uint64, bits/512), k: k}
}

func (f *blockedGo) locate(key []byte) (*[8]uint64, uint32) {
	h := xxh3.Hash(key)
	hi, _ := bits.Mul64(h, uint64(len(f.blocks)))
	return &f.blocks[hi], uint32(h) | 1
}

const golden32 = 0x9E3779B9

func (f *blockedGo) Add(key []byte) {
	b, h := f.locate(key)
	for j := uint32(0); j < f.k; j++ {
		h *= golden32
		bit := h >> 23
		b[bit>>6] |= 1 << (bit & 63)
	}
}

// AddAtomic is Add for concurrent use (atomic OR per word), like gloom's AtomicFilter.
func (f *blockedGo) AddAtomic(key []byte) {
	b, h := f.locate(key)
	for j := uint32(0); j < f.k; j++ {
		h *= golden32
		bit := h >> 23
		atomic.OrUint64(&b[bit>>6], 1<<(bit&63))
	}
}

func (f *blockedGo) Test(key []byte) bool {
	b, h := f.locate(key)
	for j := uint32(0); j < f.k; j++ {
		h *= golden32
		bit := h >> 23
		if b[bit>>6]&(1<<(bit&63)) == 0 {
			return false
		}
	}
	return true
}

func (f *blockedGo) Clear() { clear(f.blocks) }
