// Buffer's storage: malloc for small blocks, private mappings for large ones (why: see
// callwire/buffer.hpp).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "callwire/buffer.hpp"

namespace callwire {

namespace {

constexpr size_t kLargeBlock = size_t{1} << 20;

size_t page_size() noexcept {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

bool is_large(size_t capacity) noexcept { return capacity >= kLargeBlock; }

// One freed large block per thread, kept for the next large Buffer on that thread: a
// connection that answers call after call of a few MiB reuses warm pages instead of faulting
// fresh ones in every time (mapping, zeroing and unmapping cost more than encoding: a 16 MiB
// blob's answer, 22.4 MB of base64, took 40% longer when its buffers were fresh). Bounded so
// a thread never pins more than kCachedMax after a burst of large requests; a body grown to
// the default 32 MiB max_body (a refused gzip bomb, say) is not kept.
constexpr size_t kCachedMax = size_t{24} << 20;

struct CachedBlock {
  void* block = nullptr;
  size_t capacity = 0;
  ~CachedBlock() {
    if (block) munmap(block, capacity);
  }
};
thread_local CachedBlock t_cached;

// A block of at least `capacity` bytes; a recycled one larger than asked is kept whole (its
// pages are warm: shrinking it would unmap them, and the Buffer would fault them in again as
// it grows), and `capacity` raised to its size.
void* map_block(size_t& capacity) {
  if (void* cached = std::exchange(t_cached.block, nullptr)) {
    if (t_cached.capacity >= capacity) {
      capacity = t_cached.capacity;
      return cached;
    }
    void* p = mremap(cached, t_cached.capacity, capacity, MREMAP_MAYMOVE);
    if (p != MAP_FAILED) return p;
    munmap(cached, t_cached.capacity);
  }
  void* p = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void unmap_block(void* block, size_t capacity) noexcept {
  if (capacity <= kCachedMax) {
    if (t_cached.block) munmap(t_cached.block, t_cached.capacity);
    t_cached.block = block;
    t_cached.capacity = capacity;
    return;
  }
  munmap(block, capacity);
}

}  // namespace

size_t Buffer::capacity_for(size_t n) noexcept {
  if (!is_large(n)) return n;
  size_t page = page_size();
  return n > SIZE_MAX - page ? n : (n + page - 1) / page * page;
}

void* Buffer::resize_storage(void* block, size_t old_capacity, size_t& new_capacity) {
  if (!is_large(new_capacity)) {
    // Both small (a Buffer only grows, so the old one is small too).
    void* p = std::realloc(block, new_capacity);
    if (!p) throw std::bad_alloc();
    return p;
  }
  if (block && is_large(old_capacity)) {
    void* p = mremap(block, old_capacity, new_capacity, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
  }
  void* p = map_block(new_capacity);
  if (block) {
    std::memcpy(p, block, old_capacity);
    std::free(block);
  }
  return p;
}

void Buffer::free_storage(void* block, size_t capacity) noexcept {
  if (is_large(capacity))
    unmap_block(block, capacity);
  else
    std::free(block);
}

}  // namespace callwire
