# Cross-build for Linux s390x, the big-endian guard, with Debian's g++-s390x-linux-gnu, tests under
# qemu-s390x.
set(ABLOOM_CROSS_ARCH s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
