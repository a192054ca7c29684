// callwire: symbol visibility. The library is built with hidden symbols; only what is marked
// CALLWIRE_API is exported. Every public C++ header includes this first, so the C++20 check
// below comes before anything that needs C++20.
#pragma once

// An older standard would meet C++20 in the next header and print a cascade of errors about
// something else; a missing include is fatal, so this is the one error, and it names the fix.
#if defined(__cplusplus) && __cplusplus < 202002L && !defined(_MSVC_LANG)
#include "callwire needs C++20: compile with -std=c++20 (or set CMAKE_CXX_STANDARD 20)"
#endif

#if defined(_WIN32)
#define CALLWIRE_API
#else
#define CALLWIRE_API __attribute__((visibility("default")))
#endif

// For a class nested in an exported one (a pimpl's Impl), which would otherwise inherit the
// enclosing class's default visibility: marks it internal to the library.
#if defined(_WIN32)
#define CALLWIRE_LOCAL
#else
#define CALLWIRE_LOCAL __attribute__((visibility("hidden")))
#endif

// For the few header functions on every value's path whose inlining must not depend on the
// inliner's budget (a member name's compare in a typed read). Other compilers choose alone.
#if defined(__GNUC__) || defined(__clang__)
#define CALLWIRE_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define CALLWIRE_ALWAYS_INLINE inline
#endif
