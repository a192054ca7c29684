// The one allocation path for Value storage (value_build.hpp), with a per-thread cache of small
// freed blocks.
//
// Why a cache: a decoded document or a converted result is a tree of many small blocks (a
// struct of 34 students is some 90,000 strings, arrays and structs), made and freed whole,
// call after call. glibc's per-thread cache holds 7 blocks of a size; past that every malloc
// and free takes the arena's bins (and consolidation), which cost a third of such a call. Here
// each thread keeps freed small blocks on lists by size, up to kCacheBytes, and hands them
// out again with a pop.
//
// The blocks stay malloc's own (the cache only delays their free), so realloc and
// malloc_usable_size work on every one of them, and a block freed on another thread than the
// one that made it simply joins that thread's lists. A block's list is chosen by its usable
// size, so nothing needs a header. Under AddressSanitizer or ThreadSanitizer, or without
// glibc, there is no cache: every block goes straight back to free, where the tools watch.
#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

#include "base/page_blocks.hpp"
#include "value/value_build.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CALLWIRE_VALUE_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CALLWIRE_VALUE_CACHE 0
#endif
#endif
#if !defined(CALLWIRE_VALUE_CACHE)
#if defined(__GLIBC__)
#define CALLWIRE_VALUE_CACHE 1
#else
#define CALLWIRE_VALUE_CACHE 0
#endif
#endif

namespace callwire::detail {

namespace {
// Test-only: set by allocation-failure tests, possibly while a server's threads allocate
// (atomic for that; an acquire load costs a plain load on x86).
std::atomic<AllocFailHook> g_alloc_hook{nullptr};

bool allocation_refused() noexcept {
  AllocFailHook hook = g_alloc_hook.load(std::memory_order_acquire);
  return hook && !hook();
}

#if CALLWIRE_VALUE_CACHE
// Lists by usable size in steps of 16 bytes, up to kLargestCached: glibc's chunks are
// multiples of 16 with 8 bytes of overhead, so a block of usable size u is on list
// (u + 8) / 16, and a request of n bytes is served from list (n + 8 + 15) / 16 (at least 2, the
// smallest chunk). The largest struct and array blocks of ordinary documents (a few dozen
// members or elements) fit.
constexpr size_t kLargestCached = 1024 - 8;
constexpr size_t kLists = (kLargestCached + 8) / 16 + 1;
// What one thread may hold: most of the tree of a 4 MB document. Not all of it is extra
// memory: glibc keeps freed small blocks in its arenas too, rarely returning them.
constexpr size_t kCacheBytes = size_t{8} << 20;

size_t list_for_request(size_t n) noexcept {
  size_t list = (n + 8 + 15) / 16;
  return list < 2 ? 2 : list;
}
// What a block on `list` counts against kCacheBytes: its usable size, known from the list.
size_t list_bytes(size_t list) noexcept { return list * 16 - 8; }

// Trivially destructible, so it can be read at any point of a thread's life, also while and
// after thread-local objects are destroyed (a Value in one of them may be freed late).
struct Lists {
  void* head[kLists];
  size_t bytes;
  bool registered;  // the Flusher below exists for this thread
  bool closed;      // the thread is ending: free straight away
};
thread_local Lists t_lists;

// At thread exit: gives every cached block back and closes the lists.
struct Flusher {
  ~Flusher() {
    for (void*& head : t_lists.head) {
      while (head) {
        void* next = *static_cast<void**>(head);
        std::free(head);
        head = next;
      }
    }
    t_lists.bytes = 0;
    t_lists.closed = true;
  }
};

bool cache_open() noexcept {
  if (t_lists.registered) return !t_lists.closed;
  t_lists.registered = true;
  thread_local Flusher flusher;  // constructed once per thread, destroyed at its exit
  (void)flusher;
  return true;
}

void* take_cached(size_t size) noexcept {
  if (size > kLargestCached) return nullptr;
  const size_t list = list_for_request(size);
  void*& head = t_lists.head[list];
  void* block = head;
  if (block) {
    head = *static_cast<void**>(block);
    t_lists.bytes -= list_bytes(list);
  }
  return block;
}

bool keep_cached(void* block) noexcept {
  size_t usable = malloc_usable_size(block);
  const size_t list = (usable + 8) / 16;
  if (usable > kLargestCached || t_lists.bytes + list_bytes(list) > kCacheBytes || !cache_open())
    return false;
  void*& head = t_lists.head[list];
  *static_cast<void**>(block) = head;
  head = block;
  t_lists.bytes += list_bytes(list);
  return true;
}
#endif
}  // namespace

// A mapped text block: the mapping's capacity, 8 bytes unused (the block stays 16-aligned),
// then the block.
constexpr size_t kMappedHeader = 16;

bool value_text_mapped(size_t block_size) noexcept {
  return CALLWIRE_VALUE_CACHE && block_size >= pages::kLargeBlock;
}

void* value_map_text(size_t block_size) {
  if (allocation_refused()) throw std::bad_alloc();
  size_t capacity = pages::round_up(block_size + kMappedHeader);
  auto* mapping = static_cast<unsigned char*>(pages::take(capacity));
  std::memcpy(mapping, &capacity, sizeof capacity);
  return mapping + kMappedHeader;
}

void value_unmap_text(void* block) noexcept {
  unsigned char* mapping = static_cast<unsigned char*>(block) - kMappedHeader;
  size_t capacity;
  std::memcpy(&capacity, mapping, sizeof capacity);
  pages::give_back(mapping, capacity);
}

size_t value_cache_bytes() noexcept {
#if CALLWIRE_VALUE_CACHE
  return t_lists.bytes;
#else
  return 0;
#endif
}

size_t value_cache_limit() noexcept {
#if CALLWIRE_VALUE_CACHE
  return kCacheBytes;
#else
  return 0;
#endif
}

void set_value_alloc_hook(AllocFailHook hook) noexcept {
  g_alloc_hook.store(hook, std::memory_order_release);
}

void* value_alloc(size_t size) {
  if (allocation_refused()) throw std::bad_alloc();
#if CALLWIRE_VALUE_CACHE
  if (void* block = take_cached(size)) return block;
#endif
  void* p = std::malloc(size ? size : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

void* value_realloc(void* old, size_t size) {
  if (allocation_refused()) throw std::bad_alloc();
  void* p = std::realloc(old, size ? size : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

void value_free(void* p) noexcept {
#if CALLWIRE_VALUE_CACHE
  if (p && keep_cached(p)) return;
#endif
  std::free(p);
}

}  // namespace callwire::detail
