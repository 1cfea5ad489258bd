package abloom

import (
	"github.com/abloom/abloom/bindings/go/internal/capi"
)

// Option changes how New (and ComputePlan) size a filter.
type Option func(*config)

type config struct {
	kind    Kind
	layout  Layout
	shards  uint32
	seed    uint64
	bits    uint64
	k       uint32
	threads uint32
}

// WithKind picks the kind: Blocked (the default) or Classic.
func WithKind(k Kind) Option { return func(c *config) { c.kind = k } }

// WithLayout picks the in-block layout of a Blocked filter: LayoutSplit or LayoutDistinct.
// Without it the library chooses: LayoutSplit wherever its k is enough (an explicit WithK up to
// 16, or a target FPR whose best LayoutDistinct k is no higher: targets down to about 1e-6), and
// LayoutDistinct below that, where split's capped k would cost 3-14% more bits; Info and
// ComputePlan say which a filter got. LayoutSplit with Classic, or with WithK above 16, fails
// with ErrInvalid.
func WithLayout(l Layout) Option { return func(c *config) { c.layout = l } }

// WithShards sets the shard count, a power of two up to 65536. The default (0) is one shard
// per 16 MiB of filter, at most 64. Sharding never changes the FPR.
func WithShards(n uint32) Option { return func(c *config) { c.shards = n } }

// WithSeed sets the hash seed (default 0, deterministic). Filters combine (Union, Intersect,
// Equal) only when their seeds match. Use a random seed when keys may be chosen by an adversary.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithBits sets the total number of bits explicitly (rounded up to whole blocks per shard)
// instead of deriving it from capacity and FPR.
func WithBits(bits uint64) Option { return func(c *config) { c.bits = bits } }

// WithK sets the number of bits per key (1..64) instead of the optimum. Rarely useful: the
// default minimises the FPR.
func WithK(k uint32) Option { return func(c *config) { c.k = k } }

// WithThreads lets batch calls of 65536 keys or more use up to n threads (at most MaxThreads);
// 0 or 1 keeps them on the calling goroutine's thread. SetThreads changes it later.
func WithThreads(n uint32) Option { return func(c *config) { c.threads = n } }

func cOptions(capacity uint64, fpr float64, opts []Option) capi.Abloom_options {
	var c config
	for _, o := range opts {
		o(&c)
	}
	co := capi.NewAbloom_options()
	capi.Abloom_options_init(co)
	co.SetCapacity(capacity)
	co.SetFpr(fpr)
	co.SetKind(uint(c.kind))
	co.SetLayout(uint(c.layout))
	co.SetShards(uint(c.shards))
	co.SetSeed(c.seed)
	co.SetBits(c.bits)
	co.SetK(uint(c.k))
	co.SetThreads(uint(c.threads))
	return co
}

// New makes an empty filter for capacity distinct keys at a target false-positive rate fpr in
// (0, 1), e.g. New(1_000_000, 0.01). Errors: ErrInvalid (capacity 0, fpr out of range, bad
// option), ErrRange (too large), ErrNoMem.
func New(capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	co := cOptions(capacity, fpr, opts)
	defer capi.DeleteAbloom_options(co)
	out := []uintptr{0}
	if rc := capi.Abloom_create(co, out); rc != 0 {
		return nil, newError("New", rc)
	}
	return newFilter(out[0])
}

// Plan is the layout New would allocate for some options.
type Plan struct {
	Kind           Kind    // where a key's bits go: one block or the whole shard
	Layout         Layout  // where they go inside the block (the default resolved)
	K              uint32  // bits set per key
	Shards         uint32  // shard count (the default resolved)
	BlocksPerShard uint64  // 64-byte blocks in each shard
	Bits           uint64  // total bits
	Bytes          uint64  // total bytes of bit storage
	BitsPerKey     float64 // Bits / capacity
	ExpectedFPR    float64 // the model's FPR at capacity keys
}

// ComputePlan returns, without allocating, the layout New(capacity, fpr, opts...) would make.
func ComputePlan(capacity uint64, fpr float64, opts ...Option) (Plan, error) {
	co := cOptions(capacity, fpr, opts)
	defer capi.DeleteAbloom_options(co)
	cp := capi.NewAbloom_plan()
	defer capi.DeleteAbloom_plan(cp)
	cp.SetStruct_size(capi.SIZEOF_PLAN)
	if rc := capi.Abloom_plan_compute(co, cp); rc != 0 {
		return Plan{}, newError("ComputePlan", rc)
	}
	return Plan{
		Kind:           Kind(cp.GetKind()),
		Layout:         Layout(cp.GetLayout()),
		K:              uint32(cp.GetK()),
		Shards:         uint32(cp.GetShards()),
		BlocksPerShard: cp.GetBlocks_per_shard(),
		Bits:           cp.GetBits(),
		Bytes:          cp.GetBytes(),
		BitsPerKey:     cp.GetBits_per_key(),
		ExpectedFPR:    cp.GetExpected_fpr(),
	}, nil
}

// ModelFPR returns the sizing model's false-positive rate for a filter of this kind and layout
// with bitsPerKey bits per distinct key and k bits set per key: what Plan.ExpectedFPR reports
// for such a plan. A layout of 0 means the one New chooses without WithLayout for this kind and
// k (LayoutSplit for Blocked with k up to 16, else LayoutDistinct). Errors: ErrInvalid (unknown kind or
// layout, LayoutSplit with Classic or k above 16, k of 0 or above 64, bitsPerKey not positive
// and finite).
func ModelFPR(kind Kind, layout Layout, bitsPerKey float64, k uint32) (float64, error) {
	out := []float64{0}
	if rc := capi.Abloom_layout_model_fpr(uint(kind), uint(layout), bitsPerKey, uint(k), out); rc != 0 {
		return 0, newError("ModelFPR", rc)
	}
	return out[0], nil
}

// Version returns the C library's runtime version, "MAJOR.MINOR.PATCH".
func Version() string { return capi.VersionString() }
