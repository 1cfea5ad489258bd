#!/usr/bin/env bash
# Builds and runs a consumer of the `abloom` crate the way a user does: in a temporary directory
# outside the repository, with nothing installed (no libabloom, no pkg-config file) and an
# environment stripped to what a user has (PATH and HOME, and where the Rust toolchain lives:
# CARGO_HOME, RUSTUP_HOME, RUSTUP_TOOLCHAIN when set; and CI's compiler cache settings). Any build or run step that needs another
# environment variable fails here, and bindings/rust/README.md asks a user to set none.
#
#   bash bindings/rust/package_check.sh [--git] [EXCHANGE_DIR]   (from the repository root, or anywhere)
#
# 1. `cargo package --workspace --no-verify`, through package.sh (which copies the engine and the
#    golden vectors into the crates first: nothing of them is committed there), packages
#    abloom-sys and abloom (into the temporary directory); the -sys crate must hold the bundled
#    engine (bundled/core/, bundled/capi/, xxhash.h, LICENSE.xxhash), the abloom crate the
#    golden vectors its tests read (tests/data/vectors/, identical to tests/vectors/), and both
#    crates LICENSE and README.md.
# 2. consumer "path": `abloom = { path = ".../bindings/rust/abloom" }` (the README's path form),
#    `cargo build` (dev profile), then run.
# 3. consumer "crate": `abloom = "0.1"` (the README's crates.io line) with `[patch.crates-io]`
#    pointing abloom and abloom-sys at the unpacked .crate files of step 1, so only what the
#    packages hold is built; `cargo build --release`, then run. This is what `cargo package`'s own
#    verification would build, and more: it runs. Then the crates' own tests, `cargo test
#    --release` in each unpacked crate (abloom's with abloom-sys patched to the unpacked one), so
#    no test may read a file outside its crate.
# 4. with --git: consumer "git": `abloom = { git = "file://REPO", rev = HEAD }` (the README's git
#    form; committed files only), `cargo build`, then run: online (cargo fetches no git
#    dependency offline).
#
# Each consumer creates a filter, adds 10000 keys and tests them (and 10000 absent ones: the
# false positives must be near 1%), then opens tests/vectors/blocked_s1.abloom, a file the C
# library wrote, and checks that all 450 keys of blocked_s1.keys.txt test present and that the
# 2000 keys of blocked_s1.absent.txt give their recorded answers. Then it saves a filter of its
# own, rust.abloom (blocked, 4 shards, 1000 keys), with its keys one per line, rust.keys.txt,
# reopens the file (checksum verified) and checks every key; every consumer must save the same
# bytes. With EXCHANGE_DIR the "crate" consumer's two files (built from the packages) are copied
# there (scripts/test-all.sh, stage packages; stage debian: the C consumer of the Debian packages reads them).
# The consumer binary must not need libabloom.so. Crates come from the local registry cache,
# offline (step 0 fills it from bindings/rust/Cargo.lock). Exits non-zero on the first failure;
# ABLOOM_KEEP=1 keeps the temporary directory.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
GIT=0
EXCHANGE=
usage="usage: bash bindings/rust/package_check.sh [--git] [EXCHANGE_DIR]"
for arg in "$@"; do
  case $arg in
    --git) GIT=1 ;;
    -*)
      echo "$usage" >&2
      exit 2
      ;;
    *)
      [[ -z "$EXCHANGE" ]] || {
        echo "$usage" >&2
        exit 2
      }
      EXCHANGE=$arg
      ;;
  esac
done

die() {
  echo "package_check: $*" >&2
  exit 1
}
step() { echo "== package_check: $* (at ${SECONDS}s)"; }

command -v cargo >/dev/null || die "cargo not found on PATH"
if [[ -n "$EXCHANGE" ]]; then
  [[ -d "$EXCHANGE" ]] || die "EXCHANGE_DIR $EXCHANGE is not a directory"
  EXCHANGE=$(cd "$EXCHANGE" && pwd)
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/abloom-package-check.XXXXXX")
if [[ "${ABLOOM_KEEP:-0}" == 1 ]]; then
  echo "package_check: keeping $WORK"
else
  trap 'rm -rf "$WORK"' EXIT
