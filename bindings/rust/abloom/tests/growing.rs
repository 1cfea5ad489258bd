//! Growing filters ([`BloomFilter::growing`], [`Builder::growing`], [`Builder::growth`]): the FPR
//! held far past the first stage, no false negatives across stage boundaries (single keys, every
//! batch form, threads), bytes, files, views and serde at several stage counts, union stage by
//! stage, the calls a chain refuses, the info of the chain and of each stage, and bad options.
//! Key counts stay modest: these tests also run under qemu and wine.

use abloom::{
    AlignedBytes, BloomFilter, Builder, Error, Info, Kind, Layout, OpenMode, OpenOptions, Storage,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

const SEED: u64 = 0x6A0E_1A60_0000_0051;

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-growing");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{}.abloom", std::process::id()))
}

/// Keys `first..first + n` as 8 little-endian bytes.
fn keys(first: u64, n: u64) -> Vec<[u8; 8]> {
    (first..first + n).map(u64::to_le_bytes).collect()
}

/// A growing filter at 1% whose first stage takes `first` keys, each next twice the last.
fn growing(first: u64) -> Builder {
    Builder::new(first).fpr(0.01).seed(SEED).growth(2.0)
}

/// The most false positives among `n` absent keys that a false-positive rate of `p` allows:
/// the mean of Binomial(n, p) plus six standard deviations.
fn max_false_positives(n: usize, p: f64) -> usize {
    let n = n as f64;
    (n * p + 6.0 * (n * p * (1.0 - p)).sqrt()).ceil() as usize
}

/// Every key tests present through every lookup form.
fn assert_all_present(f: &BloomFilter, ks: &[[u8; 8]]) {
    for k in ks {
        assert!(f.contains(k), "false negative: {}", u64::from_le_bytes(*k));
    }
    let mut out = vec![false; ks.len()];
    assert_eq!(f.contains_batch(ks, &mut out), ks.len());
    let buf: Vec<u8> = ks.concat();
    let offsets: Vec<u64> = (0..=ks.len() as u64).map(|i| i * 8).collect();
    assert_eq!(
        f.contains_packed(&buf, &offsets, &mut out).unwrap(),
        ks.len()
    );
    let hashes: Vec<u64> = ks.iter().map(|k| f.hash(k)).collect();
    assert_eq!(f.contains_hashes(&hashes, &mut out), ks.len());
    assert!(hashes.iter().all(|&h| f.contains_hash(h)));
}

/// The chain's info agrees with its stages': capacities `first * 2^i`, FPR targets that shrink,
/// every stage but the newest full, and the sums the chain reports.
fn assert_stages_add_up(f: &BloomFilter, first: u64) {
    let info = f.info();
    assert!(info.is_growing());
    assert_eq!(info.growth, 2.0);
    assert!(!info.growth_failed);
    let stages: Vec<_> = f.stage_infos().collect();
    assert_eq!(stages.len() as u32, info.stages);
    for (i, s) in stages.iter().enumerate() {
        assert_eq!(s.capacity, first << i, "stage {i}");
        assert_eq!((s.stages, s.growth, s.seed), (info.stages, 2.0, SEED));
        assert!(s.expected_fpr <= s.target_fpr, "stage {i}: {s:?}");
        if i + 1 < stages.len() {
            assert!(s.keys >= s.capacity, "stage {i} not full before the next");
        }
    }
    let newest = stages.last().unwrap();
    assert_eq!(
        (info.kind, info.layout, info.k, info.shards),
        (newest.kind, newest.layout, newest.k, newest.shards)
    );
    assert_eq!(info.blocks_per_shard, newest.blocks_per_shard);
    assert_eq!(info.keys, stages.iter().map(|s| s.keys).sum::<u64>());
    assert_eq!(
        info.capacity,
        stages.iter().map(|s| s.capacity).sum::<u64>()
    );
    assert_eq!(info.bits, stages.iter().map(|s| s.bits).sum::<u64>());
    assert_eq!(info.bytes, stages.iter().map(|s| s.bytes).sum::<u64>());
    // The stages' shares of the chain's target sum below it, at any count of stages.
    let targets: f64 = stages.iter().map(|s| s.target_fpr).sum();
    assert!(targets < info.target_fpr, "{targets}");
    let bound: f64 = stages.iter().map(|s| s.expected_fpr).sum();
    assert!((info.expected_fpr - bound).abs() <= 1e-12, "{info:?}");
    assert!(info.expected_fpr < info.target_fpr);
    assert!(matches!(f.stage_info(info.stages), Err(Error::Range)));
}

