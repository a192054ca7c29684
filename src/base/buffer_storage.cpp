// Buffer's storage: malloc for small blocks, private mappings for large ones (why: see
// callwire/buffer.hpp), recycled through the thread's cache of page blocks (page_blocks.hpp).
#include <cstdlib>
#include <cstring>
#include <new>

#include "base/page_blocks.hpp"
#include "callwire/buffer.hpp"

namespace callwire {

namespace {
bool is_large(size_t capacity) noexcept { return capacity >= pages::kLargeBlock; }
}  // namespace

size_t Buffer::capacity_for(size_t n) noexcept { return is_large(n) ? pages::round_up(n) : n; }

void* Buffer::resize_storage(void* block, size_t old_capacity, size_t& new_capacity) {
  if (!is_large(new_capacity)) {
    // Both small (a Buffer only grows, so the old one is small too).
    void* p = std::realloc(block, new_capacity);
    if (!p) throw std::bad_alloc();
    return p;
  }
  if (block && is_large(old_capacity)) return pages::resize(block, old_capacity, new_capacity);
  // A Buffer grows as bytes arrive: the largest cached block (see pages::Fit).
  void* p = pages::take(new_capacity, pages::Fit::largest);
  if (block) {
    std::memcpy(p, block, old_capacity);
    std::free(block);
  }
  return p;
}

void Buffer::free_storage(void* block, size_t capacity, size_t used) noexcept {
  if (is_large(capacity))
    pages::give_back(block, capacity, used);
  else
    std::free(block);
}

}  // namespace callwire
