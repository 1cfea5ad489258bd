#!/usr/bin/env bash
# Checks the release's Debian packages in OUT (scripts/release/debs.sh OUT), for amd64 and arm64:
#
#  1. metadata, from the .deb files alone: Package, Architecture, Version (the project's, -1),
#     Section, Depends (libabloom0: libc6, libgcc-s1, libstdc++6 with versions, covering every
#     DT_NEEDED of the library, no cross-toolchain or arch-qualified names; libabloom-dev: the same
#     version of libabloom0 and libxxhash-dev; abloom-tools: the same version of libabloom0, then
#     libc6, libgcc-s1, libstdc++6 with versions, covering every DT_NEEDED of the command),
#     libabloom0's shlibs file, the exact file lists (/usr/include, the architecture's multiarch
#     directory, /usr/bin/abloom), the library's and the command's ELF machine, the SONAME, no
#     RPATH or RUNPATH in the command, the paths in abloom.pc and in the CMake package, no
#     build-machine path in any file; each package's /usr/share/doc copyright (DEP-5, from LICENSE)
#     and changelog.Debian.gz (gzip-valid, this version), the command's gzipped manual page,
#     libabloom0's ldconfig trigger and no maintainer script calling ldconfig; and lintian, with
#     no error or warning on any package;
#  2. the consumers of tests/install/deb/run_deb_tests.sh (README hello, pkg-config consumer
#     dynamic and static, CMake consumer, file_reader on the golden vector and every FILE=KEYS
#     given, the abloom command's build, query and verify), with the packages installed by apt-get: amd64 natively, arm64 through multiarch with
#     the programs cross-built and run under qemu-aarch64.
#
# Needs root (apt-get) and what debs.sh needs, plus qemu-user and lintian. Refuses to run when libabloom0,
# libabloom-dev or abloom-tools is installed (run_deb_tests.sh checks).
# Usage: scripts/release/check-debs.sh OUT [FILE=KEYS ...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
die() {
  echo "FAIL: $*" >&2
  exit 1
}
[[ $# -ge 1 && -d $1 ]] || die "usage: scripts/release/check-debs.sh OUT [FILE=KEYS ...] (OUT: a directory)"
out=$(cd "$1" && pwd)
shift
# Absolute paths: the consumers run in a directory of their own.
pairs=()
for pair in "$@"; do
  [[ $pair == *=* && -s ${pair%%=*} && -s ${pair#*=} ]] || die "not FILE=KEYS with both files present: $pair"
  pairs+=("$(realpath "${pair%%=*}")=$(realpath "${pair#*=}")")
done
version=$(sed -n 's/^project(abloom VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[[ -n $version ]] || die "no project version in CMakeLists.txt"
soversion=$(sed -n 's/^set(ABLOOM_SOVERSION \([0-9]*\))/\1/p' "$root/CMakeLists.txt")
[[ -n $soversion ]] || die "no ABLOOM_SOVERSION in CMakeLists.txt"
debver=$version-1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/abloom-check-debs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# depends_cover ELF NAME DEPENDS ARCH: every DT_NEEDED of ELF is covered by a package of DEPENDS (a
# control field's value), or die naming NAME and ARCH.
depends_cover() {
  local elf=$1 name=$2 depends=$3 arch=$4 needed p
  for needed in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case $needed in
    libc.so.6 | libm.so.6 | ld-linux*) p=libc6 ;;
    libstdc++.so.6) p=libstdc++6 ;;
    libgcc_s.so.1) p=libgcc-s1 ;;
    libz.so.1) p=zlib1g ;; # the command's gzip input (cli/decompress.hpp)
    "libabloom.so.$soversion") p=libabloom$soversion ;;
    *) die "$arch: $name needs $needed, which no Depends covers" ;;
    esac
    [[ "$depends, " == *"$p ("* ]] || die "$arch: $name needs $needed but Depends lacks $p"
  done
}

# docs PKG: the files every package has besides its own, sorted as `sort` sorts the lists.
docs() {
  printf '%s\n' "./usr/share/doc/$1/changelog.Debian.gz" "./usr/share/doc/$1/copyright" \
    "./usr/share/lintian/overrides/$1"
}

# gzip_n FILE: FILE's gzip header has no file name and no time stamp (gzip -n: the same bytes
# from every build).
gzip_n() {
  [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 1f8b080000000000 ]]
}

check_metadata() { # ARCH MULTIARCH ELF-MACHINE
  local arch=$1 ma=$2 machine=$3 p deb field want got x=$tmp/$1
  local -A debs=()
  for p in libabloom$soversion libabloom-dev abloom-tools; do
    [[ $(compgen -G "$out/${p}_*_$arch.deb" | wc -l) == 1 ]] || die "not exactly one ${p}_*_$arch.deb in $out"
    debs[$p]=$(compgen -G "$out/${p}_*_$arch.deb")
    [[ ${debs[$p]} == "$out/${p}_${debver}_$arch.deb" ]] || die "${debs[$p]}: not version $debver"
    for field in Package:$p Architecture:$arch Version:$debver; do
      got=$(dpkg-deb -f "${debs[$p]}" "${field%%:*}")
      [[ $got == "${field#*:}" ]] || die "${debs[$p]}: ${field%%:*} is '$got', not '${field#*:}'"
    done
    mkdir -p "$x/$p"
    dpkg-deb -x "${debs[$p]}" "$x/$p"
  done
  local rt=libabloom$soversion so=libabloom.so.$soversion
  [[ $(dpkg-deb -f "${debs[$rt]}" Section) == libs ]] || die "$rt: Section is not libs"
  [[ $(dpkg-deb -f "${debs[libabloom-dev]}" Section) == libdevel ]] || die "libabloom-dev: Section is not libdevel"
  [[ $(dpkg-deb -f "${debs[abloom-tools]}" Section) == utils ]] || die "abloom-tools: Section is not utils"

  # Every file, symlinks with their targets, against the layout a Debian library has.
  want="./usr/lib/$ma/$so -> $so.0.0
./usr/lib/$ma/$so.0.0
$(docs "$rt")"
  want=${want//$so.0.0/libabloom.so.$version}
  got=$(dpkg-deb -c "${debs[$rt]}" | awk '$1 !~ /^d/' | sed -E 's/^([^ ]+ +){5}//' | sort)
  [[ $got == "$want" ]] || die "${rt}_$arch files:
$got
 expected:
$want"
  want=$(sort <<EOL
./usr/include/abloom.h
./usr/include/abloom_inline.h
./usr/include/abloom_layout.h
./usr/lib/$ma/cmake/abloom/abloomConfig.cmake
./usr/lib/$ma/cmake/abloom/abloomConfigVersion.cmake
./usr/lib/$ma/cmake/abloom/abloomTargets-release.cmake
./usr/lib/$ma/cmake/abloom/abloomTargets.cmake
./usr/lib/$ma/libabloom.a
./usr/lib/$ma/libabloom.so -> $so
./usr/lib/$ma/pkgconfig/abloom.pc
$(docs libabloom-dev)
EOL
  )
  got=$(dpkg-deb -c "${debs[libabloom-dev]}" | awk '$1 !~ /^d/' | sed -E 's/^([^ ]+ +){5}//' | sort)
  [[ $got == "$want" ]] || die "libabloom-dev_$arch files:
$got
 expected:
$want"
  want="./usr/bin/abloom
$(docs abloom-tools)
./usr/share/man/man1/abloom.1.gz"
  got=$(dpkg-deb -c "${debs[abloom-tools]}" | awk '$1 !~ /^d/' | sed -E 's/^([^ ]+ +){5}//' | sort)
  [[ $got == "$want" ]] || die "abloom-tools_$arch files:
$got
 expected:
$want"

  # What every Debian package carries: the copyright file, machine-readable (DEP-5), with
  # LICENSE's copyright line and the Expat (MIT) licence; the changelog, gzip-compressed, its entry
  # this version; and the command's manual page, gzip-compressed.
  local holder doc
  holder=$(sed -n 's/^Copyright (c) //p' "$root/LICENSE")
  for p in "${!debs[@]}"; do
    doc=$x/$p/usr/share/doc/$p
    [[ -s $doc/copyright ]] || die "$p ($arch) has no /usr/share/doc/$p/copyright"
    for want in 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
      'Files: *' "Copyright: $holder" 'License: Expat' ' Permission is hereby granted, free of charge, to any person obtaining a copy'; do
      grep -qxF "$want" "$doc/copyright" || die "$p ($arch) copyright lacks the line '$want'"
    done
    gzip -t "$doc/changelog.Debian.gz" || die "$p ($arch) changelog.Debian.gz is not a valid gzip file"
    gzip_n "$doc/changelog.Debian.gz" || die "$p ($arch) changelog.Debian.gz keeps a name or time stamp (not gzip -n)"
    got=$(gzip -dc "$doc/changelog.Debian.gz")
    got=${got%%$'\n'*}
    [[ $got == "abloom ($debver) "* ]] || die "$p ($arch) changelog's entry is '$got', not abloom ($debver)"
  done
  gzip -t "$x/abloom-tools/usr/share/man/man1/abloom.1.gz" || die "abloom-tools ($arch): abloom.1.gz is not a valid gzip file"
  gzip_n "$x/abloom-tools/usr/share/man/man1/abloom.1.gz" || die "abloom-tools ($arch): abloom.1.gz keeps a name or time stamp"
  # And lintian, Debian's package checker: no error and no warning on any of them. Its scratch
  # files (mldbm-elf-*, which it leaves behind) go under $tmp, which the trap removes.
  mkdir -p "$tmp/lintian"
  got=$(TMPDIR=$tmp/lintian lintian --fail-on error,warning "${debs[@]}" 2>&1) || die "lintian ($arch) finds errors or warnings:
$got"
  [[ $(grep -E '^[EW]: ' <<<"$got") == "" ]] || die "lintian ($arch): $got"

  # The library: built for ARCH, its SONAME, and a Depends that covers everything it needs.
  local lib=$x/$rt/usr/lib/$ma/libabloom.so.$version
  # (The machines captured whole: grep -q would close the pipe early and fail it under pipefail.)
  got=$(readelf -h "$lib" | sed -n 's/^ *Machine: *//p')
  [[ $got == *"$machine" ]] || die "$lib is for '$got', not $machine"
  got=$(readelf -h "$x/libabloom-dev/usr/lib/$ma/libabloom.a" | sed -n 's/^ *Machine: *//p' | sort -u)
  [[ $got == *"$machine" && $got != *$'\n'* ]] || die "libabloom.a ($arch) has objects for '$got', not only $machine"
  got=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [[ $got == "$so" ]] || die "$arch: SONAME is '$got', not $so"
  local depends needed
  depends=$(dpkg-deb -f "${debs[$rt]}" Depends)
  [[ $depends =~ ^libc6\ \(\>=\ [0-9.]+\),\ libgcc-s1\ \(\>=\ [0-9.]+\),\ libstdc\+\+6\ \(\>=\ [0-9.]+\)$ ]] ||
    die "$rt ($arch) Depends: '$depends' (expected libc6, libgcc-s1, libstdc++6, versioned, no arch or -cross names)"
  depends_cover "$lib" libabloom "$depends" "$arch"
  # The shlibs file that lets packages built against libabloom0 depend on it through dpkg-shlibdeps.
  got=$(dpkg-deb -I "${debs[$rt]}" shlibs 2>/dev/null) || die "$rt ($arch) has no shlibs control file"
  want="libabloom $soversion $rt (>= $debver)"
  [[ $got == "$want" ]] || die "$rt ($arch) shlibs: '$got', not '$want'"
  # The loader's cache is refreshed by libc's ldconfig trigger, not by maintainer scripts: the
  # library's control archive holds the trigger, and no package has a script calling ldconfig.
  got=$(dpkg-deb -I "${debs[$rt]}" triggers 2>/dev/null) || die "$rt ($arch) has no triggers control file"
  [[ $got == "activate-noawait ldconfig" ]] || die "$rt ($arch) triggers: '$got', not 'activate-noawait ldconfig'"
  for p in "${!debs[@]}"; do
    mkdir -p "$tmp/control-$arch-$p"
    dpkg-deb -e "${debs[$p]}" "$tmp/control-$arch-$p"
    for f in preinst postinst prerm postrm; do
      [[ ! -e $tmp/control-$arch-$p/$f ]] || ! grep -q ldconfig "$tmp/control-$arch-$p/$f" ||
        die "$p ($arch) $f calls ldconfig (the triggers file does it)"
    done
  done
  got=$(dpkg-deb -f "${debs[libabloom-dev]}" Depends)
  want="$rt (= $debver), libxxhash-dev"
  [[ $got == "$want" ]] || die "libabloom-dev ($arch) Depends: '$got', not '$want'"

  # The command: built for ARCH, no RPATH (the loader finds libabloom.so.0 in /usr/lib/$ma), and a
  # Depends on this very libabloom0 plus what dpkg-shlibdeps found for the rest of its DT_NEEDED.
  local cmd=$x/abloom-tools/usr/bin/abloom tools_depends
  got=$(readelf -h "$cmd" | sed -n 's/^ *Machine: *//p')
  [[ $got == *"$machine" ]] || die "abloom ($arch) is for '$got', not $machine"
  got=$(readelf -d "$cmd" | sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]/\1 \2/p')
  [[ -z $got ]] || die "abloom ($arch) has '$got': a packaged command in /usr/bin needs none"
  tools_depends=$(dpkg-deb -f "${debs[abloom-tools]}" Depends)
  # zlib1g where the command reads gzip input (a native build with zlib: cli/CMakeLists.txt; the
  # arm64 cross build has none).
  [[ $tools_depends =~ ^"$rt (= $debver), "libc6\ \(\>=\ [0-9.]+\),\ libgcc-s1\ \(\>=\ [0-9.]+\),\ libstdc\+\+6\ \(\>=\ [0-9.]+\)(,\ zlib1g\ \(\>=\ [0-9:.]+\))?$ ]] ||
    die "abloom-tools ($arch) Depends: '$tools_depends' (expected $rt (= $debver), then libc6, libgcc-s1, libstdc++6, zlib1g where built with it, versioned, no arch or -cross names)"
  depends_cover "$cmd" abloom "$tools_depends" "$arch"
  [[ $(readelf -d "$cmd" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') == *"$so"* ]] ||
    die "abloom ($arch) does not link $so"

  # The paths users' builds get: pkg-config's and CMake's, relative to /usr's multiarch dir.
  local pc=$x/libabloom-dev/usr/lib/$ma/pkgconfig/abloom.pc
  for want in 'prefix=/usr' "libdir=\${exec_prefix}/lib/$ma" "includedir=\${prefix}/include" "Version: $version"; do
    grep -qxF "$want" "$pc" || die "$arch abloom.pc lacks the line '$want'"
  done
  local cm=$x/libabloom-dev/usr/lib/$ma/cmake/abloom
  for want in "\"\${_IMPORT_PREFIX}/lib/$ma/libabloom.so.$version\"" "\"\${_IMPORT_PREFIX}/lib/$ma/libabloom.a\""; do
    grep -qF "IMPORTED_LOCATION_RELEASE $want" "$cm/abloomTargets-release.cmake" ||
      die "$arch abloomTargets-release.cmake does not import $want"
  done
  grep -qF "set(PACKAGE_VERSION \"$version\")" "$cm/abloomConfigVersion.cmake" ||
    die "$arch abloomConfigVersion.cmake is not version $version"
  # Nothing of the machine that built them (source or build tree) leaks into the packages.
  local build_root=${ABLOOM_BUILD_ROOT:-build}
  [[ $build_root == /* ]] || build_root=$root/$build_root
  ! grep -rlaF -e "$root" -e "$build_root" "$x" >/dev/null ||
    die "$arch packages name build-machine paths: $(grep -rlaF -e "$root" -e "$build_root" "$x" | head -3)"
  echo "PASS: $arch metadata: $rt ($depends), libabloom-dev, abloom-tools ($tools_depends), $so in /usr/lib/$ma, pkg-config and CMake paths"
}

command -v lintian >/dev/null || die "lintian not found (apt-get install lintian; scripts/setup.sh release installs it)"
t0=$SECONDS
echo "== metadata"
check_metadata amd64 x86_64-linux-gnu X86-64
check_metadata arm64 aarch64-linux-gnu AArch64
for arch in amd64 arm64; do
  echo "== consumers, $arch"
  bash "$root/tests/install/deb/run_deb_tests.sh" --debs "$out" --arch "$arch" "${pairs[@]}"
done
echo "PASS: check-debs.sh: amd64 and arm64 packages in $out ($((SECONDS - t0))s)"
