/* callwire bench: counts heap allocations made by this thread.
 *
 * alloc_count.c replaces malloc, calloc, realloc, free and the aligned allocators for the whole
 * process (glibc supports this: every library, libstdc++'s operator new included, then calls
 * ours) and forwards each one to glibc's own (__libc_malloc, ...). Every call that returns new
 * storage counts one, realloc included: it may move the block. Counts are per thread, so a
 * benchmark reads exactly what its own loop allocated. */
#ifndef CALLWIRE_BENCH_ALLOC_COUNT_H
#define CALLWIRE_BENCH_ALLOC_COUNT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Allocations made by the calling thread since it started. */
unsigned long long bench_alloc_count(void);

#ifdef __cplusplus
}
#endif

#endif
