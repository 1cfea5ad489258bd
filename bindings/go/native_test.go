package abloom

// The Go-native single-key path (native.go) against the C library: the same hash, the same
// answers, the same bytes, on every kind, layout, shard count and storage, alone and with C
// writers on the same filter at once.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/abloom/abloom/bindings/go/internal/capi"
	"github.com/zeebo/xxh3"
)

// cHash is abloom_hash: XXH3-64 of key with f's seed, computed by the C library.
func cHash(t testing.TB, f *Filter, key []byte) uint64 {
	out := []uint64{0}
	if rc := capi.Abloom_hash(f.h, key, out); rc != 0 {
		t.Fatalf("abloom_hash: %d", rc)
	}
	return out[0]
}

// XXH3 in Go equals the C library's, for every length from 0 to 1024 and random seeds: every
// path of XXH3 (0, 1-3, 4-8, 9-16, 17-128, 129-240 bytes, and the long-key loop with its
// seed-derived secret).
func TestNativeHashMatchesC(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	buf := make([]byte, 1024)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	seeds := []uint64{0, 1, 0x9E3779B97F4A7C15, ^uint64(0), rng.Uint64(), rng.Uint64(), rng.Uint64()}
	for _, seed := range seeds {
		f := mustNew(t, 100, 0.01, WithSeed(seed))
		for n := 0; n <= 1024; n++ {
			key := buf[1024-n:] // every length, ending at the buffer's end (odd alignments too)
			want := cHash(t, f, key)
			if got := xxh3.HashSeed(key, seed); got != want {
				t.Fatalf("seed %#x, length %d: Go %#x, C %#x", seed, n, got, want)
			}
			if got := xxh3.HashStringSeed(string(key), seed); got != want {
				t.Fatalf("seed %#x, length %d (string): Go %#x, C %#x", seed, n, got, want)
			}
		}
		_ = f.Close()
	}
}

// randomKeys returns n keys of 0 to 300 bytes (a quarter longer than 16 bytes, where XXH3 takes
// its other paths).
func randomKeys(rng *rand.Rand, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		l := rng.IntN(17)
		if rng.IntN(4) == 0 {
			l = rng.IntN(301)
		}
		k := make([]byte, l)
		for j := range k {
			k[j] = byte(rng.Uint32())
		}
		out[i] = k
	}
	return out
}

type nativeShape struct {
	name    string
	opts    []Option
	goProbe bool // the split layout with the Go probe, where the assembly would run (split_amd64.go)
}

// probeFor makes the test use s's probe: the Go one when s.goProbe, until the test ends.
func probeFor(t *testing.T, s nativeShape) {
	if !s.goProbe {
		return
	}
	was := splitAsm.Load()
	splitAsm.Store(false)
	t.Cleanup(func() { splitAsm.Store(was) })
}

func nativeShapes() []nativeShape {
	var out []nativeShape
	for _, kind := range []struct {
		name string
		opts []Option
	}{
		{"distinct", []Option{WithKind(Blocked), WithLayout(LayoutDistinct)}},
		{"split", []Option{WithKind(Blocked), WithLayout(LayoutSplit)}},
		{"half", []Option{WithKind(Blocked), WithLayout(LayoutHalf)}},
		{"classic", []Option{WithKind(Classic)}},
	} {
		for _, shards := range []uint32{1, 4, 64} {
			for _, seed := range []uint64{0, 0xABCDEF0123456789} {
				opts := append(append([]Option(nil), kind.opts...), WithShards(shards), WithSeed(seed))
				out = append(out, nativeShape{
					name: kind.name + "/shards=" + uitoa(uint64(shards)) + "/seed=" + uitoa(seed),
					opts: opts,
				})
			}
		}
	}
	// A large k for the distinct layout: repeats among the first k candidates are common there.
	out = append(out, nativeShape{"distinct/k=40", []Option{WithLayout(LayoutDistinct), WithK(40), WithSeed(3)}, false})
	out = append(out, nativeShape{"split/k=16", []Option{WithLayout(LayoutSplit), WithK(16), WithSeed(4)}, false})
	// Where the split layout's probe is assembly, its Go probe too.
	if splitAsm.Load() {
		for _, sh := range out {
			if strings.HasPrefix(sh.name, "split") {
				out = append(out, nativeShape{"go-probe/" + sh.name, sh.opts, true})
			}
		}
	}
	return out
}

