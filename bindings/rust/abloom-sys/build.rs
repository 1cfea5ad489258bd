//! Builds or finds libabloom and tells rustc how to link it.
//!
//! Two modes:
//!
//! * **bundled** (the default, feature `bundled`): compiles the engine with the `cc` crate into a
//!   static library, and links it with the C++ runtime. In a checkout the sources are the
//!   repository's `core/` and `capi/`, with the pinned xxHash 0.8.1 header the Go module commits
//!   (`bindings/go/internal/engine/xxhash.h`; `XXHASH_H` names another); in a packaged crate they
//!   are `bundled/`, a copy of the same files at the same paths (`bundled/core/`, `bundled/capi/`)
//!   and xxHash's header that `bindings/rust/package.sh` makes before `cargo package`
//!   (`scripts/bundle-engine.sh --engine-to`; never committed).
//!   Needs a C++20 compiler, nothing else. The engine is always compiled with `-O3
//!   -DNDEBUG` (as CMake's Release build), whatever the cargo profile: it is a library, not code
//!   under development, and a `-O0` engine would make debug builds of its users needlessly slow.
//!   `CXX` and `CXXFLAGS` are honoured (cc appends `CXXFLAGS` last, so `CXXFLAGS=-O0` wins).
//! * **system** (feature `system`, or `ABLOOM_SYSTEM=1`): an installed libabloom, found
//!   1. with `ABLOOM_LIB_DIR`: a directory holding `libabloom.so` / `libabloom.a`. The header is
//!      looked for in `ABLOOM_INCLUDE_DIR`, else in `$ABLOOM_LIB_DIR/../include`;
//!   2. otherwise with pkg-config, probing the `abloom` package (set
//!      `PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig` for an install outside the system directories).
//!
//!   `ABLOOM_STATIC=1` links `libabloom.a` statically (and then the C++ runtime it needs,
//!   `libstdc++`, `libm` and `libpthread`, dynamically).
//!
//! The `system` feature wins over `bundled` (features add up across a dependency graph, and
//! `bundled` is on by default). `ABLOOM_SYSTEM=1` selects the system library and `ABLOOM_SYSTEM=0`
//! the bundled engine whatever the features say. With neither feature, the system library is used.
//!
//! For dependents' build scripts this exports `DEP_ABLOOM_MODE` (`bundled` or `system`),
//! `DEP_ABLOOM_INCLUDE` (the header directory: `capi/` or `bundled/capi/`, or the system one,
//! empty when the header is in a system directory) and `DEP_ABLOOM_LIB_DIR` (the directory of the
//! library linked: the bundled build's `libabloom.a`, or the system one, likewise).

use std::env;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in [
        "ABLOOM_SYSTEM",
        "ABLOOM_LIB_DIR",
        "ABLOOM_INCLUDE_DIR",
        "ABLOOM_STATIC",
        "PKG_CONFIG_PATH",
        "DOCS_RS",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let system = match env::var("ABLOOM_SYSTEM").as_deref().map(str::trim) {
        Ok("1") => true,
        Ok("0") => false,
        Ok("") | Err(_) => {
            env::var_os("CARGO_FEATURE_SYSTEM").is_some()
                || env::var_os("CARGO_FEATURE_BUNDLED").is_none()
        }
        Ok(other) => panic!(
            "ABLOOM_SYSTEM={other:?}: use 1 (link an installed libabloom) or 0 (build the \
             bundled engine)"
        ),
    };

    // docs.rs documents the declarations; there is nothing to link.
    if env::var_os("DOCS_RS").is_some() {
        return;
    }

    let (mode, include_dir, lib_dir) = if system {
        let (include, lib) = system_library();
        ("system", include, lib)
    } else {
        for var in ["ABLOOM_LIB_DIR", "ABLOOM_INCLUDE_DIR", "ABLOOM_STATIC"] {
            if env::var_os(var).is_some() {
                println!(
                    "cargo:warning={var} is set but ignored: the bundled engine is built (it \
                     applies to an installed libabloom: feature `system` or ABLOOM_SYSTEM=1)"
                );
            }
        }
        let (include, lib) = bundled_engine();
        ("bundled", Some(include), Some(lib))
    };
    let show = |p: Option<PathBuf>| p.map(|p| p.display().to_string()).unwrap_or_default();
    let include = show(include_dir);
    let lib = show(lib_dir);
    // Metadata for dependents (DEP_ABLOOM_*) and for this crate's tests.
    println!("cargo:mode={mode}");
    println!("cargo:include={include}");
    println!("cargo:lib_dir={lib}");
    println!("cargo:rustc-env=ABLOOM_SYS_MODE={mode}");
    println!("cargo:rustc-env=ABLOOM_SYS_INCLUDE_DIR={include}");
    println!("cargo:rustc-env=ABLOOM_SYS_LIB_DIR={lib}");
}

