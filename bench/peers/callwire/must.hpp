// The callwire peers' registrations: bind refuses only a name bound twice or a system.* one,
// a bug in the benchmark, which then stops rather than measure a server without the method.
#pragma once

#include <callwire/error.hpp>
#include <cstdio>
#include <cstdlib>

namespace peers {

inline void must(const callwire::Status& bound) {
  if (bound) return;
  std::fprintf(stderr, "bind: %s\n", bound.error().message.c_str());
  std::exit(1);
}

}  // namespace peers
