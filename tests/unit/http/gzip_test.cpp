// Unit tests of gzip_compress / gzip_inflate: GNU gzip's output, round trips of random data,
// concatenated members, a 1 GiB bomb, corruption, truncation at every offset, trailing bytes.

#include "http/gzip.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <thread>

namespace callwire::http {
namespace {

std::string bytes(std::initializer_list<unsigned> list) {
  std::string s;
  for (unsigned b : list) s.push_back(char(b));
  return s;
}

// `printf 'callwire\n' | gzip -9 -n` (GNU gzip 1.12).
const std::string kGnuCallwire =
    bytes({0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x4b, 0x4e, 0xcc, 0xc9, 0x29,
           0xcf, 0x2c, 0x4a, 0xe5, 0x02, 0x00, 0xce, 0xae, 0x70, 0x0e, 0x09, 0x00, 0x00, 0x00});
// `printf '' | gzip -n`.
const std::string kGnuEmpty = bytes({0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                     0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00});
// `gzip -c a.xml` of "<x/>": FNAME "a.xml" and an MTIME in the header.
const std::string kGnuNamed = bytes({0x1f, 0x8b, 0x08, 0x08, 0x00, 0xe1, 0x0b, 0x5e, 0x00, 0x03,
                                     0x61, 0x2e, 0x78, 0x6d, 0x6c, 0x00, 0xb3, 0xa9, 0xd0, 0xb7,
                                     0x03, 0x00, 0x2b, 0x84, 0x26, 0x12, 0x04, 0x00, 0x00, 0x00});

std::string random_bytes(size_t n, uint32_t seed, int alphabet = 256) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng() % unsigned(alphabet));
  return s;
}

std::string compress(std::string_view in, int level = 1) {
  Buffer out;
  Status st = gzip_compress(in, out, level);
  EXPECT_TRUE(st.ok()) << st.error().message;
  return std::string(out.view());
}

struct Inflated {
  InflateStatus status;
  std::string data;
};

Inflated inflate(std::string_view in, size_t max_out = 1 << 20) {
  Buffer out;
  InflateStatus s = gzip_inflate(in, out, max_out);
  return {s, std::string(out.view())};
}

TEST(Gzip, InflatesGnuGzip) {
  Inflated r = inflate(kGnuCallwire);
  EXPECT_EQ(r.status, InflateStatus::Ok);
  EXPECT_EQ(r.data, "callwire\n");
  r = inflate(kGnuEmpty);
  EXPECT_EQ(r.status, InflateStatus::Ok);
  EXPECT_EQ(r.data, "");
  r = inflate(kGnuNamed);
  EXPECT_EQ(r.status, InflateStatus::Ok);
  EXPECT_EQ(r.data, "<x/>");
}

TEST(Gzip, CompressedIsGzip) {
  std::string z = compress("hello");
  ASSERT_GE(z.size(), 18u);
  EXPECT_EQ(uint8_t(z[0]), 0x1f);
  EXPECT_EQ(uint8_t(z[1]), 0x8b);
  EXPECT_EQ(uint8_t(z[2]), 8);  // deflate
  // ISIZE, little-endian, last four bytes.
  EXPECT_EQ(z.substr(z.size() - 4), bytes({5, 0, 0, 0}));
}

TEST(Gzip, RoundTripRandomData) {
  for (size_t n : {size_t(0), size_t(1), size_t(100), size_t(65535), size_t(65536), size_t(65537),
                   size_t(300000)}) {
    for (int alphabet : {2, 16, 256}) {
      for (int level : {-1, 0, 1, 6, 9}) {
        std::string data = random_bytes(n, uint32_t(n * 7 + alphabet + level), alphabet);
        std::string z = compress(data, level);
        Inflated r = inflate(z, n);  // exactly the size: not over the cap
        ASSERT_EQ(r.status, InflateStatus::Ok) << n << " " << alphabet << " " << level;
        ASSERT_EQ(r.data, data) << n << " " << alphabet << " " << level;
      }
    }
  }
}

TEST(Gzip, AppendsToWhatIsThere) {
  Buffer out;
  out.append("head:");
  ASSERT_TRUE(gzip_compress("body", out).ok());
  std::string_view z = out.view().substr(5);
  EXPECT_EQ(out.view().substr(0, 5), "head:");
  Buffer plain;
  plain.append("x=");
  ASSERT_EQ(gzip_inflate(z, plain, 100), InflateStatus::Ok);
  EXPECT_EQ(plain.view(), "x=body");
}

TEST(Gzip, BadLevelRefused) {
  Buffer out;
  out.append("keep");
  for (int level : {-2, 10, 100}) {
    Status st = gzip_compress("x", out, level);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, Errc::InvalidArgument);
    EXPECT_EQ(out.view(), "keep");
  }
}

