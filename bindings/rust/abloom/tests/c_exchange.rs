//! Files exchanged with C: a small C program (tests/c/exchange.c), compiled here against the
//! same library (the installed one in system mode, abloom-sys's static build of the bundled
//! sources otherwise), writes filters that this binding reads, and checks filters that this
//! binding wrote. Both sides ask for the same layout (distinct, split), or both leave it to the
//! library (blocked with the default layout: split at 1%; classic: distinct). Growing filters go
//! both ways too, and a growing C file grows copy-on-write here and is saved for C to check.

use abloom::{BloomFilter, Builder, Kind, Layout, OpenMode, OpenOptions, Storage};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const N: u64 = 20_000;

fn exchange_binary() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-c-exchange");
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("exchange");
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/exchange.c");
        let cc = c_compiler();
        let mut cmd = Command::new(&cc);
        cmd.args(["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror"]);
        let inc = env!("ABLOOM_TEST_INCLUDE_DIR");
        if !inc.is_empty() {
            cmd.arg(format!("-I{inc}"));
        }
        cmd.arg(&src).arg("-o").arg(&exe);
        let lib = env!("ABLOOM_TEST_LIB_DIR");
        if env!("ABLOOM_TEST_MODE") == "bundled" {
            // The static libabloom.a that abloom-sys built from its bundled sources (alone in
            // its directory), and the C++ runtime it needs.
            cmd.arg("-DABLOOM_STATIC_DEFINE")
                .arg(format!("-L{lib}"))
                .arg("-labloom");
            let cxx = if cfg!(target_vendor = "apple") {
                "-lc++"
            } else {
                "-lstdc++"
            };
            cmd.args([cxx, "-lm", "-lpthread"]);
        } else {
            if !lib.is_empty() {
                cmd.arg(format!("-L{lib}")).arg(format!("-Wl,-rpath,{lib}"));
            }
            cmd.arg("-labloom");
        }
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
        assert!(
            out.status.success(),
            "compiling exchange.c failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        exe
    })
}

/// The C compiler for the target these tests run on: `ABLOOM_TEST_CC`, else `CC`, else `cc`. A
/// cross build sets `ABLOOM_TEST_CC` to the target's compiler (`scripts/cross-bindings.sh`),
/// since `CC` there is the build machine's.
fn c_compiler() -> String {
    std::env::var("ABLOOM_TEST_CC")
        .or_else(|_| std::env::var("CC"))
        .unwrap_or_else(|_| "cc".into())
}

/// A command that runs the C program `exe`: directly, or under `ABLOOM_TEST_RUNNER` (a command
/// line split on whitespace, e.g. `qemu-aarch64 -L /usr/aarch64-linux-gnu`) when the target's
/// programs need an emulator, as cargo's own runner does for the test binaries.
fn c_program(exe: &Path) -> Command {
    let runner = std::env::var("ABLOOM_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut cmd = Command::new(program);
            cmd.args(words).arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}

fn c(args: &[&str]) -> String {
    let out = c_program(exchange_binary()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "exchange {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // On Windows a C program's stdout is a text stream: each "\n" comes out as "\r\n".
    String::from_utf8(out.stdout).unwrap().replace("\r\n", "\n")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-c-exchange");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{}.abloom", std::process::id()))
}

fn keys(prefix: &str) -> Vec<String> {
    (0..N).map(|i| format!("{prefix}{i}")).collect()
}

/// The C header's value of a layout (`ABLOOM_LAYOUT_*`), as the C checker prints it.
fn layout_id(layout: Layout) -> u32 {
    match layout {
        Layout::Distinct => abloom::sys::ABLOOM_LAYOUT_DISTINCT,
        Layout::Split => abloom::sys::ABLOOM_LAYOUT_SPLIT,
        Layout::Half => abloom::sys::ABLOOM_LAYOUT_HALF,
        other => panic!("no C layout for {other:?}"),
    }
}

