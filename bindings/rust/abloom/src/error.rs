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
    /// The requested filter is too large, a growing filter cannot grow that far, or there is
    /// no such stage (`ABLOOM_ERR_RANGE`).
    Range,
    /// Memory allocation failed (`ABLOOM_ERR_NOMEM`).
    NoMem,
    /// Two filters do not have the same shape: kind, k, shards, blocks per shard and seed; for
    /// growing filters, the same options; a growing and a fixed filter never
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
    /// Not supported (`ABLOOM_ERR_UNSUPPORTED`): serialized data of an unknown kind, bit layout
    /// or hash id; or a call that growing filters do not take
    /// ([`BloomFilter::intersect`](crate::BloomFilter::intersect),
    /// [`OpenMode::ReadWrite`](crate::OpenMode::ReadWrite), [`seal`](crate::seal)).
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
    /// Serialized data: marked stale (`ABLOOM_ERR_STALE`) by a writer that opened the file with
    /// [`OpenMode::ReadWrite`](crate::OpenMode) and never synced it (killed, or still running).
    /// Not corruption: the bits are valid (inserts only set bits), only the checksums are not
    /// current. Open it without the checksum check ([`Info::stale`](crate::Info) is then true),
    /// or [`seal`](crate::seal) it.
    Stale,
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
            sys::ABLOOM_ERR_STALE => Error::Stale,
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
            Error::Stale => sys::ABLOOM_ERR_STALE,
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
        Err(Error::Io(last_errno()))
    } else {
        check(code)
    }
}

/// The cause of the last `ABLOOM_ERR_IO`: the C library reports it in the C runtime's `errno`,
/// which on POSIX systems is what [`io::Error::last_os_error`] reads.
#[cfg(not(windows))]
fn last_errno() -> io::Error {
    io::Error::last_os_error()
}

/// The cause of the last `ABLOOM_ERR_IO`. On Windows the library sets the C runtime's `errno`
/// (the UCRT's, with the POSIX numbers: `capi/abloom.h`), not the thread's last Windows error
/// that [`io::Error::last_os_error`] reads, so `errno` is read here and given as the Windows
/// error code of the same cause: [`io::Error::raw_os_error`] is a Windows code as for any
/// other I/O error on Windows, and [`kind`](io::Error::kind) and the message are std's for it.
#[cfg(windows)]
fn last_errno() -> io::Error {
    use std::os::raw::c_int;
    extern "C" {
        /// The C runtime's `errno` of this thread (`errno` is `(*_errno())` in its headers);
        /// the UCRT and msvcrt.dll both export it.
        fn _errno() -> *mut c_int;
    }
    // SAFETY: _errno returns a valid pointer to this thread's errno.
    let errno = unsafe { *_errno() };
    match windows_error_of_errno(errno) {
        Some(code) => io::Error::from_raw_os_error(code),
        None if errno == 0 => io::Error::other("I/O error"),
        None => io::Error::other(format!("I/O error (C runtime errno {errno})")),
    }
}

