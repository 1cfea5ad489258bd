package abloom

import (
	"errors"
	"math"
	"testing"

	"github.com/abloom/abloom/bindings/go/internal/capi"
)

func TestErrorCodesMatchHeader(t *testing.T) {
	pairs := []struct {
		ours, header int
	}{
		{codeNull, capi.ABLOOM_ERR_NULL}, {codeInvalid, capi.ABLOOM_ERR_INVALID},
		{codeRange, capi.ABLOOM_ERR_RANGE}, {codeNoMem, capi.ABLOOM_ERR_NOMEM},
		{codeMismatch, capi.ABLOOM_ERR_MISMATCH}, {codeInternal, capi.ABLOOM_ERR_INTERNAL},
		{codeReadOnly, capi.ABLOOM_ERR_READONLY}, {codeBadMagic, capi.ABLOOM_ERR_BAD_MAGIC},
		{codeVersion, capi.ABLOOM_ERR_VERSION}, {codeUnsupported, capi.ABLOOM_ERR_UNSUPPORTED},
		{codeTruncated, capi.ABLOOM_ERR_TRUNCATED}, {codeCorrupt, capi.ABLOOM_ERR_CORRUPT},
		{codeChecksum, capi.ABLOOM_ERR_CHECKSUM}, {codeAlignment, capi.ABLOOM_ERR_ALIGNMENT},
		{codeIO, capi.ABLOOM_ERR_IO}, {codeTooSmall, capi.ABLOOM_ERR_TOO_SMALL},
		{codeStale, capi.ABLOOM_ERR_STALE},
	}
	for _, p := range pairs {
		if p.ours != p.header {
			t.Errorf("code %d, header says %d", p.ours, p.header)
		}
	}
	if headerBytes != capi.ABLOOM_HEADER_BYTES {
		t.Errorf("headerBytes %d, header says %d", headerBytes, capi.ABLOOM_HEADER_BYTES)
	}
	if uint32(VerifyChecksum) != uint32(capi.ABLOOM_VERIFY_CHECKSUM) ||
		uint32(OpenCopyOnWrite) != uint32(capi.ABLOOM_OPEN_COPY_ON_WRITE) ||
		uint32(OpenReadWrite) != uint32(capi.ABLOOM_OPEN_READ_WRITE) {
		t.Error("open flags differ from the header")
	}
	if Kind(capi.ABLOOM_KIND_CLASSIC) != Classic || Kind(capi.ABLOOM_KIND_BLOCKED) != Blocked ||
		Storage(capi.ABLOOM_STORAGE_MAPPED) != Mapped || Storage(capi.ABLOOM_STORAGE_VIEW) != View {
		t.Error("enums differ from the header")
	}
}

func TestVersion(t *testing.T) {
	if v := Version(); v == "" {
		t.Fatalf("Version() = %q", v)
	}
	n := capi.Abloom_version_number()
	want := uitoa(uint64(n/10000)) + "." + uitoa(uint64(n/100%100)) + "." + uitoa(uint64(n%100))
	if Version() != want {
		t.Fatalf("Version() = %q, number says %q", Version(), want)
	}
}

func TestAddTest(t *testing.T) {
	for _, kind := range []Kind{Blocked, Classic} {
		t.Run(kind.String(), func(t *testing.T) {
			f := mustNew(t, 10000, 0.01, WithKind(kind))
			for i := uint64(0); i < 10000; i++ {
				if err := f.Add(key(i)); err != nil {
					t.Fatal(err)
				}
			}
			for i := uint64(0); i < 10000; i++ {
				if !f.Test(key(i)) {
					t.Fatalf("false negative for key %d", i)
				}
			}
			// FPR on 200k keys never added, against the model's expected FPR at capacity.
			const n = 200000
			fp := 0
			for i := uint64(1 << 40); i < 1<<40+n; i++ {
				if f.Test(key(i)) {
					fp++
				}
			}
			lo, hi := binomialBounds(n, f.Info().ExpectedFPR)
			if float64(fp) < lo || float64(fp) > hi {
				t.Fatalf("%d false positives of %d, expected FPR %g gives [%.0f, %.0f]",
					fp, n, f.Info().ExpectedFPR, lo, hi)
			}
		})
	}
}

func TestStringsAndBytesAgree(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	if err := f.AddString("alice:bob"); err != nil {
		t.Fatal(err)
	}
	if !f.Test([]byte("alice:bob")) || !f.TestString("alice:bob") {
		t.Fatal("added string not found")
	}
	if err := f.Add([]byte("carol")); err != nil {
		t.Fatal(err)
	}
	if !f.TestString("carol") {
		t.Fatal("added bytes not found as string")
	}
	// The empty key is a key like any other.
	if f.Test(nil) || f.TestString("") {
		t.Fatal("empty key present before adding it")
	}
	if err := f.Add([]byte{}); err != nil {
		t.Fatal(err)
	}
	if !f.Test(nil) || !f.TestString("") || !f.Test([]byte{}) {
		t.Fatal("empty key absent after adding it")
	}
	// A zero-length slice pointing at the end of its array.
	b := []byte("xyz")
	if !f.Test(b[3:]) {
		t.Fatal("empty subslice absent")
	}
}

