//! Behaviour and every reachable error path of the safe API.

use abloom::{
    layout_model_fpr, model_fpr, AlignedBytes, BloomFilter, Builder, Error, Kind, Layout, OpenMode,
    OpenOptions, Storage,
};
use std::io;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-api");
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
fn traits() {
    fn is<T: Send + Sync + Clone + Eq + std::fmt::Debug>() {}
    is::<BloomFilter>();
    fn is_err<T: std::error::Error + Send + Sync + 'static>() {}
    is_err::<Error>();
}

#[test]
fn inserted_keys_are_found_and_key_types_agree() {
    let f = BloomFilter::new(10_000, 0.01).unwrap();
    f.insert("str").unwrap();
    f.insert(&String::from("string")).unwrap();
    f.insert(b"bytes").unwrap();
    f.insert(&vec![1u8, 2, 3]).unwrap();
    f.insert(&[0u8; 16]).unwrap();
    f.insert("").unwrap(); // the empty key is a key
    assert!(f.contains("str") && f.contains(b"str"));
    assert!(f.contains("string") && f.contains(&b"string".to_vec()));
    assert!(f.contains("bytes"));
    assert!(f.contains(&[1u8, 2, 3][..]));
    assert!(f.contains(&[0u8; 16]));
    assert!(f.contains(""));
    assert_eq!(f.hash("str"), f.hash(b"str"));
    assert!(f.contains_hash(f.hash("str")));
    assert!(!f.contains("never inserted"));
}

#[test]
fn false_positive_rate_matches_the_model() {
    // Seed 0 and fixed keys: deterministic. Bounds: 6 binomial standard deviations.
    for kind in [Kind::Blocked, Kind::Classic] {
        let n = 100_000u64;
        let f = Builder::new(n).fpr(0.01).kind(kind).build().unwrap();
        let keys: Vec<String> = (0..n).map(|i| format!("present-{i}")).collect();
        f.insert_batch(&keys).unwrap();
        let trials = 200_000u64;
        let absent: Vec<String> = (0..trials).map(|i| format!("absent-{i}")).collect();
        let mut out = vec![false; absent.len()];
        let fp = f.contains_batch(&absent, &mut out) as f64;
        let i = f.info();
        let p = i.expected_fpr;
        assert!(p > 0.008 && p <= 0.01, "{kind:?}: model FPR {p}");
        // The model of the layout the filter got (the library's choice: split for blocked at
        // 1%, distinct for classic), not necessarily model_fpr's (distinct).
        let bpk = i.bits as f64 / n as f64;
        let m = layout_model_fpr(kind, i.layout, bpk, i.k).unwrap();
        assert!((m - p).abs() <= 1e-12 * p, "{kind:?}: {m} vs {p}");
        let mean = p * trials as f64;
        let sd = (trials as f64 * p * (1.0 - p)).sqrt();
        assert!(
            (fp - mean).abs() < 6.0 * sd,
            "{kind:?}: {fp} false positives, expected {mean}"
        );
        let est = f.estimate_fpr();
        assert!(
            (est - p).abs() < 0.25 * p,
            "{kind:?}: estimated FPR {est} vs model {p}"
        );
        let count = f.estimate_count();
        assert!(
            (count - n as f64).abs() < 0.03 * n as f64,
            "{kind:?}: estimated count {count}"
        );
    }
}

