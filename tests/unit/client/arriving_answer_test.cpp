// A large answer read while it arrives (src/client/arriving_answer.cpp): the reading starts
// before the last byte has come, and whatever happens to the answer on its way (cut short,
// malformed, late), the call gets what a whole read would give and the connection stays in step.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/convert.hpp"
#include "fake_server.hpp"
#include "net/system.hpp"

namespace arriving {
struct Row {
  int id = 0;
  std::string name;
};
// Set by the first row's read: a row read while the server holds the rest back.
std::atomic<bool> first_row_read{false};
}  // namespace arriving

template <>
struct callwire::Convert<arriving::Row> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const arriving::Row& r) {
    return Value::structure({{"id", r.id}, {"name", r.name}});
  }
  static Result<arriving::Row> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    auto id = member_as<int>(v, "id");
    if (!id) return id.error();
    auto name = member_as<std::string>(v, "name");
    if (!name) return name.error();
    return arriving::Row{*id, std::move(*name)};
  }
  static Status read(ValueReader& r, arriving::Row& row) {
    arriving::first_row_read = true;
    return read_struct(r, field("id", row.id), field("name", row.name));
  }
};

namespace callwire::testing {
namespace {

using namespace std::chrono_literals;

// The answer to `xml` as a server sends it: with Content-Length, or chunked (as callwire's
// server sends a long answer while it writes it), in chunks of 100 kB and smaller ones between
// (long chunks' data is read straight into the body, short ones' through the receive buffer).
std::string framed(const std::string& xml, bool chunked) {
  if (!chunked) return FakeServer::ok_response(xml);
  std::string wire =
      "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n";
  constexpr size_t kSizes[] = {100000, 4000, 1, 30000, 17, 16384};
  for (size_t at = 0, i = 0; at < xml.size(); at += kSizes[i++ % std::size(kSizes)]) {
    std::string_view chunk = std::string_view(xml).substr(at, kSizes[i % std::size(kSizes)]);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
    wire += size;
    wire += chunk;
    wire += "\r\n";
  }
  return wire + "0\r\n\r\n";
}

// A methodResponse of `rows` rows, about 100 bytes each; `bad_row` (if below rows) is broken.
std::string rows_answer(size_t rows, size_t bad_row = SIZE_MAX, bool chunked = false) {
  std::string doc = "<?xml version=\"1.0\"?><methodResponse><params><param><value><array><data>";
  for (size_t i = 0; i < rows; ++i) {
    doc += "<value><struct><member><name>id</name><value><int>";
    doc += i == bad_row ? "x" : std::to_string(i);
    doc += "</int></value></member><member><name>name</name><value><string>row " +
           std::to_string(i) + " &amp; more</string></value></member></struct></value>\n";
  }
  return framed(doc + "</data></array></value></param></params></methodResponse>", chunked);
}

ClientOptions patient() {
  ClientOptions o;
  o.timeout = 20s;
  return o;
}

// The server sends the first 64 kB, then holds the rest back until the client has read a row
// (or 5 s have passed): a client that read only whole answers would make it wait the 5 s.
// With a length, and chunked.
class ArrivingAnswers : public ::testing::TestWithParam<bool> {};

TEST_P(ArrivingAnswers, AreReadBeforeTheyHaveAllCome) {
  if (!net::sys::kTimedBlockingReads)
    GTEST_SKIP() << "calls poll here (no timed blocking reads): answers are read once whole";
  const std::string answer = rows_answer(6000, SIZE_MAX, GetParam());  // about 600 kB
  std::atomic<bool> read_before_the_rest{false};
  FakeServer server([&](int fd) {
    for (int call = 0; call < 2; ++call) {
      if (FakeServer::read_request(fd).empty()) return;
      arriving::first_row_read = false;
      FakeServer::send_all(fd, std::string_view(answer).substr(0, 64 * 1024));
      if (call == 0) {  // the typed call; the second reads a Value, no row
        for (int i = 0; i < 500 && !arriving::first_row_read; ++i)
          std::this_thread::sleep_for(10ms);
        read_before_the_rest = arriving::first_row_read.load();
      }
      FakeServer::send_all(fd, std::string_view(answer).substr(64 * 1024));
    }
  });
  Client client(server.url(), patient());
  auto rows = client.call<std::vector<arriving::Row>>("rows");
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 6000u);
  EXPECT_EQ(rows->back().id, 5999);
  EXPECT_EQ(rows->back().name, "row 5999 & more");
  EXPECT_TRUE(read_before_the_rest) << "the first row was read only after the whole answer";
  // The same answer into a Value, on the same connection.
  auto value = client.call("rows");
  ASSERT_TRUE(value) << value.error().message;
  ASSERT_EQ(value->size(), 6000u);
  EXPECT_EQ((*value)[5999]["name"].as_string(), "row 5999 & more");
  EXPECT_EQ(server.accepts(), 1);
}

// A row broken early in a large answer: the call says so at once, the rest of the answer is
// read all the same, and the next call on the connection gets its own answer.
TEST_P(ArrivingAnswers, AMalformedAnswerLeavesTheConnectionInStep) {
  const std::string bad = rows_answer(6000, 10, GetParam()),
                    good = rows_answer(3000, SIZE_MAX, GetParam());
  FakeServer server([&](int fd) {
    for (const std::string* answer : {&bad, &bad, &good}) {
      if (FakeServer::read_request(fd).empty()) return;
      for (size_t at = 0; at < answer->size(); at += 50000) {
        FakeServer::send_all(fd, std::string_view(*answer).substr(at, 50000));
        std::this_thread::sleep_for(1ms);
      }
    }
  });
  Client client(server.url(), patient());
  auto typed = client.call<std::vector<arriving::Row>>("rows");
  ASSERT_FALSE(typed);
  auto value = client.call("rows");
  ASSERT_FALSE(value);
  for (const Error& e : {typed.error(), value.error()}) {
    EXPECT_EQ(e.code, Errc::BadResponse) << e.message;
    EXPECT_NE(e.message.find("11:46: invalid 32-bit integer <int>x</int>"), std::string::npos)
        << e.message;
  }
  auto rows = client.call<std::vector<arriving::Row>>("rows");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(rows->size(), 3000u);
  EXPECT_EQ(server.accepts(), 1);
}

// The server stops sending halfway: the call ends with the connection closed, saying how much
// came; a server that goes quiet halfway ends it at its deadline.
TEST_P(ArrivingAnswers, CutShortOrLateEndsTheCall) {
  const std::string answer = rows_answer(6000, SIZE_MAX, GetParam());
  FakeServer closing([&](int fd) {
    if (FakeServer::read_request(fd).empty()) return;
    FakeServer::send_all(fd, std::string_view(answer).substr(0, answer.size() / 2));
  });
  Client client(closing.url(), patient());
  auto cut = client.call<std::vector<arriving::Row>>("rows");
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, Errc::ConnectionClosed) << cut.error().message;
  EXPECT_NE(cut.error().message.find("truncated"), std::string::npos) << cut.error().message;

