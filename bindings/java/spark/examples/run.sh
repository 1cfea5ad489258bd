#!/usr/bin/env bash
# Runs the two example jobs the way the README's "Run it" says, with Spark from pip's pyspark
# (pinned below) in local mode:
#
#   bash bindings/java/spark/examples/run.sh ABLOOM_JAR ABLOOM_SPARK_JAR
#
# ABLOOM_JAR is io.abloom:abloom's jar (its native inside), ABLOOM_SPARK_JAR the Spark module's.
# 1. a venv with pyspark==PYSPARK_VERSION (it carries Spark's jars and spark-submit), kept in
#    ${ABLOOM_BUILD_ROOT:-build}/spark-examples between runs;
# 2. java/example/BuildAndQuery.java compiled against Spark's jars and the two jars, then
#    `spark-submit --master local[2] --jars ... --class example.BuildAndQuery`;
# 3. python/build_and_query.py through the same spark-submit.
# Each job checks its own answers (every key found, false positives near 1%) and exits non-zero
# otherwise; each saves its filter into a temporary folder, removed at the end.
set -euo pipefail

PYSPARK_VERSION=4.0.1 # the Spark the module is built and tested against (spark/pom.xml)
die() { echo "spark examples: $*" >&2; exit 1; }
[[ $# -eq 2 ]] || die "usage: run.sh ABLOOM_JAR ABLOOM_SPARK_JAR"
jar=$(readlink -f "$1")
spark_jar=$(readlink -f "$2")
[[ -f "$jar" && -f "$spark_jar" ]] || die "no such jar: $1 or $2"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)
build_root=${ABLOOM_BUILD_ROOT:-build}
[[ "$build_root" = /* ]] || build_root=$root/$build_root
venv=$build_root/spark-examples/venv
work=$(mktemp -d "${TMPDIR:-/tmp}/abloom-spark-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- 1. Spark from PyPI --------------------------------------------------------------------------
if [[ "$(cat "$venv/.pyspark" 2>/dev/null)" != "$PYSPARK_VERSION" ]]; then
  echo "spark examples: pip install pyspark==$PYSPARK_VERSION into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "pyspark==$PYSPARK_VERSION"
  echo "$PYSPARK_VERSION" >"$venv/.pyspark"
fi
spark_jars=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
submit=("$venv/bin/spark-submit" --master 'local[2]' --jars "$jar,$spark_jar")

# ---- 2. the Java job -----------------------------------------------------------------------------
mkdir -p "$work/classes" # (-path: the Spark jars name Class-Path entries that pyspark does not ship)
javac --release 17 -Xlint:all,-path -Werror -cp "$spark_jars/*:$jar:$spark_jar" -d "$work/classes" \
  "$here/java/example/BuildAndQuery.java"
jar --create --file "$work/examples.jar" -C "$work/classes" .
echo "spark examples: spark-submit --master local[2] --class example.BuildAndQuery"
PATH="$venv/bin:$PATH" "${submit[@]}" --class example.BuildAndQuery "$work/examples.jar" \
  "$work/users.abloom" >"$work/java.log" 2>&1 || { tail -40 "$work/java.log"; die "the Java job failed"; }
grep -E "^(built|found) " "$work/java.log" | sed 's/^/  java:   /'
grep -q "^found 100000 of 100000 users" "$work/java.log" || die "the Java job did not report its answers"

# ---- 3. the PySpark job --------------------------------------------------------------------------
echo "spark examples: spark-submit --master local[2] build_and_query.py"
PATH="$venv/bin:$PATH" "${submit[@]}" "$here/python/build_and_query.py" "$work/users-py.abloom" \
  >"$work/python.log" 2>&1 || { tail -40 "$work/python.log"; die "the PySpark job failed"; }
grep -E "^(built|found) " "$work/python.log" | sed 's/^/  python: /'
grep -q "^found 100000 of 100000 users" "$work/python.log" || die "the PySpark job did not report its answers"
cmp -s "$work/users.abloom" "$work/users-py.abloom" || die "the Java and PySpark jobs saved different files"
echo "spark examples: both jobs passed, and saved the same file"
