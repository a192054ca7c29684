// Internal: large blocks as private mappings of their own, with a small per-thread cache of
// freed ones, for Buffer (buffer_storage.cpp) and large Value text blocks (value_alloc.cpp).
//
// Why: a block of a few MiB from malloc is a fresh mapping each time (or heap that malloc
// trims and grows back), so every large call paid for faulting in and zeroing its pages,
// which cost more than encoding them. A thread keeps up to kSlots freed blocks, kMaxBytes in
// all, and hands a fitting one out again with its pages warm (which one: Fit).
#pragma once

#include <cstddef>

namespace callwire::pages {

/// From this size on a block is a mapping of its own: where glibc's malloc starts mapping
/// blocks itself (its default M_MMAP_THRESHOLD), and unmapping them again when freed. From
/// here the cache pays: a 256 KiB blob's call took 30% less CPU than through malloc.
inline constexpr size_t kLargeBlock = size_t{128} << 10;

/// `n` rounded up to whole pages.
size_t round_up(size_t n) noexcept;

/// Which cached block take() hands out. A block of a known size (a decoded text) takes the
/// smallest that fits; storage that grows as bytes arrive (a Buffer) takes the largest, so
/// that a receive buffer starting at 128 KiB does not take the block a 16 MiB text is about
/// to need and grow it with fresh pages, leaving the text a cold one.
enum class Fit { smallest, largest };

/// A block of at least `capacity` bytes (whole pages), from the thread's cache when one is
/// there (kept whole if larger: `capacity` is raised to its size; none large enough: the
/// largest, grown) or freshly mapped; the contents of a recycled block are unspecified.
/// Throws std::bad_alloc.
void* take(size_t& capacity, Fit fit = Fit::smallest);

/// Grows `block` to `new_capacity` (whole pages, more than it has), contents kept; may move it.
/// Throws std::bad_alloc (then `block` is unchanged). Without mremap a block grows in place up to
/// 64 MiB (on 64-bit systems), so the old and the new never take memory at once.
void* resize(void* block, size_t old_capacity, size_t new_capacity);

/// Unmaps a block take() or resize() gave, without caching it.
void unmap(void* block, size_t capacity) noexcept;

/// Gives `block` back: into the thread's cache, or unmapped. `used`: how much of it was last
/// in use. A block larger than the cache keeps is kept all the same when what was used fits
/// (storage reserved for the largest answer allowed, filled a little): its pages past `used`
/// are given back, and it counts as `used`.
void give_back(void* block, size_t capacity, size_t used) noexcept;
inline void give_back(void* block, size_t capacity) noexcept {
  give_back(block, capacity, capacity);
}

/// Test hooks: the bytes the calling thread's cache holds, and its bounds.
size_t cached_bytes() noexcept;
size_t max_cached_block() noexcept;
size_t max_cached_bytes() noexcept;

}  // namespace callwire::pages