/// The Windows error code (`ERROR_*`) for a C runtime `errno` value (the UCRT's numbers, which
/// MinGW-w64's headers share): the error Windows gives for the same cause, whose
/// [`io::ErrorKind`] is the one POSIX systems give for the `errno` (`ENOENT`: `NotFound`,
/// `EACCES`: `PermissionDenied`, `EBUSY`: `ResourceBusy`, ...). The library's Windows layer
/// (`core/platform/platform_win32.cpp`) maps Windows errors to these `errno` values; this is the
/// way back.
#[cfg(windows)]
fn windows_error_of_errno(errno: i32) -> Option<i32> {
    Some(match errno {
        1 | 13 => 5,    // EPERM, EACCES: ERROR_ACCESS_DENIED
        2 => 2,         // ENOENT: ERROR_FILE_NOT_FOUND
        5 => 1117,      // EIO: ERROR_IO_DEVICE
        9 => 6,         // EBADF: ERROR_INVALID_HANDLE
        12 => 8,        // ENOMEM: ERROR_NOT_ENOUGH_MEMORY
        16 => 170,      // EBUSY: ERROR_BUSY (a file in use or mapped: not replaced)
        17 => 80,       // EEXIST: ERROR_FILE_EXISTS
        18 => 17,       // EXDEV: ERROR_NOT_SAME_DEVICE
        19 | 130 => 50, // ENODEV (a device, not a file), EOPNOTSUPP: ERROR_NOT_SUPPORTED
        20 => 267,      // ENOTDIR: ERROR_DIRECTORY
        21 => 336,      // EISDIR: ERROR_DIRECTORY_NOT_SUPPORTED
        22 => 87,       // EINVAL: ERROR_INVALID_PARAMETER
        23 | 24 => 4,   // ENFILE, EMFILE: ERROR_TOO_MANY_OPEN_FILES
        27 => 223,      // EFBIG: ERROR_FILE_TOO_LARGE
        28 => 112,      // ENOSPC: ERROR_DISK_FULL
        30 => 19,       // EROFS: ERROR_WRITE_PROTECT
        38 => 206,      // ENAMETOOLONG: ERROR_FILENAME_EXCED_RANGE
        40 => 120,      // ENOSYS: ERROR_CALL_NOT_IMPLEMENTED
        41 => 145,      // ENOTEMPTY: ERROR_DIR_NOT_EMPTY
        42 => 1113,     // EILSEQ (bytes that are not UTF-8): ERROR_NO_UNICODE_TRANSLATION
        114 => 1921,    // ELOOP: ERROR_CANT_RESOLVE_FILENAME
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_maps_to_its_variant_and_back() {
        for code in -17..=-1 {
            let e = Error::from_code(code, None);
            assert!(!matches!(e, Error::Unknown(_)), "{code}");
            assert_eq!(e.code(), code);
            assert!(e.to_string().starts_with(strerror(code)));
        }
        assert!(matches!(Error::from_code(-17, None), Error::Stale));
        assert!(matches!(Error::from_code(-18, None), Error::Unknown(-18)));
        assert!(check(0).is_ok() && check(1).is_ok());
        assert!(matches!(check(-7), Err(Error::ReadOnly)));
    }

    /// On Windows `ABLOOM_ERR_IO`'s cause is read from the C runtime's `errno`, and its kind is
    /// the one POSIX systems give the same `errno`.
    #[cfg(windows)]
    #[test]
    fn io_errors_carry_the_c_runtime_errno_as_a_windows_error() {
        use io::ErrorKind::*;
        extern "C" {
            fn _errno() -> *mut std::os::raw::c_int;
        }
        let cases = [
            (2, NotFound),          // ENOENT
            (13, PermissionDenied), // EACCES
            (16, ResourceBusy),     // EBUSY
            (17, AlreadyExists),    // EEXIST
            (20, NotADirectory),    // ENOTDIR
            (21, IsADirectory),     // EISDIR
            (22, InvalidInput),     // EINVAL
            (12, OutOfMemory),      // ENOMEM
            (28, StorageFull),      // ENOSPC
            (38, InvalidFilename),  // ENAMETOOLONG
        ];
        for (errno, kind) in cases {
            // SAFETY: _errno returns a valid pointer to this thread's errno.
            unsafe { *_errno() = errno };
            match check_io(sys::ABLOOM_ERR_IO) {
                Err(Error::Io(e)) => {
                    assert_eq!(e.kind(), kind, "errno {errno}: {e}");
                    assert!(e.raw_os_error().is_some(), "errno {errno}");
                }
                other => panic!("{other:?}"),
            }
        }
        // SAFETY: as above.
        unsafe { *_errno() = 9999 };
        let e = io::Error::from(check_io(sys::ABLOOM_ERR_IO).unwrap_err());
        assert!(e.to_string().contains("9999"), "{e}");
    }
}