#[test]
fn holds_its_fpr_at_10x_and_100x_the_first_stage() {
    const FIRST: u64 = 1000;
    const ABSENT: u64 = 200_000;
    let b = growing(FIRST);
    let f = b.build().unwrap();
    let absent = keys(1 << 40, ABSENT);
    let mut found = vec![false; absent.len()];
    for (n, stages) in [(10 * FIRST, 4), (100 * FIRST, 7)] {
        // Up to n keys in all, in batches that end past stage boundaries.
        let have = f.info().keys;
        f.insert_batch(&keys(have, n - have)).unwrap();
        let info = f.info();
        // 1000 * (2^3 - 1) < 10000 <= 1000 * (2^4 - 1); 63000 < 100000 <= 127000.
        assert_eq!(info.stages, stages, "{n} keys");
        // Counted as new: every key but those a false positive made look present.
        assert!(info.keys <= n && info.keys >= n - n / 100, "{info:?}");
        assert_stages_add_up(&f, FIRST);
        assert_all_present(&f, &keys(0, n));
        // Absent keys: false positives ~ Binomial(200000, p), p below the chain's bound, itself
        // below the 1% target.
        let fp = f.contains_batch(&absent, &mut found);
        assert!(
            fp <= max_false_positives(absent.len(), info.expected_fpr),
            "{fp} false positives of {ABSENT} at {n} keys, bound {}",
            info.expected_fpr
        );
        assert!(fp <= max_false_positives(absent.len(), 0.01));
        // The plan of the chain at that count is what the filter became.
        let fp_plan = b.footprint(n).unwrap();
        assert_eq!(
            (fp_plan.stages, fp_plan.bytes),
            (info.stages, info.bytes),
            "{n}"
        );
        assert!((fp_plan.fpr_bound - info.expected_fpr).abs() <= 1e-12);
    }
    // The estimates read every stage.
    let n = f.estimate_count();
    assert!((n - 100_000.0).abs() < 5_000.0, "{n}");
    assert!(f.estimate_fpr() < 0.01);
}

#[test]
fn no_false_negatives_across_stage_boundaries_single_keys() {
    // 100 + 200 + 400 + 800 + 1600 = 3100: the 3000 keys end in the fifth stage.
    let f = growing(100).build().unwrap();
    let ks = keys(0, 3000);
    let mut stages = f.stages();
    assert_eq!(stages, 1);
    for (i, k) in ks.iter().enumerate() {
        f.insert(k).unwrap();
        assert!(f.contains(k));
        let now = f.stages();
        if now != stages {
            // A stage was appended: every key so far is still found.
            assert_eq!(now, stages + 1);
            assert_all_present(&f, &ks[..=i]);
            stages = now;
        }
    }
    assert_eq!(stages, 5);
    assert_stages_add_up(&f, 100);
    assert_all_present(&f, &ks);
}

