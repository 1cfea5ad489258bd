#!/usr/bin/env bash
# The release's Debian packages: libabloom0, libabloom-dev and abloom-tools (the abloom command) for
# amd64 (native) and arm64 (cross, Debian's g++-aarch64-linux-gnu), built by scripts/build-debs.sh into OUT. Check them with
# scripts/release/check-debs.sh OUT.
#
# They are Debian 12 packages: libabloom0's and abloom-tools' Depends (libc6 (>= 2.34), ...) come from
# dpkg-shlibdeps on this machine, as for any Debian package; packages are per distribution release,
# so build them on each release shipped for rather than lowering a glibc floor here.
#
# Idempotent: each run rebuilds the trees incrementally and replaces this version's packages in OUT
# (older libabloom*.deb and abloom-tools*.deb of these architectures are removed first, so OUT holds
# one set).
#
# Needs: g++-aarch64-linux-gnu, and the arm64 runtime libraries for dpkg-shlibdeps:
#   dpkg --add-architecture arm64 && apt-get update && apt-get install libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64
# Usage: scripts/release/debs.sh OUT
# Env:   ABLOOM_BUILD_ROOT (default build): trees in $ABLOOM_BUILD_ROOT/deb-<arch>; ABLOOM_JOBS (default 2).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
die() {
  echo "debs.sh: $*" >&2
  exit 1
}
[[ $# == 1 && -n $1 ]] || die "usage: scripts/release/debs.sh OUT"
[[ $(dpkg --print-architecture) == amd64 ]] || die "builds amd64 natively: run it on an amd64 machine"
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$root"
build_root=${ABLOOM_BUILD_ROOT:-build}
[[ $build_root == /* ]] || build_root=$root/$build_root

made=()
for arch in amd64 arm64; do
  t0=$SECONDS
  echo "== $arch"
  rm -f "$out"/libabloom0_*_"$arch".deb "$out"/libabloom-dev_*_"$arch".deb "$out"/abloom-tools_*_"$arch".deb
  ABLOOM_DEB_BUILD=$build_root/deb-$arch bash scripts/build-debs.sh "$out" "$arch" >/dev/null
  for p in libabloom0 libabloom-dev abloom-tools; do
    deb=$(compgen -G "$out/${p}_*_$arch.deb") || die "build-debs.sh made no ${p}_*_$arch.deb"
    made+=("$deb")
  done
  echo "-- $arch: $((SECONDS - t0))s"
done
echo "== made"
for deb in "${made[@]}"; do
  printf '%s\n    %s\n' "$deb" "$(dpkg-deb -f "$deb" Depends)"
done
