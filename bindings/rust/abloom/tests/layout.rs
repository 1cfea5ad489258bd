//! The in-block layouts of the blocked kind ([`Layout`]): the library's default choice (split
//! wherever its k is enough, distinct otherwise, never half), building and sizing with
//! the split and half layouts, their false-positive rates against the models, persistence in
//! every form, and the combinations the C library refuses.

use abloom::{
    layout_model_fpr, model_fpr, AlignedBytes, BloomFilter, Builder, Error, Kind, Layout, OpenMode,
    OpenOptions, Storage,
};
use std::path::PathBuf;

const N: u64 = 20_000;
const ABSENT: u64 = 200_000;

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-layout");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{}.abloom", std::process::id()))
}

fn present() -> Vec<String> {
    (0..N).map(|i| format!("layout-present-{i}")).collect()
}

fn absent() -> Vec<String> {
    (0..ABSENT).map(|i| format!("layout-absent-{i}")).collect()
}

fn split_builder(shards: u32) -> Builder {
    Builder::new(N)
        .fpr(0.01)
        .layout(Layout::Split)
        .shards(shards)
        .seed(0x5B11_7A11_0000_0001)
}

fn half_builder(shards: u32) -> Builder {
    Builder::new(N)
        .fpr(0.01)
        .layout(Layout::Half)
        .shards(shards)
        .seed(0x4A1F_0000_0000_0001)
}

/// Every present key tests true and the absent keys give `answers` (when given), through the
/// single and the batch path.
fn check_answers(f: &BloomFilter, answers: Option<&[bool]>) -> Vec<bool> {
    let keys = present();
    assert!(
        keys.iter().all(|k| f.contains(k)),
        "an added key tests false"
    );
    let mut out = vec![false; keys.len()];
    assert_eq!(f.contains_batch(&keys, &mut out), keys.len());
    let absent = absent();
    let mut got = vec![false; absent.len()];
    f.contains_batch(&absent, &mut got);
    if let Some(want) = answers {
        assert!(got == want, "absent keys answer differently");
        assert!(absent.iter().zip(want).all(|(k, &w)| f.contains(k) == w));
    }
    got
}

/// The format's layout id of a serialized filter (header bytes 20..24, little-endian).
fn header_layout_id(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[20..24].try_into().unwrap())
}