/// Where the engine's sources are: the repository's `core/` and `capi/` in a checkout (this
/// crate at `bindings/rust/abloom-sys`), or `bundled/core/` and `bundled/capi/` in a packaged
/// crate (filled by `bindings/rust/package.sh` before `cargo package`, as zstd-sys carries zstd).
struct EngineSources {
    /// The `.cpp` files, in file-name order.
    sources: Vec<PathBuf>,
    /// The include path, in order: the pinned `xxhash.h`'s folder first, so it wins over a
    /// system one.
    includes: Vec<PathBuf>,
    /// The folder of `abloom.h`, for dependents (`DEP_ABLOOM_INCLUDE`) and the header test.
    header_dir: PathBuf,
}

/// The `.cpp` files of `dir` and of its subfolders (core/'s rooms). Cargo reruns the script when
/// any file in `dir` changes.
fn cpp_files(dir: &Path) -> Vec<PathBuf> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("reading the engine's sources").path();
        if path.is_dir() {
            found.extend(cpp_files(&path));
        } else if path.extension().is_some_and(|e| e == "cpp") {
            found.push(path);
        }
    }
    found
}

fn engine_sources() -> EngineSources {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../../..");
    let root = root.canonicalize().unwrap_or(root);
    let (core, capi) = (root.join("core"), root.join("capi"));
    let checkout = |core: &Path, capi: &Path| {
        core.join("filter/filter.hpp").is_file() && capi.join("abloom_capi.cpp").is_file()
    };
    // The engine's files include each other by their paths under core/ ("kernels/isa.hpp"), and
    // capi/'s abloom.h and abloom_layout.h, the two public headers the engine includes.
    let mut found = if checkout(&core, &capi) {
        // A checkout: the engine's own files, and the pinned xxHash header the repository
        // commits once (with the Go module's engine), copied alone into a folder of its own.
        let mut sources = cpp_files(&core);
        sources.push(capi.join("abloom_capi.cpp"));
        println!("cargo:rerun-if-changed={}", capi.display());
        EngineSources {
            sources,
            includes: vec![pinned_xxhash(&root), core, capi.clone()],
            header_dir: capi,
        }
    } else {
        let dir = manifest.join("bundled");
        let (bundled_core, bundled_capi) = (dir.join("core"), dir.join("capi"));
        if !checkout(&bundled_core, &bundled_capi) {
            panic!(
                "the engine's sources are missing: neither a checkout ({} and {}) nor a \
                 packaged crate ({}; bindings/rust/package.sh fills it before cargo package)",
                core.display(),
                capi.display(),
                dir.display()
            );
        }
        let mut sources = cpp_files(&bundled_core);
        sources.push(bundled_capi.join("abloom_capi.cpp"));
        println!("cargo:rerun-if-changed={}", bundled_capi.display());
        EngineSources {
            sources,
            // xxhash.h lies in bundled/ itself.
            includes: vec![dir, bundled_core, bundled_capi.clone()],
            header_dir: bundled_capi,
        }
    };
    found
        .sources
        .sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    assert!(
        found.sources.iter().any(|p| p.ends_with("abloom_capi.cpp")) && found.sources.len() > 5,
        "{}: the engine's sources are incomplete",
        found.header_dir.display()
    );
    found
}

