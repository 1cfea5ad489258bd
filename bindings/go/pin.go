package abloom

// The Close guard of the single-key calls, with no atomic instruction on their path.
//
// Close must not free the C memory while a Go-native Test or Add (native.go) still reads or
// writes it. The batch calls count themselves in and out (acquire and release, filter.go): two
// locked adds, nothing beside a cgo call. Around a single-key probe of 20-40 ns they were about
// 3 ns, and a locked add is a full barrier on amd64 that keeps the next key's load from starting
// early. So the single-key calls guard themselves the way sync.Pool guards its per-P caches:
//
//   - the call pins its goroutine to its P (runtime.procPin: a plain increment of m.locks, which
//     turns preemption off), reads open, probes the words if it is set, and unpins;
//   - Close clears open and then stops the world once (waitPinned). The world cannot stop while
//     a goroutine is pinned, since a pinned goroutine cannot be preempted, so when the stop
//     returns every call that saw the filter open has finished with its words, and every later
//     call sees it closed.
//
// A pinned section hashes nothing and touches a few words: keys are hashed before it, so
// that a long key never holds up a stop of the world (a garbage collection needs one too).
// Batch calls are not pinned: they may run for seconds inside C.
//
// TestWorldStopWaitsForPinnedGoroutine checks the runtime behaviour this relies on.

import (
	"runtime"
	_ "unsafe" // for go:linkname
)

// procPin and procUnpin are the runtime's, as sync.Pool uses them. They are reachable by
// linkname on purpose: the runtime keeps them for packages outside the standard library (see
// its comments on them and go.dev/issue/67401).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// waitPinned returns once every goroutine that was pinned when it was called has unpinned. It
// stops the world (runtime.ReadMemStats does, to read consistent statistics): tens of
// microseconds, once per Close.
func waitPinned() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
}
