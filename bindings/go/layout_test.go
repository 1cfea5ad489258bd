package abloom

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

func TestLayoutValuesMatchHeader(t *testing.T) {
	if uint(LayoutDistinct) != capi.ABLOOM_LAYOUT_DISTINCT || uint(LayoutSplit) != capi.ABLOOM_LAYOUT_SPLIT ||
		uint(LayoutHalf) != capi.ABLOOM_LAYOUT_HALF {
		t.Fatal("layouts differ from the header")
	}
	if halfK != capi.ABLOOM_HALF_K {
		t.Fatalf("halfK %d, header's ABLOOM_HALF_K %d", halfK, capi.ABLOOM_HALF_K)
	}
	if LayoutDistinct.String() != "distinct" || LayoutSplit.String() != "split" ||
		LayoutHalf.String() != "half" || Layout(4).String() != "Layout(4)" ||
		Layout(9).String() != "Layout(9)" {
		t.Fatal("Layout.String")
	}
}

// Without WithLayout the library chooses split wherever its k is enough, distinct elsewhere, and
// the choice is exactly the plan of that layout asked for explicitly.
func TestDefaultLayoutIsSplitWhereItsKSuffices(t *testing.T) {
	cases := []struct {
		name string
		fpr  float64
		opts []Option
		want Layout
	}{
		{"1%", 0.01, nil, LayoutSplit},
		{"0.1%", 0.001, nil, LayoutSplit},
		{"1e-6", 1e-6, nil, LayoutSplit},
		{"1e-7", 1e-7, nil, LayoutDistinct},
		{"1e-9", 1e-9, nil, LayoutDistinct},
		{"k 8", 0.01, []Option{WithK(8)}, LayoutSplit}, // half's only k, yet never its default
		{"k 16", 0.01, []Option{WithK(16)}, LayoutSplit},
		{"k 17", 0.01, []Option{WithK(17)}, LayoutDistinct},
		{"classic", 0.01, []Option{WithKind(Classic)}, LayoutDistinct},
	}
	for _, c := range cases {
		plan, err := ComputePlan(100000, c.fpr, c.opts...)
		if err != nil || plan.Layout != c.want {
			t.Fatalf("%s: plan layout %v, %v", c.name, plan.Layout, err)
		}
		same, err := ComputePlan(100000, c.fpr, append(c.opts, WithLayout(c.want))...)
		if err != nil || same.Bits != plan.Bits || same.K != plan.K {
			t.Fatalf("%s: default plan %+v, explicit %+v (%v)", c.name, plan, same, err)
		}
		f := mustNew(t, 100000, c.fpr, c.opts...)
		if got := f.Info().Layout; got != c.want {
			t.Fatalf("%s: info layout %v", c.name, got)
		}
		b, err := f.MarshalBinary()
		if err != nil || Layout(binary.LittleEndian.Uint32(b[20:])) != c.want {
			t.Fatalf("%s: the file's layout id is not %d (%v)", c.name, c.want, err)
		}
	}
}

// The split layout keeps every key and meets its own model's FPR, which New sized it by.
func TestSplitLayoutFindsEveryKeyAtItsModelFPR(t *testing.T) {
	findsEveryKeyAtItsModelFPR(t, LayoutSplit, func(k uint32) bool { return k <= 16 })
}

// So does the half layout, with its one k.
func TestHalfLayoutFindsEveryKeyAtItsModelFPR(t *testing.T) {
	findsEveryKeyAtItsModelFPR(t, LayoutHalf, func(k uint32) bool { return k == 8 })
}

