# Debian packages with CPack (`cpack -G DEB` in a build tree configured with -DABLOOM_PACKAGE=ON;
# scripts/build-debs.sh does it all). Included only with ABLOOM_PACKAGE on: it runs git and gzip
# at configure time, and no plain configure needs them.
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
# Each also has /usr/share/doc/PKG/copyright and changelog.Debian.gz, and a lintian override
# (/usr/share/lintian/overrides/PKG); see below.
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
# The loader's cache: the ldconfig trigger (cmake/debian/triggers: activate-noawait ldconfig), as
# Debian's library packages do, so that dpkg runs ldconfig once after all the packages of a run.
# CPack would instead add a postinst and a postrm that call ldconfig themselves (for any library
# in /usr/lib/*), unless CONTROL_EXTRA names a postinst and a postrm. It does, in a directory that
# is never created: CPack then generates neither script and skips the missing names (cpack prints
# one warning per name), so libabloom0 has no maintainer script at all, as it needs none.
# No cleaner setting exists (CMake 3.25.1, Debian 12's; CMake's current CPackDeb.cmake is the
# same). In Modules/Internal/CPack/CPackDeb.cmake, lines 671-681 set CPACK_ADD_LDCONFIG_CALL for
# any shared object in ./lib or ./usr/lib or a directory right below them (./usr/lib/<multiarch>),
# and no variable is read there; lines 683-698 then generate both scripts unless a CONTROL_EXTRA
# entry is named postinst or postrm. The list of shared objects is made whenever SHLIBDEPS or
# GENERATE_SHLIBS is on (line 159), and libabloom0 needs both (its Depends, its shlibs file);
# CONTROL_STRICT_PERMISSION and GENERATE_SHLIBS_POLICY play no part. A postinst or postrm that
# exists is shipped as a maintainer script (cmCPackDebGenerator.cxx copies every CONTROL_EXTRA file
# that exists, and warns "Adding file to tar: ... #missing file: ..." for one that does not), so
# the two warnings are the price of shipping none.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${PROJECT_SOURCE_DIR}/cmake/debian/triggers"
    "${PROJECT_BINARY_DIR}/debian/no-ldconfig-scripts/postinst"
    "${PROJECT_BINARY_DIR}/debian/no-ldconfig-scripts/postrm")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_STRICT_PERMISSION ON)
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

# ---- /usr/share/doc/PKG: copyright and changelog.Debian.gz -------------------------------------
# Every Debian package carries both (policy 12.5, 12.7). They are generated here, into
# debian/ of the build tree, and installed only into the packages: EXCLUDE_FROM_ALL keeps them out
# of a plain `cmake --install` (CPack installs each component by name, which includes them).
#   copyright            machine-readable (DEP-5), from LICENSE: its copyright line and its text.
#   changelog.Debian.gz  one entry, this version and release (cmake/debian/changelog.in), dated
#                        by SOURCE_DATE_EPOCH when set, else by the source's last commit, and
#                        compressed with gzip -9n (no name, no time stamp): the same bytes from
#                        the same commit.
set(ABLOOM_DEB_DIR "${PROJECT_BINARY_DIR}/debian")
file(READ "${PROJECT_SOURCE_DIR}/LICENSE" _abloom_license)
# LICENSE is the MIT licence, which DEP-5 calls Expat; another licence needs its own name here.
if(NOT _abloom_license MATCHES "^MIT License\n\nCopyright \\(c\\) ([^\n]+)\n\n(.+[^\n])\n*$")
  message(FATAL_ERROR "LICENSE is not the MIT licence as cmake/package.cmake expects ('MIT License', "
                      "a blank line, 'Copyright (c) YEAR HOLDER', a blank line, the text): "
                      "update its Debian copyright file (DEP-5 License: field) to match")
