//! Files exchanged with the abloom command (cli/): a filter the command builds from lines or from
//! `--u64` ids opens here equal, bit for bit, to this binding's filter of the same keys, the
//! command's query prints exactly the keys this binding answers "maybe" for, and a filter this
//! binding saves passes the command's verify and query; growing filters (the command builds one
//! from stdin without --capacity) go both ways, and the command adds to one saved here. The
//! command is `$ABLOOM_CLI` (ci.sh sets
//! it to the tested install's bin/abloom); without it these tests return at once, saying so on
//! stderr, as a crate consumer without the command has nothing to run them against.

use abloom::{BloomFilter, Builder, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn command() -> Option<PathBuf> {
    match std::env::var_os("ABLOOM_CLI") {
        Some(p) => {
            let p = PathBuf::from(p);
            assert!(p.is_file(), "ABLOOM_CLI={} is not a file", p.display());
            Some(p)
        }
        None => {
            eprintln!("cli_exchange: ABLOOM_CLI is not set; the abloom command is not tested");
            None
        }
    }
}

/// Runs the command with `stdin`; returns (exit status, stdout). Statuses other than 0 and 1
/// (query's "nothing matched") fail the test.
fn run(bin: &PathBuf, stdin: &str, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    let input = stdin.as_bytes().to_vec();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let code = out.status.code().expect("killed by a signal");
    assert!(code == 0 || code == 1, "abloom {args:?} exited {code}");
    (code, String::from_utf8(out.stdout).unwrap())
}

fn keys(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn lines<S: AsRef<str>>(keys: &[S]) -> String {
    keys.iter().map(|k| format!("{}\n", k.as_ref())).collect()
}

fn temp_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-cli-exchange");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn file_built_by_the_command_opens_here() {
    let Some(bin) = command() else { return };
    let present = keys("cli-key-", 5000);
    let absent = keys("cli-absent-", 20000);
    let path = temp_path("cli.abloom");
    let p = path.to_str().unwrap();
    let args = [
        "build",
        "-q",
        "-o",
        p,
        "--capacity",
        "5000",
        "--fpr",
        "0.01",
        "--seed",
        "42",
    ];
    assert_eq!(run(&bin, &lines(&present), &args).0, 0);
    let f = OpenOptions::new()
        .verify_checksum(true)
        .open(&path)
        .unwrap();
    assert_eq!((f.capacity(), f.seed()), (5000, 42));
    let g = Builder::new(5000).fpr(0.01).seed(42).build().unwrap();
    for k in &present {
        assert!(f.contains(k), "{k} built by the command is missing here");
        g.insert(k).unwrap();
    }
    assert!(
        f == g,
        "the command's filter differs from this binding's of the same keys"
    );
    let ours: Vec<&String> = absent.iter().filter(|k| f.contains(k)).collect();
    let (_, printed) = run(&bin, &lines(&absent), &["query", p]);
    assert_eq!(printed, lines(&ours));
    assert!(
        !ours.is_empty() && ours.len() < 400,
        "{} false positives of 20000 at fpr 0.01 (about 200 expected)",
        ours.len()
    );
}

#[test]
fn u64_file_built_by_the_command_holds_the_ids_le_bytes() {
    let Some(bin) = command() else { return };
    let mut ids: Vec<u64> = vec![0, 1, 255, 256, 1 << 32, u64::MAX >> 1, 1 << 63, u64::MAX];
    ids.extend((0..1000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    let path = temp_path("ids.abloom");
    let p = path.to_str().unwrap();
    let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
    run(
        &bin,
        &input,
        &["build", "-q", "--u64", "-o", p, "--capacity", "1008"],
    );
    let f = BloomFilter::open(&path).unwrap();
    let g = BloomFilter::new(1008, 0.01).unwrap();
    for id in &ids {
        let key = id.to_le_bytes(); // --u64: the id's 8 little-endian bytes
        assert!(
            f.contains(&key),
            "id {id} built by the command is missing here"
        );
        g.insert(&key).unwrap();
    }
    assert!(
        f == g,
        "the command's --u64 filter differs from this binding's"
    );
}

#[test]
fn file_saved_here_passes_the_command() {
    let Some(bin) = command() else { return };
    let present = keys("rust-key-", 5000);
    let f = Builder::new(5000).fpr(0.01).shards(4).build().unwrap();
    for k in &present {
        f.insert(k).unwrap();
    }
    let path = temp_path("rust.abloom");
    f.save(&path).unwrap();
    let p = path.to_str().unwrap();
    assert_eq!(run(&bin, "", &["verify", p]).0, 0);
    assert_eq!(
        run(&bin, &lines(&present), &["query", "--count", p]).1,
        "5000\n"
    );
    assert_eq!(
        run(&bin, &lines(&present), &["query", "--absent", p]),
        (1, String::new()),
        "query --absent matched a key this binding added"
    );
}

#[test]
fn growing_files_go_both_ways_with_the_command() {
    let Some(bin) = command() else { return };
    // Keys on stdin and no --capacity: the command cannot count them first, so it builds a
    // growing filter (first stage the library's default, growth 2). With one thread it adds
    // them in input order, so its stages fill as this binding's do, bit for bit; with several,
    // which key lands in which stage depends on their timing, and only the answers are pinned.
    let present = keys("cli-grow-", 5000);
    let absent = keys("cli-grow-absent-", 20000);
    let path = temp_path("cli-growing.abloom");
    let p = path.to_str().unwrap();
    let build = ["build", "-q", "-o", p, "--fpr", "0.01", "--seed", "42"];
    let g = Builder::growing().fpr(0.01).seed(42).build().unwrap();
    present.iter().for_each(|k| g.insert(k).unwrap());
    for threads in ["1", "2"] {
        run(
            &bin,
            &lines(&present),
            &[&build[..], &["--threads", threads]].concat(),
        );
        let f = OpenOptions::new()
            .verify_checksum(true)
            .open(&path)
            .unwrap();
        let info = f.info();
        assert!(info.is_growing(), "{info:?}");
        assert_eq!((info.stages, info.growth, info.seed), (3, 2.0, 42)); // 1024 + 2048 < 5000
        assert!(present.iter().all(|k| f.contains(k)));
        let ours: Vec<&String> = absent.iter().filter(|k| f.contains(k)).collect();
        assert_eq!(run(&bin, &lines(&absent), &["query", p]).1, lines(&ours));
        assert!(
            ours.len() < 300,
            "{} false positives of 20000 at 1%",
            ours.len()
        );
        if threads == "1" {
            assert!(
                f == g,
                "the command's growing filter differs from this binding's"
            );
            assert_eq!(info.keys, g.info().keys);
        }
    }

    // A growing file saved here: the command verifies it, finds its keys, and adds to it (one
    // thread: as this binding adds them).
    let mine = temp_path("rust-growing.abloom");
    let m = mine.to_str().unwrap();
    g.save(&mine).unwrap();
    assert_eq!(run(&bin, "", &["verify", m]).0, 0);
    assert_eq!(
        run(&bin, &lines(&present), &["query", "--count", m]).1,
        "5000\n"
    );
    let more = keys("cli-more-", 5000);
    run(&bin, &lines(&more), &["add", "-q", "--threads", "1", m]);
    let added = OpenOptions::new()
        .verify_checksum(true)
        .open(&mine)
        .unwrap();
    more.iter().for_each(|k| g.insert(k).unwrap());
    assert_eq!(added.stages(), 4); // 1024 + 2048 + 4096 < 10000
    assert!(added == g, "the command's add differs from this binding's");
    assert_eq!(added.info().keys, g.info().keys);
}
