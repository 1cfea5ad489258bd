//! [`BloomFilter`]: the owning handle, its single keys, set operations, threads and
//! introspection. Its batch methods are in `filter/batch.rs`, its bytes and files in
//! `filter/io.rs` (as the Go package splits `filter.go`, `batch.go` and `io.go`).

mod batch;
mod io;

pub use io::{seal, OpenMode, OpenOptions};

use crate::error::{check, Error};
use crate::options::{Builder, Kind, Layout};
use abloom_sys as sys;
use std::fmt;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// Where a filter's bits live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Memory the library allocated ([`BloomFilter::new`], [`Builder::build`], `clone`,
    /// [`BloomFilter::from_bytes`]).
    Owned,
    /// A caller's buffer ([`BloomFilter::view`]): read-only.
    View,
    /// A memory-mapped file ([`BloomFilter::open`], [`OpenOptions::open`]).
    Mapped,
}

/// Everything about a filter's shape and origin ([`BloomFilter::info`]), or about one stage of
/// a growing filter ([`BloomFilter::stage_info`]).
///
/// For a growing filter, [`BloomFilter::info`] describes the whole chain: `kind`, `layout`, `k`,
/// `shards` and `blocks_per_shard` are the newest stage's; `bits` and `bytes` the stages'
/// together; `capacity` the keys the stages hold before the next one is appended (their
/// capacities together); `target_fpr` the chain's target; `expected_fpr` the sum of the
/// stages' model FPRs at their capacities (the bound, below the target).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Info {
    /// The filter kind.
    pub kind: Kind,
    /// The in-block layout (as built: the one asked for with [`Builder::layout`], or the
    /// library's choice, see [`Layout`]; or as recorded in the file). Always
    /// [`Layout::Distinct`] for [`Kind::Classic`].
    pub layout: Layout,
    /// Probes (bits set) per key.
    pub k: u32,
    /// Shard count.
    pub shards: u32,
    /// 64-byte blocks in each shard.
    pub blocks_per_shard: u64,
    /// Total bits.
    pub bits: u64,
    /// Total bytes of bit storage.
    pub bytes: u64,
    /// Capacity the filter was sized for.
    pub capacity: u64,
    /// Hash seed.
    pub seed: u64,
    /// Target FPR given at creation (0 when bits and k were both given).
    pub target_fpr: f64,
    /// The model's FPR at `capacity` keys for this kind, layout, size and k.
    pub expected_fpr: f64,
    /// Where the bits live.
    pub storage: Storage,
    /// Whether writes fail with [`Error::ReadOnly`].
    pub read_only: bool,
    /// Whether the file or bytes carried the stale mark when opened (see [`Error::Stale`]; for
    /// [`OpenMode::ReadWrite`], before this open marked them). False for filters of their own
    /// memory.
    pub stale: bool,
    /// Stages: 1 for a fixed filter; a growing filter's stages now (the chain's count also in
    /// a stage's info).
    pub stages: u32,
    /// A growing filter's [`growth`](Builder::growth) (each stage's capacity over the last's);
    /// 0 for a fixed filter.
    pub growth: f64,
    /// Whether a growing filter could not append a stage when it had to
    /// ([`BloomFilter::MAX_STAGES`], the size limits, or no memory): its newest stage then takes
    /// every key past its capacity, and the FPR is no longer held. False for fixed filters.
    pub growth_failed: bool,
    /// A growing filter's keys counted as new (for a stage: the stage's), exact with one writer,
    /// at worst a little over with many. 0 for a fixed filter, which does not count its keys
    /// ([`BloomFilter::estimate_count`] estimates them).
    pub keys: u64,
}

impl Info {
    /// Whether this is a growing filter's (or stage's) info.
    pub fn is_growing(&self) -> bool {
        self.growth != 0.0
    }

    fn from_raw(i: &sys::abloom_info) -> Info {
        Info {
            kind: Kind::from_raw(i.kind),
            layout: Layout::from_raw(i.layout),
            k: i.k,
            shards: i.shards,
            blocks_per_shard: i.blocks_per_shard,
            bits: i.bits,
            bytes: i.bytes,
            capacity: i.capacity,
            seed: i.seed,
            target_fpr: i.target_fpr,
            expected_fpr: i.expected_fpr,
            storage: match i.storage {
                sys::ABLOOM_STORAGE_VIEW => Storage::View,
                sys::ABLOOM_STORAGE_MAPPED => Storage::Mapped,
                _ => Storage::Owned,
            },
            read_only: i.read_only != 0,
            stale: i.stale != 0,
            stages: i.stages,
            growth: i.growth,
            growth_failed: i.growth_failed != 0,
            keys: i.keys,
        }
    }

