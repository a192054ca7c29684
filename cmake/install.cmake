# `cmake --install`: both libraries, the public headers, the CMake package (callwireConfig.cmake,
# its version file and the exported targets) and callwire.pc. Included by the top-level
# CMakeLists.txt after the targets callwire (static) and callwire_shared exist.
#
# Install components, which are also the Debian packages (cmake/package.cmake): `lib` the
# shared library alone (what a program needs to run), `dev` everything to build against it
# (headers, the static library, the .so link, the CMake and pkg-config files, the license),
# `tools` the callwire command and its man page (tools/CMakeLists.txt).
include(CMakePackageConfigHelpers)

set(CALLWIRE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/callwire)

# Two export sets, so that a consumer of the shared library needs no zlib, OpenSSL or simdjson
# headers: only the static library carries them to its consumers (callwireConfig.cmake.in).
install(TARGETS callwire_shared EXPORT callwireTargets
        LIBRARY COMPONENT lib NAMELINK_COMPONENT dev)
install(TARGETS callwire EXPORT callwireStaticTargets ARCHIVE COMPONENT dev)
install(EXPORT callwireTargets NAMESPACE callwire:: DESTINATION ${CALLWIRE_CMAKE_DIR}
        COMPONENT dev)
install(EXPORT callwireStaticTargets NAMESPACE callwire:: DESTINATION ${CALLWIRE_CMAKE_DIR}
        COMPONENT dev)

# include/callwire.h, include/callwire/c/*.h (the C API by subject, which callwire.h includes),
# include/callwire/*.hpp and include/callwire/detail/: the public API only; nothing under src/
# is installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/callwireConfig.cmake.in
  ${PROJECT_BINARY_DIR}/callwireConfig.cmake INSTALL_DESTINATION ${CALLWIRE_CMAKE_DIR})
# Before 1.0 a minor version may break the API; from 1.0 on this becomes SameMajorVersion.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/callwireConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/callwireConfig.cmake
              ${PROJECT_BINARY_DIR}/callwireConfigVersion.cmake
        DESTINATION ${CALLWIRE_CMAKE_DIR} COMPONENT dev)

# callwire.pc finds its prefix from its own place (${pcfiledir}), so the installed tree may be
# moved or installed with `cmake --install --prefix` elsewhere than CMAKE_INSTALL_PREFIX.
set(CALLWIRE_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
foreach(dir CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR CALLWIRE_PKGCONFIG_DIR)
  if(IS_ABSOLUTE "${${dir}}")
    message(FATAL_ERROR "callwire.pc: ${dir} must be relative to the prefix, not ${${dir}}")
  endif()
endforeach()
file(RELATIVE_PATH CALLWIRE_PC_TO_PREFIX /prefix/${CALLWIRE_PKGCONFIG_DIR} /prefix)
string(REGEX REPLACE "/$" "" CALLWIRE_PC_TO_PREFIX "${CALLWIRE_PC_TO_PREFIX}")
# A libc++ build: its runtime, and the flag its <stop_token> needs (CMakeLists.txt).
set(CALLWIRE_PC_CFLAGS)
foreach(flag IN LISTS CALLWIRE_STOP_TOKEN_FLAGS)
  string(APPEND CALLWIRE_PC_CFLAGS " ${flag}")
endforeach()
if(CALLWIRE_LIBCXX)
  set(CALLWIRE_PC_CXX_RUNTIME c++)
else()
  set(CALLWIRE_PC_CXX_RUNTIME stdc++)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/callwire.pc.in ${PROJECT_BINARY_DIR}/callwire.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/callwire.pc DESTINATION ${CALLWIRE_PKGCONFIG_DIR}
        COMPONENT dev)
