// Long answers sent while they are written (src/server/streamed_answer.cpp): chunked to an
// HTTP/1.1 client whose TE lists trailers, byte for byte the answer a Content-Length client
// gets; sent before the handler's result is all written; cut short, never replaced, when the
// writing fails after the first chunk went; and left whole for every other client, but for a
// long blob's answer, which goes with its length to every client.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "http_test_util.hpp"
#include "test_cert.hpp"

namespace demo {
// Rows a typed handler returns: `count` strings of `width` bytes. With `gate`, writing stops
// halfway until the gate opens (or 5 s pass); with `bad_at`, the row of that index is not
// UTF-8, so the writing fails there.
struct Rows {
  size_t count = 0;
  size_t width = 100;
  const std::atomic<bool>* gate = nullptr;
  std::atomic<bool>* waited = nullptr;
  size_t bad_at = SIZE_MAX;
};
}  // namespace demo

template <>
struct callwire::Convert<demo::Rows> {
  static constexpr std::string_view type_name = "array";
  static Value to_value(const demo::Rows&) { return Value::array(); }  // unused: written
  static void write(ValueWriter& w, const demo::Rows& rows) {
    const std::string row(rows.width, 'r');
    w.begin_array();
    for (size_t i = 0; i < rows.count; ++i) {
      if (rows.gate != nullptr && i == rows.count / 2) {
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!rows.gate->load() && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        rows.waited->store(!rows.gate->load());
      }
      w.string(i == rows.bad_at ? std::string_view("\xff\xfe") : std::string_view(row));
    }
    w.end_array();
  }
};

namespace callwire {
namespace {

using namespace std::chrono_literals;
using testing::call_xml;
using testing::post;
using testing::RawSocket;

constexpr size_t kRows = 10000;    // of 100 bytes: about 1.4 MB of XML, past the stream mark
constexpr size_t kBlob = 4 << 20;  // 5.6 MB of base64 in one value: several slices

std::vector<uint8_t> blob_of(size_t n) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(i * 7 + i / 251);
  return b;
}

struct BlobAndMore {
  std::vector<uint8_t> blob;
};
}  // namespace
}  // namespace callwire

template <>
struct callwire::Convert<callwire::BlobAndMore> {
  static constexpr std::string_view type_name = "base64";
  static Value to_value(const callwire::BlobAndMore&) { return Value(); }  // unused: written
  static void write(ValueWriter& w, const callwire::BlobAndMore& b) {
    w.bytes(b.blob);
    w.int32(1);  // a second value: the writer refuses it, too late to answer a fault
  }
};

