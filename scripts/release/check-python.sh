#!/usr/bin/env bash
# Checks the Python release files that scripts/release/python.sh wrote into OUT:
#
#   scripts/release/check-python.sh OUT
#
# 1. OUT holds the sdist and exactly four wheels: cp311-cp311 and cp312-abi3, each for x86_64
#    and aarch64;
# 2. per wheel: `auditwheel show` says manylinux_2_17_ARCH (= manylinux2014); `auditwheel repair`
#    has nothing to add (the repaired wheel has the same files, byte for byte); every ELF in it
#    asks for GLIBC_2.17 at most (objdump -T), needs glibc's libraries alone (no C++ runtime), and
#    exports PyInit_* alone; an abi3 wheel's extension is an .abi3.so;
# 3. x86_64: each wheel installed into a fresh venv by a PATH with no compiler and no cmake (the
#    venv's bin and a folder with a link to bash only; `cc`, `c++`, `gcc`, `g++`, `clang`,
#    `cmake`, `ninja` and `zig` are asserted absent), by the README's line, `pip install
#    --no-index --find-links OUT abloom`, with --only-binary :all: (so pip could not have built
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
# Needs: PYTHON (default python3.11); pyenv's CPython 3.12 (and any later); qemu-aarch64
# (qemu-user); objdump and aarch64-linux-gnu-objdump (binutils, binutils-aarch64-linux-gnu);
# apt-get and dpkg-deb; cmake, ninja and cc for the C file reader. Env: ABLOOM_BUILD_ROOT
# (default build): $ABLOOM_BUILD_ROOT/python-release-check keeps the tools venv, the apt state,
# the arm64 sysroots and the C reader between runs.
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
for tool in "$PYTHON" qemu-aarch64 objdump aarch64-linux-gnu-objdump readelf apt-get dpkg-deb unzip; do
  command -v "$tool" >/dev/null || die "'$tool' not found on PATH (see the header of this script)"
done
mkdir -p "$WORK"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abloom-check-python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source "$ROOT/scripts/lib/python-release.sh"
ensure_python_tools "$WORK/tools-venv" "$PYTHON"
TOOLS=$WORK/tools-venv/bin

# ---- 1. what OUT holds -------------------------------------------------------------------------
sdists=("$OUT"/abloom-*.tar.gz)
[[ ${#sdists[@]} -eq 1 && -f ${sdists[0]} ]] || die "no single abloom-*.tar.gz in $OUT"
tar -tzf "${sdists[0]}" | grep '/engine/abloom_capi.cpp$' >/dev/null || die "the sdist carries no engine"
declare -A WHEEL=()
for flavour in cp311-cp311 cp312-abi3; do
  for arch in x86_64 aarch64; do
    w=("$OUT"/abloom-*-"$flavour"-*manylinux2014_"$arch"*.whl)
    [[ ${#w[@]} -eq 1 && -f ${w[0]} ]] || die "no single $flavour manylinux2014_$arch wheel in $OUT"
    WHEEL[$flavour-$arch]=${w[0]}
  done
done
n=$(find "$OUT" -maxdepth 1 -name 'abloom-*.whl' | wc -l)
[[ $n -eq 4 ]] || die "$OUT holds $n abloom wheels; expected four (cp311-cp311 and cp312-abi3, x86_64 and aarch64)"
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
    [[ -f "$dir/abloom/_abloom.abi3.so" ]] || die "$(basename "$whl") holds no abloom/_abloom.abi3.so"
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
  echo "== x86_64, $("$py" --version): pip install --no-index --find-links OUT abloom, then ${TEST_REQUIRES[*]} (PATH=$nocc_path: no cc, c++, gcc, cmake)"
  run_nocc "$venv/bin/python" -m pip install -q --no-index --only-binary :all: --find-links "$OUT" abloom ||
    die "pip install --no-index --find-links OUT abloom failed without a compiler in $("$py" --version)"
  run_nocc "$venv/bin/python" -m pip install -q --only-binary :all: "${TEST_REQUIRES[@]}" ||
    die "the test tools did not install into $("$py" --version)"
  # pip must have picked WHEEL: its RECORD names the same extension file.
  local want got
  want=$(unzip -Z1 "$whl" | grep '^abloom/_abloom.*\.so$')
  got=$("$venv/bin/python" -c 'import abloom._abloom as m, os; print("abloom/" + os.path.basename(m.__file__))')
  [[ "$got" == "$want" ]] || die "pip installed $got into $("$py" --version), not $(basename "$whl")'s $want"
  (
    cd "$tmp"
    run_nocc "$venv/bin/python" -c '
import sys, abloom
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

import abloom

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
echo "== check-python: PASS ($(for w in "${WHEEL[@]}"; do basename "$w"; done | sort | tr '\n' ' ')$(basename "${sdists[0]}"))"
