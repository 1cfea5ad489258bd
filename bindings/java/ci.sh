#!/usr/bin/env bash
# CI for the Java binding of abloom:   bash bindings/java/ci.sh PREFIX
#
# PREFIX: an absolute path where the abloom C library is installed (include/abloom.h,
# lib/libabloom.so). Checks the toolchain (JDK 17+, Maven, SWIG 4, a C compiler), then runs
# `mvn verify` on bindings/java, which fetches the dependencies from Maven Central, generates the
# JNI layer with SWIG, builds libabloom_jni.so against PREFIX, compiles with -Xlint:all -Werror
# (and doclint on the public API), runs the JUnit 5 tests (golden vectors, files exchanged with C,
# threads, every exception path, both library-loading ways) and packages the jar and the JMH
# benchmark jar. Then: the packaged jar loads its bundled library with no java.library.path, and
# every JMH benchmark runs one tiny smoke iteration (not a measurement).
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
java_major=$(javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/')
[[ "$java_major" =~ ^[0-9]+$ && "$java_major" -ge 17 ]] || die "JDK 17+ needed, javac says: $(javac -version 2>&1)"
swig_major=$(swig -version | sed -nE 's/^SWIG Version ([0-9]+).*/\1/p')
[[ "${swig_major:-0}" -ge 4 ]] || die "SWIG 4.x needed, found: $(swig -version | grep -i version)"
[[ -f "$prefix/include/abloom.h" ]] || die "$prefix/include/abloom.h not found: PREFIX must be an abloom install"
ls "$prefix"/lib/libabloom.so* >/dev/null 2>&1 || die "$prefix/lib/libabloom.so not found"

export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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

# ---- the jar's bundled native library, without java.library.path ----
jar=$(ls abloom/target/abloom-*.jar | grep -v -- '-sources\|-javadoc' | head -1)
jar tf "$jar" >"$log_dir/jar.txt"
grep -q "^native/linux-x86_64/libabloom_jni.so$" "$log_dir/jar.txt" || die "$jar does not bundle libabloom_jni.so"
out=$(java -Djava.library.path=/nonexistent -cp "$jar:abloom/target/test-classes" io.abloom.NativeLoaderTest)
[[ "$out" == "jar:/native/linux-x86_64/libabloom_jni.so true false" ]] || die "loading from the jar: got '$out'"
echo "java ci: $jar loads its bundled libabloom_jni.so: ok"

# ---- JMH: one tiny smoke iteration of every benchmark (no measurement) ----
if ! java -jar bench/target/benchmarks.jar -f 0 -wi 0 -i 1 -r 50ms -p n=20000 -foe true \
    >"$log_dir/jmh.log" 2>&1; then
  tail -60 "$log_dir/jmh.log"
  die "JMH smoke run failed"
fi
smoke=$(grep -cE "^AbloomVsGuava\.[a-zA-Z]+ +20000 " "$log_dir/jmh.log" || true)
[[ "$smoke" -ge 7 ]] || { tail -30 "$log_dir/jmh.log"; die "JMH smoke: expected 7 benchmark rows, got $smoke"; }
echo "java ci: JMH smoke pass of $smoke benchmarks: ok"
echo "java ci: all passed"