namespace callwire {
namespace {

struct StreamingServer {
  explicit StreamingServer(ServerOptions o = options()) : server(std::move(o)) {
    EXPECT_TRUE(server.bind("rows", [](int n) { return demo::Rows{size_t(n)}; }));
    EXPECT_TRUE(server.bind("bad_rows", [](int n, int bad) {
      return demo::Rows{size_t(n), 100, nullptr, nullptr, size_t(bad)};
    }));
    EXPECT_TRUE(server.bind("gated_rows", [this](int n) {
      return demo::Rows{size_t(n), 100, &gate, &waited};
    }));
    // The same answer as a Value tree: written by the Value writer.
    EXPECT_TRUE(server.add_method("value_rows", [](Params p, CallContext&) {
      Value a = Value::array();
      for (int i = 0; i < p[0].as_int(); ++i) a.push_back(Value(std::string(100, 'r')));
      return a;
    }));
    // One long value: a blob, written by a typed handler and as a Value; and a blob followed
    // by a second value (not one value, found only after the blob went).
    EXPECT_TRUE(server.bind("blob", [](int n) { return blob_of(size_t(n)); }));
    EXPECT_TRUE(server.add_method("value_blob", [](Params p, CallContext&) {
      return Value::bytes(blob_of(size_t(p[0].as_int())));
    }));
    EXPECT_TRUE(
        server.bind("blob_and_more", [](int n) { return BlobAndMore{blob_of(size_t(n))}; }));
    EXPECT_TRUE(server.bind("add", [](int a, int b) { return a + b; }));
    Status s = server.start();
    EXPECT_TRUE(s) << s.error().message;
  }
  static ServerOptions options() {
    ServerOptions o;
    o.listen = {"127.0.0.1:0"};
    o.threads = 1;
    return o;
  }
  std::atomic<bool> gate{false};
  std::atomic<bool> waited{false};
  Server server;
};

std::string rows_call(std::string_view method, size_t n) {
  return call_xml(method, "<param><value><int>" + std::to_string(n) + "</int></value></param>");
}

// The head of the first response in `s` (empty until it has come).
std::string_view head_of(std::string_view s) {
  size_t end = s.find("\r\n\r\n");
  return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 4);
}

// A chunked body decoded; `whole` says whether its last chunk came. `rest` is what follows.
struct Dechunked {
  std::string body;
  bool whole = false;
  std::string_view rest;
  size_t chunks = 0;
};
Dechunked dechunk(std::string_view s) {
  Dechunked d;
  for (;;) {
    size_t eol = s.find("\r\n");
    if (eol == std::string_view::npos) return d;
    size_t size = std::stoul(std::string(s.substr(0, eol)), nullptr, 16);
    if (size == 0) {
      d.whole = s.substr(eol, 4) == "\r\n\r\n";
      if (d.whole) d.rest = s.substr(eol + 4);
      return d;
    }
    if (s.size() < eol + 2 + size + 2) return d;
    d.body.append(s.substr(eol + 2, size));
    ++d.chunks;
    s.remove_prefix(eol + 2 + size + 2);
  }
}

// Reads one chunked response whole (or until the peer closes or 5 s pass).
std::string read_chunked_response(RawSocket& s) {
  return s.read_until([](const std::string& got) {
    std::string_view head = head_of(got);
    return !head.empty() && dechunk(std::string_view(got).substr(head.size())).whole;
  });
}

// The body of a Content-Length response.
std::string body_of(const std::string& response) {
  return response.substr(head_of(response).size());
}

// The answer a client that sends no TE gets: whole, with its Content-Length.
std::string whole_answer(const Server& server, std::string_view method, size_t n) {
  RawSocket whole(server.port());
  EXPECT_TRUE(whole.send(post(rows_call(method, n))));
  std::string expected = whole.read_responses(1);
  EXPECT_NE(head_of(expected).find("Content-Length: "), std::string::npos) << head_of(expected);
  return expected;
}

// The connection goes on after a streamed answer: the next call on it is answered as usual.
void expect_the_next_call_answered(RawSocket& s) {
  ASSERT_TRUE(s.send(post(call_xml("add",
                                   "<param><value><int>2</int></value></param>"
                                   "<param><value><int>3</int></value></param>"),
                          "TE: trailers\r\nConnection: TE\r\n")));
  std::string next = s.read_responses(1);
  EXPECT_NE(next.find("<int>5</int>"), std::string::npos) << next;
  EXPECT_NE(head_of(next).find("Content-Length: "), std::string::npos) << head_of(next);
}

TEST(StreamedAnswer, ChunkedToATrailersClientByteForByteTheWholeAnswer) {
  StreamingServer t;
  for (std::string_view method : {"rows", "value_rows"}) {
    SCOPED_TRACE(method);
    std::string expected = whole_answer(t.server, method, kRows);

    RawSocket s(t.server.port());
    ASSERT_TRUE(s.send(post(rows_call(method, kRows), "TE: trailers\r\nConnection: TE\r\n")));
    std::string got = read_chunked_response(s);
    std::string_view head = head_of(got);
    ASSERT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string_view::npos) << head;
    EXPECT_EQ(head.find("Content-Length"), std::string_view::npos) << head;
    EXPECT_NE(head.find("Content-Type: text/xml\r\n"), std::string_view::npos) << head;
    Dechunked d = dechunk(std::string_view(got).substr(head.size()));
    ASSERT_TRUE(d.whole);
    EXPECT_GT(d.chunks, 2u);  // cut as it grew, not sent as one piece
    EXPECT_EQ(d.body, body_of(expected));
    expect_the_next_call_answered(s);
  }
}

TEST(StreamedAnswer, ALongBlobGoesWithItsLengthAsItIsEncoded) {
  // The answer is the blob and its closing tags: its length is known before its text is
  // written, so it goes with a Content-Length (which every reader takes), byte for byte the
  // answer sent whole, and the connection goes on.
  StreamingServer t;
  for (std::string_view method : {"blob", "value_blob"}) {
    SCOPED_TRACE(method);
    std::string expected = whole_answer(t.server, method, kBlob);
    RawSocket s(t.server.port());
    ASSERT_TRUE(s.send(post(rows_call(method, kBlob), "TE: trailers\r\nConnection: TE\r\n")));
    std::string got = s.read_responses(1);
    std::string_view head = head_of(got);
    EXPECT_EQ(head.find("chunked"), std::string_view::npos) << head;
    ASSERT_NE(head.find("Content-Length: " + std::to_string(body_of(expected).size()) + "\r\n"),
              std::string_view::npos)
        << head;
    EXPECT_EQ(body_of(got), body_of(expected));
    expect_the_next_call_answered(s);
  }
}

