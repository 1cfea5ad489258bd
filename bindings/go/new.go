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
	// The growing filter's options: set (and checked) only by NewGrowing and GrowthFootprint.
	growth     float64
	growthSet  bool
	initial    uint64
	initialSet bool
}

// The growing filters' constants (capi/abloom.h: ABLOOM_DEFAULT_GROWTH, ABLOOM_MAX_GROWTH,
// ABLOOM_DEFAULT_INITIAL_CAPACITY, ABLOOM_MAX_STAGES).
const (
	// DefaultGrowth is a growing filter's growth without WithGrowth: each stage twice the last.
	DefaultGrowth = 2.0
	// MaxGrowth is the largest growth WithGrowth accepts.
	MaxGrowth = 16.0
	// DefaultInitialCapacity is a growing filter's first stage capacity without
	// WithInitialCapacity.
	DefaultInitialCapacity = 1024
	// MaxStages is the most stages a growing filter has: past them (or past the library's size
	// limit) it stops growing, and Info().GrowthFailed says so.
	MaxStages = 64
)

// WithKind picks the kind: Blocked (the default) or Classic.
func WithKind(k Kind) Option { return func(c *config) { c.kind = k } }

// WithLayout picks the in-block layout of a Blocked filter: LayoutSplit, LayoutDistinct or
// LayoutHalf. Without it the library chooses: LayoutSplit wherever its k is enough (an explicit
// WithK up to 16, or a target FPR whose best LayoutDistinct k is no higher: targets down to about
// 1e-6), and LayoutDistinct below that, where split's capped k would cost 3-14% more bits; it
// never chooses LayoutHalf, which trades bits for speed and must be asked for. Info and
// ComputePlan say which a filter got. LayoutSplit with Classic, or with WithK above 16, fails
// with ErrInvalid; so does LayoutHalf with Classic, or with WithK other than 8 (without WithK it
// takes 8).
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

// WithGrowth makes each stage of a growing filter growth times the capacity of the one before,
// growth in (1, MaxGrowth] (default DefaultGrowth). A larger growth makes fewer stages (fewer
// probes per absent key) at the price of more memory allocated ahead of the keys. Only for
// NewGrowing and GrowthFootprint: New and ComputePlan refuse it with ErrInvalid, as they size a
// fixed filter.
func WithGrowth(growth float64) Option {
	return func(c *config) { c.growth, c.growthSet = growth, true }
}

// WithInitialCapacity sets the capacity of a growing filter's first stage, at least 1 (default
// DefaultInitialCapacity). Set it near the expected count when one is known: the fewer the
// stages, the faster tests of absent keys. Only for NewGrowing and GrowthFootprint, like
// WithGrowth.
func WithInitialCapacity(n uint64) Option {
	return func(c *config) { c.initial, c.initialSet = n, true }
}