func TestTestAndAdd(t *testing.T) {
	f := mustNew(t, 1000, 0.001)
	seen, err := f.TestAndAdd([]byte("k1"))
	if err != nil || seen {
		t.Fatalf("first TestAndAdd = %v, %v; want false, nil", seen, err)
	}
	seen, err = f.TestAndAdd([]byte("k1"))
	if err != nil || !seen {
		t.Fatalf("second TestAndAdd = %v, %v; want true, nil", seen, err)
	}
	seen, err = f.TestAndAddString("k2")
	if err != nil || seen {
		t.Fatalf("TestAndAddString new = %v, %v", seen, err)
	}
	seen, err = f.TestAndAddString("k2")
	if err != nil || !seen {
		t.Fatalf("TestAndAddString repeat = %v, %v", seen, err)
	}
	if !f.Test([]byte("k2")) {
		t.Fatal("TestAndAddString did not add")
	}
}

func TestNewErrors(t *testing.T) {
	cases := []struct {
		name     string
		capacity uint64
		fpr      float64
		opts     []Option
		want     error
	}{
		{"capacity 0", 0, 0.01, nil, ErrInvalid},
		{"fpr 0", 100, 0, nil, ErrInvalid},
		{"fpr 1", 100, 1, nil, ErrInvalid},
		{"fpr NaN", 100, math.NaN(), nil, ErrInvalid},
		{"fpr negative", 100, -0.5, nil, ErrInvalid},
		{"unknown kind", 100, 0.01, []Option{WithKind(7)}, ErrInvalid},
		{"shards not a power of two", 100, 0.01, []Option{WithShards(3)}, ErrInvalid},
		{"too many shards", 100, 0.01, []Option{WithShards(1 << 17)}, ErrInvalid},
		{"k too large", 100, 0.01, []Option{WithK(65)}, ErrInvalid},
		{"too many threads", 100, 0.01, []Option{WithThreads(1000)}, ErrInvalid},
		{"too large", 1 << 62, 1e-9, nil, ErrRange},
		{"too many bits", 100, 0.01, []Option{WithBits(1 << 62)}, ErrRange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := New(c.capacity, c.fpr, c.opts...)
			if f != nil || !errors.Is(err, c.want) {
				t.Fatalf("New = %v, %v; want nil, %v", f, err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Op != "New" {
				t.Fatalf("error %#v does not name New", err)
			}
			if _, err := ComputePlan(c.capacity, c.fpr, c.opts...); !errors.Is(err, c.want) {
				t.Fatalf("ComputePlan error %v, want %v", err, c.want)
			}
		})
	}
}

func TestOptionsAndInfo(t *testing.T) {
	opts := []Option{WithKind(Classic), WithShards(4), WithSeed(0xFEEDFACE), WithThreads(2)}
	plan, err := ComputePlan(100000, 0.001, opts...)
	if err != nil {
		t.Fatal(err)
	}
	f := mustNew(t, 100000, 0.001, opts...)
	info := f.Info()
	if info.Kind != Classic || info.Shards != 4 || info.Seed != 0xFEEDFACE ||
		info.Capacity != 100000 || info.TargetFPR != 0.001 || info.Storage != Owned || info.ReadOnly {
		t.Fatalf("info %+v", info)
	}
	if plan.Kind != info.Kind || plan.K != info.K || plan.Shards != info.Shards ||
		plan.BlocksPerShard != info.BlocksPerShard || plan.Bits != info.Bits ||
		plan.Bytes != info.Bytes || plan.ExpectedFPR != info.ExpectedFPR {
		t.Fatalf("plan %+v differs from info %+v", plan, info)
	}
	if plan.BitsPerKey != float64(plan.Bits)/100000 {
		t.Fatalf("bits per key %g", plan.BitsPerKey)
	}
	if info.ExpectedFPR > 0.001 {
		t.Fatalf("expected FPR %g above target", info.ExpectedFPR)
	}
	if f.Cap() != 100000 || f.K() != uint(info.K) || f.Bits() != info.Bits || info.Bits != info.Bytes*8 {
		t.Fatalf("Cap %d K %d Bits %d", f.Cap(), f.K(), f.Bits())
	}
	if info.Bits != uint64(info.Shards)*info.BlocksPerShard*512 {
		t.Fatalf("bits %d != shards*blocks*512", info.Bits)
	}

	g := mustNew(t, 1000, 0.01, WithBits(8192), WithK(5))
	if g.Bits() != 8192 || g.K() != 5 || g.Info().Kind != Blocked {
		t.Fatalf("explicit layout: bits %d k %d", g.Bits(), g.K())
	}
	if Blocked.String() != "blocked" || Classic.String() != "classic" || Kind(9).String() != "Kind(9)" {
		t.Fatal("Kind.String")
	}
	if Owned.String() != "owned" || View.String() != "view" || Mapped.String() != "mapped" ||
		Storage(12).String() != "Storage(12)" {
		t.Fatal("Storage.String")
	}
}

func TestSetOperations(t *testing.T) {
	a := mustNew(t, 10000, 0.01, WithSeed(7))
	b := mustNew(t, 10000, 0.01, WithSeed(7))
	for i := uint64(0); i < 1000; i++ {
		_ = a.Add(key(i))
		_ = b.Add(key(i + 500))
	}
	if a.Equal(b) || !a.Equal(a) || a.Equal(nil) {
		t.Fatal("Equal before union")
	}
	c, err := a.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Equal(a) || c.Info() != a.Info() {
		t.Fatal("clone differs")
	}
	if err := c.Union(b); err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 1500; i++ {
		if !c.Test(key(i)) {
			t.Fatalf("union lost key %d", i)
		}
	}
	if err := c.Union(c); err != nil || c.Equal(a) {
		t.Fatalf("self union: %v", err)
	}
	d, _ := a.Clone()
	defer d.Close()
	if err := d.Intersect(b); err != nil {
		t.Fatal(err)
	}
	for i := uint64(500); i < 1000; i++ {
		if !d.Test(key(i)) {
			t.Fatalf("intersection lost common key %d", i)
		}
	}
	absentAfter := 0
	for i := uint64(0); i < 500; i++ {
		if !d.Test(key(i)) {
			absentAfter++
		}
	}
	if absentAfter < 400 {
		t.Fatalf("intersection kept %d of 500 keys only in a", 500-absentAfter)
	}

	// Shapes must match.
	other := mustNew(t, 10000, 0.01, WithSeed(8))
	for _, err := range []error{a.Union(other), a.Intersect(other)} {
		if !errors.Is(err, ErrIncompatible) {
			t.Fatalf("mismatched shapes: %v", err)
		}
	}
	if a.Equal(other) {
		t.Fatal("different seeds equal")
	}
	if err := a.Union(nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Union(nil): %v", err)
	}
	if err := a.Intersect(nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Intersect(nil): %v", err)
	}

	if err := c.Clear(); err != nil {
		t.Fatal(err)
	}
	empty := mustNew(t, 10000, 0.01, WithSeed(7))
	if !c.Equal(empty) {
		t.Fatal("cleared filter not empty")
	}
}

func TestEstimates(t *testing.T) {
	f := mustNew(t, 100000, 0.01)
	if n, err := f.EstimateCount(); err != nil || n != 0 {
		t.Fatalf("empty count %g %v", n, err)
	}
	for i := uint64(0); i < 50000; i++ {
		_ = f.Add(key(i))
	}
	n, err := f.EstimateCount()
	if err != nil || math.Abs(n-50000) > 1500 {
		t.Fatalf("EstimateCount = %g, %v; want about 50000", n, err)
	}
	p, err := f.EstimateFPR()
	if err != nil || p <= 0 || p >= f.Info().ExpectedFPR {
		t.Fatalf("EstimateFPR at half capacity = %g, %v (expected FPR at capacity %g)",
			p, err, f.Info().ExpectedFPR)
	}
}

func TestErrorFormatting(t *testing.T) {
	_, err := New(0, 0.01)
	if got := err.Error(); got != "abloom: New: "+capi.Strerror(codeInvalid) {
		t.Fatalf("message %q", got)
	}
	if ErrCorrupt.Error() != "abloom: "+capi.Strerror(codeCorrupt) {
		t.Fatalf("sentinel message %q", ErrCorrupt.Error())
	}
	if ErrClosed.Error() != "abloom: filter is closed (or was never initialised)" {
		t.Fatalf("closed message %q", ErrClosed.Error())
	}
	// Family matching: precise codes match ErrCorrupt; unrelated ones do not.
	for _, c := range []int{codeBadMagic, codeTruncated, codeChecksum, codeCorrupt} {
		if !errors.Is(&Error{Op: "x", Code: c}, ErrCorrupt) {
			t.Errorf("code %d does not match ErrCorrupt", c)
		}
	}
	for _, c := range []int{codeVersion, codeUnsupported, codeIO, codeInvalid} {
		if errors.Is(&Error{Op: "x", Code: c}, ErrCorrupt) {
			t.Errorf("code %d matches ErrCorrupt", c)
		}
	}
	if errors.Is(&Error{Code: codeInvalid}, &Error{Op: "New", Code: codeInvalid}) {
		t.Error("a non-sentinel target matched")
	}
	if errors.Is(ErrInvalid, errors.New("x")) {
		t.Error("a foreign error matched")
	}
}
