//! Bytes and files for [`BloomFilter`]: serialization, views, saving, opening by mmap
//! ([`OpenOptions`]), syncing, and [`seal`].

use super::BloomFilter;
use crate::error::{check, check_io, Error};
use abloom_sys as sys;
use std::ffi::{c_void, CString};
use std::io;
use std::mem::MaybeUninit;
use std::path::Path;

/// How [`OpenOptions::open`] maps a saved filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OpenMode {
    /// Read-only mapping (the default): inserts fail with [`Error::ReadOnly`].
    #[default]
    ReadOnly,
    /// A private, writable mapping: inserts work but never reach the file.
    CopyOnWrite,
    /// A shared, writable mapping: inserts persist to the file. The header is marked stale until
    /// [`BloomFilter::sync`], [`BloomFilter::close`] or drop rewrites its checksums. A growing
    /// filter's file too: the stages it appends go to the file's end (a chain file of the first
    /// form, saved before the stage table had a place for every stage, gives
    /// [`Error::Unsupported`]: save it again).
    ReadWrite,
}

/// Options for opening a saved filter by mmap.
///
/// ```
/// use abloom::{BloomFilter, OpenMode, OpenOptions};
///
/// let path = std::env::temp_dir().join(format!("abloom-doc-open-{}.abloom", std::process::id()));
/// let f = BloomFilter::new(1000, 0.01)?;
/// f.insert("apple")?;
/// f.save(&path)?;
///
/// let g = OpenOptions::new().mode(OpenMode::CopyOnWrite).verify_checksum(true).open(&path)?;
/// assert!(g.contains("apple"));
/// g.insert("pear")?; // private: the file does not change
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), abloom::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenOptions {
    mode: OpenMode,
    verify: bool,
}

impl OpenOptions {
    /// Read-only, without the checksum check (O(1) whatever the size).
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// How to map the file.
    pub fn mode(&mut self, mode: OpenMode) -> &mut OpenOptions {
        self.mode = mode;
        self
    }

    /// Check the checksum over header and body while opening (O(size)). Without it only the
    /// 128-byte header is read and validated, and pages load on first use.
    pub fn verify_checksum(&mut self, verify: bool) -> &mut OpenOptions {
        self.verify = verify;
        self
    }

    /// Opens the filter saved at `path`.
    ///
    /// # The file must not be truncated while mapped
    /// Nor rewritten in place, by this process or another, while the filter is alive (a clone
    /// of it is owned memory and is not concerned): the filter reads the file's pages
    /// themselves. A read past the file's new end raises `SIGBUS`, which kills the process (a
    /// file truncated to 0 bytes, or a large one to its header), and the rest of its last page
    /// reads as zeros, so `contains` silently answers `false` (every key of a small filter
    /// truncated to its 128-byte header). Copying over the file in place (`cp`, a shell `>`
    /// redirection, [`std::fs::write`], [`std::fs::File::create`]) truncates it first. Like every
    /// mmap (memmap2's `Mmap::map` is `unsafe` for this reason), this is a condition on the
    /// file that Rust's type system cannot check.
    ///
    /// To update a file that is open, replace it instead: [`BloomFilter::save`] writes a
    /// temporary file and renames it over the path, so the open filter keeps the old file, which
    /// stays valid until dropped; open the path again to read the new one. (A filter opened with
    /// [`OpenMode::ReadWrite`] then writes to the old file, which is gone once dropped.)
    ///
    /// On Windows a file that a filter has mapped, in this process or another, may not be
    /// replaceable (wine never replaces one): [`save`](BloomFilter::save) then fails with
    /// [`io::ErrorKind::ResourceBusy`], both files whole. Dropping the filter unmaps the file at
    /// once; to save a mapped filter over its own file, [`clone`](Clone::clone) it (owned
    /// memory), drop it, then save the clone.
    ///
    /// # Errors
    /// [`Error::Io`] (missing file, permissions, ...), and for bad contents
    /// [`Error::BadMagic`], [`Error::Version`], [`Error::Unsupported`], [`Error::Truncated`],
    /// [`Error::Corrupt`], [`Error::Checksum`]; with the checksum check, [`Error::Stale`] for a
    /// file a read-write writer left unsynced (see [`seal`](crate::seal)). A growing filter's
    /// file opens read-write too: the stages it appends go to the file's end; a chain file of
    /// the first form (saved before the stage table had a place for every stage) gives
    /// [`Error::Unsupported`] there: save it again.
    pub fn open<P: AsRef<Path>>(&self, path: P) -> Result<BloomFilter, Error> {
        let c_path = path_to_cstring(path.as_ref())?;
        let mut flags = match self.mode {
            OpenMode::ReadOnly => 0,
            OpenMode::CopyOnWrite => sys::ABLOOM_OPEN_COPY_ON_WRITE,
            OpenMode::ReadWrite => sys::ABLOOM_OPEN_READ_WRITE,
        };
        if self.verify {
            flags |= sys::ABLOOM_VERIFY_CHECKSUM;
        }
        let mut out = MaybeUninit::<*mut sys::abloom_filter>::uninit();
        // SAFETY: c_path is NUL-terminated and lives across the call; out is writable.
        check_io(unsafe { sys::abloom_open(c_path.as_ptr(), flags, out.as_mut_ptr()) })?;
        // SAFETY: on success the C API wrote an owned, non-NULL handle.
        Ok(unsafe { BloomFilter::from_out(out) })
    }
}

