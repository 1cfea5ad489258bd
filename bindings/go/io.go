package abloom

import (
	"encoding/binary"
	"io"
	"runtime"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// The serialized form is the portable file format of docs/FORMAT.md (a 128-byte header, then
// the bits): bytes written by any binding, or by C, read back everywhere.

// headerBytes is the size of the serialized header; bodySizeOffset the offset of its
// little-endian body size. A growing filter's bytes start with a chain header instead (kind
// chainKind at kindOffset), which gives the size of the whole form at totalSizeOffset
// (docs/FORMAT.md, "Growing filters").
const (
	headerBytes     = 128
	bodySizeOffset  = 96
	kindOffset      = 16
	chainKind       = 2
	totalSizeOffset = 80
	readChunk       = 64 << 20
)

// MarshalBinary returns the filter's serialized bytes (docs/FORMAT.md). Safe while other
// goroutines add: the checksum covers exactly the bits written.
func (f *Filter) MarshalBinary() ([]byte, error) { return f.marshal("MarshalBinary") }

// marshal is MarshalBinary, its errors naming op.
func (f *Filter) marshal(op string) ([]byte, error) {
	ref := f.acquire()
	if ref == nil {
		return nil, errClosed(op)
	}
	defer runtime.KeepAlive(f)
	defer ref.release()
	size := []uint64{0}
	if rc := capi.Abloom_serialized_size(f.h, size); rc != 0 {
		return nil, newError(op, rc)
	}
	buf := make([]byte, size[0])
	written := []uint64{0}
	if rc := capi.Abloom_serialize(f.h, buf, written); rc != 0 {
		return nil, newError(op, rc)
	}
	return buf[:written[0]], nil
}

// Unmarshal returns a new filter (memory the library owns) from serialized bytes, after full
// validation of header, sizes and checksum. data is not retained. Errors: ErrCorrupt (and the
// precise ErrBadMagic, ErrTruncated, ErrChecksum), ErrVersion, ErrUnsupported, ErrNoMem.
func Unmarshal(data []byte) (*Filter, error) {
	h, err := deserialize("Unmarshal", data)
	if err != nil {
		return nil, err
	}
	return newFilter(h)
}

// deserialize is abloom_deserialize; empty data is truncated (C would see a NULL buffer).
func deserialize(op string, data []byte) (uintptr, error) {
	if len(data) == 0 {
		return 0, &Error{Op: op, Code: codeTruncated}
	}
	out := []uintptr{0}
	if rc := capi.Abloom_deserialize(data, out); rc != 0 {
		return 0, newError(op, rc)
	}
	return out[0], nil
}

// UnmarshalBinary replaces f with the filter serialized in data (as Unmarshal does; data is
// not retained). It works on a zero or closed Filter, which it reopens; a nil *Filter gives
// ErrClosed. If f is open it is closed first, so UnmarshalBinary must not run concurrently with
// other calls on f. On error f is left unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	if f == nil {
		return errClosed("UnmarshalBinary")
	}
	h, err := deserialize("UnmarshalBinary", data)
	if err != nil {
		return err
	}
	_ = f.Close()
	return f.adopt(h)
}

// WriteTo writes the serialized filter to w, implementing io.WriterTo.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	b, err := f.marshal("WriteTo")
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// readSerialized reads exactly one serialized filter from r: its header, checked before the
// body size it gives is trusted, then that many bytes.
func readSerialized(op string, r io.Reader) ([]byte, int64, error) {
	var hdr [headerBytes]byte
	n, err := io.ReadFull(r, hdr[:])
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, int64(n), &Error{Op: op, Code: codeTruncated, Err: err}
		}
		return nil, int64(n), err
	}
	// A header alone is a truncated filter when the header itself is valid; any other answer
	// (bad magic, version, corrupt header...) is final.
	probe := []uintptr{0}
	if rc := capi.Abloom_deserialize(hdr[:], probe); rc != codeTruncated {
		if rc == 0 { // cannot happen (a body is at least one block), but never leak
			capi.Abloom_free(probe[0])
			rc = codeCorrupt
		}
		return nil, int64(n), newError(op, rc)
	}
	// The header checksum passed, but the size is still only a claim until the bytes arrive:
	// grow the buffer as they do instead of allocating it all up front.
	want := headerBytes + binary.LittleEndian.Uint64(hdr[bodySizeOffset:])
	if binary.LittleEndian.Uint32(hdr[kindOffset:]) == chainKind {
		// Checked by the probe above: more than the header alone, else it would not be truncated.
		want = binary.LittleEndian.Uint64(hdr[totalSizeOffset:])
	}
	buf := make([]byte, headerBytes, min(want, headerBytes+readChunk))
	copy(buf, hdr[:])
	total := int64(n)
	for uint64(len(buf)) < want {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(want, uint64(2*cap(buf))))
			copy(nb, buf)
			buf = nb
		}
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		total += int64(m)
		buf = buf[:len(buf)+m]
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, total, &Error{Op: op, Code: codeTruncated, Err: io.ErrUnexpectedEOF}
			}
			return nil, total, err
		}
	}
	return buf, total, nil
}

