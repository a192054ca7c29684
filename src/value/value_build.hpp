// Internal: the storage behind Value, and fast constructors for the codecs.
//
// Heap blocks (all from value_alloc, src/value/value_alloc.cpp, so tests can make allocations
// fail and small ones are cached per thread):
//   text (string, bytes): size_t size, then the bytes;
//   array: ArrayHeader, then `capacity` Values;
//   struct: StructHeader, then `capacity` Members, then `index_slots` uint32 hash slots
//           (position + 1, 0 for empty) when capacity exceeds kIndexThreshold.
// A Value is trivially relocatable (no self-pointers), so blocks grow with realloc and the
// codecs move values with memcpy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "base/keyed_hash.hpp"
#include "callwire/value.hpp"

namespace callwire {

namespace detail {
/// The one allocation path for value storage. Throws std::bad_alloc.
void* value_alloc(size_t size);
void* value_realloc(void* p, size_t size);
void value_free(void* p) noexcept;

/// Text blocks of 128 KiB and more are page mappings of their own (base/page_blocks.hpp), reused
/// warm from a per-thread cache, as Buffers are: a decoded blob is written once and read once,
/// and faulting in its pages fresh from malloc each time cost as much as decoding it. Such a
/// text Value has raw_[2] set; release it with value_unmap_text. Not under the sanitizers.
bool value_text_mapped(size_t block_size) noexcept;
void* value_map_text(size_t block_size);
void value_unmap_text(void* block) noexcept;

/// Test hook: the bytes of freed small blocks the calling thread keeps for reuse (0 where
/// there is no cache: sanitizer builds, no glibc), and the most it may keep.
size_t value_cache_bytes() noexcept;
size_t value_cache_limit() noexcept;

/// Test hook: when set, called before every value allocation; returning false fails it.
using AllocFailHook = bool (*)();
void set_value_alloc_hook(AllocFailHook hook) noexcept;

/// Texts this short are stored in the Value itself; 13, not the 14 bytes there is room for, so
/// that a zero byte always follows: every text is NUL-terminated (the C API hands them out so).
inline constexpr size_t kInlineTextMax = 13;
inline constexpr uint32_t kIndexThreshold = 8;

struct ArrayHeader {
  uint32_t size;
  uint32_t capacity;
};
struct StructHeader {
  uint32_t size;
  uint32_t capacity;
  uint32_t index_slots;  // 0: no index, search linearly
  uint32_t unused;
};

/// A member name's slot hash. Keyed per process: a peer fills struct indexes with names of its
/// choosing, and with an unkeyed hash (FNV-1a once) 50,000 colliding names cost seconds.
inline uint64_t hash_name(std::string_view s) noexcept { return keyed_hash(s); }

/// Test hook: the probes a lookup of every member of the struct `v` takes in its index (0 for
/// a struct too small to have one): the cost a peer's choice of names can drive up.
uint64_t struct_index_probes(const Value& v) noexcept;
}  // namespace detail

/// Friend of Value and Member: builds values in place for the reader and the JSON form.
struct ValueAccess {
  static unsigned char* raw(Value& v) noexcept { return v.raw_; }
  static const unsigned char* raw(const Value& v) noexcept { return v.raw_; }

  template <class T>
  static T load(const Value& v, size_t offset) noexcept {
    T t;
    std::memcpy(&t, v.raw_ + offset, sizeof t);
    return t;
  }
  template <class T>
  static void store(Value& v, size_t offset, T t) noexcept {
    std::memcpy(v.raw_ + offset, &t, sizeof t);
  }
  static void* pointer(const Value& v) noexcept { return load<void*>(v, 8); }

  /// Scalars written straight into `out` (nil, or a scalar: nothing is released). The JSON
  /// reader builds its values in place with them: a temporary Value written byte by byte, then
  /// copied as 16 bytes, stalls on store forwarding.
  static void set_bool(Value& out, bool b) noexcept {
    out.raw_[0] = static_cast<unsigned char>(Type::Boolean);
    out.raw_[4] = b ? 1 : 0;
  }
  static void set_int32(Value& out, int32_t n) noexcept { out.set_int32(n); }
  static void set_int64(Value& out, int64_t n) noexcept { out.set_int64(n); }
  static void set_double(Value& out, double d) noexcept {
    out.raw_[0] = static_cast<unsigned char>(Type::Double);
    std::memcpy(out.raw_ + 8, &d, sizeof d);
  }

  /// A string or bytes Value whose `size` bytes the caller fills in through the returned
  /// pointer (a NUL follows them already). `out` must be nil.
  static char* make_text(Value& out, Type type, size_t size);
  /// make_text for a size known to be above the inline limit: the text in a block.
  static char* make_block_text(Value& out, Type type, size_t size);

  /// An array made by moving `count` values out of `items` (left as nil, not destroyed: the
  /// caller may drop them without running destructors).
  static void make_array(Value& out, Value* items, size_t count);

  /// A struct from `count` (name, value) pairs stored flat in `pairs` (name at 2i, value at
  /// 2i+1), moved out as for make_array. A repeated name keeps its first position, last value.
  static void make_struct(Value& out, Value* pairs, size_t count);

  /// A string or bytes Value holding a copy of `text`, written into `out` (nil): the usual
  /// short texts without a call beyond this one.
  static void set_text(Value& out, Type type, std::string_view text) {
    out.set_text(type, text.data(), text.size());
  }

  static std::string_view text(const Value& v) noexcept { return v.text_view(); }
  /// A member's name as the string Value it is stored as.
  static const Value& member_name(const Member& m) noexcept { return m.name_; }

  /// Shortens a text Value made by make_text to `size` bytes (no reallocation).
  static void shrink_text(Value& v, size_t size) noexcept {
    if (v.raw_[1] != 0) {
      std::memset(v.raw_ + 2 + size, 0, size_t(v.raw_[1] - 1) - size);  // keep the padding zero
      v.raw_[1] = static_cast<unsigned char>(size + 1);
    } else {
      char* block;
      std::memcpy(&block, v.raw_ + 8, sizeof block);
      std::memcpy(block, &size, sizeof size);
      block[sizeof size + size] = '\0';
    }
  }
};

}  // namespace callwire
