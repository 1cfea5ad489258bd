//! Safe Rust API for abloom: lock-free, cache-line-blocked Bloom filters with a portable,
//! mmap-able file format, over the stable C ABI (`abloom.h`, crate `abloom-sys`).
//!
//! ```
//! use abloom::{BloomFilter, Kind, Layout};
//!
//! // 1M keys at a 1% false-positive rate, default options.
//! let filter = BloomFilter::new(1_000_000, 0.01)?;
//! filter.insert("alice:bob")?;
//! assert!(filter.contains("alice:bob"));       // inserted: always true
//! assert!(!filter.contains(b"carol:dan"));     // absent: false (or, at 1%, a false positive)
//!
//! // More options through the builder.
//! let classic = BloomFilter::builder(10_000).fpr(0.0001).kind(Kind::Classic).seed(7).build()?;
//! assert_eq!(classic.kind(), Kind::Classic);
//!
//! // The in-block layout is the library's choice unless asked for: split (faster inserts) at
//! // 1%; distinct when the fewest bits matter more.
//! assert_eq!(filter.layout(), Layout::Split);
//! let smallest = BloomFilter::builder(1_000_000).fpr(0.01).layout(Layout::Distinct).build()?;
//! assert_eq!(smallest.layout(), Layout::Distinct);
//! # Ok::<(), abloom::Error>(())
//! ```
//!
//! - **Keys** are byte strings, passed by reference: `&K` for any `K: AsRef<[u8]>` (`"a str"`,
//!   `&string`, `&[u8]`, `&[u8; N]`, `&vec`; an owned `String` is borrowed with `&`). The hash
//!   (XXH3-64, seeded per filter) and the bit layout are the C library's, so a filter built here
//!   answers the same as one built in C, Go or Java, and their files are interchangeable.
//! - **Layouts**: [`Kind::Blocked`] places a key's k bits in its 64-byte block in one of three
//!   [`Layout`]s: [`Layout::Split`] (one bit in each of k <= 16 32-bit words: faster inserts
//!   and lookups with SIMD, for about 1-3% more bits at 1%), [`Layout::Distinct`] (fewest
//!   bits for a target FPR, any k) or [`Layout::Half`] (one bit in each 32-bit word of half the
//!   block, k always 8: the fastest inserts and lookups in cache, for about 4% more bits than
//!   split at 1%; never chosen by the library). Unless [`Builder::layout`] asks for one, the
//!   library chooses: split wherever its k is enough (targets down to about 1e-6, or an explicit
//!   k <= 16), distinct otherwise (and always for [`Kind::Classic`]);
//!   [`BloomFilter::layout`] says which. A file records its layout, so loading needs no
//!   option; [`layout_model_fpr`] is the sizing model.
//! - **Threads**: [`BloomFilter`] is `Send + Sync` and inserts and lookups take `&self`; share
//!   one through an `Arc` with no lock (see the type's docs for the rules).
//! - **One writer**: [`BloomFilter::into_exclusive`] gives an [`ExclusiveFilter`], whose inserts
//!   use plain stores instead of atomic ones (faster) for a filter one thread fills.
//! - **Batches**: [`BloomFilter::insert_batch`] and [`BloomFilter::contains_batch`] hand a
//!   whole slice to the C library in one call, which hashes it, prefetches every block, then
//!   probes: much faster than a loop of single calls on large filters. With
//!   [`BloomFilter::set_threads`] (or [`Builder::threads`]) the C library splits a batch of
//!   65536 keys or more across threads, with the same answers and bits.
//! - **Persistence**: [`BloomFilter::to_bytes`] / [`BloomFilter::from_bytes`], a zero-copy
//!   [`BloomFilter::view`], and files with [`BloomFilter::save`] (crash-safe) and
//!   [`BloomFilter::open`] / [`OpenOptions`] (mmap: read-only, copy-on-write or read-write).
//! - **Growing filters**: [`BloomFilter::growing`] (or [`Builder::growing`],
//!   [`Builder::growth`]) needs no capacity: a chain of stages, each larger than the last, that
//!   holds the FPR target at any number of keys; the same [`BloomFilter`] type, see its
//!   "Growing filters" section. [`Builder::footprint`] plans one, [`BloomFilter::stage_info`]
//!   describes its stages.
//! - **Errors** are [`Error`], one variant per C error code.
//! - Feature `serde`: `Serialize`/`Deserialize` as the portable bytes.
//! - **Building**: by default (feature `bundled`) `abloom-sys` compiles the C++ engine from the
//!   sources it bundles and links it statically: a C++20 compiler is all it needs. Feature
//!   `system` (or `ABLOOM_SYSTEM=1`) links an installed libabloom instead.
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod error;
mod exclusive;
mod filter;
pub mod isa;
mod options;
#[cfg(feature = "serde")]
mod serde_impl;
mod view;

pub use error::Error;
pub use exclusive::ExclusiveFilter;
pub use filter::{seal, BloomFilter, Info, OpenMode, OpenOptions, Storage};
pub use options::{layout_model_fpr, model_fpr, Builder, Footprint, Kind, Layout, Plan};
pub use view::{AlignedBytes, FilterView};

/// Re-export of the raw declarations, for calls the safe API does not cover
/// (see [`BloomFilter::as_raw`]).
pub use abloom_sys as sys;

/// The linked C library's version, `"MAJOR.MINOR.PATCH"`.
///
/// ```
/// assert!(abloom::version().starts_with("0."));
/// ```
pub fn version() -> &'static str {
    // SAFETY: abloom_version_string returns a static NUL-terminated string.
    let s = unsafe { std::ffi::CStr::from_ptr(sys::abloom_version_string()) };
    s.to_str().unwrap_or("")
}