    /// A zeroed info of the current struct version, ready for the C calls that fill it.
    fn raw() -> sys::abloom_info {
        sys::abloom_info {
            struct_size: std::mem::size_of::<sys::abloom_info>(),
            ..Default::default()
        }
    }
}

/// A Bloom filter: a set that answers "definitely absent" or "maybe present" for byte-string
/// keys, in a fixed amount of memory.
///
/// Keys are anything that is `AsRef<[u8]>`: `str`, `String`, `[u8]`, `Vec<u8>`, `[u8; N]`, ...
/// A key always tests present after it was inserted (no false negatives); a key never inserted
/// tests present with the filter's false-positive rate.
///
/// ```
/// use abloom::BloomFilter;
///
/// let filter = BloomFilter::new(1_000_000, 0.01)?; // 1M keys at 1%
/// filter.insert("alice:bob")?;
/// assert!(filter.contains("alice:bob"));
/// assert!(!filter.contains("carol:dan"));
/// # Ok::<(), abloom::Error>(())
/// ```
///
/// # Thread safety
///
/// `BloomFilter` is `Send + Sync`, and every insert and lookup takes `&self`: the C core is
/// lock-free (relaxed atomic `fetch_or` on 64-bit words), so any number of threads may insert
/// and test through one shared filter (e.g. an `Arc<BloomFilter>`) without a lock. A key whose
/// insert returned is seen by every later lookup ordered after it. [`union`](Self::union) also
/// takes `&self` (the C API allows it alongside concurrent inserts). [`intersect`](Self::intersect),
/// [`clear`](Self::clear) and [`sync`](Self::sync) take `&mut self`: concurrent inserts could be
/// lost by the first two, and the last must not race with inserts. So a filter shared through
/// an `Arc` cannot be cleared while other threads may insert:
///
/// ```compile_fail,E0596
/// let shared = std::sync::Arc::new(abloom::BloomFilter::new(100, 0.01).unwrap());
/// shared.clear(); // error: cannot borrow data in an `Arc` as mutable
/// ```
///
/// # Read-only filters
///
/// A filter opened read-only ([`BloomFilter::open`]) or a [`view`](Self::view) answers every
/// query, and every write to it returns [`Error::ReadOnly`]. That is why the insert methods
/// return a `Result` even though an owned filter's inserts never fail; [`is_read_only`](Self::is_read_only)
/// tells in advance.
///
/// # Growing filters
///
/// A filter from [`BloomFilter::growing`], [`Builder::growing`] or [`Builder::growth`] needs no
/// capacity: it is a chain of filters (stages), each `growth` times the capacity of the last
/// and each with its share of the FPR target, so that the chain's FPR stays below the target at
/// any number of keys. It is the same type and does everything a fixed filter does (single
/// keys, batches, threads, [`into_exclusive`](Self::into_exclusive), union of filters made with
/// the same options, clone, clear, equality, estimates, bytes, views, files, serde), except
/// what the C library refuses for chains, with [`Error::Unsupported`]:
/// [`intersect`](Self::intersect). [`OpenMode::ReadWrite`] maps the chain's file and appends
/// the stages it grows to the file. [`info`](Self::info) describes the chain,
/// [`stage_info`](Self::stage_info) each stage.
///
/// ```
/// use abloom::{BloomFilter, Error};
///
/// let mut f = BloomFilter::growing(0.01)?;
/// f.insert_batch(&(0..10_000u32).map(|i| i.to_le_bytes()).collect::<Vec<_>>())?;
/// assert_eq!(f.stages(), 4); // 1024 + 2048 + 4096 < 10000 <= 1024 + ... + 8192
/// let copy = BloomFilter::from_bytes(&f.to_bytes())?; // every stage
/// assert_eq!(copy, f);
/// assert!(matches!(f.intersect(&copy), Err(Error::Unsupported)));
/// # Ok::<(), abloom::Error>(())
/// ```
///
/// # Lifetime
///
/// The handle is freed on drop (a read-write mapping is synced first; use
/// [`close`](Self::close) to see that error). Ownership makes use after free impossible.
pub struct BloomFilter {
    raw: NonNull<sys::abloom_filter>,
}