TEST(StreamedAnswer, ABlobAnswerThatFailsAfterItsHeadIsCutShort) {
  // Sent with its length, an answer that fails after its head went cannot become a fault:
  // the connection closes before the length is reached, and the client cannot take it whole.
  StreamingServer t;
  RawSocket s(t.server.port());
  ASSERT_TRUE(
      s.send(post(rows_call("blob_and_more", kBlob), "TE: trailers\r\nConnection: TE\r\n")));
  std::string got = s.read_all(5s);
  EXPECT_TRUE(s.closed());
  std::string_view head = head_of(got);
  ASSERT_NE(head.find("Content-Length: "), std::string_view::npos) << head;
  size_t length = std::stoul(std::string(head.substr(head.find("Content-Length: ") + 16)));
  EXPECT_LT(got.size() - head.size(), length);
  EXPECT_EQ(got.find("faultCode"), std::string::npos);
}

TEST(StreamedAnswer, ALongBlobGoesWithItsLengthToClientsWithoutTE) {
  // A length needs nothing of the client: Python's xmlrpc, xmlrpc-c and XmlRpc++ (no TE), and
  // HTTP/1.0 clients, get a long blob's answer as it is encoded too, byte for byte the answer
  // a pool server (which answers whole) sends.
  ServerOptions pool_options = StreamingServer::options();
  pool_options.handler_threads = 2;
  StreamingServer pool(pool_options);
  StreamingServer t;
  for (std::string_view method : {"blob", "value_blob"}) {
    SCOPED_TRACE(method);
    std::string expected = whole_answer(pool.server, method, kBlob);
    std::string http10 = post(rows_call(method, kBlob));
    http10.replace(http10.find("HTTP/1.1"), 8, "HTTP/1.0");
    for (const std::string& request : {post(rows_call(method, kBlob)), http10}) {
      RawSocket s(t.server.port());
      ASSERT_TRUE(s.send(request));
      std::string got = s.read_responses(1);
      std::string_view head = head_of(got);
      EXPECT_EQ(head.find("chunked"), std::string_view::npos) << head;
      EXPECT_NE(head.find("Content-Length: " + std::to_string(body_of(expected).size()) + "\r\n"),
                std::string_view::npos)
          << head;
      EXPECT_EQ(body_of(got), body_of(expected));
    }
  }
  // It went before it was whole: a blob followed by a second value, found only after the
  // head went, is cut short, where the pool server, answering whole, answers a fault.
  RawSocket cut(t.server.port());
  ASSERT_TRUE(cut.send(post(rows_call("blob_and_more", kBlob))));
  std::string got = cut.read_all(5s);
  EXPECT_TRUE(cut.closed());
  std::string_view head = head_of(got);
  ASSERT_NE(head.find("Content-Length: "), std::string_view::npos) << head;
  size_t length = std::stoul(std::string(head.substr(head.find("Content-Length: ") + 16)));
  EXPECT_LT(got.size() - head.size(), length);
  EXPECT_EQ(got.find("faultCode"), std::string::npos);
  RawSocket whole(pool.server.port());
  ASSERT_TRUE(whole.send(post(rows_call("blob_and_more", kBlob))));
  EXPECT_NE(whole.read_responses(1).find("faultCode"), std::string::npos);
}

TEST(StreamedAnswer, SentBeforeTheResultIsAllWritten) {
  // The handler's writer stops halfway until the client has the head and a first chunk: an
  // answer sent only when whole would not come before the gate's 5 s ran out.
  StreamingServer t;
  RawSocket s(t.server.port());
  ASSERT_TRUE(s.send(post(rows_call("gated_rows", kRows), "TE: trailers\r\nConnection: TE\r\n")));
  std::string first = s.read_until(
      [](const std::string& got) {
        std::string_view head = head_of(got);
        return !head.empty() && dechunk(std::string_view(got).substr(head.size())).chunks > 0;
      },
      4s);
  ASSERT_FALSE(head_of(first).empty()) << "nothing came while the handler was writing";
  t.gate = true;
  std::string rest = s.read_until(
      [&first](const std::string& got) {
        std::string all = first + got;
        return dechunk(std::string_view(all).substr(head_of(all).size())).whole;
      },
      5s);
  EXPECT_FALSE(t.waited.load()) << "the gate ran out: the answer was not sent as it was written";
  Dechunked d = dechunk(std::string_view(first + rest).substr(head_of(first).size()));
  EXPECT_TRUE(d.whole);
  EXPECT_NE(d.body.find("</methodResponse>"), std::string::npos);
}

