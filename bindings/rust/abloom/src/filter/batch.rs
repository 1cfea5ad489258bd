//! The batch methods of [`BloomFilter`]: key slices, packed keys and hashes, in as few C calls
//! as the filter's threads allow.

use super::BloomFilter;
use crate::error::{check, Error};
use abloom_sys as sys;
use std::ffi::c_void;
use std::ptr;

/// Keys per C call in the batch methods of single-threaded filters.
const CHUNK: usize = 1024;
/// The C library's threshold for splitting a batch across threads.
const PARALLEL_MIN: usize = 1 << 16;

impl BloomFilter {
    // ---- Batches ----------------------------------------------------------------------------

    /// Inserts every key of `keys` through the C library's batch call, which hashes the keys,
    /// prefetches every block they touch, then sets the bits; a filter with more than one
    /// [`threads`](Self::threads) gets a batch of 65536 keys or more in one call, which the C
    /// library splits across threads. (Otherwise the keys go in chunks of 1024 per call, with no
    /// allocation.) Returns how many keys
    /// were new (as [`insert_checked`](Self::insert_checked) counts them).
    ///
    /// ```
    /// let f = abloom::BloomFilter::new(1000, 0.01)?;
    /// let keys = ["a", "b", "c", "a"];
    /// assert_eq!(f.insert_batch(&keys)?, 3);
    /// let mut found = [false; 3];
    /// assert_eq!(f.contains_batch(&["a", "c", "zz"], &mut found), 2);
    /// assert_eq!(found, [true, true, false]);
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter (nothing is inserted).
    pub fn insert_batch<K: AsRef<[u8]>>(&self, keys: &[K]) -> Result<u64, Error> {
        let mut added = 0u64;
        self.for_chunks(keys, |ptrs, lens| {
            let mut a = 0u64;
            // SAFETY: ptrs/lens hold ptrs.len() entries pointing into `keys`, alive for the call.
            check(unsafe {
                sys::abloom_add_many(
                    self.mut_ptr(),
                    ptrs.as_ptr(),
                    lens.as_ptr(),
                    ptrs.len(),
                    &mut a,
                )
            })?;
            added += a;
            Ok(())
        })?;
        Ok(added)
    }

