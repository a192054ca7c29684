/* callwire: test-only C hooks into the library, for the C API's own tests (tests/capi/).
 * NOT part of the public API: not installed, not exported from the shared library (the tests
 * link the static one), not thread-safe. C99. */
#ifndef CALLWIRE_CAPI_TEST_H
#define CALLWIRE_CAPI_TEST_H

#ifdef __cplusplus
extern "C" {
#endif

/* FOR TESTS ONLY. Counts value allocations (the value storage and the cw_value handles) from
 * now on and makes every one after the first `n` fail, as if malloc returned NULL; n < 0
 * turns the injection off (allocations counted, none failed). */
void cw_test_fail_allocation_after(long n);

/* FOR TESTS ONLY. The number of value allocations attempted since the last
 * cw_test_fail_allocation_after call (failed ones included). */
long cw_test_allocation_count(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_CAPI_TEST_H */