// ReadFrom replaces f with a filter read from r, implementing io.ReaderFrom. Unlike most
// ReadFrom methods it does not read to EOF: it reads exactly one serialized filter (the size
// comes from its header, validated first), so filters can follow one another in a stream. A
// stream that ends early gives ErrTruncated. The same rules as UnmarshalBinary apply; on a nil
// *Filter it returns ErrClosed without reading.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	if f == nil {
		return 0, errClosed("ReadFrom")
	}
	buf, n, err := readSerialized("ReadFrom", r)
	if err != nil {
		return n, err
	}
	return n, f.UnmarshalBinary(buf)
}

// Save writes the filter to path crash-safely: to a temporary file in the same directory,
// fsynced, renamed over path, then the directory fsynced; a crash leaves the old file or the
// new one, complete. Safe while other goroutines add. An I/O failure is an *Error matching
// ErrIO whose Err is the system error.
func (f *Filter) Save(path string) error {
	ref := f.acquire()
	if ref == nil {
		return errClosed("Save")
	}
	rc, errno := capi.Save(f.h, path)
	ref.release()
	runtime.KeepAlive(f)
	if rc != 0 {
		e := &Error{Op: "Save", Path: path, Code: rc}
		if errno != 0 {
			e.Err = errno
		}
		return e
	}
	return nil
}

// OpenFlag chooses how Open maps a file; flags combine with |.
type OpenFlag uint32

const (
	// OpenReadOnly (the default) maps the file read-only: writes fail with ErrReadOnly.
	OpenReadOnly OpenFlag = 0
	// VerifyChecksum checks the checksum over the whole file (O(size)) before returning;
	// without it, Open is O(1) whatever the size: only the header is read and checked.
	VerifyChecksum OpenFlag = 0x1
	// OpenCopyOnWrite maps the file privately and writably: adds work but never reach the file.
	OpenCopyOnWrite OpenFlag = 0x2
	// OpenReadWrite maps the file shared and writably: adds persist; Sync or Close rewrites
	// the header's checksums. A growing filter's file grows with it: the stages its adds append
	// go to the file's end (ErrUnsupported only for a chain file of the first form, whose table
	// has no place for another stage: open it with OpenCopyOnWrite and Save it again).
	OpenReadWrite OpenFlag = 0x4
)

// Open opens a saved filter by mmap. Without VerifyChecksum it is O(1): the header is
// validated and pages load on first use. Errors: those of Unmarshal, plus ErrIO (with the
// system error: errors.Is(err, fs.ErrNotExist) works) and ErrInvalid (conflicting flags).
//
// The file must not be truncated or rewritten in place while the filter is open, by this
// process or another: the filter reads the file's pages themselves. A read past the file's new
// end raises SIGBUS, which kills the program (a file truncated to 0 bytes, or a large one to
// its header), and the rest of its last page reads as zeros, so Test silently answers false
// (every key of a small filter truncated to its 128-byte header). Copying over the file in
// place (cp, a shell > redirection, any open with O_TRUNC) truncates it first. To update a file
// that is open, replace it instead: Save writes a temporary file and renames it over the path,
// so the open filter keeps the old file, which stays valid until Close; Open the path again to
// read the new one. (A filter opened with OpenReadWrite then writes to the old file, which is
// gone once closed.)
func Open(path string, flags ...OpenFlag) (*Filter, error) {
	var fl OpenFlag
	for _, x := range flags {
		fl |= x
	}
	h, rc, errno := capi.Open(path, uint32(fl))
	if rc != 0 {
		e := &Error{Op: "Open", Path: path, Code: rc}
		if errno != 0 {
			e.Err = errno
		}
		return nil, e
	}
	return newFilter(h)
}

// Seal makes a stale file (see ErrStale: a writer opened it with OpenReadWrite and was killed
// before Sync or Close) pass VerifyChecksum again. Without a current checksum it checks what it
// can: the header, the size, and the fill against the inserted-key estimate the header stored
// when the writer opened it (adds only set bits, so the bits must estimate at least as many
// keys); then it rewrites the estimate and both checksums, clears the stale mark and flushes the
// file, as Sync does. A file that is not stale is only verified and never written: nil, or
// ErrChecksum (corruption is never sealed over). Fewer keys than stored is ErrCorrupt, nothing
// written. Errors also: those of Open (ErrIO with the system error, ErrBadMagic, ...).
//
// Do not seal a file that a writer still has open with OpenReadWrite: the stale mark cannot
// tell a killed writer from a running one, and that writer's later adds would go unmarked.
//
// A growing filter's file is sealed stage by stage, and its table rewritten.
func Seal(path string) error {
	rc, errno := capi.Seal(path)
	if rc != 0 {
		e := &Error{Op: "Seal", Path: path, Code: rc}
		if errno != 0 {
			e.Err = errno
		}
		return e
	}
	return nil
}

// Sync, for a filter opened with OpenReadWrite, rewrites the file's header (checksums,
// inserted-key estimate) and flushes the mapping to the file. For other filters it does
// nothing. Do not call it while other goroutines add to the filter.
func (f *Filter) Sync() error {
	ref := f.acquire()
	if ref == nil {
		return errClosed("Sync")
	}
	rc := capi.Abloom_sync(f.h)
	ref.release()
	runtime.KeepAlive(f)
	return newError("Sync", rc)
}
