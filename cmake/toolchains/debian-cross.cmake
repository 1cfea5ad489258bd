# What the Debian cross toolchain files share: set ABLOOM_CROSS_ARCH (the GNU triplet's first part,
# e.g. aarch64) and include this file. Compilers are Debian's g++-ARCH-linux-gnu; tests run under
# qemu-user (Debian's qemu-user) with the cross glibc as its sysroot. Used by scripts/cross-test.sh
# and scripts/build-debs.sh.
set(_triplet ${ABLOOM_CROSS_ARCH}-linux-gnu)
set(_sysroot /usr/${_triplet})
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${ABLOOM_CROSS_ARCH})
set(CMAKE_C_COMPILER ${_triplet}-gcc)
set(CMAKE_CXX_COMPILER ${_triplet}-g++)
# LD_LIBRARY_PATH: the sysroot's libraries before the multiarch ones. Where ARCH is also a dpkg
# architecture (scripts/setup.sh release installs libc6:arm64 and libstdc++6:arm64 into
# /usr/lib/aarch64-linux-gnu), the loader of the sysroot would otherwise load the multiarch libc
# beside itself: two builds of glibc in one process, and the first pthread_create never returned.
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-${ABLOOM_CROSS_ARCH};-L;${_sysroot};-E;LD_LIBRARY_PATH=${_sysroot}/lib)
# Headers-only dependencies (xxhash.h, SIMDe) come from the build machine's /usr/include; every
# library comes from the cross sysroot.
set(CMAKE_FIND_ROOT_PATH ${_sysroot})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
