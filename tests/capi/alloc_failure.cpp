// alloc_failure.h over the library's internal value allocation hook (src/value/value_build.hpp).
#include "alloc_failure.h"

#include "value/value_build.hpp"

namespace {

long g_limit = -1;
long g_count = 0;

bool count_and_decide() {
  ++g_count;
  return g_limit < 0 || g_count <= g_limit;
}

}  // namespace

extern "C" void cw_test_fail_allocation_after(long n) {
  g_limit = n;
  g_count = 0;
  callwire::detail::set_value_alloc_hook(&count_and_decide);
}

extern "C" long cw_test_allocation_count(void) { return g_count; }
