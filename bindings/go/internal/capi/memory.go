package capi

// Hand-written cgo for abloom_get_memory and abloom_get_writable_shards (direct access to a
// filter's bits, for the Go-native single-key path). SWIG is told to ignore them (abloom.i): the
// Go side wants the shard pointers as a Go slice, read once when the handle is made.

/*
#include <abloom.h>
#include <stdint.h>

static int abloomgo_get_memory(uintptr_t f, abloom_memory *m) {
  int rc = abloom_memory_init(m);
  if (rc != ABLOOM_OK) return rc;
  return abloom_get_memory((const abloom_filter *)f, m);
}
static uint64_t *const *abloomgo_get_writable_shards(uintptr_t f, int *rc) {
  uint64_t *const *shards = NULL;
  *rc = abloom_get_writable_shards((abloom_filter *)f, &shards);
  return shards;
}
*/
import "C"

import "unsafe"

// Memory is abloom_memory in Go form: the shape of a filter's bits and its shard pointers (C
// memory, valid until abloom_free).
type Memory struct {
	Kind, Layout, HashID, K, ShardBits uint32
	BlocksPerShard, Seed               uint64
	ReadOnly                           uint32
	Shards                             []unsafe.Pointer
}

// GetMemory calls abloom_get_memory on the handle f.
func GetMemory(f uintptr, m *Memory) int {
	var cm C.abloom_memory
	if rc := int(C.abloomgo_get_memory(C.uintptr_t(f), &cm)); rc != 0 {
		return rc
	}
	ptrs := unsafe.Slice((*unsafe.Pointer)(unsafe.Pointer(cm.shard_words)), int(cm.shards))
	*m = Memory{
		Kind:           uint32(cm.kind),
		Layout:         uint32(cm.layout),
		HashID:         uint32(cm.hash_id),
		K:              uint32(cm.k),
		ShardBits:      uint32(cm.shard_bits),
		BlocksPerShard: uint64(cm.blocks_per_shard),
		Seed:           uint64(cm.seed),
		ReadOnly:       uint32(cm.read_only),
		Shards:         append([]unsafe.Pointer(nil), ptrs...),
	}
	return 0
}

// GetWritableShards calls abloom_get_writable_shards on the handle f, whose shard count is n.
func GetWritableShards(f uintptr, n int) ([]unsafe.Pointer, int) {
	var rc C.int
	shards := C.abloomgo_get_writable_shards(C.uintptr_t(f), &rc)
	if rc != 0 {
		return nil, int(rc)
	}
	ptrs := unsafe.Slice((*unsafe.Pointer)(unsafe.Pointer(shards)), n)
	return append([]unsafe.Pointer(nil), ptrs...), 0
}
