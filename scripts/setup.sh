#!/usr/bin/env bash
# Install what building and testing abloom needs (Debian/Ubuntu, apt). Idempotent: packages that
# are already installed are left alone, and apt-get update/install only run when one is missing.
# Runs as root, or through sudo when available. Usage: scripts/setup.sh [cross] [release] [windows]
set -euo pipefail

PACKAGES=(
  build-essential # gcc, g++, make, libc headers
  cmake
  ninja-build
  pkg-config
  binutils        # nm, readelf (tests/check_exports.sh)
  libxxhash-dev   # xxhash.h, used header-only
  libgtest-dev    # GoogleTest (tests/)
  libsimde-dev    # SIMDe: portable AVX-512 intrinsics, to test that kernel anywhere (tests/)
  googletest
  libbenchmark-dev # Google Benchmark (bench/)
  libbloom-dev     # libbloom, a peer in bench/abloom_bench (optional there)
  libcli11-dev     # CLI11, header-only: the abloom command's options (cli/)
  zlib1g-dev       # zlib: the abloom command reads gzip input (cli/decompress.hpp)
  time             # /usr/bin/time: scripts/demo.sh's peak memory of abloom build
  man-db           # man --warnings: tests/cli/man_test.sh renders cli/abloom.1 (with groff-base)
  clang
  clang-format
  clang-tidy
  libclang-rt-14-dev # clang's sanitizer runtimes
  swig               # SWIG 4.1: the Go and Java binding layers
  ccache             # the compiler cache of scripts/test-all.sh (scripts/lib/ci-cache.sh)
)

# `setup.sh cross`: also what the cross-platform stages need (scripts/cross-test.sh): Debian's
# cross compilers for aarch64 and big-endian s390x (with their glibc sysroots) and qemu-user to run
# what they build. (zig, for the macOS, musl and glibc 2.17 builds, comes from PyPI into a venv:
# scripts/platform-builds.sh; the Rust targets from rustup: the scripts that use them add them.)
#
# `setup.sh release`: what scripts/build-release.sh and scripts/release/check-*.sh need beyond
# that: the arm64 architecture in dpkg (multiarch), so that the arm64 Debian packages get their
# Depends from Debian's arm64 libraries (dpkg-shlibdeps) and install for real, with those
# libraries and libabloom-dev's dependency; and lintian, which scripts/release/check-debs.sh runs
# on the Debian packages; wine, under which scripts/release/check-python.sh tests the win_amd64
# wheels. (The arm64 JDK and CPython the checks run under qemu, and CPython for Windows, are
# downloaded and unpacked by the checks, not installed.)
#
# `setup.sh windows`: wine, which runs the Windows x86-64 build's tests (scripts/platform-builds.sh,
# zig's x86_64-windows-gnu), and llvm's readobj for the DLL's exports and imports.
FOREIGN_ARCHES=()
for group in "$@"; do
  case "$group" in
    cross) PACKAGES+=(qemu-user g++-aarch64-linux-gnu g++-s390x-linux-gnu) ;;
    release)
      PACKAGES+=(qemu-user g++-aarch64-linux-gnu libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64
        libxxhash-dev:arm64 unzip llvm lintian wine64 wine)
      FOREIGN_ARCHES+=(arm64)
      ;;
    windows) PACKAGES+=(wine64 wine llvm) ;;
    *) echo "setup: unknown group '$group' (known: cross, release, windows)" >&2 && exit 2 ;;
  esac
done

# The Java binding's toolchain, from apt when the machine has none (a JDK and Maven installed
# some other way are used as they are). Go (>= 1.24) and Rust (cargo, with rustfmt and clippy)
# are expected on the machine: Debian's packages of both are too old for the bindings, and each
# binding's ci.sh says so clearly when one is missing.
command -v javac >/dev/null 2>&1 || PACKAGES+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || PACKAGES+=(maven)
# The Python binding's: a python3 (>= 3.9) with venv, ensurepip and its C headers, from apt when the
# python3 on the PATH lacks one of them (a Python installed some other way, e.g. pyenv, is used).
python3 -c 'import ensurepip, os, sys, sysconfig, venv
sys.exit(sys.version_info < (3, 9) or not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  >/dev/null 2>&1 || PACKAGES+=(python3-dev python3-venv)

# A name without :ARCH means the machine's own architecture (or an Architecture: all package); with
# a foreign architecture in dpkg, the bare name can also match that architecture's copy.
NATIVE_ARCH=$(dpkg --print-architecture 2>/dev/null || echo none)
is_installed() {
  local name=${1%%:*} arch=${1#*:}
  [[ "$1" == *:* ]] || arch=$NATIVE_ARCH
  local status
  status=$(dpkg-query -W -f='${Architecture} ${Status}\n' "$name" 2>/dev/null || true)
  [[ $'\n'"$status"$'\n' == *$'\n'"$arch install ok installed"$'\n'* ||
    $'\n'"$status"$'\n' == *$'\n'"all install ok installed"$'\n'* ]]
}

# A foreign architecture is added before anything is counted: its packages cannot be found before.
added_arch=0
for arch in "${FOREIGN_ARCHES[@]}"; do
  grep -qx "$arch" <<<"$(dpkg --print-foreign-architectures)" && continue
  echo "setup: dpkg --add-architecture $arch"
  if [[ $(id -u) -eq 0 ]]; then dpkg --add-architecture "$arch"; else sudo dpkg --add-architecture "$arch"; fi
  added_arch=1
done

missing=()
for p in "${PACKAGES[@]}"; do
  is_installed "$p" || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 && $added_arch -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: apt-get not found; please install: ${missing[*]}" >&2
  exit 1
fi
if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "setup: not root and no sudo; please install: ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q)
"${APT[@]}" update
[[ ${#missing[@]} -eq 0 ]] || "${APT[@]}" install -y --no-install-recommends "${missing[@]}"

still_missing=()
for p in "${missing[@]}"; do
  is_installed "$p" || still_missing+=("$p")
done
if [[ ${#still_missing[@]} -ne 0 ]]; then
  echo "setup: failed to install: ${still_missing[*]}" >&2
  exit 1
fi
echo "setup: done"
