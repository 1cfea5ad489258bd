//! abloom (through this binding) against the `fastbloom` crate, on the same 16-byte keys.
//!
//!   cargo bench -p abloom --bench vs_fastbloom                 # 1M and 100M keys
//!   ABLOOM_BENCH_QUICK=1 cargo bench -p abloom --bench vs_fastbloom   # 1M only, fewer reps
//!   ABLOOM_BENCH_SIZES=1000000,10000000 cargo bench ...       # any sizes
//!
//! Both filters are sized for n keys at 1% FPR (abloom with its default options, so the
//! library's in-block layout: split at 1%) and get the same n keys. Then, for query sets of
//! present and of absent keys (all n for n <= 1M, else 2M random ones), it times, per key:
//! fastbloom's `contains` (its default SipHash-1-3 hasher, and with foldhash, the hasher of
//! fastbloom's own benchmarks), abloom's single `contains`, and abloom's `contains_batch`
//! (one call per query set). Best of R runs; the ratios are what matters on a noisy machine.
//! Keys are derived from a counter by splitmix64 with a fixed seed; nothing is stored for the
//! inserts (generated 1M at a time), so 100M keys need only the two filters (~120 MB each).

use std::hint::black_box;
use std::time::{Duration, Instant};

type Key = [u8; 16];

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Key number `i` (present keys are 0..n, absent ones start at 2^62).
fn key(i: u64) -> Key {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&splitmix(i ^ 0xAB10_0000).to_le_bytes());
    k[8..].copy_from_slice(&splitmix(i.wrapping_add(0x5EED)).to_le_bytes());
    k
}

fn keys(range: std::ops::Range<u64>) -> Vec<Key> {
    range.map(key).collect()
}

fn best_ns_per_key(reps: usize, n: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut best = Duration::MAX;
    let mut found = 0;
    for _ in 0..reps {
        let t = Instant::now();
        found = black_box(f());
        best = best.min(t.elapsed());
    }
    (best.as_nanos() as f64 / n as f64, found)
}

fn parse_size(s: &str) -> u64 {
    let s = s.trim();
    let (num, mul) = match s.chars().last() {
        Some('M') | Some('m') => (&s[..s.len() - 1], 1_000_000),
        Some('K') | Some('k') => (&s[..s.len() - 1], 1_000),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .expect("ABLOOM_BENCH_SIZES: a list like 1M,100M")
        * mul
}

fn main() {
    // `cargo test --benches` / `cargo bench --no-run` never get here; `cargo bench` passes
    // `--bench`. Any other argument (a filter) is ignored.
    let quick = std::env::var("ABLOOM_BENCH_QUICK").is_ok_and(|v| v != "0" && !v.is_empty());
    let sizes: Vec<u64> = match std::env::var("ABLOOM_BENCH_SIZES") {
        Ok(s) => s.split(',').map(parse_size).collect(),
        Err(_) if quick => vec![1_000_000],
        Err(_) => vec![1_000_000, 100_000_000],
    };
    println!(
        "abloom {} (binding) vs fastbloom 0.17; 16-byte keys, 1% FPR; ns per key, best of runs",
        abloom::version()
    );
    for n in sizes {
        run(n, quick);
    }
}

fn run(n: u64, quick: bool) {
    let reps = if quick || n > 10_000_000 { 3 } else { 7 };
    let chunk = 1_000_000u64;

    // Build both filters with the same keys.
    let ab = abloom::BloomFilter::new(n, 0.01).unwrap();
    let mut fb = fastbloom::BloomFilter::with_false_pos(0.01).expected_items(n as usize);
    let mut ff = fastbloom::BloomFilter::with_false_pos(0.01)
        .hasher(foldhash::fast::FixedState::with_seed(7))
        .expected_items(n as usize);
    let (mut t_ab, mut t_fb, mut t_ff) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut start = 0;
    while start < n {
        let ks = keys(start..(start + chunk).min(n));
        let t = Instant::now();
        ab.insert_batch(&ks).unwrap();
        t_ab += t.elapsed();
        let t = Instant::now();
        for k in &ks {
            fb.insert(k);
        }
        t_fb += t.elapsed();
        let t = Instant::now();
        for k in &ks {
            ff.insert(k);
        }
        t_ff += t.elapsed();
        start += chunk;
    }
    let per = |d: Duration| d.as_nanos() as f64 / n as f64;

    // Query sets.
    let q = n.min(2_000_000);
    let present: Vec<Key> = if q == n {
        keys(0..n)
    } else {
        (0..q).map(|j| key(splitmix(j ^ 0xC0FFEE) % n)).collect()
    };
    let absent: Vec<Key> = keys((1u64 << 62)..(1u64 << 62) + q);
    let mut out = vec![false; q as usize];

    println!();
    println!(
        "n = {n}: abloom {} bytes (k={}, {:?} layout), fastbloom {} bytes (k={}); queries: {q} present, {q} absent",
        ab.info().bytes,
        ab.k(),
        ab.layout(),
        fb.num_bits() / 8,
        fb.num_hashes()
    );
    println!(
        "  build: abloom insert_batch {:.1} ns/key, fastbloom insert {:.1} (siphash) / {:.1} (foldhash)",
        per(t_ab),
        per(t_fb),
        per(t_ff)
    );
    println!(
        "  {:<8} {:>12} {:>12} {:>12} {:>12} | {:>14} {:>14} {:>14} {:>14}",
        "keys",
        "fb(sip)",
        "fb(fold)",
        "ab single",
        "ab batch",
        "single/fb(sip)",
        "batch/fb(sip)",
        "single/fb(fold)",
        "batch/fb(fold)"
    );
    for (name, qs) in [("present", &present), ("absent", &absent)] {
        let qn = qs.len();
        let (fb_ns, fb_found) =
            best_ns_per_key(reps, qn, || qs.iter().filter(|k| fb.contains(*k)).count());
        let (ff_ns, _) =
            best_ns_per_key(reps, qn, || qs.iter().filter(|k| ff.contains(*k)).count());
        let (single_ns, single_found) =
            best_ns_per_key(reps, qn, || qs.iter().filter(|k| ab.contains(*k)).count());
        let (batch_ns, batch_found) = best_ns_per_key(reps, qn, || ab.contains_batch(qs, &mut out));
        assert_eq!(single_found, batch_found);
        if name == "present" {
            assert_eq!(batch_found, qn, "abloom false negatives");
            assert_eq!(fb_found, qn, "fastbloom false negatives");
        }
        println!(
            "  {:<8} {:>12.2} {:>12.2} {:>12.2} {:>12.2} | {:>14.2} {:>14.2} {:>14.2} {:>14.2}",
            name,
            fb_ns,
            ff_ns,
            single_ns,
            batch_ns,
            single_ns / fb_ns,
            batch_ns / fb_ns,
            single_ns / ff_ns,
            batch_ns / ff_ns
        );
        if name == "absent" {
            println!(
                "  false positives among absent keys: abloom {:.4}%, fastbloom {:.4}%",
                100.0 * batch_found as f64 / qn as f64,
                100.0 * fb_found as f64 / qn as f64
            );
        }
    }
}
