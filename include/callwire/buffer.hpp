// callwire: a growable contiguous byte buffer, the target of every writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

#include "callwire/export.hpp"

namespace callwire {

/// Contiguous bytes that grow geometrically. Writers append to it; a transport sends
/// `view()`. Ownership: owns its storage. Thread-safety: none (one owner at a time). Errors:
/// growth that cannot be satisfied throws std::bad_alloc.
class CALLWIRE_API Buffer {
 public:
  Buffer() noexcept = default;
  explicit Buffer(size_t capacity) { reserve(capacity); }
  Buffer(const Buffer& other) { append(other.data_, other.size_); }
  Buffer(Buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  Buffer& operator=(Buffer other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  ~Buffer() {
    if (data_) free_storage(data_, capacity_, size_);
  }

  const char* data() const noexcept { return data_; }
  char* data() noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  std::string_view view() const noexcept { return {data_, size_}; }
  /// The bytes of the storage after the end of `view` (contents or not, all readable), or 0
  /// when `view` does not lie in the storage. A reader that may load past a document's end
  /// reads one in place when this is at least its padding (json::kPadding for
  /// json::Reader::read_request_padded). Valid until the storage grows or goes.
  size_t room_after(std::string_view view) const noexcept {
    auto begin = reinterpret_cast<uintptr_t>(data_);
    auto at = reinterpret_cast<uintptr_t>(view.data());
    if (!data_ || at < begin || at - begin > capacity_) return 0;
    size_t after_start = capacity_ - (at - begin);
    return after_start >= view.size() ? after_start - view.size() : 0;
  }

  /// Forgets the contents; keeps the storage.
  void clear() noexcept { size_ = 0; }
  /// Shrinks the contents to `n` bytes (n <= size()).
  void truncate(size_t n) noexcept {
    if (n < size_) size_ = n;
  }
  /// Removes the first `n` bytes (all of them when n >= size()); the rest moves to the front.
  void drop_front(size_t n) noexcept {
    if (n >= size_) {
      size_ = 0;
      return;
    }
    if (n > 0) std::memmove(data_, data_ + n, size_ - n);
    size_ -= n;
  }
  void reserve(size_t n) {
    if (n > capacity_) grow_to(n);
  }
  /// Like reserve, but to `n` bytes (rounded up to whole pages for large blocks) rather than
  /// the next geometric step: for a known final size.
  void reserve_exact(size_t n) {
    if (n <= capacity_) return;
    size_t cap = capacity_for(n);
    data_ = static_cast<char*>(resize_storage(data_, capacity_, cap));
    capacity_ = cap;
  }

  /// The capacity growing to hold `min_capacity` bytes would give (the larger of that and the
  /// next geometric step): lets a caller that knows the final size stop there instead.
  size_t next_capacity(size_t min_capacity) const noexcept {
    size_t cap = capacity_ < 256 ? 256 : capacity_ + capacity_ / 2;
    return capacity_for(cap < min_capacity ? min_capacity : cap);
  }

  /// Room for `n` more bytes: returns where to write them; `commit` makes them part of the
  /// contents.
  char* prepare(size_t n) {
    if (capacity_ - size_ < n) grow_to(size_ + n);
    return data_ + size_;
  }
  void commit(size_t n) noexcept { size_ += n; }

  void append(const char* p, size_t n) {
    char* dst = prepare(n);
    if (n) std::memcpy(dst, p, n);
    size_ += n;
  }
  void append(std::string_view s) { append(s.data(), s.size()); }
  void push_back(char c) {
    if (size_ == capacity_) grow_to(size_ + 1);
    data_[size_++] = c;
  }

 private:
  // The storage. Blocks under 128 KiB come from malloc; larger ones are mapped pages of their
  // own, so growing one moves pages instead of copying bytes (no moment with old and new both
  // resident) and freeing one gives its memory back at once (malloc keeps large freed blocks
  // in its arenas, where one large request would pin them). resize_storage returns the new
  // block (contents kept) or throws std::bad_alloc, and may raise `new_capacity` (a recycled
  // large block is kept whole); capacity_for is the capacity it provides for `n` bytes (large
  // blocks are whole pages).
  static void* resize_storage(void* block, size_t old_capacity, size_t& new_capacity);
  // `used`: the size it held last (a large block's pages past it may be given back).
  static void free_storage(void* block, size_t capacity, size_t used) noexcept;
  static size_t capacity_for(size_t n) noexcept;

  void grow_to(size_t min_capacity) {
    size_t cap = next_capacity(min_capacity);
    data_ = static_cast<char*>(resize_storage(data_, capacity_, cap));
    capacity_ = cap;
  }

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace callwire
