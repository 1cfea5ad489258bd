package abloom

// A growing filter's single-key tests in Go: each stage is a filter of its own shape
// (abloom_get_stage_memory describes it as abloom_get_memory describes a fixed filter), probed
// by the same code as a fixed filter's memory (native.go), newest stage first, with the one hash
// (every stage hashes with the chain's seed). Adds still go through the engine, in one cgo call
// each: only it counts a stage's new keys and appends the next stage.
//
// The stages Go probes are published as the Java binding publishes them (FilterCore.java,
// publishStages): an immutable slice of stage views behind an atomic pointer, only ever replaced
// by a longer one. Every call that can append stages (Add, TestAndAdd and their String forms,
// the batch adds, Union) learns the engine's stage count after it added, and publishes the
// stages below that count before it returns. A key it added lies in one of those stages, so a
// test ordered after the add (by a channel, a mutex, ...) loads a slice that covers it: no false
// negative. Stages never move and are only appended (abloom_clear empties them in place), so the
// views already published stay valid until abloom_free, which the handle's cleanup calls only
// once no call holds the handle (filter.go): a test holds it, as a fixed filter's does.

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// chain is what a growing filter's handle keeps of its stages (native.chain).
type chain struct {
	// set: the stages published, never nil once the handle is made.
	set atomic.Pointer[stageSet]
	mu  sync.Mutex // serialises publications (tests never take it)
}

// stageSet is the stages Go probes, oldest first. Never changed once published.
type stageSet struct {
	stages []*native
	// cgo: a stage could not be read (which the engine never refuses for a stage below its
	// count): the tests go through abloom_test_hash from then on, which is never wrong.
	cgo bool
}

// test reports whether hash h is in any stage published, newest (the largest, which holds the
// most keys) first. n is the growing filter's handle native (probeGrowing).
func (c *chain) test(n *native, h uint64) bool {
	set := c.set.Load()
	if set.cgo {
		return capi.TestHash(n.h, h) == 1
	}
	st := set.stages
	for i := len(st) - 1; i >= 0; i-- {
		if st[i].test(h) { // native.test picks each stage's probe (the assembly where it runs)
			return true
		}
	}
	return false
}

// add is a growing filter's single-key add: the engine's test-and-add of hash h (rc: 1 present,
// 0 new, or a negative code), after which the stages the key may have gone to are published.
func (c *chain) add(n *native, h uint64) (rc int) {
	known := uint32(len(c.set.Load().stages))
	rc, count := capi.GrowTestAndAddHash(n.h, h, known)
	if rc >= 0 && count > known {
		c.publish(n, count)
	}
	return rc
}

// refresh publishes every stage the engine has now, for the calls into C that may append some
// (batch adds, Union), whose own results do not give the count. The caller holds f's handle.
func (c *chain) refresh(n *native) {
	count := capi.Stages(n.h)
	if count <= 0 {
		// Cannot happen on an open handle; the tests then go through C, which is never wrong.
		c.fallBack()
		return
	}
	if set := c.set.Load(); len(set.stages) < count && !set.cgo {
		c.publish(n, uint32(count))
	}
}

// publish makes the stages below count visible to the tests, in one atomic store of a longer
// slice. Concurrent publishers take turns; the later ones find their stages already there.
func (c *chain) publish(n *native, count uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.set.Load()
	if uint32(len(cur.stages)) >= count || cur.cgo {
		return
	}
	next := make([]*native, count)
	copy(next, cur.stages)
	for i := len(cur.stages); i < int(count); i++ {
		s := new(native)
		if rc := readStage(n.h, uint32(i), n.seed, s); rc != 0 {
			c.set.Store(&stageSet{stages: cur.stages, cgo: true})
			return
		}
		next[i] = s
	}
	c.set.Store(&stageSet{stages: next})
}

// fallBack sends the tests through C for good.
func (c *chain) fallBack() {
	c.mu.Lock()
	c.set.Store(&stageSet{stages: c.set.Load().stages, cgo: true})
	c.mu.Unlock()
}

// readGrowing fills n, a growing filter's handle native, from the C handle h: its stages as the
// engine has them now.
func readGrowing(h uintptr, seed uint64, n *native) int {
	*n = native{h: h, seed: seed, probe: probeGrowing, chain: new(chain)}
	count := capi.Stages(h)
	if count < 0 {
		return count
	}
	if count == 0 || count > MaxStages {
		return codeInternal
	}
	stages := make([]*native, count)
	for i := range stages {
		stages[i] = new(native)
		if rc := readStage(h, uint32(i), seed, stages[i]); rc != 0 {
			return rc
		}
	}
	n.chain.set.Store(&stageSet{stages: stages})
	return 0
}

// readStage fills s from stage i of the growing filter h, read-only (adds go through the engine).
func readStage(h uintptr, i uint32, seed uint64, s *native) int {
	var m capi.Memory
	if rc := capi.GetStageMemory(h, i, &m); rc != 0 {
		return rc
	}
	if m.Seed != seed { // one hash for every stage: the format says so
		return codeInternal
	}
	return fillNative(&m, s)
}

// afterAdding publishes the stages that a call into C which may have appended some (batch adds,
// Union) left behind it, when f is a growing filter. The caller still holds its count in flight
// (acquire), so f's C filter is alive; a Close that already cleared live needs nothing published.
func (f *Filter) afterAdding() {
	hd := f.live.Load()
	if hd == nil || hd.nat.chain == nil {
		return
	}
	hd.nat.chain.refresh(&hd.nat)
	runtime.KeepAlive(hd)
}
