#!/usr/bin/env bash
# Checks the Python release files that scripts/release/python.sh wrote into OUT:
#
#   scripts/release/check-python.sh OUT
#
# 1. OUT holds the sdist and exactly six wheels: cp311-cp311 and cp312-abi3, each for x86_64,
#    aarch64 and win_amd64;
# 2. per wheel: `auditwheel show` says manylinux_2_17_ARCH (= manylinux2014); `auditwheel repair`
#    has nothing to add (the repaired wheel has the same files, byte for byte); every ELF in it
#    asks for GLIBC_2.17 at most (objdump -T), needs glibc's libraries alone (no C++ runtime), and
#    exports PyInit_* alone; an abi3 wheel's extension is an .abi3.so;
# 3. x86_64: each wheel installed into a fresh venv by a PATH with no compiler and no cmake (the
#    venv's bin and a folder with a link to bash only; `cc`, `c++`, `gcc`, `g++`, `clang`,
#    `cmake`, `ninja` and `zig` are asserted absent), by the README's line, `pip install
#    --no-index --find-links OUT pyabloom`, with --only-binary :all: (so pip could not have built
#    anything; the extension installed must be that wheel's), then bindings/python/tests (pytest, numpy at the test extra's pins)
#    from there: the cp311 wheel with $PYTHON, the abi3 wheel with every CPython >= 3.12 that
#    pyenv has (PYTHONS_ABI3 to choose; 3.12, its oldest, must be among them). The C file reader
#    the tests use is built beforehand, with the normal PATH;
# 4. aarch64: pip (of the build machine) installs each wheel for aarch64 into a folder
#    (--platform manylinux2014_aarch64: pip's own check of the tags), and Debian's arm64 CPython
#    runs a smoke test under qemu-aarch64 (create, add, contains, save, open, the NEON kernel):
#    Debian 12's 3.11 for the cp311 wheel, Debian 13's 3.13 for the abi3 one (python3.X-minimal
#    and its libraries, fetched by scripts/lib/debian-fetch.sh and unpacked into a sysroot each).
#
# 5. win_amd64: each wheel's WHEEL (Root-Is-Purelib false, its one tag) and RECORD (every file,
#    its SHA-256 and size); its extension (_abloom.cp311-win_amd64.pyd, or _abloom.pyd for abi3)
#    exports PyInit__abloom (and nanobind's two exception vtables, which nanobind marks
#    dllexport on Windows) and imports python311.dll (cp311) or python3.dll alone (abi3), besides
#    KERNEL32.dll and the UCRT's api-ms-win-crt-* (no C++ runtime, no MinGW DLL, and no
#    python3XY.dll in the abi3 one: llvm-readobj). Then, under wine (Debian's wine 8), CPython for
#    Windows itself (MSVC-built, from Maven Central: scripts/lib/windows-cpython.sh) runs
#    bindings/python/tests with the wheel installed by pip for win_amd64 (--platform win_amd64
#    --no-index --find-links OUT: pip's own choice of the wheel by its tags): the cp311 wheel on
#    3.11, the abi3 wheel on 3.12 and 3.13 (with a python3.dll made from python3.lib's names,
#    which the jars lack). The C file reader is file_reader.exe, cross-built by zig against the
#    Windows engine, and the abloom command is the same tree's abloom.exe; every test must pass,
#    none skipped. numpy is 2.1.3 there, not the test
#    extra's pin: numpy >= 2.2's Windows wheels call ucrtbase's crealf at import, which wine 8
#    lacks; and a sitecustomize.py hides CPython's _wmi module, which wine 8 aborts on.
#
# Needs: PYTHON (default python3.11); pyenv's CPython 3.12 (and any later); qemu-aarch64
# (qemu-user); objdump and aarch64-linux-gnu-objdump (binutils, binutils-aarch64-linux-gnu);
# apt-get and dpkg-deb; cmake, ninja and cc for the C file reader; wine, llvm-readobj, llvm-nm
# and mvn for win_amd64 (zig as scripts/lib/zig.sh installs it). Env: ABLOOM_BUILD_ROOT
# (default build): $ABLOOM_BUILD_ROOT/python-release-check keeps the tools venv, the apt state,
# the arm64 sysroots, Windows' CPythons and the C readers between runs; ABLOOM_ZIG_VENV as in
# scripts/platform-builds.sh.
set -euo pipefail