endif()
set(_abloom_holder "${CMAKE_MATCH_1}")
# DEP-5 license text: each line indented by one space, blank lines as " .".
string(REPLACE "\n\n" "\n.\n" _abloom_text "${CMAKE_MATCH_2}")
string(REPLACE "\n" "\n " _abloom_text " ${_abloom_text}")
file(WRITE "${ABLOOM_DEB_DIR}/copyright"
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: abloom
Upstream-Contact: ${CPACK_PACKAGE_CONTACT}
Source: ${CPACK_PACKAGE_HOMEPAGE_URL}

Files: *
Copyright: ${_abloom_holder}
License: Expat

License: Expat
${_abloom_text}
")

set(ABLOOM_DEB_VERSION "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")
set(_abloom_epoch "$ENV{SOURCE_DATE_EPOCH}")
if(NOT _abloom_epoch)
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND "${GIT_EXECUTABLE}" log -1 --format=%ct
                    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                    OUTPUT_VARIABLE _abloom_epoch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
endif()
if(_abloom_epoch MATCHES "^[0-9]+$")
  # string(TIMESTAMP) formats SOURCE_DATE_EPOCH when it is set.
  set(_abloom_saved_epoch "$ENV{SOURCE_DATE_EPOCH}")
  set(ENV{SOURCE_DATE_EPOCH} "${_abloom_epoch}")
  string(TIMESTAMP ABLOOM_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
  set(ENV{SOURCE_DATE_EPOCH} "${_abloom_saved_epoch}")
else()
  # Neither (a source tree outside git): now, which is not reproducible.
  string(TIMESTAMP ABLOOM_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in" "${ABLOOM_DEB_DIR}/changelog.Debian" @ONLY)

find_program(ABLOOM_GZIP gzip)
if(ABLOOM_GZIP)
  # -f: replace the previous configure's file; -9n: best compression, no name or time stamp.
  execute_process(COMMAND "${ABLOOM_GZIP}" -9nf "${ABLOOM_DEB_DIR}/changelog.Debian"
                  RESULT_VARIABLE _abloom_rc)
  if(NOT _abloom_rc EQUAL 0)
    message(FATAL_ERROR "gzip -9nf ${ABLOOM_DEB_DIR}/changelog.Debian failed: ${_abloom_rc}")
  endif()
  foreach(_abloom_component IN LISTS CPACK_COMPONENTS_ALL)
    string(TOUPPER "${_abloom_component}" _abloom_upper)
    set(_abloom_pkg "${CPACK_DEBIAN_${_abloom_upper}_PACKAGE_NAME}")
    install(FILES "${ABLOOM_DEB_DIR}/copyright" "${ABLOOM_DEB_DIR}/changelog.Debian.gz"
            DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/${_abloom_pkg}"
            COMPONENT ${_abloom_component} EXCLUDE_FROM_ALL)
    # The one lintian finding that is about Debian's archive, not the package: a first upload to
    # Debian closes its ITP bug. These packages are not uploaded to Debian (lintian's explanation
    # of the tag says to ignore it then); the override says so to anyone who runs lintian on them.
    file(WRITE "${ABLOOM_DEB_DIR}/overrides/${_abloom_pkg}"
         "# Not a package of Debian's archive: there is no ITP bug for its changelog to close.\n"
         "${_abloom_pkg}: initial-upload-closes-no-bugs\n")
    install(FILES "${ABLOOM_DEB_DIR}/overrides/${_abloom_pkg}"
            DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides"
            COMPONENT ${_abloom_component} EXCLUDE_FROM_ALL)
  endforeach()
  # abloom-tools' manual page, compressed with gzip -9n as Debian's policy wants (at build time,
  # from cli/abloom.1), and only there (EXCLUDE_FROM_ALL: cpack installs Tools by name).
  if(TARGET abloom_cli)
    set(_abloom_man_gz "${ABLOOM_DEB_DIR}/man/abloom.1.gz")
    add_custom_command(
      OUTPUT "${_abloom_man_gz}"
      COMMAND "${CMAKE_COMMAND}" -E copy "${PROJECT_SOURCE_DIR}/cli/abloom.1"
              "${ABLOOM_DEB_DIR}/man/abloom.1"
      COMMAND "${ABLOOM_GZIP}" -9nf "${ABLOOM_DEB_DIR}/man/abloom.1"
      DEPENDS "${PROJECT_SOURCE_DIR}/cli/abloom.1"
      COMMENT "Compressing abloom.1 for the Debian package"
      VERBATIM)
    add_custom_target(abloom_man_gz ALL DEPENDS "${_abloom_man_gz}")
    install(FILES "${_abloom_man_gz}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1"
            COMPONENT Tools EXCLUDE_FROM_ALL)
  endif()
else()
  message(STATUS "gzip not found: the Debian packages (cpack) would lack /usr/share/doc/PKG and "
                 "abloom-tools its manual page")
endif()
unset(_abloom_license)
unset(_abloom_holder)
unset(_abloom_text)
unset(_abloom_epoch)
unset(_abloom_saved_epoch)
unset(_abloom_rc)
unset(_abloom_component)
unset(_abloom_upper)
unset(_abloom_pkg)
unset(_abloom_man_gz)

include(CPack)
