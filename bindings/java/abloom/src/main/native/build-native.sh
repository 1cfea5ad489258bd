#!/usr/bin/env bash
# build-native.sh OUTDIR [--prefix=PREFIX] [--natives=EXTRA_NATIVES | --release-natives=DIR]
#
# Generates the JNI layer with SWIG and builds a self-contained libabloom_jni.so:
#   OUTDIR/generated-sources/swig/io/abloom/AbloomNative{,JNI}.java   (package-private classes)
#   OUTDIR/native/abloom_wrap.c                                       (the JNI C code)
#   OUTDIR/native/libabloom_jni.so                                    (for -Dabloom.jni.path)
#   OUTDIR/native/engine.cflags                                       (how the tests' C program
#                                                                      links the same engine)
#   OUTDIR/classes/natives/<os>-<arch>/libabloom_jni.so               (bundled into the jar)
#   OUTDIR/classes/natives/platforms.txt                              (the index: one line per
#                                                                      <os>-<arch>/<library>)
#
# The engine is linked in statically, and so is the C++ runtime (-static-libstdc++
# -static-libgcc): the library needs only glibc (libc, libm), has no RUNPATH, and exports only
# its JNI entry points (jni.map), so the copy of the engine inside cannot clash with another.
# Where the engine comes from:
#   PREFIX given   PREFIX/lib/libabloom.a and PREFIX/include/abloom.h, an installed abloom
#                  (cmake --install; CMAKE_POSITION_INDEPENDENT_CODE is on, so the archive is PIC)
#   PREFIX empty   built here from this repository's own sources (the CMakeLists.txt three levels
#                  above the Maven project) with CMake, into OUTDIR/engine: nothing to install
# EXTRA_NATIVES: a folder laid out as <os>-<arch>/<library> (libabloom_jni.so, libabloom_jni.dylib,
#   abloom_jni.dll) with natives built on other platforms; they are bundled beside this one.
# DIR (--release-natives, Maven -Dabloom.natives.release): the same layout, and the jar carries
#   exactly DIR's natives, which must include this platform's: the release build
#   (scripts/release/java.sh) gives zig builds against glibc 2.17, which replace the host
#   compiler's library (tied to this machine's glibc). The host library is still built, into
#   OUTDIR/native, for -Dabloom.jni.path and the engine the tests' C program links.
#
# Maven runs this in generate-sources (exec-maven-plugin); it is also runnable by hand. SWIG, a C
# and C++ compiler (and CMake when PREFIX is empty) are needed here, never by the jar's users.
set -euo pipefail

usage="usage: build-native.sh OUTDIR [--prefix=PREFIX] [--natives=EXTRA_NATIVES | --release-natives=DIR]"
out=${1:?$usage}
shift
prefix=""
extra=""
release=""
for arg in "$@"; do # options, so that an empty Maven property cannot shift the others
  case "$arg" in
    --prefix=*) prefix=${arg#--prefix=} ;;
    --natives=*) extra=${arg#--natives=} ;;
    --release-natives=*) release=${arg#--release-natives=} ;;
    "") ;;
    *) echo "build-native.sh: unknown argument '$arg'; $usage" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
swig_file="$here/../swig/abloom.i"
version_script="$here/jni.map"
repo=$(cd "$here/../../../../../.." && pwd)

die() {
  echo "build-native.sh: $*" >&2
  exit 1
}
[[ -z "$extra" || -z "$release" ]] || die "--natives and --release-natives exclude each other (the release folder holds every platform)"
for tool in swig cc c++; do
  command -v "$tool" >/dev/null || die "'$tool' not found (apt-get install swig gcc g++)"
done

# The platform folder, named as NativeLoader.platform() names it.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x86_64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-aarch64 ;;
  Linux-*) platform="linux-$(uname -m)" ;;
  *) die "only Linux builds are scripted here ($(uname -s) $(uname -m)); see the README, 'Other platforms'" ;;
esac
# A musl compiler (Alpine) builds for musl, which NativeLoader looks for under linux-musl-<arch>.
if [[ "$(cc -dumpmachine)" == *-musl* ]]; then platform="linux-musl-${platform#linux-}"; fi

mkdir -p "$out/native"
if [[ -n "$prefix" ]]; then
  [[ -f "$prefix/include/abloom.h" ]] || die "$prefix/include/abloom.h not found (is PREFIX an abloom install?)"
  [[ -f "$prefix/lib/libabloom.a" ]] || die "$prefix/lib/libabloom.a not found (the static library: cmake --install installs it)"
  include="$prefix/include"
  archive="$prefix/lib/libabloom.a"
  echo "build-native.sh: the engine from $archive"
else
  [[ -f "$repo/CMakeLists.txt" && -f "$repo/capi/abloom.h" ]] \
    || die "no abloom source tree at $repo: give an installed abloom with -Dabloom.prefix=/path"
  command -v cmake >/dev/null || die "'cmake' not found (apt-get install cmake), or give -Dabloom.prefix=/path of an install"
  engine="$out/engine"
  echo "build-native.sh: building the engine from $repo into $engine (CMake, target abloom_static)"
  jobs=$(nproc 2>/dev/null || echo 2)
  if ! { cmake -S "$repo" -B "$engine" -DABLOOM_BUILD_TESTS=OFF -DABLOOM_BUILD_EXAMPLES=OFF \
      -DABLOOM_BUILD_BENCH=OFF && cmake --build "$engine" --target abloom_static -j "$jobs"; } \
      >"$out/native/engine-build.log" 2>&1; then
    tail -40 "$out/native/engine-build.log" >&2
    die "the engine build failed (log: $out/native/engine-build.log)"
  fi
  include="$repo/capi"
  archive="$engine/capi/libabloom.a"
  [[ -f "$archive" ]] || die "the engine build left no $archive"