#[test]
fn every_insert_form_grows_as_single_inserts_do() {
    // Chunks of 37 keys cross every stage boundary at a different offset; each form ends with
    // the bytes one insert per key gives, and counts the same new keys.
    let ks = keys(7, 3000);
    let single = growing(100).build().unwrap();
    let new_singly = ks
        .iter()
        .filter(|k| !single.insert_checked(k).unwrap())
        .count() as u64;
    assert_eq!(single.info().keys, new_singly);
    let expected = single.to_bytes();

    // Each form inserts a chunk and returns its count of new keys, if it gives one.
    type Form = fn(&BloomFilter, &[[u8; 8]]) -> Option<u64>;
    let forms: [(&str, Form); 5] = [
        ("insert", |f, c| {
            c.iter().for_each(|k| f.insert(k).unwrap());
            None
        }),
        ("insert_hash", |f, c| {
            c.iter().for_each(|k| f.insert_hash(f.hash(k)).unwrap());
            None
        }),
        ("insert_batch", |f, c| Some(f.insert_batch(c).unwrap())),
        ("insert_packed", |f, c| {
            let offsets: Vec<u64> = (0..=c.len() as u64).map(|i| i * 8).collect();
            Some(f.insert_packed(&c.concat(), &offsets).unwrap())
        }),
        ("insert_hashes", |f, c| {
            let hashes: Vec<u64> = c.iter().map(|k| f.hash(k)).collect();
            Some(f.insert_hashes(&hashes).unwrap())
        }),
    ];
    for (name, insert) in forms {
        let f = growing(100).build().unwrap();
        let counts: Vec<Option<u64>> = ks.chunks(37).map(|c| insert(&f, c)).collect();
        assert_all_present(&f, &ks);
        assert!(f.to_bytes() == expected, "{name}");
        assert_eq!(f, single, "{name}");
        assert_eq!(f.info().keys, new_singly, "{name}: keys counted");
        if counts[0].is_some() {
            let added: u64 = counts.iter().map(|c| c.unwrap()).sum();
            assert_eq!(added, new_singly, "{name}: new keys returned");
        }
    }
    // One batch of them all.
    let whole = growing(100).build().unwrap();
    assert_eq!(whole.insert_batch(&ks).unwrap(), new_singly);
    assert!(whole.to_bytes() == expected);

    // The exclusive writer grows the chain as the shared one does.
    let mut x = growing(100).build().unwrap().into_exclusive().unwrap();
    for chunk in ks.chunks(37) {
        x.insert_batch(chunk).unwrap();
    }
    assert_eq!(x.info().stages, 5);
    let x = x.into_shared().unwrap();
    assert!(x.to_bytes() == expected);
}

#[test]
fn bulk_threads_split_a_growing_batch_with_the_same_bits() {
    // One batch above the C library's parallel threshold (65536 keys), across four stages.
    let ks = keys(1 << 20, 70_000);
    let one = growing(5000).build().unwrap();
    let added = one.insert_batch(&ks).unwrap();
    let eight = growing(5000).threads(8).build().unwrap();
    assert_eq!(eight.threads(), 8);
    assert_eq!(eight.insert_batch(&ks).unwrap(), added);
    assert_eq!(eight.stages(), 4); // 5000 * (2^3 - 1) < 70000 <= 5000 * (2^4 - 1)
    assert_eq!(eight, one);
    let mut found = vec![false; ks.len()];
    assert_eq!(eight.contains_batch(&ks, &mut found), ks.len());
}

/// `writers` threads insert their own keys (one by one and in batches) into one growing filter
/// while it grows, and `readers` threads test the keys the writers have published so far: none
/// is ever missing.
fn concurrent_growth(writers: usize, readers: usize) {
    const PER_WRITER: usize = 6000;
    let f = Arc::new(growing(256).build().unwrap());
    let published: Arc<Vec<AtomicUsize>> =
        Arc::new((0..writers).map(|_| AtomicUsize::new(0)).collect());
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(writers + readers));
    let writer_keys = |w: usize| keys(((w as u64) + 1) << 32, PER_WRITER as u64);
    let mut writer_handles = Vec::new();
    for w in 0..writers {
        let (f, published, start) = (f.clone(), published.clone(), start.clone());
        let ks = writer_keys(w);
        writer_handles.push(thread::spawn(move || {
            start.wait();
            for (c, chunk) in ks.chunks(500).enumerate() {
                if (w + c) % 2 == 0 {
                    for k in chunk {
                        f.insert(k).unwrap();
                    }
                } else {
                    f.insert_batch(chunk).unwrap();
                }
                published[w].store((c + 1) * 500, Ordering::Release);
            }
        }));
    }
    let mut reader_handles = Vec::new();
    for r in 0..readers {
        let (f, published, done, start) =
            (f.clone(), published.clone(), done.clone(), start.clone());
        let all: Vec<Vec<[u8; 8]>> = (0..writers).map(writer_keys).collect();
        reader_handles.push(thread::spawn(move || {
            start.wait();
            let mut out = vec![false; 500];
            let mut round = r;
            loop {
                let finished = done.load(Ordering::Acquire);
                for (w, ks) in all.iter().enumerate() {
                    let upto = published[w].load(Ordering::Acquire);
                    if upto == 0 {
                        continue;
                    }
                    // The newest chunk in bulk, and a few older keys one by one.
                    let chunk = &ks[upto - 500..upto];
                    assert_eq!(f.contains_batch(chunk, &mut out), 500, "writer {w}");
                    for i in (round % 97..upto).step_by(997) {
                        assert!(f.contains(&ks[i]), "writer {w} key {i}");
                    }
                }
                round += 1;
                if finished {
                    break;
                }
                thread::yield_now();
            }
        }));
    }
    for h in writer_handles {
        h.join().unwrap();
    }
    done.store(true, Ordering::Release);
    for h in reader_handles {
        h.join().unwrap();
    }
    let total = (writers * PER_WRITER) as u64;
    let info = f.info();
    // Distinct keys: each counted once at most; false positives make a few look present.
    assert!(
        info.keys <= total && info.keys >= total - total / 100,
        "{info:?}"
    );
    assert_eq!(
        info.stages,
        growing(256).footprint(info.keys + 1).unwrap().stages
    );
    assert!(!info.growth_failed);
    for w in 0..writers {
        assert_all_present(&f, &writer_keys(w));
    }
}

