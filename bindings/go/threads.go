package abloom

import (
	"runtime"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// MaxThreads is the most threads a filter's batch calls may use (WithThreads, SetThreads): the
// C library's ABLOOM_MAX_THREADS.
const MaxThreads = 256

// SetThreads sets how many threads (at most MaxThreads; 0 or 1: the calling goroutine's thread
// only) the batch calls on f (AddBatch, TestBatch and their string forms) may use from now on,
// as WithThreads does for a filter New makes. Batches of 65536 keys or more are split across
// them; the answers, the bits set and the counts are exactly the single-threaded ones. The count
// belongs to this *Filter, not to its bits: it is not saved; New starts it at WithThreads (1
// without it), Open, Unmarshal, UnmarshalBinary and ReadFrom at 1, and Clone copies f's. It may
// be called at any time, also while other goroutines run batch calls on f (each keeps the count
// it started with), and on read-only filters (for their TestBatch calls). It returns an error
// matching ErrInvalid for a count above MaxThreads (nothing changes then) and ErrClosed on a
// closed, zero or nil filter.
func (f *Filter) SetThreads(n uint32) error {
	ref := f.acquire()
	if ref == nil {
		return errClosed("SetThreads")
	}
	rc := capi.Abloom_set_threads(f.h, uint(n))
	ref.release()
	runtime.KeepAlive(f)
	return newError("SetThreads", rc)
}

// Threads returns how many threads f's batch calls may use: 1 to MaxThreads (1 after
// SetThreads(0)). It panics, with an *Error matching ErrClosed, if the filter is closed, zero or
// nil.
func (f *Filter) Threads() uint32 {
	ref := f.acquire()
	if ref == nil {
		panicClosed("Threads")
	}
	rc := capi.Abloom_get_threads(f.h)
	ref.release()
	runtime.KeepAlive(f)
	return uint32(rc)
}