#[test]
fn the_default_layout_is_split_wherever_its_k_is_enough() {
    // A builder that does not call .layout(...) leaves the choice to the library: split for
    // the blocked kind where split's k (<= 16) is enough (an explicit k <= 16, or a target whose
    // best distinct k is <= 16: down to about 1e-6; with explicit bits and no k, the best
    // distinct k at those bits per key), distinct otherwise.
    let n = N;
    for (what, b, want) in [
        ("1%", Builder::new(n).fpr(0.01), Layout::Split),
        ("0.1%", Builder::new(n).fpr(0.001), Layout::Split),
        ("1e-6", Builder::new(n).fpr(1e-6), Layout::Split),
        ("1e-7", Builder::new(n).fpr(1e-7), Layout::Distinct),
        ("1e-9", Builder::new(n).fpr(1e-9), Layout::Distinct),
        ("k 16", Builder::new(n).k(16), Layout::Split),
        ("k 17", Builder::new(n).k(17), Layout::Distinct),
        (
            "bits and k 7",
            Builder::new(n).bits(n * 10).k(7),
            Layout::Split,
        ),
        ("10 bits/key", Builder::new(n).bits(n * 10), Layout::Split),
        (
            "64 bits/key",
            Builder::new(n).bits(n * 64),
            Layout::Distinct,
        ),
        (
            "classic",
            Builder::new(n).kind(Kind::Classic),
            Layout::Distinct,
        ),
        (
            "classic k 7",
            Builder::new(n).kind(Kind::Classic).k(7),
            Layout::Distinct,
        ),
    ] {
        let plan = b.plan().unwrap();
        assert_eq!(plan.layout, want, "{what}: plan (k {})", plan.k);
        if want == Layout::Split {
            assert!(plan.k <= Layout::SPLIT_MAX_K, "{what}: k {}", plan.k);
        }
        let f = b.build().unwrap();
        assert_eq!(
            (f.layout(), f.info().layout),
            (want, want),
            "{what}: filter"
        );
        assert_eq!((f.k(), f.bits()), (plan.k, plan.bits), "{what}");
        let id = match want {
            Layout::Distinct => 1,
            Layout::Split => 2,
            other => panic!("{what}: the library chose {other:?}"),
        };
        assert_eq!(header_layout_id(&f.to_bytes()), id, "{what}: header");

        // Asking for the chosen layout explicitly changes nothing: same bits and k.
        let explicit = b.layout(want);
        let explicit_plan = explicit.plan().unwrap();
        assert_eq!(
            (explicit_plan.bits, explicit_plan.k),
            (plan.bits, plan.k),
            "{what}"
        );
        assert_eq!(explicit_plan, plan, "{what}");
        assert_eq!(explicit.build().unwrap(), f, "{what}");

        // The plan's FPR is the model of the layout it got, and the C API's model of the
        // default layout (ABLOOM_LAYOUT_DEFAULT) at the plan's k is that same model.
        let m = layout_model_fpr(plan.kind, plan.layout, plan.bits_per_key, plan.k).unwrap();
        assert!(
            (m - plan.expected_fpr).abs() <= 1e-12 * plan.expected_fpr,
            "{what}: {m} vs {}",
            plan.expected_fpr
        );
        let mut d = 0.0;
        // SAFETY: d is a valid, writable f64.
        let rc = unsafe {
            abloom::sys::abloom_layout_model_fpr(
                match plan.kind {
                    Kind::Blocked => abloom::sys::ABLOOM_KIND_BLOCKED,
                    Kind::Classic => abloom::sys::ABLOOM_KIND_CLASSIC,
                },
                abloom::sys::ABLOOM_LAYOUT_DEFAULT,
                plan.bits_per_key,
                plan.k,
                &mut d,
            )
        };
        assert_eq!(
            (rc, d),
            (abloom::sys::ABLOOM_OK, m),
            "{what}: default model"
        );
    }

    // The same through BloomFilter::new (the C library's abloom_new, default options).
    let f = BloomFilter::new(n, 0.01).unwrap();
    assert_eq!(f.layout(), Layout::Split);
    assert_eq!(
        f,
        Builder::new(n)
            .fpr(0.01)
            .layout(Layout::Split)
            .build()
            .unwrap()
    );
    assert_eq!(
        BloomFilter::new(n, 1e-9).unwrap().layout(),
        Layout::Distinct
    );

    // Split costs a few percent more bits than distinct at the same target: the default at 1%
    // is not the smallest filter, and asking for distinct gives that one.
    let default = Builder::new(1_000_000).fpr(0.01).plan().unwrap();
    let distinct = Builder::new(1_000_000)
        .fpr(0.01)
        .layout(Layout::Distinct)
        .plan()
        .unwrap();
    assert_eq!((default.layout, default.k), (Layout::Split, 7));
    assert_eq!((distinct.layout, distinct.k), (Layout::Distinct, 6));
    let ratio = default.bits_per_key / distinct.bits_per_key;
    assert!((1.0..=1.03).contains(&ratio), "{ratio}");
}

#[test]
fn the_library_never_chooses_half() {
    // Not even where half's k (8) is the best distinct k, or given explicitly: half is only
    // ever asked for.
    for fpr in [0.1, 0.05, 0.01, 0.005, 0.001, 1e-4, 1e-6, 1e-9] {
        for k in [0, 8] {
            for bits in [0, N * 12] {
                let b = Builder::new(N).fpr(fpr).k(k).bits(bits);
                let plan = b.plan().unwrap();
                assert_ne!(plan.layout, Layout::Half, "fpr {fpr} k {k} bits {bits}");
                assert_ne!(b.build().unwrap().layout(), Layout::Half);
            }
        }
    }
    assert_ne!(BloomFilter::new(N, 0.004).unwrap().layout(), Layout::Half);
}

