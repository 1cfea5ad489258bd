//! [`ExclusiveFilter`]: a filter with one writer, whose inserts use plain stores.

use std::cell::Cell;
use std::marker::PhantomData;

use crate::error::check;
use crate::{sys, BloomFilter, Error, Info};

/// A [`BloomFilter`] in the C library's exclusive-writer mode (`ABLOOM_WRITER_EXCLUSIVE`): its
/// inserts set bits with plain loads and stores instead of atomic read-modify-writes, which
/// makes them faster (the C library's bench/RESULTS.md, "C library: bulk calls"), for filters
/// that one thread fills: an offline build, one partition of a job, a bulk load before serving.
///
/// Two threads inserting at once in this mode could lose each other's bits (false negatives),
/// so the type makes that impossible rather than documenting it: it owns the filter, every
/// insert takes `&mut self`, and it is `Send` but not `Sync`, so it is used by one thread at a
/// time and no `&BloomFilter` to it can be shared meanwhile:
///
/// ```compile_fail
/// fn shared_between_threads<T: Sync>(_: &T) {}
/// let f = abloom::BloomFilter::new(100, 0.01).unwrap().into_exclusive().unwrap();
/// shared_between_threads(&f); // error: `Cell<()>` cannot be shared between threads safely
/// ```
///
/// [`into_shared`](Self::into_shared) turns it back into an ordinary, lock-free
/// [`BloomFilter`], with the same bits.
///
/// ```
/// let mut f = abloom::BloomFilter::new(10_000, 0.01)?.into_exclusive()?;
/// f.insert("alice:bob")?;
/// assert_eq!(f.insert_batch(&["carol:dan", "erin:frank"])?, 2);
/// let f = f.into_shared()?;
/// assert!(f.contains("alice:bob") && f.contains("erin:frank"));
/// # Ok::<(), abloom::Error>(())
/// ```
pub struct ExclusiveFilter {
    inner: BloomFilter,
    /// Not `Sync` (a `Cell`): one thread at a time.
    _one_thread: PhantomData<Cell<()>>,
}

impl BloomFilter {
    /// This filter in the exclusive-writer mode (see [`ExclusiveFilter`]).
    ///
    /// # Errors
    /// None today for a live filter; the C call's error is passed on.
    pub fn into_exclusive(self) -> Result<ExclusiveFilter, Error> {
        // SAFETY: the handle is live, and `self` is owned: no other thread can be writing.
        check(unsafe { sys::abloom_set_writer_mode(self.as_raw(), sys::ABLOOM_WRITER_EXCLUSIVE) })?;
        Ok(ExclusiveFilter {
            inner: self,
            _one_thread: PhantomData,
        })
    }
}

impl ExclusiveFilter {
    /// The filter back in the default, shared mode: lock-free inserts from any number of
    /// threads.
    ///
    /// # Errors
    /// None today for a live filter; the C call's error is passed on.
    pub fn into_shared(self) -> Result<BloomFilter, Error> {
        // SAFETY: the handle is live and owned by `self`.
        check(unsafe {
            sys::abloom_set_writer_mode(self.inner.as_raw(), sys::ABLOOM_WRITER_SHARED)
        })?;
        Ok(self.inner)
    }

    /// [`BloomFilter::insert`].
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert<K: AsRef<[u8]> + ?Sized>(&mut self, key: &K) -> Result<(), Error> {
        self.inner.insert(key)
    }

    /// [`BloomFilter::insert_checked`]: inserts `key` and tells whether all its bits were set.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert_checked<K: AsRef<[u8]> + ?Sized>(&mut self, key: &K) -> Result<bool, Error> {
        self.inner.insert_checked(key)
    }

    /// [`BloomFilter::insert_hash`].
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert_hash(&mut self, hash: u64) -> Result<(), Error> {
        self.inner.insert_hash(hash)
    }

    /// [`BloomFilter::insert_batch`]: returns how many keys were new.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter (nothing is inserted).
    pub fn insert_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) -> Result<u64, Error> {
        self.inner.insert_batch(keys)
    }

    /// [`BloomFilter::insert_packed`]: returns how many keys were new.
    ///
    /// # Errors
    /// [`Error::Invalid`] for bad offsets, [`Error::ReadOnly`]; nothing is inserted on error.
    pub fn insert_packed(&mut self, buf: &[u8], offsets: &[u64]) -> Result<u64, Error> {
        self.inner.insert_packed(buf, offsets)
    }

    /// [`BloomFilter::insert_hashes`]: returns how many were new.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert_hashes(&mut self, hashes: &[u64]) -> Result<u64, Error> {
        self.inner.insert_hashes(hashes)
    }

    /// [`BloomFilter::union`]: `self |= other`.
    ///
    /// # Errors
    /// [`Error::Mismatch`] for a different shape, [`Error::ReadOnly`].
    pub fn union(&mut self, other: &BloomFilter) -> Result<(), Error> {
        self.inner.union(other)
    }

    /// [`BloomFilter::contains`].
    pub fn contains<K: AsRef<[u8]> + ?Sized>(&self, key: &K) -> bool {
        self.inner.contains(key)
    }

    /// [`BloomFilter::contains_batch`].
    ///
    /// # Panics
    /// If `out.len() != keys.len()`.
    pub fn contains_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [bool]) -> usize {
        self.inner.contains_batch(keys, out)
    }

    /// [`BloomFilter::info`]: shape (kind, [`layout`](crate::Layout), k, ...) and origin.
    pub fn info(&self) -> Info {
        self.inner.info()
    }

    /// [`BloomFilter::set_threads`]: the threads the batch calls may use from now on. One
    /// batch on several threads is still one writer (its threads write disjoint words).
    ///
    /// # Errors
    /// [`Error::Invalid`] above [`BloomFilter::MAX_THREADS`] (nothing changes).
    pub fn set_threads(&self, threads: u32) -> Result<(), Error> {
        self.inner.set_threads(threads)
    }

    /// [`BloomFilter::threads`].
    pub fn threads(&self) -> u32 {
        self.inner.threads()
    }
}

