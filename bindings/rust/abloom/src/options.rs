//! Building filters: [`Kind`], [`Layout`], [`Builder`], [`Plan`], [`Footprint`], and the sizing
//! model.

use crate::error::{check, Error};
use crate::filter::BloomFilter;
use abloom_sys as sys;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// The kind of filter: how a key's bits are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Kind {
    /// The default: every key's k bits lie in one 64-byte block (one cache line), so a lookup
    /// costs at most one cache miss. Needs slightly more bits than classic for the same FPR
    /// (about +3% at 1%).
    #[default]
    Blocked,
    /// Bits spread over the whole shard: the fewest bits for a target FPR, but k cache misses
    /// per lookup. For very low FPR targets where memory matters most.
    Classic,
}

impl Kind {
    pub(crate) fn to_raw(self) -> u32 {
        match self {
            Kind::Blocked => sys::ABLOOM_KIND_BLOCKED,
            Kind::Classic => sys::ABLOOM_KIND_CLASSIC,
        }
    }

    pub(crate) fn from_raw(raw: u32) -> Kind {
        if raw == sys::ABLOOM_KIND_CLASSIC {
            Kind::Classic
        } else {
            Kind::Blocked
        }
    }
}

/// The in-block layout of the blocked kind: where a key's k bits go inside its 64-byte
/// (512-bit) block.
///
/// Every layout is exact to its sizing model, so the FPR asked for is the FPR given; they
/// differ in speed and in the bits needed for it. A filter's layout is part of its shape (filters
/// of different layouts do not [`union`](crate::BloomFilter::union)) and of its file: loading
/// ([`BloomFilter::from_bytes`](crate::BloomFilter::from_bytes),
/// [`view`](crate::BloomFilter::view), [`open`](crate::BloomFilter::open)) needs no option.
///
/// There is no fixed default variant (`Layout` does not implement `Default`): a [`Builder`]
/// that is not given [`Builder::layout`] (and [`BloomFilter::new`](crate::BloomFilter::new))
/// leaves the choice to the library, which depends on the kind, k and target:
///
/// - [`Layout::Split`] for [`Kind::Blocked`] wherever split's k (at most
///   [`SPLIT_MAX_K`](Layout::SPLIT_MAX_K), 16) is enough: an explicit [`k`](Builder::k) <= 16,
///   or a target FPR whose best distinct k is <= 16 (targets down to about 1e-6; with explicit
///   [`bits`](Builder::bits) and no k, the best distinct k at those bits per key decides);
/// - [`Layout::Distinct`] otherwise: [`Kind::Classic`], an explicit k above 16, and lower
///   targets (1e-7 and below), where split's capped k would cost 3-14% more bits.
///
/// The library never chooses [`Layout::Half`]: ask for it where add and test speed in cache
/// matters more than a few percent of memory.
///
/// [`Plan::layout`], [`BloomFilter::layout`](crate::BloomFilter::layout) and
/// [`Info::layout`](crate::Info::layout) say which one a filter got.
///
/// ```
/// use abloom::{Builder, Kind, Layout};
///
/// // The library's choice: split at 1%, distinct at 1e-9, for the classic kind and for k > 16.
/// assert_eq!(Builder::new(1_000_000).fpr(0.01).plan()?.layout, Layout::Split);
/// assert_eq!(Builder::new(1_000_000).fpr(1e-9).plan()?.layout, Layout::Distinct);
/// assert_eq!(Builder::new(1_000).kind(Kind::Classic).plan()?.layout, Layout::Distinct);
/// assert_eq!(Builder::new(1_000).k(17).plan()?.layout, Layout::Distinct);
///
/// let distinct = Builder::new(1_000_000).fpr(0.01).layout(Layout::Distinct).plan()?;
/// let split = Builder::new(1_000_000).fpr(0.01).layout(Layout::Split).plan()?;
/// assert_eq!((distinct.layout, split.layout), (Layout::Distinct, Layout::Split));
/// assert!(split.k <= Layout::SPLIT_MAX_K);
/// // A few percent more bits for the same FPR.
/// assert!(split.bits_per_key >= distinct.bits_per_key);
/// assert!(split.bits_per_key < 1.03 * distinct.bits_per_key);
///
/// // Half: never the library's choice, always k 8, a few percent more bits again.
/// let half = Builder::new(1_000_000).fpr(0.01).layout(Layout::Half).plan()?;
/// assert_eq!((half.layout, half.k), (Layout::Half, Layout::HALF_K));
/// assert!(half.bits_per_key > split.bits_per_key);
/// # Ok::<(), abloom::Error>(())
/// ```
///
/// A layout id this crate does not know (reported by a newer C library, for a filter it built or
/// read) is [`Layout::Unknown`] with that id, never taken for another layout; like a new
/// [`Error`] code, a new layout may be added in a minor version, hence `#[non_exhaustive]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layout {
    /// k distinct bits anywhere in the 512-bit block (format layout id 1). The fewest bits for
    /// a target FPR, any k (up to 64). The only layout of [`Kind::Classic`], and the blocked
    /// kind's default where split's k is not enough (explicit k above 16, targets below about
    /// 1e-6).
    Distinct,
    /// One bit in each of k <= [`SPLIT_MAX_K`](Layout::SPLIT_MAX_K) (16) consecutive 32-bit
    /// words of the block (format layout id 2): a key's bits are one vector shift with no repeat
    /// check, so inserts run faster (1.5-1.9x in cache, 1.2-1.35x out of it for bulk and
    /// exclusive inserts; lookups about the same), for a few percent more bits at the same FPR
    /// (+2.3% at 1%, +1.6% at 0.1%). [`Kind::Blocked`] only; its default wherever k <= 16
    /// suffices (targets down to about 1e-6, or an explicit k <= 16).
    Split,
    /// One bit in each of the 8 32-bit words of one 32-byte half of the block (format layout
    /// id 3), so k is always [`HALF_K`](Layout::HALF_K) (8): the fewest instructions per key of
    /// any layout, for the fastest inserts and lookups in cache, for about 4% more bits than
    /// [`Layout::Split`] at a 1% target and 7% at 0.1% (its fixed k costs more at lower
    /// targets). [`Kind::Blocked`] only, and never the library's choice: ask for it with
    /// [`Builder::layout`]. With it, [`Builder::k`] must be left at 0 (the sizing then takes 8)
    /// or be 8.
    Half,
    /// A layout id this crate does not know: from a newer C library, which built or read a
    /// filter of a layout added after this crate. The filter works (the library knows its
    /// layout); only its name is unknown here. Given to [`Builder::layout`], the id is passed on
    /// as it is, and the library refuses an id it does not know ([`Error::Invalid`]).
    Unknown(u32),
}

