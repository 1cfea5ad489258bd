# Cross-build for Linux s390x, the big-endian guard, with Debian's g++-s390x-linux-gnu; tests run
# under qemu-user (Debian's qemu-user) with the cross glibc as its sysroot. Used by scripts/cross-test.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)
# LD_LIBRARY_PATH: the sysroot's libraries first, as in aarch64-linux-gnu.cmake (says why).
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-s390x;-L;/usr/s390x-linux-gnu;-E;LD_LIBRARY_PATH=/usr/s390x-linux-gnu/lib)
# Headers-only dependencies (xxhash.h, SIMDe) come from the build machine's /usr/include; every
# library comes from the cross sysroot.
set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