#[test]
fn one_writer_grows_the_chain_while_others_test() {
    concurrent_growth(1, 3);
}

#[test]
fn eight_writers_grow_the_chain_while_others_test() {
    concurrent_growth(8, 2);
}

/// A growing filter of `stages` stages (first stage 100), with its keys.
fn with_stages(stages: u32) -> (BloomFilter, Vec<[u8; 8]>) {
    let f = growing(100).build().unwrap();
    // 100 * (2^(s-1) - 1) keys fill the first s-1 stages; half the next one's more.
    let n = 100 * ((1u64 << (stages - 1)) - 1) + (50 << (stages - 1));
    let ks = keys(1000, n);
    f.insert_batch(&ks).unwrap();
    assert_eq!(f.stages(), stages);
    (f, ks)
}

/// Same chain: the same info (but where it lives) and the same stages.
fn assert_same_chain(a: &BloomFilter, b: &BloomFilter, storage: Storage) {
    assert_eq!(a, b);
    let (ia, ib) = (a.info(), b.info());
    assert_eq!(ib.storage, storage);
    assert_eq!(
        Info {
            storage,
            read_only: ib.read_only,
            ..ia
        },
        ib
    );
    for (sa, sb) in a.stage_infos().zip(b.stage_infos()) {
        assert_eq!(
            (sa.capacity, sa.keys, sa.bits, sa.k),
            (sb.capacity, sb.keys, sb.bits, sb.k)
        );
        assert_eq!(sb.storage, storage);
    }
}

#[test]
fn bytes_files_and_views_keep_every_stage() {
    for stages in [1, 2, 4, 6] {
        let (f, ks) = with_stages(stages);
        let bytes = f.to_bytes();
        assert_eq!(bytes.len() as u64, f.serialized_size());
        // Bytes.
        let copy = BloomFilter::from_bytes(&bytes).unwrap();
        assert_same_chain(&f, &copy, Storage::Owned);
        assert_all_present(&copy, &ks);
        assert!(copy.to_bytes() == bytes);
        // A clone, and a view (with and without the checksum check).
        assert_same_chain(&f, &f.clone(), Storage::Owned);
        let aligned = AlignedBytes::from(bytes.as_slice());
        for verify in [false, true] {
            let view = BloomFilter::view(&aligned, verify).unwrap();
            assert_same_chain(&f, &view, Storage::View);
            assert!(view.is_read_only());
            assert!(matches!(view.insert("x"), Err(Error::ReadOnly)));
            assert_all_present(&view, &ks);
        }
        // A file: saved as the bytes, opened read-only (checked or not).
        let path = tmp(&format!("stages-{stages}"));
        f.save(&path).unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes);
        for verify in [false, true] {
            let opened = OpenOptions::new()
                .verify_checksum(verify)
                .open(&path)
                .unwrap();
            assert_same_chain(&f, &opened, Storage::Mapped);
            assert!(matches!(opened.insert("x"), Err(Error::ReadOnly)));
            assert_all_present(&opened, &ks);
        }
        // Copy-on-write: it grows in memory, the file does not change; its save holds it all.
        let cow = OpenOptions::new()
            .mode(OpenMode::CopyOnWrite)
            .open(&path)
            .unwrap();
        let more = keys(1 << 30, 100 << stages);
        cow.insert_batch(&more).unwrap();
        assert_eq!(cow.stages(), stages + 1);
        assert!(std::fs::read(&path).unwrap() == bytes);
        let saved = tmp(&format!("stages-{stages}-cow"));
        cow.save(&saved).unwrap();
        let reopened = BloomFilter::open(&saved).unwrap();
        assert_eq!(reopened, cow);
        assert_all_present(&reopened, &ks);
        assert_all_present(&reopened, &more);
        drop((cow, reopened));
        // A damaged stage is refused by the checked readers.
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(
            BloomFilter::from_bytes(&bad),
            Err(Error::Checksum)
        ));
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_file(&saved).unwrap();
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trips_every_stage() {
    for stages in [1, 3, 5] {
        let (f, ks) = with_stages(stages);
        let json = serde_json::to_string(&f).unwrap();
        let g: BloomFilter = serde_json::from_str(&json).unwrap();
        assert_same_chain(&f, &g, Storage::Owned);
        assert!(g.to_bytes() == f.to_bytes());
        assert_all_present(&g, &ks);
    }
}