func findsEveryKeyAtItsModelFPR(t *testing.T, layout Layout, kOK func(uint32) bool) {
	for _, fpr := range []float64{0.01, 0.001} {
		const capacity = 20000
		f := mustNew(t, capacity, fpr, WithLayout(layout), WithSeed(0x5EED))
		info := f.Info()
		if info.Layout != layout || info.Kind != Blocked || !kOK(info.K) || info.ExpectedFPR > fpr {
			t.Fatalf("%v: info %+v", layout, info)
		}
		if _, err := f.AddBatch(keys(0, capacity)); err != nil {
			t.Fatal(err)
		}
		res := make([]bool, capacity)
		if n, err := f.TestBatch(keys(0, capacity), res); err != nil || n != capacity {
			t.Fatalf("TestBatch found %d of %d added keys (%v)", n, capacity, err)
		}
		for i := uint64(0); i < 1000; i++ {
			if !f.Test(key(i)) {
				t.Fatalf("false negative for key %d", i)
			}
		}
		const n = 200000
		absent := make([]bool, n)
		fp, err := f.TestBatch(keys(1<<40, n), absent)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := binomialBounds(n, info.ExpectedFPR)
		if float64(fp) < lo || float64(fp) > hi {
			t.Fatalf("%v, fpr %g: %d false positives of %d, model %g gives [%.0f, %.0f]",
				layout, fpr, fp, n, info.ExpectedFPR, lo, hi)
		}
		// The Go-native single-key test answers as the batch (C) did, key by key.
		for i := range n {
			if f.Test(key(1<<40+uint64(i))) != absent[i] {
				t.Fatalf("%v: absent key %d: Test and TestBatch differ", layout, i)
			}
		}
	}
}

// Split costs a few percent more bits than distinct for the same target, never less than it
// needs: the plan's FPR is its model's FPR and meets the target.
func TestSplitPlanCostsAFewPercentMoreBits(t *testing.T) {
	for _, fpr := range []float64{0.01, 0.001} {
		d, err := ComputePlan(10_000_000, fpr, WithLayout(LayoutDistinct))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ComputePlan(10_000_000, fpr, WithLayout(LayoutSplit))
		if err != nil {
			t.Fatal(err)
		}
		if s.Layout != LayoutSplit || s.ExpectedFPR > fpr || s.K > 16 {
			t.Fatalf("split plan %+v", s)
		}
		if ratio := s.BitsPerKey / d.BitsPerKey; ratio < 1 || ratio > 1.03 {
			t.Fatalf("fpr %g: split needs %.2f bits/key, distinct %.2f (ratio %.3f)",
				fpr, s.BitsPerKey, d.BitsPerKey, ratio)
		}
		model, err := ModelFPR(Blocked, LayoutSplit, s.BitsPerKey, s.K)
		if err != nil || math.Abs(model-s.ExpectedFPR) > 1e-12*s.ExpectedFPR {
			t.Fatalf("ModelFPR %g (%v), plan says %g", model, err, s.ExpectedFPR)
		}
		dm, err := ModelFPR(Blocked, LayoutDistinct, d.BitsPerKey, d.K)
		if err != nil || math.Abs(dm-d.ExpectedFPR) > 1e-12*d.ExpectedFPR {
			t.Fatalf("ModelFPR distinct %g (%v), plan says %g", dm, err, d.ExpectedFPR)
		}
		// Layout 0: the model of the layout New chooses for that kind and k (split up to k 16).
		if m0, err := ModelFPR(Blocked, 0, s.BitsPerKey, s.K); err != nil || m0 != model {
			t.Fatalf("ModelFPR default layout %g (%v), split %g", m0, err, model)
		}
		if m0, err := ModelFPR(Blocked, 0, 40, 20); err != nil || m0 != mustModel(t, Blocked, LayoutDistinct, 40, 20) {
			t.Fatalf("ModelFPR default layout at k 20 %g (%v)", m0, err)
		}
	}
}

func mustModel(t *testing.T, kind Kind, layout Layout, bitsPerKey float64, k uint32) float64 {
	t.Helper()
	m, err := ModelFPR(kind, layout, bitsPerKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSplitLayoutRefusals(t *testing.T) {
	cases := map[string][]Option{
		"classic":       {WithKind(Classic), WithLayout(LayoutSplit)},
		"k 17":          {WithLayout(LayoutSplit), WithK(17)},
		"unknown":       {WithLayout(Layout(4))},
		"unknown large": {WithLayout(Layout(0xFFFFFFFF))},
	}
	for name, opts := range cases {
		if _, err := New(1000, 0.01, opts...); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: New gave %v, want ErrInvalid", name, err)
		}
		if _, err := ComputePlan(1000, 0.01, opts...); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: ComputePlan gave %v, want ErrInvalid", name, err)
		}
	}
	if _, err := New(1000, 0.01, WithLayout(LayoutSplit), WithK(16)); err != nil {
		t.Errorf("k 16 is the split layout's largest and allowed: %v", err)
	}
	for name, call := range map[string]func() (float64, error){
		"classic": func() (float64, error) { return ModelFPR(Classic, LayoutSplit, 10, 7) },
		"k 17":    func() (float64, error) { return ModelFPR(Blocked, LayoutSplit, 30, 17) },
		"layout":  func() (float64, error) { return ModelFPR(Blocked, Layout(4), 10, 7) },
		"bits":    func() (float64, error) { return ModelFPR(Blocked, LayoutSplit, math.NaN(), 7) },
		"k 0":     func() (float64, error) { return ModelFPR(Blocked, LayoutSplit, 10, 0) },
	} {
		if _, err := call(); !errors.Is(err, ErrInvalid) {
			t.Errorf("ModelFPR %s: %v, want ErrInvalid", name, err)
		}
	}
}