  std::atomic<bool> stop{false};
  FakeServer quiet([&](int fd) {
    if (FakeServer::read_request(fd).empty()) return;
    FakeServer::send_all(fd, std::string_view(answer).substr(0, answer.size() / 2));
    while (!stop) std::this_thread::sleep_for(10ms);
  });
  ClientOptions hasty;
  hasty.timeout = 300ms;
  Client late(quiet.url(), hasty);
  const auto before = std::chrono::steady_clock::now();
  auto timed_out = late.call("rows");
  const auto took = std::chrono::steady_clock::now() - before;
  stop = true;
  ASSERT_FALSE(timed_out);
  EXPECT_EQ(timed_out.error().code, Errc::Timeout) << timed_out.error().message;
  EXPECT_LT(took, 5s);
}

// The client says TE: trailers (so that a server may stream long answers) only once a long
// answer came: a client of small calls never sends the fields.
TEST(ArrivingAnswer, TrailersAreAskedForOnlyAfterALongAnswer) {
  const std::string small = rows_answer(10), large = rows_answer(3000);
  std::vector<std::string> requests;
  FakeServer server([&](int fd) {
    for (const std::string* answer : {&small, &small, &large, &small}) {
      std::string request = FakeServer::read_request(fd);
      if (request.empty()) return;
      requests.push_back(request.substr(0, request.find("\r\n\r\n")));
      FakeServer::send_all(fd, *answer);
    }
  });
  Client client(server.url(), patient());
  for (int i = 0; i < 4; ++i) {
    auto rows = client.call<std::vector<arriving::Row>>("rows");
    ASSERT_TRUE(rows) << rows.error().message;
  }
  ASSERT_EQ(requests.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(requests[i].find("TE:"), std::string::npos) << requests[i];
  EXPECT_NE(requests[3].find("\r\nTE: trailers\r\nConnection: TE\r\n"), std::string::npos)
      << requests[3];
}

INSTANTIATE_TEST_SUITE_P(Framing, ArrivingAnswers, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Chunked" : "ContentLength";
                         });

// A chunked answer past max_document_size: refused while it arrives, naming the limit (the
// connection, whose answer was not read to its end, is not used again).
TEST(ArrivingAnswer, AChunkedAnswerPastTheDocumentLimitIsRefused) {
  if (!net::sys::kTimedBlockingReads)
    GTEST_SKIP() << "calls poll here (no timed blocking reads): answers are read once whole";
  const std::string big = rows_answer(6000, SIZE_MAX, true), small = rows_answer(10);
  std::atomic<int> calls{0};
  FakeServer server([&](int fd) {
    while (!FakeServer::read_request(fd).empty())
      FakeServer::send_all(fd, calls++ == 0 ? big : small);
  });
  ClientOptions o = patient();
  o.reader_limits.max_document_size = 300 * 1024;
  Client client(server.url(), o);
  auto rows = client.call<std::vector<arriving::Row>>("rows");
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().code, Errc::LimitExceeded) << rows.error().message;
  EXPECT_NE(rows.error().message.find("max_document_size"), std::string::npos)
      << rows.error().message;
  auto next = client.call<std::vector<arriving::Row>>("rows");
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->size(), 10u);
}

}  // namespace
}  // namespace callwire::testing
