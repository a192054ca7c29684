// callwire: symbol visibility. The library is built with hidden symbols; only what is marked
// CALLWIRE_API is exported.
#pragma once

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