// SAFETY: an abloom_filter is heap state not tied to the thread that created it, so it may be
// moved to and freed on another thread (Send).
unsafe impl Send for BloomFilter {}
// SAFETY: (Sync) every method taking `&self` calls only C functions that abloom.h documents as
// safe to run concurrently on one filter: abloom_add*, abloom_test*, abloom_test_and_add*,
// abloom_hash, abloom_union, the estimate and info calls, and abloom_serialize/abloom_save
// ("safe while other threads add"), and abloom_set_threads and abloom_get_threads (a relaxed atomic
// of the handle, "may run beside any other"); abloom_clone and abloom_equal read the bits with
// the same relaxed atomic loads as the tests (core/filter/filter.cpp). The calls the header says must not race
// (abloom_intersect and abloom_clear, which could drop concurrent inserts, abloom_sync, and
// abloom_free) are reached only through `&mut self` or by value (drop, close).
unsafe impl Sync for BloomFilter {}

impl BloomFilter {
    /// A filter for `capacity` distinct keys at false-positive rate `fpr`, with default options
    /// (blocked kind, seed 0, the library's layout: [`Layout::Split`] down to about 1e-6,
    /// [`Layout::Distinct`] below, see [`Layout`]). See [`Builder`] for more.
    ///
    /// # Errors
    /// [`Error::Invalid`] for capacity 0 or `fpr` not in (0, 1), [`Error::Range`] when too
    /// large, [`Error::NoMem`].
    pub fn new(capacity: u64, fpr: f64) -> Result<BloomFilter, Error> {
        let mut out = MaybeUninit::<*mut sys::abloom_filter>::uninit();
        // SAFETY: out is writable.
        check(unsafe { sys::abloom_new(capacity, fpr, out.as_mut_ptr()) })?;
        // SAFETY: on success the C API wrote an owned, non-NULL handle.
        Ok(unsafe { BloomFilter::from_out(out) })
    }

    /// A [`Builder`] for `capacity` keys, to set kind, layout, shards, seed, bits, k,
    /// threads and growth.
    pub fn builder(capacity: u64) -> Builder {
        Builder::new(capacity)
    }

    /// A growing filter at false-positive rate `fpr`, which needs no capacity: it appends
    /// stages as keys come, and holds `fpr` at any number of them (see [`Builder::growing`],
    /// whose defaults it takes: first stage
    /// [`DEFAULT_INITIAL_CAPACITY`](Self::DEFAULT_INITIAL_CAPACITY), growth
    /// [`DEFAULT_GROWTH`](Self::DEFAULT_GROWTH)).
    ///
    /// ```
    /// let f = abloom::BloomFilter::growing(0.01)?;
    /// f.insert_batch(&(0..100_000u32).map(|i| i.to_le_bytes()).collect::<Vec<_>>())?;
    /// assert!(f.is_growing());
    /// assert_eq!(f.stages(), 7); // 1024 * (2^7 - 1) >= 100000
    /// assert!(f.contains(&99_999u32.to_le_bytes()));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] for `fpr` not in (0, 1), [`Error::NoMem`].
    pub fn growing(fpr: f64) -> Result<BloomFilter, Error> {
        Builder::growing().fpr(fpr).build()
    }

    /// A growing filter's default growth ([`Builder::growing`]): each stage twice the last.
    pub const DEFAULT_GROWTH: f64 = sys::ABLOOM_DEFAULT_GROWTH;
    /// The largest [`Builder::growth`].
    pub const MAX_GROWTH: f64 = sys::ABLOOM_MAX_GROWTH;
    /// A growing filter's first stage capacity when the builder's capacity is 0.
    pub const DEFAULT_INITIAL_CAPACITY: u64 = sys::ABLOOM_DEFAULT_INITIAL_CAPACITY as u64;
    /// The most stages a growing filter has: past them (or the library's size limit) its newest
    /// stage takes every further key ([`Info::growth_failed`]).
    pub const MAX_STAGES: u32 = sys::ABLOOM_MAX_STAGES;

    /// # Safety
    /// `raw` must be an owned handle from the C API, not used elsewhere afterwards.
    pub(crate) unsafe fn from_raw(raw: NonNull<sys::abloom_filter>) -> BloomFilter {
        BloomFilter { raw }
    }

