package capi

// Hand-written cgo for the calls whose cost is dominated by the cgo transition itself: single
// keys and packed batches (one call each), plus save/open, which need errno.
//
// The SWIG wrappers above are correct but go through a generated Go function that copies the
// slice header and passes it to a C wrapper that unpacks it, and the key escapes to the heap
// (cgo must assume C keeps it). Here the key pointer goes straight to a static inline C
// function marked `#cgo noescape` (the pointer is not retained, so stack keys stay on the stack
// and nothing is allocated) and `#cgo nocallback` (C never calls back into Go, so the runtime
// skips preparing for it). bench_test.go in internal/capi measures both paths.

/*
#cgo pkg-config: abloom
#cgo noescape abloomgo_add
#cgo nocallback abloomgo_add
#cgo noescape abloomgo_test
#cgo nocallback abloomgo_test
#cgo noescape abloomgo_test_and_add
#cgo nocallback abloomgo_test_and_add
#cgo noescape abloomgo_add_packed
#cgo nocallback abloomgo_add_packed
#cgo noescape abloomgo_test_packed
#cgo nocallback abloomgo_test_packed
#cgo nocallback abloomgo_save
#cgo nocallback abloomgo_open
#include <abloom.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static inline int abloomgo_add(uintptr_t f, const void *key, size_t len) {
  return abloom_add((abloom_filter *)f, key, len);
}
static inline int abloomgo_test(uintptr_t f, const void *key, size_t len) {
  return abloom_test((const abloom_filter *)f, key, len);
}
static inline int abloomgo_test_and_add(uintptr_t f, const void *key, size_t len) {
  return abloom_test_and_add((abloom_filter *)f, key, len);
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
// errno is reset so that a stale value never reaches the Go error.
static int abloomgo_save(uintptr_t f, const char *path, int *err) {
  errno = 0;
  int rc = abloom_save((const abloom_filter *)f, path);
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
	"syscall"
	"unsafe"
)

// bytesPtr is the address of key's bytes, or nil for an empty key (the C API accepts a NULL
// key only with length 0, and a zero-length slice may point one past its array).
func bytesPtr(key []byte) unsafe.Pointer {
	if len(key) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(key))
}

func stringPtr(key string) unsafe.Pointer {
	if len(key) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.StringData(key))
}

// Add is abloom_add.
func Add(f uintptr, key []byte) int {
	return int(C.abloomgo_add(C.uintptr_t(f), bytesPtr(key), C.size_t(len(key))))
}

// AddString is abloom_add over a string's bytes (no copy).
func AddString(f uintptr, key string) int {
	return int(C.abloomgo_add(C.uintptr_t(f), stringPtr(key), C.size_t(len(key))))
}

// Test is abloom_test.
func Test(f uintptr, key []byte) int {
	return int(C.abloomgo_test(C.uintptr_t(f), bytesPtr(key), C.size_t(len(key))))
}

// TestString is abloom_test over a string's bytes (no copy).
func TestString(f uintptr, key string) int {
	return int(C.abloomgo_test(C.uintptr_t(f), stringPtr(key), C.size_t(len(key))))
}

// TestAndAdd is abloom_test_and_add.
func TestAndAdd(f uintptr, key []byte) int {
	return int(C.abloomgo_test_and_add(C.uintptr_t(f), bytesPtr(key), C.size_t(len(key))))
}

// TestAndAddString is abloom_test_and_add over a string's bytes (no copy).
func TestAndAddString(f uintptr, key string) int {
	return int(C.abloomgo_test_and_add(C.uintptr_t(f), stringPtr(key), C.size_t(len(key))))
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

// Save is abloom_save; errno is the system error behind ABLOOM_ERR_IO (0 otherwise).
func Save(f uintptr, path string) (rc int, errno syscall.Errno) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var e C.int
	rc = int(C.abloomgo_save(C.uintptr_t(f), cpath, &e))
	return rc, syscall.Errno(e)
}

// Open is abloom_open; errno is the system error behind ABLOOM_ERR_IO (0 otherwise).
func Open(path string, flags uint32) (f uintptr, rc int, errno syscall.Errno) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var out C.uintptr_t
	var e C.int
	rc = int(C.abloomgo_open(cpath, C.uint32_t(flags), &out, &e))
	return uintptr(out), rc, syscall.Errno(e)
}

// Strerror is abloom_strerror: a static English message for any code.
func Strerror(code int) string {
	return C.GoString(C.abloom_strerror(C.int(code)))
}

// VersionString is abloom_version_string: the library's runtime version, "MAJOR.MINOR.PATCH".
func VersionString() string {
	return C.GoString(C.abloom_version_string())
}
