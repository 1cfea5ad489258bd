//! The golden vectors of `tests/vectors/` (format version 1), as their README requires: every
//! reader accepts each file and reports its options, answers 1 for every added key and the
//! recorded answer for every absent one, and rebuilding from the keys gives identical bytes.
//! The `split_*` vectors pin the split in-block layout (format layout id 2): their files record
//! it, and rebuilding them needs [`Layout::Split`]; the `half_*` vectors pin the half layout
//! (format layout id 3) likewise, with [`Layout::Half`]; the others are [`Layout::Distinct`]. The
//! `blocked_*` vectors were written when distinct was the blocked kind's default; since split
//! became the default (where its k is enough, as at their 1%), they are rebuilt with
//! [`Layout::Distinct`] asked for explicitly, as `tests/vectors/make_vectors.c` does, and the
//! files are unchanged. The `classic_*` ones keep the default (distinct: the classic kind's only
//! layout). `growing_s1` is a growing filter's chain of three stages, read and rebuilt through
//! [`Builder::growth`].

use abloom::{AlignedBytes, BloomFilter, Builder, Kind, Layout, OpenOptions, Storage};
use std::path::PathBuf;

struct Vector {
    name: &'static str,
    kind: Kind,
    /// The layout the file records.
    layout: Layout,
    /// The layout given to the builder to rebuild it (`None`: the library's default, as
    /// `make_vectors.c`'s `ABLOOM_LAYOUT_DEFAULT`).
    asked: Option<Layout>,
    shards: u32,
    seed: u64,
    k: u32,
    blocks_per_shard: u64,
    file_bytes: usize,
    absent_positive: usize,
}

const VECTORS: [Vector; 8] = [
    Vector {
        name: "blocked_s1",
        kind: Kind::Blocked,
        layout: Layout::Distinct,
        asked: Some(Layout::Distinct),
        shards: 1,
        seed: 0x0123_4567_89AB_CDEF,
        k: 7,
        blocks_per_shard: 9,
        file_bytes: 704,
        absent_positive: 31,
    },
    Vector {
        name: "blocked_s4",
        kind: Kind::Blocked,
        layout: Layout::Distinct,
        asked: Some(Layout::Distinct),
        shards: 4,
        seed: 0xFEDC_BA98_7654_3210,
        k: 8,
        blocks_per_shard: 3,
        file_bytes: 896,
        absent_positive: 5,
    },
    Vector {
        name: "classic_s1",
        kind: Kind::Classic,
        layout: Layout::Distinct,
        asked: None,
        shards: 1,
        seed: 0x0000_0000_DEAD_BEEF,
        k: 7,
        blocks_per_shard: 9,
        file_bytes: 704,
        absent_positive: 10,
    },
    Vector {
        name: "classic_s4",
        kind: Kind::Classic,
        layout: Layout::Distinct,
        asked: None,
        shards: 4,
        seed: 0x8000_0000_0000_0001,
        k: 9,
        blocks_per_shard: 3,
        file_bytes: 896,
        absent_positive: 1,
    },
    Vector {
        name: "split_s1",
        kind: Kind::Blocked,
        layout: Layout::Split,
        asked: Some(Layout::Split),
        shards: 1,
        seed: 0x5B11_7000_0000_00A1,
        k: 7,
        blocks_per_shard: 9,
        file_bytes: 704,
        absent_positive: 13,
    },
    Vector {
        name: "split_s4",
        kind: Kind::Blocked,
        layout: Layout::Split,
        asked: Some(Layout::Split),
        shards: 4,
        seed: 0xA100_0000_0007_5B11,
        k: 9,
        blocks_per_shard: 3,
        file_bytes: 896,
        absent_positive: 8,
    },
    Vector {
        name: "half_s1",
        kind: Kind::Blocked,
        layout: Layout::Half,
        asked: Some(Layout::Half),
        shards: 1,
        seed: 0x4A1F_0000_0000_0A18,
        k: 8,
        blocks_per_shard: 10,
        file_bytes: 768,
        absent_positive: 10,
    },
    Vector {
        name: "half_s4",
        kind: Kind::Blocked,
        layout: Layout::Half,
        asked: Some(Layout::Half),
        shards: 4,
        seed: 0x8A00_0000_0000_F1A4,
        k: 8,
        blocks_per_shard: 3,
        file_bytes: 896,
        absent_positive: 8,
    },
];