#[test]
fn split_filters_find_every_key_and_meet_the_model_fpr() {
    for shards in [1, 4] {
        let b = split_builder(shards);
        let plan = b.plan().unwrap();
        assert_eq!(
            (plan.kind, plan.layout, plan.shards),
            (Kind::Blocked, Layout::Split, shards)
        );
        assert!(plan.k >= 1 && plan.k <= Layout::SPLIT_MAX_K, "k {}", plan.k);
        assert!(plan.expected_fpr > 0.008 && plan.expected_fpr <= 0.01);

        let f = b.build().unwrap();
        let i = f.info();
        assert_eq!(
            (i.kind, i.layout, i.k, i.shards),
            (Kind::Blocked, Layout::Split, plan.k, shards)
        );
        assert_eq!(
            (i.bits, i.blocks_per_shard, i.capacity),
            (plan.bits, plan.blocks_per_shard, N)
        );
        assert_eq!((i.target_fpr, i.expected_fpr), (0.01, plan.expected_fpr));
        assert_eq!(f.layout(), Layout::Split);
        assert!(format!("{f:?}").contains("layout: Split"));

        // Half in one batch, half one by one: both paths set split bits.
        let keys = present();
        let (batch, single) = keys.split_at(N as usize / 2);
        let new = f.insert_batch(batch).unwrap();
        assert!(new <= batch.len() as u64 && new as f64 > 0.99 * batch.len() as f64);
        for k in single {
            f.insert(k).unwrap();
        }

        // Fixed seed and keys: deterministic. Bound: the binomial mean plus 5 standard
        // deviations at the plan's model FPR.
        let fp = check_answers(&f, None).iter().filter(|&&a| a).count() as f64;
        let p = plan.expected_fpr;
        let mean = p * ABSENT as f64;
        let sd = (ABSENT as f64 * p * (1.0 - p)).sqrt();
        assert!(
            fp <= mean + 5.0 * sd,
            "shards {shards}: {fp} false positives of {ABSENT}, model {mean} (sd {sd})"
        );
        assert!(
            fp >= mean - 5.0 * sd,
            "shards {shards}: only {fp} false positives, model {mean}"
        );
        let est = f.estimate_fpr();
        assert!(
            (est - p).abs() < 0.25 * p,
            "estimated FPR {est} vs model {p}"
        );
        let count = f.estimate_count();
        assert!((count - N as f64).abs() < 0.03 * N as f64, "count {count}");
    }
}

#[test]
fn half_filters_find_every_key_and_meet_the_model_fpr() {
    for shards in [1, 4] {
        let b = half_builder(shards);
        let plan = b.plan().unwrap();
        assert_eq!(
            (plan.kind, plan.layout, plan.shards, plan.k),
            (Kind::Blocked, Layout::Half, shards, Layout::HALF_K)
        );
        assert!(plan.expected_fpr > 0.008 && plan.expected_fpr <= 0.01);

        let f = b.build().unwrap();
        let i = f.info();
        assert_eq!(
            (i.kind, i.layout, i.k, i.shards),
            (Kind::Blocked, Layout::Half, 8, shards)
        );
        assert_eq!(
            (i.bits, i.blocks_per_shard, i.capacity),
            (plan.bits, plan.blocks_per_shard, N)
        );
        assert_eq!((i.target_fpr, i.expected_fpr), (0.01, plan.expected_fpr));
        assert_eq!(f.layout(), Layout::Half);
        assert!(format!("{f:?}").contains("layout: Half"));
        assert_eq!(header_layout_id(&f.to_bytes()), 3);

        // Half in one batch, half one by one (and a few by hash): every path sets half bits.
        let keys = present();
        let (batch, single) = keys.split_at(N as usize / 2);
        let new = f.insert_batch(batch).unwrap();
        assert!(new <= batch.len() as u64 && new as f64 > 0.99 * batch.len() as f64);
        let (by_hash, single) = single.split_at(100);
        for k in by_hash {
            f.insert_hash(f.hash(k)).unwrap();
        }
        for k in single {
            f.insert(k).unwrap();
        }

        // Fixed seed and keys: deterministic. Bound: the binomial mean plus 5 standard
        // deviations at the plan's model FPR.
        let fp = check_answers(&f, None).iter().filter(|&&a| a).count() as f64;
        let p = plan.expected_fpr;
        let mean = p * ABSENT as f64;
        let sd = (ABSENT as f64 * p * (1.0 - p)).sqrt();
        assert!(
            fp <= mean + 5.0 * sd,
            "shards {shards}: {fp} false positives of {ABSENT}, model {mean} (sd {sd})"
        );
        assert!(
            fp >= mean - 5.0 * sd,
            "shards {shards}: only {fp} false positives, model {mean}"
        );
        let est = f.estimate_fpr();
        assert!(
            (est - p).abs() < 0.25 * p,
            "estimated FPR {est} vs model {p}"
        );
        let count = f.estimate_count();
        assert!((count - N as f64).abs() < 0.03 * N as f64, "count {count}");
    }
}