// A file records its layout: every way in gives back a split filter with the same answers, and
// filters of different layouts never combine even when their sizes agree.
func TestSplitLayoutSurvivesEveryWayInAndOut(t *testing.T) {
	layoutSurvivesEveryWayInAndOut(t, LayoutSplit, LayoutDistinct)
}

// The same for the half layout (layout id 3 in the file), against a split twin of its k.
func TestHalfLayoutSurvivesEveryWayInAndOut(t *testing.T) {
	layoutSurvivesEveryWayInAndOut(t, LayoutHalf, LayoutSplit)
}

// layoutSurvivesEveryWayInAndOut fills a filter of layout, saves it every way and reads it back
// every way; twin is another layout of the same bits and k, which must not combine with it.
func layoutSurvivesEveryWayInAndOut(t *testing.T, layout, twinLayout Layout) {
	f := mustNew(t, 5000, 0.01, WithLayout(layout), WithShards(2))
	// Half the keys by Go-native adds, half by a C batch.
	for _, k := range keys(0, 2500) {
		if err := f.Add(k); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.AddBatch(keys(2500, 2500)); err != nil {
		t.Fatal(err)
	}
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if id := Layout(binary.LittleEndian.Uint32(data[20:])); id != layout {
		t.Fatalf("the serialized layout id is %d, want %d", id, layout)
	}
	path := filepath.Join(testDir(t), layout.String()+".abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	u, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	var r Filter
	if _, err := r.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for name, g := range map[string]*Filter{"Unmarshal": u, "ReadFrom": &r, "Open": m} {
		if g.Info().Layout != layout || !g.Equal(f) {
			t.Fatalf("%s: layout %v, equal %v", name, g.Info().Layout, g.Equal(f))
		}
		for i := uint64(0); i < 5000; i += 7 {
			if !g.Test(key(i)) {
				t.Fatalf("%s: false negative for key %d", name, i)
			}
		}
		for i := uint64(1 << 40); i < 1<<40+2000; i++ {
			if g.Test(key(i)) != f.Test(key(i)) {
				t.Fatalf("%s: absent key %d answers differently", name, i)
			}
		}
	}

	// Same bits, k, shards and seed; only the layout differs.
	info := f.Info()
	twin := mustNew(t, 5000, 0.01, WithShards(2), WithBits(info.Bits), WithK(info.K),
		WithLayout(twinLayout))
	if twin.Info().Bits != info.Bits || twin.Info().K != info.K || twin.Info().Layout != twinLayout {
		t.Fatalf("%v twin %+v", twinLayout, twin.Info())
	}
	if err := twin.Union(f); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Union across layouts: %v, want ErrIncompatible", err)
	}
	if err := f.Intersect(twin); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Intersect across layouts: %v, want ErrIncompatible", err)
	}
	if f.Equal(twin) {
		t.Fatal("filters of different layouts are Equal")
	}
}

