package abloom

import (
	"errors"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/abloom/abloom/bindings/go/internal/capi"
	"github.com/zeebo/xxh3"
)

// Kind is how a filter spreads a key's bits: in one cache line or over the whole shard.
type Kind uint32

const (
	// Blocked (the default) puts all k bits of a key in one 64-byte block: one cache miss per
	// lookup, at the price of slightly more bits than Classic for the same FPR (+3% at 1%).
	Blocked Kind = 0
	// Classic spreads the k bits over the whole shard: the fewest bits for a target FPR, but
	// up to k cache misses per lookup. For very low FPR targets when memory matters most.
	Classic Kind = 1
)

// String returns "blocked", "classic" or "Kind(N)".
func (k Kind) String() string {
	switch k {
	case Blocked:
		return "blocked"
	case Classic:
		return "classic"
	}
	return "Kind(" + uitoa(uint64(k)) + ")"
}

// Layout is where a Blocked filter puts a key's k bits inside its 64-byte block. Every layout
// meets the FPR asked for exactly (each has its own sizing model); a file records its layout, so
// reading one needs no option.
type Layout uint32

const (
	// LayoutDistinct sets k distinct bits anywhere in the 512-bit block: the fewest bits for a
	// target FPR, any k. Classic filters always report it; Blocked filters get it by default
	// only where LayoutSplit's k is not enough (see WithLayout).
	LayoutDistinct Layout = 1
	// LayoutSplit sets one bit in each of k <= 16 consecutive 32-bit words of the block: one
	// vector shift per key and no repeat check, so adds run faster (1.5-1.9x in cache, 1.2-1.35x
	// out of it for bulk and exclusive adds) and tests about the same, for a few percent more
	// bits at the same FPR (+2.3% at 1%, +1.6% at 0.1%). Blocked kind only; with WithK, k must
	// be at most 16. The Blocked default down to targets of about 1e-6 (see WithLayout).
	LayoutSplit Layout = 2
	// LayoutHalf sets one bit in each of the 8 32-bit words of one 32-byte half of the block, so
	// k is always 8: the fewest instructions per key of any layout, for the fastest adds and
	// tests in cache (the C engine's, in the batch calls; single keys run a Go probe), at about
	// 4% more bits than LayoutSplit at a 1% target and 7% at 0.1%. Blocked kind only, and never
	// the default: ask for it with WithLayout (with WithK, k must be 8).
	LayoutHalf Layout = 3
)

// String returns "distinct", "split", "half" or "Layout(N)".
func (l Layout) String() string {
	switch l {
	case LayoutDistinct:
		return "distinct"
	case LayoutSplit:
		return "split"
	case LayoutHalf:
		return "half"
	}
	return "Layout(" + uitoa(uint64(l)) + ")"
}

// Storage tells where a filter's bits live.
type Storage uint32

const (
	// Owned: memory the library allocated (New, Clone, UnmarshalBinary, ReadFrom).
	Owned Storage = 0
	// View: a caller's buffer (not produced by this package).
	View Storage = 1
	// Mapped: a memory-mapped file (Open).
	Mapped Storage = 2
)

// String returns "owned", "view", "mapped" or "Storage(N)".
func (s Storage) String() string {
	switch s {
	case Owned:
		return "owned"
	case View:
		return "view"
	case Mapped:
		return "mapped"
	}
	return "Storage(" + uitoa(uint64(s)) + ")"
}

func uitoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// Info describes a filter: its shape, its sizing and where it lives.
//
// For a growing filter (NewGrowing) Info describes the whole chain as it is now: Kind, Layout,
// K, Shards and BlocksPerShard are its newest stage's; Bits and Bytes its stages' together;
// Capacity the keys its stages hold before the next one is appended; TargetFPR the chain's
// target and ExpectedFPR the sum of its stages' model FPRs at their capacities (its bound, below
// TargetFPR). Filter.StageInfo describes one stage in the same struct, with that stage's
// Capacity, TargetFPR, ExpectedFPR, Bits, Bytes and Keys.
type Info struct {
	Kind           Kind    // where a key's bits go: one block or the whole shard
	Layout         Layout  // where they go inside the block (LayoutDistinct for Classic)
	K              uint32  // bits set per key
	Shards         uint32  // separately allocated parts, a power of two
	BlocksPerShard uint64  // 64-byte blocks in each shard
	Bits           uint64  // total bits
	Bytes          uint64  // total bytes of bit storage (Bits / 8)
	Capacity       uint64  // keys the filter was sized for
	Seed           uint64  // hash seed
	TargetFPR      float64 // FPR asked for at creation (0 when the layout was explicit)
	ExpectedFPR    float64 // the model's FPR at Capacity keys for this layout
	Storage        Storage // where the bits live
	ReadOnly       bool    // writes fail with ErrReadOnly (a file opened read-only)
	// Stale: the file or bytes carried the stale mark when opened (see ErrStale; for
	// OpenReadWrite: before this open marked them). Always false for filters of their own memory.
	Stale bool
	// Stages: 1 for a fixed filter; a growing filter's stage count now.
	Stages uint32
	// Growth: a growing filter's growth (WithGrowth); 0 for a fixed filter.
	Growth float64
	// GrowthFailed: a growing filter could not append a stage when it had to (MaxStages, the
	// size limit, or no memory); its newest stage then takes every key past its capacity, and
	// the FPR is no longer held below TargetFPR. Always false for a fixed filter.
	GrowthFailed bool
	// Keys: the keys a growing filter's stages counted as new (a stage's, in StageInfo): exact
	// with one writer, at worst a little over with several, and short of the keys added by the
	// false positives among them. 0 for a fixed filter, which does not count its keys
	// (EstimateCount estimates them).
	Keys uint64
}

// growing reports whether the info is a growing filter's.
func (i *Info) growing() bool { return i.Growth != 0 }

// Calls in flight into C are counted so that Close can wait for them (the single-key calls,
// which stay in Go, hold the filter's handle instead: see handle).
// The count is striped over cache lines, each goroutine mostly hitting its own, so that many
// goroutines testing one filter do not all write one shared word.
const stripes = 16

type stripe struct {
	n atomic.Int64
	_ [56]byte // one cache line each
}

// Filter is a Bloom filter whose bits live in the abloom C library (or in a mapped file).
//
// A *Filter is safe for concurrent use by any number of goroutines: Add, Test, TestAndAdd,
// the batch calls, Union (into or from it), Save, MarshalBinary, the estimates and Info may all
// run at once without locks, and once an Add has returned, every Test ordered after it (by a
// channel, a mutex, a WaitGroup, ...) reports the key present. Intersect and Clear are atomic
// per 64-bit word only: keys added while they run may or may not survive. Close may be called
// while other goroutines use the filter: calls in flight finish safely, and later calls fail
// with ErrClosed (or panic, for the methods that return no error). UnmarshalBinary and ReadFrom
// replace the filter and must not run concurrently with anything else on it.
//
// Close a filter when done with it. Its memory is outside the Go heap, so the garbage collector
// does not see its size: Close hands it back promptly (see Close), where an unreachable filter
// waits for a collection that its own size does not bring about.
//
// The zero Filter is closed; it becomes usable through UnmarshalBinary or ReadFrom. A nil
// *Filter is closed too, for good: its methods fail or panic as a closed filter's do, never
// with a nil dereference. A Filter must not be copied (go vet reports copies).
type Filter struct {
	live     atomic.Pointer[handle] // nil when closed (or zero)
	inflight *[stripes]stripe       // nil in a zero Filter
	h        uintptr                // the abloom_filter* (C memory), valid while open
	info     Info
}