func applyOptions(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// fixedOptions is cOptions for New and ComputePlan, which refuse the growing options (a fixed
// filter has no stages): ok is false then.
func fixedOptions(capacity uint64, fpr float64, opts []Option) (co capi.Abloom_options, ok bool) {
	c := applyOptions(opts)
	if c.growthSet || c.initialSet {
		return nil, false
	}
	return cOptions(capacity, fpr, c), true
}

// growingOptions is cOptions for NewGrowing and GrowthFootprint: the defaults filled in and the
// growth checked here, since growth 0 would ask C for a fixed filter. ok is false for a growth
// outside (1, MaxGrowth] (NaN included) or an initial capacity of 0.
func growingOptions(fpr float64, opts []Option) (co capi.Abloom_options, ok bool) {
	c := applyOptions(opts)
	if !c.growthSet {
		c.growth = DefaultGrowth
	}
	if !c.initialSet {
		c.initial = DefaultInitialCapacity
	}
	if !(c.growth > 1 && c.growth <= MaxGrowth) || c.initial == 0 {
		return nil, false
	}
	co = cOptions(c.initial, fpr, c)
	co.SetGrowth(c.growth)
	return co, true
}

// cOptions is the C options for c, with capacity and fpr (the caller frees them).
func cOptions(capacity uint64, fpr float64, c config) capi.Abloom_options {
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
//
// A filter New makes has a fixed size: past capacity keys its FPR rises. When the number of keys
// is not known ahead, use NewGrowing. New refuses WithGrowth and WithInitialCapacity (ErrInvalid).
func New(capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	co, ok := fixedOptions(capacity, fpr, opts)
	if !ok {
		return nil, &Error{Op: "New", Code: codeInvalid}
	}
	defer capi.DeleteAbloom_options(co)
	return create("New", co)
}

func create(op string, co capi.Abloom_options) (*Filter, error) {
	out := []uintptr{0}
	if rc := capi.Abloom_create(co, out); rc != 0 {
		return nil, newError(op, rc)
	}
	return newFilter(out[0])
}

// NewGrowing makes an empty growing filter: one that needs no capacity, and keeps its
// false-positive rate below fpr in (0, 1) at any number of keys, e.g. NewGrowing(0.01). It is a
// chain of filters (stages): the first holds DefaultInitialCapacity keys (WithInitialCapacity),
// each next one DefaultGrowth times more (WithGrowth), each with its own share of fpr as its FPR
// target, shares that sum below 1 at any stage count, so that the chain's FPR, at most the sum of
// its stages', stays below fpr. A stage is
// appended, by whichever add needs it, when the newest has taken its capacity of new keys.
// WithKind, WithLayout, WithShards, WithSeed and WithThreads apply to every stage; WithBits and
// WithK do not apply (ErrInvalid).
//
// The result is a *Filter like New's, safe for the same concurrent use (adds that append a stage
// included), and every method works on the whole chain, except those that cannot: Intersect
// (a key may sit in different stages of two chains) and Open with OpenReadWrite, and Seal for a
// growing filter's file, fail with an error matching ErrUnsupported. Info describes the chain
// now (Stages, Keys, Capacity grow with it); StageInfo describes one stage. Tests of an absent key
// probe every stage, so they cost more than a fixed filter's. Single-key tests run in Go over the
// stages' memory, as a fixed filter's do; single-key adds make one call into C each (only the
// engine counts a stage's keys and appends the next).
//
// Errors: ErrInvalid (fpr out of range, a growth outside (1, MaxGrowth], an initial capacity of
// 0, WithBits, WithK, a bad option), ErrRange (too large), ErrNoMem.
func NewGrowing(fpr float64, opts ...Option) (*Filter, error) {
	co, ok := growingOptions(fpr, opts)
	if !ok {
		return nil, &Error{Op: "NewGrowing", Code: codeInvalid}
	}
	defer capi.DeleteAbloom_options(co)
	return create("NewGrowing", co)
}

// Footprint is what a growing filter reaches at some number of keys (GrowthFootprint).
type Footprint struct {
	Stages   uint32  // stages it then has: the fewest whose capacities together hold the keys
	Bytes    uint64  // their bytes of bit storage together
	FPRBound float64 // the sum of their model FPRs at their capacities: its FPR's bound, below fpr
}

// GrowthFootprint returns, without allocating, what NewGrowing(fpr, opts...) reaches once it holds
// keys distinct keys: its stage count, its memory and the bound on its FPR. Errors: those of
// NewGrowing, ErrInvalid for keys 0, and ErrRange when it cannot grow that far (MaxStages, or the
// library's size limit).
func GrowthFootprint(keys uint64, fpr float64, opts ...Option) (Footprint, error) {
	co, ok := growingOptions(fpr, opts)
	if !ok {
		return Footprint{}, &Error{Op: "GrowthFootprint", Code: codeInvalid}
	}
	defer capi.DeleteAbloom_options(co)
	stages, bytes, bound := []uint32{0}, []uint64{0}, []float64{0}
	if rc := capi.Abloom_growth_footprint(co, keys, stages, bytes, bound); rc != 0 {
		return Footprint{}, newError("GrowthFootprint", rc)
	}
	return Footprint{Stages: stages[0], Bytes: bytes[0], FPRBound: bound[0]}, nil
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
// Like New it refuses WithGrowth and WithInitialCapacity (ErrInvalid): for a growing filter see
// GrowthFootprint, and StageInfo for each stage's layout.
func ComputePlan(capacity uint64, fpr float64, opts ...Option) (Plan, error) {
	co, ok := fixedOptions(capacity, fpr, opts)
	if !ok {
		return Plan{}, &Error{Op: "ComputePlan", Code: codeInvalid}
	}
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
// k (LayoutSplit for Blocked with k up to 16, else LayoutDistinct; never LayoutHalf). Errors:
// ErrInvalid (unknown kind or layout, LayoutSplit with Classic or k above 16, LayoutHalf with
// Classic or k other than 8, k of 0 or above 64, bitsPerKey not positive and finite).
func ModelFPR(kind Kind, layout Layout, bitsPerKey float64, k uint32) (float64, error) {
	out := []float64{0}
	if rc := capi.Abloom_layout_model_fpr(uint(kind), uint(layout), bitsPerKey, uint(k), out); rc != 0 {
		return 0, newError("ModelFPR", rc)
	}
	return out[0], nil
}

// Version returns the C library's runtime version, "MAJOR.MINOR.PATCH".
func Version() string { return capi.VersionString() }
