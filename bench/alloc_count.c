/* callwire bench: the counting allocator (see alloc_count.h). */
#include "alloc_count.h"

#include <errno.h>
#include <stddef.h>

/* glibc's allocator under its exported internal names. */
extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* ptr, size_t size);
extern void __libc_free(void* ptr);
extern void* __libc_memalign(size_t alignment, size_t size);

/* Thread-local in the executable: a plain increment at a fixed offset from %fs, no lock, and
 * exact per thread. It is zero-initialized, so it is usable before any constructor runs. */
static __thread unsigned long long allocations;

unsigned long long bench_alloc_count(void) { return allocations; }

void* malloc(size_t size) {
  ++allocations;
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  ++allocations;
  return __libc_calloc(count, size);
}

void* realloc(void* ptr, size_t size) {
  ++allocations;
  return __libc_realloc(ptr, size);
}

void free(void* ptr) { __libc_free(ptr); }

/* The aligned family (operator new with std::align_val_t lands here through aligned_alloc). */
void* memalign(size_t alignment, size_t size) {
  ++allocations;
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  ++allocations;
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  ++allocations;
  void* p = __libc_memalign(alignment, size);
  if (!p && size) return ENOMEM;
  *out = p;
  return 0;
}
