//! Bytes and files through the safe API: serialization and views, saving and opening in every
//! mode, saving over an open file, file errors, serde, and stale files sealed. The rest of the
//! API's behaviour and error paths are in `api.rs`.

use abloom::{AlignedBytes, BloomFilter, Builder, Error, OpenMode, OpenOptions, Storage};
use std::io;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-files");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{}.abloom", std::process::id()))
}

fn filled(n: u64) -> BloomFilter {
    let f = BloomFilter::new(n, 0.01).unwrap();
    for i in 0..n {
        f.insert(&format!("key-{i}")).unwrap();
    }
    f
}

#[test]
fn serialization_round_trips_and_rejects_bad_bytes() {
    let f = filled(2000);
    let bytes = f.to_bytes();
    assert_eq!(bytes.len() as u64, f.serialized_size());
    assert_eq!(bytes.len() as u64, 128 + f.info().bytes);
    let g = BloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(f, g);
    // Any alignment for from_bytes.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bytes);
    assert_eq!(BloomFilter::from_bytes(&shifted[1..]).unwrap(), f);

    let broken = |at: usize| {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        b
    };
    assert!(matches!(
        BloomFilter::from_bytes(&[]),
        Err(Error::Truncated)
    ));
    assert!(matches!(
        BloomFilter::from_bytes(&bytes[..100]),
        Err(Error::Truncated)
    ));
    assert!(matches!(
        BloomFilter::from_bytes(&bytes[..bytes.len() - 1]),
        Err(Error::Truncated)
    ));
    assert!(matches!(
        BloomFilter::from_bytes(&broken(0)),
        Err(Error::BadMagic)
    ));
    assert!(matches!(
        BloomFilter::from_bytes(&broken(8)),
        Err(Error::Version)
    ));
    assert!(matches!(
        BloomFilter::from_bytes(&broken(40)),
        Err(Error::Corrupt)
    ));
    assert!(matches!(
        BloomFilter::from_bytes(&broken(300)),
        Err(Error::Checksum)
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        BloomFilter::from_bytes(&longer),
        Err(Error::Corrupt)
    ));
    // An unknown kind under a valid header checksum: Unsupported.
    let mut unknown = bytes.clone();
    unknown[16] = 7;
    let sum = xxhash_rust::xxh3::xxh3_64(&unknown[..120]);
    unknown[120..128].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        BloomFilter::from_bytes(&unknown),
        Err(Error::Unsupported)
    ));
}

#[test]
fn views_are_read_only_and_need_alignment() {
    let f = filled(1000);
    let bytes = AlignedBytes::from(f.to_bytes().as_slice());
    let view = BloomFilter::view(&bytes, true).unwrap();
    assert_eq!(*view, f);
    assert_eq!(view.info().storage, Storage::View);
    assert!(view.is_read_only());
    assert!(view.contains("key-1"));
    assert!(matches!(view.insert("x"), Err(Error::ReadOnly)));
    assert!(matches!(view.insert_checked("x"), Err(Error::ReadOnly)));
    assert!(matches!(view.insert_batch(&["x"]), Err(Error::ReadOnly)));
    assert!(matches!(view.union(&f), Err(Error::ReadOnly)));
    // A clone of a view is an owned, writable filter.
    let mut owned = view.clone();
    assert_eq!(owned.info().storage, Storage::Owned);
    owned.insert("x").unwrap();
    owned.clear().unwrap();
    assert!(format!("{view:?}").contains("View"));

    let mut misaligned = AlignedBytes::zeroed(bytes.len() + 1);
    misaligned[1..].copy_from_slice(&bytes);
    assert!(matches!(
        BloomFilter::view(&misaligned[1..], false),
        Err(Error::Alignment)
    ));
    let mut bad = AlignedBytes::from(&bytes[..]);
    bad[200] ^= 1;
    assert!(
        BloomFilter::view(&bad, false).is_ok(),
        "body not checked without the flag"
    );
    assert!(matches!(
        BloomFilter::view(&bad, true),
        Err(Error::Checksum)
    ));
}