impl Layout {
    /// The largest k of [`Layout::Split`] (one bit per 32-bit word of the block).
    pub const SPLIT_MAX_K: u32 = sys::ABLOOM_SPLIT_MAX_K;
    /// The only k of [`Layout::Half`] (one bit per 32-bit word of half the block).
    pub const HALF_K: u32 = sys::ABLOOM_HALF_K;

    /// The format's layout id (the C API's `ABLOOM_LAYOUT_*`): 1 distinct, 2 split, 3 half,
    /// [`Unknown`](Layout::Unknown)'s own id.
    pub fn id(self) -> u32 {
        match self {
            Layout::Distinct => sys::ABLOOM_LAYOUT_DISTINCT,
            Layout::Split => sys::ABLOOM_LAYOUT_SPLIT,
            Layout::Half => sys::ABLOOM_LAYOUT_HALF,
            Layout::Unknown(id) => id,
        }
    }

    pub(crate) fn to_raw(self) -> u32 {
        self.id()
    }

    /// The layout the C library reports (`abloom_plan.layout`, `abloom_info.layout`). An id
    /// this crate does not know stays what it is, [`Layout::Unknown`]: taking it for a known
    /// layout would misreport the filter's shape and its file's layout id.
    pub(crate) fn from_raw(raw: u32) -> Layout {
        match raw {
            sys::ABLOOM_LAYOUT_DISTINCT => Layout::Distinct,
            sys::ABLOOM_LAYOUT_SPLIT => Layout::Split,
            sys::ABLOOM_LAYOUT_HALF => Layout::Half,
            other => Layout::Unknown(other),
        }
    }
}

