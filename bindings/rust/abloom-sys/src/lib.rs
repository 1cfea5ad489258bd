//! Raw FFI declarations for `libabloom`, the stable C ABI of the abloom Bloom filter library
//! (`abloom.h`).
//!
//! Everything here mirrors the header one to one: the same names, the same `#[repr(C)]` layouts,
//! the same constants. Every function is documented in `abloom.h`; this crate repeats only the
//! short form. Use the safe `abloom` crate unless you need the raw calls.
//!
//! The declarations are written by hand. The crate's `tests/header.rs` compiles a C program
//! against the header in use (the bundled one, or the installed one in system mode) that checks,
//! with the C compiler, every function signature, every struct's size, alignment and field
//! offsets, and every macro and enum value against this file, and fails if the header declares
//! anything this file lacks.
//!
//! # Linking
//!
//! By default (feature `bundled`) the build script compiles the engine (from the sources the
//! packaged crate carries in `bundled/`, or from the repository's `core/` and `capi/` in a
//! checkout: a C++20 compiler is all it needs) and links it statically, with the C++ runtime. The feature `system`, or `ABLOOM_SYSTEM=1`, links an installed libabloom
//! instead: from `ABLOOM_LIB_DIR` (a directory holding `libabloom.so` or `libabloom.a`), else
//! found with pkg-config (`abloom.pc`); `ABLOOM_STATIC=1` then links `libabloom.a` and the C++
//! runtime it needs. `ABLOOM_SYSTEM=0` builds the bundled engine whatever the features say.
//!
//! ```no_run
//! use abloom_sys::*;
//! use std::ptr;
//!
//! let mut f: *mut abloom_filter = ptr::null_mut();
//! unsafe {
//!     assert_eq!(abloom_new(1000, 0.01, &mut f), ABLOOM_OK);
//!     assert_eq!(abloom_add(f, b"key".as_ptr().cast(), 3), ABLOOM_OK);
//!     assert_eq!(abloom_test(f, b"key".as_ptr().cast(), 3), 1);
//!     abloom_free(f);
//! }
//! ```
#![no_std]
#![allow(non_camel_case_types)]
#![deny(missing_docs)]

use core::ffi::{c_char, c_int, c_uint, c_void};
use core::marker::{PhantomData, PhantomPinned};

// ---- Version ------------------------------------------------------------------------------

/// Major version of the header these declarations mirror.
pub const ABLOOM_VERSION_MAJOR: c_uint = 0;
/// Minor version of the header these declarations mirror.
pub const ABLOOM_VERSION_MINOR: c_uint = 1;
/// Patch version of the header these declarations mirror.
pub const ABLOOM_VERSION_PATCH: c_uint = 0;
/// `MAJOR*10000 + MINOR*100 + PATCH`, comparable with [`abloom_version_number`].
pub const ABLOOM_VERSION_NUMBER: c_uint =
    ABLOOM_VERSION_MAJOR * 10000 + ABLOOM_VERSION_MINOR * 100 + ABLOOM_VERSION_PATCH;
/// `"MAJOR.MINOR.PATCH"` of the header these declarations mirror.
pub const ABLOOM_VERSION_STRING: &str = "0.1.0";

// ---- Error codes --------------------------------------------------------------------------