fi

# The JDK's JNI headers: java.home of a JDK (17+) is the JDK itself.
jdk=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
[[ -f "$jdk/include/jni.h" ]] || die "no jni.h under $jdk/include (set JAVA_HOME to a JDK)"

gen="$out/generated-sources/swig/io/abloom"
nat="$out/native"
natives="$out/classes/natives"
# This script owns classes/natives: start empty, so no stale platform (or the older layout's
# classes/native/, whose library needed libabloom.so) reaches the jar without a `mvn clean`.
rm -rf "$natives" "$out/classes/native"
mkdir -p "$gen" "$nat" "$natives/$platform"
rm -f "$gen"/*.java

# ABLOOM_STATIC_DEFINE: the declarations of a static archive (no import/export attributes).
cflags=(-I"$include" -DABLOOM_STATIC_DEFINE)
swig -java -package io.abloom -outdir "$gen" -o "$nat/abloom_wrap.c" "${cflags[@]}" "$swig_file"

# -fno-strict-aliasing: SWIG's wrapper casts between jlong and pointers.
cc -std=c11 -O2 -fPIC -fvisibility=hidden -fno-strict-aliasing \
  -Wall -Wextra -Werror -Wno-unused-parameter -Wno-unused-function \
  "${cflags[@]}" -I"$jdk/include" -I"$jdk/include/linux" \
  -c "$nat/abloom_wrap.c" -o "$nat/abloom_wrap.o"
# Linked by the C++ driver: the engine is C++20. No -rpath: the library needs nothing outside
# glibc. --exclude-libs,ALL and the version script keep every symbol of the archives local;
# --strip-debug drops the engine's DWARF (RelWithDebInfo) but keeps the symbol table.
c++ -shared -fPIC -o "$nat/libabloom_jni.so" "$nat/abloom_wrap.o" "$archive" \
  -static-libstdc++ -static-libgcc -pthread -lm \
  -Wl,-soname,libabloom_jni.so -Wl,--version-script="$version_script" -Wl,--exclude-libs,ALL \
  -Wl,--no-undefined -Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,now -Wl,--strip-debug

# Natives from other platforms first, so this platform's fresh build is the one bundled (unless
# DIR of --release-natives, which must have this platform's, replaces it).
bundle_from=${release:-$extra}
if [[ -n "$bundle_from" ]]; then
  [[ -d "$bundle_from" ]] || die "the natives folder $bundle_from is not a folder"
  if [[ -n "$release" ]]; then
    compgen -G "$release/$platform/*abloom_jni*" >/dev/null ||
      die "--release-natives=$release has no $platform/ library: the release jar must carry this platform's"
  fi
  for lib in "$bundle_from"/*/*; do
    [[ -f "$lib" ]] || continue
    dir=$(basename "$(dirname "$lib")")
    name=$(basename "$lib")
    [[ "$dir" =~ ^[a-z]+(-musl)?-[a-z0-9_]+$ ]] ||
      die "$lib: the folder must be named <os>-<arch> or linux-musl-<arch> (linux-aarch64, darwin-aarch64, linux-musl-x86_64, ...)"
    case "$name" in
      libabloom_jni.so | libabloom_jni.dylib | abloom_jni.dll) ;;
      *) die "$lib: not a libabloom_jni library (libabloom_jni.so, libabloom_jni.dylib, abloom_jni.dll)" ;;
    esac
    [[ "$dir" == "$platform" && -z "$release" ]] && { echo "build-native.sh: $lib ignored: $platform is built here"; continue; }
    mkdir -p "$natives/$dir"
    cp "$lib" "$natives/$dir/$name"
    echo "build-native.sh: bundled $dir/$name"
  done
fi
[[ -n "$release" ]] || cp "$nat/libabloom_jni.so" "$natives/$platform/libabloom_jni.so"
# The index NativeLoader reads to say, on a platform the jar lacks, which ones it has.
(cd "$natives" && find . -mindepth 2 -maxdepth 2 -type f | sed 's|^\./||' | LC_ALL=C sort) >"$natives/platforms.txt"

# The licenses of what the library carries: abloom's (MIT) and xxHash's (BSD 2-Clause, whose
# binary-form clause applies: the engine compiles xxhash.h in), the latter from the header's own
# notice. (libstdc++ and libgcc are linked under the GCC Runtime Library Exception.)
meta="$out/classes/META-INF"
mkdir -p "$meta"
[[ -f "$repo/LICENSE" ]] && cp "$repo/LICENSE" "$meta/LICENSE"
xxhash_dir=""
[[ -n "${engine:-}" ]] && xxhash_dir=$(sed -n 's/^XXHASH_INCLUDE_DIR:PATH=//p' "$engine/CMakeCache.txt")
xxhash_h="${xxhash_dir:-/usr/include}/xxhash.h"
if [[ -f "$xxhash_h" ]]; then
  { echo "libabloom_jni contains xxHash, compiled from $(basename "$xxhash_h"), under this license:"; echo
    awk 'NR == 1 && !/^\/\*/ {exit} {print} /\*\// {exit}' "$xxhash_h"; } >"$meta/LICENSE.xxhash"
else
  echo "build-native.sh: warning: no $xxhash_h, so no META-INF/LICENSE.xxhash in the jar" >&2
fi

# For the tests' C program (InteropTest): the same engine, statically.
printf '%s\n' "${cflags[@]}" "$archive" -lstdc++ -lm -pthread >"$nat/engine.cflags"
echo "build-native.sh: bundled in $natives: $(tr '\n' ' ' <"$natives/platforms.txt")"
