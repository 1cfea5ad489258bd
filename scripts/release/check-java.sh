#!/usr/bin/env bash
# Checks what scripts/release/java.sh made:
#
#   bash scripts/release/check-java.sh OUT
#
# 1. OUT has the jar, its pom and parent pom, the sources jar, the Spark jar and pom, and
#    SHA256SUMS matches them.
# 2. The jar carries exactly natives/{linux,linux-musl}-{x86_64,aarch64}/libabloom_jni.so,
#    natives/{darwin-x86_64,darwin-aarch64}/libabloom_jni.dylib,
#    natives/{windows-x86_64,windows-aarch64}/abloom_jni.dll and their index,
#    natives/platforms.txt, listing exactly those.
# 3. ELF natives (objdump -T, readelf -d, llvm-nm): the right machine; no symbol version above
#    GLIBC_2.17; no RUNPATH/RPATH; only glibc libraries NEEDED (no C++ runtime: it is linked in),
#    or musl's libc.so alone for the linux-musl ones; only JNI symbols exported
#    (Java_io_abloom_*, JNI_OnLoad/OnUnload).
#    Mach-O natives (llvm-nm, llvm-objdump; nothing here runs them): the right CPU, a dylib, and
#    only JNI symbols exported plus what zig's static libc++ forces (its replaceable operator
#    new/delete, ___dso_handle, __mh_dylib_header: see scripts/platform-builds.sh).
#    PE natives (llvm-readobj): an x86-64 or ARM64 DLL; only JNI symbols exported; only Windows'
#    own DLLs and the UCRT's api sets imported (the C++ runtime is linked in), as
#    scripts/platform-builds.sh holds abloom.dll to. (windows-x86_64 runs under wine in
#    scripts/platform-builds.sh x86_64-windows-java.) Every native exports the same JNI functions.
# 4. The consumer program of bindings/java/package_check.sh (bindings/java/consumer/Main.java),
#    compiled against the jar alone and run with a plain `java -cp abloom-0.1.0.jar:classes`
#    (env -i, nothing on java.library.path, cwd a folder holding only those): it creates a
#    filter, adds and tests keys, opens tests/vectors/blocked_s1.abloom and checks every answer.
# 5. The same with -Dos.arch=riscv64: the loader's error names the eight platforms the jar has.
# 6. linux-aarch64 at run time: when Debian's arm64 JRE is available under qemu-user (a sysroot
#    made from openjdk-17-jre-headless:arm64, libc6, libstdc++6, libgcc-s1, zlib1g via
#    scripts/lib/debian-fetch.sh, in $ABLOOM_BUILD_ROOT/release-java/arm64-sysroot), the
#    consumer runs again there, loading natives/linux-aarch64 from the jar. Without qemu-aarch64
#    or the packages this step says so and is skipped (ABLOOM_REQUIRE_QEMU=1 makes it fail).
# 6b. musl at run time (no musl JVM can be had here): Debian 12's musl 1.2.3 (the oldest musl
#    the natives claim; fetched by scripts/lib/debian-fetch.sh) runs a small C program, built by
#    zig for each architecture (aarch64 under qemu-user), that dlopens the jar's
#    linux-musl-<arch> native with RTLD_NOW (every symbol it needs must be in that musl), finds a
#    JNI function in it and writes its own /proc/self/maps; NativeLoader.muslIn, run on those
#    maps (x86-64 with Debian's file layout and with Alpine's, where the loader is
#    /lib/ld-musl-x86_64.so.1, and aarch64), must say musl.
# 7. The README's `mvn install:install-file` lines, into a temporary local repository: the
#    installed files are OUT's.
set -euo pipefail

die() { echo "release/check-java.sh: FAILED: $*" >&2; exit 1; }
say() { echo "release/check-java.sh: $*"; }