#[test]
fn batches_agree_with_single_calls() {
    let f = Builder::new(200_000).threads(4).shards(8).build().unwrap();
    let keys: Vec<Vec<u8>> = (0..150_000u32).map(|i| i.to_le_bytes().repeat(3)).collect();
    let added = f.insert_batch(&keys).unwrap();
    assert!(added > 148_000 && added <= 150_000, "{added}");
    let probe: Vec<Vec<u8>> = (0..300_000u32).map(|i| i.to_le_bytes().repeat(3)).collect();
    let mut out = vec![false; probe.len()];
    let found = f.contains_batch(&probe, &mut out);
    assert_eq!(found, out.iter().filter(|b| **b).count());
    for (k, o) in probe.iter().zip(&out) {
        assert_eq!(f.contains(k), *o);
    }
    assert!(out[..150_000].iter().all(|b| *b));

    // Packed form.
    let mut buf = Vec::new();
    let mut offsets = vec![0u64];
    for k in &probe {
        buf.extend_from_slice(k);
        offsets.push(buf.len() as u64);
    }
    let mut out2 = vec![false; probe.len()];
    assert_eq!(f.contains_packed(&buf, &offsets, &mut out2).unwrap(), found);
    assert_eq!(out, out2);

    // Hash form.
    let hashes: Vec<u64> = probe.iter().map(|k| f.hash(k)).collect();
    let mut out3 = vec![false; probe.len()];
    assert_eq!(f.contains_hashes(&hashes, &mut out3), found);
    assert_eq!(out, out3);
    let g = Builder::new(200_000).shards(8).build().unwrap();
    g.insert_hashes(&hashes[..150_000]).unwrap();
    assert_eq!(f, g);
    // g is single-threaded: its batches go to C in chunks; same answers, in the same places.
    let mut out4 = vec![false; probe.len()];
    assert_eq!(g.contains_batch(&probe, &mut out4), found);
    assert_eq!(out, out4);
    let h = BloomFilter::builder(200_000).shards(8).build().unwrap();
    assert_eq!(h.insert_batch(&keys[..150_000]).unwrap(), added);
    assert_eq!(h, f);
    assert!(g.insert_checked_hash(hashes[0]).unwrap(), "already present");

    // Empty batches are fine.
    let none: [&str; 0] = [];
    assert_eq!(f.insert_batch(&none).unwrap(), 0);
    assert_eq!(f.contains_batch(&none, &mut []), 0);
    assert_eq!(f.insert_packed(&[], &[0]).unwrap(), 0);
}

#[test]
#[should_panic(expected = "contains_batch")]
fn contains_batch_panics_on_a_short_output() {
    let f = BloomFilter::new(10, 0.01).unwrap();
    f.contains_batch(&["a", "b"], &mut [false; 1]);
}

#[test]
#[should_panic(expected = "contains_hashes")]
fn contains_hashes_panics_on_a_short_output() {
    let f = BloomFilter::new(10, 0.01).unwrap();
    f.contains_hashes(&[1, 2], &mut [false; 3]);
}

#[test]
#[should_panic(expected = "contains_packed")]
fn contains_packed_panics_on_a_short_output() {
    let f = BloomFilter::new(10, 0.01).unwrap();
    let _ = f.contains_packed(b"ab", &[0, 1, 2], &mut [false; 1]);
}

#[test]
fn packed_offsets_are_validated() {
    let f = BloomFilter::new(100, 0.01).unwrap();
    assert!(matches!(f.insert_packed(b"abc", &[]), Err(Error::Invalid)));
    assert!(matches!(
        f.insert_packed(b"abc", &[0, 2, 1]),
        Err(Error::Invalid)
    ));
    assert!(matches!(
        f.insert_packed(b"abc", &[0, 4]),
        Err(Error::Invalid)
    ));
    let empty = BloomFilter::new(100, 0.01).unwrap();
    assert_eq!(f, empty, "nothing was inserted by the failed calls");
    let mut out = [true; 1];
    assert!(matches!(
        f.contains_packed(b"abc", &[0, 9], &mut out),
        Err(Error::Invalid)
    ));
    assert!(matches!(
        f.contains_packed(b"abc", &[], &mut []),
        Err(Error::Invalid)
    ));
    assert_eq!(out, [true], "out untouched on error");
}

