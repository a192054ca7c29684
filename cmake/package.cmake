# `make deb` (cpack -G DEB): one Debian package per install component (cmake/install.cmake),
# named as Debian names libraries:
#   libcallwire<SOVERSION>  the shared library (libcallwire0.1 while the SONAME is .so.0.1)
#   libcallwire-dev         headers, static library, CMake and pkg-config files
#   callwire                the command and its man page (when CALLWIRE_TOOLS is on)
# Run-time dependencies come from dpkg-shlibdeps (packages dpkg-dev and file); the -dev package depends on
# the library of exactly its version and on the development files the static library and
# callwire.pc name. Each package carries the license as share/doc/PACKAGE/copyright and the
# changelog (cmake/debian/changelog.in) as changelog.gz; deb_finish.cmake does to the staged
# files what debhelper would (binaries stripped, man pages compressed). tests/install/
# check_debs.sh runs lintian on the packages.
set(CALLWIRE_DEB_LIB libcallwire${CALLWIRE_SOVERSION})
set(CALLWIRE_DEB_DEV libcallwire-dev)
set(CALLWIRE_DEB_TOOLS callwire)
# A placeholder (lintian: bogus-mail-host, accepted by check_debs.sh only for this default):
# give a real address to publish the packages.
set(CALLWIRE_DEB_MAINTAINER "callwire developers <callwire@localhost>"
    CACHE STRING "The Maintainer field of the Debian packages and their changelog's trailer")

set(callwire_components lib dev)
if(CALLWIRE_TOOLS)
  list(APPEND callwire_components tools)
endif()
foreach(component IN LISTS callwire_components)
  string(TOUPPER ${component} upper)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CALLWIRE_DEB_${upper}}
          RENAME copyright COMPONENT ${component})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME callwire)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The callwire authors")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL ${callwire_components})
set(CPACK_DEB_COMPONENT_INSTALL ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CALLWIRE_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The changelog's entries are written by hand (a new version needs one: check_debs.sh compares);
# only the trailer's address is the Maintainer's.
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/changelog.in ${PROJECT_BINARY_DIR}/changelog @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/deb_finish.cmake)
set(CPACK_CALLWIRE_CHANGELOG ${PROJECT_BINARY_DIR}/changelog)
set(CPACK_CALLWIRE_STRIP ${CMAKE_STRIP})
# Control files 0644 and scripts 0755 whatever the checkout's modes.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_LIB_PACKAGE_NAME ${CALLWIRE_DEB_LIB})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
# A shlibs file (only the library package has a shared library to list), so that programs
# packaged against the library get their Depends from it. No symbols file (lintian's info tag
# no-symbols-control-file): before 1.0 a minor version may break the ABI, so the shlibs line
# asks for exactly this version, and a symbols file would say no more while tracking C++'s
# mangled names for every architecture.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
# The ldconfig trigger (policy 8.1.1). CPack also writes postinst and postrm scripts that run
# ldconfig for any library under /usr/lib, with no switch to turn them off: harmless, and
# overridden in check_debs.sh.
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/triggers)
# Descriptions: the first line is the synopsis, the rest the long description (one string:
# a CMake list's semicolons would end up in the control file). No
# CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it before each as a common synopsis.
# Lines under 80 columns with the space the control file puts before each.
string(CONCAT CPACK_DEBIAN_LIB_DESCRIPTION
  "XML-RPC and JSON-RPC library for C and C++: the shared library\n"
  "callwire speaks XML-RPC and JSON-RPC 2.0 over HTTP, HTTPS, SCGI, CGI and\n"
  "xmlrpc-c's packet stream, as a server and as a client, with a C++ API and a\n"
  "C API.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME ${CALLWIRE_DEB_DEV})
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${CALLWIRE_DEB_LIB} (= ${PROJECT_VERSION}), zlib1g-dev, libssl-dev, libsimdjson-dev")
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION
  "XML-RPC and JSON-RPC library for C and C++: development files\n"
  "Headers (C++ and C), the static library, and the files CMake's find_package and\n"
  "pkg-config use to find callwire.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME ${CALLWIRE_DEB_TOOLS})
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION net)
string(CONCAT CPACK_DEBIAN_TOOLS_DESCRIPTION
  "XML-RPC and JSON-RPC from the command line\n"
  "callwire calls methods of XML-RPC and JSON-RPC servers, lists their methods,\n"
  "converts documents to and from a JSON form, and runs a demonstration server.")

include(CPack)