// The half layout's options: k is always 8 (asked for or not), the kind Blocked; anything else
// is ErrInvalid, for New, ComputePlan, NewGrowing and ModelFPR alike.
func TestHalfLayoutOptions(t *testing.T) {
	plan, err := ComputePlan(100000, 0.01, WithLayout(LayoutHalf))
	if err != nil || plan.Layout != LayoutHalf || plan.Kind != Blocked || plan.K != 8 || plan.ExpectedFPR > 0.01 {
		t.Fatalf("plan %+v (%v)", plan, err)
	}
	withK, err := ComputePlan(100000, 0.01, WithLayout(LayoutHalf), WithK(8))
	if err != nil || withK != plan {
		t.Fatalf("WithK(8): plan %+v (%v), without it %+v", withK, err, plan)
	}
	f := mustNew(t, 100000, 0.01, WithLayout(LayoutHalf), WithK(8))
	if info := f.Info(); info.Layout != LayoutHalf || info.K != 8 || info.Bits != plan.Bits {
		t.Fatalf("info %+v, plan %+v", info, plan)
	}
	g := mustGrowing(t, 0.01, WithLayout(LayoutHalf))
	if info := g.Info(); info.Layout != LayoutHalf || info.K != 8 {
		t.Fatalf("growing info %+v", info)
	}

	refused := map[string][]Option{
		"classic":     {WithKind(Classic), WithLayout(LayoutHalf)},
		"classic k 8": {WithKind(Classic), WithLayout(LayoutHalf), WithK(8)},
		"k 7":         {WithLayout(LayoutHalf), WithK(7)},
		"k 9":         {WithLayout(LayoutHalf), WithK(9)},
		"k 1":         {WithLayout(LayoutHalf), WithK(1)},
		"k 16":        {WithLayout(LayoutHalf), WithK(16)},
	}
	for name, opts := range refused {
		if _, err := New(1000, 0.01, opts...); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: New gave %v, want ErrInvalid", name, err)
		}
		if _, err := ComputePlan(1000, 0.01, opts...); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: ComputePlan gave %v, want ErrInvalid", name, err)
		}
	}
	if _, err := NewGrowing(0.01, WithKind(Classic), WithLayout(LayoutHalf)); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewGrowing, classic: %v, want ErrInvalid", err)
	}
	for name, call := range map[string]func() (float64, error){
		"classic": func() (float64, error) { return ModelFPR(Classic, LayoutHalf, 10, 8) },
		"k 7":     func() (float64, error) { return ModelFPR(Blocked, LayoutHalf, 10, 7) },
		"k 9":     func() (float64, error) { return ModelFPR(Blocked, LayoutHalf, 10, 9) },
		"k 0":     func() (float64, error) { return ModelFPR(Blocked, LayoutHalf, 10, 0) },
	} {
		if _, err := call(); !errors.Is(err, ErrInvalid) {
			t.Errorf("ModelFPR %s: %v, want ErrInvalid", name, err)
		}
	}
}

// ModelFPR for the half layout is the model abloom.h states (each of the 8 words of the key's
// half holds the bits of the other keys in that half, Poisson with mean 256 / bitsPerKey), the
// plans use it, and they cost a few percent more bits than split's for the same target.
func TestHalfLayoutModelAndCost(t *testing.T) {
	for _, bpk := range []float64{6, 8, 10, 12.5, 16, 24} {
		got := mustModel(t, Blocked, LayoutHalf, bpk, 8)
		lambda := 256 / bpk
		want, pois := 0.0, math.Exp(-lambda) // Pois(0; lambda), then term by term
		for i := 0; i < 1000; i++ {
			want += pois * math.Pow(1-math.Pow(31.0/32, float64(i)), 8)
			pois *= lambda / float64(i+1)
		}
		if math.Abs(got-want) > 1e-9*want {
			t.Fatalf("%g bits/key: ModelFPR %g, the stated model %g", bpk, got, want)
		}
	}
	for _, c := range []struct{ fpr, lo, hi float64 }{{0.01, 1.02, 1.06}, {0.001, 1.05, 1.10}} {
		h, err := ComputePlan(10_000_000, c.fpr, WithLayout(LayoutHalf))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ComputePlan(10_000_000, c.fpr, WithLayout(LayoutSplit))
		if err != nil {
			t.Fatal(err)
		}
		if h.ExpectedFPR > c.fpr || h.K != 8 {
			t.Fatalf("half plan %+v", h)
		}
		if m := mustModel(t, Blocked, LayoutHalf, h.BitsPerKey, 8); math.Abs(m-h.ExpectedFPR) > 1e-12*h.ExpectedFPR {
			t.Fatalf("ModelFPR %g, plan says %g", m, h.ExpectedFPR)
		}
		if ratio := h.BitsPerKey / s.BitsPerKey; ratio < c.lo || ratio > c.hi {
			t.Fatalf("fpr %g: half needs %.2f bits/key, split %.2f (ratio %.3f, want %g-%g)",
				c.fpr, h.BitsPerKey, s.BitsPerKey, ratio, c.lo, c.hi)
		}
	}
}
