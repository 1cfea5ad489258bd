//! The [`Error`] type: one variant per C error code, plus I/O errors with their cause.

use abloom_sys as sys;
use std::ffi::CStr;
use std::fmt;
use std::io;

/// An error from abloom: one variant per `ABLOOM_ERR_*` code of the C library.
///
/// [`Display`](fmt::Display) prints the library's own message (`abloom_strerror`), with the
/// operating system's reason for [`Error::Io`].
///
/// ```
/// use abloom::{BloomFilter, Error};
///
/// let err = BloomFilter::new(0, 0.01).unwrap_err();
/// assert!(matches!(err, Error::Invalid));
/// assert_eq!(err.code(), -2);
/// assert!(!err.to_string().is_empty());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A required pointer was NULL (`ABLOOM_ERR_NULL`). The safe API never passes one, so this
    /// means a bug in this crate.
    Null,
    /// An argument is outside its domain (`ABLOOM_ERR_INVALID`): capacity 0, an FPR not in
    /// (0, 1), a shard count that is not a power of two, k of 0 or above 64, bad offsets, ...
    Invalid,
    /// The requested filter is too large (`ABLOOM_ERR_RANGE`).
    Range,
    /// Memory allocation failed (`ABLOOM_ERR_NOMEM`).
    NoMem,
    /// Two filters do not have the same shape: kind, k, shards, blocks per shard and seed
    /// (`ABLOOM_ERR_MISMATCH`).
    Mismatch,
    /// An unexpected internal failure of the library (`ABLOOM_ERR_INTERNAL`).
    Internal,
    /// A write to a read-only filter: a view, or a file opened read-only
    /// (`ABLOOM_ERR_READONLY`).
    ReadOnly,
    /// Serialized data: wrong magic bytes, not an abloom filter (`ABLOOM_ERR_BAD_MAGIC`).
    BadMagic,
    /// Serialized data: a format version this library does not read (`ABLOOM_ERR_VERSION`).
    Version,
    /// Serialized data: an unknown kind, bit layout or hash id (`ABLOOM_ERR_UNSUPPORTED`).
    Unsupported,
    /// Serialized data: shorter than its header says (`ABLOOM_ERR_TRUNCATED`).
    Truncated,
    /// Serialized data: bad header checksum, inconsistent fields or trailing bytes
    /// (`ABLOOM_ERR_CORRUPT`).
    Corrupt,
    /// Serialized data: the checksum over header and body does not match
    /// (`ABLOOM_ERR_CHECKSUM`).
    Checksum,
    /// A view over a buffer that is not 64-byte aligned (`ABLOOM_ERR_ALIGNMENT`).
    Alignment,
    /// A file system call failed (`ABLOOM_ERR_IO`); the operating system's error says why.
    /// Also used, with [`io::ErrorKind::InvalidInput`], for a path that contains a NUL byte.
    Io(io::Error),
    /// The caller's buffer is too small for the serialized filter (`ABLOOM_ERR_TOO_SMALL`).
    TooSmall,
    /// A code this crate does not know (from a newer library).
    Unknown(i32),
}

impl Error {
    /// The error for a negative C return code. For `ABLOOM_ERR_IO` the caller passes the
    /// `errno` it captured right after the call.
    pub(crate) fn from_code(code: i32, os: Option<io::Error>) -> Error {
        match code {
            sys::ABLOOM_ERR_NULL => Error::Null,
            sys::ABLOOM_ERR_INVALID => Error::Invalid,
            sys::ABLOOM_ERR_RANGE => Error::Range,
            sys::ABLOOM_ERR_NOMEM => Error::NoMem,
            sys::ABLOOM_ERR_MISMATCH => Error::Mismatch,
            sys::ABLOOM_ERR_INTERNAL => Error::Internal,
            sys::ABLOOM_ERR_READONLY => Error::ReadOnly,
            sys::ABLOOM_ERR_BAD_MAGIC => Error::BadMagic,
            sys::ABLOOM_ERR_VERSION => Error::Version,
            sys::ABLOOM_ERR_UNSUPPORTED => Error::Unsupported,
            sys::ABLOOM_ERR_TRUNCATED => Error::Truncated,
            sys::ABLOOM_ERR_CORRUPT => Error::Corrupt,
            sys::ABLOOM_ERR_CHECKSUM => Error::Checksum,
            sys::ABLOOM_ERR_ALIGNMENT => Error::Alignment,
            sys::ABLOOM_ERR_IO => Error::Io(os.unwrap_or_else(|| io::Error::other("I/O error"))),
            sys::ABLOOM_ERR_TOO_SMALL => Error::TooSmall,
            other => Error::Unknown(other),
        }
    }