/// The repository's `tests/vectors/` in a checkout; in a packaged crate, which holds nothing
/// outside `bindings/rust/abloom`, the copy `bindings/rust/package.sh` puts in
/// `tests/data/vectors/` before `cargo package` (never committed).
fn dir() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let checkout = manifest.join("../../../tests/vectors");
    if checkout.join("make_vectors.c").is_file() {
        checkout
    } else {
        manifest.join("tests/data/vectors")
    }
}

struct Loaded {
    path: PathBuf,
    bytes: Vec<u8>,
    keys: Vec<String>,
    absent: Vec<(bool, String)>,
}

fn load(v: &Vector) -> Loaded {
    let path = dir().join(format!("{}.abloom", v.name));
    let bytes = std::fs::read(&path).unwrap();
    let keys: Vec<String> = std::fs::read_to_string(dir().join(format!("{}.keys.txt", v.name)))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let absent: Vec<(bool, String)> =
        std::fs::read_to_string(dir().join(format!("{}.absent.txt", v.name)))
            .unwrap()
            .lines()
            .map(|l| {
                let (a, k) = l.split_once(' ').unwrap();
                (a == "1", k.to_string())
            })
            .collect();
    assert_eq!(bytes.len(), v.file_bytes, "{}: file size", v.name);
    assert_eq!(keys.len(), 450);
    assert_eq!(absent.len(), 2000);
    assert_eq!(
        absent.iter().filter(|a| a.0).count(),
        v.absent_positive,
        "{}: recorded false positives",
        v.name
    );
    Loaded {
        path,
        bytes,
        keys,
        absent,
    }
}

fn check_filter(v: &Vector, l: &Loaded, f: &BloomFilter, storage: Storage) {
    let i = f.info();
    assert_eq!(i.kind, v.kind, "{}", v.name);
    assert_eq!(i.layout, v.layout, "{}: layout", v.name);
    assert_eq!(i.k, v.k, "{}", v.name);
    assert_eq!(i.shards, v.shards, "{}", v.name);
    assert_eq!(i.blocks_per_shard, v.blocks_per_shard, "{}", v.name);
    assert_eq!(i.bits, u64::from(v.shards) * v.blocks_per_shard * 512);
    assert_eq!(i.seed, v.seed, "{}", v.name);
    assert_eq!(i.capacity, 450, "{}", v.name);
    assert_eq!(i.target_fpr, 0.01, "{}", v.name);
    assert_eq!(i.storage, storage, "{}", v.name);
    for k in &l.keys {
        assert!(f.contains(k), "{}: added key {k:?} tests 0", v.name);
    }
    for (answer, k) in &l.absent {
        assert_eq!(f.contains(k), *answer, "{}: absent key {k:?}", v.name);
    }
    // The batch path gives the same answers.
    let keys: Vec<&str> = l.absent.iter().map(|a| a.1.as_str()).collect();
    let mut out = vec![false; keys.len()];
    assert_eq!(f.contains_batch(&keys, &mut out), v.absent_positive);
    assert!(out.iter().zip(&l.absent).all(|(o, a)| *o == a.0));
    // And the precomputed-hash path.
    let hashes: Vec<u64> = keys.iter().map(|k| f.hash(k)).collect();
    assert_eq!(f.contains_hashes(&hashes, &mut out), v.absent_positive);
    assert_eq!(f.to_bytes(), l.bytes, "{}: re-serialized bytes", v.name);
}

#[test]
fn every_reader_accepts_the_vectors_with_the_recorded_answers() {
    for v in &VECTORS {
        let l = load(v);
        for verify in [false, true] {
            let f = OpenOptions::new()
                .verify_checksum(verify)
                .open(&l.path)
                .unwrap();
            assert!(f.is_read_only());
            check_filter(v, &l, &f, Storage::Mapped);
        }
        let f = BloomFilter::from_bytes(&l.bytes).unwrap();
        check_filter(v, &l, &f, Storage::Owned);
        let aligned = AlignedBytes::from(l.bytes.as_slice());
        for verify in [false, true] {
            let view = BloomFilter::view(&aligned, verify).unwrap();
            check_filter(v, &l, &view, Storage::View);
        }
    }
}