// The randomized cross-check: Go-native answers equal C answers (2M keys over all shapes, 400k
// under the race detector), and a filter filled by Go-native adds serializes to the
// bytes of one filled by C adds.
func TestNativeMatchesC(t *testing.T) {
	shapes := nativeShapes()
	// About 100k never-added keys per shape, each answer compared (Test and TestString); the race
	// detector's run pays for every key many times over, so it takes a fifth of that.
	perShape := 2_000_000/len(shapes) + 1
	if raceEnabled {
		perShape = 400_000/len(shapes) + 1
	}
	const capacity = 50_000
	rng := rand.New(rand.NewPCG(15, 2))
	total := 0
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			probeFor(t, s)
			goFilled := mustNew(t, capacity, 0.01, s.opts...)
			cFilled := mustNew(t, capacity, 0.01, s.opts...)
			added := randomKeys(rng, capacity)
			for _, k := range added {
				goNew, err := goFilled.TestAndAdd(k)
				if err != nil {
					t.Fatal(err)
				}
				rc := capi.TestAndAdd(cFilled.h, k)
				if rc < 0 || goNew != (rc == 1) {
					t.Fatalf("TestAndAdd of a %d-byte key: Go %v, C %d", len(k), goNew, rc)
				}
			}
			a, _ := goFilled.MarshalBinary()
			b, _ := cFilled.MarshalBinary()
			if !bytes.Equal(a, b) {
				t.Fatal("a filter filled by Go-native adds is not byte-identical to one filled by C adds")
			}
			positives := 0
			for _, k := range added {
				if !goFilled.Test(k) {
					t.Fatalf("false negative for a %d-byte key", len(k))
				}
			}
			probes := randomKeys(rng, perShape)
			for _, k := range probes {
				got := goFilled.Test(k)
				if want := capi.Test(goFilled.h, k) == 1; got != want {
					t.Fatalf("Test of a %d-byte key: Go %v, C %v", len(k), got, want)
				}
				if got != goFilled.TestString(string(k)) {
					t.Fatal("TestString differs from Test")
				}
				if got {
					positives++
				}
			}
			// Both answers occur, so the comparison above saw each.
			if positives == 0 || positives > len(probes)/5 {
				t.Fatalf("%d positives among %d never-added keys", positives, len(probes))
			}
			total += len(probes)
		})
	}
	t.Logf("%d keys compared, Go-native against C", total)
}

// Go-native adds in ExclusiveWriter mode (plain stores) give the same bytes too.
func TestNativeExclusiveAdds(t *testing.T) {
	for _, s := range nativeShapes() {
		if strings.HasPrefix(s.name, "classic") || strings.Contains(s.name, "/k=") {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			probeFor(t, s)
			shared := mustNew(t, 20_000, 0.01, s.opts...)
			excl := mustNew(t, 20_000, 0.01, s.opts...)
			if err := excl.SetWriterMode(ExclusiveWriter); err != nil {
				t.Fatal(err)
			}
			for i := range uint64(20_000) {
				k := key(i)
				want, _ := shared.TestAndAdd(k)
				got, err := excl.TestAndAdd(k)
				if err != nil || got != want {
					t.Fatalf("key %d: exclusive TestAndAdd %v (%v), shared %v", i, got, err, want)
				}
			}
			if !shared.Equal(excl) {
				t.Fatal("exclusive Go-native adds differ from shared ones")
			}
		})
	}
}

