/* callwire: the version of these headers, for C and C++, and of the library at run time.
 *
 * The numbers here are the project's version: CMakeLists.txt reads them from this file, so
 * the library, its packages and these macros never disagree. Before 1.0 a minor version may
 * change the API; from 1.0 on only a major version does. */
#ifndef CALLWIRE_VERSION_H
#define CALLWIRE_VERSION_H

/** @file callwire/version.h
 *  CALLWIRE_VERSION_* macros (the headers compiled against) and callwire_version() (the
 *  library linked at run time). */

#define CALLWIRE_VERSION_MAJOR 0
#define CALLWIRE_VERSION_MINOR 1
#define CALLWIRE_VERSION_PATCH 0

/** "MAJOR.MINOR.PATCH" of these headers. */
#define CALLWIRE_VERSION_STRING "0.1.0"

/** One number to compare versions at compile time:
 *  `#if CALLWIRE_VERSION_NUMBER >= CALLWIRE_VERSION_AT(0, 2, 0)`. */
#define CALLWIRE_VERSION_AT(major, minor, patch) ((major)*1000000L + (minor)*1000L + (patch))
#define CALLWIRE_VERSION_NUMBER \
  CALLWIRE_VERSION_AT(CALLWIRE_VERSION_MAJOR, CALLWIRE_VERSION_MINOR, CALLWIRE_VERSION_PATCH)

#ifndef CALLWIRE_API
#if defined(_WIN32)
#define CALLWIRE_API
#else
#define CALLWIRE_API __attribute__((visibility("default")))
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The version of the library running, "MAJOR.MINOR.PATCH": with a shared library it may be
 *  newer than CALLWIRE_VERSION_STRING, the headers the program was built with. Static
 *  storage; never free it. */
CALLWIRE_API const char* callwire_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CALLWIRE_VERSION_H */