/// Success.
pub const ABLOOM_OK: c_int = 0;
/// A required pointer argument was NULL.
pub const ABLOOM_ERR_NULL: c_int = -1;
/// An argument is outside its domain.
pub const ABLOOM_ERR_INVALID: c_int = -2;
/// The requested filter is too large.
pub const ABLOOM_ERR_RANGE: c_int = -3;
/// Memory allocation failed.
pub const ABLOOM_ERR_NOMEM: c_int = -4;
/// Two filters do not have the same shape (kind, bits, shards, k, seed).
pub const ABLOOM_ERR_MISMATCH: c_int = -5;
/// An unexpected internal failure.
pub const ABLOOM_ERR_INTERNAL: c_int = -6;
/// A write to a read-only filter.
pub const ABLOOM_ERR_READONLY: c_int = -7;
/// Serialized data: wrong magic bytes.
pub const ABLOOM_ERR_BAD_MAGIC: c_int = -8;
/// Serialized data: unsupported format version.
pub const ABLOOM_ERR_VERSION: c_int = -9;
/// Serialized data: unknown kind, bit layout or hash id.
pub const ABLOOM_ERR_UNSUPPORTED: c_int = -10;
/// Serialized data: shorter than its header says.
pub const ABLOOM_ERR_TRUNCATED: c_int = -11;
/// Serialized data: bad header checksum, inconsistent fields or trailing bytes.
pub const ABLOOM_ERR_CORRUPT: c_int = -12;
/// Serialized data: the checksum over header and body does not match.
pub const ABLOOM_ERR_CHECKSUM: c_int = -13;
/// A view over a buffer that is not 64-byte aligned.
pub const ABLOOM_ERR_ALIGNMENT: c_int = -14;
/// A file system call failed (errno tells which).
pub const ABLOOM_ERR_IO: c_int = -15;
/// The caller's buffer is too small for the serialized filter.
pub const ABLOOM_ERR_TOO_SMALL: c_int = -16;
/// Serialized data: marked stale by a read-write writer that did not sync (killed, or still
/// running); its bits are valid, its checksums not current (see [`abloom_seal`]).
pub const ABLOOM_ERR_STALE: c_int = -17;

// ---- Limits -------------------------------------------------------------------------------

/// Largest number of probes (bits set per key).
pub const ABLOOM_MAX_K: u32 = 64;
/// Largest shard count.
pub const ABLOOM_MAX_SHARDS: u32 = 65536;
/// Largest value of [`abloom_options::threads`].
pub const ABLOOM_MAX_THREADS: u32 = 256;
/// Largest filter, in bytes (2^48).
pub const ABLOOM_MAX_BYTES: u64 = 1 << 48;

// ---- Options and sizing -------------------------------------------------------------------

/// Filter kinds (`enum abloom_kind`; the struct fields holding one are `u32`).
pub type abloom_kind = c_uint;
/// Every key touches exactly one 64-byte block (the default).
pub const ABLOOM_KIND_BLOCKED: abloom_kind = 0;
/// Bits spread over the whole shard: fewest bits for a target FPR, k cache misses per lookup.
pub const ABLOOM_KIND_CLASSIC: abloom_kind = 1;

/// How to build a filter. Always initialise with [`abloom_options_init`].
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct abloom_options {
    /// `sizeof(abloom_options)`, set by [`abloom_options_init`].
    pub struct_size: usize,
    /// Expected number of distinct keys (> 0).
    pub capacity: u64,
    /// Target false-positive rate at `capacity`, in (0, 1).
    pub fpr: f64,
    /// An [`abloom_kind`].
    pub kind: u32,
    /// Shard count (a power of two), or 0 for the default.
    pub shards: u32,
    /// Hash seed.
    pub seed: u64,
    /// Explicit total bit count, or 0 to derive it.
    pub bits: u64,
    /// Explicit number of probes, or 0 to choose the optimum.
    pub k: u32,
    /// Threads bulk calls may use (0 or 1: the calling thread only).
    pub threads: u32,
    /// An `ABLOOM_LAYOUT_*` (blocked kind).
    pub layout: u32,
    /// 0: a fixed filter. In (1, [`ABLOOM_MAX_GROWTH`]]: a growing filter, `capacity` its first
    /// stage's (0: [`ABLOOM_DEFAULT_INITIAL_CAPACITY`]); the struct's third version.
    pub growth: f64,
}

/// [`abloom_options::growth`]: the default growth of a growing filter.
pub const ABLOOM_DEFAULT_GROWTH: f64 = 2.0;
/// [`abloom_options::growth`]: the largest growth.
pub const ABLOOM_MAX_GROWTH: f64 = 16.0;
/// A growing filter's first stage capacity when [`abloom_options::capacity`] is 0.
pub const ABLOOM_DEFAULT_INITIAL_CAPACITY: u32 = 1024;
/// The most stages a growing filter has.
pub const ABLOOM_MAX_STAGES: u32 = 64;

