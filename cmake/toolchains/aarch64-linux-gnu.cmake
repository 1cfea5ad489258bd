# Cross-build for Linux aarch64 with Debian's g++-aarch64-linux-gnu, tests under qemu-aarch64.
set(ABLOOM_CROSS_ARCH aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
