#!/usr/bin/env bash
# Checks a built libabloom_jni.so as the jar must carry it: no RUNPATH/RPATH, only glibc libraries
# NEEDED (the engine and the C++ runtime are linked in), and only JNI entry points exported.
# Prints one line: "NEEDED ...; no RUNPATH; exports only Java_io_abloom_*; needs GLIBC_x.y".
# Usage: bindings/java/check_native.sh SO   (used by ci.sh and package_check.sh)
set -euo pipefail
so=${1:?usage: bindings/java/check_native.sh libabloom_jni.so}
die() {
  echo "check_native: $so: $*" >&2
  exit 1
}
[[ -f $so ]] || die "no such file"
dyn=$(readelf -d "$so")
if grep -qE "\((RUNPATH|RPATH)\)" <<<"$dyn"; then die "has a RUNPATH/RPATH: $(grep -E 'PATH' <<<"$dyn")"; fi
needed=$(sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' <<<"$dyn" | sort | tr '\n' ' ')
for lib in $needed; do
  case "$lib" in
  libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | ld-linux-x86-64.so.2) ;;
  *) die "needs $lib: only glibc libraries are allowed (NEEDED: $needed)" ;;
  esac
done
exports=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -vE '^(Java_io_abloom_|JNI_On(Load|Unload)$)' || true)
[[ -z "$exports" ]] || die "exports more than its JNI entry points: $(echo $exports | head -c 300)"
glibc=$(objdump -T "$so" | grep -oE "GLIBC_[0-9.]+" | sort -uV | tail -1)
echo "NEEDED $needed; no RUNPATH; exports only Java_io_abloom_*; needs $glibc"