#[test]
fn files_save_open_and_modes() {
    let path = tmp("modes");
    let f = filled(3000);
    f.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), f.to_bytes());

    let mut ro = BloomFilter::open(&path).unwrap();
    assert_eq!(ro, f);
    assert!(ro.is_read_only());
    assert_eq!(ro.info().storage, Storage::Mapped);
    assert!(matches!(ro.insert("x"), Err(Error::ReadOnly)));
    assert!(matches!(ro.insert_hash(1), Err(Error::ReadOnly)));
    assert!(matches!(ro.insert_hashes(&[1]), Err(Error::ReadOnly)));
    assert!(matches!(
        ro.insert_packed(b"x", &[0, 1]),
        Err(Error::ReadOnly)
    ));
    assert!(matches!(ro.clear(), Err(Error::ReadOnly)));
    assert!(matches!(ro.intersect(&f), Err(Error::ReadOnly)));
    ro.sync().unwrap(); // nothing to do
    let mut copy = ro.clone();
    copy.insert("x").unwrap();
    assert_eq!(copy.info().storage, Storage::Owned);
    copy.clear().unwrap();

    // Read-write: persists after close; a crash (no sync) leaves the stale mark.
    let rw = OpenOptions::new()
        .mode(OpenMode::ReadWrite)
        .open(&path)
        .unwrap();
    rw.insert("persisted").unwrap();
    rw.close().unwrap();
    let back = OpenOptions::new()
        .verify_checksum(true)
        .open(&path)
        .unwrap();
    assert!(back.contains("persisted"));
    drop(back);

    let mut rw = OpenOptions::new()
        .mode(OpenMode::ReadWrite)
        .open(&path)
        .unwrap();
    rw.insert("synced").unwrap();
    rw.sync().unwrap();
    // The handle may still write, so a sync leaves the file marked stale: checked reads say
    // Stale while the writer lives, and a crash after it leaves a stale file, never one that
    // reads as corrupt.
    assert!(matches!(
        OpenOptions::new().verify_checksum(true).open(&path),
        Err(Error::Stale)
    ));
    assert!(BloomFilter::open(&path).unwrap().contains("synced"));
    rw.insert("not yet synced").unwrap();
    let crashed = std::mem::ManuallyDrop::new(rw); // as if the process died: no sync
    assert!(BloomFilter::open(&path).unwrap().contains("not yet synced"));
    assert!(matches!(
        OpenOptions::new().verify_checksum(true).open(&path),
        Err(Error::Stale)
    ));
    // The file as the crash left it, with no filter of this process mapping it any more, as
    // after a real crash (on Windows a mapped file cannot be replaced: save_over_an_open_file).
    // Dropping a filter unmaps its file at once; this one first seals it.
    let stale = std::fs::read(&path).unwrap();
    drop(std::mem::ManuallyDrop::into_inner(crashed));
    drop(ro);
    std::fs::write(&path, &stale).unwrap();
    assert!(matches!(
        OpenOptions::new().verify_checksum(true).open(&path),
        Err(Error::Stale)
    ));
    // Sealing makes it verify, with every key (abloom_seal).
    let copy = path.with_extension("copy");
    std::fs::write(&copy, &stale).unwrap();
    abloom::seal(&copy).unwrap();
    let sealed = OpenOptions::new()
        .verify_checksum(true)
        .open(&copy)
        .unwrap();
    assert!(sealed.contains("synced") && sealed.contains("not yet synced"));
    drop(sealed);
    std::fs::remove_file(&copy).unwrap();
    // Saving again repairs it (from a copy in memory: on Windows the file that a filter maps
    // may not be replaceable, see save_over_an_open_file).
    let repaired = BloomFilter::open(&path).unwrap().clone();
    assert_eq!(repaired.info().storage, Storage::Owned);
    repaired.save(&path).unwrap();
    OpenOptions::new()
        .verify_checksum(true)
        .open(&path)
        .unwrap();
    std::fs::remove_file(&path).unwrap();
}

/// The temporary files a save left beside `path` (`<name>.tmp.<pid>.<6 characters>`).
fn temporaries(path: &std::path::Path) -> Vec<String> {
    let prefix = format!("{}.tmp.", path.file_name().unwrap().to_str().unwrap());
    std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&prefix))
        .collect()
}

