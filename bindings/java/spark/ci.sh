#!/usr/bin/env bash
# CI for the Spark module of the Java binding:   bash bindings/java/spark/ci.sh PREFIX
#
# PREFIX: an absolute path where the abloom C library is installed (include/abloom.h,
# lib/libabloom.a, lib/libabloom.so). Installs the Java binding (bindings/java, tests skipped:
# stage `java` runs them) into the local Maven repository, then runs `mvn verify` on this module:
# Spark 4 (spark-sql_2.13, provided) from Maven Central, -Xlint:all -Werror with doclint on the
# public API, the bench compiled under the same lint, and the JUnit 5 tests in one local[2]
# SparkSession (build vs one process byte for byte, FPR, SQL function vs Java API, semi-join,
# save and its failures, bad input). The exchange test writes spark.abloom and spark.keys.txt,
# which an independent C program (tests/install/deb/file_reader.c, built here against PREFIX)
# then opens with its checksum verified, finding every key. Then one tiny run of the benchmark
# (a smoke run, not a measurement), and last the README's example jobs (examples/run.sh:
# spark-submit --master local[2] from pip's pyspark, Java and PySpark).
set -euo pipefail

prefix=${1:?usage: bash bindings/java/spark/ci.sh PREFIX (absolute path of an abloom install)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

die() { echo "spark ci: $*" >&2; exit 1; }

command -v java >/dev/null || die "java not found (install a JDK 17+)"
command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
command -v cc >/dev/null || die "cc not found (apt-get install gcc)"
java_major=$(javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/')
[[ "$java_major" =~ ^[0-9]+$ && "$java_major" -ge 17 ]] || die "JDK 17+ needed (Spark 4), javac says: $(javac -version 2>&1)"
[[ -f "$prefix/include/abloom.h" && -f "$prefix/lib/libabloom.a" ]] || die "$prefix is not an abloom install"
export MAVEN_OPTS="${MAVEN_OPTS:--Xmx1g}"

mvn_or_die() { # LOG what args...
  local log=$1 what=$2
  shift 2
  if ! mvn -B -ntp -Dstyle.color=never "$@" >"$log" 2>&1; then
    grep -E "Tests run:|FAIL|ERROR" "$log" | head -60 || true
    echo "---- last lines of the Maven log ----"
    tail -80 "$log"
    die "$what failed"
  fi
}

echo "spark ci: installing the Java binding (tests skipped) into the local Maven repository"
mvn_or_die "$work/install.log" "installing the Java binding" -f "$here/../pom.xml" -pl abloom -am \
  -Dabloom.prefix="$prefix" -DskipTests install

echo "spark ci: mvn verify (Spark module: -Xlint:all -Werror, JUnit 5 in local[2])"
exchange="$work/exchange"
mkdir -p "$exchange"
mvn_or_die "$work/verify.log" "mvn verify" -f "$here/pom.xml" -Dabloom.exchange.dir="$exchange" clean verify
grep -E "^\[INFO\] Tests run:|^\[(WARNING|ERROR)\]" "$work/verify.log" | grep -v "Tests run:.*, Time elapsed" || true
grep -qE "Tests run: [1-9][0-9]*, Failures: 0, Errors: 0, Skipped: 0$" "$work/verify.log" \
  || die "no Surefire summary with every test run and none skipped"

echo "spark ci: a C program opens the file Spark wrote"
for f in spark.abloom spark.keys.txt; do
  [[ -s "$exchange/$f" ]] || die "the exchange test wrote no $f"
done
cc -std=c99 -Wall -Werror -I"$prefix/include" "$root/tests/install/deb/file_reader.c" \
  -o "$work/file_reader" -L"$prefix/lib" -labloom -Wl,-rpath,"$prefix/lib"
"$work/file_reader" "$exchange/spark.abloom" "$exchange/spark.keys.txt"

echo "spark ci: the jar carries no hash4j (the binding's jar has it, relocated, for both)"
jar="$here/target/abloom-spark-0.1.0.jar"
listing=$(jar tf "$jar")
if grep -qE "com/dynatrace/|/shaded/" <<<"$listing"; then die "$jar carries a copy of hash4j"; fi

echo "spark ci: benchmark smoke runs from the packaged jar (200k bigint and 100k string keys, 1 run; not a measurement)"
if ! ABLOOM_BENCH_JAR="$jar" ABLOOM_BENCH_HEAP=1g bash "$here/bench/run-bench.sh" 200000 1 2 >"$work/bench.log" 2>&1; then
  tail -40 "$work/bench.log"
  die "benchmark smoke run failed"
fi
grep -qE "^\| query over 200,000 rows" "$work/bench.log" || { tail -20 "$work/bench.log"; die "benchmark smoke: no result table"; }
if ! ABLOOM_BENCH_JAR="$jar" ABLOOM_BENCH_HEAP=1g bash "$here/bench/run-bench.sh" 100000 1 2 string >"$work/bench-s.log" 2>&1; then
  tail -40 "$work/bench-s.log"
  die "benchmark smoke run (string keys) failed"
fi
grep -qE "^\| query over 100,000 rows" "$work/bench-s.log" || { tail -20 "$work/bench-s.log"; die "benchmark smoke (string keys): no result table"; }
echo "spark ci: benchmark smoke run: ok"

echo "spark ci: the README's examples (Java and PySpark jobs, spark-submit --master local[2], pip's pyspark)"
bash "$here/examples/run.sh" "$here/../abloom/target/abloom-0.1.0.jar" "$jar"
echo "spark ci: all passed"
