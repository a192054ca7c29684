/* Allocation-failure injection for the C API's tests: every value allocation (value storage and
 * cw_value handles) can be made to fail, as if malloc returned NULL. Test code only
 * (alloc_failure.cpp, over the library's internal allocation hook; the tests link the static
 * library); nothing of it is in the library. Not thread-safe. C99. */
#ifndef CALLWIRE_TESTS_CAPI_ALLOC_FAILURE_H
#define CALLWIRE_TESTS_CAPI_ALLOC_FAILURE_H

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

#endif /* CALLWIRE_TESTS_CAPI_ALLOC_FAILURE_H */