/// `b` with the vector's layout asked for, if it asks for one.
fn with_layout(b: Builder, v: &Vector) -> Builder {
    match v.asked {
        Some(layout) => b.layout(layout),
        None => b,
    }
}

fn builder(v: &Vector) -> Builder {
    with_layout(
        Builder::new(450)
            .fpr(0.01)
            .kind(v.kind)
            .shards(v.shards)
            .seed(v.seed),
        v,
    )
}

#[test]
fn rebuilding_from_the_keys_gives_identical_bytes() {
    let tmp = std::env::temp_dir().join(format!("abloom-rs-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for v in &VECTORS {
        let l = load(v);
        let plan = builder(v).plan().unwrap();
        assert_eq!(
            (plan.layout, plan.k, plan.blocks_per_shard),
            (v.layout, v.k, v.blocks_per_shard),
            "{}: plan",
            v.name
        );

        let one_by_one = builder(v).build().unwrap();
        for k in &l.keys {
            one_by_one.insert(k).unwrap();
        }
        assert_eq!(one_by_one.to_bytes(), l.bytes, "{}: one by one", v.name);
        let saved = tmp.join(format!("{}.abloom", v.name));
        one_by_one.save(&saved).unwrap();
        assert_eq!(
            std::fs::read(&saved).unwrap(),
            l.bytes,
            "{}: saved file",
            v.name
        );

        // insert_batch counts the keys that were new, as insert_checked one by one does.
        let checked = builder(v).build().unwrap();
        let new_keys = l
            .keys
            .iter()
            .filter(|k| !checked.insert_checked(k).unwrap())
            .count();
        assert!(new_keys > 440 && new_keys <= 450);
        assert_eq!(checked.to_bytes(), l.bytes, "{}: insert_checked", v.name);
        let batch = builder(v).build().unwrap();
        assert_eq!(batch.insert_batch(&l.keys).unwrap(), new_keys as u64);
        assert_eq!(batch.to_bytes(), l.bytes, "{}: one batch", v.name);

        let mut buf = Vec::new();
        let mut offsets = vec![0u64];
        for k in &l.keys {
            buf.extend_from_slice(k.as_bytes());
            offsets.push(buf.len() as u64);
        }
        let packed = builder(v).build().unwrap();
        packed.insert_packed(&buf, &offsets).unwrap();
        assert_eq!(packed.to_bytes(), l.bytes, "{}: packed", v.name);

        // Explicit layout: the body (everything after the 128-byte header) is identical.
        let explicit = with_layout(
            Builder::new(450)
                .kind(v.kind)
                .shards(v.shards)
                .seed(v.seed)
                .bits(u64::from(v.shards) * v.blocks_per_shard * 512)
                .k(v.k),
            v,
        )
        .build()
        .unwrap();
        for k in &l.keys {
            explicit.insert(k).unwrap();
        }
        assert_eq!(
            explicit.to_bytes()[128..],
            l.bytes[128..],
            "{}: explicit",
            v.name
        );
        assert_eq!(explicit.info().target_fpr, 0.0);
        assert_eq!(explicit.layout(), v.layout);
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn the_layout_matters_for_the_split_and_half_vectors() {
    // Rebuilt in another layout (distinct, or split for the half vectors: at the file's bits and
    // k), a split or half vector's keys give other bytes: the vectors really pin the layout. And
    // loading needed no option: the files say which layout they are, by the format's id.
    for v in VECTORS
        .iter()
        .filter(|v| matches!(v.layout, Layout::Split | Layout::Half))
    {
        let l = load(v);
        assert_eq!(l.bytes[20..24], v.layout.id().to_le_bytes(), "{}", v.name);
        let file = BloomFilter::from_bytes(&l.bytes).unwrap();
        assert_eq!(file.layout(), v.layout, "{}", v.name);
        let mut others = vec![Layout::Distinct];
        if v.layout == Layout::Half {
            others.push(Layout::Split);
        }
        for other in others {
            let g = Builder::new(450)
                .kind(v.kind)
                .shards(v.shards)
                .seed(v.seed)
                .bits(u64::from(v.shards) * v.blocks_per_shard * 512)
                .k(v.k)
                .layout(other)
                .build()
                .unwrap();
            g.insert_batch(&l.keys).unwrap();
            assert_eq!(g.layout(), other);
            assert_ne!(
                g.to_bytes()[128..],
                l.bytes[128..],
                "{} as {other:?}",
                v.name
            );
            assert_ne!(file, g, "{} as {other:?}", v.name);
            assert!(matches!(file.union(&g), Err(abloom::Error::Mismatch)));
        }
    }
}

#[test]
fn the_blocked_vectors_need_the_distinct_layout_asked_for() {
    // Split is now the blocked kind's default at 1%: without `.layout(Layout::Distinct)` a
    // blocked vector's options give a split filter and other bytes, which is why the vectors are
    // rebuilt with the distinct layout asked for. The files themselves still say distinct.
    for v in VECTORS
        .iter()
        .filter(|v| v.kind == Kind::Blocked && v.layout == Layout::Distinct)
    {
        assert_eq!(v.asked, Some(Layout::Distinct), "{}", v.name);
        let l = load(v);
        let default = Builder::new(450)
            .fpr(0.01)
            .kind(v.kind)
            .shards(v.shards)
            .seed(v.seed)
            .build()
            .unwrap();
        assert_eq!(default.layout(), Layout::Split, "{}", v.name);
        default.insert_batch(&l.keys).unwrap();
        assert_ne!(default.to_bytes(), l.bytes, "{}", v.name);
        let file = BloomFilter::from_bytes(&l.bytes).unwrap();
        assert_eq!(file.layout(), Layout::Distinct, "{}", v.name);
        assert!(matches!(file.union(&default), Err(abloom::Error::Mismatch)));
        // Byte 20 of the header is the format's layout id: 1 (distinct) in the file.
        assert_eq!(l.bytes[20..24], 1u32.to_le_bytes(), "{}", v.name);
    }
}

/// `growing_s1` (tests/vectors/README.md): a growing filter of the default layout, first stage
/// 100 keys, growth 2, target 10%, seed 0x6A0E1A6000000003, one shard; its 450 keys fill three
/// stages of 100, 200 and 400 keys, and 1 of the 2000 absent keys tests positive.
const GROWING_SEED: u64 = 0x6A0E_1A60_0000_0003;

fn growing_vector() -> Vector {
    Vector {
        name: "growing_s1",
        kind: Kind::Blocked,
        layout: Layout::Split,
        asked: None,
        shards: 1,
        seed: GROWING_SEED,
        k: 9,
        blocks_per_shard: 11,
        file_bytes: 3904,
        absent_positive: 1,
    }
}

fn growing_builder() -> Builder {
    Builder::new(100)
        .fpr(0.1)
        .shards(1)
        .seed(GROWING_SEED)
        .growth(2.0)
}

fn check_growing(v: &Vector, l: &Loaded, f: &BloomFilter, storage: Storage) {
    let i = f.info();
    assert!(i.is_growing());
    assert_eq!((i.stages, i.growth, i.growth_failed), (3, 2.0, false));
    // The chain: the newest stage's shape, the stages' capacities together, the chain's target.
    assert_eq!(
        (i.kind, i.layout, i.k, i.shards),
        (v.kind, v.layout, v.k, v.shards)
    );
    assert_eq!(i.blocks_per_shard, v.blocks_per_shard);
    assert_eq!((i.seed, i.capacity, i.target_fpr), (v.seed, 700, 0.1));
    assert!(i.keys > 440 && i.keys <= 450, "{i:?}");
    assert_eq!(i.storage, storage);
    let stages: Vec<_> = f.stage_infos().collect();
    assert_eq!(
        stages.iter().map(|s| s.capacity).collect::<Vec<_>>(),
        [100, 200, 400]
    );
    assert!(stages[..2].iter().all(|s| s.keys == s.capacity));
    assert_eq!(stages.iter().map(|s| s.keys).sum::<u64>(), i.keys);
    assert!(stages
        .iter()
        .all(|s| s.seed == v.seed && s.storage == storage));
    for k in &l.keys {
        assert!(f.contains(k), "{}: added key {k:?} tests 0", v.name);
    }
    for (answer, k) in &l.absent {
        assert_eq!(f.contains(k), *answer, "{}: absent key {k:?}", v.name);
    }
    let keys: Vec<&str> = l.absent.iter().map(|a| a.1.as_str()).collect();
    let mut out = vec![false; keys.len()];
    assert_eq!(f.contains_batch(&keys, &mut out), v.absent_positive);
    assert!(out.iter().zip(&l.absent).all(|(o, a)| *o == a.0));
    let hashes: Vec<u64> = keys.iter().map(|k| f.hash(k)).collect();
    assert_eq!(f.contains_hashes(&hashes, &mut out), v.absent_positive);
    assert!(f.to_bytes() == l.bytes, "{}: re-serialized bytes", v.name);
}

#[test]
fn every_reader_accepts_the_growing_vector() {
    let v = growing_vector();
    let l = load(&v);
    for verify in [false, true] {
        let f = OpenOptions::new()
            .verify_checksum(verify)
            .open(&l.path)
            .unwrap();
        assert!(f.is_read_only());
        check_growing(&v, &l, &f, Storage::Mapped);
    }
    check_growing(
        &v,
        &l,
        &BloomFilter::from_bytes(&l.bytes).unwrap(),
        Storage::Owned,
    );
    let aligned = AlignedBytes::from(l.bytes.as_slice());
    for verify in [false, true] {
        let view = BloomFilter::view(&aligned, verify).unwrap();
        check_growing(&v, &l, &view, Storage::View);
    }
}

#[test]
fn rebuilding_the_growing_vector_gives_identical_bytes() {
    let v = growing_vector();
    let l = load(&v);
    // Its first stage is what the builder plans.
    let plan = growing_builder().plan().unwrap();
    let first = BloomFilter::from_bytes(&l.bytes)
        .unwrap()
        .stage_info(0)
        .unwrap();
    assert_eq!(
        (plan.k, plan.bits, plan.layout),
        (first.k, first.bits, first.layout)
    );

    let one_by_one = growing_builder().build().unwrap();
    for k in &l.keys {
        one_by_one.insert(k).unwrap();
    }
    assert!(one_by_one.to_bytes() == l.bytes, "one by one");
    let tmp = std::env::temp_dir().join(format!("abloom-rs-growing-vector-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let saved = tmp.join("growing_s1.abloom");
    one_by_one.save(&saved).unwrap();
    assert!(std::fs::read(&saved).unwrap() == l.bytes, "saved file");
    std::fs::remove_dir_all(&tmp).unwrap();

    // insert_checked counts the keys the chain counted; one batch, packed keys and precomputed
    // hashes grow the chain as one insert per key does, and count the same new keys.
    let checked = growing_builder().build().unwrap();
    let new_keys = l
        .keys
        .iter()
        .filter(|k| !checked.insert_checked(k).unwrap())
        .count() as u64;
    assert_eq!(checked.info().keys, new_keys);
    assert!(checked.to_bytes() == l.bytes, "insert_checked");
    let batch = growing_builder().build().unwrap();
    assert_eq!(batch.insert_batch(&l.keys).unwrap(), new_keys);
    assert!(batch.to_bytes() == l.bytes, "one batch");
    let mut buf = Vec::new();
    let mut offsets = vec![0u64];
    for k in &l.keys {
        buf.extend_from_slice(k.as_bytes());
        offsets.push(buf.len() as u64);
    }
    let packed = growing_builder().build().unwrap();
    assert_eq!(packed.insert_packed(&buf, &offsets).unwrap(), new_keys);
    assert!(packed.to_bytes() == l.bytes, "packed");
    let hashed = growing_builder().build().unwrap();
    let hashes: Vec<u64> = l.keys.iter().map(|k| hashed.hash(k)).collect();
    assert_eq!(hashed.insert_hashes(&hashes).unwrap(), new_keys);
    assert!(hashed.to_bytes() == l.bytes, "hashes");

    // Another first capacity, growth or target gives other bytes: the vector pins them.
    for other in [
        Builder::new(101)
            .fpr(0.1)
            .shards(1)
            .seed(GROWING_SEED)
            .growth(2.0),
        Builder::new(100)
            .fpr(0.1)
            .shards(1)
            .seed(GROWING_SEED)
            .growth(3.0),
        Builder::new(100)
            .fpr(0.09)
            .shards(1)
            .seed(GROWING_SEED)
            .growth(2.0),
    ] {
        let f = other.build().unwrap();
        f.insert_batch(&l.keys).unwrap();
        assert!(f.to_bytes() != l.bytes, "{other:?}");
    }
}
