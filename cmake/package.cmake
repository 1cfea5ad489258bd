# Debian packages with CPack (`cpack -G DEB` in a build tree; scripts/build-debs.sh does it all):
#
#   libabloom0      Runtime: the SONAME'd shared library, libabloom.so.0 and libabloom.so.0.1.0
#   libabloom-dev   Development: abloom.h, abloom_inline.h, abloom_layout.h (which abloom_inline.h
#                   includes), libabloom.so (namelink), libabloom.a, abloom.pc and the CMake
#                   package; depends on libabloom0 of the same version and on libxxhash-dev
#                   (abloom_inline.h includes xxhash.h)
#   abloom-tools    The abloom command, /usr/bin/abloom (cli/; configure with -DABLOOM_BUILD_CLI=ON,
#                   which cross builds need); depends on libabloom0 of the same version and on what
#                   dpkg-shlibdeps finds for the binary (libc6, libstdc++6, libgcc-s1)
#
# Configure the tree with -DCMAKE_INSTALL_PREFIX=/usr so that GNUInstallDirs picks Debian's
# multiarch library directory (lib/x86_64-linux-gnu) and abloom.pc names /usr. arm64 packages are
# cross-built the same way (scripts/build-debs.sh OUT arm64: lib/aarch64-linux-gnu). Like any Debian
# package they are for the release they are built on (Depends from dpkg-shlibdeps: libc6 (>= ...)).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME abloom)
set(CPACK_PACKAGE_VENDOR "The abloom authors")
set(CPACK_PACKAGE_CONTACT "The abloom authors <abloom@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/abloom/abloom")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_COMPONENTS_ALL Runtime Development)
if(TARGET abloom_cli)
  list(APPEND CPACK_COMPONENTS_ALL Tools)
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>-<release>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
# Debian ships binaries stripped (their debug symbols go to -dbgsym packages): strip the library
# and the command as cpack installs them (CMAKE_STRIP: the cross toolchain's strip for arm64).
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "libabloom${ABLOOM_SOVERSION}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)  # libc6, libstdc++6, libgcc-s1 from dpkg-shlibdeps
# The shlibs control file, so that packages built against libabloom0 get "libabloom0 (>= VERSION)"
# from their own dpkg-shlibdeps. CPack has no per-component switch for it (the _RUNTIME_ form was
# silently ignored); only libabloom0 holds a shared object, so only it gets one.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# Under the synopsis (CPACK_PACKAGE_DESCRIPTION_SUMMARY, the project's description).
# Each "\n" starts a line of the control file's extended description (CPack indents it by one
# space); lintian wants them within 80 columns.
string(CONCAT CPACK_DEBIAN_RUNTIME_DESCRIPTION
       "The shared library. abloom's C ABI, libabloom.so.${ABLOOM_SOVERSION}: blocked and classic Bloom\n"
       "filters with atomic, sharded bit arrays, SIMD probes chosen at run time, bulk\n"
       "calls and a portable file format opened by mmap.")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME "libabloom-dev")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
# libxxhash-dev: abloom_inline.h includes xxhash.h (header-only; nothing links against it).
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
    "libabloom${ABLOOM_SOVERSION} (= ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}), libxxhash-dev")
string(CONCAT CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION
       "The development files: the headers abloom.h, abloom_inline.h and\n"
       "abloom_layout.h, the static library, the pkg-config file abloom.pc and the\n"
       "CMake package (find_package(abloom CONFIG)) of abloom's C ABI.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME "abloom-tools")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
# dpkg-shlibdeps gives libc6, libstdc++6 and libgcc-s1 for bin/abloom. It must also resolve the
# binary's libabloom.so.0, which is in no installed package while the debs are built: -l points it
# at this build's copy (the path is an argument of dpkg-shlibdeps only; no file of the package
# names it). That library has no shlibs entry yet, so the dependency on it is given explicitly,
# of this very version: the command and the library are released together.
set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/capi")
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS
    "libabloom${ABLOOM_SOVERSION} (= ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})")
string(CONCAT CPACK_DEBIAN_TOOLS_DESCRIPTION
       "The abloom command: build, query, add to, dedupe with, merge, intersect,\n"
       "inspect and verify Bloom filter files from the shell (lines, NUL-separated,\n"
       "CSV/TSV columns, hex or 64-bit binary keys), the files every abloom binding\n"
       "reads.")

include(CPack)