    /// Tests every key of `keys` through the C library's batch call (hash, prefetch, probe; in
    /// chunks or whole, as [`insert_batch`](Self::insert_batch)), writing
    /// `out[i] = self.contains(&keys[i])`. Returns the number of `true` answers.
    ///
    /// # Panics
    /// If `out.len() != keys.len()`.
    pub fn contains_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [bool]) -> usize {
        assert_eq!(
            out.len(),
            keys.len(),
            "contains_batch: out and keys differ in length"
        );
        let mut found = 0u64;
        let mut done = 0usize;
        let rc = self.for_chunks(keys, |ptrs, lens| {
            let n = ptrs.len();
            let mut f = 0u64;
            let dst = &mut out[done..done + n];
            // SAFETY: ptrs/lens hold n entries pointing into `keys`; dst has n bools, and the C
            // library writes only 0 or 1 to each, valid bool values.
            check(unsafe {
                sys::abloom_test_many(
                    self.ptr(),
                    ptrs.as_ptr(),
                    lens.as_ptr(),
                    n,
                    dst.as_mut_ptr().cast::<u8>(),
                    &mut f,
                )
            })?;
            found += f;
            done += n;
            Ok(())
        });
        debug_assert!(rc.is_ok());
        found as usize
    }

    /// [`insert_checked`](Self::insert_checked) for every key of `keys`, in order, through the
    /// C library's batch call: `out[i]` is `true` when `keys[i]` was already present (inserted
    /// before, by an earlier key of this batch, or a false positive), `false` when it was new;
    /// the answers and the bits are those of one `insert_checked` per key. The batch is tested
    /// in bulk first (prefetching its blocks), then only the keys not found are inserted, so a
    /// stream of mostly repeated keys deduplicates at the speed of
    /// [`contains_batch`](Self::contains_batch). Returns how many keys were new (the `false`
    /// answers).
    ///
    /// ```
    /// let f = abloom::BloomFilter::new(1000, 0.01)?;
    /// f.insert("a")?;
    /// let mut seen = [false; 4];
    /// assert_eq!(f.insert_checked_batch(&["a", "b", "c", "b"], &mut seen)?, 2);
    /// assert_eq!(seen, [true, false, false, true]);
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter (nothing is inserted, `out` is untouched).
    ///
    /// # Panics
    /// If `out.len() != keys.len()`.
    pub fn insert_checked_batch<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        out: &mut [bool],
    ) -> Result<u64, Error> {
        assert_eq!(
            out.len(),
            keys.len(),
            "insert_checked_batch: out and keys differ in length"
        );
        let mut added = 0u64;
        let mut done = 0usize;
        self.for_chunks(keys, |ptrs, lens| {
            let n = ptrs.len();
            let mut a = 0u64;
            let dst = &mut out[done..done + n];
            // SAFETY: ptrs/lens hold n entries pointing into `keys`; dst has n bools, and the C
            // library writes only 0 or 1 to each, valid bool values.
            check(unsafe {
                sys::abloom_test_and_add_many(
                    self.mut_ptr(),
                    ptrs.as_ptr(),
                    lens.as_ptr(),
                    n,
                    dst.as_mut_ptr().cast::<u8>(),
                    &mut a,
                )
            })?;
            added += a;
            done += n;
            Ok(())
        })?;
        Ok(added)
    }

    /// Calls `call` with pointer and length arrays covering `keys`, in order. A filter with
    /// bulk threads gets large batches whole (the C library splits them across threads);
    /// otherwise the keys go in chunks of [`CHUNK`] keys through arrays on the stack, which
    /// costs no allocation and keeps the arrays in L1 (the C pipeline looks 32 keys ahead, so
    /// chunking loses nothing). Stops at the first error, which can only come from the first
    /// chunk (a read-only filter), before any bit changed.
    fn for_chunks<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        mut call: impl FnMut(&[*const c_void], &[usize]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if keys.len() >= PARALLEL_MIN && self.threads() > 1 {
            let (ptrs, lens) = key_arrays(keys);
            return call(&ptrs, &lens);
        }
        let mut ptrs = [ptr::null::<c_void>(); CHUNK];
        let mut lens = [0usize; CHUNK];
        for chunk in keys.chunks(CHUNK) {
            for (i, k) in chunk.iter().enumerate() {
                let k = k.as_ref();
                ptrs[i] = k.as_ptr().cast();
                lens[i] = k.len();
            }
            call(&ptrs[..chunk.len()], &lens[..chunk.len()])?;
        }
        Ok(())
    }

    /// Inserts keys packed in one buffer: key `i` is `buf[offsets[i] as usize..offsets[i + 1]
    /// as usize]`, so `offsets` has one entry more than there are keys. The cheapest batch form
    /// (no per-key pointers). Returns how many keys were new.
    ///
    /// ```
    /// let f = abloom::BloomFilter::new(1000, 0.01)?;
    /// let buf = b"applepearfig";
    /// assert_eq!(f.insert_packed(buf, &[0, 5, 9, 12])?, 3);
    /// assert!(f.contains("pear"));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] when `offsets` is empty, decreases, or ends past `buf`;
    /// [`Error::ReadOnly`]. Nothing is inserted on error.
    pub fn insert_packed(&self, buf: &[u8], offsets: &[u64]) -> Result<u64, Error> {
        let n = offsets.len().checked_sub(1).ok_or(Error::Invalid)?;
        let mut added = 0u64;
        // SAFETY: buf and offsets are valid for their lengths; the C API validates the offsets
        // against buf.len() before reading.
        check(unsafe {
            sys::abloom_add_packed(
                self.mut_ptr(),
                buf.as_ptr().cast(),
                buf.len(),
                offsets.as_ptr(),
                n,
                &mut added,
            )
        })?;
        Ok(added)
    }

    /// Tests keys packed as for [`insert_packed`](Self::insert_packed), writing one answer per
    /// key to `out`. Returns the number of `true` answers.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `offsets` is empty, decreases, or ends past `buf` (`out` is then
    /// untouched).
    ///
    /// # Panics
    /// If `out.len() + 1 != offsets.len()` (with `offsets` non-empty).
    pub fn contains_packed(
        &self,
        buf: &[u8],
        offsets: &[u64],
        out: &mut [bool],
    ) -> Result<usize, Error> {
        let n = offsets.len().checked_sub(1).ok_or(Error::Invalid)?;
        assert_eq!(
            out.len(),
            n,
            "contains_packed: out must have offsets.len() - 1 entries"
        );
        let mut found = 0u64;
        // SAFETY: as insert_packed; out has n bools and receives only 0 or 1.
        check(unsafe {
            sys::abloom_test_packed(
                self.ptr(),
                buf.as_ptr().cast(),
                buf.len(),
                offsets.as_ptr(),
                n,
                out.as_mut_ptr().cast::<u8>(),
                &mut found,
            )
        })?;
        Ok(found as usize)
    }

    /// [`insert_checked_batch`](Self::insert_checked_batch) for keys packed as for
    /// [`insert_packed`](Self::insert_packed), in one call: `out[i]` is `true` when key `i` was
    /// already present, `false` when it was new. Returns how many keys were new.
    ///
    /// ```
    /// let f = abloom::BloomFilter::new(1000, 0.01)?;
    /// let mut seen = [false; 3];
    /// assert_eq!(f.insert_checked_packed(b"pearfigpear", &[0, 4, 7, 11], &mut seen)?, 2);
    /// assert_eq!(seen, [false, false, true]);
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] when `offsets` is empty, decreases, or ends past `buf`;
    /// [`Error::ReadOnly`]. Nothing is inserted on error, and `out` is untouched.
    ///
    /// # Panics
    /// If `out.len() + 1 != offsets.len()` (with `offsets` non-empty).
    pub fn insert_checked_packed(
        &self,
        buf: &[u8],
        offsets: &[u64],
        out: &mut [bool],
    ) -> Result<u64, Error> {
        let n = offsets.len().checked_sub(1).ok_or(Error::Invalid)?;
        assert_eq!(
            out.len(),
            n,
            "insert_checked_packed: out must have offsets.len() - 1 entries"
        );
        let mut added = 0u64;
        // SAFETY: as insert_packed; out has n bools and receives only 0 or 1.
        check(unsafe {
            sys::abloom_test_and_add_packed(
                self.mut_ptr(),
                buf.as_ptr().cast(),
                buf.len(),
                offsets.as_ptr(),
                n,
                out.as_mut_ptr().cast::<u8>(),
                &mut added,
            )
        })?;
        Ok(added)
    }

    /// Inserts precomputed hashes (see [`hash`](Self::hash)). Returns how many were new.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter.
    pub fn insert_hashes(&self, hashes: &[u64]) -> Result<u64, Error> {
        let mut added = 0u64;
        // SAFETY: hashes is valid for its length.
        check(unsafe {
            sys::abloom_add_hashes(self.mut_ptr(), hashes.as_ptr(), hashes.len(), &mut added)
        })?;
        Ok(added)
    }

    /// Tests precomputed hashes, one answer per hash in `out`. Returns the number of `true`s.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hashes(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        assert_eq!(out.len(), hashes.len(), "contains_hashes: lengths differ");
        let mut found = 0u64;
        // SAFETY: hashes and out are valid for hashes.len() entries; only 0/1 is written.
        let rc = unsafe {
            sys::abloom_test_hashes(
                self.ptr(),
                hashes.as_ptr(),
                hashes.len(),
                out.as_mut_ptr().cast::<u8>(),
                &mut found,
            )
        };
        debug_assert_eq!(rc, sys::ABLOOM_OK);
        found as usize
    }

    /// [`insert_checked_batch`](Self::insert_checked_batch) for precomputed hashes (see
    /// [`hash`](Self::hash)): `out[i]` is `true` when hash `i` was already present, `false`
    /// when it was new. Returns how many were new.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only filter (nothing is inserted, `out` is untouched).
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn insert_checked_hashes(&self, hashes: &[u64], out: &mut [bool]) -> Result<u64, Error> {
        assert_eq!(
            out.len(),
            hashes.len(),
            "insert_checked_hashes: lengths differ"
        );
        let mut added = 0u64;
        // SAFETY: hashes and out are valid for hashes.len() entries; only 0/1 is written.
        check(unsafe {
            sys::abloom_test_and_add_hashes(
                self.mut_ptr(),
                hashes.as_ptr(),
                hashes.len(),
                out.as_mut_ptr().cast::<u8>(),
                &mut added,
            )
        })?;
        Ok(added)
    }
}

/// Pointer and length arrays for the `*_many` calls.
fn key_arrays<K: AsRef<[u8]>>(keys: &[K]) -> (Vec<*const c_void>, Vec<usize>) {
    let mut ptrs = Vec::with_capacity(keys.len());
    let mut lens = Vec::with_capacity(keys.len());
    for k in keys {
        let k = k.as_ref();
        ptrs.push(k.as_ptr().cast::<c_void>());
        lens.push(k.len());
    }
    (ptrs, lens)
}
