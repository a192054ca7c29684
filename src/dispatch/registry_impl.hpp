// Internal: what a Registry holds, for the dispatcher.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "callwire/registry.hpp"
#include "dispatch/signature.hpp"

namespace callwire {

struct CALLWIRE_LOCAL Registry::Impl {
  struct Method {
    std::string name;
    Handler handler;
    MethodInfo info;
    std::vector<detail::Signature> signatures;  // parsed from info.signatures
  };

  // Lookup by string_view without building a std::string. FNV-1a, inline: every call looks
  // its method up, and libstdc++ keeps no hash codes for a hash it deems fast, so a lookup
  // also hashes the names beside the one it finds (with std::hash, three out-of-line calls
  // per lookup: 300 instructions). Peers only look names up, never add them: no flooding.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      uint64_t h = 14695981039346656037ull;
      for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
      return size_t(h);
    }
  };

  static constexpr uint32_t kNotFound = UINT32_MAX;

  /// The index of `name` in `methods`, or kNotFound. Never allocates.
  uint32_t find(std::string_view name) const noexcept {
    auto it = index.find(name);
    return it == index.end() ? kNotFound : it->second;
  }

  std::vector<Method> methods;  // registration order; an index never changes
  Handler default_method;       // set_default_method: calls to names nobody registered
  PreInvoke preinvoke;          // set_preinvoke: before every call
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> index;
  // Atomic because several servers or C dispatchers sharing one registry may each freeze it
  // from their own thread; the methods were all added before, so nothing else races.
  std::atomic<bool> frozen{false};
};

}  // namespace callwire