#[test]
fn union_works_stage_by_stage_and_only_for_the_same_options() {
    let a = growing(100).build().unwrap();
    let b = growing(100).build().unwrap();
    let (ka, kb) = (keys(0, 250), keys(10_000, 1200));
    a.insert_batch(&ka).unwrap();
    b.insert_batch(&kb).unwrap();
    let (sa, sb): (Vec<Info>, Vec<Info>) = (a.stage_infos().collect(), b.stage_infos().collect());
    assert_eq!((sa.len(), sb.len()), (2, 4));
    a.union(&b).unwrap();
    // a appended stages up to b's count; each stage took b's bits and its count of keys.
    assert_eq!(a.stages(), 4);
    for (i, s) in a.stage_infos().enumerate() {
        let before = sa.get(i).map_or(0, |s| s.keys);
        assert_eq!(s.keys, before + sb[i].keys, "stage {i}");
        assert_eq!(s.capacity, sb[i].capacity);
    }
    assert_all_present(&a, &ka);
    assert_all_present(&a, &kb);
    // With itself: no change, neither to the bits nor to the counts of keys.
    let before = a.to_bytes();
    a.union(&a).unwrap();
    assert!(a.to_bytes() == before);
    assert_eq!(
        a.info().keys,
        sa.iter().chain(&sb).map(|s| s.keys).sum::<u64>()
    );

    // Different options, and a fixed filter either way: a mismatch, nothing changed.
    let fixed = BloomFilter::new(100, 0.01).unwrap();
    for other in [
        Builder::new(100).fpr(0.02).seed(SEED).growth(2.0),
        Builder::new(200).fpr(0.01).seed(SEED).growth(2.0),
        Builder::new(100).fpr(0.01).seed(SEED).growth(3.0),
        Builder::new(100).fpr(0.01).seed(SEED + 1).growth(2.0),
        growing(100).shards(2),
        growing(100).kind(Kind::Classic),
    ] {
        let other = other.build().unwrap();
        assert!(matches!(a.union(&other), Err(Error::Mismatch)), "{other:?}");
        assert_ne!(a, other);
    }
    assert!(matches!(a.union(&fixed), Err(Error::Mismatch)));
    assert!(matches!(fixed.union(&a), Err(Error::Mismatch)));
    assert_ne!(a, fixed);
    assert!(a.to_bytes() == before);

    // A read-only destination.
    let bytes = AlignedBytes::from(b.to_bytes().as_slice());
    let view = BloomFilter::view(&bytes, false).unwrap();
    assert!(matches!(view.union(&a), Err(Error::ReadOnly)));
    // The exclusive writer unions too.
    let mut x = growing(100).build().unwrap().into_exclusive().unwrap();
    x.union(&b).unwrap();
    assert_eq!(x.into_shared().unwrap(), b);
}

#[test]
fn clear_keeps_the_stages_and_clone_copies_them() {
    let (mut f, ks) = with_stages(4);
    let copy = f.clone();
    assert_same_chain(&f, &copy, Storage::Owned);
    let bits = f.bits();
    f.clear().unwrap();
    let info = f.info();
    assert_eq!((info.stages, info.keys, info.bits), (4, 0, bits));
    assert!(f.stage_infos().all(|s| s.keys == 0));
    let mut found = vec![false; ks.len()];
    assert_eq!(f.contains_batch(&ks, &mut found), 0);
    assert_eq!(f.estimate_count(), 0.0);
    assert_ne!(f, copy);
    assert_all_present(&copy, &ks);
    // New keys go to the newest stage.
    f.insert("after").unwrap();
    assert_eq!(f.stage_info(3).unwrap().keys, 1);
}

