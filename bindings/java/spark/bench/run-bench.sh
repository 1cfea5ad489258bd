#!/usr/bin/env bash
# The Spark module's benchmark against Spark's own Bloom filter (bench/RESULTS.md, "Spark module
# (issue 17)"):   bash bindings/java/spark/bench/run-bench.sh N [REPS] [PARTITIONS]
#
# Needs the Java binding installed in the local Maven repository (bindings/java/spark/ci.sh does
# it, or: mvn -f bindings/java/pom.xml -pl abloom -am -DskipTests install). Compiles the module
# and the bench (a test source root of the module), then runs io.abloom.spark.bench.SparkBench in
# one JVM (local[2], heap ABLOOM_BENCH_HEAP, default 8g) with Spark's Java 17 flags from the pom.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 N [REPS] [PARTITIONS]" >&2; exit 2; }
cd "$here"
mvn -B -ntp -q -Dabloom.exchange.dir= test-compile
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
mvn -B -ntp -q dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test
flags=$(sed -n 's:.*<spark.jvm.flags>\(.*\)</spark.jvm.flags>.*:\1:p' pom.xml)
# shellcheck disable=SC2086 # $flags is a list of JVM options
exec java -Xmx"${ABLOOM_BENCH_HEAP:-8g}" ${ABLOOM_BENCH_JVM:-} $flags -cp "target/classes:target/test-classes:$(cat "$cp_file")" \
  io.abloom.spark.bench.SparkBench "$@"
