//! The batch calls' threads (`set_threads`, `threads`, `Builder::threads`): bad counts refused,
//! where each filter starts, and a batch above the split threshold giving the single-threaded
//! answers and bits on 4 threads.

use abloom::{AlignedBytes, BloomFilter, Builder, Error, Kind, Layout, OpenMode, OpenOptions};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

/// Above the C library's threshold for splitting a batch (65536 keys).
const N: usize = 70_000;
const MAX: u32 = BloomFilter::MAX_THREADS;

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-bulk-threads");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{}.abloom", std::process::id()))
}

#[test]
fn max_threads_is_the_headers() {
    assert_eq!(MAX, abloom::sys::ABLOOM_MAX_THREADS);
    assert_eq!(MAX, 256);
}

#[test]
fn set_threads_reads_back_and_refuses_too_many() {
    let f = BloomFilter::new(1000, 0.01).unwrap();
    assert_eq!(f.threads(), 1, "a new filter without the option");
    for (set, want) in [(4, 4), (0, 1), (MAX, MAX), (1, 1), (3, 3)] {
        f.set_threads(set).unwrap();
        assert_eq!(f.threads(), want, "set_threads({set})");
    }
    for n in [MAX + 1, 1000, u32::MAX] {
        assert!(
            matches!(f.set_threads(n), Err(Error::Invalid)),
            "set_threads({n}) accepted"
        );
        assert_eq!(
            f.threads(),
            3,
            "a refused set_threads({n}) changed the count"
        );
    }
}

#[test]
fn built_filters_start_at_the_option() {
    for (opt, want) in [(0, 1), (1, 1), (4, 4), (MAX, MAX)] {
        let f = Builder::new(1000).threads(opt).build().unwrap();
        assert_eq!(f.threads(), want, "Builder::threads({opt})");
    }
    assert!(matches!(
        Builder::new(1000).threads(MAX + 1).build(),
        Err(Error::Invalid)
    ));
}

#[test]
fn clones_copy_the_count_and_keep_their_own() {
    let f = Builder::new(1000).threads(2).build().unwrap();
    f.set_threads(7).unwrap();
    let c = f.clone();
    let t = f.try_clone().unwrap();
    assert_eq!((c.threads(), t.threads()), (7, 7));
    c.set_threads(1).unwrap();
    assert_eq!((f.threads(), c.threads(), t.threads()), (7, 1, 7));
    // An exclusive filter is the same handle: it keeps the count and can change it.
    let mut e = t.into_exclusive().unwrap();
    assert_eq!(e.threads(), 7);
    e.set_threads(5).unwrap();
    assert!(matches!(e.set_threads(MAX + 1), Err(Error::Invalid)));
    e.insert("k").unwrap();
    let back = e.into_shared().unwrap();
    assert_eq!(back.threads(), 5);
}

#[test]
fn loaded_filters_start_at_one_thread() {
    let f = Builder::new(1000).threads(4).seed(3).build().unwrap();
    f.insert("a").unwrap();
    let g = Builder::new(1000).threads(1).seed(3).build().unwrap();
    g.insert("a").unwrap();
    let bytes = f.to_bytes();
    assert_eq!(bytes, g.to_bytes(), "the count is in the bytes");

    let check = |how: &str, h: &BloomFilter| {
        assert_eq!(h.threads(), 1, "{how}");
        assert!(h.contains("a"), "{how}");
        // Read-only filters take a count too (for their batch lookups).
        h.set_threads(4).unwrap();
        assert_eq!(h.threads(), 4, "{how}");
    };
    check("from_bytes", &BloomFilter::from_bytes(&bytes).unwrap());
    let aligned = AlignedBytes::from(bytes.as_slice());
    check("view", &BloomFilter::view(&aligned, true).unwrap());

    let path = tmp("loaded");
    f.save(&path).unwrap();
    check("open", &BloomFilter::open(&path).unwrap());
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
        check(&format!("{mode:?}"), &o);
    }
    std::fs::remove_file(&path).unwrap();
}

struct Run {
    added: Vec<u64>,
    found: Vec<usize>,
    answers: Vec<Vec<bool>>,
    bytes: Vec<u8>,
}

fn packed(keys: &[String]) -> (Vec<u8>, Vec<u64>) {
    let mut buf = Vec::new();
    let mut offsets = vec![0u64];
    for k in keys {
        buf.extend_from_slice(k.as_bytes());
        offsets.push(buf.len() as u64);
    }
    (buf, offsets)
}

