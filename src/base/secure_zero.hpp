// Internal: wiping a secret's copy (a password) so that the compiler cannot drop the stores as
// dead. explicit_bzero is glibc's and the BSDs', not macOS's or Windows': volatile stores are
// everyone's.
#pragma once

#include <cstddef>

namespace callwire {

inline void secure_zero(void* p, size_t n) noexcept {
  volatile unsigned char* bytes = static_cast<volatile unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) bytes[i] = 0;
}

}  // namespace callwire