// handle is what the single-key calls use of an open filter: its shape and words (native.go).
// Its reachability guards the C memory, so that a single-key call needs no atomic instruction
// to keep Close from freeing the words under it (a pair of locked adds cost 35-60% of a test at
// 100M keys: bench/JOURNAL.md, "The Close guard: none on the single-key path"): a call loads
// f.live once and holds the *handle until it is done with the words (runtime.KeepAlive); Close
// swaps f.live to nil, so later calls fail; the C filter is freed by a cleanup on the handle
// (runtime.AddCleanup), which runs only once no call holds it. The calls into C are counted in
// and out as well (acquire), which a cgo call does not feel, so that Close can sync a read-write
// mapping after the last of them.
type handle struct {
	nat native
	// growing: a growing filter, whose tests probe its stages in Go (stages.go) and whose adds
	// call abloom_test_and_add_hash with the hash computed in Go; the handle, held as for a fixed
	// filter's calls, keeps the C filter and its stages alive.
	growing bool
	// counted: a read-write mapping, whose single-key adds count themselves in too, so that
	// Close syncs the file after them.
	counted bool
	lease   *lease
}

// lease is the C filter a handle owns, as its cleanup sees it (it must not reach the handle).
type lease struct {
	h      uintptr
	bytes  int64
	closed atomic.Bool // Close ran: the bytes are counted in awaitingRelease
	freed  atomic.Bool // the cleanup ran (tests read it)
}

// awaitingRelease is the memory of closed filters whose cleanup has not run yet. Past
// releaseAtBytes, Close runs a garbage collection so that it is handed back promptly: a program
// that closes a large filter and builds the next one must not hold both for long.
var awaitingRelease atomic.Int64

const releaseAtBytes = 256 << 20

// stripeIndex picks a stripe from the address of the calling goroutine's stack: goroutines
// have distinct stacks, so concurrent callers mostly count on different cache lines.
func stripeIndex() uintptr {
	var marker byte
	a := uintptr(unsafe.Pointer(&marker)) >> 12
	return (a * 0x9E3779B97F4A7C15) >> (64 - 4) // top 4 bits: 0..15
}

// acquire registers a call into C in flight and returns its stripe, or nil when the filter is
// closed, zero or nil. Pair with release. The count is raised before live is read, and Close
// clears live before reading the counts (both sequentially consistent), so either the call sees
// the filter closed, or Close sees the call and waits for it.
func (f *Filter) acquire() *stripe {
	if f == nil {
		return nil
	}
	in := f.inflight
	if in == nil {
		return nil
	}
	s := &in[stripeIndex()]
	s.n.Add(1)
	if f.live.Load() == nil {
		s.n.Add(-1)
		return nil
	}
	return s
}

// release ends a call in flight.
func (s *stripe) release() { s.n.Add(-1) }

// cleanupsRun counts C filters freed by their cleanup (tests read it).
var cleanupsRun atomic.Int64

// freeHandle is the cleanup of a handle: no call holds it any more, closed or not.
func freeHandle(l *lease) {
	capi.Abloom_free(l.h)
	if l.closed.Load() {
		awaitingRelease.Add(-l.bytes)
	}
	l.freed.Store(true)
	cleanupsRun.Add(1)
}

// adopt makes f own the C handle h (f must be closed): it reads the filter's info, registers
// the cleanup and opens f.
func (f *Filter) adopt(h uintptr) error {
	hd := &handle{}
	info, rc := readInfo(h)
	if rc == 0 {
		if info.growing() {
			hd.growing = true
			rc = readGrowing(h, info.Seed, &hd.nat)
		} else {
			rc = readNative(h, &hd.nat)
		}
	}
	if rc != 0 {
		capi.Abloom_free(h)
		return newError("Info", rc)
	}
	hd.counted = info.Storage == Mapped && !info.ReadOnly
	hd.lease = &lease{h: h, bytes: int64(info.Bytes)}
	runtime.AddCleanup(hd, freeHandle, hd.lease)
	f.h = h
	f.info = info
	f.inflight = new([stripes]stripe)
	f.live.Store(hd)
	return nil
}

func newFilter(h uintptr) (*Filter, error) {
	f := new(Filter)
	if err := f.adopt(h); err != nil {
		return nil, err
	}
	return f, nil
}

func readInfo(h uintptr) (Info, int) {
	return readInfoOf(func(ci capi.Abloom_info) int { return capi.Abloom_get_info(h, ci) })
}

// readStageInfo is readInfo of stage i of the filter h (abloom_get_stage_info).
func readStageInfo(h uintptr, i uint32) (Info, int) {
	return readInfoOf(func(ci capi.Abloom_info) int { return capi.Abloom_get_stage_info(h, uint(i), ci) })
}

