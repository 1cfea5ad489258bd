package capi

// Hand-written cgo for the calls whose cost is dominated by the cgo transition itself (single
// keys and packed batches, one call each), plus save/open, which need errno, and the two static
// strings.
//
// The SWIG wrappers (capi.go) are correct but slower per call: a generated Go function passes
// the slice header by pointer to a C wrapper that unpacks it, and cgo checks every pointer
// argument at run time. Here the calls go straight to static inline C functions marked
// `#cgo nocallback` (C never calls back into Go, so the runtime skips preparing for it) and,
// where a pointer is passed, `#cgo noescape` (it is not retained, so a stack key stays on the
// stack and nothing is allocated). bench_test.go measures both paths.

/*
#cgo nocallback abloomgo_add
#cgo nocallback abloomgo_test
#cgo nocallback abloomgo_test_and_add
#cgo nocallback abloomgo_test_hash
#cgo nocallback abloomgo_test_and_add_hash
#cgo nocallback abloomgo_grow_test_and_add_hash
#cgo noescape abloomgo_add_packed
#cgo nocallback abloomgo_add_packed
#cgo noescape abloomgo_test_packed
#cgo nocallback abloomgo_test_packed
#cgo noescape abloomgo_test_and_add_packed
#cgo nocallback abloomgo_test_and_add_packed
#cgo nocallback abloomgo_save
#cgo nocallback abloomgo_open
#include <abloom.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

// Single keys: the key's address arrives as an integer (see keyAddr below).
static inline int abloomgo_add(uintptr_t f, uintptr_t key, size_t len) {
  return abloom_add((abloom_filter *)f, (const void *)key, len);
}
static inline int abloomgo_test(uintptr_t f, uintptr_t key, size_t len) {
  return abloom_test((const abloom_filter *)f, (const void *)key, len);
}
static inline int abloomgo_test_and_add(uintptr_t f, uintptr_t key, size_t len) {
  return abloom_test_and_add((abloom_filter *)f, (const void *)key, len);
}
// A key's hash, computed in Go: a growing filter's single-key adds (its tests probe its stages
// in Go), and the tests' reference path.
static inline int abloomgo_test_hash(uintptr_t f, uint64_t h) {
  return abloom_test_hash((const abloom_filter *)f, h);
}
static inline int abloomgo_test_and_add_hash(uintptr_t f, uint64_t h) {
  return abloom_test_and_add_hash((abloom_filter *)f, h);
}
// A growing filter's single-key add: test-and-add of the hash, then the stage count read after
// it (every stage the key went to is below it), in one cgo call: the stage count shifted left
// once, bit 0 set if the key was already present; or a negative code. `known` is the count the
// caller has seen: most adds append no stage, and asking for stage `known` then fails at once
// (ABLOOM_ERR_RANGE), where describing stage 0 for its count slowed every add (bench/RESULTS.md).
static inline int64_t abloomgo_grow_test_and_add_hash(uintptr_t f, uint64_t h, uint32_t known) {
  abloom_info i;
  int rc = abloom_test_and_add_hash((abloom_filter *)f, h), info_rc;
  if (rc < 0) return rc;
  i.struct_size = sizeof i;
  info_rc = abloom_get_stage_info((const abloom_filter *)f, known, &i);
  if (info_rc == ABLOOM_ERR_RANGE) i.stages = known;  // no stage appended since
  else if (info_rc != ABLOOM_OK) return info_rc;
  return ((int64_t)i.stages << 1) | (rc == 1 ? 1 : 0);
}
static inline int abloomgo_add_packed(uintptr_t f, const void *buf, size_t buf_len,
                                      const uint64_t *offsets, size_t n, uint64_t *added) {
  return abloom_add_packed((abloom_filter *)f, buf, buf_len, offsets, n, added);
}
static inline int abloomgo_test_packed(uintptr_t f, const void *buf, size_t buf_len,
                                       const uint64_t *offsets, size_t n, uint8_t *results,
                                       uint64_t *found) {
  return abloom_test_packed((const abloom_filter *)f, buf, buf_len, offsets, n, results, found);
}
static inline int abloomgo_test_and_add_packed(uintptr_t f, const void *buf, size_t buf_len,
                                               const uint64_t *offsets, size_t n,
                                               uint8_t *results, uint64_t *added) {
  return abloom_test_and_add_packed((abloom_filter *)f, buf, buf_len, offsets, n, results, added);
}
// errno is reset so that a stale value never reaches the Go error.
static int abloomgo_save(uintptr_t f, const char *path, int *err) {
  errno = 0;
  int rc = abloom_save((const abloom_filter *)f, path);
  *err = rc == ABLOOM_ERR_IO ? errno : 0;
  return rc;
}
static int abloomgo_seal(const char *path, int *err) {
  errno = 0;
  int rc = abloom_seal(path);
  *err = rc == ABLOOM_ERR_IO ? errno : 0;
  return rc;
}
static int abloomgo_open(const char *path, uint32_t flags, uintptr_t *out, int *err) {
  abloom_filter *f = NULL;
  errno = 0;
  int rc = abloom_open(path, flags, &f);
  *err = rc == ABLOOM_ERR_IO ? errno : 0;
  if (rc == ABLOOM_OK) *out = (uintptr_t)f;
  return rc;
}
*/
import "C"