impl std::fmt::Debug for ExclusiveFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ExclusiveFilter").field(&self.inner).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Layout;

    fn keys(n: usize, tag: &str) -> Vec<String> {
        (0..n).map(|i| format!("{tag}:{i}")).collect()
    }

    /// Every insert method, exclusive and shared, sets the same bits and gives the same answers,
    /// in every in-block layout.
    #[test]
    fn exclusive_inserts_set_the_bits_shared_ones_set() {
        for layout in [Layout::Distinct, Layout::Split, Layout::Half] {
            exclusive_inserts_match_shared(layout);
        }
    }

    fn exclusive_inserts_match_shared(layout: Layout) {
        let builder = BloomFilter::builder(20_000).seed(3).layout(layout);
        let build = |exclusive: bool| -> (BloomFilter, Vec<bool>, Vec<u64>) {
            let other = builder.build().unwrap();
            other.insert_batch(&keys(500, "other")).unwrap();
            let f = builder.build().unwrap();
            let (mut checked, mut counts) = (Vec::new(), Vec::new());
            let single = keys(2000, "single");
            let hashes: Vec<u64> = keys(2000, "hash").iter().map(|k| f.hash(k)).collect();
            let packed: Vec<u8> = keys(1000, "packed").concat().into_bytes();
            let mut offsets = vec![0u64];
            for k in keys(1000, "packed") {
                offsets.push(offsets.last().unwrap() + k.len() as u64);
            }
            if exclusive {
                let mut x = f.into_exclusive().unwrap();
                assert_eq!(x.info().layout, layout);
                for k in &single {
                    x.insert(k).unwrap();
                }
                for k in keys(1000, "checked").iter().chain(&single[..100]) {
                    checked.push(x.insert_checked(k).unwrap());
                }
                x.insert_hash(hashes[0]).unwrap();
                counts.push(x.insert_hashes(&hashes[1..]).unwrap());
                counts.push(x.insert_batch(&keys(3000, "batch")).unwrap());
                counts.push(x.insert_packed(&packed, &offsets).unwrap());
                x.union(&other).unwrap();
                assert!(x.contains(&single[5]));
                (x.into_shared().unwrap(), checked, counts)
            } else {
                for k in &single {
                    f.insert(k).unwrap();
                }
                for k in keys(1000, "checked").iter().chain(&single[..100]) {
                    checked.push(f.insert_checked(k).unwrap());
                }
                f.insert_hash(hashes[0]).unwrap();
                counts.push(f.insert_hashes(&hashes[1..]).unwrap());
                counts.push(f.insert_batch(&keys(3000, "batch")).unwrap());
                counts.push(f.insert_packed(&packed, &offsets).unwrap());
                f.union(&other).unwrap();
                (f, checked, counts)
            }
        };
        let (shared, shared_checked, shared_counts) = build(false);
        let (exclusive, exclusive_checked, exclusive_counts) = build(true);
        assert_eq!(exclusive.layout(), layout);
        assert_eq!(exclusive.to_bytes(), shared.to_bytes());
        assert_eq!(exclusive_checked, shared_checked);
        assert_eq!(exclusive_counts, shared_counts);
        assert!(exclusive_checked[1000..].iter().all(|&present| present));
    }

    fn mode(f: &BloomFilter) -> i32 {
        // SAFETY: the handle is live for the call.
        unsafe { sys::abloom_get_writer_mode(f.as_raw()) }
    }

    #[test]
    fn modes_round_trip_through_the_handle() {
        let f = BloomFilter::new(100, 0.01).unwrap();
        assert_eq!(mode(&f), sys::ABLOOM_WRITER_SHARED as i32);
        let x = f.into_exclusive().unwrap();
        assert_eq!(mode(&x.inner), sys::ABLOOM_WRITER_EXCLUSIVE as i32);
        let f = x.into_shared().unwrap();
        assert_eq!(mode(&f), sys::ABLOOM_WRITER_SHARED as i32);
    }

    #[test]
    fn read_only_filters_still_refuse_inserts() {
        let f = BloomFilter::new(100, 0.01).unwrap();
        f.insert("k").unwrap();
        let dir = std::env::temp_dir().join(format!("abloom-exclusive-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.abloom");
        f.save(&path).unwrap();
        let mut ro = BloomFilter::open(&path).unwrap().into_exclusive().unwrap();
        assert!(matches!(ro.insert("x"), Err(Error::ReadOnly)));
        assert!(ro.contains("k"));
        drop(ro);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