#[test]
fn insert_checked_reports_repeats() {
    let f = BloomFilter::new(1000, 0.001).unwrap();
    assert!(!f.insert_checked("a").unwrap());
    assert!(f.insert_checked("a").unwrap());
    let h = f.hash("b");
    assert!(!f.insert_checked_hash(h).unwrap());
    assert!(f.insert_checked_hash(h).unwrap());
    f.insert_hash(f.hash("c")).unwrap();
    assert!(f.contains("c"));
}

#[test]
fn builder_options_and_errors() {
    let f = Builder::new(5000)
        .fpr(0.001)
        .kind(Kind::Classic)
        .shards(2)
        .seed(99)
        .threads(2)
        .build()
        .unwrap();
    let i = f.info();
    assert_eq!(
        (i.kind, i.shards, i.seed, i.capacity),
        (Kind::Classic, 2, 99, 5000)
    );
    assert_eq!(i.target_fpr, 0.001);
    assert!(i.expected_fpr <= 0.001);
    assert_eq!(i.storage, Storage::Owned);
    assert!(!i.read_only);
    assert_eq!(i.bytes * 8, i.bits);
    assert_eq!(
        (
            f.k(),
            f.bits(),
            f.shards(),
            f.seed(),
            f.capacity(),
            f.kind()
        ),
        (i.k, i.bits, 2, 99, 5000, Kind::Classic)
    );

    let plan = Builder::new(5000)
        .fpr(0.001)
        .kind(Kind::Classic)
        .shards(2)
        .plan()
        .unwrap();
    assert_eq!((plan.k, plan.bits, plan.shards), (i.k, i.bits, 2));
    let m = model_fpr(Kind::Classic, plan.bits_per_key, plan.k).unwrap();
    assert!((m - plan.expected_fpr).abs() < 1e-12);

    let explicit = Builder::new(1000).bits(64 * 512).k(5).build().unwrap();
    assert_eq!((explicit.bits(), explicit.k()), (64 * 512, 5));

    for bad in [
        Builder::new(0),
        Builder::new(100).fpr(0.0),
        Builder::new(100).fpr(1.0),
        Builder::new(100).fpr(f64::NAN),
        Builder::new(100).shards(3),
        Builder::new(100).shards(1 << 17),
        Builder::new(100).k(65),
        Builder::new(100).threads(257),
    ] {
        assert!(matches!(bad.build(), Err(Error::Invalid)), "{bad:?}");
        assert!(matches!(bad.plan(), Err(Error::Invalid)), "{bad:?}");
    }
    assert!(matches!(BloomFilter::new(0, 0.01), Err(Error::Invalid)));
    assert!(matches!(BloomFilter::new(100, 2.0), Err(Error::Invalid)));
    assert!(matches!(
        BloomFilter::new(u64::MAX, 1e-12),
        Err(Error::Range)
    ));
    assert!(matches!(
        Builder::new(10).bits(u64::MAX).plan(),
        Err(Error::Range)
    ));
    assert!(matches!(
        model_fpr(Kind::Blocked, -1.0, 5),
        Err(Error::Invalid)
    ));
    assert!(matches!(
        model_fpr(Kind::Blocked, 10.0, 65),
        Err(Error::Invalid)
    ));
}