/// Layout: the library's choice (options only): [`ABLOOM_LAYOUT_SPLIT`] for the blocked kind
/// wherever its k is enough (an explicit k <= [`ABLOOM_SPLIT_MAX_K`], or a target FPR whose best
/// distinct k is no higher: down to about 1e-6), [`ABLOOM_LAYOUT_DISTINCT`] otherwise (the
/// classic kind, a larger k, lower targets). `abloom_plan` and `abloom_info` say which.
pub const ABLOOM_LAYOUT_DEFAULT: u32 = 0;
/// Layout: the first k distinct multiply-shift bits of the block (format layout id 1): the
/// fewest bits, any k. The classic kind's only layout, and the blocked kind's default below
/// about 1e-6.
pub const ABLOOM_LAYOUT_DISTINCT: u32 = 1;
/// Layout: one bit in each of k <= 16 consecutive 32-bit words (format layout id 2). Blocked kind
/// only; its default wherever k <= 16 suffices.
pub const ABLOOM_LAYOUT_SPLIT: u32 = 2;
/// The largest k of [`ABLOOM_LAYOUT_SPLIT`].
pub const ABLOOM_SPLIT_MAX_K: u32 = 16;
/// Layout: one bit in each of the 8 32-bit words of one 32-byte half of the block, so k is always
/// [`ABLOOM_HALF_K`] (format layout id 3): the fewest instructions per key, for the fastest adds
/// and tests in cache, for a few percent more bits than [`ABLOOM_LAYOUT_SPLIT`]. Blocked kind
/// only, and never the default: ask for it. With it, k must be 0 (the sizing then takes
/// [`ABLOOM_HALF_K`]) or [`ABLOOM_HALF_K`].
pub const ABLOOM_LAYOUT_HALF: u32 = 3;
/// The only k of [`ABLOOM_LAYOUT_HALF`].
pub const ABLOOM_HALF_K: u32 = 8;

/// A sizing plan: what [`abloom_create`] would allocate.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct abloom_plan {
    /// `sizeof(abloom_plan)`, set by [`abloom_plan_init`] (or by the caller).
    pub struct_size: usize,
    /// An [`abloom_kind`].
    pub kind: u32,
    /// Probes per key.
    pub k: u32,
    /// Shard count.
    pub shards: u32,
    /// An `ABLOOM_LAYOUT_*`.
    pub layout: u32,
    /// 64-byte blocks in each shard.
    pub blocks_per_shard: u64,
    /// Total bits.
    pub bits: u64,
    /// Total bytes of bit storage.
    pub bytes: u64,
    /// bits / capacity.
    pub bits_per_key: f64,
    /// The model's FPR at capacity.
    pub expected_fpr: f64,
}

// ---- Lifecycle ----------------------------------------------------------------------------

/// An opaque filter handle.
#[repr(C)]
pub struct abloom_filter {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

// ---- Introspection ------------------------------------------------------------------------

/// What a filter is (see [`abloom_get_info`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct abloom_info {
    /// `sizeof(abloom_info)`, set by [`abloom_info_init`] (or by the caller).
    pub struct_size: usize,
    /// An [`abloom_kind`].
    pub kind: u32,
    /// Probes per key.
    pub k: u32,
    /// Shard count.
    pub shards: u32,
    /// An `ABLOOM_LAYOUT_*`.
    pub layout: u32,
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
    /// Target FPR given at creation (0 when the layout was explicit).
    pub target_fpr: f64,
    /// The model's FPR at capacity for this layout.
    pub expected_fpr: f64,
    /// An [`abloom_storage`].
    pub storage: u32,
    /// 1 if writes return [`ABLOOM_ERR_READONLY`].
    pub read_only: u32,
    /// 1 if the file or bytes carried the stale mark when opened (see [`ABLOOM_ERR_STALE`]);
    /// the struct's second version (the first's size is still accepted).
    pub stale: u32,
    /// Stages: 1 for a fixed filter, a growing filter's count (the struct's third version).
    pub stages: u32,
    /// 1 if a growing filter could not add a stage when it had to.
    pub growth_failed: u32,
    /// A growing filter's growth; 0 for a fixed filter.
    pub growth: f64,
    /// Keys a growing filter (or the stage) counted as new; 0 for a fixed filter.
    pub keys: u64,
}

