//! The Rust code blocks of the READMEs (bindings/rust/README.md, and the Rust block of the
//! repository's README.md), line for line, with the declarations they assume and checks of
//! what they do in between: scripts/check-readme-blocks.py fails when a README line is missing
//! here. Copies rather than doc tests: the README is read on the forge as written, where
//! rustdoc's hidden lines would show.
//!
//! One test function (this file is its own test binary): the README saves to relative paths,
//! so it runs in a temporary working directory, which is process-wide.

use std::error::Error as StdError;

type Res = Result<(), Box<dyn StdError>>;

/// bindings/rust/README.md's usage block.
fn usage() -> Res {
    use abloom::{BloomFilter, Kind, Layout, OpenMode, OpenOptions};

    let filter = BloomFilter::new(1_000_000, 0.01)?; // 1M keys at 1%
    filter.insert("alice:bob")?; // a reference to any AsRef<[u8]>: &str, &String, &[u8], &[u8; N], &Vec<u8>
    filter.insert(&format!("user:{}", 42))?; // an owned String: borrow it (&)
    assert!(filter.contains("alice:bob"));
    assert!(filter.contains("user:42"));

    let keys: Vec<[u8; 16]> = (0..1000u128).map(|i| i.to_le_bytes()).collect();
    filter.insert_batch(&keys)?; // hash, prefetch, probe: fastest for many keys
    let mut found = vec![false; keys.len()];
    filter.contains_batch(&keys, &mut found);
    assert!(found.iter().all(|&f| f));

    let custom = BloomFilter::builder(10_000_000)
        .fpr(0.001)
        .kind(Kind::Blocked)
        .shards(8)
        .seed(42)
        .threads(4)
        .build()?;
    assert_eq!(custom.info().shards, 8);
    assert_eq!(filter.layout(), Layout::Split); // the library's layout at 1%
    let smallest = BloomFilter::builder(10_000_000)
        .fpr(0.01)
        .layout(Layout::Distinct)
        .build()?;
    assert_eq!(smallest.layout(), Layout::Distinct);

    filter.save("blocks.abloom")?; // crash-safe, portable format
    let mapped = BloomFilter::open("blocks.abloom")?; // mmap, O(1), read-only
    assert!(mapped.contains("alice:bob") && mapped.info().read_only);
    assert_eq!(mapped.threads(), 1);
    mapped.set_threads(4)?; // its batches of 64K+ keys on 4 threads (opened: 1)
    assert_eq!(mapped.threads(), 4);
    let rw = OpenOptions::new()
        .mode(OpenMode::ReadWrite)
        .verify_checksum(true)
        .open("blocks.abloom")?;
    rw.insert("new")?;
    rw.close()?; // sync: checksums rewritten
    let copy = BloomFilter::from_bytes(&filter.to_bytes())?; // validated copy
    assert!(copy == filter);
    let reopened = OpenOptions::new()
        .verify_checksum(true)
        .open("blocks.abloom")?;
    assert!(reopened.contains("new") && !filter.contains("new"));
    Ok(())
}

/// bindings/rust/README.md's layout block.
fn layouts() -> Res {
    use abloom::{layout_model_fpr, Builder, Kind, Layout};

    let plan = Builder::new(1_000_000).fpr(0.01).plan()?; // the library's choice
    assert_eq!((plan.layout, plan.k), (Layout::Split, 7));
    let model = layout_model_fpr(plan.kind, plan.layout, plan.bits_per_key, plan.k)?;
    assert!((model - plan.expected_fpr).abs() <= 1e-12 * plan.expected_fpr);
    let distinct = Builder::new(1_000_000)
        .fpr(0.01)
        .layout(Layout::Distinct)
        .plan()?;
    assert_eq!((distinct.layout, distinct.k), (Layout::Distinct, 6));
    assert_eq!(
        Builder::new(1_000_000).fpr(1e-9).plan()?.layout,
        Layout::Distinct
    );
    assert_eq!(
        Builder::new(1_000).kind(Kind::Classic).plan()?.layout,
        Layout::Distinct
    );
    Ok(())
}

/// bindings/rust/README.md's growing filters block.
fn growing() -> Res {
    use abloom::{BloomFilter, Builder, Error};

    let mut filter = BloomFilter::growing(0.01)?; // no capacity: grows as keys come, FPR held
    let keys: Vec<[u8; 8]> = (0..100_000u64).map(|i| i.to_le_bytes()).collect();
    filter.insert_batch(&keys)?;
    let info = filter.info(); // the whole chain
    assert_eq!((info.stages, info.growth), (7, 2.0)); // 1024 * (2^7 - 1) >= 100000
    assert!(info.expected_fpr < 0.01 && info.keys <= 100_000);
    assert_eq!(filter.stage_infos().len(), 7);
    for stage in filter.stage_infos() {
        println!("{} of {} keys", stage.keys, stage.capacity);
        assert!(stage.keys <= stage.capacity);
    }
    let plan = Builder::new(10_000).growth(4.0).footprint(1_000_000)?; // without allocating
    println!("{} stages, FPR <= {}", plan.stages, plan.fpr_bound);
    assert_eq!(plan.stages, 5); // 10000 * (1 + 4 + 16 + 64) < 1000000 <= ... + 10000 * 256
    assert!(plan.fpr_bound < 0.01);
    let copy = BloomFilter::from_bytes(&filter.to_bytes())?; // every stage
    assert!(matches!(filter.intersect(&copy), Err(Error::Unsupported)));
    assert!(copy == filter);
    Ok(())
}

/// The Rust block of the repository's README.md ("Bindings").
fn repository_readme() -> Res {
    let f = abloom::BloomFilter::new(1_000_000, 0.01)?; // Rust: crate abloom
    f.insert("alice:bob")?;
    assert!(f.contains("alice:bob"));
    Ok(())
}

#[test]
fn readme_blocks_run() -> Res {
    let back = std::env::current_dir()?;
    let dir = std::env::temp_dir().join(format!("abloom-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::env::set_current_dir(&dir)?;
    let result = usage()
        .and_then(|()| layouts())
        .and_then(|()| growing())
        .and_then(|()| repository_readme());
    std::env::set_current_dir(back)?;
    std::fs::remove_dir_all(&dir)?;
    result
}