/// The pinned xxHash header of a checkout (version 0.8.1, the one the golden vectors and every
/// binding were checked with, as `scripts/bundle-engine.sh` requires): the copy the Go module
/// commits, `bindings/go/internal/engine/xxhash.h`, so that a git dependency needs nothing
/// installed either; `XXHASH_H` overrides its path. It is copied alone into `$OUT_DIR/xxhash/`
/// (the folder it lies in holds other copies of the engine's headers, and a cross compiler must
/// not see the build machine's `/usr/include`). Returns that folder.
fn pinned_xxhash(root: &Path) -> PathBuf {
    println!("cargo:rerun-if-env-changed=XXHASH_H");
    let path = env::var_os("XXHASH_H")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("bindings/go/internal/engine/xxhash.h"));
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; building from a checkout needs xxHash's header (scripts/bundle-engine.sh \
             makes it; XXHASH_H=PATH names another)",
            path.display()
        )
    });
    let part = |name: &str| {
        text.lines()
            .find_map(|l| {
                let mut words = l.split_whitespace();
                (words.next() == Some("#define") && words.next() == Some(name))
                    .then(|| words.next().unwrap_or("").to_string())
            })
            .unwrap_or_default()
    };
    let version = [
        "XXH_VERSION_MAJOR",
        "XXH_VERSION_MINOR",
        "XXH_VERSION_RELEASE",
    ]
    .map(part)
    .join(".");
    assert!(
        version == "0.8.1",
        "{} is xxHash {version}, not the pinned 0.8.1",
        path.display()
    );
    let dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR")).join("xxhash");
    std::fs::create_dir_all(&dir).expect("creating $OUT_DIR/xxhash");
    let copy = dir.join("xxhash.h");
    if std::fs::read_to_string(&copy).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&copy, &text).expect("writing $OUT_DIR/xxhash/xxhash.h");
    }
    dir
}

