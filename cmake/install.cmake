# Install rules, the CMake package (find_package(abloom CONFIG)) and the pkg-config file.
#
# Layout under the install prefix (GNUInstallDirs):
#   ${CMAKE_INSTALL_INCLUDEDIR}/abloom.h
#   ${CMAKE_INSTALL_LIBDIR}/libabloom.so.0.1.0, libabloom.so.0 -> ..., libabloom.so -> ...
#   ${CMAKE_INSTALL_LIBDIR}/libabloom.a
#   ${CMAKE_INSTALL_LIBDIR}/cmake/abloom/abloom{Config,ConfigVersion,Targets*}.cmake
#   ${CMAKE_INSTALL_LIBDIR}/pkgconfig/abloom.pc
#   ${CMAKE_INSTALL_BINDIR}/abloom_demo            (when the examples are built)
#   ${CMAKE_INSTALL_BINDIR}/abloom                 (the command, when ABLOOM_BUILD_CLI is on)
#   ${CMAKE_INSTALL_MANDIR}/man1/abloom.1          (its manual page, with it)
#
# Components: Runtime (the shared library), Development (header, static library, namelink,
# CMake package, pkg-config file), Examples (the demo), Tools (the abloom command), Manual (its
# manual page; the Debian package gets it compressed, in Tools).

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ABLOOM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/abloom"
    CACHE STRING "Where to install abloom's CMake package files (relative to the prefix)")
set(ABLOOM_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
    CACHE STRING "Where to install abloom.pc (relative to the prefix)")

# ---- The static library's link interface -------------------------------------------------------
# libabloom.a is C++ inside; a C program (linked by the C driver) must also get the C++ runtime and
# libm. Threads::Threads is already a PUBLIC dependency (capi/CMakeLists.txt), and so is
# ABLOOM_STATIC_DEFINE. Only the installed interface needs this: inside this build CMake knows
# that abloom_static is C++ and links its consumers with the C++ driver.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE AND NOT WIN32)
  target_link_libraries(abloom_static INTERFACE "$<INSTALL_INTERFACE:stdc++>" "$<INSTALL_INTERFACE:m>")
endif()

# ---- Libraries and header -------------------------------------------------------------------------
# PUBLIC_HEADER entries are relative to the target's source directory (capi/), but install() would
# resolve them relative to this (top-level) directory: make them absolute first.
foreach(_abloom_tgt abloom abloom_static)
  get_target_property(_abloom_headers ${_abloom_tgt} PUBLIC_HEADER)
  if(_abloom_headers)
    get_target_property(_abloom_srcdir ${_abloom_tgt} SOURCE_DIR)
    set(_abloom_abs)
    foreach(_abloom_h IN LISTS _abloom_headers)
      if(NOT IS_ABSOLUTE "${_abloom_h}")
        set(_abloom_h "${_abloom_srcdir}/${_abloom_h}")
      endif()
      list(APPEND _abloom_abs "${_abloom_h}")
    endforeach()
    set_target_properties(${_abloom_tgt} PROPERTIES PUBLIC_HEADER "${_abloom_abs}")
  endif()
endforeach()

# The targets' INSTALL_INTERFACE already names `include`; add the real include dir if it differs.
set(_abloom_includes)
if(NOT CMAKE_INSTALL_INCLUDEDIR STREQUAL "include")
  set(_abloom_includes INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
endif()
install(TARGETS abloom abloom_static
  EXPORT abloomTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Runtime
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Runtime
          NAMELINK_COMPONENT Development
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Development
  PUBLIC_HEADER DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT Development
  ${_abloom_includes})
# Install the header explicitly unless the shared library already carries it as PUBLIC_HEADER.
get_target_property(_abloom_headers abloom PUBLIC_HEADER)
if(NOT _abloom_headers)
  install(FILES "${PROJECT_SOURCE_DIR}/capi/abloom.h"
          DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT Development)
endif()
unset(_abloom_tgt)
unset(_abloom_includes)
unset(_abloom_headers)
unset(_abloom_srcdir)
unset(_abloom_abs)
unset(_abloom_h)

# ---- CMake package ---------------------------------------------------------------------------------
install(EXPORT abloomTargets
  NAMESPACE abloom::
  FILE abloomTargets.cmake
  DESTINATION "${ABLOOM_INSTALL_CMAKEDIR}"
  COMPONENT Development)

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/abloomConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/abloomConfig.cmake"
  INSTALL_DESTINATION "${ABLOOM_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# 0.x: SameMajorVersion accepts any requested 0.y with y <= MINOR; bump the major version for
# any ABI break (together with ABLOOM_SOVERSION).
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/abloomConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/abloomConfig.cmake"
  "${PROJECT_BINARY_DIR}/abloomConfigVersion.cmake"
  DESTINATION "${ABLOOM_INSTALL_CMAKEDIR}"
  COMPONENT Development)