#[test]
fn half_needs_a_few_percent_more_bits_than_split() {
    // The cost of half's fixed k and half-block window: about 4% over split at 1%, 7% at 0.1%.
    for (fpr, low, high) in [(0.01, 1.02, 1.06), (0.001, 1.05, 1.09)] {
        for capacity in [N, 1_000_000, 100_000_000] {
            let plan = |layout| {
                Builder::new(capacity)
                    .fpr(fpr)
                    .layout(layout)
                    .plan()
                    .unwrap()
            };
            let (split, half) = (plan(Layout::Split), plan(Layout::Half));
            assert_eq!((half.layout, half.k), (Layout::Half, 8));
            assert!(half.expected_fpr <= fpr && split.expected_fpr <= fpr);
            let ratio = half.bits_per_key / split.bits_per_key;
            assert!(
                (low..=high).contains(&ratio),
                "fpr {fpr}, capacity {capacity}: half {} vs split {} bits per key",
                half.bits_per_key,
                split.bits_per_key
            );
        }
    }
}

#[test]
fn half_sizing_takes_k_8_and_explicit_bits() {
    // k 0 (the default) and k 8 give the same plan; explicit bits keep k 8.
    let chosen = half_builder(1).plan().unwrap();
    assert_eq!(half_builder(1).k(8).plan().unwrap(), chosen);
    let f = Builder::new(1000)
        .layout(Layout::Half)
        .bits(64 * 512)
        .build()
        .unwrap();
    let i = f.info();
    assert_eq!(
        (i.layout, i.k, i.bits, i.target_fpr),
        (Layout::Half, 8, 64 * 512, 0.0)
    );
    let m = layout_model_fpr(Kind::Blocked, Layout::Half, 64.0 * 512.0 / 1000.0, 8).unwrap();
    assert!(
        (m - i.expected_fpr).abs() <= 1e-12 * m,
        "{m} vs {}",
        i.expected_fpr
    );
    let both = Builder::new(1000)
        .layout(Layout::Half)
        .bits(64 * 512)
        .k(8)
        .build()
        .unwrap();
    assert_eq!(both.info(), i);
}

#[test]
fn split_needs_a_few_percent_more_bits_than_distinct() {
    for fpr in [0.01, 0.001] {
        for capacity in [N, 1_000_000, 100_000_000] {
            let distinct = Builder::new(capacity)
                .fpr(fpr)
                .layout(Layout::Distinct)
                .plan()
                .unwrap();
            assert_eq!(distinct.layout, Layout::Distinct);
            let split = Builder::new(capacity)
                .fpr(fpr)
                .layout(Layout::Split)
                .plan()
                .unwrap();
            assert_eq!(split.layout, Layout::Split);
            assert!(split.expected_fpr <= fpr && distinct.expected_fpr <= fpr);
            let ratio = split.bits_per_key / distinct.bits_per_key;
            assert!(
                (1.0..=1.03).contains(&ratio),
                "fpr {fpr}, capacity {capacity}: split {} vs distinct {} bits per key",
                split.bits_per_key,
                distinct.bits_per_key
            );
        }
    }
}

