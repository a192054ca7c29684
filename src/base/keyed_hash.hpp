// Internal: a keyed hash for every table a peer can fill (struct member indexes), so that
// names chosen to collide cost a peer what random names cost (hash flooding). SipHash
// (Aumasson and Bernstein, 2012) with a random key per process: without the key a peer
// cannot predict where a name lands. A leaf utility (src/base depends on nothing of ours).
// Thread-safety: all functions are safe from any thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace callwire::detail {

struct SipKey {
  uint64_t k0 = 0;
  uint64_t k1 = 0;
};

/// SipHash-2-4, the reference variant (its published test vectors check this code).
uint64_t siphash_2_4(const SipKey& key, std::string_view data) noexcept;
/// SipHash-1-3: the same construction with fewer rounds, faster on short names; what the hash
/// tables use (as Rust's and Python's do).
uint64_t siphash_1_3(const SipKey& key, std::string_view data) noexcept;

/// This process's key: 128 random bits from getrandom() (/dev/urandom where there is none),
/// drawn once on first use.
const SipKey& process_hash_key() noexcept;

/// A 64-bit value no peer can predict (SipHash-2-4 of a process-wide counter under
/// process_hash_key()): a WebSocket client's masking keys and handshake nonces, drawn often
/// enough that a system call for each would show.
uint64_t unpredictable_u64() noexcept;

/// The hash of a name in a table a peer can fill.
inline uint64_t keyed_hash(std::string_view s) noexcept {
  return siphash_1_3(process_hash_key(), s);
}

}  // namespace callwire::detail
