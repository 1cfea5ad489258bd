# shellcheck shell=bash
# Sourced (bash) by scripts/release/python.sh and scripts/release/check-python.sh: CPython for
# Windows x86-64, which the win_amd64 wheels are built against and tested on (under wine).
#
#   source scripts/lib/windows-cpython.sh
#   windows_cpython DIR PYVER        # DIR/PYVER: the whole CPython PYVER for Windows, unpacked
#                                    # (python.exe, python3XY.dll, Lib, include, libs); prints it
#   windows_python3_dll TREE ZIG     # TREE/python3.dll, the stable ABI's forwarder (see below)
#
# Where from: Maven Central's org.bytedeco:cpython (the JavaCPP presets), classifier
# windows-x86_64, fetched by Maven (dependency:copy, into ~/.m2) at the pinned versions below
# and checked against the SHA-256 sums pinned here. Each jar holds CPython's Windows install as
# python.org lays it out, built with MSVC (sys.version says "MSC v.1929 64 bit (AMD64)"):
# include/ with the Windows pyconfig.h, libs/python3.lib and libs/python3XY.lib (the import
# libraries an extension links against), python3XY.dll, python.exe (3.11's in bin/ only) and the
# standard library, its .pyd modules beside the .py files in lib/ (Lib to Windows). It lacks python3.dll, the
# forwarder that the stable ABI's python3.lib names: windows_python3_dll makes it, for the tests.
declare -A WINDOWS_CPYTHON=([3.11]=3.11.3-1.5.9 [3.12]=3.12.1-1.5.10 [3.13]=3.13.5-1.5.12)
declare -A WINDOWS_CPYTHON_SHA256=(
  [3.11]=3263a50b256447bb7b9e604d6587627e419891370fc33b94469e6a06ff4de834
  [3.12]=e69bc4491c311e19ea7169bafc5efbbe03b980d69c6962b049daf1fcb4913391
  [3.13]=cfe5502ffa7ea369be707b6d88bf68344732a7800450665080fb4267c01bfeae
)

windows_cpython() { # DIR PYVER
  local root=${1:?windows_cpython DIR PYVER} ver=${2:?PYVER} version dir jar
  version=${WINDOWS_CPYTHON[$ver]:-}
  [[ -n $version ]] || { echo "windows_cpython: no Windows CPython $ver pinned (${!WINDOWS_CPYTHON[*]})" >&2 && return 1; }
  dir=$root/$ver
  if [[ "$(cat "$dir/.from" 2>/dev/null)" != "org.bytedeco:cpython:$version" ]]; then
    command -v mvn >/dev/null || { echo "windows_cpython: mvn (Maven) is not on PATH" >&2 && return 1; }
    echo "== CPython $ver for Windows x86-64: org.bytedeco:cpython:$version:windows-x86_64 (Maven Central)" >&2
    rm -rf "$dir" "$dir.jar" "$dir.x"
    mkdir -p "$dir.jar"
    mvn -q -B dependency:copy -Dartifact="org.bytedeco:cpython:$version:jar:windows-x86_64" \
      -DoutputDirectory="$dir.jar" >"$dir.mvn.log" 2>&1 ||
      { tail -20 "$dir.mvn.log" >&2 && echo "windows_cpython: Maven could not fetch org.bytedeco:cpython:$version" >&2 && return 1; }
    jar=$dir.jar/cpython-$version-windows-x86_64.jar
    [[ "$(sha256sum "$jar" | cut -d' ' -f1)" == "${WINDOWS_CPYTHON_SHA256[$ver]}" ]] ||
      { echo "windows_cpython: $jar's SHA-256 is not the pinned ${WINDOWS_CPYTHON_SHA256[$ver]}" >&2 && return 1; }
    mkdir -p "$dir.x"
    unzip -q "$jar" 'org/bytedeco/cpython/windows-x86_64/*' -d "$dir.x"
    mv "$dir.x/org/bytedeco/cpython/windows-x86_64" "$dir"
    rm -rf "$dir.x" "$dir.jar"
    [[ -f "$dir/python.exe" ]] || cp "$dir/bin/python.exe" "$dir/python.exe"
    local f
    for f in python.exe "python${ver/./}.dll" include/Python.h include/pyconfig.h libs/python3.lib \
      "libs/python${ver/./}.lib" lib/os.py; do
      [[ -f "$dir/$f" ]] ||
        { echo "windows_cpython: org.bytedeco:cpython:$version has no $f" >&2 && return 1; }
    done
    echo "org.bytedeco:cpython:$version" >"$dir/.from"
  fi
  echo "$dir"
}

# TREE/python3.dll: what CPython's own python3.dll is (PC/python3dll.c), a DLL of forwarders
# only, each stable-ABI name to the same name in python3XY.dll. The names are python3.lib's own
# (every __imp_ symbol of the import library the abi3 wheel was linked against), so the DLL
# offers exactly what an abi3 extension may import.
windows_python3_dll() { # TREE ZIG
  local tree=${1:?windows_python3_dll TREE ZIG} zig=${2:?ZIG} core names
  [[ -f "$tree/python3.dll" ]] && return 0
  core=$(cd "$tree" && ls python3[0-9]*.dll | head -n1)
  [[ -n $core ]] || { echo "windows_python3_dll: no python3XY.dll in $tree" >&2 && return 1; }
  names=$(llvm-nm "$tree/libs/python3.lib" 2>/dev/null | awk '$3 ~ /^__imp_/ { sub(/^__imp_/, "", $3); print $3 }' | sort -u)
  [[ $(wc -l <<<"$names") -gt 500 ]] || { echo "windows_python3_dll: too few names in python3.lib" >&2 && return 1; }
  {
    echo "LIBRARY python3.dll"
    echo "EXPORTS"
    sed "s/.*/  &=${core%.dll}.&/" <<<"$names"
  } >"$tree/python3.def"
  echo 'int DllMainCRTStartup(void *h, unsigned long r, void *p) { (void)h; (void)r; (void)p; return 1; }' \
    >"$tree/python3-stub.c"
  "$zig" cc -target x86_64-windows-gnu -O2 -shared -nostdlib -o "$tree/python3.dll.tmp" \
    "$tree/python3-stub.c" "$tree/python3.def" && mv "$tree/python3.dll.tmp" "$tree/python3.dll"
}