#[test]
fn split_sizing_respects_a_fixed_k_and_explicit_bits() {
    for k in [1, 8, 16] {
        let plan = split_builder(1).k(k).plan().unwrap();
        assert_eq!((plan.k, plan.layout), (k, Layout::Split));
        assert!(plan.expected_fpr <= 0.01);
    }
    let f = Builder::new(1000)
        .layout(Layout::Split)
        .bits(64 * 512)
        .k(12)
        .build()
        .unwrap();
    let i = f.info();
    assert_eq!(
        (i.layout, i.k, i.bits, i.target_fpr),
        (Layout::Split, 12, 64 * 512, 0.0)
    );
    let m = layout_model_fpr(Kind::Blocked, Layout::Split, 64.0 * 512.0 / 1000.0, 12).unwrap();
    assert!(
        (m - i.expected_fpr).abs() <= 1e-12 * m,
        "{m} vs {}",
        i.expected_fpr
    );
}

#[test]
fn persistence_keeps_the_layout_and_the_answers() {
    persistence_keeps(Layout::Split, split_builder(4));
    persistence_keeps(Layout::Half, half_builder(4));
}

fn persistence_keeps(layout: Layout, builder: Builder) {
    let f = builder.build().unwrap();
    assert_eq!(f.layout(), layout);
    f.insert_batch(&present()).unwrap();
    let answers = check_answers(&f, None);
    let bytes = f.to_bytes();

    // Deserialized: owned and writable.
    let g = BloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!((g.layout(), g.info().storage), (layout, Storage::Owned));
    assert_eq!(g, f);
    assert_eq!(g.info(), f.info());
    check_answers(&g, Some(&answers));
    g.insert("after").unwrap();
    assert!(g.contains("after"));

    // Viewed, with and without the checksum check.
    let aligned = AlignedBytes::from(bytes.as_slice());
    for verify in [false, true] {
        let v = BloomFilter::view(&aligned, verify).unwrap();
        assert_eq!((v.layout(), v.info().storage), (layout, Storage::View));
        check_answers(&v, Some(&answers));
        // A clone of a view is an owned filter of the same layout.
        assert_eq!(v.clone().layout(), layout);
    }

    // Saved and opened in every mode.
    let path = tmp(&format!("{layout:?}"));
    f.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    for mode in [
        OpenMode::ReadOnly,
        OpenMode::CopyOnWrite,
        OpenMode::ReadWrite,
    ] {
        let o = OpenOptions::new()
            .mode(mode)
            .verify_checksum(true)
            .open(&path)
            .unwrap();
        assert_eq!(o.layout(), layout, "{mode:?}");
        assert_eq!(o.info().storage, Storage::Mapped);
        check_answers(&o, Some(&answers));
        o.close().unwrap();
    }
    let o = BloomFilter::open(&path).unwrap();
    assert_eq!(o.info(), BloomFilter::open(&path).unwrap().info());
    assert_eq!(o.layout(), layout);
    drop(o);
    std::fs::remove_file(&path).unwrap();

    // serde carries the same bytes.
    #[cfg(feature = "serde")]
    {
        let json = serde_json::to_string(&f).unwrap();
        let s: BloomFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(s.layout(), layout);
        assert_eq!(s, f);
    }
}