    /// # Safety
    /// `out` must have been written by a successful C call that hands out a handle.
    unsafe fn from_out(out: MaybeUninit<*mut sys::abloom_filter>) -> BloomFilter {
        BloomFilter::from_raw(NonNull::new(out.assume_init()).expect("abloom returned NULL"))
    }

    fn ptr(&self) -> *const sys::abloom_filter {
        self.raw.as_ptr()
    }

    /// A mutable pointer for the C calls that take one; the C core synchronises the writes
    /// itself (atomics), see the `Sync` justification.
    fn mut_ptr(&self) -> *mut sys::abloom_filter {
        self.raw.as_ptr()
    }

    /// The raw handle, for calls into `abloom-sys`. It stays owned by `self`: do not free it,
    /// and do not call functions that must not race (see `abloom.h`) while `self` is shared.
    pub fn as_raw(&self) -> *mut sys::abloom_filter {
        self.raw.as_ptr()
    }

    // ---- Single keys ------------------------------------------------------------------------

    /// Inserts `key`.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter (a view, or a file opened read-only); an owned
    /// filter's insert never fails.
    pub fn insert<K: AsRef<[u8]> + ?Sized>(&self, key: &K) -> Result<(), Error> {
        let k = key.as_ref();
        // SAFETY: k is a valid slice for the call; the handle is live.
        check(unsafe { sys::abloom_add(self.mut_ptr(), k.as_ptr().cast(), k.len()) })?;
        Ok(())
    }

    /// `false` if `key` was definitely never inserted, `true` if it may have been.
    pub fn contains<K: AsRef<[u8]> + ?Sized>(&self, key: &K) -> bool {
        let k = key.as_ref();
        // SAFETY: k is a valid slice for the call; the handle is live.
        let rc = unsafe { sys::abloom_test(self.ptr(), k.as_ptr().cast(), k.len()) };
        debug_assert!(rc >= 0, "abloom_test failed: {rc}");
        rc == 1
    }

    /// Inserts `key` and tells, from the same pass over its bits, whether it was already
    /// present: `Ok(true)` if all its bits were set (a repeat, or a false positive), `Ok(false)`
    /// if it is new. Of concurrent `insert_checked` calls with one new key, at least one
    /// returns `Ok(false)`.
    ///
    /// ```
    /// let f = abloom::BloomFilter::new(100, 0.01)?;
    /// assert_eq!(f.insert_checked("url")?, false);
    /// assert_eq!(f.insert_checked("url")?, true);
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert_checked<K: AsRef<[u8]> + ?Sized>(&self, key: &K) -> Result<bool, Error> {
        let k = key.as_ref();
        // SAFETY: k is a valid slice for the call; the handle is live.
        let rc =
            check(unsafe { sys::abloom_test_and_add(self.mut_ptr(), k.as_ptr().cast(), k.len()) })?;
        Ok(rc == 1)
    }

    /// The filter's 64-bit hash of `key` (XXH3-64 with the filter's seed), for the `*_hash`
    /// methods. Portable across machines and bindings.
    pub fn hash<K: AsRef<[u8]> + ?Sized>(&self, key: &K) -> u64 {
        let k = key.as_ref();
        let mut h = 0u64;
        // SAFETY: k is a valid slice, h a valid u64.
        let rc = unsafe { sys::abloom_hash(self.ptr(), k.as_ptr().cast(), k.len(), &mut h) };
        debug_assert_eq!(rc, sys::ABLOOM_OK);
        h
    }

    /// [`insert`](Self::insert) for a hash from [`hash`](Self::hash) (of any filter with the
    /// same seed).
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert_hash(&self, hash: u64) -> Result<(), Error> {
        // SAFETY: the handle is live.
        check(unsafe { sys::abloom_add_hash(self.mut_ptr(), hash) })?;
        Ok(())
    }

    /// [`contains`](Self::contains) for a precomputed hash.
    pub fn contains_hash(&self, hash: u64) -> bool {
        // SAFETY: the handle is live.
        let rc = unsafe { sys::abloom_test_hash(self.ptr(), hash) };
        debug_assert!(rc >= 0);
        rc == 1
    }