#[test]
fn calls_a_chain_refuses_say_unsupported() {
    let mut g = growing(100).build().unwrap();
    g.insert_batch(&keys(0, 500)).unwrap();
    let mut fixed = BloomFilter::new(100, 0.01).unwrap();
    let mut h = g.clone();
    assert!(matches!(g.intersect(&h), Err(Error::Unsupported)));
    assert!(matches!(h.intersect(&g), Err(Error::Unsupported)));
    assert!(matches!(g.intersect(&fixed), Err(Error::Unsupported)));
    assert!(matches!(fixed.intersect(&g), Err(Error::Unsupported)));
    assert_eq!(g, h); // unchanged
    let e = g.intersect(&h).unwrap_err();
    assert_eq!(e.code(), abloom::sys::ABLOOM_ERR_UNSUPPORTED);
    assert!(e.to_string().contains("growing filters"), "{e}");

    // sync and close have nothing to do for a growing filter in memory or mapped read-only.
    let path = tmp("growing-sync");
    g.save(&path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let mut opened = BloomFilter::open(&path).unwrap();
    opened.sync().unwrap();
    opened.close().unwrap();
    g.sync().unwrap();
    assert!(std::fs::read(&path).unwrap() == before);
    // A sealed growing file needs no seal.
    abloom::seal(&path).unwrap();
    assert!(std::fs::read(&path).unwrap() == before);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_growing_file_grows_in_place_read_write() {
    let path = tmp("growing-rw");
    let g = BloomFilter::builder(100)
        .fpr(0.01)
        .growth(2.0)
        .build()
        .unwrap();
    for i in 0..150u64 {
        g.insert(&i.to_le_bytes()).unwrap();
    }
    g.save(&path).unwrap();
    let mut rw = OpenOptions::new()
        .mode(OpenMode::ReadWrite)
        .verify_checksum(true)
        .open(&path)
        .unwrap();
    for i in 1000..4000u64 {
        rw.insert(&i.to_le_bytes()).unwrap();
    }
    assert!(rw.stages() >= 5, "{} stages", rw.stages());
    rw.sync().unwrap();
    // A verifying reader sees the writer's file as stale; a copy is what a kill would leave.
    let stale = OpenOptions::new().verify_checksum(true).open(&path);
    assert!(matches!(stale, Err(Error::Stale)), "{stale:?}");
    let copy = tmp("growing-rw-stale");
    std::fs::copy(&path, &copy).unwrap();
    rw.close().unwrap();
    abloom::seal(&copy).unwrap();
    for p in [&path, &copy] {
        let sealed = OpenOptions::new().verify_checksum(true).open(p).unwrap();
        for i in (0..150u64).chain(1000..4000) {
            assert!(sealed.contains(&i.to_le_bytes()), "{p:?}: key {i} lost");
        }
    }
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(&copy).unwrap();
}

#[test]
fn info_of_fixed_and_growing_filters() {
    // A fixed filter: one stage, itself.
    let fixed = BloomFilter::new(1000, 0.01).unwrap();
    fixed.insert("k").unwrap();
    let info = fixed.info();
    assert!(!fixed.is_growing() && !info.is_growing());
    assert_eq!(
        (info.stages, info.growth, info.growth_failed, info.keys),
        (1, 0.0, false, 0)
    );
    assert_eq!(fixed.stage_info(0).unwrap(), info);
    assert!(matches!(fixed.stage_info(1), Err(Error::Range)));
    assert_eq!(fixed.stage_infos().count(), 1);

    // The defaults: the first stage takes DEFAULT_INITIAL_CAPACITY keys, growth DEFAULT_GROWTH.
    let g = BloomFilter::growing(0.01).unwrap();
    let info = g.info();
    assert!(g.is_growing());
    assert_eq!(info.growth, BloomFilter::DEFAULT_GROWTH);
    assert_eq!(
        (info.stages, info.capacity, info.keys),
        (1, BloomFilter::DEFAULT_INITIAL_CAPACITY, 0)
    );
    assert_eq!((info.target_fpr, info.storage), (0.01, Storage::Owned));
    assert_eq!(Builder::growing().build().unwrap(), g);
    assert_eq!(Builder::new(0).growth(2.0).build().unwrap(), g);
    // The first stage is what the builder's plan says.
    let plan = Builder::growing().plan().unwrap();
    let first = g.stage_info(0).unwrap();
    assert_eq!(
        (plan.kind, plan.layout, plan.k, plan.shards, plan.bits),
        (first.kind, first.layout, first.k, first.shards, first.bits)
    );
    assert_eq!(plan.expected_fpr, first.expected_fpr);
    assert!(plan.expected_fpr < 0.01);
    // insert_checked counts new keys.
    assert!(!g.insert_checked("a").unwrap());
    assert!(g.insert_checked("a").unwrap());
    assert_eq!(g.info().keys, 1);
    let debug = format!("{g:?}");
    assert!(
        debug.contains("stages: 1") && debug.contains("growth: 2.0"),
        "{debug}"
    );

    // Kind, layout and shards reach every stage; the largest growth is allowed.
    let c = Builder::new(64)
        .kind(Kind::Classic)
        .shards(2)
        .growth(BloomFilter::MAX_GROWTH)
        .build()
        .unwrap();
    c.insert_batch(&keys(0, 100)).unwrap();
    assert_eq!(c.stages(), 2);
    assert_eq!(c.stage_info(1).unwrap().capacity, 64 * 16);
    for s in c.stage_infos() {
        assert_eq!(
            (s.kind, s.layout, s.shards),
            (Kind::Classic, Layout::Distinct, 2)
        );
    }
}

#[test]
fn footprint_plans_the_chain() {
    let b = Builder::growing();
    let fp = b.footprint(100_000).unwrap();
    assert_eq!(fp.stages, 7);
    assert!(fp.fpr_bound > 0.0 && fp.fpr_bound < 0.01);
    assert_eq!(b.footprint(1).unwrap().stages, 1);
    assert_eq!(
        b.footprint(1).unwrap().bytes,
        Builder::growing().plan().unwrap().bytes
    );
    assert!(b.footprint(1_000_000).unwrap().bytes > fp.bytes);
    assert!(matches!(b.footprint(0), Err(Error::Invalid)));
    assert!(matches!(b.footprint(u64::MAX), Err(Error::Range)));
    // A fixed filter's options do not grow.
    assert!(matches!(
        Builder::new(1000).footprint(10),
        Err(Error::Invalid)
    ));
}

#[test]
fn bad_growth_options_are_invalid() {
    for growth in [1.0, 0.5, -2.0, 16.5, 32.0, f64::NAN, f64::INFINITY] {
        let b = Builder::new(1000).growth(growth);
        assert!(matches!(b.build(), Err(Error::Invalid)), "growth {growth}");
        assert!(matches!(b.plan(), Err(Error::Invalid)), "growth {growth}");
        assert!(
            matches!(b.footprint(10), Err(Error::Invalid)),
            "growth {growth}"
        );
    }
    // Each stage is sized by the schedule: no explicit bits or k.
    assert!(matches!(
        Builder::growing().k(3).build(),
        Err(Error::Invalid)
    ));
    assert!(matches!(
        Builder::growing().bits(1 << 20).build(),
        Err(Error::Invalid)
    ));
    assert!(matches!(
        Builder::growing().k(3).footprint(10),
        Err(Error::Invalid)
    ));
    // The FPR target in (0, 1).
    for fpr in [0.0, 1.0, -0.1, 1.5, f64::NAN] {
        assert!(
            matches!(BloomFilter::growing(fpr), Err(Error::Invalid)),
            "fpr {fpr}"
        );
        assert!(matches!(
            Builder::growing().fpr(fpr).plan(),
            Err(Error::Invalid)
        ));
        assert!(matches!(
            Builder::growing().fpr(fpr).footprint(10),
            Err(Error::Invalid)
        ));
    }
    // The other options keep their checks.
    assert!(matches!(
        Builder::growing().shards(3).build(),
        Err(Error::Invalid)
    ));
    let split_classic = Builder::growing().kind(Kind::Classic).layout(Layout::Split);
    assert!(matches!(split_classic.build(), Err(Error::Invalid)));
    // Growth 0 is a fixed filter again, which needs a capacity.
    assert!(matches!(
        Builder::growing().growth(0.0).build(),
        Err(Error::Invalid)
    ));
    assert!(!Builder::new(10)
        .growth(2.0)
        .growth(0.0)
        .build()
        .unwrap()
        .is_growing());
}