TEST(Gzip, ConcatenatedMembers) {
  std::string two = compress("hello, ") + compress("") + compress("world", 9) + kGnuCallwire;
  Inflated r = inflate(two);
  EXPECT_EQ(r.status, InflateStatus::Ok);
  EXPECT_EQ(r.data, "hello, worldcallwire\n");
  // The cap counts all members together.
  EXPECT_EQ(inflate(two, r.data.size()).status, InflateStatus::Ok);
  EXPECT_EQ(inflate(two, r.data.size() - 1).status, InflateStatus::OverLimit);
}

TEST(Gzip, CapIsExact) {
  std::string data = random_bytes(100000, 1, 4);
  std::string z = compress(data);
  EXPECT_EQ(inflate(z, 100000).status, InflateStatus::Ok);
  EXPECT_EQ(inflate(z, 99999).status, InflateStatus::OverLimit);
  EXPECT_EQ(inflate(z, 0).status, InflateStatus::OverLimit);
  EXPECT_EQ(inflate(kGnuEmpty, 0).status, InflateStatus::Ok);
  EXPECT_EQ(inflate(kGnuCallwire, 9).status, InflateStatus::Ok);
  EXPECT_EQ(inflate(kGnuCallwire, 8).status, InflateStatus::OverLimit);
}

