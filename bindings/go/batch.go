package abloom

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// A batch crosses into C once: its keys are copied into one buffer plus n+1 offsets (cgo
// forbids passing C a Go slice of Go slices), reused through a pool.

type packed struct {
	buf  []byte
	offs []uint64
}

var packPool = sync.Pool{New: func() any { return new(packed) }}

// maxPooled bounds the buffers kept for reuse, so one huge batch does not pin its memory.
const maxPooled = 16 << 20

func putPacked(p *packed) {
	if cap(p.buf) > maxPooled || cap(p.offs)*8 > maxPooled {
		return
	}
	packPool.Put(p)
}

// pack copies keys into one pooled buffer, recording n+1 offsets: a first pass sizes the buffer,
// a second copies (no append bookkeeping in the copy loop).
func pack[K []byte | string](keys []K) *packed {
	p := packPool.Get().(*packed)
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	if cap(p.buf) < total {
		p.buf = make([]byte, total)
	}
	if cap(p.offs) < len(keys)+1 {
		p.offs = make([]uint64, len(keys)+1)
	}
	buf, offs := p.buf[:total], p.offs[:len(keys)+1]
	off := 0
	for i, k := range keys {
		offs[i] = uint64(off)
		off += copy(buf[off:], k)
	}
	offs[len(keys)] = uint64(off)
	p.buf, p.offs = buf, offs
	return p
}

func (f *Filter) addPacked(op string, p *packed, n int) (int, error) {
	ref := f.acquire()
	if ref == nil {
		return 0, errClosed(op)
	}
	added, rc := capi.AddPacked(f.h, p.buf, p.offs, n)
	f.afterAdding() // also when the batch failed part way: some keys may be in by then
	ref.release()
	runtime.KeepAlive(f)
	if rc != 0 {
		return 0, newError(op, rc)
	}
	return int(added), nil
}

// testAndAddPacked is addPacked with an answer per key (see TestAndAddBatch).
func (f *Filter) testAndAddPacked(op string, p *packed, n int, results []bool) (int, error) {
	ref := f.acquire()
	if ref == nil {
		return 0, errClosed(op)
	}
	if len(results) < n { // checked once open, as in testPacked
		ref.release()
		runtime.KeepAlive(f)
		return 0, &Error{Op: op, Code: codeInvalid}
	}
	added, rc := capi.TestAndAddPacked(f.h, p.buf, p.offs, n, unsafe.Pointer(unsafe.SliceData(results)))
	f.afterAdding()
	ref.release()
	runtime.KeepAlive(f)
	if rc != 0 {
		return 0, newError(op, rc)
	}
	return int(added), nil
}

func (f *Filter) testPacked(op string, p *packed, n int, results []bool) (int, error) {
	ref := f.acquire()
	if ref == nil {
		return 0, errClosed(op)
	}
	if len(results) < n { // checked once open: a closed filter is ErrClosed whatever the arguments
		ref.release()
		runtime.KeepAlive(f)
		return 0, &Error{Op: op, Code: codeInvalid}
	}
	found, rc := capi.TestPacked(f.h, p.buf, p.offs, n, unsafe.Pointer(unsafe.SliceData(results)))
	ref.release()
	runtime.KeepAlive(f)
	if rc != 0 {
		return 0, newError(op, rc)
	}
	return int(found), nil
}

// AddBatch adds every key in one call into the C library (keys are hashed and their blocks
// prefetched ahead of probing, so memory latency overlaps). It returns how many keys were new
// (as TestAndAdd would tell). Nothing is added on error.
func (f *Filter) AddBatch(keys [][]byte) (int, error) {
	p := pack(keys)
	defer putPacked(p)
	return f.addPacked("AddBatch", p, len(keys))
}

// AddBatchStrings is AddBatch for string keys.
func (f *Filter) AddBatchStrings(keys []string) (int, error) {
	p := pack(keys)
	defer putPacked(p)
	return f.addPacked("AddBatchStrings", p, len(keys))
}

// TestBatch tests every key in one call into the C library, setting results[i] to Test(keys[i])
// and returning how many are true. results must be at least as long as keys (else ErrInvalid);
// elements past len(keys) are left alone.
func (f *Filter) TestBatch(keys [][]byte, results []bool) (int, error) {
	p := pack(keys)
	defer putPacked(p)
	return f.testPacked("TestBatch", p, len(keys), results)
}

// TestBatchStrings is TestBatch for string keys.
func (f *Filter) TestBatchStrings(keys []string, results []bool) (int, error) {
	p := pack(keys)
	defer putPacked(p)
	return f.testPacked("TestBatchStrings", p, len(keys), results)
}

// TestAndAddBatch is TestAndAdd for every key, in order, in one call into the C library: it sets
// results[i] to whether keys[i] was already present (added before, by an earlier key of this
// batch, or a false positive) and returns how many keys were new (the false answers). Answers
// and bits are those of one TestAndAdd per key; the batch is tested in bulk first (its blocks
// prefetched), then only the keys not found are added, so deduplicating a stream of mostly
// repeated keys costs about what TestBatch does. results must be at least as long as keys (else
// ErrInvalid); elements past len(keys) are left alone. Nothing is added on error (ErrReadOnly
// for a file opened read-only).
func (f *Filter) TestAndAddBatch(keys [][]byte, results []bool) (int, error) {
	p := pack(keys)
	defer putPacked(p)
	return f.testAndAddPacked("TestAndAddBatch", p, len(keys), results)
}

// TestAndAddBatchStrings is TestAndAddBatch for string keys.
func (f *Filter) TestAndAddBatchStrings(keys []string, results []bool) (int, error) {
	p := pack(keys)
	defer putPacked(p)
	return f.testAndAddPacked("TestAndAddBatchStrings", p, len(keys), results)
}
