//! Checks the hand-written declarations of `src/lib.rs` against `abloom.h` (the bundled copy, or
//! the installed one in system mode), with the C compiler as the judge.
//!
//! The test parses the header for its `ABLOOM_API` functions, object-like macros, enumerators and
//! struct fields, and `src/lib.rs` for its `extern "C"` functions. It fails when either side has
//! a function the other lacks, then writes a C11 program that
//!  - `_Static_assert`s, with `_Generic`, that each C function has exactly the type the Rust
//!    declaration spells (pointer constness included), and
//!  - prints every macro and enum value, and every struct's size, alignment and field offsets
//!    and sizes,
//!
//! compiles it with `cc` against the header and compares its output with the Rust side.

use abloom_sys::*;
use std::collections::BTreeSet;
use std::mem::{align_of, offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;

const RUST_SOURCE: &str = include_str!("../src/lib.rs");

fn header_path() -> PathBuf {
    let dir = env!("ABLOOM_SYS_INCLUDE_DIR");
    let candidates: Vec<PathBuf> = if dir.is_empty() {
        vec!["/usr/include".into(), "/usr/local/include".into()]
    } else {
        vec![dir.into()]
    };
    for c in &candidates {
        let p = c.join("abloom.h");
        if p.exists() {
            return p;
        }
    }
    panic!("abloom.h not found in {candidates:?}");
}

/// Removes `/* ... */` comments and `//` comments.
fn strip_c_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        let end = rest[i + 2..].find("*/").expect("unterminated comment") + i + 4;
        out.push(' ');
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

fn last_ident(s: &str) -> &str {
    let s = s.trim_end();
    let start = s
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &s[start..]
}

struct Header {
    functions: BTreeSet<String>,
    values: Vec<String>,
    strings: Vec<String>,
    structs: Vec<(String, Vec<String>)>,
}

fn parse_header(text: &str) -> Header {
    // A deprecated name's declaration starts with its attribute, `ABLOOM_DEPRECATED("...")`, on
    // its line or the one before: dropped here, so that `ABLOOM_API` starts the line.
    let code = strip_c_comments(text)
        .lines()
        .map(|l| match l.strip_prefix("ABLOOM_DEPRECATED(") {
            Some(rest) => rest
                .split_once(')')
                .map_or("", |(_, decl)| decl.trim_start()),
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut functions = BTreeSet::new();
    for (i, _) in code.match_indices("\nABLOOM_API ") {
        let decl = &code[i..];
        let paren = decl.find('(').unwrap();
        let semi = decl.find(';').unwrap();
        if semi < paren {
            continue;
        }
        functions.insert(last_ident(&decl[..paren]).to_string());
    }
    let mut values = Vec::new();
    let mut strings = Vec::new();
    for line in code.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#define ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after = &rest[name.len()..];
        if after.starts_with('(') || after.trim().is_empty() || name == "ABLOOM_API" {
            continue; // function-like macro, include guard, visibility
        }
        if name == "ABLOOM_VERSION_STRING" {
            strings.push(name);
        } else {
            values.push(name);
        }
    }
    let mut structs = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("typedef ") {
        rest = &rest[i + 8..];
        let is_struct = rest.starts_with("struct ");
        let is_enum = rest.starts_with("enum ");
        let (Some(open), Some(semi)) = (rest.find('{'), rest.find(';')) else {
            continue;
        };
        if !(is_struct || is_enum) || semi < open {
            continue; // the opaque `typedef struct abloom_filter abloom_filter;`
        }
        let close = rest.find('}').unwrap();
        let body = &rest[open + 1..close];
        let name = last_ident(&rest[..open]).to_string();
        if is_enum {
            for item in body.split(',') {
                let n = item.split('=').next().unwrap().trim();
                if !n.is_empty() {
                    values.push(n.to_string());
                }
            }
        } else {
            let fields = body
                .split(';')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(|d| last_ident(d).to_string())
                .collect();
            structs.push((name, fields));
        }
        rest = &rest[close..];
    }
    Header {
        functions,
        values,
        strings,
        structs,
    }
}

struct RustFn {
    name: String,
    params: Vec<String>,
    ret: String,
}

/// Parses the `extern "C"` block of `src/lib.rs`.
fn parse_rust_fns() -> Vec<RustFn> {
    let start = RUST_SOURCE.find("extern \"C\" {").expect("no extern block") + 12;
    let end = RUST_SOURCE.rfind('}').unwrap();
    let block: String = RUST_SOURCE[start..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with("#["))
        .collect::<Vec<_>>()
        .join(" ");
    let mut fns = Vec::new();
    for item in block.split(';') {
        let item = item.split_whitespace().collect::<Vec<_>>().join(" ");
        if item.is_empty() {
            continue;
        }
        let sig = item.strip_prefix("pub fn ").expect("item is not `pub fn`");
        let open = sig.find('(').unwrap();
        let close = sig.rfind(')').unwrap();
        let name = sig[..open].trim().to_string();
        let params = sig[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.split_once(':')
                    .expect("param without type")
                    .1
                    .trim()
                    .to_string()
            })
            .collect();
        let ret = sig[close + 1..]
            .trim()
            .strip_prefix("->")
            .map_or("()".to_string(), |r| r.trim().to_string());
        fns.push(RustFn { name, params, ret });
    }
    fns
}

/// The C spelling of a Rust FFI type as used in `src/lib.rs`.
fn c_type(rust: &str) -> String {
    let rust = rust.trim();
    if let Some(inner) = rust.strip_prefix("*const ") {
        return format!("{} const *", c_type(inner)).replace("  ", " ");
    }
    if let Some(inner) = rust.strip_prefix("*mut ") {
        return format!("{} *", c_type(inner));
    }
    match rust {
        "()" => "void",
        "c_void" => "void",
        "c_int" => "int",
        "c_uint" => "unsigned",
        "c_char" => "char",
        "u8" => "uint8_t",
        "u32" => "uint32_t",
        "u64" => "uint64_t",
        "usize" => "size_t",
        "f64" => "double",
        "abloom_filter" | "abloom_options" | "abloom_plan" | "abloom_info" | "abloom_memory" => {
            rust
        }
        other => panic!("no C spelling for Rust type {other:?}"),
    }
    .to_string()
}

fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

macro_rules! layout {
    ($t:ident { $($f:ident),* $(,)? }) => {
        (
            stringify!($t),
            size_of::<$t>(),
            align_of::<$t>(),
            vec![$((stringify!($f), offset_of!($t, $f), field_size(|s: &$t| &s.$f))),*],
        )
    };
}

macro_rules! values {
    ($($c:ident),* $(,)?) => { vec![$((stringify!($c), $c as i128)),*] };
}

#[allow(clippy::type_complexity)]
fn rust_layouts() -> Vec<(
    &'static str,
    usize,
    usize,
    Vec<(&'static str, usize, usize)>,
)> {
    vec![
        layout!(abloom_options {
            struct_size,
            capacity,
            fpr,
            kind,
            shards,
            seed,
            bits,
            k,
            threads,
            layout,
            growth
        }),
        layout!(abloom_plan {
            struct_size,
            kind,
            k,
            shards,
            layout,
            blocks_per_shard,
            bits,
            bytes,
            bits_per_key,
            expected_fpr
        }),
        layout!(abloom_info {
            struct_size,
            kind,
            k,
            shards,
            layout,
            blocks_per_shard,
            bits,
            bytes,
            capacity,
            seed,
            target_fpr,
            expected_fpr,
            storage,
            read_only,
            stale,
            stages,
            growth_failed,
            growth,
            keys
        }),
        layout!(abloom_memory {
            struct_size,
            kind,
            layout,
            hash_id,
            k,
            shard_bits,
            shards,
            blocks_per_shard,
            seed,
            read_only,
            reserved,
            shard_words
        }),
    ]
}

fn rust_values() -> Vec<(&'static str, i128)> {
    values![
        ABLOOM_VERSION_MAJOR,
        ABLOOM_VERSION_MINOR,
        ABLOOM_VERSION_PATCH,
        ABLOOM_VERSION_NUMBER,
        ABLOOM_OK,
        ABLOOM_ERR_NULL,
        ABLOOM_ERR_INVALID,
        ABLOOM_ERR_RANGE,
        ABLOOM_ERR_NOMEM,
        ABLOOM_ERR_MISMATCH,
        ABLOOM_ERR_INTERNAL,
        ABLOOM_ERR_READONLY,
        ABLOOM_ERR_BAD_MAGIC,
        ABLOOM_ERR_VERSION,
        ABLOOM_ERR_UNSUPPORTED,
        ABLOOM_ERR_TRUNCATED,
        ABLOOM_ERR_CORRUPT,
        ABLOOM_ERR_CHECKSUM,
        ABLOOM_ERR_ALIGNMENT,
        ABLOOM_ERR_IO,
        ABLOOM_ERR_TOO_SMALL,
        ABLOOM_ERR_STALE,
        ABLOOM_ISA_SCALAR,
        ABLOOM_ISA_AVX2,
        ABLOOM_ISA_AVX512,
        ABLOOM_ISA_NEON,
        ABLOOM_WRITER_SHARED,
        ABLOOM_WRITER_EXCLUSIVE,
        ABLOOM_LAYOUT_DEFAULT,
        ABLOOM_LAYOUT_DISTINCT,
        ABLOOM_LAYOUT_SPLIT,
        ABLOOM_SPLIT_MAX_K,
        ABLOOM_LAYOUT_HALF,
        ABLOOM_HALF_K,
        ABLOOM_MAX_K,
        ABLOOM_MAX_SHARDS,
        ABLOOM_MAX_THREADS,
        ABLOOM_MAX_BYTES,
        ABLOOM_KIND_BLOCKED,
        ABLOOM_KIND_CLASSIC,
        ABLOOM_STORAGE_OWNED,
        ABLOOM_STORAGE_VIEW,
        ABLOOM_STORAGE_MAPPED,
        ABLOOM_HEADER_BYTES,
        ABLOOM_VERIFY_CHECKSUM,
        ABLOOM_OPEN_COPY_ON_WRITE,
        ABLOOM_OPEN_READ_WRITE,
        ABLOOM_DEFAULT_GROWTH,
        ABLOOM_MAX_GROWTH,
        ABLOOM_DEFAULT_INITIAL_CAPACITY,
        ABLOOM_MAX_STAGES,
    ]
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

fn run_c(header: &Path, program: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abloom-sys-header-check");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("check.c");
    let exe = dir.join("check");
    std::fs::write(&src, program).unwrap();
    let cc = c_compiler();
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(header.parent().unwrap())
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
    assert!(
        out.status.success(),
        "the C check does not compile: the Rust declarations differ from abloom.h:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = c_program(&exe).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn declarations_match_the_header() {
    let header_file = header_path();
    let header = parse_header(&std::fs::read_to_string(&header_file).unwrap());
    let rust_fns = parse_rust_fns();

    // Same set of functions on both sides.
    let rust_names: BTreeSet<String> = rust_fns.iter().map(|f| f.name.clone()).collect();
    assert!(header.functions.len() >= 30, "parsed too few functions");
    let missing: Vec<_> = header.functions.difference(&rust_names).collect();
    let extra: Vec<_> = rust_names.difference(&header.functions).collect();
    assert!(
        missing.is_empty(),
        "declared in abloom.h, missing in Rust: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "declared in Rust, not in abloom.h: {extra:?}"
    );

    // Every header macro/enumerator and struct field has a Rust counterpart.
    let values = rust_values();
    for name in &header.values {
        assert!(
            values.iter().any(|(n, _)| n == name),
            "abloom.h defines {name}, which has no Rust constant"
        );
    }
    let layouts = rust_layouts();
    assert_eq!(header.structs.len(), layouts.len(), "struct count differs");
    for (name, fields) in &header.structs {
        let (_, _, _, rust_fields) = layouts
            .iter()
            .find(|l| l.0 == name)
            .unwrap_or_else(|| panic!("struct {name} has no Rust layout entry"));
        let rust_names: Vec<_> = rust_fields.iter().map(|f| f.0).collect();
        assert_eq!(fields, &rust_names, "fields of {name}");
    }

    // The C program: signatures by _Generic, values and layouts printed. It names the deprecated
    // functions too, without their warnings.
    let mut c = String::from(
        "#define ABLOOM_NO_DEPRECATION_WARNINGS\n#include <stddef.h>\n#include <stdint.h>\n\
         #include <stdio.h>\n#include <abloom.h>\n",
    );
    for f in &rust_fns {
        let params = if f.params.is_empty() {
            "void".to_string()
        } else {
            f.params
                .iter()
                .map(|p| c_type(p))
                .collect::<Vec<_>>()
                .join(", ")
        };
        c += &format!(
            "_Static_assert(_Generic(&{name}, {ret} (*)({params}): 1, default: 0), \
             \"{name}: the Rust signature differs from abloom.h\");\n",
            name = f.name,
            ret = c_type(&f.ret),
        );
    }
    c += "int main(void) {\n";
    for name in &header.values {
        c += &format!("  printf(\"V {name} %lld\\n\", (long long)({name}));\n");
    }
    for name in &header.strings {
        c += &format!("  printf(\"S {name} %s\\n\", {name});\n");
    }
    for (name, fields) in &header.structs {
        c += &format!("  printf(\"T {name} %zu %zu\\n\", sizeof({name}), _Alignof({name}));\n");
        for f in fields {
            c += &format!(
                "  printf(\"F {name}.{f} %zu %zu\\n\", offsetof({name}, {f}), \
                 sizeof((({name} *)0)->{f}));\n"
            );
        }
    }
    c += "  return 0;\n}\n";

    let output = run_c(&header_file, &c);
    let mut checked = 0;
    for line in output.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        match parts[0] {
            "V" => {
                let v: i128 = parts[2].parse().unwrap();
                let rust = values.iter().find(|(n, _)| *n == parts[1]).unwrap().1;
                assert_eq!(rust, v, "value of {}", parts[1]);
            }
            "S" => {
                assert_eq!(parts[1], "ABLOOM_VERSION_STRING");
                assert_eq!(parts[2], ABLOOM_VERSION_STRING);
            }
            "T" => {
                let l = layouts.iter().find(|l| l.0 == parts[1]).unwrap();
                assert_eq!(l.1.to_string(), parts[2], "size of {}", parts[1]);
                assert_eq!(l.2.to_string(), parts[3], "alignment of {}", parts[1]);
            }
            "F" => {
                let (s, f) = parts[1].split_once('.').unwrap();
                let l = layouts.iter().find(|l| l.0 == s).unwrap();
                let field = l.3.iter().find(|x| x.0 == f).unwrap();
                assert_eq!(field.1.to_string(), parts[2], "offset of {}", parts[1]);
                assert_eq!(field.2.to_string(), parts[3], "size of {}", parts[1]);
            }
            other => panic!("unexpected line {other:?}"),
        }
        checked += 1;
    }
    let expected = header.values.len()
        + header.strings.len()
        + header.structs.iter().map(|s| 1 + s.1.len()).sum::<usize>();
    assert_eq!(checked, expected);
}

#[test]
fn runtime_library_matches_the_declared_version() {
    let n = unsafe { abloom_version_number() };
    assert_eq!(
        n / 10000,
        ABLOOM_VERSION_MAJOR,
        "major version of the linked library"
    );
    let s = unsafe { std::ffi::CStr::from_ptr(abloom_version_string()) };
    assert!(!s.to_str().unwrap().is_empty());
    let e = unsafe { std::ffi::CStr::from_ptr(abloom_strerror(ABLOOM_ERR_READONLY)) };
    assert!(!e.to_bytes().is_empty());
}
