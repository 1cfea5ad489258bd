# shellcheck shell=bash
# Sourced by scripts/test-all.sh: the compiler caches every build of a run goes through, kept
# outside the clone so that a second run on the same machine compiles (almost) nothing.
#
#   source scripts/lib/ci-cache.sh
#   ci_cache_env          # exports the variables below; prints nothing
#
# ABLOOM_CI_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/abloom-ci) holds:
#   ccache/      Debian's ccache, for every CMake tree (CMake reads CMAKE_<LANG>_COMPILER_LAUNCHER
#                from the environment: the ci, asan, tsan, fuzz, cross, deb, release, zig and
#                Python trees, the Java binding's engine) and for the cc crate (HOST_CC/HOST_CXX:
#                the Rust builds for this machine; cross targets name their compilers themselves).
#   zig/         zig's own cache (ZIG_GLOBAL_CACHE_DIR): its libc, libc++ and compiler-rt per
#                target, and every `zig cc` compile (the Go and Rust macOS builds through cgo and
#                the cc crate, which ccache does not see).
#   zig-VERSION/ the venv with PyPI's ziglang (scripts/lib/zig.sh; ABLOOM_ZIG_VENV).
# Go's, cargo's, Maven's and pip's caches stay where those tools keep them (~/.cache/go-build,
# ~/.cargo, ~/.m2, ~/.cache/pip): they are shared with the user's own work and safe for
# concurrent use.
#
# ccache settings, and why:
#   CCACHE_BASEDIR=/       every absolute path is rewritten relative to the compile's working
#                          directory, so the compiles that run in temporary folders of a fixed
#                          name length (the package checks' consumers, pip's build folders) hit
#                          from one run to the next, as the trees in the clone do;
#   CCACHE_NOHASHDIR=1     the working directory is not part of the key (a cached object's debug
#                          information may name another run's folder: these are test builds);
#   CCACHE_COMPILERCHECK=content
#                          the compiler is known by its bytes, not its time stamp: the zig
#                          wrappers (cmake/toolchains/zig.cmake) are written anew in each clone,
#                          and their text names zig's path and the target.
# ABLOOM_CCACHE=0 turns ccache off (zig's cache stays on: zig always caches).

ci_cache_env() {
  local root=${ABLOOM_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/abloom-ci}
  mkdir -p "$root"
  root=$(cd "$root" && pwd)
  export ABLOOM_CI_CACHE=$root
  export ZIG_GLOBAL_CACHE_DIR=$root/zig ZIG_LOCAL_CACHE_DIR=$root/zig
  # The venv's path names zig's version, so that a new pin never meets an old zig's cache
  # entries in ccache (whose key holds the wrappers' text, and with it this path).
  local zig_version
  zig_version=$(sed -n 's/^ZIG_VERSION=//p' "$(dirname "${BASH_SOURCE[0]}")/zig.sh")
  export ABLOOM_ZIG_VENV=${ABLOOM_ZIG_VENV:-$root/zig-$zig_version}
  if [[ "${ABLOOM_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null; then
    export CCACHE_DIR=$root/ccache CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content
    export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
    export HOST_CC="ccache cc" HOST_CXX="ccache c++"
  else
    unset CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER HOST_CC HOST_CXX
  fi
}

# ci_cache_summary: one line on what ccache did in this run (after ccache -z at its start).
ci_cache_summary() {
  [[ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] || { echo "ccache: off" && return 0; }
  local stats
  stats=$(ccache --print-stats 2>/dev/null) || { echo "ccache: no statistics" && return 0; }
  awk -F'\t' '$1 == "direct_cache_hit" {d = $2} $1 == "preprocessed_cache_hit" {p = $2}
    $1 == "cache_miss" {m = $2}
    END {t = d + p + m; printf "ccache: %d compiles, %d hits, %d misses (%d%% hits) in %s\n",
      t, d + p, m, t ? 100 * (d + p) / t : 0, ENVIRON["CCACHE_DIR"]}' <<<"$stats"
}

# ci_cache_vars: the cache settings above as NAME=VALUE lines, for the package checks, which run
# their builds with a user's environment (env -i) and pass these on: they change no result, only
# how long a compile takes. Prints nothing when ccache is off.
ci_cache_vars() {
  [[ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] || return 0
  local k
  for k in CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_COMPILERCHECK CCACHE_MAXSIZE \
    CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER HOST_CC HOST_CXX; do
    [[ -z "${!k:-}" ]] || echo "$k=${!k}"
  done
}