    /// The C library's code for this error (`ABLOOM_ERR_*`, negative). [`Error::Io`] gives
    /// `ABLOOM_ERR_IO` (-15), [`Error::Unknown`] its own code.
    pub fn code(&self) -> i32 {
        match self {
            Error::Null => sys::ABLOOM_ERR_NULL,
            Error::Invalid => sys::ABLOOM_ERR_INVALID,
            Error::Range => sys::ABLOOM_ERR_RANGE,
            Error::NoMem => sys::ABLOOM_ERR_NOMEM,
            Error::Mismatch => sys::ABLOOM_ERR_MISMATCH,
            Error::Internal => sys::ABLOOM_ERR_INTERNAL,
            Error::ReadOnly => sys::ABLOOM_ERR_READONLY,
            Error::BadMagic => sys::ABLOOM_ERR_BAD_MAGIC,
            Error::Version => sys::ABLOOM_ERR_VERSION,
            Error::Unsupported => sys::ABLOOM_ERR_UNSUPPORTED,
            Error::Truncated => sys::ABLOOM_ERR_TRUNCATED,
            Error::Corrupt => sys::ABLOOM_ERR_CORRUPT,
            Error::Checksum => sys::ABLOOM_ERR_CHECKSUM,
            Error::Alignment => sys::ABLOOM_ERR_ALIGNMENT,
            Error::Io(_) => sys::ABLOOM_ERR_IO,
            Error::TooSmall => sys::ABLOOM_ERR_TOO_SMALL,
            Error::Unknown(c) => *c,
        }
    }
}

/// The library's static message for a code.
pub(crate) fn strerror(code: i32) -> &'static str {
    // SAFETY: abloom_strerror returns a static, NUL-terminated string for any int, never NULL.
    let s = unsafe { CStr::from_ptr(sys::abloom_strerror(code)) };
    s.to_str().unwrap_or("abloom error")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(strerror(self.code()))?;
        match self {
            Error::Io(e) => write!(f, ": {e}"),
            Error::Unknown(c) => write!(f, " ({c})"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<Error> for io::Error {
    /// [`Error::Io`] gives back its operating-system error; the others become
    /// [`io::ErrorKind::InvalidData`] (bad serialized data) or [`io::ErrorKind::Other`].
    fn from(e: Error) -> io::Error {
        match e {
            Error::Io(e) => e,
            Error::BadMagic
            | Error::Version
            | Error::Unsupported
            | Error::Truncated
            | Error::Corrupt
            | Error::Checksum => io::Error::new(io::ErrorKind::InvalidData, e),
            other => io::Error::other(other),
        }
    }
}

/// `Ok(value)` for a non-negative code, else the error.
pub(crate) fn check(code: i32) -> Result<i32, Error> {
    if code >= 0 {
        Ok(code)
    } else {
        Err(Error::from_code(code, None))
    }
}

/// Like [`check`], capturing `errno` for `ABLOOM_ERR_IO`. Call right after the C call.
pub(crate) fn check_io(code: i32) -> Result<i32, Error> {
    if code == sys::ABLOOM_ERR_IO {
        Err(Error::Io(io::Error::last_os_error()))
    } else {
        check(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_maps_to_its_variant_and_back() {
        for code in -16..=-1 {
            let e = Error::from_code(code, None);
            assert!(!matches!(e, Error::Unknown(_)), "{code}");
            assert_eq!(e.code(), code);
            assert!(e.to_string().starts_with(strerror(code)));
        }
        assert!(matches!(Error::from_code(-17, None), Error::Unknown(-17)));
        assert!(check(0).is_ok() && check(1).is_ok());
        assert!(matches!(check(-7), Err(Error::ReadOnly)));
    }
}
