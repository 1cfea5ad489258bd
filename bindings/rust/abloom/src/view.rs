//! Zero-copy views over serialized bytes: [`FilterView`] and the [`AlignedBytes`] buffer.

use crate::filter::BloomFilter;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

/// A read-only filter served straight from borrowed serialized bytes ([`BloomFilter::view`]).
///
/// It dereferences to [`BloomFilter`], so every query works; inserts return
/// [`Error::ReadOnly`](crate::Error::ReadOnly), and `clone()` gives an owned, writable copy. The
/// lifetime ties it to the bytes, which therefore outlive it and cannot change under it:
///
/// ```compile_fail,E0597
/// use abloom::{AlignedBytes, BloomFilter};
///
/// let f = BloomFilter::new(100, 0.01).unwrap();
/// let view = {
///     let bytes = AlignedBytes::from(f.to_bytes().as_slice());
///     BloomFilter::view(&bytes, false).unwrap() // error: `bytes` does not live long enough
/// };
/// view.contains("k");
/// ```
pub struct FilterView<'a> {
    filter: BloomFilter,
    _bytes: PhantomData<&'a [u8]>,
}

impl FilterView<'_> {
    pub(crate) fn new(filter: BloomFilter) -> Self {
        FilterView {
            filter,
            _bytes: PhantomData,
        }
    }
}

impl Deref for FilterView<'_> {
    type Target = BloomFilter;

    fn deref(&self) -> &BloomFilter {
        &self.filter
    }
}

impl fmt::Debug for FilterView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("FilterView").field(&self.filter).finish()
    }
}

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

/// An owned byte buffer whose start is 64-byte aligned, as [`BloomFilter::view`] requires.
///
/// ```
/// let buf = abloom::AlignedBytes::from(&[1u8, 2, 3][..]);
/// assert_eq!(&buf[..], &[1, 2, 3]);
/// assert_eq!(buf.as_ptr() as usize % 64, 0);
/// ```
#[derive(Clone)]
pub struct AlignedBytes {
    lines: Vec<Line>,
    len: usize,
}

impl AlignedBytes {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> AlignedBytes {
        AlignedBytes {
            lines: vec![Line([0; 64]); len.div_ceil(64)],
            len,
        }
    }

    /// Reads a whole file into an aligned buffer.
    ///
    /// # Errors
    /// Any error of [`std::fs::read`].
    pub fn read_file<P: AsRef<std::path::Path>>(path: P) -> std::io::Result<AlignedBytes> {
        Ok(AlignedBytes::from(std::fs::read(path)?.as_slice()))
    }
}

impl From<&[u8]> for AlignedBytes {
    fn from(bytes: &[u8]) -> AlignedBytes {
        let mut b = AlignedBytes::zeroed(bytes.len());
        b.copy_from_slice(bytes);
        b
    }
}

impl Deref for AlignedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: `lines` holds at least `len` initialised bytes, contiguous (repr(C) arrays).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<u8>(), self.len) }
    }
}

impl DerefMut for AlignedBytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, with unique access through &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

impl fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBytes")
            .field("len", &self.len)
            .finish()
    }
}
