//! Behaviour and every reachable error path of the safe API (bytes and files: `files.rs`).

use abloom::{
    layout_model_fpr, model_fpr, AlignedBytes, BloomFilter, Builder, Error, Kind, Layout, Storage,
};

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
