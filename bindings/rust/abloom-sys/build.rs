//! Finds libabloom and tells rustc how to link it.
//!
//! Order of lookup:
//! 1. `ABLOOM_LIB_DIR`: a directory holding `libabloom.so` / `libabloom.a`. The header is looked
//!    for in `ABLOOM_INCLUDE_DIR`, else in `$ABLOOM_LIB_DIR/../include`.
//! 2. pkg-config, probing the `abloom` package (set `PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig` for
//!    an install outside the system directories).
//!
//! `ABLOOM_STATIC=1` links `libabloom.a` statically (and then the C++ runtime it needs,
//! `libstdc++`, `libm` and `libpthread`, dynamically).
//!
//! For dependents' build scripts this exports `DEP_ABLOOM_INCLUDE` (the header directory, empty
//! when the header is in a system directory) and `DEP_ABLOOM_LIB_DIR` (likewise).

use std::env;
use std::path::PathBuf;

fn main() {
    for var in [
        "ABLOOM_LIB_DIR",
        "ABLOOM_INCLUDE_DIR",
        "ABLOOM_STATIC",
        "PKG_CONFIG_PATH",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let want_static = env::var("ABLOOM_STATIC").map(|v| v == "1").unwrap_or(false);

    let (include_dir, lib_dir) = if let Some(dir) = env::var_os("ABLOOM_LIB_DIR") {
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
                    "libabloom not found.\n{e}\nInstall abloom and set \
                     PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig, or set ABLOOM_LIB_DIR=$PREFIX/lib \
                     (optionally with ABLOOM_STATIC=1)."
                )
            });
        if want_static {
            link_cxx_runtime();
        }
        (
            lib.include_paths.first().cloned(),
            lib.link_paths.first().cloned(),
        )
    };
    let show = |p: Option<PathBuf>| p.map(|p| p.display().to_string()).unwrap_or_default();
    let include = show(include_dir);
    let lib = show(lib_dir);
    // Metadata for dependents (DEP_ABLOOM_INCLUDE, DEP_ABLOOM_LIB_DIR) and for this crate's tests.
    println!("cargo:include={include}");
    println!("cargo:lib_dir={lib}");
    println!("cargo:rustc-env=ABLOOM_SYS_INCLUDE_DIR={include}");
    println!("cargo:rustc-env=ABLOOM_SYS_LIB_DIR={lib}");
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