/// The shape and the memory of a filter's bits (see [`abloom_get_memory`]), for code that probes
/// keys itself; `abloom.h` gives the rules (atomic loads, atomic ORs, valid until free).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct abloom_memory {
    /// `sizeof(abloom_memory)`, set by [`abloom_memory_init`].
    pub struct_size: usize,
    /// An [`abloom_kind`].
    pub kind: u32,
    /// An `ABLOOM_LAYOUT_*` (never the default).
    pub layout: u32,
    /// The hash: 1 = XXH3-64 with `seed`.
    pub hash_id: u32,
    /// Bits per key.
    pub k: u32,
    /// log2 of the shard count.
    pub shard_bits: u32,
    /// The shard count (entries of `shard_words`).
    pub shards: u32,
    /// 64-byte blocks in each shard.
    pub blocks_per_shard: u64,
    /// Hash seed.
    pub seed: u64,
    /// 1 if writes return [`ABLOOM_ERR_READONLY`].
    pub read_only: u32,
    /// 0.
    pub reserved: u32,
    /// `shard_words[s]`: the first word of shard `s`. Owned by the filter.
    pub shard_words: *const *const u64,
}

impl Default for abloom_memory {
    fn default() -> Self {
        Self {
            struct_size: 0,
            kind: 0,
            layout: 0,
            hash_id: 0,
            k: 0,
            shard_bits: 0,
            shards: 0,
            blocks_per_shard: 0,
            seed: 0,
            read_only: 0,
            reserved: 0,
            shard_words: core::ptr::null(),
        }
    }
}

/// Where a filter's bits live (`enum abloom_storage`; [`abloom_info::storage`]).
pub type abloom_storage = c_uint;
/// Memory the library allocated.
pub const ABLOOM_STORAGE_OWNED: abloom_storage = 0;
/// A caller's buffer (a view): read-only.
pub const ABLOOM_STORAGE_VIEW: abloom_storage = 1;
/// A memory-mapped file.
pub const ABLOOM_STORAGE_MAPPED: abloom_storage = 2;

// ---- Serialization ------------------------------------------------------------------------

/// Bytes of the serialized header.
pub const ABLOOM_HEADER_BYTES: u32 = 128;
/// Flag: check the checksum over header and body.
pub const ABLOOM_VERIFY_CHECKSUM: u32 = 0x1;
/// Flag for [`abloom_open`]: map privately and writably.
pub const ABLOOM_OPEN_COPY_ON_WRITE: u32 = 0x2;
/// Flag for [`abloom_open`]: map shared and writably (adds persist to the file).
pub const ABLOOM_OPEN_READ_WRITE: u32 = 0x4;

// ---- Instruction set ----------------------------------------------------------------------

/// Kernel: portable scalar code (every CPU).
pub const ABLOOM_ISA_SCALAR: u32 = 0;
/// Kernel: AVX2 with BMI2 (x86-64).
pub const ABLOOM_ISA_AVX2: u32 = 1;
/// Kernel: AVX-512 (F and CD) (x86-64).
pub const ABLOOM_ISA_AVX512: u32 = 2;
/// Kernel: NEON (Advanced SIMD): every aarch64 CPU, never x86-64.
pub const ABLOOM_ISA_NEON: u32 = 3;

/// Writer mode: any number of threads may write at once (atomic adds; the default).
pub const ABLOOM_WRITER_SHARED: u32 = 0;
/// Writer mode: one thread writes at a time (plain stores); unsafe with concurrent writers.
pub const ABLOOM_WRITER_EXCLUSIVE: u32 = 1;

