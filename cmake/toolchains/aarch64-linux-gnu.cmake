# Cross-build for Linux aarch64 with Debian's g++-aarch64-linux-gnu; tests run under qemu-user
# (Debian's qemu-user) with the cross glibc as its sysroot. Used by scripts/cross-test.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# LD_LIBRARY_PATH: the sysroot's libraries before the multiarch ones. Where arm64 is also a dpkg
# architecture (scripts/setup.sh release installs libc6:arm64 and libstdc++6:arm64 into
# /usr/lib/aarch64-linux-gnu), the loader of the sysroot would otherwise load the multiarch libc
# beside itself: two builds of glibc in one process, and the first pthread_create never returned.
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-aarch64;-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
# Headers-only dependencies (xxhash.h, SIMDe) come from the build machine's /usr/include; every
# library comes from the cross sysroot.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