/// A sizing plan: the filter [`Builder::build`] would allocate, computed without allocating.
///
/// ```
/// let plan = abloom::Builder::new(1_000_000).fpr(0.01).plan()?;
/// assert!(plan.bits_per_key > 9.0 && plan.bits_per_key < 11.0);
/// assert!(plan.expected_fpr <= 0.01);
/// assert_eq!(plan.bytes * 8, plan.bits);
/// // The library's layout at 1% (see Layout).
/// assert_eq!(plan.layout, abloom::Layout::Split);
/// # Ok::<(), abloom::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// The filter kind.
    pub kind: Kind,
    /// The in-block layout: the one asked for with [`Builder::layout`], or the library's choice
    /// (see [`Layout`]); always [`Layout::Distinct`] for [`Kind::Classic`].
    pub layout: Layout,
    /// Probes (bits set) per key.
    pub k: u32,
    /// Shard count (the default resolved).
    pub shards: u32,
    /// 64-byte blocks in each shard.
    pub blocks_per_shard: u64,
    /// Total bits: `shards * blocks_per_shard * 512`.
    pub bits: u64,
    /// Total bytes of bit storage: `bits / 8`.
    pub bytes: u64,
    /// `bits / capacity`.
    pub bits_per_key: f64,
    /// The model's false-positive rate with `capacity` distinct keys, for this kind, layout,
    /// size and k.
    pub expected_fpr: f64,
}

/// What a growing filter reaches at a count of keys ([`Builder::footprint`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    /// Stages: the fewest whose capacities together hold the keys (at least one).
    pub stages: u32,
    /// Bytes of bit storage of those stages together.
    pub bytes: u64,
    /// The sum of those stages' model FPRs at their capacities: the bound on the filter's FPR
    /// at that count, below the target.
    pub fpr_bound: f64,
}

/// Builds a [`BloomFilter`] with options beyond capacity and FPR.
///
/// Sizing rules (as `abloom_create`): with neither [`bits`](Builder::bits) nor
/// [`k`](Builder::k) set, the fewest bits and the best k that meet the target FPR at capacity;
/// with only `k`, the fewest bits meeting the FPR with that k; with only `bits`, that many bits
/// (rounded up to whole blocks per shard) and the best k; with both, exactly that many bits and
/// k. With [`Layout::Split`] the chosen k stays within 1..=16; with [`Layout::Half`] it is
/// always 8. A growing filter
/// ([`Builder::growing`], [`Builder::growth`]) sizes each stage by its schedule instead.
///
/// ```
/// use abloom::{Builder, Kind};
///
/// let filter = Builder::new(10_000)
///     .fpr(0.001)
///     .kind(Kind::Classic)
///     .shards(4)
///     .seed(0x5EED)
///     .build()?;
/// assert_eq!(filter.kind(), Kind::Classic);
/// assert_eq!(filter.shards(), 4);
/// assert_eq!(filter.seed(), 0x5EED);
/// # Ok::<(), abloom::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Builder {
    opts: sys::abloom_options,
}

impl Builder {
    /// Options for `capacity` expected distinct keys, with the defaults: FPR 1%, blocked kind,
    /// the library's layout (see [`Layout`]), default shards, seed 0, bits and k chosen,
    /// single-threaded bulk calls, a fixed filter (no [`growth`](Builder::growth)).
    ///
    /// With [`growth`](Builder::growth), `capacity` is the first stage's of a growing filter
    /// (0: [`BloomFilter::DEFAULT_INITIAL_CAPACITY`]).
    pub fn new(capacity: u64) -> Builder {
        let mut opts = sys::abloom_options::default();
        // SAFETY: opts is a valid, writable abloom_options.
        let rc = unsafe { sys::abloom_options_init(&mut opts) };
        debug_assert_eq!(rc, sys::ABLOOM_OK);
        opts.capacity = capacity;
        Builder { opts }
    }