[[ $# -eq 1 && -d "$1" ]] || die "usage: scripts/release/check-java.sh OUT (the folder java.sh made)"
OUT=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERSION=0.1.0
BUILD_ROOT=${ABLOOM_BUILD_ROOT:-$ROOT/build}
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
for tool in java javac jar unzip objdump aarch64-linux-gnu-objdump readelf llvm-nm llvm-objdump llvm-readobj sha256sum; do
  command -v "$tool" >/dev/null || die "'$tool' not found (binutils, binutils-aarch64-linux-gnu, llvm, a JDK 17+)"
done
t0=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/abloom-release-java.XXXXXX")
trap 'rm -rf "$work"' EXIT
JAR=$OUT/abloom-$VERSION.jar

# ---- 1. the files ---------------------------------------------------------------------------------
for f in abloom-$VERSION.jar abloom-$VERSION.pom abloom-parent-$VERSION.pom abloom-$VERSION-sources.jar \
  abloom-spark-$VERSION.jar abloom-spark-$VERSION.pom SHA256SUMS; do
  [[ -s "$OUT/$f" ]] || die "OUT has no $f"
done
(cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || die "SHA256SUMS does not match the files"
# (Listings into files first: grep -q would end a pipe early, which pipefail reports as a failure.)
jar tf "$OUT/abloom-$VERSION-sources.jar" >"$work/sources.txt"
jar tf "$OUT/abloom-spark-$VERSION.jar" >"$work/spark.txt"
jar tf "$OUT/abloom-$VERSION.jar" >"$work/main.txt"
grep -qx 'io/abloom/shaded/hash4j/hashing/XXH3_64.class' "$work/main.txt" || die "the jar lacks the relocated hash4j"
if grep -q '^com/dynatrace/' "$work/main.txt" "$work/spark.txt"; then die "a jar carries hash4j unrelocated"; fi
grep -q '<artifactId>hash4j</artifactId>' "$OUT/abloom-$VERSION.pom" && die "the jar's pom still depends on hash4j (it is shaded in)"
grep -qx 'io/abloom/BloomFilter.java' "$work/sources.txt" || die "the sources jar has no io/abloom/BloomFilter.java"
grep -qx 'io/abloom/AbloomNativeJNI.java' "$work/sources.txt" || die "the sources jar lacks the generated AbloomNativeJNI.java"
grep -qx 'io/abloom/spark/AbloomSpark.class' "$work/spark.txt" || die "the Spark jar has no io/abloom/spark/AbloomSpark.class"
if grep -q '^natives/' "$work/spark.txt"; then die "the Spark jar carries natives (they belong to abloom-$VERSION.jar only)"; fi
grep -q "<artifactId>abloom</artifactId>" "$OUT/abloom-spark-$VERSION.pom" || die "the Spark pom does not depend on io.abloom:abloom"
say "1. files: $(cd "$OUT" && ls | tr '\n' ' ')"

# ---- 2. the natives the jar lists ----------------------------------------------------------------
expected="natives/darwin-aarch64/libabloom_jni.dylib
natives/darwin-x86_64/libabloom_jni.dylib
natives/linux-aarch64/libabloom_jni.so
natives/linux-musl-aarch64/libabloom_jni.so
natives/linux-musl-x86_64/libabloom_jni.so
natives/linux-x86_64/libabloom_jni.so
natives/platforms.txt
natives/windows-aarch64/abloom_jni.dll
natives/windows-x86_64/abloom_jni.dll"
listed=$(jar tf "$JAR" | grep '^natives/.*[^/]$' | LC_ALL=C sort)
[[ "$listed" == "$expected" ]] || die "the jar's natives are"$'\n'"$listed"$'\n'"expected"$'\n'"$expected"
mkdir -p "$work/jar"
(cd "$work/jar" && jar xf "$JAR" natives)
index=$(cat "$work/jar/natives/platforms.txt")
[[ "$index" == "$(grep -v platforms.txt <<<"$expected" | sed 's|^natives/||')" ]] || die "natives/platforms.txt lists"$'\n'"$index"
say "2. the jar carries exactly: $(grep -v platforms.txt <<<"$expected" | tr '\n' ' ')and the index"

# ---- 3. each native --------------------------------------------------------------------------------
jni_re='^(Java_io_abloom_[A-Za-z0-9_]+|JNI_On(Load|Unload))$'
check_elf() { # PLATFORM MACHINE OBJDUMP LOADER
  local platform=$1 machine=$2 od=$3 loader=$4 so="$work/jar/natives/$1/libabloom_jni.so" dyn needed above newest bad versions
  local hdr
  hdr=$(readelf -h "$so")
  grep -q "Machine: *$machine" <<<"$hdr" || die "$platform: not an $machine ELF: $(grep Machine <<<"$hdr")"
  "$od" -T "$so" >"$work/$platform.dynsym" || die "$platform: $od -T failed"
  versions=$(grep -o 'GLIBC_[0-9][0-9.]*' "$work/$platform.dynsym" | sort -uV || true) # (none: musl)
  above=$(awk -F'[_.]' '$2 > 2 || ($2 == 2 && $3 > 17)' <<<"$versions")
  [[ -z "$above" ]] || die "$platform: symbol versions above GLIBC_2.17: $(echo $above)"
  newest=$(tail -n1 <<<"$versions")
  if [[ $loader == musl ]]; then # musl has no symbol versions: any GLIBC_ one means a glibc link
    [[ -z "$newest" ]] || die "$platform: asks for glibc symbol versions ($newest)"
    newest="(none: musl)"
  fi
  dyn=$(readelf -d "$so")
  if grep -qE '\((RUNPATH|RPATH)\)' <<<"$dyn"; then die "$platform: has a RUNPATH/RPATH"; fi
  needed=$(sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' <<<"$dyn" | sort | tr '\n' ' ')
  for lib in $needed; do
    case "$lib" in
    libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | "$loader")
      [[ $loader != musl ]] || die "$platform: needs $lib, a glibc library" ;;
    libc.so) [[ $loader == musl ]] || die "$platform: needs libc.so (musl's libc) in a glibc native" ;;
    *) die "$platform: needs $lib (only the C library; the C++ runtime must be linked in)" ;;
    esac
  done
  if [[ $loader == musl && $needed != "libc.so " ]]; then die "$platform: NEEDED is '$needed', not musl's libc.so alone"; fi
  bad=$(llvm-nm -D --defined-only "$so" | awk '{print $3}' | grep -vE "$jni_re" || true)
  [[ -z "$bad" ]] || die "$platform: exports more than JNI symbols: $(echo $bad | head -c 400)"
  llvm-nm -D --defined-only "$so" | awk '{print $3}' | sort >"$work/$platform.jni"
  say "3. $platform: $machine ELF, newest symbol version $newest, NEEDED $needed, no RUNPATH, exports $(wc -l <"$work/$platform.jni") JNI symbols only"
}
check_macho() { # PLATFORM CPU
  local platform=$1 cpu=$2 lib="$work/jar/natives/$1/libabloom_jni.dylib" hdr bad
  hdr=$(llvm-objdump --macho --private-header "$lib")
  grep -q DYLIB <<<"$hdr" || die "$platform: not a Mach-O dylib"
  grep -qw "$cpu" <<<"$hdr" || die "$platform: not a $cpu Mach-O: $(grep -A2 magic <<<"$hdr" | tail -1)"
  bad=$(llvm-nm -gU "$lib" | awk '{print $3}' | sed 's/^_//' |
    grep -vE "$jni_re" | grep -vE '^_Z(nw|na|dl|da)[A-Za-z0-9_]*$|^__dso_handle$|^_mh_dylib_header$' || true)
  [[ -z "$bad" ]] || die "$platform: exports more than JNI symbols and libc++'s operator new/delete: $(echo $bad | head -c 400)"
  llvm-nm -gU "$lib" | awk '{print $3}' | sed 's/^_//' | grep -E "$jni_re" | sort >"$work/$platform.jni"
  say "3. $platform: $cpu Mach-O dylib (linked, not run here), exports $(wc -l <"$work/$platform.jni") JNI symbols (+ libc++ operator new/delete)"
}
check_pe() { # PLATFORM MACHINE
  local platform=$1 machine=$2 dll="$work/jar/natives/$1/abloom_jni.dll" hdr bad imports
  hdr=$(llvm-readobj --file-headers "$dll")
  grep -q "Machine: IMAGE_FILE_MACHINE_$machine " <<<"$hdr" ||
    die "$platform: not an $machine PE: $(grep Machine: <<<"$hdr")"
  grep -q IMAGE_FILE_DLL <<<"$hdr" || die "$platform: not a DLL"
  llvm-readobj --coff-exports "$dll" | sed -n 's/^ *Name: //p' | sort -u >"$work/$platform.exports"
  bad=$(grep -vE "$jni_re" "$work/$platform.exports" || true)
  [[ -z "$bad" ]] || die "$platform: exports more than JNI symbols: $(echo $bad | head -c 400)"
  cp "$work/$platform.exports" "$work/$platform.jni"
  imports=$(llvm-readobj --coff-imports "$dll" | sed -n 's/^ *Name: \(.*\.dll\)$/\1/Ip' | sort -fu | tr '\n' ' ')
  bad=$(tr ' ' '\n' <<<"$imports" | grep -v '^$' |
    grep -viE '^(kernel32|advapi32|ntdll|bcrypt|ws2_32|api-ms-win-[a-z0-9-]+|ucrtbase|msvcrt)\.dll$' || true)
  [[ -z "$bad" ]] || die "$platform: imports DLLs a Windows machine need not have: $(echo $bad)"
  say "3. $platform: $machine DLL, imports only $imports, exports $(wc -l <"$work/$platform.jni") JNI symbols only"
}
check_elf linux-x86_64 "Advanced Micro Devices X86-64" objdump ld-linux-x86-64.so.2
check_elf linux-aarch64 AArch64 aarch64-linux-gnu-objdump ld-linux-aarch64.so.1
check_elf linux-musl-x86_64 "Advanced Micro Devices X86-64" objdump musl
check_elf linux-musl-aarch64 AArch64 aarch64-linux-gnu-objdump musl
check_macho darwin-x86_64 X86_64
check_macho darwin-aarch64 ARM64
check_pe windows-x86_64 AMD64
check_pe windows-aarch64 ARM64
[[ -s "$work/linux-x86_64.jni" ]] || die "no JNI symbols at all"
for p in linux-aarch64 linux-musl-x86_64 linux-musl-aarch64 darwin-x86_64 darwin-aarch64 windows-x86_64 windows-aarch64; do
  cmp -s "$work/linux-x86_64.jni" "$work/$p.jni" || die "$p exports other JNI functions than linux-x86_64: $(diff "$work/linux-x86_64.jni" "$work/$p.jni" | head -5)"
done
say "3. all eight export the same $(wc -l <"$work/linux-x86_64.jni") JNI functions"

# ---- 4. the consumer, plain java -cp, from the jar alone -----------------------------------------
plain=$work/plain
mkdir -p "$plain/classes" "$plain/tmp" "$work/data"
cp "$JAR" "$plain/"
cp "$ROOT"/tests/vectors/blocked_s1.{abloom,keys.txt,absent.txt} "$work/data/"
javac --release 17 -cp "$JAR" -d "$plain/classes" "$ROOT/bindings/java/consumer/Main.java"
user_path="$(dirname "$(command -v java)"):/usr/local/bin:/usr/bin:/bin"
run_consumer() { # OUTDIR [java options...]
  local outdir=$1
  shift
  (cd "$plain" && env -i PATH="$user_path" HOME="$HOME" java -Djava.io.tmpdir="$plain/tmp" \
    -Djava.library.path=/nonexistent "$@" -cp "abloom-$VERSION.jar:classes" consumer.Main \
    "$work/data/blocked_s1" "$outdir")
}
out=$(run_consumer "$work/out-x86_64" 2>&1) || { echo "$out"; die "the consumer failed on x86-64"; }
sed 's/^/   x86-64: /' <<<"$out"
[[ "$(tail -1 <<<"$out")" == "consumer: ok" ]] || die "the consumer did not say ok"
[[ -z "$(ls -A "$plain/tmp")" ]] || die "the extracted library was left in $plain/tmp"
say "4. the consumer ran from the jar on x86-64 (natives/linux-x86_64, the glibc-2.17 build)"

# ---- 5. a platform the jar lacks --------------------------------------------------------------------
if out=$(run_consumer "$work/out-riscv" -Dos.arch=riscv64 2>&1); then die "the consumer ran with os.arch=riscv64: $out"; fi
grep -q "this jar has no native library for linux-riscv64" <<<"$out" || die "no clear error for linux-riscv64: $out"
all_platforms="darwin-aarch64, darwin-x86_64, linux-aarch64, linux-musl-aarch64, linux-musl-x86_64, linux-x86_64, windows-aarch64, windows-x86_64"
grep -q "the jar has natives for $all_platforms only" <<<"$out" ||
  die "the error does not name the jar's eight platforms: $out"
say "5. on linux-riscv64 the error names the jar's platforms: $all_platforms"

# ---- 6. linux-aarch64 under qemu-user --------------------------------------------------------------
skip_qemu() {
  [[ "${ABLOOM_REQUIRE_QEMU:-0}" != 1 ]] || die "6. linux-aarch64 not run: $*"
  say "6. linux-aarch64 NOT run: $*"
}
sysroot=$BUILD_ROOT/release-java/arm64-sysroot
arm_java=$sysroot/usr/lib/jvm/java-17-openjdk-arm64/bin/java
if ! command -v qemu-aarch64 >/dev/null; then
  skip_qemu "no qemu-aarch64 (apt-get install qemu-user)"
else
  if [[ ! -x "$arm_java" ]]; then
    # Debian's own arm64 packages, unpacked (not installed): the JRE and the libraries it loads.
    say "6. unpacking Debian's arm64 JRE into $sysroot"
    rm -rf "$sysroot.debs" "$sysroot"
    source "$ROOT/scripts/lib/debian-fetch.sh"
    if debian_fetch "$BUILD_ROOT/debian-apt" bookworm "$sysroot.debs" openjdk-17-jre-headless:arm64 \
      libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64 zlib1g:arm64 2>"$sysroot.log"; then
      debian_extract "$sysroot.debs" "$sysroot"
    fi
  fi
  if [[ ! -x "$arm_java" ]]; then
    skip_qemu "could not get openjdk-17-jre-headless:arm64 (log: $sysroot.log)"
  else
    t_arm=$SECONDS
    out=$(cd "$plain" && env -i PATH="$user_path" HOME="$HOME" qemu-aarch64 -L "$sysroot" "$arm_java" \
      -Djava.io.tmpdir="$plain/tmp" -Djava.library.path=/nonexistent -XX:TieredStopAtLevel=1 \
      -cp "abloom-$VERSION.jar:classes" consumer.Main "$work/data/blocked_s1" "$work/out-aarch64" 2>&1) ||
      { echo "$out"; die "the consumer failed on linux-aarch64 (qemu)"; }
    sed 's/^/   aarch64 (qemu): /' <<<"$out"
    [[ "$(tail -1 <<<"$out")" == "consumer: ok" ]] || die "the aarch64 consumer did not say ok"
    cmp -s "$work/out-x86_64/java.abloom" "$work/out-aarch64/java.abloom" || die "x86-64 and aarch64 saved different java.abloom"
    say "6. the consumer ran from the jar on linux-aarch64 under qemu ($((SECONDS - t_arm)) s), saving the same java.abloom as on x86-64"
  fi
fi
# ---- 6b. the musl natives under Debian's musl -------------------------------------------------------
source "$ROOT/scripts/lib/debian-fetch.sh"
source "$ROOT/scripts/lib/zig.sh"
ensure_zig "${ABLOOM_ZIG_VENV:-$BUILD_ROOT/zig-venv}" >/dev/null
musl_root=$BUILD_ROOT/release-java/musl
cat >"$work/musl_load.c" <<'C'
/* musl_load NATIVE SYMBOL MAPS_OUT: dlopen NATIVE (every symbol resolved now), find SYMBOL in it,
 * and write this process's /proc/self/maps to MAPS_OUT. */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
  if (dlsym(h, argv[2]) == NULL) { fprintf(stderr, "dlsym %s: %s\n", argv[2], dlerror()); return 1; }
  FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(argv[3], "w");
  if (in == NULL || out == NULL) return 1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  return fclose(in) != 0 || fclose(out) != 0;
}
C
jni_symbol=$(grep '^Java_' "$work/linux-musl-x86_64.jni" | head -1)
declare -A DEB_ARCH=([x86_64]=amd64 [aarch64]=arm64)
for arch in x86_64 aarch64; do
  sysroot=$musl_root/sysroot-$arch
  [[ -e "$sysroot/lib/ld-musl-$arch.so.1" ]] ||
    { debian_fetch "$BUILD_ROOT/debian-apt" bookworm "$musl_root/debs-$arch" "musl:${DEB_ARCH[$arch]}" \
      2>"$work/musl-fetch.log" || { cat "$work/musl-fetch.log"; die "could not fetch Debian's musl for $arch"; }
      rm -rf "$sysroot" && debian_extract "$musl_root/debs-$arch" "$sysroot"; }
  "$ZIG" cc -target "$arch-linux-musl" -dynamic -O2 -o "$work/musl_load-$arch" "$work/musl_load.c"
  native=$work/jar/natives/linux-musl-$arch/libabloom_jni.so
  if [[ $arch == x86_64 ]]; then
    # Debian's layout (the loader is a link to /usr/lib/x86_64-linux-musl/libc.so), then Alpine's
    # (the loader is the file /lib/ld-musl-x86_64.so.1): the loader run as a command.
    "$sysroot/lib/ld-musl-x86_64.so.1" "$work/musl_load-$arch" "$native" "$jni_symbol" "$work/maps-musl-debian" ||
      die "linux-musl-x86_64 did not load under Debian's musl"
    mkdir -p "$work/alpine/lib"
    cp "$(readlink -f "$sysroot/lib/ld-musl-x86_64.so.1")" "$work/alpine/lib/ld-musl-x86_64.so.1"
    "$work/alpine/lib/ld-musl-x86_64.so.1" "$work/musl_load-$arch" "$native" "$jni_symbol" "$work/maps-musl-alpine" ||
      die "linux-musl-x86_64 did not load under musl laid out as on Alpine"
  else
    qemu-aarch64 -L "$sysroot" "$work/musl_load-$arch" "$native" "$jni_symbol" "$work/maps-musl-aarch64" ||
      die "linux-musl-aarch64 did not load under Debian's arm64 musl (qemu)"
  fi