import (
	"runtime"
	"syscall"
	"unsafe"
)

// bytesPtr is the address of a byte slice, or nil for an empty one (the C API accepts a NULL
// key only with length 0, and a zero-length slice may point one past its array).
func bytesPtr(key []byte) unsafe.Pointer {
	if len(key) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(key))
}

// Single-key calls pass the key's address as a C integer, not as a pointer. A pointer
// argument makes the runtime's cgocheck walk it before every call (to prove the memory holds
// no Go pointers); that walk cost more than the C library's own Test (bench/JOURNAL.md, "Go
// binding (issue 5)"), and a byte key can never hold Go pointers. The rules cgocheck enforces
// still hold: the bytes hold no Go pointers, C does not keep the address, and the key is kept
// alive past the call with runtime.KeepAlive. Go never moves heap memory, and a goroutine's
// stack is neither grown nor shrunk while it is inside a C call, so the address stays valid for
// the call.
func keyAddr(key []byte) C.uintptr_t {
	if len(key) == 0 {
		return 0
	}
	return C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(key))))
}

func strAddr(key string) C.uintptr_t {
	if len(key) == 0 {
		return 0
	}
	return C.uintptr_t(uintptr(unsafe.Pointer(unsafe.StringData(key))))
}

// Add is abloom_add.
func Add(f uintptr, key []byte) int {
	rc := C.abloomgo_add(C.uintptr_t(f), keyAddr(key), C.size_t(len(key)))
	runtime.KeepAlive(key)
	return int(rc)
}

// AddString is abloom_add over a string's bytes (no copy).
func AddString(f uintptr, key string) int {
	rc := C.abloomgo_add(C.uintptr_t(f), strAddr(key), C.size_t(len(key)))
	runtime.KeepAlive(key)
	return int(rc)
}

// Test is abloom_test.
func Test(f uintptr, key []byte) int {
	rc := C.abloomgo_test(C.uintptr_t(f), keyAddr(key), C.size_t(len(key)))
	runtime.KeepAlive(key)
	return int(rc)
}

// TestString is abloom_test over a string's bytes (no copy).
func TestString(f uintptr, key string) int {
	rc := C.abloomgo_test(C.uintptr_t(f), strAddr(key), C.size_t(len(key)))
	runtime.KeepAlive(key)
	return int(rc)
}

// TestAndAdd is abloom_test_and_add.
func TestAndAdd(f uintptr, key []byte) int {
	rc := C.abloomgo_test_and_add(C.uintptr_t(f), keyAddr(key), C.size_t(len(key)))
	runtime.KeepAlive(key)
	return int(rc)
}

// TestAndAddString is abloom_test_and_add over a string's bytes (no copy).
func TestAndAddString(f uintptr, key string) int {
	rc := C.abloomgo_test_and_add(C.uintptr_t(f), strAddr(key), C.size_t(len(key)))
	runtime.KeepAlive(key)
	return int(rc)
}

// TestHash is abloom_test_hash.
func TestHash(f uintptr, h uint64) int {
	return int(C.abloomgo_test_hash(C.uintptr_t(f), C.uint64_t(h)))
}

// TestAndAddHash is abloom_test_and_add_hash.
func TestAndAddHash(f uintptr, h uint64) int {
	return int(C.abloomgo_test_and_add_hash(C.uintptr_t(f), C.uint64_t(h)))
}