// A gzip member of `mib` MiB of zeros, about 1 KiB per MiB, built without compressing it all:
// 1 MiB of zeros deflated with a full flush is a byte-aligned, non-final run of blocks that
// refers to nothing before it, so it can be repeated; then a final empty block, and the
// CRC-32 and length of the whole (crc32_combine).
std::string zero_bomb(size_t mib) {
  const std::string zeros(1 << 20, '\0');
  z_stream s{};
  EXPECT_EQ(deflateInit2(&s, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string run(4096, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
  s.avail_in = uInt(zeros.size());
  s.next_out = reinterpret_cast<Bytef*>(run.data());
  s.avail_out = uInt(run.size());
  EXPECT_EQ(deflate(&s, Z_FULL_FLUSH), Z_OK);
  EXPECT_EQ(s.avail_in, 0u);
  run.resize(run.size() - s.avail_out);
  std::string last(64, '\0');
  s.next_out = reinterpret_cast<Bytef*>(last.data());
  s.avail_out = uInt(last.size());
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  last.resize(last.size() - s.avail_out);
  deflateEnd(&s);

  std::string out = bytes({0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3});
  out.reserve(out.size() + run.size() * mib + last.size() + 8);
  for (size_t i = 0; i < mib; ++i) out += run;
  out += last;
  const uLong one = crc32(0, reinterpret_cast<const Bytef*>(zeros.data()), uInt(zeros.size()));
  uLong crc = crc32(0, nullptr, 0);
  for (size_t i = 0; i < mib; ++i) crc = crc32_combine(crc, one, z_off_t(zeros.size()));
  const uint32_t isize = uint32_t(uint64_t(mib) << 20);
  for (int i = 0; i < 4; ++i) out.push_back(char((crc >> (8 * i)) & 0xff));
  for (int i = 0; i < 4; ++i) out.push_back(char((isize >> (8 * i)) & 0xff));
  return out;
}

TEST(Gzip, ZeroBombConstructionIsValidGzip) {
  std::string small = zero_bomb(3);
  Inflated r = inflate(small, 3 << 20);
  ASSERT_EQ(r.status, InflateStatus::Ok);
  EXPECT_EQ(r.data, std::string(3 << 20, '\0'));
}

TEST(Gzip, OneGibibyteBombRefused) {
  std::string bomb = zero_bomb(1024);
  EXPECT_LT(bomb.size(), 2u << 20);  // ~1 MiB on the wire
  Buffer out;
  out.append(std::string(1000, 'p'));
  const size_t cap = 20 << 20;  // Python's xmlrpc.client limit
  EXPECT_EQ(gzip_inflate(bomb, out, cap), InflateStatus::OverLimit);
  EXPECT_EQ(out.view(), std::string(1000, 'p'));  // nothing appended
  // Never more storage than the cap allows (plus one byte, to see it was over; a large
  // Buffer is whole pages).
  EXPECT_LE(out.capacity(), 1000 + cap + 1 + 4096);
  // A fresh buffer too, and with a small cap the work is small.
  Buffer fresh;
  EXPECT_EQ(gzip_inflate(bomb, fresh, 4096), InflateStatus::OverLimit);
  EXPECT_LE(fresh.capacity(), 4096u + 1);
  EXPECT_TRUE(fresh.empty());
}

TEST(Gzip, GrowthStaysUnderTheCap) {
  // 5 MiB of zeros with a cap just above: the Buffer's geometric growth would pass the cap,
  // so it grows to exactly base + cap + 1 (in whole pages) instead.
  std::string z = zero_bomb(5);
  const size_t cap = (5 << 20) + 10;
  // On a thread of its own: large buffers come from a per-thread cache of page blocks, which
  // hands a larger block over whole, and a test run before this one (in the same process)
  // may have left one there.
  std::thread([&] {
    Buffer out;
    out.append("x");
    ASSERT_EQ(gzip_inflate(z, out, cap), InflateStatus::Ok);
    EXPECT_EQ(out.size(), 1u + (5 << 20));
    EXPECT_LE(out.capacity(), 1 + cap + 1 + 4096);  // whole pages
  }).join();
}

TEST(Gzip, TruncatedAtEveryOffset) {
  std::string z = compress(random_bytes(300, 7, 8));
  ASSERT_GT(z.size(), 20u);
  for (size_t n = 0; n < z.size(); ++n) {
    Buffer out;
    out.append("k");
    EXPECT_EQ(gzip_inflate(std::string_view(z).substr(0, n), out, 1 << 20),
              InflateStatus::Truncated)
        << "cut at " << n;
    EXPECT_EQ(out.view(), "k");
  }
  for (size_t n = 0; n < kGnuNamed.size(); ++n)
    EXPECT_EQ(inflate(std::string_view(kGnuNamed).substr(0, n)).status, InflateStatus::Truncated)
        << n;
  // A second member cut anywhere is truncated too.
  std::string two = kGnuCallwire + kGnuCallwire;
  for (size_t n = kGnuCallwire.size() + 1; n < two.size(); ++n)
    EXPECT_EQ(inflate(std::string_view(two).substr(0, n)).status, InflateStatus::Truncated) << n;
}

TEST(Gzip, Corruption) {
  auto with = [](std::string s, size_t at, unsigned char byte) {
    s[at] = char(byte);
    return s;
  };
  const std::string& g = kGnuCallwire;
  EXPECT_EQ(inflate(with(g, 0, 0x1e)).status, InflateStatus::Corrupt);   // ID1
  EXPECT_EQ(inflate(with(g, 1, 0x8c)).status, InflateStatus::Corrupt);   // ID2
  EXPECT_EQ(inflate(with(g, 2, 7)).status, InflateStatus::Corrupt);      // CM not deflate
  EXPECT_EQ(inflate(with(g, 3, 0xe0)).status, InflateStatus::Corrupt);   // reserved FLG bits
  EXPECT_EQ(inflate(with(g, 21, 0xcf)).status, InflateStatus::Corrupt);  // CRC-32
  EXPECT_EQ(inflate(with(g, 25, 10)).status, InflateStatus::Corrupt);    // ISIZE
  EXPECT_EQ(inflate(with(g, 10, 0x07)).status, InflateStatus::Corrupt);  // BTYPE 11
  EXPECT_EQ(inflate("hello, world").status, InflateStatus::Corrupt);
  EXPECT_EQ(inflate("<?xml version=\"1.0\"?><methodResponse/>").status, InflateStatus::Corrupt);
  // zlib-wrapped (RFC 1950) data is not gzip.
  Bytef zlibbed[64];
  uLongf n = sizeof zlibbed;
  ASSERT_EQ(compress2(zlibbed, &n, reinterpret_cast<const Bytef*>("abc"), 3, 6), Z_OK);
  EXPECT_EQ(inflate({reinterpret_cast<const char*>(zlibbed), n}).status, InflateStatus::Corrupt);
  // Every single-byte change in the data or trailer is caught (CRC-32 and ISIZE).
  std::string data = random_bytes(200, 3);
  std::string z = compress(data);
  for (size_t i = 10; i < z.size(); ++i) {
    Inflated r = inflate(with(z, i, uint8_t(z[i]) ^ 0x01));
    EXPECT_NE(r.status, InflateStatus::Ok) << i;
    EXPECT_TRUE(r.data.empty()) << i;
  }
}

TEST(Gzip, TrailingBytes) {
  const std::string& g = kGnuCallwire;
  EXPECT_EQ(inflate(g + "x").status, InflateStatus::TrailingGarbage);
  EXPECT_EQ(inflate(g + std::string(4, '\0')).status, InflateStatus::TrailingGarbage);
  EXPECT_EQ(inflate(g + "\r\n").status, InflateStatus::TrailingGarbage);
  EXPECT_EQ(inflate(g + bytes({0x1f, 0x00})).status, InflateStatus::TrailingGarbage);
  // The start of a member that does not go on is a truncation.
  EXPECT_EQ(inflate(g + bytes({0x1f})).status, InflateStatus::Truncated);
  EXPECT_EQ(inflate(g + bytes({0x1f, 0x8b})).status, InflateStatus::Truncated);
  // Another member's header with garbage after it is corrupt.
  EXPECT_EQ(inflate(g + bytes({0x1f, 0x8b, 0x09, 0, 0, 0, 0, 0, 0, 3, 3, 0})).status,
            InflateStatus::Corrupt);
  EXPECT_EQ(inflate(g + bytes({0x1f, 0x8b, 0x08, 0})).status, InflateStatus::Truncated);
}

TEST(Gzip, StatusNames) {
  EXPECT_STREQ(inflate_status_name(InflateStatus::Ok), "ok");
  EXPECT_STREQ(inflate_status_name(InflateStatus::Truncated), "gzip data truncated");
  EXPECT_STRNE(inflate_status_name(InflateStatus::Corrupt),
               inflate_status_name(InflateStatus::TrailingGarbage));
}

}  // namespace
}  // namespace callwire::http
