#!/usr/bin/env bash
# build-native.sh OUTDIR [PREFIX]
#
# Generates the JNI layer with SWIG and builds libabloom_jni.so against an installed abloom:
#   OUTDIR/generated-sources/swig/io/abloom/AbloomNative{,JNI}.java   (package-private classes)
#   OUTDIR/native/abloom_wrap.c                                       (the JNI C code)
#   OUTDIR/native/libabloom_jni.so                                    (for -Djava.library.path)
#   OUTDIR/classes/native/linux-x86_64/libabloom_jni.so               (bundled into the jar)
# PREFIX is where abloom is installed (include/abloom.h, lib/libabloom.so); empty means "ask
# pkg-config". The library is linked with -labloom and an rpath to PREFIX/lib.
# Maven runs this in generate-sources (exec-maven-plugin); it is also runnable by hand.
set -euo pipefail

out=${1:?usage: build-native.sh OUTDIR [PREFIX]}
prefix=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
swig_file="$here/../swig/abloom.i"

for tool in swig cc; do
  command -v "$tool" >/dev/null || { echo "build-native.sh: '$tool' not found (install it: apt-get install $tool)" >&2; exit 1; }
done

if [[ -n "$prefix" ]]; then
  cflags="-I$prefix/include"
  libs="-L$prefix/lib -labloom -Wl,-rpath,$prefix/lib"
  [[ -f "$prefix/include/abloom.h" ]] || { echo "build-native.sh: $prefix/include/abloom.h not found (is PREFIX an abloom install?)" >&2; exit 1; }
elif pkg-config --exists abloom 2>/dev/null; then
  cflags=$(pkg-config --cflags abloom)
  libdir=$(pkg-config --variable=libdir abloom)
  libs="$(pkg-config --libs abloom) -Wl,-rpath,$libdir"
else
  echo "build-native.sh: no abloom prefix given (-Dabloom.prefix=...) and pkg-config cannot find abloom" >&2
  exit 1
fi

# The JDK's JNI headers: java.home of a JDK (17+) is the JDK itself.
jdk=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
[[ -f "$jdk/include/jni.h" ]] || { echo "build-native.sh: no jni.h under $jdk/include (set JAVA_HOME to a JDK)" >&2; exit 1; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x86_64 ;;
  Linux-aarch64) platform=linux-aarch64 ;;
  *) platform="$(uname -s | tr 'A-Z' 'a-z')-$(uname -m)" ;;
esac

gen="$out/generated-sources/swig/io/abloom"
nat="$out/native"
res="$out/classes/native/$platform"
mkdir -p "$gen" "$nat" "$res"
rm -f "$gen"/*.java

swig -java -package io.abloom -outdir "$gen" -o "$nat/abloom_wrap.c" $cflags "$swig_file"

# -fno-strict-aliasing: SWIG's wrapper casts between jlong and pointers.
cc -std=c11 -O2 -fPIC -shared -fvisibility=hidden -fno-strict-aliasing \
   -Wall -Wextra -Werror -Wno-unused-parameter -Wno-unused-function \
   $cflags -I"$jdk/include" -I"$jdk/include/linux" \
   "$nat/abloom_wrap.c" -o "$nat/libabloom_jni.so" $libs
cp "$nat/libabloom_jni.so" "$res/libabloom_jni.so"