#[test]
fn set_operations() {
    let a = BloomFilter::new(1000, 0.01).unwrap();
    let b = BloomFilter::new(1000, 0.01).unwrap();
    a.insert("only-a").unwrap();
    a.insert("both").unwrap();
    b.insert("only-b").unwrap();
    b.insert("both").unwrap();
    assert_ne!(a, b);

    let mut u = a.clone();
    assert_eq!(u, a);
    u.union(&b).unwrap();
    assert!(u.contains("only-a") && u.contains("only-b") && u.contains("both"));
    u.union(&u.clone()).unwrap();
    a.union(&a).unwrap(); // dst == src is allowed

    let mut i = a.clone();
    i.intersect(&b).unwrap();
    assert!(i.contains("both"));
    assert!(!i.contains("only-a") || !i.contains("only-b"));

    u.clear().unwrap();
    assert_eq!(u, BloomFilter::new(1000, 0.01).unwrap());
    assert!(!u.contains("both"));
    assert_eq!(u.estimate_count(), 0.0);

    let other_size = BloomFilter::new(5000, 0.01).unwrap();
    let other_seed = Builder::new(1000).seed(1).build().unwrap();
    let other_kind = Builder::new(1000).kind(Kind::Classic).build().unwrap();
    // `a` has the library's layout at 1% (split); the same shape in the other layout differs.
    assert_eq!(a.layout(), Layout::Split);
    let other_layout = Builder::new(1000).layout(Layout::Distinct).build().unwrap();
    for o in [&other_size, &other_seed, &other_kind, &other_layout] {
        assert!(matches!(a.union(o), Err(Error::Mismatch)));
        assert!(matches!(i.intersect(o), Err(Error::Mismatch)));
        assert_ne!(&a, o);
    }
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

#[test]
fn errors_display_the_library_messages() {
    let e = BloomFilter::new(0, 0.01).unwrap_err();
    assert_eq!(e.code(), -2);
    let msg = e.to_string();
    assert!(!msg.is_empty());
    let raw = unsafe { std::ffi::CStr::from_ptr(abloom::sys::abloom_strerror(-2)) };
    assert_eq!(msg, raw.to_str().unwrap());
    assert_ne!(Error::ReadOnly.to_string(), Error::Mismatch.to_string());
    assert!(Error::Unknown(-99).to_string().contains("-99"));
    assert_eq!(Error::Unknown(-99).code(), -99);
    assert!(abloom::version().starts_with("0."));
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

/// A batch of keys of 0 to 16 bytes with repeats of its own earlier keys (every 7th), of the key
/// before it (every 11th) and of `old` (every 13th).
fn dedupe_keys(n: usize, old: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(n);
    for i in 0..n {
        let k = if i % 7 == 3 {
            out[i / 2].clone()
        } else if i % 11 == 5 {
            out[i - 1].clone()
        } else if i % 13 == 0 {
            old[i % old.len()].clone()
        } else {
            let b = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes();
            [b, b][0..2].concat()[..i % 17].to_vec()
        };
        out.push(k);
    }
    out
}

/// insert_checked_batch, insert_checked_packed and insert_checked_hashes answer, count and set
/// bits as one insert_checked per key, on a fixed filter and on a growing one that the batch
/// takes across stage boundaries.
#[test]
fn insert_checked_batches_answer_as_one_insert_checked_per_key() {
    let old: Vec<Vec<u8>> = (0..300u64).map(|i| i.to_le_bytes().to_vec()).collect();
    let keys = dedupe_keys(20_000, &old);
    let mut buf = Vec::new();
    let mut offsets = vec![0u64];
    for k in &keys {
        buf.extend_from_slice(k);
        offsets.push(buf.len() as u64);
    }
    for growing in [false, true] {
        let new = || {
            let b = Builder::new(if growing { 1000 } else { 20_000 })
                .fpr(0.01)
                .seed(17);
            let f = if growing { b.growth(2.0) } else { b }.build().unwrap();
            f.insert_batch(&old).unwrap();
            f
        };
        let (single, batch, packed, hashed) = (new(), new(), new(), new());
        let stages = batch.info().stages;
        let want: Vec<bool> = keys
            .iter()
            .map(|k| single.insert_checked(k).unwrap())
            .collect();
        let fresh = want.iter().filter(|&&seen| !seen).count() as u64;
        assert!(fresh > 0 && fresh < keys.len() as u64);

        let mut out = vec![false; keys.len()];
        assert_eq!(batch.insert_checked_batch(&keys, &mut out).unwrap(), fresh);
        assert_eq!(out, want, "insert_checked_batch, growing {growing}");
        let mut out = vec![false; keys.len()];
        assert_eq!(
            packed
                .insert_checked_packed(&buf, &offsets, &mut out)
                .unwrap(),
            fresh
        );
        assert_eq!(out, want, "insert_checked_packed, growing {growing}");
        let hashes: Vec<u64> = keys.iter().map(|k| hashed.hash(k)).collect();
        let mut out = vec![false; keys.len()];
        assert_eq!(
            hashed.insert_checked_hashes(&hashes, &mut out).unwrap(),
            fresh
        );
        assert_eq!(out, want, "insert_checked_hashes, growing {growing}");

        for f in [&batch, &packed, &hashed] {
            assert!(*f == single);
            assert_eq!(f.info().keys, single.info().keys);
        }
        if growing {
            assert!(
                batch.info().stages >= stages + 2,
                "crossed stage boundaries"
            );
        }
        // Again: every key present now, none new.
        let mut out = vec![false; 100];
        assert_eq!(
            batch.insert_checked_batch(&keys[..100], &mut out).unwrap(),
            0
        );
        assert_eq!(out, vec![true; 100]);
    }
}

#[test]
fn insert_checked_batches_refuse_bad_arguments_and_read_only_filters() {
    let f = BloomFilter::new(1000, 0.01).unwrap();
    let mut none: [bool; 0] = [];
    assert_eq!(f.insert_checked_batch::<&str>(&[], &mut none).unwrap(), 0);
    assert_eq!(f.insert_checked_packed(&[], &[0], &mut none).unwrap(), 0);
    assert_eq!(f.insert_checked_hashes(&[], &mut none).unwrap(), 0);
    let mut out = [true; 2];
    assert!(matches!(
        f.insert_checked_packed(b"abc", &[], &mut none),
        Err(Error::Invalid)
    ));
    assert!(matches!(
        f.insert_checked_packed(b"abc", &[0, 2, 1], &mut out),
        Err(Error::Invalid)
    ));
    assert!(matches!(
        f.insert_checked_packed(b"abc", &[0, 2, 4], &mut out),
        Err(Error::Invalid)
    ));
    assert_eq!(out, [true; 2], "out untouched on error");
    assert!(!f.contains("ab") && !f.contains("a") && f.info().keys == 0);

    f.insert("key").unwrap();
    let bytes = AlignedBytes::from(f.to_bytes().as_slice());
    let view = BloomFilter::view(&bytes, true).unwrap();
    assert!(matches!(
        view.insert_checked_batch(&["x", "key"], &mut out),
        Err(Error::ReadOnly)
    ));
    assert!(matches!(
        view.insert_checked_packed(b"xkey", &[0, 1, 4], &mut out),
        Err(Error::ReadOnly)
    ));
    assert!(matches!(
        view.insert_checked_hashes(&[view.hash("x"), view.hash("key")], &mut out),
        Err(Error::ReadOnly)
    ));
    assert_eq!(out, [true; 2]);
    assert!(!view.contains("x") && view.contains("key"));
}

#[test]
#[should_panic(expected = "insert_checked_batch")]
fn insert_checked_batch_panics_on_a_short_output() {
    let f = BloomFilter::new(100, 0.01).unwrap();
    let _ = f.insert_checked_batch(&["a", "b"], &mut [false; 1]);
}

#[test]
#[should_panic(expected = "insert_checked_packed")]
fn insert_checked_packed_panics_on_a_short_output() {
    let f = BloomFilter::new(100, 0.01).unwrap();
    let _ = f.insert_checked_packed(b"ab", &[0, 1, 2], &mut [false; 1]);
}

#[test]
#[should_panic(expected = "insert_checked_hashes")]
fn insert_checked_hashes_panics_on_a_short_output() {
    let f = BloomFilter::new(100, 0.01).unwrap();
    let _ = f.insert_checked_hashes(&[1, 2], &mut [false; 1]);
}
