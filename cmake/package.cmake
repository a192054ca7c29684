# `make deb` (cpack -G DEB): one Debian package per install component (cmake/install.cmake),
# named as Debian names libraries:
#   libcallwire<SOVERSION>  the shared library (libcallwire0.1 while the SONAME is .so.0.1)
#   libcallwire-dev         headers, static library, CMake and pkg-config files
#   callwire                the command and its man page (when CALLWIRE_TOOLS is on)
# Run-time dependencies come from dpkg-shlibdeps (packages dpkg-dev and file); the -dev package depends on
# the library of exactly its version and on the development files the static library and
# callwire.pc name. Each package carries the license as share/doc/PACKAGE/copyright.
set(CALLWIRE_DEB_LIB libcallwire${CALLWIRE_SOVERSION})
set(CALLWIRE_DEB_DEV libcallwire-dev)
set(CALLWIRE_DEB_TOOLS callwire)
set(CALLWIRE_DEB_MAINTAINER "callwire developers <callwire@localhost>"
    CACHE STRING "The Maintainer field of the Debian packages")

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

set(CPACK_DEBIAN_LIB_PACKAGE_NAME ${CALLWIRE_DEB_LIB})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
# A shlibs file (only the library package has a shared library to list), so that programs
# packaged against the library get their Depends from it.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
# Descriptions: the first line is the synopsis, the rest the long description (one string:
# a CMake list's semicolons would end up in the control file). No
# CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it before each as a common synopsis.
string(CONCAT CPACK_DEBIAN_LIB_DESCRIPTION
  "XML-RPC and JSON-RPC library for C and C++: the shared library\n"
  "callwire speaks XML-RPC and JSON-RPC 2.0 over HTTP, HTTPS, SCGI, CGI and xmlrpc-c's\n"
  "packet stream, as a server and as a client, with a C++ API and a C API.")

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
  "callwire calls methods of XML-RPC and JSON-RPC servers, lists their methods, converts\n"
  "documents to and from a JSON form, and runs a demonstration server.")

include(CPack)