#[test]
fn layouts_do_not_mix() {
    let split = split_builder(1).build().unwrap();
    let distinct = Builder::new(N)
        .fpr(0.01)
        .layout(Layout::Distinct)
        .seed(0x5B11_7A11_0000_0001)
        .bits(split.bits())
        .k(split.k())
        .build()
        .unwrap();
    assert_eq!(
        (distinct.bits(), distinct.k(), distinct.layout()),
        (split.bits(), split.k(), Layout::Distinct)
    );
    assert!(matches!(split.union(&distinct), Err(Error::Mismatch)));
    assert!(matches!(distinct.union(&split), Err(Error::Mismatch)));
    assert_ne!(split, distinct);
    let mut s = split.clone();
    assert!(matches!(s.intersect(&distinct), Err(Error::Mismatch)));
    s.union(&split).unwrap();
    s.intersect(&split).unwrap();

    // The exclusive-writer mode keeps the layout and sets the same bits.
    let keys = present();
    let shared = split_builder(1).build().unwrap();
    shared.insert_batch(&keys).unwrap();
    let mut x = split_builder(1).build().unwrap().into_exclusive().unwrap();
    assert_eq!(x.info().layout, Layout::Split);
    x.insert_batch(&keys).unwrap();
    let x = x.into_shared().unwrap();
    assert_eq!((x.layout(), &x), (Layout::Split, &shared));

    // Half against split and distinct at the same bits and k (8): never one shape.
    let half = half_builder(1).build().unwrap();
    for other in [Layout::Split, Layout::Distinct] {
        let o = Builder::new(N)
            .layout(other)
            .seed(0x4A1F_0000_0000_0001)
            .bits(half.bits())
            .k(half.k())
            .build()
            .unwrap();
        assert_eq!((o.bits(), o.k(), o.layout()), (half.bits(), 8, other));
        assert!(matches!(half.union(&o), Err(Error::Mismatch)), "{other:?}");
        assert!(matches!(o.union(&half), Err(Error::Mismatch)), "{other:?}");
        assert_ne!(half, o);
    }
    let mut h = half.clone();
    h.union(&half).unwrap();
    h.intersect(&half).unwrap();
    let shared = half_builder(1).build().unwrap();
    shared.insert_batch(&keys).unwrap();
    let mut x = half_builder(1).build().unwrap().into_exclusive().unwrap();
    assert_eq!(x.info().layout, Layout::Half);
    x.insert_batch(&keys).unwrap();
    let x = x.into_shared().unwrap();
    assert_eq!((x.layout(), &x), (Layout::Half, &shared));
}

#[test]
fn bad_combinations_are_invalid() {
    for bad in [
        Builder::new(N).kind(Kind::Classic).layout(Layout::Split),
        Builder::new(N)
            .layout(Layout::Split)
            .k(Layout::SPLIT_MAX_K + 1),
        Builder::new(N).layout(Layout::Split).k(64),
        Builder::new(N)
            .layout(Layout::Split)
            .kind(Kind::Classic)
            .bits(1 << 20)
            .k(4),
        Builder::new(N).kind(Kind::Classic).layout(Layout::Half),
        Builder::new(N)
            .kind(Kind::Classic)
            .layout(Layout::Half)
            .k(8),
        Builder::new(N).layout(Layout::Half).k(7),
        Builder::new(N).layout(Layout::Half).k(9),
        Builder::new(N).layout(Layout::Half).k(1),
        Builder::new(N).layout(Layout::Half).k(16),
        Builder::new(N).layout(Layout::Half).bits(1 << 20).k(4),
        // An id no library knows is refused, never taken for another layout.
        Builder::new(N).layout(Layout::Unknown(0xFF)),
        Builder::new(N).layout(Layout::Unknown(u32::MAX)),
    ] {
        assert!(matches!(bad.plan(), Err(Error::Invalid)), "{bad:?}");
        assert!(matches!(bad.build(), Err(Error::Invalid)), "{bad:?}");
    }
    assert_eq!(Layout::SPLIT_MAX_K, 16);
    assert_eq!(Layout::HALF_K, 8);
    assert_eq!(
        (Layout::Distinct.id(), Layout::Split.id(), Layout::Half.id()),
        (1, 2, 3)
    );
    // Half's only k works, given or chosen.
    assert!(Builder::new(N).layout(Layout::Half).k(8).build().is_ok());
    assert!(Builder::new(N).layout(Layout::Half).build().is_ok());
    // Growing filters of the half layout: each stage is half, k 8.
    let g = Builder::growing().layout(Layout::Half).build().unwrap();
    assert_eq!((g.layout(), g.k()), (Layout::Half, 8));
    assert!(matches!(
        Builder::growing()
            .kind(Kind::Classic)
            .layout(Layout::Half)
            .build(),
        Err(Error::Invalid)
    ));
    // The largest split k works, and distinct takes any k.
    assert!(Builder::new(N).layout(Layout::Split).k(16).build().is_ok());
    assert!(Builder::new(N)
        .layout(Layout::Distinct)
        .k(17)
        .build()
        .is_ok());
    assert!(Builder::new(N)
        .kind(Kind::Classic)
        .layout(Layout::Distinct)
        .build()
        .is_ok());

    for (kind, layout, bpk, k) in [
        (Kind::Classic, Layout::Split, 10.0, 7),
        (Kind::Blocked, Layout::Split, 10.0, 17),
        (Kind::Blocked, Layout::Split, 10.0, 0),
        (Kind::Blocked, Layout::Split, -1.0, 7),
        (Kind::Blocked, Layout::Split, f64::NAN, 7),
        (Kind::Blocked, Layout::Split, f64::INFINITY, 7),
        (Kind::Blocked, Layout::Distinct, 10.0, 65),
        (Kind::Classic, Layout::Half, 10.0, 8),
        (Kind::Blocked, Layout::Half, 10.0, 7),
        (Kind::Blocked, Layout::Half, 10.0, 9),
        (Kind::Blocked, Layout::Half, 10.0, 0),
        (Kind::Blocked, Layout::Half, 0.0, 8),
        (Kind::Blocked, Layout::Half, f64::NAN, 8),
        (Kind::Blocked, Layout::Unknown(0xFF), 10.0, 8),
    ] {
        assert!(
            matches!(layout_model_fpr(kind, layout, bpk, k), Err(Error::Invalid)),
            "{kind:?} {layout:?} {bpk} {k}"
        );
    }
}