/// Every batch form on `threads` threads: how many keys were new, what was found, the bits.
fn run(builder: &Builder, threads: u32) -> Run {
    let strs: Vec<String> = (0..N).map(|i| format!("str-{i}")).collect();
    let fixed: Vec<[u8; 16]> = (0..N as u128).map(|i| (i * 7919).to_le_bytes()).collect();
    let packed_keys: Vec<String> = (0..N).map(|i| format!("packed-{i}")).collect();
    let (buf, offsets) = packed(&packed_keys);
    // Half present, half new.
    let probe: Vec<String> = (N / 2..N / 2 + N).map(|i| format!("str-{i}")).collect();
    let probe_fixed: Vec<[u8; 16]> = (N as u128 / 2..N as u128 / 2 + N as u128)
        .map(|i| (i * 7919).to_le_bytes())
        .collect();
    let probe_packed: Vec<String> = (N / 2..N / 2 + N).map(|i| format!("packed-{i}")).collect();
    let (pbuf, poffsets) = packed(&probe_packed);

    let f = builder.build().unwrap();
    f.set_threads(threads).unwrap();
    let hashes: Vec<u64> = (0..N).map(|i| f.hash(&format!("hash-{i}"))).collect();
    let probe_hashes: Vec<u64> = (N / 2..N / 2 + N)
        .map(|i| f.hash(&format!("hash-{i}")))
        .collect();
    let added = vec![
        f.insert_batch(&strs).unwrap(),
        f.insert_batch(&fixed).unwrap(),
        f.insert_packed(&buf, &offsets).unwrap(),
        f.insert_hashes(&hashes).unwrap(),
        f.insert_batch(&probe).unwrap(), // half of it there already
    ];
    let mut found = Vec::new();
    let mut answers = Vec::new();
    // Lookups on a filter holding the first halves only (a fresh one), so that half the probe
    // is absent.
    let g = builder.build().unwrap();
    g.set_threads(threads).unwrap();
    g.insert_batch(&strs).unwrap();
    g.insert_batch(&fixed).unwrap();
    g.insert_packed(&buf, &offsets).unwrap();
    g.insert_hashes(&hashes).unwrap();
    for h in [&f, &g] {
        let mut out = vec![false; N];
        found.push(h.contains_batch(&probe, &mut out));
        answers.push(out);
        let mut out = vec![false; N];
        found.push(h.contains_batch(&probe_fixed, &mut out));
        answers.push(out);
        let mut out = vec![false; N];
        found.push(h.contains_packed(&pbuf, &poffsets, &mut out).unwrap());
        answers.push(out);
        let mut out = vec![false; N];
        found.push(h.contains_hashes(&probe_hashes, &mut out));
        answers.push(out);
    }
    // g holds every key of the probes' first halves.
    for a in &answers[4..] {
        assert!(a[..N / 2].iter().all(|&x| x), "a false negative");
    }
    Run {
        added,
        found,
        answers,
        bytes: f.to_bytes(),
    }
}

#[test]
fn four_threads_give_the_single_threaded_answers_and_bits() {
    let shapes = [
        (
            "blocked split",
            Builder::new(8 * N as u64).layout(Layout::Split),
        ),
        (
            "blocked split, 8 shards",
            Builder::new(8 * N as u64).layout(Layout::Split).shards(8),
        ),
        (
            "blocked distinct",
            Builder::new(8 * N as u64).layout(Layout::Distinct),
        ),
        (
            "classic, 8 shards",
            Builder::new(8 * N as u64).kind(Kind::Classic).shards(8),
        ),
    ];
    for (name, b) in shapes {
        let b = b.fpr(0.01).seed(11);
        let one = run(&b, 1);
        let four = run(&b, 4);
        assert_eq!(one.added, four.added, "{name}: keys new");
        assert!(
            one.added[0] >= (N as u64) * 99 / 100 && one.added[4] <= (N / 2 + 200) as u64,
            "{name}: implausible counts {:?}",
            one.added
        );
        assert_eq!(one.found, four.found, "{name}: keys found");
        assert!(one.answers == four.answers, "{name}: answers differ");
        assert!(one.bytes == four.bytes, "{name}: bits differ");
    }
}

#[test]
fn an_opened_filter_given_threads_answers_the_same() {
    let f = BloomFilter::new(2 * N as u64, 0.01).unwrap();
    let keys: Vec<String> = (0..N).map(|i| format!("k{i}")).collect();
    f.insert_batch(&keys).unwrap();
    let path = tmp("opened");
    f.save(&path).unwrap();
    let o = BloomFilter::open(&path).unwrap();
    let probe: Vec<String> = (N / 2..N / 2 + N).map(|i| format!("k{i}")).collect();
    let mut one = vec![false; N];
    let n1 = o.contains_batch(&probe, &mut one);
    o.set_threads(4).unwrap();
    let mut four = vec![false; N];
    let n4 = o.contains_batch(&probe, &mut four);
    assert_eq!(n1, n4);
    assert!(n1 >= N / 2);
    assert!(one == four);
    assert!(matches!(o.insert_batch(&probe), Err(Error::ReadOnly)));
    drop(o);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn set_threads_while_other_threads_run_batches() {
    let b = Builder::new(3 * N as u64).fpr(0.01).seed(4);
    let f = b.build().unwrap();
    let reference = b.build().unwrap();
    let batches: Vec<Vec<String>> = (0..2)
        .map(|t| (0..N).map(|i| format!("t{t}-{i}")).collect())
        .collect();
    for batch in &batches {
        reference.insert_batch(batch).unwrap();
    }
    let stop = AtomicBool::new(false);
    thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0u32;
            while !stop.load(Ordering::Relaxed) {
                f.set_threads(i % 5).unwrap();
                assert!((1..=4).contains(&f.threads()));
                i += 1;
            }
        });
        let workers: Vec<_> = batches
            .iter()
            .map(|batch| {
                let f = &f;
                s.spawn(move || {
                    for _ in 0..3 {
                        f.insert_batch(batch).unwrap();
                        let mut out = vec![false; batch.len()];
                        assert_eq!(f.contains_batch(batch, &mut out), batch.len());
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert!(
        f == reference,
        "batches beside set_threads set other bits than one thread"
    );
}
