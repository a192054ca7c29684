// callwire_version(): the version this library was built as, for a program that wants to know
// which shared library it runs with (the macros say only which headers it was compiled with).
#include "callwire/version.h"

extern "C" const char* callwire_version(void) { return CALLWIRE_VERSION_STRING; }