    /// [`insert_checked`](Self::insert_checked) for a precomputed hash.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert_checked_hash(&self, hash: u64) -> Result<bool, Error> {
        // SAFETY: the handle is live.
        Ok(check(unsafe { sys::abloom_test_and_add_hash(self.mut_ptr(), hash) })? == 1)
    }

    // ---- Set operations ---------------------------------------------------------------------

    /// `self |= other`: `self` then answers `true` for every key of either. Safe while other
    /// threads insert into either filter, hence `&self`.
    ///
    /// ```
    /// use abloom::{BloomFilter, Error};
    ///
    /// let a = BloomFilter::new(1000, 0.01)?;
    /// let b = BloomFilter::new(1000, 0.01)?;
    /// a.insert("x")?;
    /// b.insert("y")?;
    /// a.union(&b)?;
    /// assert!(a.contains("x") && a.contains("y"));
    ///
    /// let other_shape = BloomFilter::new(2000, 0.01)?;
    /// assert!(matches!(a.union(&other_shape), Err(Error::Mismatch)));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// Growing filters combine when they were made with the same options (kind, layout, shards,
    /// seed, first capacity, growth and FPR), stage by stage: `self` first appends stages up to
    /// `other`'s count, then each stage takes the bits and the count of keys of `other`'s. A
    /// stage may then hold more keys than its capacity (two full ones: twice it), and the FPR
    /// is then above the target ([`estimate_fpr`](Self::estimate_fpr) says by how much): to
    /// combine, keep each filter below the capacity of the stages they share, or rather let
    /// threads insert into one shared growing filter. A growing filter and a fixed one never
    /// combine.
    ///
    /// # Errors
    /// [`Error::Mismatch`] unless both have the same kind, layout, k, shards, blocks per shard
    /// and seed (growing filters: the same options; a growing and a fixed one: always);
    /// [`Error::ReadOnly`] if `self` is read-only; [`Error::Range`] when a growing `self`
    /// cannot append the stages `other` has.
    pub fn union(&self, other: &BloomFilter) -> Result<(), Error> {
        // SAFETY: both handles are live; dst == src is allowed.
        check(unsafe { sys::abloom_union(self.mut_ptr(), other.ptr()) })?;
        Ok(())
    }

    /// `self &= other`: keeps the bits set in both (an over-approximation of the keys in
    /// both). Takes `&mut self` because inserts racing with it could be lost.
    ///
    /// # Errors
    /// [`Error::Mismatch`], [`Error::ReadOnly`], as [`union`](Self::union);
    /// [`Error::Unsupported`] when either filter is growing: a key both chains hold may sit in
    /// different stages of each, so a stage-by-stage intersection would lose it.
    pub fn intersect(&mut self, other: &BloomFilter) -> Result<(), Error> {
        // SAFETY: both handles are live; `&mut self` excludes racing inserts into self.
        check(unsafe { sys::abloom_intersect(self.mut_ptr(), other.ptr()) })?;
        Ok(())
    }

    /// Clears every bit: the filter is empty again, its shape unchanged. A growing filter
    /// keeps its stages (and their memory), all empty, and its count of keys goes to 0; new
    /// keys go to the newest stage.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn clear(&mut self) -> Result<(), Error> {
        // SAFETY: the handle is live; `&mut self` excludes racing inserts.
        check(unsafe { sys::abloom_clear(self.mut_ptr()) })?;
        Ok(())
    }

    /// A deep copy with owned storage (a copy of a mapped or viewed filter is an ordinary,
    /// writable in-memory filter).
    ///
    /// # Errors
    /// [`Error::NoMem`].
    pub fn try_clone(&self) -> Result<BloomFilter, Error> {
        let mut out = MaybeUninit::<*mut sys::abloom_filter>::uninit();
        // SAFETY: the handle is live; out is writable.
        check(unsafe { sys::abloom_clone(self.ptr(), out.as_mut_ptr()) })?;
        // SAFETY: on success the C API wrote an owned, non-NULL handle.
        Ok(unsafe { BloomFilter::from_out(out) })
    }

    // ---- Bulk threads -----------------------------------------------------------------------

    /// The most threads a filter's batch calls may use ([`set_threads`](Self::set_threads),
    /// [`Builder::threads`]): the C library's `ABLOOM_MAX_THREADS`.
    pub const MAX_THREADS: u32 = sys::ABLOOM_MAX_THREADS;

    /// Sets how many threads (up to [`MAX_THREADS`](Self::MAX_THREADS); 0 or 1: the calling
    /// thread only) the batch calls ([`insert_batch`](Self::insert_batch),
    /// [`contains_batch`](Self::contains_batch), the packed and hash forms) may use from now
    /// on, as [`Builder::threads`] does for a new filter. Batches of 65536 keys or more are
    /// split across them; the answers, the bits set and the counts of new keys are exactly the
    /// single-threaded ones.
    ///
    /// The count belongs to this handle, not to the bits: it is not saved. A filter from
    /// [`Builder::build`] starts with [`Builder::threads`] (1 without it); one from
    /// [`open`](Self::open), [`from_bytes`](Self::from_bytes) or [`view`](Self::view) with 1;
    /// a clone with its source's current count. It takes `&self`: it may be called at any time,
    /// also while other threads run batch calls on the filter (each keeps the count it started
    /// with), and on read-only filters (for their batch lookups).
    ///
    /// ```
    /// let f = abloom::BloomFilter::new(1_000_000, 0.01)?;
    /// assert_eq!(f.threads(), 1);
    /// f.set_threads(4)?;
    /// assert_eq!(f.threads(), 4);
    /// let too_many = f.set_threads(abloom::BloomFilter::MAX_THREADS + 1);
    /// assert!(matches!(too_many, Err(abloom::Error::Invalid)));
    /// assert_eq!(f.threads(), 4);
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] above [`MAX_THREADS`](Self::MAX_THREADS) (nothing changes).
    pub fn set_threads(&self, threads: u32) -> Result<(), Error> {
        // SAFETY: the handle is live; the count is a relaxed atomic of the handle, which the C
        // API lets any thread set beside any other call.
        check(unsafe { sys::abloom_set_threads(self.mut_ptr(), threads) })?;
        Ok(())
    }

    /// How many threads the batch calls may use: 1 to [`MAX_THREADS`](Self::MAX_THREADS) (1
    /// after `set_threads(0)`). See [`set_threads`](Self::set_threads).
    pub fn threads(&self) -> u32 {
        // SAFETY: the handle is live.
        let n = unsafe { sys::abloom_get_threads(self.ptr()) };
        u32::try_from(n).expect("abloom_get_threads failed on a live handle")
    }

    // ---- Introspection ----------------------------------------------------------------------

    /// Layout and origin of the filter (of a growing filter: the whole chain, see [`Info`]).
    pub fn info(&self) -> Info {
        let mut i = Info::raw();
        // SAFETY: i is valid with struct_size set as the C API requires.
        let rc = unsafe { sys::abloom_get_info(self.ptr(), &mut i) };
        assert_eq!(rc, sys::ABLOOM_OK, "abloom_get_info failed");
        Info::from_raw(&i)
    }

    /// Stage `stage` (0: the oldest) of a growing filter, described as [`info`](Self::info)
    /// describes a fixed filter: its kind, layout, k, size, capacity, target and model FPR, and
    /// its count of new keys in [`Info::keys`] (`stages`, `growth` and `growth_failed` are the
    /// chain's). A fixed filter is its own stage 0. Stages are only ever appended (and
    /// [`clear`](Self::clear) keeps them), so a stage below [`stages`](Self::stages) stays valid.
    ///
    /// ```
    /// let f = abloom::Builder::new(100).growth(2.0).build()?;
    /// f.insert_batch(&(0..250u32).map(|i| i.to_le_bytes()).collect::<Vec<_>>())?;
    /// let capacities: Vec<u64> = f.stage_infos().map(|s| s.capacity).collect();
    /// assert_eq!(capacities, [100, 200]);
    /// // Each stage has its share of the chain's target.
    /// let shares: f64 = f.stage_infos().map(|s| s.target_fpr).sum();
    /// assert!(shares < f.info().target_fpr);
    /// assert!(matches!(f.stage_info(2), Err(abloom::Error::Range)));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Range`] when there is no such stage.
    pub fn stage_info(&self, stage: u32) -> Result<Info, Error> {
        let mut i = Info::raw();
        // SAFETY: i is valid with struct_size set as the C API requires.
        check(unsafe { sys::abloom_get_stage_info(self.ptr(), stage, &mut i) })?;
        Ok(Info::from_raw(&i))
    }

    /// The [`stage_info`](Self::stage_info) of every stage there is when called, oldest first
    /// (one for a fixed filter). Stages appended meanwhile by other threads' inserts are not
    /// included.
    pub fn stage_infos(&self) -> impl ExactSizeIterator<Item = Info> + '_ {
        (0..self.stages()).map(move |s| {
            self.stage_info(s)
                .expect("a stage below the count exists until the filter is freed")
        })
    }

    /// Whether this is a growing filter ([`Builder::growing`], [`Builder::growth`]).
    pub fn is_growing(&self) -> bool {
        self.info().is_growing()
    }

    /// Stages: 1 for a fixed filter, a growing filter's count now.
    pub fn stages(&self) -> u32 {
        self.info().stages
    }

    /// The filter kind.
    pub fn kind(&self) -> Kind {
        self.info().kind
    }

    /// The in-block layout: the one asked for with [`Builder::layout`], or the one the library
    /// chose when the builder did not say (see [`Layout`]), or the one recorded in the file.
    pub fn layout(&self) -> Layout {
        self.info().layout
    }

    /// Probes (bits set) per key.
    pub fn k(&self) -> u32 {
        self.info().k
    }

    /// Total bits (a growing filter: of all its stages).
    pub fn bits(&self) -> u64 {
        self.info().bits
    }

    /// Shard count.
    pub fn shards(&self) -> u32 {
        self.info().shards
    }

    /// Hash seed.
    pub fn seed(&self) -> u64 {
        self.info().seed
    }

    /// Capacity the filter was sized for; for a growing filter, the keys its stages hold before
    /// it appends the next (their capacities together).
    pub fn capacity(&self) -> u64 {
        self.info().capacity
    }

    /// Whether writes fail with [`Error::ReadOnly`].
    pub fn is_read_only(&self) -> bool {
        self.info().read_only
    }

    /// Estimated number of distinct keys inserted, from the number of set bits (Swamidass and
    /// Baldi, per block for the blocked kind). Reads every word: O(bits). `+inf` when every bit
    /// is set.
    ///
    /// ```
    /// let f = abloom::BloomFilter::new(10_000, 0.01)?;
    /// for i in 0..5000 { f.insert(&format!("key{i}"))?; }
    /// let n = f.estimate_count();
    /// assert!((n - 5000.0).abs() < 250.0, "{n}");
    /// # Ok::<(), abloom::Error>(())
    /// ```
    pub fn estimate_count(&self) -> f64 {
        let mut out = 0.0;
        // SAFETY: out is a valid f64.
        let rc = unsafe { sys::abloom_estimate_count(self.ptr(), &mut out) };
        debug_assert_eq!(rc, sys::ABLOOM_OK);
        out
    }

    /// The probability that a key never inserted tests `true` now, from the current fill.
    /// O(bits).
    pub fn estimate_fpr(&self) -> f64 {
        let mut out = 0.0;
        // SAFETY: out is a valid f64.
        let rc = unsafe { sys::abloom_estimate_fpr(self.ptr(), &mut out) };
        debug_assert_eq!(rc, sys::ABLOOM_OK);
        out
    }
}