// GrowTestAndAddHash is abloom_test_and_add_hash on a growing filter, and its stage count read
// after the add: rc is the add's (1 present, 0 new, or a negative code, stages 0 then). known is
// a stage count the caller has seen (at most the count now): the answer when none was appended.
func GrowTestAndAddHash(f uintptr, h uint64, known uint32) (rc int, stages uint32) {
	r := int64(C.abloomgo_grow_test_and_add_hash(C.uintptr_t(f), C.uint64_t(h), C.uint32_t(known)))
	if r < 0 {
		return int(r), 0
	}
	return int(r & 1), uint32(r >> 1)
}

// AddPacked is abloom_add_packed over the first n keys of buf/offs. The caller guarantees
// len(offs) > n; the C side checks the offsets against len(buf).
func AddPacked(f uintptr, buf []byte, offs []uint64, n int) (added uint64, rc int) {
	if n == 0 {
		return 0, int(C.abloomgo_add_packed(C.uintptr_t(f), nil, 0, nil, 0, nil))
	}
	rc = int(C.abloomgo_add_packed(C.uintptr_t(f), bytesPtr(buf), C.size_t(len(buf)),
		(*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(offs))), C.size_t(n),
		(*C.uint64_t)(unsafe.Pointer(&added))))
	return added, rc
}

// TestPacked is abloom_test_packed: results must point at n writable bytes, each set to 0 or 1
// (so a *bool of a []bool works). The caller guarantees len(offs) > n.
func TestPacked(f uintptr, buf []byte, offs []uint64, n int, results unsafe.Pointer) (found uint64, rc int) {
	if n == 0 {
		return 0, int(C.abloomgo_test_packed(C.uintptr_t(f), nil, 0, nil, 0, nil, nil))
	}
	rc = int(C.abloomgo_test_packed(C.uintptr_t(f), bytesPtr(buf), C.size_t(len(buf)),
		(*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(offs))), C.size_t(n),
		(*C.uint8_t)(results), (*C.uint64_t)(unsafe.Pointer(&found))))
	return found, rc
}

// TestAndAddPacked is abloom_test_and_add_packed: results must point at n writable bytes, each
// set to 1 (the key was present) or 0 (new), so a *bool of a []bool works. The caller guarantees
// len(offs) > n.
func TestAndAddPacked(f uintptr, buf []byte, offs []uint64, n int, results unsafe.Pointer) (added uint64, rc int) {
	if n == 0 {
		return 0, int(C.abloomgo_test_and_add_packed(C.uintptr_t(f), nil, 0, nil, 0, nil, nil))
	}
	rc = int(C.abloomgo_test_and_add_packed(C.uintptr_t(f), bytesPtr(buf), C.size_t(len(buf)),
		(*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(offs))), C.size_t(n),
		(*C.uint8_t)(results), (*C.uint64_t)(unsafe.Pointer(&added))))
	return added, rc
}

// Save is abloom_save; errno is the system error behind ABLOOM_ERR_IO (0 otherwise).
func Save(f uintptr, path string) (rc int, errno syscall.Errno) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var e C.int
	rc = int(C.abloomgo_save(C.uintptr_t(f), cpath, &e))
	return rc, goErrno(e)
}

// Open is abloom_open; errno is the system error behind ABLOOM_ERR_IO (0 otherwise).
func Open(path string, flags uint32) (f uintptr, rc int, errno syscall.Errno) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var out C.uintptr_t
	var e C.int
	rc = int(C.abloomgo_open(cpath, C.uint32_t(flags), &out, &e))
	return uintptr(out), rc, goErrno(e)
}

// Seal is abloom_seal; errno is the system error behind ABLOOM_ERR_IO (0 otherwise).
func Seal(path string) (rc int, errno syscall.Errno) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var e C.int
	rc = int(C.abloomgo_seal(cpath, &e))
	return rc, goErrno(e)
}

// Strerror is abloom_strerror: a static English message for any code.
func Strerror(code int) string {
	return C.GoString(C.abloom_strerror(C.int(code)))
}

// VersionString is abloom_version_string: the library's runtime version, "MAJOR.MINOR.PATCH".
func VersionString() string {
	return C.GoString(C.abloom_version_string())
}