done
# NativeLoader.muslIn on those maps: a class of the same package, on the class path beside the jar.
mkdir -p "$work/probe/src/io/abloom" "$work/probe/classes"
cat >"$work/probe/src/io/abloom/MuslProbe.java" <<'JAVA'
package io.abloom;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Prints "FILE musl=true|false" per maps file, as NativeLoader.muslIn reads it. */
public final class MuslProbe {
  public static void main(String[] args) throws Exception {
    for (String a : args) {
      String maps = Files.readString(Path.of(a), StandardCharsets.ISO_8859_1);
      System.out.println(Path.of(a).getFileName() + " musl=" + NativeLoader.muslIn(maps));
    }
  }
}
JAVA
javac --release 17 -cp "$JAR" -d "$work/probe/classes" "$work/probe/src/io/abloom/MuslProbe.java"
probe=$(java -cp "$JAR:$work/probe/classes" io.abloom.MuslProbe "$work/maps-musl-debian" \
  "$work/maps-musl-alpine" "$work/maps-musl-aarch64" /proc/self/maps)
expected_probe="maps-musl-debian musl=true
maps-musl-alpine musl=true
maps-musl-aarch64 musl=true
maps musl=false"
[[ "$probe" == "$expected_probe" ]] || die "NativeLoader.muslIn on live maps said:"$'\n'"$probe"$'\n'"expected"$'\n'"$expected_probe"
say "6b. linux-musl-x86_64 and linux-musl-aarch64 load (RTLD_NOW) under Debian's musl $(basename "$musl_root"/debs-x86_64/musl_*_amd64.deb | cut -d_ -f2) (aarch64 under qemu), and NativeLoader tells those processes' maps for musl (Debian's and Alpine's layouts) and this JVM's for glibc"
# ---- 7. the README's install lines ---------------------------------------------------------------
# mvn install:install-file from OUT into a local repository of its own (plugins from ~/.m2/repository
# read as a file:// repository when there, else Maven Central): what lands there is OUT's files.
if command -v mvn >/dev/null; then
  m2=$work/m2
  source "$ROOT/scripts/lib/maven-seed.sh"
  maven_seed_settings "$work/settings.xml" --plugins-only
  install() { (cd "$work" && mvn -B -q -ntp -s "$work/settings.xml" -Dmaven.repo.local="$m2" install:install-file "$@") >>"$work/install.log" 2>&1 ||
    { tail -30 "$work/install.log"; die "mvn install:install-file $* failed"; }; }
  install -Dfile="$OUT/abloom-parent-$VERSION.pom" -DpomFile="$OUT/abloom-parent-$VERSION.pom" -Dpackaging=pom
  install -Dfile="$JAR" -DpomFile="$OUT/abloom-$VERSION.pom" -Dsources="$OUT/abloom-$VERSION-sources.jar"
  install -Dfile="$OUT/abloom-spark-$VERSION.jar" -DpomFile="$OUT/abloom-spark-$VERSION.pom"
  for f in abloom-parent/$VERSION/abloom-parent-$VERSION.pom abloom/$VERSION/abloom-$VERSION.jar \
    abloom/$VERSION/abloom-$VERSION.pom abloom/$VERSION/abloom-$VERSION-sources.jar \
    abloom-spark/$VERSION/abloom-spark-$VERSION.jar abloom-spark/$VERSION/abloom-spark-$VERSION.pom; do
    cmp -s "$m2/io/abloom/$f" "$OUT/$(basename "$f")" || die "install:install-file did not install $(basename "$f") as it is in OUT"
  done
  say "7. the README's mvn install:install-file lines install io.abloom:abloom-parent, abloom (with sources) and abloom-spark $VERSION"
else
  say "7. NOT checked: the install lines (no mvn)"
fi
say "all passed ($((SECONDS - t0)) s)"