fi
case "$WORK" in "$ROOT"/*) die "the temporary directory $WORK is inside the repository" ;; esac

# What a user's shell has: the toolchain, nothing of abloom's.
user_env=(env -i "PATH=$PATH" "HOME=$HOME")
for var in CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN; do
  if [[ -n "${!var:-}" ]]; then user_env+=("$var=${!var}"); fi
done
# And CI's compiler cache (ccache in front of the cc crate's compilers: scripts/lib/ci-cache.sh),
# which changes no result, only how long the engine takes to compile.
source "$ROOT/scripts/lib/ci-cache.sh"
mapfile -t -O "${#user_env[@]}" user_env < <(ci_cache_vars)

step "0. fetch the workspace's crates into the registry cache (Cargo.lock)"
(cd "$HERE" && cargo fetch --locked -q)

step "1. cargo package --workspace --no-verify (package.sh: the engine and the vectors copied in)"
bash "$HERE/package.sh" package --workspace --locked --no-verify --allow-dirty -q \
  --target-dir "$WORK/package-target"
mkdir -p "$WORK/crates"
for crate in abloom-sys abloom; do
  file="$WORK/package-target/package/$crate-0.1.0.crate"
  [[ -f "$file" ]] || die "$file was not produced"
  tar -xzf "$file" -C "$WORK/crates"
  for f in Cargo.toml LICENSE README.md src/lib.rs build.rs; do
    [[ -s "$WORK/crates/$crate-0.1.0/$f" ]] || die "$crate-0.1.0.crate lacks $f"
  done
  echo "   $crate-0.1.0.crate: $(tar -tzf "$file" | wc -l) files, $(wc -c <"$file") bytes"
done
sys="$WORK/crates/abloom-sys-0.1.0"
for f in capi/abloom.h capi/abloom_layout.h capi/abloom_capi.cpp xxhash.h LICENSE.xxhash; do
  [[ -s "$sys/bundled/$f" ]] || die "abloom-sys-0.1.0.crate lacks bundled/$f"
done
while IFS= read -r f; do
  [[ -s "$sys/bundled/$f" ]] || die "abloom-sys-0.1.0.crate lacks bundled/$f"
done < <(cd "$ROOT" && find core \( -name '*.cpp' -o -name '*.hpp' \))
grep -q '^license = "MIT AND BSD-2-Clause"' "$sys/Cargo.toml" || die "abloom-sys: not licensed MIT AND BSD-2-Clause (the engine, xxHash) in Cargo.toml"
grep -q '^links = "abloom"' "$sys/Cargo.toml" || die "abloom-sys: no links in Cargo.toml"
# The golden vectors the abloom crate's tests read (tests/vectors.rs), byte for byte.
n=0
for f in "$ROOT"/tests/vectors/*.abloom "$ROOT"/tests/vectors/*.keys.txt "$ROOT"/tests/vectors/*.absent.txt; do
  cmp -s "$f" "$WORK/crates/abloom-0.1.0/tests/data/vectors/$(basename "$f")" ||
    die "abloom-0.1.0.crate lacks tests/data/vectors/$(basename "$f"), or it differs from tests/vectors/ (bindings/rust/package.sh copies them)"
  n=$((n + 1))
done
echo "   abloom-0.1.0.crate holds the $n golden vector files of tests/vectors/ in tests/data/vectors/"

# The consumer's data: a file written by the C library, and its keys.
mkdir -p "$WORK/data"
cp "$ROOT"/tests/vectors/blocked_s1.{abloom,keys.txt,absent.txt} "$WORK/data/"

# One program, three ways to depend on abloom.
write_consumer() { # DIR DEPENDENCY-LINES
  local dir=$1
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<EOF
[package]
name = "abloom-consumer"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
$2
EOF
  cat >"$dir/src/main.rs" <<'EOF'
//! A user's program: a new filter, then a file written by the C library.
use abloom::BloomFilter;
use std::error::Error;
use std::process::ExitCode;

fn run(vector: &str, keys: &str, absent: &str, out: &str) -> Result<(), Box<dyn Error>> {
    println!(
        "   consumer: abloom {} (C library {}), kernel {}",
        env!("CARGO_PKG_VERSION"),
        abloom::version(),
        abloom::isa::active().name()
    );
    let n = 10_000u32;
    let filter = BloomFilter::new(u64::from(n), 0.01)?;
    for i in 0..n {
        filter.insert(&format!("user:{i}"))?;
    }
    let missing = (0..n).filter(|i| !filter.contains(&format!("user:{i}"))).count();
    let fp = (0..n).filter(|i| filter.contains(&format!("absent:{i}"))).count();
    println!("   consumer: new filter, {n} keys added: {missing} missing, {fp} of {n} absent keys test present");
    if missing != 0 {
        return Err(format!("{missing} added keys test absent").into());
    }
    if fp > 300 {
        return Err(format!("{fp} false positives of {n} at a 1% target").into());
    }

    let file = BloomFilter::open(vector)?;
    let keys = std::fs::read_to_string(keys)?;
    let keys: Vec<&str> = keys.lines().collect();
    let missing_keys: Vec<&&str> = keys.iter().filter(|k| !file.contains(k)).collect();
    let mut wrong = 0;
    let mut positives = 0;
    let absent = std::fs::read_to_string(absent)?;
    for line in absent.lines() {
        let (answer, key) = line.split_once(' ').ok_or("bad absent line")?;
        let got = file.contains(key);
        positives += usize::from(got);
        wrong += usize::from(got != (answer == "1"));
    }
    println!(
        "   consumer: {vector} ({:?}, k={}): {} of {} keys present, {wrong} absent-key answers differ from C's ({positives} of {} test present)",
        file.kind(),
        file.info().k,
        keys.len() - missing_keys.len(),
        keys.len(),
        absent.lines().count()
    );
    if keys.len() != 450 || !missing_keys.is_empty() {
        return Err(format!("keys missing from the C file: {missing_keys:?}").into());
    }
    if wrong != 0 {
        return Err(format!("{wrong} absent keys answer differently than in C").into());
    }

    // A filter of its own, for other languages to read: OUT/rust.abloom and its keys.
    let out = std::path::Path::new(out);
    let mine = BloomFilter::builder(2_000)
        .fpr(0.01)
        .shards(4)
        .seed(0x5255_5354)
        .build()?;
    let mut key_lines = String::new();
    for i in 0..1_000 {
        let key = format!("rust-key-{i}");
        mine.insert(&key)?;
        key_lines.push_str(&key);
        key_lines.push('\n');
    }
    mine.save(out.join("rust.abloom"))?;
    drop(mine);
    std::fs::write(out.join("rust.keys.txt"), key_lines)?;
    let back = abloom::OpenOptions::new()
        .verify_checksum(true)
        .open(out.join("rust.abloom"))?;
    if back.kind() != abloom::Kind::Blocked || back.shards() != 4 || back.capacity() != 2_000 {
        return Err(format!("rust.abloom: unexpected filter {:?}", back.info()).into());
    }
    let lost = (0..1_000)
        .filter(|i| !back.contains(&format!("rust-key-{i}")))
        .count();
    if lost != 0 {
        return Err(format!("{lost} keys missing from the saved rust.abloom").into());
    }
    println!("   consumer: saved rust.abloom (blocked, 4 shards, 1000 keys) and rust.keys.txt, reopened: 1000 keys present");
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, vector, keys, absent, out] = &args[..] else {
        eprintln!("usage: abloom-consumer FILE.abloom KEYS.txt ABSENT.txt OUTDIR");
        return ExitCode::from(2);
    };
    match run(vector, keys, absent, out) {
        Ok(()) => {
            println!("   consumer: ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("   consumer: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}
EOF
}

run_consumer() { # NAME [cargo args...]   (crates offline, from the local cache, unless ONLINE=1)
  local name=$1 dir="$WORK/$1" exe
  shift
  local t0=$SECONDS
  [[ "${ONLINE:-0}" == 1 ]] || set -- --offline "$@"
  (cd "$dir" && "${user_env[@]}" cargo build -q "$@") ||
    die "consumer '$name': the build failed (with no environment beyond PATH and HOME)"
  echo "   built in $((SECONDS - t0)) s (cargo build${*:+ $*}, from scratch: the engine compiled by abloom-sys)"
  exe=$(cd "$dir" && "${user_env[@]}" cargo build -q "$@" --message-format=json |
    grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | tail -1)
  [[ -x "$exe" ]] || die "consumer '$name': no executable"
  if command -v ldd >/dev/null && ldd "$exe" | grep libabloom >/dev/null; then
    die "consumer '$name': $exe needs libabloom.so: $(ldd "$exe" | grep libabloom)"
  fi
  mkdir -p "$WORK/out-$name"
  (cd "$WORK/data" && "${user_env[@]}" "$exe" blocked_s1.abloom blocked_s1.keys.txt blocked_s1.absent.txt "$WORK/out-$name") ||
    die "consumer '$name' failed"
  if [[ "$name" != path ]]; then # every consumer saves the same bytes as the first
    for f in rust.abloom rust.keys.txt; do
      cmp -s "$WORK/out-path/$f" "$WORK/out-$name/$f" || die "consumers 'path' and '$name' saved different $f"
    done
    echo "   the same rust.abloom and rust.keys.txt as consumer 'path'"
  fi
}

step "2. consumer 'path': abloom = { path = \"$HERE/abloom\" }; cargo build, run"
write_consumer "$WORK/path" "abloom = { path = \"$HERE/abloom\" }"
run_consumer path

step "3. consumer 'crate': abloom = \"0.1\", patched to the unpacked .crate files; cargo build --release, run"
write_consumer "$WORK/crate" "abloom = \"0.1\"

[patch.crates-io]
abloom = { path = \"$WORK/crates/abloom-0.1.0\" }
abloom-sys = { path = \"$WORK/crates/abloom-sys-0.1.0\" }"
run_consumer crate --release
# Both crates must come from the packages, not from the repository or a registry.
tree=$(cd "$WORK/crate" && "${user_env[@]}" cargo tree --offline -e normal,build --prefix none)
grep -q "^abloom v0.1.0 ($WORK/crates/abloom-0.1.0)" <<<"$tree" || die "consumer 'crate' did not use the packaged abloom:
$tree"
grep -q "^abloom-sys v0.1.0 ($WORK/crates/abloom-sys-0.1.0)" <<<"$tree" || die "consumer 'crate' did not use the packaged abloom-sys:
$tree"

# The crates' own tests, from the unpacked packages alone: no test may read a file outside its
# crate (the golden vectors are the abloom crate's tests/data/vectors, and the engine abloom-sys's
# bundled/: the packages are not in a checkout, so build.rs and tests/vectors.rs use the copies).
# Release, in the 'crate'
# consumer's target directory, so the engine it compiled is reused; offline, from the registry
# cache; abloom's abloom-sys is the unpacked one (patched, as a user testing both would).
for crate in abloom-sys abloom; do
  step "3b. cargo test --release in the unpacked $crate-0.1.0.crate"
  t0=$SECONDS
  patch=()
  [[ $crate == abloom ]] && patch=(--config "patch.crates-io.abloom-sys.path=\"$WORK/crates/abloom-sys-0.1.0\"")
  log="$WORK/test-$crate.log"
  if ! (cd "$WORK/crates/$crate-0.1.0" && "${user_env[@]}" cargo test -q --offline --release \
    "${patch[@]}" --target-dir "$WORK/crate/target" >"$log" 2>&1); then
    tail -60 "$log" >&2
    die "$crate-0.1.0.crate: its own tests fail when run from the package"
  fi
  tests=$(awk '/^test result: ok/ {n += $4} END {print n + 0}' "$log")
  echo "   $tests tests passed in $((SECONDS - t0)) s"
done

if [[ -n "$EXCHANGE" ]]; then
  cp "$WORK/out-crate/rust.abloom" "$WORK/out-crate/rust.keys.txt" "$EXCHANGE/"
  step "rust.abloom and rust.keys.txt (from consumer 'crate') copied into $EXCHANGE"
fi

if [[ $GIT == 1 ]]; then
  rev=$(git -C "$ROOT" rev-parse HEAD)
  step "4. consumer 'git': abloom = { git = \"file://$ROOT\", rev = \"$rev\" } (committed files only); cargo build, run"
  write_consumer "$WORK/git" "abloom = { git = \"file://$ROOT\", rev = \"$rev\" }"
  # cargo fetches git dependencies only online (and then updates the crates.io index too).
  ONLINE=1 run_consumer git
fi

echo "package_check: all passed in ${SECONDS}s"