/// "fp=F" from the C checker's output.
fn c_false_positives(out: &str) -> u64 {
    out.split_whitespace()
        .find_map(|w| w.strip_prefix("fp="))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_filter_written_by_c_is_read_by_rust() {
    // (C's KIND argument, the kind and layout Rust builds it with (None: the library's choice,
    // like C's ABLOOM_LAYOUT_DEFAULT), the layout the file must record.)
    for (kind, (expect_kind, asked, expect_layout)) in [
        (
            "blocked",
            (Kind::Blocked, Some(Layout::Distinct), Layout::Distinct),
        ),
        ("split", (Kind::Blocked, Some(Layout::Split), Layout::Split)),
        ("half", (Kind::Blocked, Some(Layout::Half), Layout::Half)),
        // Both sides leave the layout to the library, which gives split at 1%.
        ("default", (Kind::Blocked, None, Layout::Split)),
        ("classic", (Kind::Classic, None, Layout::Distinct)),
    ] {
        let path = tmp(&format!("c-wrote-{kind}"));
        assert_eq!(
            c(&[
                "write",
                path.to_str().unwrap(),
                &N.to_string(),
                "c-key-",
                kind
            ]),
            "ok\n"
        );
        let opened = OpenOptions::new()
            .verify_checksum(true)
            .open(&path)
            .unwrap();
        let copied = BloomFilter::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(opened, copied);
        for f in [&opened, &copied] {
            let i = f.info();
            assert_eq!(
                (i.kind, i.layout, i.shards, i.seed, i.capacity),
                (expect_kind, expect_layout, 4, 42, 2 * N)
            );
            let ks = keys("c-key-");
            let mut out = vec![false; ks.len()];
            assert_eq!(f.contains_batch(&ks, &mut out), ks.len());
            assert!(ks.iter().all(|k| f.contains(k)));
        }
        // The same filter rebuilt in Rust is bit-identical: same hash, same layout.
        let mut b = Builder::new(2 * N).kind(expect_kind).shards(4).seed(42);
        if let Some(layout) = asked {
            b = b.layout(layout);
        }
        let rebuilt = b.build().unwrap();
        assert_eq!(rebuilt.layout(), expect_layout, "{kind}");
        rebuilt.insert_batch(&keys("c-key-")).unwrap();
        assert_eq!(rebuilt, opened);
        assert_eq!(rebuilt.to_bytes(), std::fs::read(&path).unwrap());
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn a_filter_written_by_rust_is_read_by_c() {
    // (kind, the layout asked for (None: the library's choice), the layout C must see.)
    for (kind, asked, layout) in [
        (Kind::Blocked, Some(Layout::Distinct), Layout::Distinct),
        (Kind::Blocked, Some(Layout::Split), Layout::Split),
        (Kind::Blocked, Some(Layout::Half), Layout::Half),
        (Kind::Blocked, None, Layout::Split),
        (Kind::Classic, None, Layout::Distinct),
    ] {
        let mut b = Builder::new(2 * N).kind(kind).shards(4).seed(42);
        if let Some(l) = asked {
            b = b.layout(l);
        }
        let f = b.build().unwrap();
        assert_eq!(f.layout(), layout, "{kind:?} {asked:?}");
        f.insert_batch(&keys("rust-key-")).unwrap();
        // Through save...
        let name = format!(
            "{kind:?}-{layout:?}-{}",
            if asked.is_some() { "asked" } else { "default" }
        );
        let saved = tmp(&format!("rust-saved-{name}"));
        f.save(&saved).unwrap();
        let out = c(&[
            "check",
            saved.to_str().unwrap(),
            &N.to_string(),
            "rust-key-",
        ]);
        assert!(out.starts_with("ok "), "{out}");
        assert!(
            out.contains(&format!(
                "layout={} k={} shards=4 seed=42",
                layout_id(layout),
                f.k()
            )),
            "{out}"
        );
        // ... and through to_bytes written as a plain file.
        let written = tmp(&format!("rust-bytes-{name}"));
        std::fs::write(&written, f.to_bytes()).unwrap();
        let out2 = c(&[
            "check",
            written.to_str().unwrap(),
            &N.to_string(),
            "rust-key-",
        ]);
        assert_eq!(out, out2);
        // The C side sees the same false positives as Rust does.
        let rust_fp = (0..10_000)
            .filter(|i| f.contains(&format!("absent-{i}")))
            .count() as u64;
        assert_eq!(c_false_positives(&out), rust_fp);
        std::fs::remove_file(&saved).unwrap();
        std::fs::remove_file(&written).unwrap();
    }
}

#[test]
fn rust_adds_to_a_c_file_through_a_read_write_mapping() {
    let path = tmp("c-wrote-rw");
    c(&[
        "write",
        path.to_str().unwrap(),
        &N.to_string(),
        "c-key-",
        "blocked",
    ]);
    let before = std::fs::read(&path).unwrap();

    // Copy-on-write: inserts work, the file does not change.
    let cow = OpenOptions::new()
        .mode(OpenMode::CopyOnWrite)
        .open(&path)
        .unwrap();
    assert!(!cow.is_read_only());
    assert_eq!(cow.info().storage, Storage::Mapped);
    cow.insert_batch(&keys("cow-key-")).unwrap();
    cow.close().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // Read-write: inserts persist, and close() rewrites the checksums C then verifies.
    let rw = OpenOptions::new()
        .mode(OpenMode::ReadWrite)
        .verify_checksum(true)
        .open(&path)
        .unwrap();
    rw.insert_batch(&keys("rust-key-")).unwrap();
    rw.close().unwrap();
    let out = c(&[
        "check",
        path.to_str().unwrap(),
        &N.to_string(),
        "c-key-",
        "rust-key-",
    ]);
    assert!(out.starts_with("ok "), "{out}");
    std::fs::remove_file(&path).unwrap();
}

/// The value of "NAME=" in the C checker's output.
fn c_field<'a>(out: &'a str, name: &str) -> &'a str {
    let prefix = format!("{name}=");
    out.split_whitespace()
        .find_map(|w| w.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("no {name}= in {out}"))
}

/// The growing filter exchange.c's `write ... growing` makes: first stage N/20 keys, growth 2,
/// the default layout, 4 shards, seed 42, 1%.
fn growing_like_c() -> Builder {
    Builder::new(N / 20)
        .growth(BloomFilter::DEFAULT_GROWTH)
        .shards(4)
        .seed(42)
}

#[test]
fn a_growing_filter_written_by_c_is_read_by_rust() {
    let path = tmp("c-wrote-growing");
    let p = path.to_str().unwrap();
    assert_eq!(
        c(&["write", p, &N.to_string(), "c-key-", "growing"]),
        "ok\n"
    );
    let bytes = std::fs::read(&path).unwrap();
    let opened = OpenOptions::new()
        .verify_checksum(true)
        .open(&path)
        .unwrap();
    let copied = BloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(opened, copied);
    let ks = keys("c-key-");
    for f in [&opened, &copied] {
        let i = f.info();
        // 1000 * (2^4 - 1) < 20000 <= 1000 * (2^5 - 1)
        assert_eq!((i.stages, i.growth, i.capacity), (5, 2.0, 31 * N / 20));
        assert_eq!((i.shards, i.seed, i.target_fpr), (4, 42, 0.01));
        assert!(i.keys <= N && i.keys > N - N / 100, "{i:?}");
        let mut out = vec![false; ks.len()];
        assert_eq!(f.contains_batch(&ks, &mut out), ks.len());
        assert!(ks.iter().all(|k| f.contains(k)));
    }
    // Rebuilt in Rust, one key at a time as C added them, and in one batch: the same bytes.
    let single = growing_like_c().build().unwrap();
    ks.iter().for_each(|k| single.insert(k).unwrap());
    assert!(single.to_bytes() == bytes);
    let batch = growing_like_c().build().unwrap();
    batch.insert_batch(&ks).unwrap();
    assert!(batch.to_bytes() == bytes);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_growing_filter_written_by_rust_is_read_by_c() {
    let f = growing_like_c().build().unwrap();
    f.insert_batch(&keys("rust-key-")).unwrap();
    let info = f.info();
    assert_eq!(info.stages, 5);
    let rust_fp = (0..10_000)
        .filter(|i| f.contains(&format!("absent-{i}")))
        .count()
        .to_string();
    let saved = tmp("rust-saved-growing");
    f.save(&saved).unwrap();
    let written = tmp("rust-bytes-growing");
    std::fs::write(&written, f.to_bytes()).unwrap();
    let mut outs = Vec::new();
    for path in [&saved, &written] {
        let out = c(&["check", path.to_str().unwrap(), &N.to_string(), "rust-key-"]);
        assert!(out.starts_with("ok "), "{out}");
        assert_eq!(c_field(&out, "stages"), "5", "{out}");
        assert_eq!(c_field(&out, "growth"), "2", "{out}");
        assert_eq!(c_field(&out, "keys"), info.keys.to_string(), "{out}");
        assert_eq!(
            c_field(&out, "capacity"),
            info.capacity.to_string(),
            "{out}"
        );
        assert_eq!(
            (c_field(&out, "shards"), c_field(&out, "seed")),
            ("4", "42")
        );
        assert_eq!(c_field(&out, "k"), info.k.to_string(), "{out}");
        // The C side sees the same false positives as Rust does.
        assert_eq!(c_field(&out, "fp"), rust_fp, "{out}");
        outs.push(out);
    }
    assert_eq!(outs[0], outs[1]);
    std::fs::remove_file(&saved).unwrap();
    std::fs::remove_file(&written).unwrap();
}

#[test]
fn rust_grows_a_c_file_copy_on_write_and_saves_it_for_c() {
    let path = tmp("c-wrote-growing-cow");
    let p = path.to_str().unwrap();
    c(&["write", p, &N.to_string(), "c-key-", "growing"]);
    let before = std::fs::read(&path).unwrap();
    // Copy-on-write: the chain grows in memory (40000 keys: a sixth stage), the file does not.
    let cow = OpenOptions::new()
        .mode(OpenMode::CopyOnWrite)
        .open(&path)
        .unwrap();
    cow.insert_batch(&keys("rust-key-")).unwrap();
    assert_eq!(cow.stages(), 6);
    assert!(std::fs::read(&path).unwrap() == before);
    let grown = tmp("rust-grew-growing");
    cow.save(&grown).unwrap();
    drop(cow);
    let out = c(&[
        "check",
        grown.to_str().unwrap(),
        &N.to_string(),
        "c-key-",
        "rust-key-",
    ]);
    assert!(out.starts_with("ok "), "{out}");
    assert_eq!(c_field(&out, "stages"), "6", "{out}");
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(&grown).unwrap();
}
