#!/usr/bin/env bash
# The Java package, checked as its users get it:
#
#   bash bindings/java/package_check.sh [--prefix=PREFIX] [EXCHANGE_DIR]
#
# 1. Installs the binding with the README's command, `mvn -f bindings/java/pom.xml install`
#    (run from the repository root, after a `clean`; with -Dabloom.prefix=PREFIX when --prefix is
#    given, else the engine is built from this repository's sources, as the README's first
#    command does), into a temporary local Maven repository. Maven plugins come from
#    ~/.m2/repository, used read-only as a file:// repository, then Maven Central; io.abloom
#    comes only from this install (checked by hash).
# 2. Checks the installed jar: natives/linux-x86_64/libabloom_jni.so with no RUNPATH/RPATH,
#    needing only glibc libraries, exporting only JNI entry points.
# 3. Builds a consumer Maven project in a temporary folder outside the repository that depends
#    on io.abloom:abloom:0.1.0 and nothing else, and runs it through Maven (exec:exec, the
#    dependency classpath); then runs the same classes with a plain
#    `java -cp abloom-0.1.0.jar:classes`. The consumer creates a filter, adds and tests keys
#    (String, long, byte[], a batch), opens tests/vectors/blocked_s1.abloom, written by the C
#    library (its shape, every one of its 450 keys present, every recorded answer for its 2000
#    absent keys), and saves a filter of its own, java.abloom, with its keys, java.keys.txt (one
#    per line), which it reopens and checks. The plain run saves them into EXCHANGE_DIR when
#    given (scripts/test-all.sh, stage packages; stage debian: the C consumer of the Debian packages reads
#    them), both runs must save the same bytes.
#
# Every step runs with the environment a user has (env -i: PATH and HOME only; no JAVA_HOME, no
# LD_LIBRARY_PATH, no MAVEN_OPTS), so a step that needs a variable the README does not ask for
# fails here. Exits non-zero on any failure. Needs what the build needs (README, "Build").
set -euo pipefail

