# Sourced (bash): zig, the cross compiler of scripts/platform-builds.sh and scripts/build-release.sh,
# from PyPI's ziglang package at one pinned version, in a venv of its own.
#
#   source scripts/lib/zig.sh
#   ensure_zig VENV          # installs ziglang==$ZIG_VERSION into VENV unless it is there already;
#                            # sets ZIG to the zig executable itself
#
# The venv is reused when it already has this version, so a warm machine pays nothing.
ZIG_VERSION=0.17.0

# Flags for a zig cc/c++ run that gives no -O of its own: links above all (rustc's, the JNI
# libraries', the C99 header tests'). Without an -O zig works in Debug mode, where C gets
# -fsanitize=undefined and a link gets a UBSan runtime and a Debug compiler-rt, each built from
# source for its target (about 12 CPU s for x86_64-windows-gnu here, more for C++ links; eight
# UBSan runtimes in one cold CI run) and linked in (a JNI library: 1.30 -> 0.95 MB, the same
# exports). With these, links take the ReleaseFast runtime that the engine trees built already; a
# compile's own -O (the cc crate's -O0 for tests) comes later and wins, without UBSan's checks
# (the asan-* stages run those).
# shellcheck disable=SC2034  # used by the scripts that source this file
ZIG_RELEASE_FLAGS="-O2 -fno-sanitize=undefined"

ensure_zig() {
  local venv=${1:?ensure_zig VENV}
  # (importlib.metadata, not `pip show | grep -q`: pip is slow to start, and grep -q's early exit
  # would fail the pipeline under pipefail, reinstalling every time.)
  if [[ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("ziglang"))' \
    2>/dev/null)" != "$ZIG_VERSION" ]]; then
    echo "== installing ziglang==$ZIG_VERSION into $venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet "ziglang==$ZIG_VERSION"
  fi
  # The zig executable itself (python -m ziglang would start a Python for every compile).
  ZIG=$("$venv/bin/python" -c 'import os, ziglang; print(os.path.dirname(ziglang.__file__))')/zig
  [[ "$("$ZIG" version)" == "$ZIG_VERSION" ]] || { echo "$ZIG is not zig $ZIG_VERSION" >&2 && return 1; }
}