// readInfoOf fills an abloom_info with get and converts it.
func readInfoOf(get func(capi.Abloom_info) int) (Info, int) {
	ci := capi.NewAbloom_info()
	defer capi.DeleteAbloom_info(ci)
	ci.SetStruct_size(capi.SIZEOF_INFO)
	if rc := get(ci); rc != 0 {
		return Info{}, rc
	}
	return Info{
		Kind:           Kind(ci.GetKind()),
		Layout:         Layout(ci.GetLayout()),
		K:              uint32(ci.GetK()),
		Shards:         uint32(ci.GetShards()),
		BlocksPerShard: ci.GetBlocks_per_shard(),
		Bits:           ci.GetBits(),
		Bytes:          ci.GetBytes(),
		Capacity:       ci.GetCapacity(),
		Seed:           ci.GetSeed(),
		TargetFPR:      ci.GetTarget_fpr(),
		ExpectedFPR:    ci.GetExpected_fpr(),
		Storage:        Storage(ci.GetStorage()),
		ReadOnly:       ci.GetRead_only() != 0,
		Stale:          ci.GetStale() != 0,
		Stages:         uint32(ci.GetStages()),
		Growth:         ci.GetGrowth(),
		GrowthFailed:   ci.GetGrowth_failed() != 0,
		Keys:           ci.GetKeys(),
	}, 0
}

