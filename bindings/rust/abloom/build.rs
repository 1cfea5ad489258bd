//! Passes the include and library directories that `abloom-sys` found on to this crate's tests
//! (they compile small C programs against the same library to exchange files with it).
fn main() {
    for (dep, var) in [
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
