//! Passes what `abloom-sys` built or found on to this crate's tests (they compile small C
//! programs against the same library to exchange files with it): the mode (`bundled`: a static
//! `libabloom.a` built from the bundled sources; `system`: an installed library), the include
//! directory and the library directory.
fn main() {
    for (dep, var) in [
        ("DEP_ABLOOM_MODE", "ABLOOM_TEST_MODE"),
        ("DEP_ABLOOM_INCLUDE", "ABLOOM_TEST_INCLUDE_DIR"),
        ("DEP_ABLOOM_LIB_DIR", "ABLOOM_TEST_LIB_DIR"),
    ] {
        println!("cargo:rerun-if-env-changed={dep}");
        println!(
            "cargo:rustc-env={var}={}",
            std::env::var(dep).unwrap_or_default()
        );
    }
}