    /// Options for a growing filter, which needs no capacity: a chain of filters (stages), the
    /// first for [`BloomFilter::DEFAULT_INITIAL_CAPACITY`] keys, each next one
    /// [`BloomFilter::DEFAULT_GROWTH`] times the last, each with its share of the FPR target
    /// (shares that sum below 1 at any number of stages), so that the chain's FPR stays below
    /// [`fpr`](Builder::fpr) at any number of keys. A stage is appended when the newest has
    /// taken its capacity of new keys. The same as
    /// `Builder::new(0).growth(BloomFilter::DEFAULT_GROWTH)`; set the first stage's capacity
    /// with `Builder::new(capacity).growth(g)` instead. Kind, layout, shards, seed and threads
    /// apply to every stage; [`bits`](Builder::bits) and [`k`](Builder::k) must stay 0 (each
    /// stage is sized by the schedule).
    ///
    /// ```
    /// use abloom::{BloomFilter, Builder};
    ///
    /// let filter = Builder::growing().fpr(0.001).seed(7).build()?;
    /// for i in 0..5000 {
    ///     filter.insert(&format!("key{i}"))?;
    /// }
    /// let info = filter.info();
    /// assert_eq!(info.growth, BloomFilter::DEFAULT_GROWTH);
    /// assert_eq!(info.stages, 3); // 1024 + 2048 < 5000 <= 1024 + 2048 + 4096
    /// assert!(info.expected_fpr < 0.001);
    /// assert!((0..5000).all(|i| filter.contains(&format!("key{i}"))));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    pub fn growing() -> Builder {
        Builder::new(0).growth(sys::ABLOOM_DEFAULT_GROWTH)
    }

    /// Makes the filter a growing one (see [`Builder::growing`]) whose stages each have `growth`
    /// times the capacity of the last; the builder's capacity is then the first stage's (0:
    /// [`BloomFilter::DEFAULT_INITIAL_CAPACITY`]). `growth` must be in
    /// (1, [`BloomFilter::MAX_GROWTH`]]; 0 (the default) makes a fixed filter again. A larger
    /// growth appends fewer stages (fewer probes per lookup) at the cost of more memory past the
    /// keys held.
    ///
    /// ```
    /// use abloom::{Builder, Error};
    ///
    /// let f = Builder::new(5000).fpr(0.01).growth(4.0).build()?;
    /// f.insert_batch(&(0..30_000u32).map(|i| i.to_le_bytes()).collect::<Vec<_>>())?;
    /// let info = f.info();
    /// assert_eq!(info.stages, 3); // 5000 + 20000 < 30000 <= 5000 + 20000 + 80000
    /// assert_eq!(info.capacity, 5000 + 20000 + 80000);
    ///
    /// assert!(matches!(Builder::new(1000).growth(1.0).build(), Err(Error::Invalid)));
    /// assert!(matches!(Builder::new(1000).growth(17.0).build(), Err(Error::Invalid)));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// [`build`](Builder::build), [`plan`](Builder::plan) and
    /// [`footprint`](Builder::footprint) fail with [`Error::Invalid`] for a growth outside its
    /// range (negative, NaN, at most 1, above the maximum), or with [`bits`](Builder::bits) or
    /// [`k`](Builder::k) set.
    pub fn growth(mut self, growth: f64) -> Builder {
        self.opts.growth = growth;
        self
    }

    /// Target false-positive rate at capacity, in (0, 1). Default 0.01. A growing filter holds
    /// it at any number of keys.
    pub fn fpr(mut self, fpr: f64) -> Builder {
        self.opts.fpr = fpr;
        self
    }

    /// The filter kind. Default [`Kind::Blocked`].
    pub fn kind(mut self, kind: Kind) -> Builder {
        self.opts.kind = kind.to_raw();
        self
    }

    /// The in-block layout of the blocked kind. [`Layout::Split`] trades a few percent more bits
    /// for faster inserts; [`Layout::Half`] a few percent more again for the fastest inserts and
    /// lookups in cache, at k 8 only; [`Layout::Distinct`] gives the fewest bits and any k.
    /// Split needs [`Kind::Blocked`] and k <= [`Layout::SPLIT_MAX_K`]; half needs
    /// [`Kind::Blocked`] and a k of 0 (chosen: 8) or [`Layout::HALF_K`] (8): other combinations
    /// make [`build`](Builder::build) and [`plan`](Builder::plan) fail with [`Error::Invalid`].
    ///
    /// Without this call the library chooses (see [`Layout`]): split for the blocked kind
    /// wherever its k is enough (an explicit k <= 16, or a target FPR whose best distinct k is
    /// <= 16: targets down to about 1e-6), distinct otherwise (the classic kind, an explicit
    /// k > 16, lower targets); never half. [`Plan::layout`], [`BloomFilter::layout`] and
    /// [`Info::layout`](crate::Info::layout) say which one a filter got; ask for
    /// [`Layout::Distinct`] when the last 2% of memory matters more than insert speed, and for
    /// [`Layout::Half`] when speed in cache matters more than memory.
    ///
    /// ```
    /// use abloom::{BloomFilter, Builder, Error, Kind, Layout};
    ///
    /// let filter = Builder::new(100_000).fpr(0.01).layout(Layout::Split).build()?;
    /// assert_eq!(filter.layout(), Layout::Split);
    /// filter.insert("alice:bob")?;
    /// assert!(filter.contains("alice:bob"));
    ///
    /// // The file records the layout: loading needs no option.
    /// let copy = BloomFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy.layout(), Layout::Split);
    /// assert!(copy.contains("alice:bob"));
    ///
    /// // Without the call: the library's choice, here split (1%); distinct when asked for.
    /// assert_eq!(Builder::new(100_000).fpr(0.01).build()?.layout(), Layout::Split);
    /// let smallest = Builder::new(100_000).fpr(0.01).layout(Layout::Distinct).build()?;
    /// assert_eq!(smallest.layout(), Layout::Distinct);
    /// assert!(smallest.bits() <= filter.bits());
    ///
    /// // Blocked kind only, and at most 16 probes.
    /// let classic = Builder::new(1000).kind(Kind::Classic).layout(Layout::Split);
    /// assert!(matches!(classic.build(), Err(Error::Invalid)));
    /// assert!(matches!(Builder::new(1000).layout(Layout::Split).k(17).plan(), Err(Error::Invalid)));
    ///
    /// // Half: asked for, k 8 always; blocked kind only.
    /// let half = Builder::new(100_000).fpr(0.01).layout(Layout::Half).build()?;
    /// assert_eq!((half.layout(), half.k()), (Layout::Half, 8));
    /// assert!(matches!(Builder::new(1000).layout(Layout::Half).k(7).plan(), Err(Error::Invalid)));
    /// let classic = Builder::new(1000).kind(Kind::Classic).layout(Layout::Half);
    /// assert!(matches!(classic.plan(), Err(Error::Invalid)));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    pub fn layout(mut self, layout: Layout) -> Builder {
        self.opts.layout = layout.to_raw();
        self
    }

    /// Shard count: a power of two up to 65536, or 0 for the default (one shard per 16 MiB of
    /// filter, at most 64). Sharding never changes the FPR.
    pub fn shards(mut self, shards: u32) -> Builder {
        self.opts.shards = shards;
        self
    }

    /// Hash seed. Filters combine only when their seeds match. Default 0 (deterministic); use a
    /// random seed when keys may be chosen by an adversary.
    pub fn seed(mut self, seed: u64) -> Builder {
        self.opts.seed = seed;
        self
    }

    /// Explicit total bit count, or 0 (the default) to derive it from capacity and FPR.
    pub fn bits(mut self, bits: u64) -> Builder {
        self.opts.bits = bits;
        self
    }

    /// Explicit number of probes (1..=64), or 0 (the default) to choose the optimum.
    pub fn k(mut self, k: u32) -> Builder {
        self.opts.k = k;
        self
    }

    /// Threads (up to [`BloomFilter::MAX_THREADS`], 256) that the batch calls may use for
    /// batches of 65536 keys or more; 0 or 1 (the default) means the calling thread only.
    /// [`BloomFilter::set_threads`] changes it later.
    pub fn threads(mut self, threads: u32) -> Builder {
        self.opts.threads = threads;
        self
    }

    /// The filter [`build`](Builder::build) would allocate, without allocating: for a growing
    /// filter, its first stage (`capacity` and `bits_per_key` are the first stage's; see
    /// [`footprint`](Builder::footprint) for the whole chain at a count of keys).
    ///
    /// # Errors
    /// [`Error::Invalid`] for options outside their domain (including [`Layout::Split`] with
    /// [`Kind::Classic`] or k above 16, [`Layout::Half`] with [`Kind::Classic`] or a k other
    /// than 8, and a [`Layout::Unknown`]), [`Error::Range`] for a filter too large.
    pub fn plan(&self) -> Result<Plan, Error> {
        let mut p = sys::abloom_plan {
            struct_size: std::mem::size_of::<sys::abloom_plan>(),
            ..Default::default()
        };
        // SAFETY: both pointers are valid; p.struct_size is set as the C API requires.
        check(unsafe { sys::abloom_plan_compute(&self.opts, &mut p) })?;
        Ok(Plan {
            kind: Kind::from_raw(p.kind),
            layout: Layout::from_raw(p.layout),
            k: p.k,
            shards: p.shards,
            blocks_per_shard: p.blocks_per_shard,
            bits: p.bits,
            bytes: p.bytes,
            bits_per_key: p.bits_per_key,
            expected_fpr: p.expected_fpr,
        })
    }

    /// What a growing filter of these options (see [`growth`](Builder::growth)) reaches at
    /// `keys` distinct keys, without allocating: its stages then (the fewest whose capacities
    /// together hold `keys`), their bytes of bit storage together, and the bound on its FPR
    /// then (the sum of the stages' model FPRs at their capacities: below the target).
    ///
    /// ```
    /// let g = abloom::Builder::growing().fpr(0.01);
    /// let at_100k = g.footprint(100_000)?;
    /// assert_eq!(at_100k.stages, 7); // 1024 * (2^7 - 1) >= 100000
    /// assert!(at_100k.fpr_bound < 0.01);
    /// let at_1m = g.footprint(1_000_000)?;
    /// assert!(at_1m.stages > at_100k.stages && at_1m.bytes > at_100k.bytes);
    /// assert!(abloom::Builder::new(1000).footprint(100).is_err()); // a fixed filter does not grow
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] for options that do not make a growing filter (no growth, or one out
    /// of range; bits or k set; the other options' errors of [`build`](Builder::build)) or
    /// `keys` 0; [`Error::Range`] when the filter cannot grow that far
    /// ([`BloomFilter::MAX_STAGES`], or the library's size limit).
    pub fn footprint(&self, keys: u64) -> Result<Footprint, Error> {
        let mut fp = Footprint {
            stages: 0,
            bytes: 0,
            fpr_bound: 0.0,
        };
        // SAFETY: opts was initialised by abloom_options_init; the three outputs are valid.
        check(unsafe {
            sys::abloom_growth_footprint(
                &self.opts,
                keys,
                &mut fp.stages,
                &mut fp.bytes,
                &mut fp.fpr_bound,
            )
        })?;
        Ok(fp)
    }

    /// Allocates the filter, all bits clear (a growing filter: its first stage).
    ///
    /// # Errors
    /// [`Error::Invalid`] (capacity 0 for a fixed filter, FPR not in (0, 1), shards not a power
    /// of two, k above 64, [`Layout::Split`] with [`Kind::Classic`] or k above 16,
    /// [`Layout::Half`] with [`Kind::Classic`] or a k other than 8, a [`Layout::Unknown`], a
    /// growth outside (1, [`BloomFilter::MAX_GROWTH`]] or a growing filter with bits or k, ...),
    /// [`Error::Range`] (too large), [`Error::NoMem`].
    pub fn build(&self) -> Result<BloomFilter, Error> {
        let mut out = MaybeUninit::<*mut sys::abloom_filter>::uninit();
        // SAFETY: opts was initialised by abloom_options_init; out is writable.
        check(unsafe { sys::abloom_create(&self.opts, out.as_mut_ptr()) })?;
        // SAFETY: on ABLOOM_OK the C API wrote an owned, non-NULL handle.
        Ok(unsafe { BloomFilter::from_raw(NonNull::new(out.assume_init()).expect("NULL handle")) })
    }
}

