#include "base/page_blocks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace callwire::pages {

namespace {

// Up to kSlots blocks a thread, none over kMaxBlock, kMaxBytes in all: a client's answer
// buffer and the bytes Value decoded from it, a server's answer buffer, each reused call
// after call. A 16 MiB blob's answer (22.4 MB of base64) and its decoded bytes fit, so they
// are served from warm pages (a 1 MiB blob's call took 35% less CPU, a 16 MiB one's 40% less
// wall time); a body grown to the default 32 MiB max_body (a refused gzip bomb, say) is not
// kept.
constexpr size_t kSlots = 3;
constexpr size_t kMaxBlock = size_t{24} << 20;
constexpr size_t kMaxBytes = size_t{40} << 20;
// A larger block, up to this, is kept when what it was last used for fits kMaxBlock, its pages
// past that given back: a client's storage for a chunked answer is reserved for the largest
// answer allowed (32 MiB by default), of which an answer fills the first few MiB. A block
// filled past kMaxBlock (a refused gzip bomb's) is not kept.
constexpr size_t kMaxTrimmedBlock = size_t{256} << 20;

// Trivially destructible, so it can be used at any point of a thread's life; the Releaser
// below unmaps what it holds when the thread ends.
struct Slot {
  void* block;
  size_t capacity;
  size_t counted;  // of the cache's bytes: the capacity, or what a trimmed block kept
};
struct Cache {
  Slot slots[kSlots];
  size_t bytes;
  bool registered;
  bool closed;
};
thread_local Cache t_cache;

struct Releaser {
  ~Releaser() {
    for (Slot& s : t_cache.slots) {
      if (s.block) unmap(s.block, s.capacity);
      s = Slot{};
    }
    t_cache.bytes = 0;
    t_cache.closed = true;
  }
};

bool cache_open() noexcept {
  if (t_cache.registered) return !t_cache.closed;
  t_cache.registered = true;
  thread_local Releaser releaser;  // destroyed at the thread's exit
  (void)releaser;
  return true;
}

// The address-space calls: make usable pages at `at`, give back. POSIX: mprotect, munmap.
// Windows: VirtualAlloc's commit, VirtualFree.
// Dropping pages keeps the addresses usable and gives the memory back: Windows decommits and
// commits again; POSIX maps fresh zero pages over them.
#if defined(_WIN32)
bool make_usable(void* at, size_t length) noexcept {
  return VirtualAlloc(at, length, MEM_COMMIT, PAGE_READWRITE) != nullptr;
}
void release(void* block, size_t) noexcept { VirtualFree(block, 0, MEM_RELEASE); }
bool drop_pages(void* at, size_t length) noexcept {
  return VirtualFree(at, length, MEM_DECOMMIT) && make_usable(at, length);
}
#else
bool make_usable(void* at, size_t length) noexcept {
  return mprotect(at, length, PROT_READ | PROT_WRITE) == 0;
}
void release(void* block, size_t length) noexcept { munmap(block, length); }
bool drop_pages(void* at, size_t length) noexcept {
  return mmap(at, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
         MAP_FAILED;
}
#endif

// `length` bytes of address space, the first `usable` of them usable; null when it failed.
void* reserve(size_t length, size_t usable) noexcept {
#if defined(_WIN32)
  if (length == usable)
    return VirtualAlloc(nullptr, length, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  void* p = VirtualAlloc(nullptr, length, MEM_RESERVE, PAGE_NOACCESS);
#else
  const int access = length == usable ? PROT_READ | PROT_WRITE : PROT_NONE;
  void* p = mmap(nullptr, length, access, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (length == usable) return p;
#endif
  if (p && !make_usable(p, usable)) {
    release(p, length);
    return nullptr;
  }
  return p;
}

#if CALLWIRE_HAVE_MREMAP
size_t mapped_length(size_t capacity) noexcept { return capacity; }
#else
// Without mremap, a block grows in place within address space reserved when it is mapped:
// kReservation bytes, inaccessible (so they cost no memory) but for the first `capacity`.
// Copying into a new mapping instead would hold the old block and the new at once, more than
// the server's memory budget counts. A block grown past it moves. 32-bit systems, short of
// address space, reserve nothing.
constexpr size_t kReservation = sizeof(void*) >= 8 ? size_t{64} << 20 : 0;
size_t mapped_length(size_t capacity) noexcept {
  return capacity > kReservation ? capacity : kReservation;
}

// False when `block` cannot grow where it is (past its reservation).
bool grow_in_place(void* block, size_t old_capacity, size_t new_capacity) noexcept {
  if (new_capacity > mapped_length(old_capacity)) return false;
  return make_usable(static_cast<char*>(block) + old_capacity, new_capacity - old_capacity);
}
#endif

void* map(size_t capacity) {
  void* p = reserve(mapped_length(capacity), capacity);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

void unmap(void* block, size_t capacity) noexcept { release(block, mapped_length(capacity)); }

size_t round_up(size_t n) noexcept {
#if defined(_WIN32)
  static const size_t page = [] {
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return size_t(info.dwPageSize);
  }();
#else
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
#endif
  return n > SIZE_MAX - page ? n : (n + page - 1) / page * page;
}

void* take(size_t& capacity, Fit fit) {
  Slot* smallest_fitting = nullptr;
  Slot* largest = nullptr;
  for (Slot& s : t_cache.slots) {
    if (!s.block) continue;
    if (s.capacity >= capacity && (!smallest_fitting || s.capacity < smallest_fitting->capacity))
      smallest_fitting = &s;
    if (!largest || s.capacity > largest->capacity) largest = &s;
  }
  Slot* chosen = fit == Fit::smallest && smallest_fitting ? smallest_fitting : largest;
  if (!chosen) return map(capacity);
  Slot s = *chosen;
  *chosen = Slot{};
  t_cache.bytes -= s.counted;
  if (s.capacity >= capacity) {
    capacity = s.capacity;
    return s.block;
  }
#if CALLWIRE_HAVE_MREMAP
  // Grown in place or moved: the pages it had stay warm.
  void* p = mremap(s.block, s.capacity, capacity, MREMAP_MAYMOVE);
  if (p != MAP_FAILED) return p;
#else
  if (grow_in_place(s.block, s.capacity, capacity)) return s.block;
#endif
  unmap(s.block, s.capacity);
  return map(capacity);
}

void* resize(void* block, size_t old_capacity, size_t new_capacity) {
#if CALLWIRE_HAVE_MREMAP
  void* p = mremap(block, old_capacity, new_capacity, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
#else
  // POSIX has no mremap: in place within the reservation; past it a new mapping, the bytes
  // copied, the old one gone.
  if (grow_in_place(block, old_capacity, new_capacity)) return block;
  void* p = map(new_capacity);
  std::memcpy(p, block, old_capacity);
  unmap(block, old_capacity);
  return p;
#endif
}

void give_back(void* block, size_t capacity, size_t used) noexcept {
  size_t counted = capacity;
  if (capacity > kMaxBlock) {
    counted = round_up(std::max(used, size_t{1}));
    if (capacity > kMaxTrimmedBlock || counted > kMaxBlock ||
        !drop_pages(static_cast<char*>(block) + counted, capacity - counted)) {
      unmap(block, capacity);
      return;
    }
  }
  if (!cache_open()) {
    unmap(block, capacity);
    return;
  }
  // Room for it: an empty slot, else the smallest blocks go (first) until it fits.
  for (;;) {
    Slot* empty = nullptr;
    Slot* smallest = nullptr;
    for (Slot& s : t_cache.slots) {
      if (!s.block)
        empty = empty ? empty : &s;
      else if (!smallest || s.capacity < smallest->capacity)
        smallest = &s;
    }
    if (empty && t_cache.bytes + counted <= kMaxBytes) {
      *empty = Slot{block, capacity, counted};
      t_cache.bytes += counted;
      return;
    }
    unmap(smallest->block, smallest->capacity);
    t_cache.bytes -= smallest->counted;
    *smallest = Slot{};
  }
}

size_t cached_bytes() noexcept { return t_cache.bytes; }
size_t max_cached_block() noexcept { return kMaxBlock; }
size_t max_cached_bytes() noexcept { return kMaxBytes; }

}  // namespace callwire::pages
