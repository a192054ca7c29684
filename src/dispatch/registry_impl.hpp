// Internal: what a Registry holds, for the dispatcher.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/ascii.hpp"
#include "callwire/registry.hpp"
#include "dispatch/signature.hpp"

namespace callwire {

struct CALLWIRE_LOCAL Registry::Impl {
  struct Method {
    std::string name;
    Handler handler;
    MethodInfo info;
    std::vector<detail::Signature> signatures;  // parsed from info.signatures
    StreamedHandler streamed;                   // bind's, when its parameters read so
  };

  static constexpr uint32_t kNotFound = UINT32_MAX;

  /// The index of `name` in `methods`, or kNotFound. Never allocates.
  uint32_t find(std::string_view name) const noexcept {
    if (slots.empty()) return kNotFound;
    const size_t mask = slots.size() - 1;
    for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
      const uint32_t slot = slots[i];
      if (slot == 0) return kNotFound;
      const std::string& known = methods[slot - 1].name;
      if (known.size() == name.size() && std::memcmp(known.data(), name.data(), name.size()) == 0)
        return slot - 1;
    }
  }

  /// Makes the last of `methods` findable. Throws std::bad_alloc (then nothing changed).
  void index_last();

  // Every call looks its method up by name: an open-addressed table of indexes, at most half
  // full. std::unordered_map compared the name with every method of a registry of up to 20
  // before hashing at all (libstdc++'s small-size path): ~210 instructions per call. The hash
  // takes eight bytes at a time (the last eight overlapping), each step a multiply and a
  // shift. Peers only look names up, never add them: there is no flooding to key it against.
  static size_t name_hash(std::string_view s) noexcept {
    const char* p = s.data();
    const size_t n = s.size();
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    auto step = [&h](uint64_t w) {
      h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
    };
    if (n >= 8) {
      for (size_t i = 0; i + 8 < n; i += 8) step(base::detail::load8(p + i));
      step(base::detail::load8(p + n - 8));
    } else {
      uint64_t w = 0;
      if (n != 0) std::memcpy(&w, p, n);  // an empty name's data may be null
      step(w);
    }
    return size_t(h);
  }

  std::vector<Method> methods;  // registration order; an index never changes
  Handler default_method;       // set_default_method: calls to names nobody registered
  PreInvoke preinvoke;          // set_preinvoke: before every call
  std::vector<uint32_t> slots;  // the table of find(): index + 1, 0 for empty; a power of two
  // Atomic because several servers or C dispatchers sharing one registry may each freeze it
  // from their own thread; the methods were all added before, so nothing else races.
  std::atomic<bool> frozen{false};
};

}  // namespace callwire
