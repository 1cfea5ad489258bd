# Read by CMake (CMAKE_USER_MAKE_RULES_OVERRIDE, set by zig.cmake for macOS targets) after its
# Darwin platform files: what those set on a Mac of 10.5 or newer, which they cannot see when
# cross-compiling (they ask sw_vers). Without it, @rpath install names are an error.
set(CMAKE_SHARED_LIBRARY_RUNTIME_C_FLAG "-Wl,-rpath,")
set(CMAKE_SHARED_LIBRARY_RUNTIME_CXX_FLAG "-Wl,-rpath,")