extern "C" {
    /// A static English description of `code`.
    pub fn abloom_strerror(code: c_int) -> *const c_char;
    /// The runtime version as `MAJOR*10000 + MINOR*100 + PATCH`.
    pub fn abloom_version_number() -> c_uint;
    /// The runtime version as `"MAJOR.MINOR.PATCH"`.
    pub fn abloom_version_string() -> *const c_char;

    /// The best `ABLOOM_ISA_*` kernel this CPU can run.
    pub fn abloom_isa_supported() -> u32;
    /// The `ABLOOM_ISA_*` kernel in use now (process-wide).
    pub fn abloom_get_isa() -> u32;
    /// Use kernel `isa` from now on, process-wide.
    pub fn abloom_set_isa(isa: u32) -> c_int;
    /// `"scalar"`, `"avx2"`, `"avx512"`, `"neon"` or `"unknown"` (static storage).
    pub fn abloom_isa_name(isa: u32) -> *const c_char;

    /// Fill `opts` with defaults.
    pub fn abloom_options_init(opts: *mut abloom_options) -> c_int;
    /// Zero `plan` and set its `struct_size`, ready for [`abloom_plan_compute`].
    pub fn abloom_plan_init(plan: *mut abloom_plan) -> c_int;
    /// Compute the layout [`abloom_create`] would build.
    pub fn abloom_plan_compute(opts: *const abloom_options, plan: *mut abloom_plan) -> c_int;
    /// The model FPR of `kind` for `bits_per_key` and `k`, in the distinct layout.
    pub fn abloom_model_fpr(kind: u32, bits_per_key: f64, k: u32, out: *mut f64) -> c_int;
    /// The model FPR of `kind` in `layout` for `bits_per_key` and `k`
    /// ([`ABLOOM_LAYOUT_DEFAULT`]: the layout options with this kind and k get).
    pub fn abloom_layout_model_fpr(
        kind: u32,
        layout: u32,
        bits_per_key: f64,
        k: u32,
        out: *mut f64,
    ) -> c_int;

    /// Set how `filter` is written from now on (`ABLOOM_WRITER_*`).
    pub fn abloom_set_writer_mode(filter: *mut abloom_filter, mode: u32) -> c_int;
    /// The writer mode of `filter`, or a negative error.
    pub fn abloom_get_writer_mode(filter: *const abloom_filter) -> c_int;
    /// Set the threads bulk calls on `filter` may use from now on (0 or 1: the caller's only).
    pub fn abloom_set_threads(filter: *mut abloom_filter, threads: u32) -> c_int;
    /// The threads bulk calls on `filter` may use, or a negative error.
    pub fn abloom_get_threads(filter: *const abloom_filter) -> c_int;

    /// Create a filter from options.
    pub fn abloom_create(opts: *const abloom_options, out: *mut *mut abloom_filter) -> c_int;
    /// Create a filter with default options.
    pub fn abloom_new(capacity: u64, fpr: f64, out: *mut *mut abloom_filter) -> c_int;
    /// Free a filter (NULL is ignored).
    pub fn abloom_free(filter: *mut abloom_filter);
    /// A deep copy of `filter`.
    pub fn abloom_clone(filter: *const abloom_filter, out: *mut *mut abloom_filter) -> c_int;

    /// Add a key.
    pub fn abloom_add(filter: *mut abloom_filter, key: *const c_void, len: usize) -> c_int;
    /// 1 if the key may be present, 0 if absent, or a negative error.
    pub fn abloom_test(filter: *const abloom_filter, key: *const c_void, len: usize) -> c_int;
    /// Add the key; 1 if it was already present, 0 if new, or a negative error.
    pub fn abloom_test_and_add(filter: *mut abloom_filter, key: *const c_void, len: usize)
        -> c_int;
    /// The filter's 64-bit hash of a key.
    pub fn abloom_hash(
        filter: *const abloom_filter,
        key: *const c_void,
        len: usize,
        out: *mut u64,
    ) -> c_int;
    /// [`abloom_add`] for a precomputed hash.
    pub fn abloom_add_hash(filter: *mut abloom_filter, hash: u64) -> c_int;
    /// [`abloom_test`] for a precomputed hash.
    pub fn abloom_test_hash(filter: *const abloom_filter, hash: u64) -> c_int;
    /// [`abloom_test_and_add`] for a precomputed hash.
    pub fn abloom_test_and_add_hash(filter: *mut abloom_filter, hash: u64) -> c_int;

    /// Add n keys: `keys[i]` points at `lens[i]` bytes.
    pub fn abloom_add_many(
        filter: *mut abloom_filter,
        keys: *const *const c_void,
        lens: *const usize,
        n: usize,
        added: *mut u64,
    ) -> c_int;
    /// Test n keys: `keys[i]` points at `lens[i]` bytes.
    pub fn abloom_test_many(
        filter: *const abloom_filter,
        keys: *const *const c_void,
        lens: *const usize,
        n: usize,
        results: *mut u8,
        found: *mut u64,
    ) -> c_int;
    /// Test-and-add `n` keys in order, as `n` calls of [`abloom_test_and_add`]:
    /// `results[i]` = 1 if key `i` was already present, 0 if new.
    pub fn abloom_test_and_add_many(
        filter: *mut abloom_filter,
        keys: *const *const c_void,
        lens: *const usize,
        n: usize,
        results: *mut u8,
        added: *mut u64,
    ) -> c_int;
    /// Add n keys packed in `buf` with n+1 offsets.
    pub fn abloom_add_packed(
        filter: *mut abloom_filter,
        buf: *const c_void,
        buf_len: usize,
        offsets: *const u64,
        n: usize,
        added: *mut u64,
    ) -> c_int;
    /// Test n keys packed in `buf` with n+1 offsets.
    pub fn abloom_test_packed(
        filter: *const abloom_filter,
        buf: *const c_void,
        buf_len: usize,
        offsets: *const u64,
        n: usize,
        results: *mut u8,
        found: *mut u64,
    ) -> c_int;
    /// [`abloom_test_and_add_many`] for n keys packed in `buf` with n+1 offsets.
    pub fn abloom_test_and_add_packed(
        filter: *mut abloom_filter,
        buf: *const c_void,
        buf_len: usize,
        offsets: *const u64,
        n: usize,
        results: *mut u8,
        added: *mut u64,
    ) -> c_int;
    /// Add n precomputed hashes.
    pub fn abloom_add_hashes(
        filter: *mut abloom_filter,
        hashes: *const u64,
        n: usize,
        added: *mut u64,
    ) -> c_int;
    /// Test n precomputed hashes.
    pub fn abloom_test_hashes(
        filter: *const abloom_filter,
        hashes: *const u64,
        n: usize,
        results: *mut u8,
        found: *mut u64,
    ) -> c_int;
    /// [`abloom_test_and_add_many`] for n precomputed hashes.
    pub fn abloom_test_and_add_hashes(
        filter: *mut abloom_filter,
        hashes: *const u64,
        n: usize,
        results: *mut u8,
        added: *mut u64,
    ) -> c_int;

    /// `dst |= src`.
    pub fn abloom_union(dst: *mut abloom_filter, src: *const abloom_filter) -> c_int;
    /// `dst &= src`.
    pub fn abloom_intersect(dst: *mut abloom_filter, src: *const abloom_filter) -> c_int;
    /// Clear every bit.
    pub fn abloom_clear(filter: *mut abloom_filter) -> c_int;
    /// 1 if `a` and `b` have the same shape and bits, 0 if not, or a negative error.
    pub fn abloom_equal(a: *const abloom_filter, b: *const abloom_filter) -> c_int;

    /// Zero `info` and set its `struct_size`, ready for [`abloom_get_info`].
    pub fn abloom_info_init(info: *mut abloom_info) -> c_int;
    /// What a growing filter made with `opts` reaches at `keys` keys: stages, bytes, FPR bound.
    pub fn abloom_growth_footprint(
        opts: *const abloom_options,
        keys: u64,
        stages: *mut u32,
        bytes: *mut u64,
        fpr_bound: *mut f64,
    ) -> c_int;
    /// Describe `filter` in `*info`.
    pub fn abloom_get_info(filter: *const abloom_filter, info: *mut abloom_info) -> c_int;
    /// Describe stage `stage` of a growing filter (a fixed filter is its own stage 0).
    pub fn abloom_get_stage_info(
        filter: *const abloom_filter,
        stage: u32,
        info: *mut abloom_info,
    ) -> c_int;
    /// Zero `mem` and set its `struct_size`, ready for [`abloom_get_memory`].
    pub fn abloom_memory_init(mem: *mut abloom_memory) -> c_int;
    /// Where `filter`'s bits are and how keys map to them (read-only pointers).
    pub fn abloom_get_memory(filter: *const abloom_filter, mem: *mut abloom_memory) -> c_int;
    /// Where stage `stage` of a growing filter keeps its bits (a fixed filter is its own stage
    /// 0); a stage's memory never moves while the filter lives.
    pub fn abloom_get_stage_memory(
        filter: *const abloom_filter,
        stage: u32,
        mem: *mut abloom_memory,
    ) -> c_int;
    /// The shard pointers, writable; [`ABLOOM_ERR_READONLY`] for a read-only filter.
    pub fn abloom_get_writable_shards(
        filter: *mut abloom_filter,
        out: *mut *const *mut u64,
    ) -> c_int;
    /// Estimate the number of distinct keys added.
    pub fn abloom_estimate_count(filter: *const abloom_filter, out: *mut f64) -> c_int;
    /// Estimate the current false-positive probability.
    pub fn abloom_estimate_fpr(filter: *const abloom_filter, out: *mut f64) -> c_int;

    /// The exact serialized size of `filter`.
    pub fn abloom_serialized_size(filter: *const abloom_filter, out: *mut u64) -> c_int;
    /// Serialize `filter` into `buf[0..capacity)`.
    pub fn abloom_serialize(
        filter: *const abloom_filter,
        buf: *mut c_void,
        capacity: usize,
        written: *mut usize,
    ) -> c_int;
    /// A new owned filter from serialized bytes, fully validated.
    pub fn abloom_deserialize(
        buf: *const c_void,
        len: usize,
        out: *mut *mut abloom_filter,
    ) -> c_int;
    /// A read-only, zero-copy filter over 64-byte-aligned serialized bytes.
    pub fn abloom_view(
        buf: *const c_void,
        len: usize,
        flags: u32,
        out: *mut *mut abloom_filter,
    ) -> c_int;
    /// Save `filter` to `path`, crash-safely.
    pub fn abloom_save(filter: *const abloom_filter, path: *const c_char) -> c_int;
    /// Open a saved filter by mmap.
    pub fn abloom_open(path: *const c_char, flags: u32, out: *mut *mut abloom_filter) -> c_int;
    /// Rewrite the header and flush a read-write mapping.
    pub fn abloom_sync(filter: *mut abloom_filter) -> c_int;
    /// The last sync of a handle that writes no more: the file left sealed, later writes refused.
    pub fn abloom_sync_last(filter: *mut abloom_filter) -> c_int;
    /// Check and seal a file a read-write writer left stale.
    pub fn abloom_seal(path: *const c_char) -> c_int;

    // Deprecated names (abloom.h's last section): still exported, each its new name's call.

    /// Deprecated: [`abloom_get_isa`].
    #[deprecated(note = "use abloom_get_isa")]
    pub fn abloom_isa_active() -> u32;
    /// Deprecated: [`abloom_set_isa`].
    #[deprecated(note = "use abloom_set_isa")]
    pub fn abloom_isa_force(isa: u32) -> c_int;
    /// Deprecated: [`abloom_get_writer_mode`].
    #[deprecated(note = "use abloom_get_writer_mode")]
    pub fn abloom_writer_mode(filter: *const abloom_filter) -> c_int;
    /// Deprecated: [`abloom_get_threads`].
    #[deprecated(note = "use abloom_get_threads")]
    pub fn abloom_threads(filter: *const abloom_filter) -> c_int;
}
