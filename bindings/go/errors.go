package abloom

import (
	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// The C API's error codes (capi/abloom.h). They are part of the stable ABI.
const (
	codeNull        = -1
	codeInvalid     = -2
	codeRange       = -3
	codeNoMem       = -4
	codeMismatch    = -5
	codeInternal    = -6
	codeReadOnly    = -7
	codeBadMagic    = -8
	codeVersion     = -9
	codeUnsupported = -10
	codeTruncated   = -11
	codeCorrupt     = -12
	codeChecksum    = -13
	codeAlignment   = -14
	codeIO          = -15
	codeTooSmall    = -16
	codeStale       = -17

	// codeClosed is the Go binding's own: not a C code.
	codeClosed = 1
)

// Error is the error type of every failing call in this package. It carries the C API's error
// code, the operation that failed and, for file operations, the path and the system error
// (an [syscall.Errno], reachable with [errors.Unwrap], so errors.Is(err, fs.ErrNotExist) works).
//
// Compare errors with [errors.Is] against the sentinels (ErrCorrupt, ErrIncompatible, ...),
// never with ==: a returned *Error is a new value that also names the operation.
type Error struct {
	// Op is the operation that failed, e.g. "New", "Open", "Union"; empty in the sentinels.
	Op string
	// Path is the file involved, for Save and Open; empty otherwise.
	Path string
	// Code is the C API's ABLOOM_ERR_* code (negative), or 1 for ErrClosed.
	Code int
	// Err is the underlying system error of an I/O failure, or nil.
	Err error
}

func (e *Error) message() string {
	if e.Code == codeClosed {
		return "filter is closed (or was never initialised)"
	}
	return capi.Strerror(e.Code)
}

// Error formats the error as "abloom: OP PATH: MESSAGE: SYSTEM ERROR", leaving out the parts
// that are empty.
func (e *Error) Error() string {
	s := "abloom: "
	if e.Op != "" {
		s += e.Op
		if e.Path != "" {
			s += " " + e.Path
		}
		s += ": "
	}
	s += e.message()
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying system error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether e matches target: a sentinel with the same code, or ErrCorrupt for any
// error meaning the bytes are not a valid filter (bad magic, truncated, corrupt, checksum).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || t.Op != "" || t.Path != "" || t.Err != nil {
		return false
	}
	if t.Code == e.Code {
		return true
	}
	if t.Code == codeCorrupt {
		switch e.Code {
		case codeBadMagic, codeTruncated, codeChecksum:
			return true
		}
	}
	return false
}

// Sentinel errors, to test with [errors.Is].
var (
	// ErrClosed: the filter was closed (or is a zero Filter never initialised).
	ErrClosed = &Error{Code: codeClosed}
	// ErrInvalid: an argument is outside its domain (capacity 0, FPR not in (0,1), bad shard
	// count, a results slice shorter than the keys, ...).
	ErrInvalid = &Error{Code: codeInvalid}
	// ErrRange: the requested filter is too large.
	ErrRange = &Error{Code: codeRange}
	// ErrNoMem: memory allocation failed in the C library.
	ErrNoMem = &Error{Code: codeNoMem}
	// ErrIncompatible: two filters do not have the same shape (kind, k, shards, blocks per
	// shard, seed), so they cannot be combined or compared (C: ABLOOM_ERR_MISMATCH).
	ErrIncompatible = &Error{Code: codeMismatch}
	// ErrInternal: an unexpected failure inside the library (a bug).
	ErrInternal = &Error{Code: codeInternal}
	// ErrReadOnly: a write to a filter opened read-only.
	ErrReadOnly = &Error{Code: codeReadOnly}
	// ErrCorrupt: the bytes are not a valid filter. It matches the more precise
	// ErrBadMagic, ErrTruncated and ErrChecksum too, and header inconsistencies.
	ErrCorrupt = &Error{Code: codeCorrupt}
	// ErrBadMagic: the data does not start with the abloom magic bytes.
	ErrBadMagic = &Error{Code: codeBadMagic}
	// ErrTruncated: the data is shorter than its header says.
	ErrTruncated = &Error{Code: codeTruncated}
	// ErrChecksum: the checksum over header and body does not match.
	ErrChecksum = &Error{Code: codeChecksum}
	// ErrVersion: a format version this library does not read.
	ErrVersion = &Error{Code: codeVersion}
	// ErrUnsupported: a kind, bit layout or hash id this library does not know, or a call that
	// a growing filter does not support (Intersect, Open with OpenReadWrite, Seal).
	ErrUnsupported = &Error{Code: codeUnsupported}
	// ErrIO: a file system call failed; the *Error's Err field holds the system error.
	ErrIO = &Error{Code: codeIO}
	// ErrStale: a checked read (VerifyChecksum, Unmarshal) of a file that a writer opened with
	// OpenReadWrite and never synced (killed, or still running). Not corruption, so it does not
	// match ErrCorrupt: the bits are valid (adds only set bits), only the checksums are not
	// current. Open it without VerifyChecksum (Info().Stale is then true), or Seal it.
	ErrStale = &Error{Code: codeStale}
)

// newError wraps a C return code (negative) as an *Error; rc >= 0 gives nil.
func newError(op string, rc int) error {
	if rc >= 0 {
		return nil
	}
	return &Error{Op: op, Code: rc}
}

// errClosed is the error of an operation on a closed filter.
func errClosed(op string) error { return &Error{Op: op, Code: codeClosed} }

// errReadOnly is the error of a write to a read-only filter (a file opened read-only), the one
// abloom_add would return.
func errReadOnly(op string) error { return &Error{Op: op, Code: codeReadOnly} }

// panicClosed is how methods without an error result report use after Close: the panic value
// is an *Error matching ErrClosed, whose message names the method.
func panicClosed(op string) {
	panic(errClosed(op))
}
