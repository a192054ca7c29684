// Internal: a shared_ptr that one thread replaces while others take copies of it (a server's
// TLS context, swapped by reload_tls while its loops accept). std::atomic<std::shared_ptr> does
// this in C++20, but libc++ (macOS's standard library) does not have it yet; a mutex held for
// a reference count's increment does the same everywhere.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

namespace callwire {

/// Ownership: shares the pointee. Thread-safety: load and store from any thread at once.
template <class T>
class SharedSlot {
 public:
  std::shared_ptr<T> load() const {
    std::lock_guard lock(mutex_);
    return value_;
  }
  void store(std::shared_ptr<T> value) {
    std::lock_guard lock(mutex_);
    value_.swap(value);
    // The old value is released after the lock, by `value`'s destructor.
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<T> value_;
};

}  // namespace callwire