#[test]
fn layout_model_fpr_agrees_with_the_plans() {
    for fpr in [0.05, 0.01, 0.001, 0.0001] {
        for capacity in [1000, N, 1_000_000] {
            for (kind, layout) in [
                (Kind::Blocked, Layout::Distinct),
                (Kind::Blocked, Layout::Split),
                (Kind::Blocked, Layout::Half),
                (Kind::Classic, Layout::Distinct),
            ] {
                let plan = Builder::new(capacity)
                    .fpr(fpr)
                    .kind(kind)
                    .layout(layout)
                    .plan()
                    .unwrap();
                assert_eq!((plan.kind, plan.layout), (kind, layout));
                let m = layout_model_fpr(kind, layout, plan.bits_per_key, plan.k).unwrap();
                assert!(
                    (m - plan.expected_fpr).abs() <= 1e-12 * plan.expected_fpr,
                    "{kind:?} {layout:?} fpr {fpr} capacity {capacity}: {m} vs {}",
                    plan.expected_fpr
                );
                assert!(m <= fpr);
                if layout == Layout::Distinct {
                    let d = model_fpr(kind, plan.bits_per_key, plan.k).unwrap();
                    assert_eq!(d, m, "{kind:?}");
                }
            }
        }
    }
    // At equal bits and k, split is a little worse than distinct, and never better.
    for k in 1..=Layout::SPLIT_MAX_K {
        for bpk in [4.0, 8.0, 10.0, 16.0, 24.0] {
            let d = layout_model_fpr(Kind::Blocked, Layout::Distinct, bpk, k).unwrap();
            let s = layout_model_fpr(Kind::Blocked, Layout::Split, bpk, k).unwrap();
            assert!(
                s >= d * (1.0 - 1e-12),
                "k {k}, {bpk} bits per key: {s} < {d}"
            );
            assert!(s > 0.0 && s < 1.0);
        }
    }
    // At equal bits, half (k 8) is a little worse than split at k 8, and never better.
    for bpk in [4.0, 8.0, 10.0, 12.0, 16.0, 24.0] {
        let s = layout_model_fpr(Kind::Blocked, Layout::Split, bpk, 8).unwrap();
        let h = layout_model_fpr(Kind::Blocked, Layout::Half, bpk, 8).unwrap();
        assert!(h >= s * (1.0 - 1e-12), "{bpk} bits per key: {h} < {s}");
        assert!(h > 0.0 && h < 1.0);
    }
}
