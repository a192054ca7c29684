// How much memory reading takes: a document must not need much more than its own size again,
// and an idle Reader must not hold on to what a large document made it grow. The binary
// replaces malloc to measure the peak (so it is not built under the sanitizers).
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <string>

#include "callwire/xml.hpp"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace {
std::atomic<size_t> g_live{0}, g_peak{0};

void note_alloc(void* p) {
  if (!p) return;
  size_t now = g_live += malloc_usable_size(p);
  size_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}
void note_free(void* p) {
  if (p) g_live -= malloc_usable_size(p);
}
}  // namespace

extern "C" {
void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  note_alloc(p);
  return p;
}
void* calloc(size_t n, size_t m) {
  void* p = __libc_calloc(n, m);
  note_alloc(p);
  return p;
}
void* realloc(void* old, size_t n) {
  note_free(old);
  void* p = __libc_realloc(old, n);
  note_alloc(p ? p : (n ? old : nullptr));  // a failed realloc keeps the old block
  return p;
}
void free(void* p) {
  note_free(p);
  __libc_free(p);
}
}

namespace callwire::xml {
namespace {

ReaderLimits big_limits() {
  ReaderLimits limits;
  limits.max_document_size = size_t{64} << 20;
  limits.max_elements = size_t{16} << 20;
  limits.max_string_size = size_t{64} << 20;
  return limits;
}

// Reads `doc` and checks that the peak of memory beyond the document (which the caller owns)
// stays below `factor` times the document's size.
void expect_peak_below(const std::string& doc, double factor) {
  Reader reader(big_limits());
  size_t before = g_live;
  g_peak = before;
  {
    auto r = reader.read(doc);
    ASSERT_TRUE(r) << r.error().message;
  }
  size_t peak = g_peak - before;
  EXPECT_LT(double(peak), factor * double(doc.size()))
      << "peak " << peak << " for a document of " << doc.size();
}

std::string response_around(const std::string& inner) {
  return "<?xml version=\"1.0\"?><methodResponse><params><param><value>" + inner +
         "</value></param></params></methodResponse>";
}

TEST(Memory, Base64Blob) {
  std::string b64;
  b64.reserve(size_t{22} << 20);
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < (size_t{16} << 20) / 3 * 4; ++i) b64 += alphabet[(i * 7919) % 64];
  std::string doc = response_around("<base64>" + b64 + "</base64>");
  expect_peak_below(doc, 1.0);
}

TEST(Memory, ManySmallValues) {
  std::string items;
  while (items.size() < (size_t{16} << 20)) items += "<value>abc</value>";
  std::string doc = response_around("<array><data>" + items + "</data></array>");
  expect_peak_below(doc, 2.0);
}

TEST(Memory, ManyStructs) {
  std::string items;
  for (int i = 0; items.size() < (size_t{16} << 20); ++i)
    items += "<value><struct><member><name>id</name><value><int>" + std::to_string(i) +
             "</int></value></member><member><name>email</name><value><string>user" +
             std::to_string(i) + "@example-mail.com</string></value></member></struct></value>";
  std::string doc = response_around("<array><data>" + items + "</data></array>");
  expect_peak_below(doc, 2.0);
}

TEST(Memory, AnIdleReaderHoldsLittle) {
  std::string items;
  while (items.size() < (size_t{8} << 20)) items += "<value>a&amp;b</value>";
  std::string doc = response_around("<array><data>" + items + "</data></array>");
  size_t before = g_live;
  Reader reader(big_limits());
  ASSERT_TRUE(reader.read(doc));
  EXPECT_LT(g_live - before, size_t{256} << 10) << "held after the read: " << g_live - before;
}

}  // namespace
}  // namespace callwire::xml
