#!/usr/bin/env bash
# CI for the Java binding of abloom:   bash bindings/java/ci.sh PREFIX
#
# PREFIX: an absolute path where the abloom C library is installed (include/abloom.h,
# lib/libabloom.a). Checks the toolchain (JDK 17+, Maven, SWIG 4, a C and a C++ compiler),
# then runs `mvn verify` on bindings/java, which fetches the dependencies from Maven Central,
# generates the JNI layer with SWIG, links libabloom_jni.so against PREFIX/lib/libabloom.a
# statically, compiles with -Xlint:all -Werror (and doclint on the public API), runs the JUnit 5
# tests (golden vectors, files exchanged with C, threads, every exception path, every way the
# library loads) and packages the jar and the JMH benchmark jar. Then: the jar's native library
# has no RUNPATH, needs only glibc and exports only JNI entry points; the jar, alone in a folder,
# loads it with nothing on java.library.path or LD_LIBRARY_PATH; every JMH benchmark runs one
# tiny smoke iteration (not a measurement). The package as users get it (the README's
# `mvn install`, a consumer project outside the repository, `java -cp`) is package_check.sh,
# which scripts/test-all.sh runs in its stage `packages`.
set -euo pipefail

prefix=${1:?usage: bash bindings/java/ci.sh PREFIX (absolute path of an abloom install)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

die() { echo "java ci: $*" >&2; exit 1; }

# ---- toolchain ----
command -v java >/dev/null || die "java not found (install a JDK 17+: apt-get install openjdk-17-jdk-headless)"
command -v javac >/dev/null || die "javac not found (install a JDK 17+, not only a JRE)"
command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
command -v swig >/dev/null || die "swig not found (apt-get install swig; SWIG 4.x)"
command -v cc >/dev/null || die "cc not found (apt-get install gcc)"
command -v c++ >/dev/null || die "c++ not found (apt-get install g++)"
java_major=$(javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/')
[[ "$java_major" =~ ^[0-9]+$ && "$java_major" -ge 17 ]] || die "JDK 17+ needed, javac says: $(javac -version 2>&1)"
swig_major=$(swig -version | sed -nE 's/^SWIG Version ([0-9]+).*/\1/p')
[[ "${swig_major:-0}" -ge 4 ]] || die "SWIG 4.x needed, found: $(swig -version | grep -i version)"
[[ -f "$prefix/include/abloom.h" ]] || die "$prefix/include/abloom.h not found: PREFIX must be an abloom install"
[[ -f "$prefix/lib/libabloom.a" ]] || die "$prefix/lib/libabloom.a not found (the JNI library links the engine statically)"

# Nothing may need the prefix at run time: no library path into it.
unset LD_LIBRARY_PATH
export MAVEN_OPTS="${MAVEN_OPTS:--Xmx1g}"
cd "$here"

# ---- build, lint, test, package ----
echo "java ci: mvn verify (SWIG + JNI build against $prefix, -Xlint:all -Werror, JUnit 5)"
if ! mvn -B -ntp -Dabloom.prefix="$prefix" -Dstyle.color=never clean verify >"$log_dir/mvn.log" 2>&1; then
  grep -E "Tests run:|FAIL|ERROR" "$log_dir/mvn.log" | head -80 || true
  echo "---- last lines of the Maven log ----"
  tail -120 "$log_dir/mvn.log"
  die "mvn verify failed"
fi
grep -E "^\[INFO\] Tests run:|^\[(WARNING|ERROR)\]" "$log_dir/mvn.log" | grep -v "Tests run:.*, Time elapsed" || true
grep -qE "Tests run: [0-9]+, Failures: 0, Errors: 0, Skipped: [0-9]+$" "$log_dir/mvn.log" \
  || die "no Surefire summary in the Maven log"

# ---- mutation testing of the single-key probe: JavaPathTest must kill its mutants ----
echo "java ci: mutation testing of io.abloom.Probe and its parts (PIT, profile mutation)"
if ! mvn -B -ntp -Dabloom.prefix="$prefix" -Dstyle.color=never -Pmutation -pl abloom \
  test-compile org.pitest:pitest-maven:mutationCoverage >"$log_dir/pit.log" 2>&1; then
  grep -E "SURVIVED|Generated|Killed|threshold|ERROR" "$log_dir/pit.log" | head -60 || true
  tail -40 "$log_dir/pit.log"
  die "mutation testing failed (surviving mutants of io.abloom.Probe and its parts, or the run itself)"
fi
grep -E "^>> (Generated|Ran)|KILLED|SURVIVED" "$log_dir/pit.log" | grep -vE "^\s*$" | head -20 || true

# ---- the jar's native library: self-contained, loaded from a folder with nothing else ----
jar=$(ls abloom/target/abloom-*.jar | grep -v -- '-sources\|-javadoc' | head -1)
jar tf "$jar" >"$log_dir/jar.txt"
grep -q "^natives/linux-x86_64/libabloom_jni.so$" "$log_dir/jar.txt" || die "$jar does not bundle natives/linux-x86_64/libabloom_jni.so"
# hash4j (the single-key calls' XXH3) travels inside the jar, relocated: nothing else is needed,
# and an application's own hash4j of another version cannot clash with it.
grep -q "^io/abloom/shaded/hash4j/hashing/XXH3_64.class$" "$log_dir/jar.txt" || die "$jar lacks the relocated hash4j"
if grep -q "^com/dynatrace/" "$log_dir/jar.txt"; then die "$jar carries hash4j unrelocated"; fi
(cd "$log_dir" && jar xf "$here/$jar" natives/linux-x86_64/libabloom_jni.so)
so="$log_dir/natives/linux-x86_64/libabloom_jni.so"
native=$(bash "$here/check_native.sh" "$so") || die "the bundled libabloom_jni.so fails its checks (above)"
echo "java ci: bundled libabloom_jni.so: $native"
alone="$log_dir/alone"
mkdir -p "$alone"
cp "$jar" "$alone/abloom.jar"
cp -r abloom/target/test-classes "$alone/test-classes"
out=$(cd "$alone" && env -i PATH="$PATH" HOME="$HOME" java -Djava.library.path=/nonexistent \
  -cp abloom.jar:test-classes io.abloom.NativeLoaderTest)
[[ "$out" == "jar:/natives/linux-x86_64/libabloom_jni.so true false" ]] || die "loading from the jar: got '$out'"
echo "java ci: $jar, alone in a folder, loads its bundled libabloom_jni.so: ok"

# ---- JMH: one tiny smoke iteration of every benchmark (no measurement) ----
if ! java -jar bench/target/benchmarks.jar -f 0 -wi 0 -i 1 -r 50ms -p n=20000 -foe true \
    >"$log_dir/jmh.log" 2>&1; then
  tail -60 "$log_dir/jmh.log"
  die "JMH smoke run failed"
fi
# (JMH drops the benchmarks' common package prefix: io.abloom., as ProbeSteps is in io.abloom)
smoke=$(grep -cE "^(bench\.)?AbloomVsGuava\.[a-zA-Z]+ +20000 " "$log_dir/jmh.log" || true)
[[ "$smoke" -ge 7 ]] || { tail -30 "$log_dir/jmh.log"; die "JMH smoke: expected 7 AbloomVsGuava rows, got $smoke"; }
steps=$(grep -cE "^ProbeSteps\.[a-zA-Z]+ +20000 " "$log_dir/jmh.log" || true)
[[ "$steps" -ge 5 ]] || { tail -30 "$log_dir/jmh.log"; die "JMH smoke: expected 5 ProbeSteps rows, got $steps"; }
smoke=$((smoke + steps))
echo "java ci: JMH smoke pass of $smoke benchmarks: ok"
echo "java ci: all passed"
