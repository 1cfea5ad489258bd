package capi

// Hand-written cgo for abloom_get_memory, abloom_get_stage_memory and abloom_get_writable_shards
// (direct access to a filter's bits, for the Go-native single-key path), and for a growing
// filter's stage count. SWIG is told to ignore them (abloom.i): the Go side wants the shard
// pointers as a Go slice, read once when the handle is made (a growing filter's: once per stage,
// when the stage appears).

/*
#include <abloom.h>
#include <stdint.h>

static int abloomgo_get_memory(uintptr_t f, abloom_memory *m) {
  int rc = abloom_memory_init(m);
  if (rc != ABLOOM_OK) return rc;
  return abloom_get_memory((const abloom_filter *)f, m);
}
static int abloomgo_get_stage_memory(uintptr_t f, uint32_t stage, abloom_memory *m) {
  int rc = abloom_memory_init(m);
  if (rc != ABLOOM_OK) return rc;
  return abloom_get_stage_memory((const abloom_filter *)f, stage, m);
}
// The stage count now (1 for a fixed filter), or a negative code: one call, where the SWIG
// abloom_info would cost a cgo call per field.
static int abloomgo_stages(uintptr_t f) {
  abloom_info i;
  int rc = abloom_info_init(&i);
  if (rc == ABLOOM_OK) rc = abloom_get_stage_info((const abloom_filter *)f, 0, &i);
  return rc == ABLOOM_OK ? (int)i.stages : rc;
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
	fromC(&cm, m)
	return 0
}

// GetStageMemory calls abloom_get_stage_memory on the handle f: stage `stage` (0 = the oldest)
// of a growing filter, whose memory stays where it is until abloom_free.
func GetStageMemory(f uintptr, stage uint32, m *Memory) int {
	var cm C.abloom_memory
	if rc := int(C.abloomgo_get_stage_memory(C.uintptr_t(f), C.uint32_t(stage), &cm)); rc != 0 {
		return rc
	}
	fromC(&cm, m)
	return 0
}

// Stages is a filter's stage count now (abloom_get_stage_info's `stages`; 1 for a fixed filter),
// or a negative code.
func Stages(f uintptr) int {
	return int(C.abloomgo_stages(C.uintptr_t(f)))
}

// fromC converts an abloom_memory, copying its shard pointers into Go memory.
func fromC(cm *C.abloom_memory, m *Memory) {
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