// C batch adds, Go-native adds and Go-native tests on one filter at once (run it under -race):
// every key added before a test is found, and the result has the bytes of a serial build.
func TestNativeConcurrentWithC(t *testing.T) {
	for _, layout := range []Layout{LayoutDistinct, LayoutSplit, LayoutHalf} {
		f := mustNew(t, 200_000, 0.01, WithLayout(layout), WithShards(4))
		serial := mustNew(t, 200_000, 0.01, WithLayout(layout), WithShards(4))
		all := keys(0, 200_000)
		if _, err := serial.AddBatch(all); err != nil {
			t.Fatal(err)
		}
		// The first 10,000 keys are added before the goroutines start; testers check them.
		for _, k := range all[:10_000] {
			_ = f.Add(k)
		}
		rest := all[10_000:]
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		part := len(rest) / 4
		for g := range 4 {
			chunk := rest[g*part : (g+1)*part]
			if g == 3 {
				chunk = rest[3*part:]
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if g%2 == 0 { // C batch adds
					for i := 0; i < len(chunk); i += 1000 {
						if _, err := f.AddBatch(chunk[i:min(i+1000, len(chunk))]); err != nil {
							errs <- err
							return
						}
					}
					return
				}
				for _, k := range chunk { // Go-native adds
					if err := f.Add(k); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for range 2 {
			wg.Add(1)
			go func() { // Go-native tests of keys added before
				defer wg.Done()
				for round := 0; round < 5; round++ {
					for _, k := range all[:10_000] {
						if !f.Test(k) {
							errs <- errors.New("false negative during concurrent adds")
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, k := range all {
			if !f.Test(k) {
				t.Fatal("false negative after concurrent adds")
			}
		}
		if !f.Equal(serial) {
			t.Fatalf("%v: concurrent Go and C adds differ from a serial build", layout)
		}
	}
}

// Every storage: a filter opened read-only refuses Go-native adds exactly as the C API does
// (ErrReadOnly, nothing written); copy-on-write and read-write mappings take them, and only the
// read-write one writes them to the file.
func TestNativeStorages(t *testing.T) {
	dir := testDir(t)
	path := filepath.Join(dir, "f.abloom")
	src := mustNew(t, 10_000, 0.01, WithLayout(LayoutSplit), WithShards(4))
	for i := range uint64(5000) {
		_ = src.Add(key(i))
	}
	if err := src.Save(path); err != nil {
		t.Fatal(err)
	}
	fresh := []byte("never added before")

	ro, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for i := range uint64(5000) {
		if !ro.Test(key(i)) {
			t.Fatal("false negative through a read-only mapping")
		}
	}
	before, _ := ro.MarshalBinary()
	if err := ro.Add(fresh); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Add on a read-only mapping: %v, want ErrReadOnly", err)
	}
	if err := ro.AddString(string(fresh)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("AddString on a read-only mapping: %v, want ErrReadOnly", err)
	}
	if _, err := ro.TestAndAdd(fresh); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("TestAndAdd on a read-only mapping: %v, want ErrReadOnly", err)
	}
	if _, err := ro.TestAndAddString(string(fresh)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("TestAndAddString on a read-only mapping: %v, want ErrReadOnly", err)
	}
	if rc := capi.Add(ro.h, fresh); rc != codeReadOnly {
		t.Fatalf("the C API's own add on it: %d, want %d", rc, codeReadOnly)
	}
	after, _ := ro.MarshalBinary()
	if !bytes.Equal(before, after) {
		t.Fatal("a refused add changed the bits")
	}

	cow, err := Open(path, OpenCopyOnWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer cow.Close()
	if err := cow.Add(fresh); err != nil || !cow.Test(fresh) {
		t.Fatalf("copy-on-write add: %v", err)
	}
	rw, err := Open(path, OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Add(fresh); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if !again.Test(fresh) {
		t.Fatal("a Go-native add through a read-write mapping did not reach the file")
	}
	// The read-only mapping shares the file's pages with the read-write one (MAP_SHARED), so it
	// sees the add; the copy-on-write mapping's own add stayed private (checked by the C tests).
	if !ro.Test(fresh) {
		t.Fatal("a read-only mapping of the same file does not see the read-write mapping's add")
	}
}

// Go-native calls on a filter read back from bytes and on a clone: the memory is re-read whenever
// the handle changes (UnmarshalBinary, ReadFrom, Clone).
func TestNativeAfterReload(t *testing.T) {
	f := mustNew(t, 1000, 0.01, WithShards(2))
	_ = f.Add([]byte("a"))
	data, _ := f.MarshalBinary()
	var g Filter
	if err := g.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.Test([]byte("a")) {
		t.Fatal("false negative after UnmarshalBinary")
	}
	_ = g.Add([]byte("b"))
	c, err := g.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Test([]byte("b")) || capi.Test(c.h, []byte("b")) != 1 {
		t.Fatal("a Go-native add is missing from the clone")
	}
}

// specHalfMask is the half layout's 8 bits of hash h as masks of the block's 64-bit words,
// written out as capi/abloom_layout.h states them, 32-bit word by 32-bit word
// (abloom_spec_half_r, abloom_spec_half_index, abloom_spec_half_bit): the reference testHalf and
// addHalf are checked against.
func specHalfMask(h uint64) (m [blockWords]uint64) {
	r := h * 0x9E3779B97F4A7C15
	half := uint32(r>>32) & 1
	for w := range uint32(8) {
		x := r << (5 * (w / 2))
		var bit uint64
		if w%2 == 0 {
			bit = (x >> 27) & 31
		} else {
			bit = x >> 59
		}
		word32 := 8*half + w // the block's 32-bit word: 64-bit word word32 / 2, low half if even
		m[word32/2] |= uint64(1) << (uint64(32*(word32%2)) + bit)
	}
	return m
}

// The Go half probe sets exactly the 8 bits the specification gives, one in each 32-bit word of
// the key's half, and nothing else; its test answers whether those 8 are all set, on blocks of
// every density; its add reports presence and leaves the block ORed with them, shared and
// exclusive.
func TestHalfProbeFollowsSpec(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 8))
	halves := [2]int{}
	cases := 500_000
	if raceEnabled {
		cases = 50_000
	}
	for i := range cases {
		h := rng.Uint64()
		if i < 64 {
			h = uint64(1) << i // single-bit hashes: every shift's edge
		}
		spec := specHalfMask(h)
		half := int(uint32(h*0x9E3779B97F4A7C15>>32) & 1)
		halves[half]++
		n := 0
		for w, v := range spec {
			lo, hi := bits.OnesCount32(uint32(v)), bits.OnesCount32(uint32(v>>32))
			inHalf := w/4 == half
			if inHalf && (lo != 1 || hi != 1) || !inHalf && v != 0 {
				t.Fatalf("h=%#x: spec mask %x is not one bit per 32-bit word of half %d", h, spec, half)
			}
			n += lo + hi
		}
		if n != 8 {
			t.Fatalf("h=%#x: %d bits", h, n)
		}

		for _, exclusive := range []bool{false, true} {
			var blk [blockWords]uint64
			if addHalf(&blk, h, exclusive) {
				t.Fatalf("h=%#x: add to an empty block reported present", h)
			}
			if blk != spec {
				t.Fatalf("h=%#x exclusive=%v: add set %x, spec %x", h, exclusive, blk, spec)
			}
			if !testHalf(&blk, h) {
				t.Fatalf("h=%#x: test after add is false", h)
			}
			if !addHalf(&blk, h, exclusive) || blk != spec {
				t.Fatalf("h=%#x: a second add reported new or changed the block", h)
			}
		}
		// Each of the 8 bits missing alone makes the key absent.
		if i%16 == 0 {
			for w := range spec {
				for v := spec[w]; v != 0; v &= v - 1 {
					blk := spec
					blk[w] &^= v & -v
					if testHalf(&blk, h) {
						t.Fatalf("h=%#x: present with bit %d of word %d clear", h, bits.TrailingZeros64(v), w)
					}
				}
			}
		}

		// A random block from empty to full.
		var blk [blockWords]uint64
		density := rng.IntN(9)
		for w := range blk {
			for range density {
				blk[w] |= rng.Uint64()
			}
			if density == 0 {
				blk[w] = 0
			}
		}
		want := true
		for w := range blk {
			if spec[w]&^blk[w] != 0 {
				want = false
			}
		}
		if got := testHalf(&blk, h); got != want {
			t.Fatalf("h=%#x: test %v, spec %v (block %x)", h, got, want, blk)
		}
		for _, exclusive := range []bool{false, true} {
			after := blk
			if got := addHalf(&after, h, exclusive); got != want {
				t.Fatalf("h=%#x exclusive=%v: add reported %v, spec %v", h, exclusive, got, want)
			}
			for w := range after {
				if after[w] != blk[w]|spec[w] {
					t.Fatalf("h=%#x exclusive=%v: block %x after add, want %x ORed with %x", h, exclusive, after, blk, spec)
				}
			}
		}
	}
	if halves[0] == 0 || halves[1] == 0 {
		t.Fatalf("keys per half: %v", halves)
	}
}

// The specification as written above is what the C engine does: in a half filter of one block,
// one C add of a key sets exactly specHalfMask of its hash.
func TestHalfSpecMatchesC(t *testing.T) {
	f := mustNew(t, 10, 0.01, WithLayout(LayoutHalf), WithShards(1), WithBits(512), WithSeed(0xB10C))
	if info := f.Info(); info.BlocksPerShard != 1 || info.Shards != 1 || info.Layout != LayoutHalf || info.K != 8 {
		t.Fatalf("info %+v", info)
	}
	rng := rand.New(rand.NewPCG(33, 9))
	for _, k := range randomKeys(rng, 5000) {
		if err := f.Clear(); err != nil {
			t.Fatal(err)
		}
		if rc := capi.Add(f.h, k); rc != 0 {
			t.Fatalf("abloom_add: %d", rc)
		}
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		body := b[headerBytes:]
		spec := specHalfMask(xxh3.HashSeed(k, 0xB10C))
		for w := range spec {
			if got := binary.LittleEndian.Uint64(body[8*w:]); got != spec[w] {
				t.Fatalf("a %d-byte key: word %d is %#x after a C add, spec %#x", len(k), w, got, spec[w])
			}
		}
		if !f.Test(k) {
			t.Fatal("the Go probe misses a key C added")
		}
	}
}

// fillNative names every probe it hands out: a kind, layout or half-layout k it does not know is
// ErrInternal, never another layout's probe (which would answer wrongly).
func TestFillNativeRefusesUnknownShapes(t *testing.T) {
	var word [blockWords]uint64
	shards := []unsafe.Pointer{unsafe.Pointer(&word)}
	for _, c := range []struct {
		kind, layout, k uint32
		want            probe // ok only
		ok              bool
	}{
		{uint32(Blocked), uint32(LayoutDistinct), 7, probeDistinct, true},
		{uint32(Blocked), uint32(LayoutSplit), 7, probeSplit, true},
		{uint32(Blocked), uint32(LayoutHalf), 8, probeHalf, true},
		{uint32(Classic), uint32(LayoutDistinct), 7, probeClassic, true},
		{uint32(Blocked), uint32(LayoutHalf), 7, 0, false},
		{uint32(Blocked), uint32(LayoutHalf), 9, 0, false},
		{uint32(Blocked), 4, 8, 0, false},
		{uint32(Blocked), 0, 8, 0, false},
		{uint32(Blocked), 0xFFFFFFFF, 8, 0, false},
		{uint32(Classic), uint32(LayoutSplit), 7, 0, false},
		{uint32(Classic), uint32(LayoutHalf), 8, 0, false},
		{2, uint32(LayoutDistinct), 7, 0, false},
	} {
		m := capi.Memory{Kind: c.kind, Layout: c.layout, K: c.k, HashID: 1, BlocksPerShard: 1, Shards: shards}
		var n native
		rc := fillNative(&m, &n)
		if c.ok && (rc != 0 || n.probe != c.want) || !c.ok && rc != codeInternal {
			t.Errorf("kind %d layout %d k %d: rc %d, probe %d", c.kind, c.layout, c.k, rc, n.probe)
		}
	}
}