// Close closes the filter: calls after it fail with ErrClosed, or panic for the methods that
// return no error. For a file opened with OpenReadWrite it first writes the header and flushes
// the file, as Sync does, whose error it returns. As with os.File, only the first Close does
// anything: closing a closed, zero or nil filter returns an error matching ErrClosed (which a
// deferred Close after an explicit one may ignore).
//
// Other goroutines may still be using the filter. Close waits for the calls into C (batches,
// set operations, files) and, on a read-write mapping, for adds. Single-key calls already in
// flight finish on the filter's memory, which is freed when the last of them has returned (its
// cleanup then runs at the garbage collector's next cycle; past 256 MiB of closed filters
// awaiting that, Close runs the collection itself). On Windows, Close of a filter opened from a
// file waits for that (up to about a second), so that the file can be replaced or removed after
// it: Windows keeps a mapped file in use.
func (f *Filter) Close() error {
	if f == nil {
		return errClosed("Close")
	}
	hd := f.live.Swap(nil)
	if hd == nil {
		return errClosed("Close")
	}
	// Wait for the counted calls that got in before live was cleared; later ones back off.
	for spin := 0; ; spin++ {
		busy := false
		for i := range f.inflight {
			if f.inflight[i].n.Load() != 0 {
				busy = true
				break
			}
		}
		if !busy {
			break
		}
		if spin < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
	var err error
	if hd.growing {
		// Its stages grew since adopt: count the memory it holds now (no add runs on it any more
		// but those in flight, whose new stage, if any, this may miss: a hint for the collection).
		if info, rc := readInfo(f.h); rc == 0 {
			hd.lease.bytes = int64(info.Bytes)
		}
	}
	if hd.counted {
		// The last sync: the file is left sealed now, not when the handle's cleanup frees it
		// later (abloom_free would seal it too, but cannot report a failure).
		err = newError("Close", capi.Abloom_sync_last(f.h))
	}
	hd.lease.closed.Store(true)
	pending := awaitingRelease.Add(hd.lease.bytes)
	l := hd.lease
	mapped := f.info.Storage == Mapped
	runtime.KeepAlive(hd) // the last use: the collection below may free it
	if closeUnmapsAtOnce && mapped {
		awaitRelease(l)
	} else if pending >= releaseAtBytes {
		runtime.GC() // the cleanups of the handles no call holds run after it
	}
	return err
}

// awaitRelease collects garbage until the cleanup of lease's handle has run, for at most about a
// second: a single-key call still in flight on another goroutine holds the handle until it returns.
func awaitRelease(l *lease) {
	deadline := time.Now().Add(time.Second)
	for !l.freed.Load() && time.Now().Before(deadline) {
		runtime.GC()
		for spin := 0; spin < 1000 && !l.freed.Load(); spin++ {
			runtime.Gosched()
		}
	}
}

// opened returns f, or panics with an *Error matching ErrClosed that names op when f is closed,
// zero or nil. It is the check of the accessors that read the Go copy of the filter's info: the
// info stays in f after Close, but a closed filter has no shape to report.
func (f *Filter) opened(op string) *Filter {
	if f.load() == nil {
		panicClosed(op)
	}
	return f
}

// Info describes the filter: its shape, its sizing and where it lives. A fixed filter's is read
// once when the filter is made (the shape never changes), so it costs no call into C; a growing
// filter's is read at each call (its stages, keys and sizes change with its adds). It panics,
// with an *Error matching ErrClosed, if the filter is closed, zero or nil.
func (f *Filter) Info() Info { return f.current("Info") }

// current is f's info now: the Go copy for a fixed filter, the C library's for a growing one.
func (f *Filter) current(op string) Info {
	f.opened(op)
	if !f.info.growing() {
		return f.info
	}
	ref := f.acquire()
	if ref == nil {
		panicClosed(op)
	}
	info, rc := readInfo(f.h)
	ref.release()
	runtime.KeepAlive(f)
	if rc != 0 {
		panic(newError(op, rc)) // cannot happen: the struct size is this header's
	}
	return info
}

// StageInfo describes stage i (0 = the oldest) of a growing filter, as Info describes a fixed
// filter: its shape, and its own Capacity, TargetFPR, ExpectedFPR, Bits, Bytes and Keys (the
// new keys it counted); Stages, Growth and GrowthFailed are the chain's. A fixed filter is its
// own stage 0. Errors: ErrRange for a stage it does not have (Info().Stages tells how many),
// ErrClosed.
func (f *Filter) StageInfo(i int) (Info, error) {
	ref := f.acquire()
	if ref == nil {
		return Info{}, errClosed("StageInfo")
	}
	defer runtime.KeepAlive(f)
	defer ref.release()
	if i < 0 || i >= MaxStages {
		return Info{}, &Error{Op: "StageInfo", Code: codeRange}
	}
	info, rc := readStageInfo(f.h, uint32(i))
	if rc != 0 {
		return Info{}, newError("StageInfo", rc)
	}
	return info, nil
}

// Cap returns the number of keys the filter was sized for (its capacity; a growing filter's
// stages' together now, see Info). It panics, with an *Error matching ErrClosed, if the filter is
// closed, zero or nil.
func (f *Filter) Cap() uint64 { return f.current("Cap").Capacity }

// K returns the number of bits set per key (a growing filter's newest stage's). It panics, with
// an *Error matching ErrClosed, if the filter is closed, zero or nil.
func (f *Filter) K() uint { return uint(f.current("K").K) }

// Bits returns the filter's size in bits (a growing filter's stages' together now). It panics,
// with an *Error matching ErrClosed, if the filter is closed, zero or nil.
func (f *Filter) Bits() uint64 { return f.current("Bits").Bits }

// Add adds key. It fails only with ErrClosed or, for a file opened read-only, ErrReadOnly.
// Single-key calls run in Go, on the filter's memory, with no cgo call (native.go; a growing
// filter's adds make one, stages.go) and no atomic instruction to guard against Close (handle).
func (f *Filter) Add(key []byte) error {
	hd := f.load()
	if hd == nil {
		return errClosed("Add")
	}
	_, err := f.addHash(hd, "Add", xxh3.HashSeed(key, hd.nat.seed))
	return err
}

// AddString adds the bytes of key, without copying them.
func (f *Filter) AddString(key string) error {
	hd := f.load()
	if hd == nil {
		return errClosed("AddString")
	}
	_, err := f.addHash(hd, "AddString", xxh3.HashStringSeed(key, hd.nat.seed))
	return err
}

// Test reports whether key may have been added: false means it definitely was not; true
// means it was, or is a false positive (with about the filter's FPR for keys never added).
// It panics, with an *Error matching ErrClosed, if the filter is closed, zero or nil.
func (f *Filter) Test(key []byte) bool {
	// Written out in full, as in TestString: at 1M keys a call frame more costs a few percent.
	hd := f.load()
	if hd == nil {
		panicClosed("Test")
	}
	n := &hd.nat
	h := xxh3.HashSeed(key, n.seed)
	var present bool
	if n.probe == probeSplit && splitAsm.Load() { // the default layout, without a call to dispatch
		present = testSplitAVX2(n, h)
	} else {
		present = n.test(h)
	}
	runtime.KeepAlive(hd) // the words stay allocated until here
	return present
}

// TestString is Test for the bytes of key, without copying them. It panics, with an *Error
// matching ErrClosed, if the filter is closed, zero or nil.
func (f *Filter) TestString(key string) bool {
	hd := f.load()
	if hd == nil {
		panicClosed("TestString")
	}
	n := &hd.nat
	h := xxh3.HashStringSeed(key, n.seed)
	var present bool
	if n.probe == probeSplit && splitAsm.Load() {
		present = testSplitAVX2(n, h)
	} else {
		present = n.test(h)
	}
	runtime.KeepAlive(hd)
	return present
}

// TestAndAdd adds key and reports, from the same pass over its bits, whether it was already
// present (true: added before, or a false positive). When several goroutines add one new key
// at once, at least one of them is told it was new.
func (f *Filter) TestAndAdd(key []byte) (bool, error) {
	hd := f.load()
	if hd == nil {
		return false, errClosed("TestAndAdd")
	}
	return f.addHash(hd, "TestAndAdd", xxh3.HashSeed(key, hd.nat.seed))
}

// TestAndAddString is TestAndAdd for the bytes of key, without copying them.
func (f *Filter) TestAndAddString(key string) (bool, error) {
	hd := f.load()
	if hd == nil {
		return false, errClosed("TestAndAddString")
	}
	return f.addHash(hd, "TestAndAddString", xxh3.HashStringSeed(key, hd.nat.seed))
}

// load returns f's handle, or nil when f is closed, zero or nil.
func (f *Filter) load() *handle {
	if f == nil {
		return nil
	}
	return f.live.Load()
}

// addHash is TestAndAdd of a key of hash h on hd, f's handle.
func (f *Filter) addHash(hd *handle, op string, h uint64) (bool, error) {
	n := &hd.nat
	if n.probe == probeGrowing {
		rc := n.chain.add(n, h)
		runtime.KeepAlive(hd) // the C filter stays allocated until here
		if rc < 0 {
			return false, newError(op, rc)
		}
		return rc == 1, nil
	}
	if hd.counted {
		// A read-write mapping: Close must sync the file after this add.
		ref := f.acquire()
		if ref == nil {
			return false, errClosed(op)
		}
		defer ref.release()
	} else if n.probe == probeSplit && n.writable != nil && splitAsm.Load() {
		// The default layout on amd64, without the calls to dispatch.
		present := addSplitAVX2(n, h, n.exclusive.Load())
		runtime.KeepAlive(hd)
		return present, nil
	}
	present, ok := n.add(h)
	runtime.KeepAlive(hd)
	if !ok {
		return false, errReadOnly(op)
	}
	return present, nil
}

// pair is two acquired filters (possibly the same one).
type pair struct {
	f, g   *Filter
	rf, rg *stripe
}

// acquire2 acquires f and g (which may be the same filter). The receiver f is checked first: a
// closed f is ErrClosed whatever g is; then a nil g is ErrInvalid and a closed one ErrClosed.
func acquire2(f, g *Filter, op string) (pair, error) {
	rf := f.acquire()
	if rf == nil {
		return pair{}, errClosed(op)
	}
	if g == nil {
		rf.release()
		runtime.KeepAlive(f)
		return pair{}, &Error{Op: op, Code: codeInvalid}
	}
	rg := g.acquire()
	if rg == nil {
		rf.release()
		return pair{}, errClosed(op)
	}
	return pair{f, g, rf, rg}, nil
}

func (p pair) release() {
	p.rg.release()
	p.rf.release()
	runtime.KeepAlive(p.f)
	runtime.KeepAlive(p.g)
}

// Union adds every key of other to f (f |= other): f then reports every key of either. The
// filters must have the same shape (kind, k, shards, blocks per shard and seed: made with the
// same options), else ErrIncompatible; a nil other is ErrInvalid; ErrClosed if either filter is
// closed. Safe while other goroutines add to either filter.
//
// Growing filters combine stage by stage when made with the same options (NewGrowing's fpr and
// options, the growth and first capacity included); a growing filter and a fixed one never do
// (ErrIncompatible). f first grows to other's stage count (ErrRange if it cannot); each stage then
// takes other's stage's bits and count of keys, so a stage may end with more keys than its
// capacity and the chain's FPR above its target (EstimateFPR says by how much): filters to be
// combined should each hold fewer keys than the stages they share would take. Adding from many
// goroutines to one growing filter is the better way to fill it in parallel.
func (f *Filter) Union(other *Filter) error {
	p, err := acquire2(f, other, "Union")
	if err != nil {
		return err
	}
	rc := capi.Abloom_union(f.h, other.h)
	f.afterAdding() // f may have grown to other's stage count, even if the union failed part way
	p.release()
	return newError("Union", rc)
}

// Intersect keeps in f only the bits also set in other (f &= other), an over-approximation of
// the keys in both. Same shape rules as Union. Growing filters cannot be intersected
// (ErrUnsupported): a key both chains hold may sit in different stages of each, and a
// stage-by-stage intersection would lose it.
func (f *Filter) Intersect(other *Filter) error {
	p, err := acquire2(f, other, "Intersect")
	if err != nil {
		return err
	}
	rc := capi.Abloom_intersect(f.h, other.h)
	p.release()
	return newError("Intersect", rc)
}

// Clear removes every key: all bits are cleared, the shape is kept.
func (f *Filter) Clear() error {
	ref := f.acquire()
	if ref == nil {
		return errClosed("Clear")
	}
	rc := capi.Abloom_clear(f.h)
	ref.release()
	runtime.KeepAlive(f)
	return newError("Clear", rc)
}

// Equal reports whether f and other have the same shape and the same bits. A nil other is
// never equal. It panics, with an *Error matching ErrClosed, if f is closed, zero or nil, or if
// other is closed or zero.
func (f *Filter) Equal(other *Filter) bool {
	p, err := acquire2(f, other, "Equal")
	if err != nil {
		if errors.Is(err, ErrInvalid) { // other is nil
			return false
		}
		panic(err)
	}
	rc := capi.Abloom_equal(f.h, other.h)
	p.release()
	return rc == 1
}

// Clone returns an independent copy of f (same shape and bits) in memory the library owns,
// whatever f's storage: a clone of a read-only mapped file is writable.
func (f *Filter) Clone() (*Filter, error) {
	ref := f.acquire()
	if ref == nil {
		return nil, errClosed("Clone")
	}
	out := []uintptr{0}
	rc := capi.Abloom_clone(f.h, out)
	ref.release()
	runtime.KeepAlive(f)
	if rc != 0 {
		return nil, newError("Clone", rc)
	}
	return newFilter(out[0])
}

// EstimateCount estimates the number of distinct keys added, from the number of set bits
// (+Inf when every bit is set). It reads every word: O(Bits).
func (f *Filter) EstimateCount() (float64, error) {
	ref := f.acquire()
	if ref == nil {
		return 0, errClosed("EstimateCount")
	}
	out := []float64{0}
	rc := capi.Abloom_estimate_count(f.h, out)
	ref.release()
	runtime.KeepAlive(f)
	return out[0], newError("EstimateCount", rc)
}

// EstimateFPR estimates the probability that a key never added tests positive now, from the
// current fill. It reads every word: O(Bits).
func (f *Filter) EstimateFPR() (float64, error) {
	ref := f.acquire()
	if ref == nil {
		return 0, errClosed("EstimateFPR")
	}
	out := []float64{0}
	rc := capi.Abloom_estimate_fpr(f.h, out)
	ref.release()
	runtime.KeepAlive(f)
	return out[0], newError("EstimateFPR", rc)
}
