package abloom

import (
	"runtime"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// WriterMode tells how a filter's adds write its bits.
type WriterMode uint32

const (
	// SharedWriters (the default): any number of goroutines may add at once. Adds set their
	// bits with atomic read-modify-writes, which never lose a bit.
	SharedWriters WriterMode = WriterMode(capi.ABLOOM_WRITER_SHARED)
	// ExclusiveWriter: one goroutine at a time calls Add, AddString, TestAndAdd, the AddBatch
	// calls and Union; they use plain loads and stores, which makes adds faster (see the C
	// library's bench/RESULTS.md, "C library: bulk calls"). Any number of goroutines may still
	// call Test and the other read-only methods meanwhile. It is unsafe with concurrent writers:
	// two goroutines adding at once can lose each other's bits, which gives false negatives. For
	// a filter one goroutine fills: an offline build, a bulk load before serving.
	ExclusiveWriter WriterMode = WriterMode(capi.ABLOOM_WRITER_EXCLUSIVE)
)

// String returns "shared", "exclusive" or "WriterMode(N)".
func (m WriterMode) String() string {
	switch m {
	case SharedWriters:
		return "shared"
	case ExclusiveWriter:
		return "exclusive"
	}
	return "WriterMode(" + uitoa(uint64(m)) + ")"
}

// SetWriterMode sets how f is written from now on. Call it while no other goroutine writes to
// f: for example, switch to ExclusiveWriter for a bulk load and back to SharedWriters before
// other goroutines start adding. The mode belongs to this *Filter, not to its bits: it is not
// saved, and every new, cloned, read or opened filter starts with SharedWriters. It returns an
// error matching ErrInvalid for an unknown mode (nothing changes then) and ErrClosed on a
// closed, zero or nil filter.
func (f *Filter) SetWriterMode(mode WriterMode) error {
	ref := f.acquire()
	if ref == nil {
		return errClosed("SetWriterMode")
	}
	rc := capi.Abloom_set_writer_mode(f.h, uint(mode))
	// The Go-native adds follow it too (unless Close has begun: then none will run).
	if hd := f.live.Load(); rc == 0 && hd != nil {
		hd.nat.exclusive.Store(mode == ExclusiveWriter)
	}
	ref.release()
	runtime.KeepAlive(f)
	return newError("SetWriterMode", rc)
}

// WriterMode returns f's writer mode. It panics, with an *Error matching ErrClosed, if the
// filter is closed, zero or nil.
func (f *Filter) WriterMode() WriterMode {
	ref := f.acquire()
	if ref == nil {
		panicClosed("WriterMode")
	}
	rc := capi.Abloom_get_writer_mode(f.h)
	ref.release()
	runtime.KeepAlive(f)
	return WriterMode(rc)
}