fn path_to_cstring(path: &Path) -> Result<CString, Error> {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path
        .to_str()
        .ok_or_else(|| {
            Error::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "path is not valid Unicode",
            ))
        })?
        .as_bytes()
        .to_vec();
    CString::new(bytes).map_err(|_| {
        Error::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "path contains a NUL byte",
        ))
    })
}

impl BloomFilter {
    // ---- Serialization and files -------------------------------------------------------------

    /// The exact size of [`to_bytes`](Self::to_bytes): the 128-byte header plus the bits.
    pub fn serialized_size(&self) -> u64 {
        let mut out = 0u64;
        // SAFETY: out is a valid u64.
        let rc = unsafe { sys::abloom_serialized_size(self.ptr(), &mut out) };
        debug_assert_eq!(rc, sys::ABLOOM_OK);
        out
    }

    /// The portable serialized form (`docs/FORMAT.md`): the same bytes on every machine and in
    /// every binding, readable by [`from_bytes`](Self::from_bytes), [`view`](Self::view), and
    /// (written to a file) [`open`](Self::open). Safe while other threads insert.
    ///
    /// ```
    /// use abloom::BloomFilter;
    ///
    /// let f = BloomFilter::new(1000, 0.01)?;
    /// f.insert("k")?;
    /// let bytes = f.to_bytes();
    /// let g = BloomFilter::from_bytes(&bytes)?;
    /// assert!(g.contains("k"));
    /// assert_eq!(f, g);
    /// # Ok::<(), abloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let size = usize::try_from(self.serialized_size()).expect("filter larger than memory");
        let mut buf = Vec::<u8>::with_capacity(size);
        let mut written = 0usize;
        // SAFETY: buf has `size` bytes of spare capacity, exactly what abloom_serialize writes.
        let rc = unsafe {
            sys::abloom_serialize(
                self.ptr(),
                buf.as_mut_ptr().cast::<c_void>(),
                size,
                &mut written,
            )
        };
        assert_eq!(rc, sys::ABLOOM_OK, "abloom_serialize failed");
        assert_eq!(written, size);
        // SAFETY: abloom_serialize initialised `written` == size bytes.
        unsafe { buf.set_len(written) };
        buf
    }

    /// A new owned filter from serialized bytes, after full validation (header, sizes, and the
    /// checksum over everything). Any alignment.
    ///
    /// # Errors
    /// [`Error::BadMagic`], [`Error::Version`], [`Error::Unsupported`], [`Error::Truncated`],
    /// [`Error::Corrupt`], [`Error::Checksum`], [`Error::NoMem`].
    pub fn from_bytes(bytes: &[u8]) -> Result<BloomFilter, Error> {
        let mut out = MaybeUninit::<*mut sys::abloom_filter>::uninit();
        // SAFETY: bytes is valid for its length; out is writable.
        check(unsafe {
            sys::abloom_deserialize(bytes.as_ptr().cast(), bytes.len(), out.as_mut_ptr())
        })?;
        // SAFETY: on success the C API wrote an owned, non-NULL handle.
        Ok(unsafe { BloomFilter::from_out(out) })
    }

    /// A read-only, zero-copy filter over serialized bytes that must be 64-byte aligned (see
    /// [`AlignedBytes`](crate::AlignedBytes)). The header is always validated; `verify_checksum`
    /// adds the O(size) checksum check. The borrow keeps `bytes` alive and unchanged.
    ///
    /// ```
    /// use abloom::{AlignedBytes, BloomFilter, Error};
    ///
    /// let f = BloomFilter::new(1000, 0.01)?;
    /// f.insert("k")?;
    /// let bytes = AlignedBytes::from(f.to_bytes().as_slice());
    /// let view = BloomFilter::view(&bytes, true)?;
    /// assert!(view.contains("k"));
    /// assert!(matches!(view.insert("new"), Err(Error::ReadOnly)));
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Alignment`] if `bytes` is not 64-byte aligned, and the errors of
    /// [`from_bytes`](Self::from_bytes).
    pub fn view(bytes: &[u8], verify_checksum: bool) -> Result<crate::FilterView<'_>, Error> {
        let flags = if verify_checksum {
            sys::ABLOOM_VERIFY_CHECKSUM
        } else {
            0
        };
        let mut out = MaybeUninit::<*mut sys::abloom_filter>::uninit();
        // SAFETY: bytes is valid for its length and, borrowed by the returned view, outlives
        // the handle and stays unchanged; out is writable.
        check(unsafe {
            sys::abloom_view(bytes.as_ptr().cast(), bytes.len(), flags, out.as_mut_ptr())
        })?;
        // SAFETY: on success the C API wrote an owned, non-NULL handle.
        let filter = unsafe { BloomFilter::from_out(out) };
        Ok(crate::FilterView::new(filter))
    }

    /// Saves the filter to `path`, crash-safely: a temporary file in the same directory,
    /// fsynced, renamed over `path`, and the directory fsynced. Safe while other threads
    /// insert.
    ///
    /// # Errors
    /// [`Error::Io`] with the operating system's reason (no temporary file is left behind). On
    /// Windows, a file that a filter maps may not be replaceable: `ResourceBusy` after about a
    /// second of retries, the old file whole (see [`OpenOptions::open`]); a read-only file gives
    /// `PermissionDenied`.
    pub fn save<P: AsRef<Path>>(&self, path: P) -> Result<(), Error> {
        let c_path = path_to_cstring(path.as_ref())?;
        // SAFETY: c_path is NUL-terminated and lives across the call.
        check_io(unsafe { sys::abloom_save(self.ptr(), c_path.as_ptr()) })?;
        Ok(())
    }

    /// Opens a saved filter read-only by mmap, in O(1) whatever its size (only the header is
    /// read and validated; see [`OpenOptions`] for the checksum check and writable mappings).
    /// Inserts into it return [`Error::ReadOnly`].
    ///
    /// The file must not be truncated or rewritten in place while the filter is alive (that
    /// raises `SIGBUS` or makes lookups read zeros: see [`OpenOptions::open`]); replace it with
    /// [`BloomFilter::save`], which renames a new file over the path, instead.
    ///
    /// ```
    /// use abloom::BloomFilter;
    ///
    /// let path = std::env::temp_dir().join(format!("abloom-doc-save-{}.abloom", std::process::id()));
    /// let f = BloomFilter::new(1000, 0.01)?;
    /// f.insert("apple")?;
    /// f.save(&path)?;
    /// let g = BloomFilter::open(&path)?;
    /// assert!(g.contains("apple"));
    /// assert!(g.insert("pear").is_err());
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), abloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`OpenOptions::open`].
    pub fn open<P: AsRef<Path>>(path: P) -> Result<BloomFilter, Error> {
        OpenOptions::new().open(path)
    }

    /// For a filter opened with [`OpenMode::ReadWrite`]: rewrites the header (checksums,
    /// inserted-key estimate) and flushes the mapping to the file, so that it holds every key
    /// inserted so far, durably. The filter may still insert, so the file stays marked stale
    /// (checked reads give [`Error::Stale`]) until [`close`](Self::close) or drop seals it: a
    /// writer killed at any time leaves a stale file, never a corrupt one (a growing filter's
    /// file: every stage, and the chain's table). Other filters: nothing to do. Needs
    /// `&mut self`: it must not race with inserts.
    ///
    /// # Errors
    /// [`Error::Io`] when the flush fails.
    pub fn sync(&mut self) -> Result<(), Error> {
        // SAFETY: the handle is live; `&mut self` excludes concurrent inserts.
        check_io(unsafe { sys::abloom_sync(self.mut_ptr()) })?;
        Ok(())
    }

    /// Syncs (see [`sync`](Self::sync)), leaving the file sealed, and frees the filter, reporting
    /// a sync error that drop would have to ignore.
    ///
    /// # Errors
    /// As [`sync`](Self::sync); the filter is freed either way.
    pub fn close(self) -> Result<(), Error> {
        // SAFETY: the handle is live and owned; `self` is consumed, so nothing inserts after.
        check_io(unsafe { sys::abloom_sync_last(self.mut_ptr()) })?;
        Ok(())
    }
}