/// Compiles the engine (`core/**/*.cpp` and `capi/abloom_capi.cpp` in a checkout, the same under
/// `bundled/` in a packaged crate) into `$OUT_DIR/libabloom.a` and links it statically. Returns
/// the include and library directories.
fn bundled_engine() -> (PathBuf, PathBuf) {
    let engine = engine_sources();
    let sources = engine.sources;

    let mut build = cc::Build::new();
    build.cpp(true).std("c++20");
    // The pinned xxhash.h first on the include path, so it wins over a system one.
    for dir in &engine.includes {
        build.include(dir);
    }
    build
        // A static library: ABLOOM_API is empty, no dllimport/visibility attributes.
        .define("ABLOOM_STATIC_DEFINE", None)
        // As CMake's Release build, in every cargo profile (see the top of this file).
        .opt_level(3)
        .define("NDEBUG", None);
    let compiler = build.get_compiler();
    if compiler.is_like_gnu() || compiler.is_like_clang() {
        // As the CMake build: only what is used from Rust needs to be visible, and hidden
        // symbols let the compiler inline and optimise across the engine's functions (-fPIC code
        // with default visibility assumes every global function can be interposed).
        build
            .flag("-fvisibility=hidden")
            .flag("-fvisibility-inlines-hidden")
            // As the CMake build: no fused multiply-add, so the doubles a file's header holds
            // are the same bits on every target (aarch64 fuses by default; the engine's
            // sizing.cpp and filter.cpp also say it in a pragma).
            .flag("-ffp-contract=off");
    }
    // The SIMD kernels carry their own target attributes and are chosen at run time: no -m or
    // -march flags here, so one binary runs on any CPU of the target architecture.
    let objects = compile_in_parallel(&build, &sources);
    // $OUT_DIR/libabloom.a, linked statically, plus the C++ runtime.
    build.objects(&objects).compile("abloom");

    if env::var("CARGO_CFG_TARGET_OS").map_or(true, |os| os != "windows") {
        println!("cargo:rustc-link-lib=dylib=m");
        println!("cargo:rustc-link-lib=dylib=pthread");
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    (engine.header_dir, out)
}

/// Compiles each source file with `build`, on up to `NUM_JOBS` threads (the `-j` cargo runs
/// with; by default the CPU count), like `make -j` in other `-sys` crates: one file after another
/// would make the engine's first build take the sum of its files' compile times. (cc's own
/// `parallel` feature needs jobserver 0.1.35, which needs Rust 1.85; these crates support 1.77.)
/// Returns the object files in the order of `sources`.
fn compile_in_parallel(build: &cc::Build, sources: &[PathBuf]) -> Vec<PathBuf> {
    let jobs = env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .clamp(1, sources.len());
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, Result<Vec<PathBuf>, cc::Error>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    // Files in name order, each to the next free thread.
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(src) = sources.get(i) else {
                            return done;
                        };
                        done.push((i, build.clone().file(src).try_compile_intermediates()));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a compile thread panicked"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results
        .into_iter()
        .flat_map(|(i, result)| {
            result.unwrap_or_else(|e| panic!("compiling {}: {e}", sources[i].display()))
        })
        .collect()
}

/// Finds an installed libabloom (`ABLOOM_LIB_DIR`, else pkg-config) and links it. Returns the
/// include and library directories when known.
fn system_library() -> (Option<PathBuf>, Option<PathBuf>) {
    let want_static = env::var("ABLOOM_STATIC").map(|v| v == "1").unwrap_or(false);
    if let Some(dir) = env::var_os("ABLOOM_LIB_DIR") {
        let dir = PathBuf::from(dir);
        if !dir.is_dir() {
            panic!("ABLOOM_LIB_DIR={} is not a directory", dir.display());
        }
        let lib_name = if want_static {
            "libabloom.a"
        } else {
            "libabloom.so"
        };
        if !dir.join(lib_name).exists() && !dir.join("libabloom.dylib").exists() {
            panic!(
                "ABLOOM_LIB_DIR={} holds no {lib_name}: point it at the lib folder of an \
                 abloom install",
                dir.display()
            );
        }
        println!("cargo:rustc-link-search=native={}", dir.display());
        if want_static {
            println!("cargo:rustc-link-lib=static=abloom");
            link_cxx_runtime();
        } else {
            println!("cargo:rustc-link-lib=dylib=abloom");
        }
        let include = env::var_os("ABLOOM_INCLUDE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| dir.join("..").join("include"));
        (Some(include), Some(dir))
    } else {
        let lib = pkg_config::Config::new()
            .atleast_version("0.1.0")
            .statik(want_static)
            .probe("abloom")
            .unwrap_or_else(|e| {
                panic!(
                    "libabloom not found (system mode: the `system` feature or \
                     ABLOOM_SYSTEM=1).\n{e}\nInstall abloom and set \
                     PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig, or set ABLOOM_LIB_DIR=$PREFIX/lib \
                     (optionally with ABLOOM_STATIC=1); or build the bundled engine instead \
                     (the default `bundled` feature, or ABLOOM_SYSTEM=0)."
                )
            });
        if want_static {
            link_cxx_runtime();
        }
        (
            lib.include_paths.first().cloned(),
            lib.link_paths.first().cloned(),
        )
    }
}

/// The static library is C++: it needs the C++ runtime, libm and threads.
fn link_cxx_runtime() {
    let target = env::var("TARGET").unwrap_or_default();
    if target.contains("apple") || target.contains("freebsd") {
        println!("cargo:rustc-link-lib=dylib=c++");
    } else {
        println!("cargo:rustc-link-lib=dylib=stdc++");
    }
    println!("cargo:rustc-link-lib=dylib=m");
    println!("cargo:rustc-link-lib=dylib=pthread");
}