# ---- pkg-config -------------------------------------------------------------------------------------
# The prefix in abloom.pc must be the one the files are installed under, and
# `cmake --install BUILD --prefix P` chooses it only at install time. So the file is configured in
# two steps: now, everything but the prefix; at install time, the prefix (CMAKE_INSTALL_PREFIX as
# seen by the install script, without DESTDIR).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ABLOOM_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(ABLOOM_PC_LIBDIR "\${exec_prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(ABLOOM_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(ABLOOM_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(ABLOOM_PC_PREFIX "@ABLOOM_PC_INSTALL_PREFIX@") # filled in by the install step below
configure_file("${PROJECT_SOURCE_DIR}/pkgconfig/abloom.pc.in"
               "${PROJECT_BINARY_DIR}/pkgconfig/abloom.pc.stage" @ONLY)
set(ABLOOM_PC_STAGE "${PROJECT_BINARY_DIR}/pkgconfig/abloom.pc.stage")
set(ABLOOM_PC_OUT "${PROJECT_BINARY_DIR}/pkgconfig/install/abloom.pc")
install(CODE "
  set(ABLOOM_PC_INSTALL_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${ABLOOM_PC_STAGE}\" \"${ABLOOM_PC_OUT}\" @ONLY)
  if(IS_ABSOLUTE \"${ABLOOM_INSTALL_PKGCONFIGDIR}\")
    set(_abloom_pc_dest \"${ABLOOM_INSTALL_PKGCONFIGDIR}\")
  else()
    set(_abloom_pc_dest \"\${CMAKE_INSTALL_PREFIX}/${ABLOOM_INSTALL_PKGCONFIGDIR}\")
  endif()
  file(INSTALL DESTINATION \"\${_abloom_pc_dest}\" TYPE FILE FILES \"${ABLOOM_PC_OUT}\")
  " COMPONENT Development)
unset(ABLOOM_PC_PREFIX)

# ---- Examples ----------------------------------------------------------------------------------------
if(TARGET abloom_demo)
  # Let the installed demo find the installed libabloom.so.0 next door.
  file(RELATIVE_PATH _abloom_bin_to_lib "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_LIBDIR}")
  get_target_property(_abloom_demo_rpath abloom_demo INSTALL_RPATH)
  if(NOT _abloom_demo_rpath AND NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set_target_properties(abloom_demo PROPERTIES INSTALL_RPATH "$ORIGIN/${_abloom_bin_to_lib}")
  endif()
  install(TARGETS abloom_demo RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Examples)
  unset(_abloom_bin_to_lib)
  unset(_abloom_demo_rpath)
endif()
if(TARGET abloom_cli)
  # As the demo: the installed command finds the installed libabloom.so.0 next door, wherever the
  # prefix is (`cmake --install BUILD --prefix P`). Not when the library goes into a directory the
  # loader searches anyway (the Debian package: prefix /usr, lib/<multiarch>): a system binary
  # carries no RPATH (Debian policy 10.2), and the loader finds libabloom.so.0 there.
  file(RELATIVE_PATH _abloom_bin_to_lib "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_LIBDIR}")
  get_target_property(_abloom_cli_rpath abloom_cli INSTALL_RPATH)
  set(_abloom_system_libdir OFF)
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" OR
     CMAKE_INSTALL_FULL_LIBDIR IN_LIST CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES OR
     CMAKE_INSTALL_FULL_LIBDIR IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    set(_abloom_system_libdir ON)
  endif()
  if(NOT _abloom_cli_rpath AND NOT _abloom_system_libdir AND NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set_target_properties(abloom_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_abloom_bin_to_lib}")
  endif()
  install(TARGETS abloom_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Tools)
  # Its manual page, abloom(1) (cli/abloom.1), as it is, for a plain install (the Manual
  # component, which no package holds); the Debian package's compressed copy is package.cmake's.
  install(FILES "${PROJECT_SOURCE_DIR}/cli/abloom.1" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1"
          COMPONENT Manual)
  unset(_abloom_bin_to_lib)
  unset(_abloom_cli_rpath)
  unset(_abloom_system_libdir)
endif()