TEST(StreamedAnswer, AFailureAfterTheFirstChunkCutsTheAnswerShort) {
  StreamingServer t;
  RawSocket s(t.server.port());
  ASSERT_TRUE(s.send(post(call_xml("bad_rows",
                                   "<param><value><int>10000</int></value></param>"
                                   "<param><value><int>9000</int></value></param>"),
                          "TE: trailers\r\nConnection: TE\r\n")));
  std::string got = s.read_all(5s);
  EXPECT_TRUE(s.closed());
  std::string_view head = head_of(got);
  ASSERT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string_view::npos) << head;
  Dechunked d = dechunk(std::string_view(got).substr(head.size()));
  EXPECT_FALSE(d.whole) << "a failed answer must not end as if it were whole";
  EXPECT_EQ(d.body.find("</methodResponse>"), std::string::npos);
  EXPECT_EQ(d.body.find("faultCode"), std::string::npos);
  // Before the first chunk, the same failure is a fault, as it always was.
  RawSocket early(t.server.port());
  ASSERT_TRUE(early.send(post(call_xml("bad_rows",
                                       "<param><value><int>10000</int></value></param>"
                                       "<param><value><int>10</int></value></param>"),
                              "TE: trailers\r\nConnection: TE\r\n")));
  std::string fault = early.read_responses(1);
  EXPECT_NE(fault.find("faultCode"), std::string::npos) << fault.substr(0, 400);
  // And the server goes on serving.
  Client client(t.server.url());
  auto sum = client.call<int>("add", 1, 2);
  ASSERT_TRUE(sum) << sum.error().message;
  EXPECT_EQ(*sum, 3);
}

TEST(StreamedAnswer, EveryOtherClientGetsTheAnswerWhole) {
  struct Case {
    const char* what;
    std::string request;
  };
  StreamingServer t;
  std::string body = rows_call("rows", kRows);
  std::string http10 = post(body, "TE: trailers\r\nConnection: TE\r\n");
  http10.replace(http10.find("HTTP/1.1"), 8, "HTTP/1.0");
  const Case cases[] = {
      {"no TE (ROS's XmlRpc++ and most clients)", post(body)},
      {"TE without trailers", post(body, "TE: gzip\r\nConnection: TE\r\n")},
      {"an HTTP/1.0 request", http10},
      {"a short answer", post(rows_call("rows", 10), "TE: trailers\r\nConnection: TE\r\n")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    RawSocket s(t.server.port());
    ASSERT_TRUE(s.send(c.request));
    std::string got = s.read_responses(1);
    std::string_view head = head_of(got);
    EXPECT_NE(head.find("Content-Length: "), std::string_view::npos) << head;
    EXPECT_EQ(head.find("Transfer-Encoding"), std::string_view::npos) << head;
    EXPECT_NE(got.find("</methodResponse>"), std::string::npos);
  }
  // Handlers on a pool answer whole (the worker does not own the socket); a client that takes
  // gzip gets the answer gzipped whole.
  ServerOptions pool = StreamingServer::options();
  pool.handler_threads = 2;
  ServerOptions gzip = StreamingServer::options();
  gzip.gzip_min_size = 1024;
  for (ServerOptions& o : {std::ref(pool), std::ref(gzip)}) {
    StreamingServer other(o);
    RawSocket s(other.server.port());
    ASSERT_TRUE(s.send(post(body, "TE: trailers\r\nConnection: TE\r\nAccept-Encoding: gzip\r\n")));
    std::string got = s.read_responses(1);
    std::string_view head = head_of(got);
    EXPECT_NE(head.find("Content-Length: "), std::string_view::npos) << head;
    EXPECT_EQ(head.find("Transfer-Encoding"), std::string_view::npos) << head;
  }
}

TEST(StreamedAnswer, CallwiresClientAsksForItAndReadsIt) {
  // Once a long answer came, the client sends TE: trailers and reads the chunks as they
  // come, typed or into a Value; an answer cut short is an error naming it, and the next
  // call goes on.
  StreamingServer t;
  std::vector<std::string> heads;
  ClientOptions o;
  o.trace = [&heads](const TraceEvent& e) {
    if (e.kind == TraceKind::ClientAnswer) heads.emplace_back(e.head);
  };
  Client client(t.server.url(), o);
  for (int i = 0; i < 2; ++i) {
    auto rows = client.call<std::vector<std::string>>("rows", int(kRows));
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->size(), kRows);
    EXPECT_EQ(rows->back(), std::string(100, 'r'));
  }
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_NE(heads[0].find("Content-Length"), std::string::npos) << heads[0];
  EXPECT_NE(heads[1].find("Transfer-Encoding: chunked"), std::string::npos) << heads[1];
  for (int i = 0; i < 3; ++i) {  // the first without TE: trailers, the others with it
    auto blob = client.call<std::vector<uint8_t>>("blob", int(kBlob));
    ASSERT_TRUE(blob) << blob.error().message;
    EXPECT_EQ(*blob, blob_of(kBlob));
    auto value = client.call("value_blob", {Value(int(kBlob))});
    ASSERT_TRUE(value) << value.error().message;
    EXPECT_EQ(value->as_bytes().size(), kBlob);
  }
  auto value = client.call("value_rows", {Value(int(kRows))});
  ASSERT_TRUE(value) << value.error().message;
  EXPECT_EQ(value->size(), kRows);
  auto cut = client.call<std::vector<std::string>>("bad_rows", int(kRows), 9000);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, Errc::ConnectionClosed) << cut.error().message;
  EXPECT_NE(cut.error().message.find("truncated chunked body"), std::string::npos)
      << cut.error().message;
  auto sum = client.call<int>("add", 2, 3);
  ASSERT_TRUE(sum) << sum.error().message;
  EXPECT_EQ(*sum, 5);
}