usage="usage: bash bindings/java/package_check.sh [--prefix=PREFIX] [EXCHANGE_DIR]"
prefix=""
exchange=""
for arg in "$@"; do
  case "$arg" in
    --prefix=*) prefix=${arg#--prefix=} ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) [[ -z "$exchange" ]] || { echo "$usage" >&2; exit 2; }; exchange=$arg ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
version=0.1.0

say() { echo "java package: $*"; }
die() {
  echo "java package: FAILED: $*" >&2
  exit 1
}

[[ -z "$prefix" || "$prefix" == /* ]] || die "PREFIX must be an absolute path, got '$prefix'"
if [[ -n "$exchange" ]]; then
  [[ -d "$exchange" ]] || die "EXCHANGE_DIR $exchange is not a folder"
  exchange=$(cd "$exchange" && pwd)
fi
for tool in java javac jar mvn readelf nm objdump sha256sum; do
  command -v "$tool" >/dev/null || die "'$tool' not found"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/abloom-java-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
case "$work/" in "$root"/*) die "the temporary folder $work is inside the repository" ;; esac

# A user's environment: the PATH where the tools are (the folders of the ones this check and the
# build use, then the usual ones) and HOME. Nothing else.
user_path=""
for tool in java javac mvn swig cc c++ cmake; do
  p=$(command -v "$tool" 2>/dev/null) || continue
  d=$(dirname "$p")
  case ":$user_path:" in *":$d:"*) ;; *) user_path="${user_path:+$user_path:}$d" ;; esac
done
user_path="$user_path:/usr/local/bin:/usr/bin:/bin"
# CI's compiler cache (scripts/lib/ci-cache.sh: ccache in front of the engine's CMake build) is
# passed on: it changes no result.
source "$root/scripts/lib/ci-cache.sh"
mapfile -t cache_env < <(ci_cache_vars)
as_user() { env -i PATH="$user_path" HOME="$HOME" "${cache_env[@]}" "$@"; }

# ---- the temporary local repository; plugins from ~/.m2/repository (read-only), then Central ----
repo="$work/m2"
settings="$work/settings.xml"
source "$root/scripts/lib/maven-seed.sh"
maven_seed_settings "$settings"
mvn_opts=(-B -ntp -Dstyle.color=never -s "$settings" -Dmaven.repo.local="$repo")

# ---- 1. the README's install ----
install_cmd=(mvn -f bindings/java/pom.xml)
[[ -n "$prefix" ]] && install_cmd+=("-Dabloom.prefix=$prefix")
install_cmd+=(clean install)
say "1. (cd $root && ${install_cmd[*]}) into $repo"
if ! (cd "$root" && as_user "${install_cmd[@]}" "${mvn_opts[@]}") >"$work/install.log" 2>&1; then
  grep -E "Tests run:|ERROR|build-native" "$work/install.log" | head -60 || true
  tail -60 "$work/install.log"
  die "mvn install failed"
fi
grep -E "^\[INFO\] Tests run: [0-9]+, Failures" "$work/install.log" | tail -1 || true
installed="$repo/io/abloom/abloom/$version"
jar="$installed/abloom-$version.jar"
for f in "$jar" "$installed/abloom-$version.pom" "$repo/io/abloom/abloom-parent/$version/abloom-parent-$version.pom"; do
  [[ -f "$f" ]] || die "mvn install left no $f"
done
built="$here/abloom/target/abloom-$version.jar"
[[ "$(sha256sum <"$jar")" == "$(sha256sum <"$built")" ]] || die "$jar is not the jar just built ($built)"
say "   installed io.abloom:abloom:$version: $(du -k "$jar" | cut -f1) KiB"

# ---- 2. the jar and its native library ----
mkdir -p "$work/jar"
(cd "$work/jar" && jar xf "$jar")
natives=$(cd "$work/jar" && find natives -type f | sort)
say "2. natives in the jar: $(echo $natives)"
so="$work/jar/natives/linux-x86_64/libabloom_jni.so"
[[ -f "$so" ]] || die "the jar has no natives/linux-x86_64/libabloom_jni.so"
native=$(bash "$here/check_native.sh" "$so") || die "libabloom_jni.so fails its checks (above)"
say "   libabloom_jni.so: $native"

# ---- 3. a consumer project, outside the repository, from nothing but the package ----
data="$work/data"
mkdir -p "$data"
cp "$root"/tests/vectors/blocked_s1.{abloom,keys.txt,absent.txt} "$data/"
consumer="$work/consumer"
mkdir -p "$consumer/src/main/java/consumer"
cat >"$consumer/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>abloom-consumer</artifactId>
  <version>1.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency>
      <groupId>io.abloom</groupId>
      <artifactId>abloom</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
        <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
        <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.2</version></plugin>
        <plugin><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin>
      </plugins>
    </pluginManagement>
    <plugins>
      <plugin>
        <groupId>org.codehaus.mojo</groupId>
        <artifactId>exec-maven-plugin</artifactId>
        <version>3.5.0</version>
        <executions>
          <execution>
            <id>run</id>
            <phase>package</phase>
            <goals><goal>exec</goal></goals>
            <configuration>
              <executable>java</executable>
              <arguments>
                <argument>-classpath</argument>
                <classpath/>
                <argument>consumer.Main</argument>
                <argument>$data/blocked_s1</argument>
                <argument>$work/out-maven</argument>
              </arguments>
            </configuration>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
EOF
# The consumer's one source, shared with scripts/release/check-java.sh (the release jar's check).
cp "$here/consumer/Main.java" "$consumer/src/main/java/consumer/Main.java"

say "3. consumer project $consumer (depends on io.abloom:abloom:$version only): mvn package, run by exec:exec"
if ! (cd "$consumer" && as_user mvn "${mvn_opts[@]}" package) >"$work/consumer.log" 2>&1; then
  tail -60 "$work/consumer.log"
  die "the consumer's Maven build or run failed"
fi
grep "^consumer:" "$work/consumer.log" | sed 's/^/   maven: /'
grep -q "^consumer: ok$" "$work/consumer.log" || die "the consumer run through Maven did not say ok"
[[ -f "$repo/io/abloom/abloom/$version/abloom-$version.jar" ]] || die "io.abloom vanished"

say "   plain java -cp abloom-$version.jar:classes (copied to $work/plain, cwd there)"
plain="$work/plain"
mkdir -p "$plain/tmp"
cp "$jar" "$plain/abloom-$version.jar"
cp -r "$consumer/target/classes" "$plain/classes"
run_plain() {
  (cd "$plain" && as_user "$@" java -Djava.io.tmpdir="$plain/tmp" -cp "abloom-$version.jar:classes" \
    consumer.Main "$data/blocked_s1" "$out_dir")
}
out_dir=${exchange:-$work/out-plain}
out=$(run_plain 2>&1) || { echo "$out"; die "the plain java -cp run failed"; }
sed 's/^/   java -cp: /' <<<"$out"
[[ "$(tail -1 <<<"$out")" == "consumer: ok" ]] || die "the plain java -cp run did not say ok"
[[ -z "$(ls -A "$plain/tmp")" ]] || die "the extracted library was left in $plain/tmp: $(ls -A "$plain/tmp")"
cmp -s "$work/out-maven/java.abloom" "$out_dir/java.abloom" || die "the two runs saved different java.abloom"
cmp -s "$work/out-maven/java.keys.txt" "$out_dir/java.keys.txt" || die "the two runs saved different java.keys.txt"
say "   both runs saved the same java.abloom and java.keys.txt; the plain run's are in $out_dir"

# Which shared objects the dynamic loader opened for that run (LD_DEBUG only observes): the JNI
# library from the private temporary folder, and no libabloom.so.
out_dir=$work/out-ld
run_plain LD_DEBUG=libs >/dev/null 2>"$work/ld.log" || die "the LD_DEBUG run failed"
loaded=$(grep -oE "calling init: [^ ]*libabloom[^ ]*" "$work/ld.log" | sed 's/calling init: //' | sort -u)
[[ -n "$loaded" ]] || die "LD_DEBUG saw no libabloom_jni.so loaded"
grep -qE "libabloom\.so" <<<"$loaded" && die "a libabloom.so was loaded: $loaded"
case "$loaded" in "$plain/tmp/abloom-jni"*/libabloom_jni.so) ;; *) die "unexpected libraries: $loaded" ;; esac
say "   the loader opened $loaded (extracted from the jar, then deleted), no libabloom.so"
say "all passed"
