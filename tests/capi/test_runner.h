/* A tiny test runner for the C API's tests, in C99: no GoogleTest on the C side.
 *
 *   static void test_something(void) { CHECK(x == 1); CHECK_STATUS(f(), CW_OK); }
 *   static const struct test_case tests[] = {TEST(test_something)};
 *   int main(int argc, char** argv) { return run_tests(tests, COUNT(tests), argc, argv); }
 *
 * A failed CHECK prints file:line and the expression, marks the current test failed and goes
 * on. `prog NAME...` runs only the named tests. Exit status: 0 when every test passed. */
#ifndef CALLWIRE_TESTS_CAPI_TEST_RUNNER_H
#define CALLWIRE_TESTS_CAPI_TEST_RUNNER_H

#include <stdio.h>
#include <string.h>

struct test_case {
  const char* name;
  void (*fn)(void);
};

static int g_test_failures = 0;

#define TEST(fn) \
  { #fn, fn }
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_test_failures;                                                       \
    }                                                                          \
  } while (0)

#define CHECK_STATUS(expr, want)                                                                   \
  do {                                                                                             \
    cw_status got_ = (expr);                                                                       \
    if (got_ != (want)) {                                                                          \
      fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__, __LINE__, #expr, \
              (int)got_, cw_status_name(got_), (int)(want), cw_status_name(want));                 \
      ++g_test_failures;                                                                           \
    }                                                                                              \
  } while (0)

static int run_tests(const struct test_case* tests, size_t count, int argc, char** argv) {
  size_t i;
  int failed_tests = 0, run = 0;
  for (i = 0; i < count; ++i) {
    int before = g_test_failures, selected = argc < 2, a;
    for (a = 1; a < argc; ++a) selected |= strcmp(argv[a], tests[i].name) == 0;
    if (!selected) continue;
    ++run;
    tests[i].fn();
    if (g_test_failures != before) {
      ++failed_tests;
      fprintf(stderr, "FAILED %s\n", tests[i].name);
    } else {
      printf("ok     %s\n", tests[i].name);
    }
  }
  printf("%d test(s) run, %d failed\n", run, failed_tests);
  return failed_tests == 0 && run > 0 ? 0 : 1;
}

#endif