TEST(StreamedAnswer, OverTls) {
  // Chunks sent as far as TLS takes them, then the rest by the usual flush, over and over on
  // one connection: every answer whole.
  auto dir = std::filesystem::temp_directory_path() /
             ("callwire-streamed-tls-" +
              std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  testing::TestCert cert = testing::make_test_cert(dir);
  ASSERT_TRUE(cert.ok);
  ServerOptions o = StreamingServer::options();
  o.tls.cert_file = cert.cert_file;
  o.tls.key_file = cert.key_file;
  StreamingServer t(o);
  ClientOptions trusted;
  trusted.tls.ca_file = cert.cert_file;
  Client client(t.server.url(), trusted);
  for (int i = 0; i < 3; ++i) {
    auto rows = client.call<std::vector<std::string>>("rows", int(kRows));
    ASSERT_TRUE(rows) << rows.error().message;
    EXPECT_EQ(rows->size(), kRows);
  }
  std::filesystem::remove_all(dir);
}

TEST(StreamedAnswer, AnAnswerPastTheConnectionsShareIsCutShort) {
  // A quarter of max_buffer_memory is one connection's share of answers: a streamed answer
  // that grows past it is cut short (one sent whole is refused with 500, as before).
  ServerOptions o = StreamingServer::options();
  o.max_buffer_memory = 4 << 20;
  o.max_pending_output = 256 << 10;
  StreamingServer t(o);
  RawSocket s(t.server.port());
  ASSERT_TRUE(s.send(post(rows_call("rows", 20000), "TE: trailers\r\nConnection: TE\r\n")));
  std::string got = s.read_all(5s);
  EXPECT_TRUE(s.closed());
  std::string_view head = head_of(got);
  ASSERT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string_view::npos) << head;
  EXPECT_FALSE(dechunk(std::string_view(got).substr(head.size())).whole);

  // A blob known to pass the share before any of it goes is refused whole, with 500.
  RawSocket b(t.server.port());
  ASSERT_TRUE(b.send(post(rows_call("blob", 2 << 20), "TE: trailers\r\nConnection: TE\r\n")));
  std::string refused = b.read_responses(1);
  EXPECT_TRUE(refused.starts_with("HTTP/1.1 500 "))
      << refused.substr(0, std::min<size_t>(refused.size(), 200));
}

}  // namespace
}  // namespace callwire