/// The safe way to update a file that is open (`OpenOptions::open`'s docs): save over it. `save`
/// renames a new file over the path, so the open filter keeps reading the old one, whole.
/// (Truncating it in place instead would make lookups raise SIGBUS or read zeros.)
#[test]
fn save_over_an_open_file() {
    let path = tmp("replace");
    let f = filled(100_000); // 121 KiB of bits: many pages past the new file's end
    f.save(&path).unwrap();
    let old = BloomFilter::open(&path).unwrap();
    let small = Builder::new(10).seed(9).build().unwrap();
    small.insert("new").unwrap();
    let saved = small.save(&path);
    assert!((0..100_000).all(|i| old.contains(&format!("key-{i}"))));
    assert_eq!(old, f);
    if let Err(e) = saved {
        // Windows may refuse to replace a file that a filter has mapped, and wine always does
        // (wine 8 lacks FileRenameInfoEx, the rename with POSIX semantics): EBUSY after about a
        // second of retries, the old file whole and no temporary file left (capi/abloom.h,
        // abloom_save). POSIX systems always replace it.
        let busy = matches!(&e, Error::Io(err) if err.kind() == io::ErrorKind::ResourceBusy);
        assert!(cfg!(windows) && busy, "{e:?}");
        assert_eq!(std::fs::read(&path).unwrap(), f.to_bytes());
        assert_eq!(temporaries(&path), Vec::<String>::new());
        // Dropping the filter unmaps the file at once: now the save goes through.
        drop(old);
        small.save(&path).unwrap();
    }
    assert_eq!(temporaries(&path), Vec::<String>::new());
    let new = OpenOptions::new()
        .verify_checksum(true)
        .open(&path)
        .unwrap();
    assert_eq!(new, small);
    assert!(new.contains("new"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn file_errors() {
    let missing = tmp("does-not-exist");
    match BloomFilter::open(&missing) {
        Err(Error::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
        other => panic!("{other:?}"),
    }
    let f = BloomFilter::new(10, 0.01).unwrap();
    match f.save(missing.join("no-such-dir/x.abloom")) {
        Err(e @ Error::Io(_)) => {
            assert_eq!(e.code(), -15);
            assert!(std::error::Error::source(&e).is_some());
            assert!(e.to_string().contains(": "), "{e}");
        }
        other => panic!("{other:?}"),
    }
    match f.save("bad\0path") {
        Err(Error::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::InvalidInput),
        other => panic!("{other:?}"),
    }
    let junk = tmp("junk");
    std::fs::write(&junk, b"this is not a filter at all, not even close............................................................................................").unwrap();
    assert!(matches!(BloomFilter::open(&junk), Err(Error::BadMagic)));
    std::fs::write(&junk, b"short").unwrap();
    assert!(matches!(BloomFilter::open(&junk), Err(Error::Truncated)));
    let io_err: io::Error = BloomFilter::open(&junk).unwrap_err().into();
    assert_eq!(io_err.kind(), io::ErrorKind::InvalidData);
    std::fs::remove_file(&junk).unwrap();
}

/// Windows: a read-only file is neither replaced nor opened for writing, and a device name is
/// not a file. The C library reports these in the C runtime's errno (EACCES, ENODEV), which the
/// error carries as the Windows error of the same cause.
#[cfg(windows)]
#[test]
fn windows_read_only_files_and_devices() {
    let path = tmp("read-only");
    let f = filled(100);
    f.save(&path).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions.clone()).unwrap();
    let other = filled(10);
    match other.save(&path) {
        Err(Error::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(&path).unwrap(), f.to_bytes());
    assert_eq!(temporaries(&path), Vec::<String>::new());
    match OpenOptions::new().mode(OpenMode::ReadWrite).open(&path) {
        Err(Error::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(BloomFilter::open(&path).unwrap(), f);
    // On Windows this clears the read-only attribute, nothing else.
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&path, permissions).unwrap();
    std::fs::remove_file(&path).unwrap();

    for device in ["NUL", "nul", "NUL:"] {
        match BloomFilter::open(device) {
            // ENODEV: ERROR_NOT_SUPPORTED
            Err(Error::Io(e)) => assert_eq!(e.raw_os_error(), Some(50), "{device}: {e}"),
            other => panic!("{device}: {other:?}"),
        }
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip() {
    let f = filled(500);
    let json = serde_json::to_string(&f).unwrap();
    let g: BloomFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(f, g);
    let err = serde_json::from_str::<BloomFilter>("[1,2,3]").unwrap_err();
    assert!(!err.to_string().is_empty());
}

/// A writer killed before its first sync leaves the file stale: checked reads say
/// `Error::Stale`, plain opens work and say `info().stale`, and `seal` seals it (and refuses a
/// corrupt file without writing it).
#[test]
fn stale_file_and_seal() {
    let path = tmp("stale-writer");
    let stale_path = tmp("stale-copy");
    let f = Builder::new(2000).fpr(0.01).build().unwrap();
    for i in 0..300 {
        f.insert(&format!("before-{i}")).unwrap();
    }
    f.save(&path).unwrap();
    {
        let rw = OpenOptions::new()
            .mode(OpenMode::ReadWrite)
            .open(&path)
            .unwrap();
        assert!(!rw.info().stale);
        for i in 0..300 {
            rw.insert(&format!("after-{i}")).unwrap();
        }
        // The bytes a writer killed now leaves.
        std::fs::copy(&path, &stale_path).unwrap();
    }
    let stale = std::fs::read(&stale_path).unwrap();
    assert!(matches!(
        OpenOptions::new().verify_checksum(true).open(&stale_path),
        Err(Error::Stale)
    ));
    assert!(matches!(BloomFilter::from_bytes(&stale), Err(Error::Stale)));
    let plain = BloomFilter::open(&stale_path).unwrap();
    assert!(plain.info().stale);
    assert!((0..300).all(|i| plain.contains(&format!("after-{i}"))));
    drop(plain);

    abloom::seal(&stale_path).unwrap();
    let sealed = OpenOptions::new()
        .verify_checksum(true)
        .open(&stale_path)
        .unwrap();
    assert!(!sealed.info().stale);
    assert!(
        (0..300)
            .all(|i| sealed.contains(&format!("before-{i}"))
                && sealed.contains(&format!("after-{i}")))
    );
    drop(sealed);
    let sealed_bytes = std::fs::read(&stale_path).unwrap();
    abloom::seal(&stale_path).unwrap();
    assert_eq!(std::fs::read(&stale_path).unwrap(), sealed_bytes);

    let mut bad = sealed_bytes.clone();
    bad[200] ^= 0x20;
    std::fs::write(&stale_path, &bad).unwrap();
    assert!(matches!(abloom::seal(&stale_path), Err(Error::Checksum)));
    assert_eq!(std::fs::read(&stale_path).unwrap(), bad);
    assert!(matches!(
        abloom::seal(tmp("stale-missing")),
        Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound
    ));
}