impl Drop for BloomFilter {
    fn drop(&mut self) {
        // SAFETY: we own the handle, and drop runs once with no other borrow alive.
        unsafe { sys::abloom_free(self.raw.as_ptr()) }
    }
}

impl Clone for BloomFilter {
    /// A deep copy with owned storage (see [`try_clone`](BloomFilter::try_clone)).
    ///
    /// # Panics
    /// If the allocation fails.
    fn clone(&self) -> BloomFilter {
        self.try_clone()
            .unwrap_or_else(|e| panic!("abloom: cannot clone filter: {e}"))
    }
}

impl PartialEq for BloomFilter {
    /// Same shape (kind, layout, k, shards, blocks per shard, seed) and the same bits. Growing
    /// filters: the same options and stages, each with the same bits (never equal to a fixed
    /// one).
    fn eq(&self, other: &BloomFilter) -> bool {
        // SAFETY: both handles are live.
        let rc = unsafe { sys::abloom_equal(self.ptr(), other.ptr()) };
        debug_assert!(rc >= 0);
        rc == 1
    }
}

impl Eq for BloomFilter {}

impl fmt::Debug for BloomFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.info();
        f.debug_struct("BloomFilter")
            .field("kind", &i.kind)
            .field("layout", &i.layout)
            .field("k", &i.k)
            .field("bits", &i.bits)
            .field("shards", &i.shards)
            .field("capacity", &i.capacity)
            .field("stages", &i.stages)
            .field("growth", &i.growth)
            .field("seed", &i.seed)
            .field("storage", &i.storage)
            .field("read_only", &i.read_only)
            .finish()
    }
}
