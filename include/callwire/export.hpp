// callwire: symbol visibility. The library is built with hidden symbols; only what is marked
// CALLWIRE_API is exported.
#pragma once

#if defined(_WIN32)
#define CALLWIRE_API
#else
#define CALLWIRE_API __attribute__((visibility("default")))
#endif
