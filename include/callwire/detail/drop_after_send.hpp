// callwire: a handler's result kept until its answer is sent. No stability promise; include
// callwire/registry.hpp or callwire/server.hpp instead.
//
// Why: a result is written into the answer and then only destroyed. Destroyed before the answer
// goes out, its free sits between the handler and the client: a fresh 4 MiB vector unmapped,
// or the 45,000 strings of a copied list of students, a third of a millisecond and more. Kept
// here instead, it is destroyed once the answer is on the socket, while the client reads it.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace callwire::detail {

/// One object whose destruction waits until the transport has sent the answer it was written
/// into. The transport owns it (one per connection or worker) and calls drop() after its write;
/// keep() drops what it held first, so it holds at most one object, never longer than one
/// answer's send. Thread-safety: used by the thread that runs the call, and dropped there.
class DropAfterSend {
 public:
  /// Objects up to this size are kept in place, with no allocation: the standard containers
  /// and strings, and a record of a few strings and a vector (the paper's Info is 184 bytes).
  /// Larger ones are destroyed when the dispatch returns, as before.
  static constexpr size_t kRoom = 192;

  template <class T>
  static constexpr bool can_keep =
      !std::is_trivially_destructible_v<T> && std::is_nothrow_move_constructible_v<T> &&
      sizeof(T) <= kRoom && alignof(T) <= alignof(std::max_align_t);

  DropAfterSend() noexcept = default;
  DropAfterSend(const DropAfterSend&) = delete;
  DropAfterSend& operator=(const DropAfterSend&) = delete;
  ~DropAfterSend() { drop(); }

  /// Moves `t` in (what was held is destroyed first); `t` is left moved-from.
  template <class T>
  requires can_keep<T>
  void keep(T& t) noexcept {
    drop();
    ::new (static_cast<void*>(storage_)) T(std::move(t));
    destroy_ = [](void* p) noexcept { std::launder(static_cast<T*>(p))->~T(); };
  }

  /// Whether an object is held.
  bool holding() const noexcept { return destroy_ != nullptr; }

  /// Destroys what is held, if anything.
  void drop() noexcept {
    if (destroy_ == nullptr) return;
    void (*destroy)(void*) noexcept = destroy_;
    destroy_ = nullptr;  // first: a destructor that ends in keep() again finds it empty
    destroy(storage_);
  }

 private:
  alignas(std::max_align_t) unsigned char storage_[kRoom];
  void (*destroy_)(void*) noexcept = nullptr;
};

}  // namespace callwire::detail
