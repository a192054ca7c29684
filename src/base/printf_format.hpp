// Internal: the attribute that checks a printf-like function's arguments against its format.
// gcc's "printf" means the C runtime's, which on Windows (MinGW) knows no %zu; "gnu_printf" is
// the C99 one the library's formatting uses everywhere. clang knows only "printf", which is
// C99's on every system it checks.
#pragma once

#if defined(__clang__)
#define CALLWIRE_PRINTF_FORMAT(format_index, first_arg) \
  __attribute__((format(printf, format_index, first_arg)))
#else
#define CALLWIRE_PRINTF_FORMAT(format_index, first_arg) \
  __attribute__((format(gnu_printf, format_index, first_arg)))
#endif
