package capi

import (
	"fmt"
	"strings"
	"testing"
)

// The typemaps of abloom.i: handles as uintptr, out-parameters as slices, byte ranges as
// []byte. The public package's tests cover the behaviour; these pin the mapping itself.

func TestOutHandleNeedsAnElement(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "out must have at least one element") {
			t.Fatalf("recovered %v", r)
		}
	}()
	Abloom_new(100, 0.01, nil)
}

func TestEmptyOutSliceIsNULL(t *testing.T) {
	out := []uintptr{0}
	if rc := Abloom_new(100, 0.01, out); rc != ABLOOM_OK || out[0] == 0 {
		t.Fatalf("Abloom_new = %d, %x", rc, out[0])
	}
	defer Abloom_free(out[0])
	if rc := Abloom_serialized_size(out[0], nil); rc != ABLOOM_ERR_NULL {
		t.Fatalf("serialized_size with no out = %d, want ABLOOM_ERR_NULL", rc)
	}
	size := []uint64{0}
	if rc := Abloom_serialized_size(out[0], size); rc != ABLOOM_OK || size[0] < uint64(ABLOOM_HEADER_BYTES) {
		t.Fatalf("serialized_size = %d, %d", rc, size[0])
	}
	// serialize into a buffer one byte short: TOO_SMALL, nothing written.
	buf := make([]byte, size[0]-1)
	if rc := Abloom_serialize(out[0], buf, nil); rc != ABLOOM_ERR_TOO_SMALL {
		t.Fatalf("serialize into a short buffer = %d", rc)
	}
}

func TestSWIGAndFastPathsAgree(t *testing.T) {
	out := []uintptr{0}
	if rc := Abloom_new(1000, 0.01, out); rc != 0 {
		t.Fatal(Strerror(rc))
	}
	f := out[0]
	defer Abloom_free(f)
	keys := []string{"", "a", "bb", "ccc", "dddd"}
	var buf []byte
	offs := []uint64{0}
	for _, k := range keys[:3] {
		buf = append(buf, k...)
		offs = append(offs, uint64(len(buf)))
	}
	added := []uint64{0}
	if rc := Abloom_add_packed(f, buf, offs, 3, added); rc != 0 || added[0] != 3 {
		t.Fatalf("SWIG add_packed = %d, %d", rc, added[0])
	}
	if rc := Add(f, []byte(keys[3])); rc != 0 {
		t.Fatal(Strerror(rc))
	}
	for i, k := range keys {
		want := 1
		if i == 4 {
			want = 0
		}
		if Abloom_test(f, []byte(k)) != want || Test(f, []byte(k)) != want || TestString(f, k) != want {
			t.Fatalf("key %q: SWIG %d, fast %d", k, Abloom_test(f, []byte(k)), Test(f, []byte(k)))
		}
	}
	// Bad offsets are rejected by both.
	bad := []uint64{0, 5, 2}
	if rc := Abloom_add_packed(f, buf, bad, 2, nil); rc != ABLOOM_ERR_INVALID {
		t.Fatalf("SWIG decreasing offsets = %d", rc)
	}
	if _, rc := AddPacked(f, buf, bad, 2); rc != ABLOOM_ERR_INVALID {
		t.Fatalf("fast decreasing offsets = %d", rc)
	}
	if _, rc := AddPacked(f, buf, []uint64{0, 100}, 1); rc != ABLOOM_ERR_INVALID {
		t.Fatalf("fast offset past the buffer = %d", rc)
	}
}

func TestStrings(t *testing.T) {
	if Strerror(ABLOOM_ERR_CORRUPT) == "" || Strerror(12345) != "unknown error code" {
		t.Fatalf("Strerror: %q %q", Strerror(ABLOOM_ERR_CORRUPT), Strerror(12345))
	}
	n := Abloom_version_number()
	if want := fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100); VersionString() != want {
		t.Fatalf("version string %q, number %d", VersionString(), n)
	}
}

// The hand-written calls over a growing filter's stages (memory.go, fast.go): the stage count
// each reports, the stages' memory, and a fixed filter as its own stage 0.
func TestStageCalls(t *testing.T) {
	o := NewAbloom_options()
	defer DeleteAbloom_options(o)
	Abloom_options_init(o)
	o.SetCapacity(10)
	o.SetFpr(0.01)
	o.SetGrowth(2)
	out := []uintptr{0}
	if rc := Abloom_create(o, out); rc != 0 {
		t.Fatal(Strerror(rc))
	}
	g := out[0]
	defer Abloom_free(g)
	if n := Stages(g); n != 1 {
		t.Fatalf("a new growing filter has %d stages", n)
	}
	var m Memory
	if rc := GetMemory(g, &m); rc != ABLOOM_ERR_UNSUPPORTED {
		t.Fatalf("GetMemory of a growing filter = %d", rc)
	}
	stages := uint32(1)
	for i := uint64(0); i < 100; i++ {
		// The count seen so far, or an older one (0): the count now either way.
		rc, n := GrowTestAndAddHash(g, i*0x9E3779B97F4A7C15, uint32(i%2)*stages)
		if rc < 0 || n < stages || n != uint32(Stages(g)) {
			t.Fatalf("add %d: rc %d, %d stages (%d before, %d now)", i, rc, n, stages, Stages(g))
		}
		stages = n
	}
	if rc, n := GrowTestAndAddHash(g, 0, stages); rc != 1 || n != stages {
		t.Fatalf("GrowTestAndAddHash of a key added: rc %d, %d stages", rc, n)
	}
	if stages < 3 {
		t.Fatalf("100 keys in stages from 10: only %d stages", stages)
	}
	for i := uint32(0); i < stages; i++ {
		if rc := GetStageMemory(g, i, &m); rc != 0 || len(m.Shards) != 1<<m.ShardBits || m.Shards[0] == nil {
			t.Fatalf("stage %d: rc %d, %+v", i, rc, m)
		}
	}
	if rc := GetStageMemory(g, stages, &m); rc != ABLOOM_ERR_RANGE {
		t.Fatalf("GetStageMemory past the last stage = %d", rc)
	}

	if rc := Abloom_new(1000, 0.01, out); rc != 0 {
		t.Fatal(Strerror(rc))
	}
	f := out[0]
	defer Abloom_free(f)
	var whole, stage0 Memory
	if Stages(f) != 1 || GetMemory(f, &whole) != 0 || GetStageMemory(f, 0, &stage0) != 0 ||
		whole.Shards[0] != stage0.Shards[0] || whole.K != stage0.K || whole.BlocksPerShard != stage0.BlocksPerShard {
		t.Fatalf("a fixed filter's stage 0 %+v differs from its memory %+v", stage0, whole)
	}
	if rc := GetStageMemory(f, 1, &m); rc != ABLOOM_ERR_RANGE {
		t.Fatalf("a fixed filter's stage 1 = %d", rc)
	}
	if rc := Stages(0); rc != ABLOOM_ERR_NULL {
		t.Fatalf("Stages(NULL) = %d", rc)
	}
}