/// The false-positive rate the model of `kind` predicts with `bits_per_key` bits per key and
/// `k` probes per key (classic: `(1-e^(-k/c))^k`; blocked: the Poisson mixture over block loads),
/// always in the distinct layout ([`Layout::Distinct`]), whatever layout a filter built with
/// default options gets. See [`layout_model_fpr`] for the split and half layouts, and for the model of
/// a given [`Plan`] (`layout_model_fpr(plan.kind, plan.layout, plan.bits_per_key, plan.k)`).
///
/// ```
/// let p = abloom::model_fpr(abloom::Kind::Classic, 9.59, 7)?;
/// assert!((p - 0.01).abs() < 0.0005);
/// assert!(abloom::model_fpr(abloom::Kind::Blocked, 10.0, 0).is_err());
/// # Ok::<(), abloom::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] when `bits_per_key` is not positive and finite or `k` is not in 1..=64.
pub fn model_fpr(kind: Kind, bits_per_key: f64, k: u32) -> Result<f64, Error> {
    let mut out = 0.0;
    // SAFETY: out is a valid f64.
    check(unsafe { sys::abloom_model_fpr(kind.to_raw(), bits_per_key, k, &mut out) })?;
    Ok(out)
}

/// The false-positive rate the model of `kind` in `layout` predicts with `bits_per_key` bits per
/// key and `k` probes per key: [`model_fpr`] for [`Layout::Distinct`]; for [`Layout::Split`] its
/// exact model (an inclusion-exclusion over the key's words, mixed over Poisson block loads); for
/// [`Layout::Half`] its exact model (the sum over a half block's load `i`, Poisson of mean
/// `256 / bits_per_key`, of `(1 - (31/32)^i)^8`: each of the key's 8 words has its bit set).
/// [`Plan::expected_fpr`] is this function at the plan's `bits_per_key` and `k`.
///
/// ```
/// use abloom::{layout_model_fpr, model_fpr, Kind, Layout};
///
/// let distinct = layout_model_fpr(Kind::Blocked, Layout::Distinct, 10.0, 7)?;
/// assert_eq!(distinct, model_fpr(Kind::Blocked, 10.0, 7)?);
/// let split = layout_model_fpr(Kind::Blocked, Layout::Split, 10.0, 7)?;
/// assert!(split > distinct && split < 1.2 * distinct);
/// assert!(layout_model_fpr(Kind::Classic, Layout::Split, 10.0, 7).is_err());
/// assert!(layout_model_fpr(Kind::Blocked, Layout::Split, 10.0, 17).is_err());
/// let half = layout_model_fpr(Kind::Blocked, Layout::Half, 10.0, 8)?;
/// assert!(half > split);
/// assert!(layout_model_fpr(Kind::Blocked, Layout::Half, 10.0, 7).is_err());
/// assert!(layout_model_fpr(Kind::Classic, Layout::Half, 10.0, 8).is_err());
/// # Ok::<(), abloom::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] when `bits_per_key` is not positive and finite, `k` is not in 1..=64, or
/// the layout does not fit: [`Layout::Split`] with [`Kind::Classic`] or `k` above 16,
/// [`Layout::Half`] with [`Kind::Classic`] or `k` other than 8, a [`Layout::Unknown`].
pub fn layout_model_fpr(
    kind: Kind,
    layout: Layout,
    bits_per_key: f64,
    k: u32,
) -> Result<f64, Error> {
    let mut out = 0.0;
    // SAFETY: out is a valid f64.
    check(unsafe {
        sys::abloom_layout_model_fpr(kind.to_raw(), layout.to_raw(), bits_per_key, k, &mut out)
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layout_id_maps_to_its_variant_and_back() {
        for (raw, layout) in [
            (sys::ABLOOM_LAYOUT_DISTINCT, Layout::Distinct),
            (sys::ABLOOM_LAYOUT_SPLIT, Layout::Split),
            (sys::ABLOOM_LAYOUT_HALF, Layout::Half),
        ] {
            assert_eq!(Layout::from_raw(raw), layout);
            assert_eq!((layout.id(), layout.to_raw()), (raw, raw));
        }
        assert_eq!(
            (1, 2, 3),
            (Layout::Distinct.id(), Layout::Split.id(), Layout::Half.id())
        );
        // An id this crate does not know is kept, never taken for a layout it knows.
        for raw in [0, 4, 255, u32::MAX] {
            assert_eq!(Layout::from_raw(raw), Layout::Unknown(raw));
            assert_eq!(Layout::Unknown(raw).id(), raw);
        }
    }
}
