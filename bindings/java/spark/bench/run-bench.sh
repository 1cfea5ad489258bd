#!/usr/bin/env bash
# The Spark module's benchmark against Spark's own Bloom filter (bench/JOURNAL.md, "Spark module
# (issue 17)"):   bash bindings/java/spark/bench/run-bench.sh N [REPS] [PARTITIONS] [bigint|string]
#
# Needs the Java binding installed in the local Maven repository (bindings/java/spark/ci.sh does
# it, or: mvn -f bindings/java/pom.xml -pl abloom -am -DskipTests install). Compiles the module
# and the bench (a test source root of the module), then runs io.abloom.spark.bench.SparkBench in
# one JVM (local[2], heap ABLOOM_BENCH_HEAP, default 8g) with Spark's Java 17 flags from the pom.
# ABLOOM_BENCH_JAR=target/abloom-spark-0.1.0.jar runs the packaged (shaded) jar instead of the
# compiled classes; ABLOOM_BENCH_MAIN=io.abloom.spark.bench.ProbeBench runs the per-row micro-benchmark.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 N [REPS] [PARTITIONS] [bigint|string]" >&2; exit 2; }
cd "$here"
mvn -B -ntp -q -Dabloom.exchange.dir= test-compile
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
classes=target/classes
if [[ -n "${ABLOOM_BENCH_JAR:-}" ]]; then
  # The packaged jar instead of the classes (ci.sh: the smoke run checks that the jar a job
  # ships, with the binding's jar, is complete).
  [[ -f "$ABLOOM_BENCH_JAR" ]] || { echo "no jar $ABLOOM_BENCH_JAR (mvn package first)" >&2; exit 2; }
  classes=$ABLOOM_BENCH_JAR
fi
mvn -B -ntp -q dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test
flags=$(sed -n 's:.*<spark.jvm.flags>\(.*\)</spark.jvm.flags>.*:\1:p' pom.xml)
# shellcheck disable=SC2086 # $flags is a list of JVM options
exec java -Xmx"${ABLOOM_BENCH_HEAP:-8g}" ${ABLOOM_BENCH_JVM:-} $flags -cp "$classes:target/test-classes:$(cat "$cp_file")" \
  "${ABLOOM_BENCH_MAIN:-io.abloom.spark.bench.SparkBench}" "$@"