die() {
  echo "release/check-python.sh: FAIL: $*" >&2
  exit 1
}
[[ $# -eq 1 ]] || die "usage: scripts/release/check-python.sh OUT"
[[ -d "$1" ]] || die "$1 is not a directory"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$(cd "$1" && pwd)
cd "$ROOT"
BUILD_ROOT=${ABLOOM_BUILD_ROOT:-build}
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
WORK=$BUILD_ROOT/python-release-check
PYTHON=${PYTHON:-python3.11}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
if [[ -z ${PYTHONS_ABI3:-} ]]; then
  PYTHONS_ABI3=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -V | tr '\n' ' ')
fi
read -r -a ABI3_PYTHONS <<<"$PYTHONS_ABI3"
[[ ${#ABI3_PYTHONS[@]} -ge 1 ]] || die "no CPython >= 3.12 to test the abi3 wheel with (pyenv has none; set PYTHONS_ABI3)"
abi3_versions=$(for py in "${ABI3_PYTHONS[@]}"; do "$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; done)
grep -qx '3.12' <<<"$abi3_versions" || die "no CPython 3.12 among $PYTHONS_ABI3: the abi3 wheel's oldest version must be tested"
for tool in "$PYTHON" qemu-aarch64 objdump aarch64-linux-gnu-objdump readelf apt-get dpkg-deb unzip \
  wine wineserver llvm-readobj llvm-nm mvn; do
  command -v "$tool" >/dev/null || die "'$tool' not found on PATH (see the header of this script)"
done
mkdir -p "$WORK"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abloom-check-python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source "$ROOT/scripts/lib/python-release.sh"
ensure_python_tools "$WORK/tools-venv" "$PYTHON"
TOOLS=$WORK/tools-venv/bin

# ---- 1. what OUT holds -------------------------------------------------------------------------
sdists=("$OUT"/pyabloom-*.tar.gz)
[[ ${#sdists[@]} -eq 1 && -f ${sdists[0]} ]] || die "no single pyabloom-*.tar.gz in $OUT"
tar -tzf "${sdists[0]}" | grep '/engine/capi/abloom_capi.cpp$' >/dev/null || die "the sdist carries no engine"
declare -A WHEEL=()
for flavour in cp311-cp311 cp312-abi3; do
  for arch in x86_64 aarch64; do
    w=("$OUT"/pyabloom-*-"$flavour"-*manylinux2014_"$arch"*.whl)
    [[ ${#w[@]} -eq 1 && -f ${w[0]} ]] || die "no single $flavour manylinux2014_$arch wheel in $OUT"
    WHEEL[$flavour-$arch]=${w[0]}
  done
done
for flavour in cp311-cp311 cp312-abi3; do
  w=("$OUT"/pyabloom-*-"$flavour"-win_amd64.whl)
  [[ ${#w[@]} -eq 1 && -f ${w[0]} ]] || die "no single $flavour win_amd64 wheel in $OUT"
  WHEEL[$flavour-win_amd64]=${w[0]}
done
n=$(find "$OUT" -maxdepth 1 -name 'pyabloom-*.whl' | wc -l)
[[ $n -eq 6 ]] || die "$OUT holds $n pyabloom wheels; expected six (cp311-cp311 and cp312-abi3, x86_64, aarch64 and win_amd64)"
echo "== files: $(basename "${sdists[0]}"), $(for w in "${WHEEL[@]}"; do basename "$w"; done | sort | tr '\n' ' ')"

# ---- 2. per wheel: auditwheel, glibc versions, exports -----------------------------------------
check_wheel() { # ARCH WHEEL
  local arch=$1 whl=$2 id show objdump=objdump dir elf versions newest exports needed
  id=$(basename "$whl" .whl)
  dir=$tmp/unpacked-$id
  [[ $arch == aarch64 ]] && objdump=aarch64-linux-gnu-objdump
  # auditwheel wraps its report: one line of it, whitespace squeezed, is what is matched.
  show=$(PATH="$TOOLS:$PATH" "$TOOLS/auditwheel" show "$whl" 2>&1 | tr -s ' \n' '  ')
  [[ $show == *"consistent with the following platform tag: \"manylinux_2_17_$arch\""* ]] ||
    die "auditwheel show $(basename "$whl"): not manylinux_2_17_$arch (manylinux2014): $show"
  # Repair must find nothing to graft and no tag to change: the same files, byte for byte.
  PATH="$TOOLS:$PATH" "$TOOLS/auditwheel" repair --plat auto -w "$tmp/repaired-$id" "$whl" \
    >"$tmp/repair-$id.log" 2>&1 || { cat "$tmp/repair-$id.log" && die "auditwheel repair failed"; }
  [[ -f "$tmp/repaired-$id/$(basename "$whl")" ]] ||
    die "auditwheel repair renamed $(basename "$whl") to $(ls "$tmp/repaired-$id")"
  mkdir -p "$dir" "$tmp/repaired-$id/x"
  unzip -q "$whl" -d "$dir"
  unzip -q "$tmp/repaired-$id/$(basename "$whl")" -d "$tmp/repaired-$id/x"
  diff -r "$dir" "$tmp/repaired-$id/x" >&2 || die "auditwheel repair changed $(basename "$whl") (above)"
  local count=0
  while IFS= read -r -d '' elf; do
    [[ "$(head -c 4 "$elf" | od -An -c | tr -d ' ')" == '177ELF' ]] || continue
    count=$((count + 1))
    local rel=${elf#"$dir"/}
    "$objdump" -T "$elf" >"$tmp/dynsym" || die "$objdump -T $rel failed"
    versions=$(grep -o 'GLIBC_[0-9][0-9.]*' "$tmp/dynsym" | sort -uV)
    [[ -n "$versions" ]] || die "$rel: no GLIBC symbol version at all (not linked against glibc?)"
    newest=$(tail -n1 <<<"$versions")
    awk -F'[_.]' '{ if ($2 > 2 || ($2 == 2 && $3 > 17)) bad = 1 } END { exit bad }' <<<"$versions" ||
      die "$rel needs symbol versions above GLIBC_2.17: $(tr '\n' ' ' <<<"$versions")"
    # Defined dynamic symbols (objdump -T: the section column is *UND* for imports); the
    # version-definition entries of a version script carry no name and are skipped.
    exports=$(awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ && $NF != "" { print $NF }' "$tmp/dynsym" |
      grep -v '^Base$' | sort -u)
    [[ -n "$exports" ]] || die "$rel exports nothing (no PyInit_*)"
    grep -qv '^PyInit_' <<<"$exports" && die "$rel exports more than PyInit_*: $(grep -v '^PyInit_' <<<"$exports" | head -20 | tr '\n' ' ')"
    needed=$(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    # glibc's own libraries only: zig's libc++ and its runtime are linked in statically.
    local lib
    for lib in $needed; do
      [[ $lib =~ ^(libc|libm|libpthread|libdl|librt)\.so\.[0-9]+$|^ld-linux ]] ||
        die "$rel needs $lib, a library outside glibc (NEEDED: $needed)"
    done
    echo "   $rel: newest GLIBC_${newest#GLIBC_}, exports $(tr '\n' ' ' <<<"$exports")| NEEDED $needed"
  done < <(find "$dir" -type f -print0)
  [[ $count -ge 1 ]] || die "$(basename "$whl") holds no ELF file"
  if [[ $whl == *-abi3-* ]]; then
    [[ -f "$dir/pyabloom/_abloom.abi3.so" ]] || die "$(basename "$whl") holds no pyabloom/_abloom.abi3.so"
  fi
  echo "== $arch: auditwheel manylinux_2_17_$arch (manylinux2014), repair adds nothing, $count ELF file(s) checked"
}
for key in cp311-cp311-x86_64 cp311-cp311-aarch64 cp312-abi3-x86_64 cp312-abi3-aarch64; do
  check_wheel "${key##*-}" "${WHEEL[$key]}"
done

# ---- 3. x86_64: install with no compiler on PATH, then the test suite ---------------------------
echo "== x86_64: the C file reader for the tests (normal PATH)"
reader=$(ABLOOM_JOBS=${ABLOOM_JOBS:-2} bash bindings/python/tests/build_c_reader.sh "$WORK/c-reader" | tail -n1)
[[ -x "$reader" ]] || die "build_c_reader.sh made no file reader"
mapfile -t TEST_REQUIRES < <("$PYTHON" -c '
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["test"]))' \
  bindings/python/pyproject.toml)
mkdir -p "$tmp/bin"
ln -s "$(command -v bash)" "$tmp/bin/bash"
# WHEEL into a fresh venv of PYTHON (a venv's python is a link to the interpreter, which needs
# nothing from PATH) by a PATH with no build tool, then the suite from there.
suite_without_compiler() { # PYTHON WHEEL
  local py=$1 whl=$2 venv nocc_path
  venv=$tmp/venv-$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  "$py" -m venv "$venv"
  nocc_path="$venv/bin:$tmp/bin"
  run_nocc() { env -i PATH="$nocc_path" HOME="$HOME" PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"; }
  # shellcheck disable=SC2016 # (the inner bash expands $t)
  run_nocc bash -c 'for t in cc c++ gcc g++ clang clang++ cmake ninja make zig ld; do
    if command -v "$t"; then echo "$t is on the restricted PATH" >&2; exit 1; fi; done' ||
    die "the restricted PATH ($nocc_path) reaches a build tool"
  # The README's line (pip picks the wheel from OUT), then the test tools from PyPI.
  echo "== x86_64, $("$py" --version): pip install --no-index --find-links OUT pyabloom, then ${TEST_REQUIRES[*]} (PATH=$nocc_path: no cc, c++, gcc, cmake)"
  run_nocc "$venv/bin/python" -m pip install -q --no-index --only-binary :all: --find-links "$OUT" pyabloom ||
    die "pip install --no-index --find-links OUT pyabloom failed without a compiler in $("$py" --version)"
  run_nocc "$venv/bin/python" -m pip install -q --only-binary :all: "${TEST_REQUIRES[@]}" ||
    die "the test tools did not install into $("$py" --version)"
  # pip must have picked WHEEL: its RECORD names the same extension file.
  local want got
  want=$(unzip -Z1 "$whl" | grep '^pyabloom/_abloom.*\.so$')
  got=$("$venv/bin/python" -c 'import pyabloom._abloom as m, os; print("pyabloom/" + os.path.basename(m.__file__))')
  [[ "$got" == "$want" ]] || die "pip installed $got into $("$py" --version), not $(basename "$whl")'s $want"
  (
    cd "$tmp"
    run_nocc "$venv/bin/python" -c '
import sys
import pyabloom as abloom
assert abloom.__file__.startswith(sys.prefix), abloom.__file__
print("   imported", abloom._abloom.__file__, "isa", abloom.isa(), "engine", abloom.library_version)'
    run_nocc ABLOOM_C_FILE_READER="$reader" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
      "$ROOT/bindings/python/tests"
  ) || die "pytest failed against $(basename "$whl") installed into $("$py" --version)"
}
suite_without_compiler "$PYTHON" "${WHEEL[cp311-cp311-x86_64]}"
for py in "${ABI3_PYTHONS[@]}"; do suite_without_compiler "$py" "${WHEEL[cp312-abi3-x86_64]}"; done

# ---- 4. aarch64: Debian's arm64 CPython under qemu-aarch64 --------------------------------------
source "$ROOT/scripts/lib/debian-fetch.sh"
cat >"$tmp/smoke.py" <<'PY'
import os
import platform
import sys
import tempfile

import pyabloom as abloom

assert platform.machine() == "aarch64", platform.machine()
assert abloom.__file__.startswith(sys.argv[1]), abloom.__file__
assert abloom.isa() == "neon", abloom.isa()
f = abloom.BloomFilter(10_000, 0.01)
f.update(f"user:{i}" for i in range(10_000))
assert all(f"user:{i}" in f for i in range(10_000))
fp = sum(f"other:{i}" in f for i in range(10_000))
assert 30 <= fp <= 200, fp
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "arm.abloom")
    f.save(path)
    with abloom.BloomFilter.open(path, verify=True) as g:
        assert g == f and all(f"user:{i}" in g for i in range(10_000))
        assert g.info.storage == "mapped", g.info
print(f"   aarch64 smoke: {platform.machine()} {sys.version.split()[0]}, "
      f"{os.path.basename(abloom._abloom.__file__)}, isa {abloom.isa()}, "
      f"10000 keys, {fp} false positives in 10000, saved and reopened (mmap, checksum verified)")
PY
# The interpreter (python3.X-minimal), the pure-Python standard library (libpython3.X-minimal and
# -stdlib) and the C libraries they and the smoke test load; every package arm64, from SUITE.
smoke_arm64() { # SUITE PYVER WHEEL PACKAGE...
  local suite=$1 ver=$2 whl=$3 sysroot site
  shift 3
  local debs=("python$ver-minimal" "libpython$ver-minimal" "libpython$ver-stdlib" "$@")
  sysroot=$WORK/arm64-sysroot-$suite
  if [[ "$(cat "$sysroot/.debs" 2>/dev/null)" != "${debs[*]}" ]]; then
    echo "== aarch64: the arm64 sysroot of Debian $suite (${debs[*]})"
    rm -rf "$sysroot" "$WORK/arm64-debs-$suite"
    debian_fetch "$BUILD_ROOT/debian-apt" "$suite" "$WORK/arm64-debs-$suite" "${debs[@]/%/:arm64}" ||
      die "could not fetch the arm64 packages of $suite"
    debian_extract "$WORK/arm64-debs-$suite" "$sysroot"
    echo "${debs[*]}" >"$sysroot/.debs"
  fi
  [[ -x "$sysroot/usr/bin/python$ver" ]] || die "no usr/bin/python$ver in $sysroot"
  site=$tmp/aarch64-site-$ver
  "$TOOLS/pip" install -q --no-deps --only-binary :all: --platform manylinux2014_aarch64 \
    --implementation cp --python-version "$ver" --abi "cp${ver/./}" --target "$site" "$whl" ||
    die "pip refused to install $(basename "$whl") for aarch64/cp${ver/./}"
  env -i PATH=/usr/bin:/bin PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 \
    qemu-aarch64 -L "$sysroot" "$sysroot/usr/bin/python$ver" "$tmp/smoke.py" "$site" ||
    die "the aarch64 smoke test of $(basename "$whl") failed under qemu-aarch64 (CPython $ver)"
}
smoke_arm64 bookworm 3.11 "${WHEEL[cp311-cp311-aarch64]}" libc6 libgcc-s1 libexpat1 zlib1g libssl3 \
  libffi8 libbz2-1.0 liblzma5 libcrypt1 libuuid1
smoke_arm64 trixie 3.13 "${WHEEL[cp312-abi3-aarch64]}" libc6 libgcc-s1 libexpat1 zlib1g libssl3t64 \
  libffi8 libbz2-1.0 liblzma5 libcrypt1 libuuid1 libzstd1
# ---- 5. win_amd64: WHEEL and RECORD, the .pyd's exports and imports, the tests under wine -------
source "$ROOT/scripts/lib/windows-cpython.sh"
source "$ROOT/scripts/lib/zig.sh"
source "$ROOT/scripts/lib/zig-engine.sh"
ensure_zig "${ABLOOM_ZIG_VENV:-$BUILD_ROOT/zig-venv}"
check_windows_wheel() { # TAG PYD IMPORT WHEEL
  local tag=$1 pyd=$2 pydll=$3 whl=$4 dir exports imports bad
  dir=$tmp/unpacked-$(basename "$whl" .whl)
  mkdir -p "$dir"
  unzip -q "$whl" -d "$dir"
  # WHEEL and RECORD, as the wheel spec (PEP 427) has them: every file but RECORD listed with its
  # urlsafe-base64 SHA-256 and its size, and nothing listed that is not there.
  "$PYTHON" - "$whl" "$tag" <<'PY' || die "$(basename "$whl"): WHEEL or RECORD is wrong (above)"
import base64, csv, hashlib, io, sys, zipfile
whl, tag = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(whl)
names = set(z.namelist())
info = [n for n in names if n.endswith(".dist-info/WHEEL")]
assert len(info) == 1, info
wheel = z.read(info[0]).decode().splitlines()
assert "Root-Is-Purelib: false" in wheel, wheel
assert [l for l in wheel if l.startswith("Tag:")] == [f"Tag: {tag}"], wheel
record_name = info[0][: -len("WHEEL")] + "RECORD"
rows = list(csv.reader(io.StringIO(z.read(record_name).decode())))
listed = {r[0] for r in rows}
assert listed == names, (sorted(listed ^ names))
for path, digest, size in rows:
    if path == record_name:
        assert digest == size == "", (path, digest, size)
        continue
    data = z.read(path)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert digest == want and int(size) == len(data), (path, digest, size)
print(f"   {whl.rsplit('/', 1)[-1]}: WHEEL Root-Is-Purelib false, Tag {tag}; RECORD: {len(rows) - 1} files, hashes and sizes match")
PY
  [[ "$(cd "$dir" && ls pyabloom/_abloom*.pyd pyabloom/_abloom*.so pyabloom/_abloom*.dll 2>/dev/null)" == "pyabloom/$pyd" ]] ||
    die "$(basename "$whl"): the extension is not pyabloom/$pyd alone"
  exports=$(llvm-readobj --coff-exports "$dir/pyabloom/$pyd" | sed -n 's/^ *Name: \(.*\)$/\1/p' | sort -u)
  grep -qx PyInit__abloom <<<"$exports" || die "pyabloom/$pyd does not export PyInit__abloom"
  bad=$(grep -vxE 'PyInit__abloom|_ZTVN8nanobind4abi1(12python_error|17builtin_exception)E' <<<"$exports" || true)
  [[ -z "$bad" ]] || die "pyabloom/$pyd exports more than PyInit__abloom and nanobind's exception vtables: $bad"
  imports=$(llvm-readobj --coff-imports "$dir/pyabloom/$pyd" | sed -n 's/^ *Name: \(.*\.dll\)$/\1/Ip' | sort -u)
  grep -qx "$pydll" <<<"$imports" || die "pyabloom/$pyd does not import $pydll"
  bad=$(grep -vxiE "$pydll|kernel32\.dll|api-ms-win-crt-[a-z]+-l1-1-0\.dll" <<<"$imports" || true)
  [[ -z "$bad" ]] || die "pyabloom/$pyd imports DLLs other than $pydll, KERNEL32 and the UCRT: $bad"
  echo "   pyabloom/$pyd: exports $(tr '\n' ' ' <<<"$exports")| imports $(tr '\n' ' ' <<<"$imports")"
}
echo "== win_amd64: WHEEL, RECORD, the extension's exports and imports"
check_windows_wheel cp311-cp311-win_amd64 _abloom.cp311-win_amd64.pyd python311.dll "${WHEEL[cp311-cp311-win_amd64]}"
check_windows_wheel cp312-abi3-win_amd64 _abloom.pyd python3.dll "${WHEEL[cp312-abi3-win_amd64]}"

# The C file reader for Windows: tests/install/deb/file_reader.c linked against the Windows
# engine's static library (the tree scripts/platform-builds.sh builds, scripts/lib/zig-engine.sh).
engine=$(zig_engine "$BUILD_ROOT" x86_64-windows-gnu) || die "the x86_64-windows-gnu engine did not build"
mkdir -p "$WORK/c-reader-windows"
"$engine/zig-bin/zig-cc" -std=c99 -O2 -Wall -Wextra -Werror -DABLOOM_STATIC_DEFINE -Icapi \
  tests/install/deb/file_reader.c "$engine/capi/libabloom.a" -lc++ -o "$WORK/c-reader-windows/file_reader.exe" ||
  die "file_reader.exe did not build"
# The abloom command for Windows, from the same tree, where conftest.py looks for it (cli/ beside
# the reader), with the DLL it links.
mkdir -p "$WORK/c-reader-windows/cli"
cp "$engine/bin/abloom.exe" "$engine/bin/abloom.dll" "$WORK/c-reader-windows/cli/" ||
  die "no abloom.exe and abloom.dll in $engine/bin"
# wine as scripts/platform-builds.sh runs it: quiet, in the build root's prefix. Windows' CPython
# gets a pipe for its output (with a regular file for stdout wine 8 gives it an invalid handle).
export WINEPREFIX="$BUILD_ROOT/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [[ ! -f "$WINEPREFIX/system.reg" ]]; then
  mkdir -p "$WINEPREFIX"
  { wineboot --init && wineserver -w; } >"$WINEPREFIX.log" 2>&1 || { cat "$WINEPREFIX.log" && die "wineboot failed"; }
fi
wineserver -p30 >/dev/null 2>&1 || true # a server that outlives each program (platform-builds.sh, use_wine)
winpath() { local p; p=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); echo "Z:${p//\//\\}"; }
# The test extra's pins, numpy's replaced (see the header), and colorama, which pytest needs on
# Windows (pip here evaluates pytest's sys_platform marker for Linux).
WINE_TEST_REQUIRES=()
for r in "${TEST_REQUIRES[@]}"; do
  if [[ $r == numpy==* ]]; then WINE_TEST_REQUIRES+=(numpy==2.1.3); else WINE_TEST_REQUIRES+=("$r"); fi
done
WINE_TEST_REQUIRES+=(colorama==0.4.6)
suite_under_wine() { # PYVER ABI WHEEL
  local ver=$1 abi=$2 whl=$3 cpython site tools out skipped
  cpython=$(windows_cpython "$WORK/windows-cpython" "$ver") || die "no CPython $ver for Windows"
  windows_python3_dll "$cpython" "$ZIG" || die "could not make python3.dll for CPython $ver"
  site=$tmp/win-site-$ver
  echo "== win_amd64, CPython $ver for Windows under wine: pip install --platform win_amd64 --no-index --find-links OUT pyabloom, then ${WINE_TEST_REQUIRES[*]}"
  "$TOOLS/pip" install -q --no-deps --only-binary :all: --platform win_amd64 --implementation cp \
    --python-version "$ver" --abi "$abi" --target "$site" --no-index --find-links "$OUT" pyabloom ||
    die "pip found no pyabloom wheel for win_amd64, CPython $ver ($abi) in OUT"
  [[ -f "$site/pyabloom/$(unzip -Z1 "$whl" | grep -E '^pyabloom/_abloom.*\.pyd$' | cut -d/ -f2)" ]] ||
    die "pip installed another wheel than $(basename "$whl") for CPython $ver"
  # The test tools: a folder of their own, kept while the pins hold.
  tools=$WORK/win-test-tools-$ver
  if [[ "$(cat "$tools/.pins" 2>/dev/null)" != "${WINE_TEST_REQUIRES[*]}" ]]; then
    rm -rf "$tools"
    "$TOOLS/pip" install -q --only-binary :all: --platform win_amd64 --implementation cp \
      --python-version "$ver" --abi "cp${ver/./}" --target "$tools" "${WINE_TEST_REQUIRES[@]}" ||
      die "the test tools for win_amd64 CPython $ver did not install"
    echo "${WINE_TEST_REQUIRES[*]}" >"$tools/.pins"
  fi
  # CPython 3.12+ asks WMI for the machine (platform.machine(), uname()); wine 8's WMI aborts the
  # process there (propsys.VariantToString is unimplemented). Without the _wmi module CPython
  # takes the environment's PROCESSOR_ARCHITECTURE instead, as it does on 3.11.
  printf '%s\n' '# Made by scripts/release/check-python.sh: no WMI under wine 8 (see there).' \
    'import sys' 'sys.modules["_wmi"] = None' >"$site/sitecustomize.py"
  out=$tmp/pytest-win-$ver.log
  (
    cd "$tmp"
    env PYTHONPATH="$(winpath "$site");$(winpath "$tools")" PYTHONDONTWRITEBYTECODE=1 \
      ABLOOM_C_FILE_READER="$(winpath "$WORK/c-reader-windows/file_reader.exe")" \
      wine "$cpython/python.exe" -c '
import platform, sys
import pyabloom as abloom
assert sys.platform == "win32" and "MSC" in sys.version, sys.version
print("   imported", abloom._abloom.__file__, "isa", abloom.isa(), "on", sys.version.split()[0], platform.machine())' </dev/null 2>&1 | cat
    env PYTHONPATH="$(winpath "$site");$(winpath "$tools")" PYTHONDONTWRITEBYTECODE=1 \
      ABLOOM_C_FILE_READER="$(winpath "$WORK/c-reader-windows/file_reader.exe")" \
      wine "$cpython/python.exe" -m pytest -q -rs -p no:cacheprovider "$(winpath "$ROOT/bindings/python/tests")" \
      </dev/null 2>&1 | cat
  ) | tee "$out" || die "abloom or its tests failed under wine with CPython $ver for Windows (above)"
  # Every test passed, none skipped (-rs would list a skip).
  grep -qE '^[0-9]+ passed(, [0-9]+ warnings?)? in ' <(tail -n1 "$out" | tr -d '\r' | sed 's/^=* *//') ||
    die "pytest under wine with CPython $ver did not pass every test, with none skipped (above)"
}
suite_under_wine 3.11 cp311 "${WHEEL[cp311-cp311-win_amd64]}"
suite_under_wine 3.12 cp312 "${WHEEL[cp312-abi3-win_amd64]}"
suite_under_wine 3.13 cp313 "${WHEEL[cp312-abi3-win_amd64]}"
echo "== check-python: PASS ($(for w in "${WHEEL[@]}"; do basename "$w"; done | sort | tr '\n' ' ')$(basename "${sdists[0]}"))"