/// Seals a file that a writer left stale ([`Error::Stale`]: opened with [`OpenMode::ReadWrite`]
/// and killed before [`BloomFilter::sync`] or drop), so that the checksum check passes again.
/// Without a current checksum it checks what it can: the header, the size, and the fill against
/// the inserted-key estimate the header stored when the writer opened it (inserts only set bits,
/// so the bits must estimate at least as many keys); then it rewrites the estimate and both
/// checksums, clears the mark and flushes the file, as [`BloomFilter::sync`] does. A file that is
/// not stale is only verified, never written: `Ok(())`, or [`Error::Checksum`] (corruption is
/// never sealed over). Do not seal a file that a writer still has open read-write.
///
/// A growing filter's file is sealed stage by stage, its table rewritten.
///
/// # Errors
/// [`Error::Io`] (missing file, permissions, ...), [`Error::Checksum`] (not stale, corrupt),
/// [`Error::Corrupt`] (a bad header, or fewer keys than stored: nothing written),
/// and the other format errors of [`OpenOptions::open`].
pub fn seal<P: AsRef<Path>>(path: P) -> Result<(), Error> {
    let c_path = path_to_cstring(path.as_ref())?;
    // SAFETY: c_path is NUL-terminated and lives across the call.
    check_io(unsafe { sys::abloom_seal(c_path.as_ptr()) })?;
    Ok(())
}
