// The wire trace (callwire/trace.hpp): every request and answer, on both sides, over HTTP
// (gzip both ways, error answers, credentials hidden), SCGI, the packet stream and JSON lines;
// the stderr printer (escapes, cuts); CALLWIRE_TRACE; and the C API's callback.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "callwire.h"
#include "callwire/client.hpp"
#include "callwire/server.hpp"
#include "http/gzip.hpp"
#include "http_test_util.hpp"
#include "pstream/pstream.hpp"
#include "trace/wire_trace.hpp"

namespace callwire {
namespace {

struct Seen {
  TraceKind kind;
  std::string peer, head, body;
};

// Collects every event; thread-safe (a server's hook runs on its threads).
struct Recorder {
  std::mutex mutex;
  std::vector<Seen> events;
  TraceHook hook() {
    return [this](const TraceEvent& e) {
      std::lock_guard lock(mutex);
      events.push_back({e.kind, std::string(e.peer), std::string(e.head), std::string(e.body)});
    };
  }
  std::vector<Seen> of(TraceKind kind) {
    std::lock_guard lock(mutex);
    std::vector<Seen> out;
    for (const Seen& s : events)
      if (s.kind == kind) out.push_back(s);
    return out;
  }
};

ServerOptions server_options(std::string listen, Recorder& r) {
  ServerOptions o;
  o.listen = {std::move(listen)};
  o.threads = 1;
  o.trace = r.hook();
  return o;
}

void bind_echo(Server& server) {
  ASSERT_TRUE(server.bind("echo", [](const std::string& s) { return s; }));
}

TEST(WireTrace, HttpBothSidesGzipInflatedAndCredentialsHidden) {
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE(workers ? "worker pool" : "inline");
    Recorder server_seen, client_seen;
    ServerOptions so = server_options("127.0.0.1:0", server_seen);
    so.handler_threads = workers;
    so.gzip_min_size = 100;
    so.authenticate = [](std::string_view, std::string_view) { return true; };
    Server server(so);
    bind_echo(server);
    ASSERT_TRUE(server.start());
    ClientOptions co;
    co.trace = client_seen.hook();
    co.accept_gzip = true;
    co.gzip_request_min_size = 100;
    co.user = "ann";
    co.password = "s3cret";
    Client client(server.url(), co);
    const std::string text(3000, 'x');  // both ways over 100 bytes: gzipped on the wire
    Result<std::string> got = client.call<std::string>("echo", text);
    ASSERT_TRUE(got) << got.error().message;

    for (Recorder* r : {&client_seen, &server_seen}) {
      const bool client_side = r == &client_seen;
      SCOPED_TRACE(client_side ? "client" : "server");
      auto requests = r->of(client_side ? TraceKind::ClientRequest : TraceKind::ServerRequest);
      auto answers = r->of(client_side ? TraceKind::ClientAnswer : TraceKind::ServerAnswer);
      ASSERT_EQ(requests.size(), 1u);
      ASSERT_EQ(answers.size(), 1u);
      EXPECT_TRUE(requests[0].head.starts_with("POST /RPC2 HTTP/1.1\r\n")) << requests[0].head;
      EXPECT_NE(requests[0].head.find("Content-Encoding: gzip\r\n"), std::string::npos);
      EXPECT_NE(requests[0].head.find("Authorization: Basic [hidden]\r\n"), std::string::npos)
          << requests[0].head;
      EXPECT_EQ(requests[0].head.find("YW5u"), std::string::npos);  // base64 of "ann"
      // The bodies inflated: the XML itself.
      EXPECT_TRUE(requests[0].body.starts_with("<?xml")) << requests[0].body.substr(0, 40);
      EXPECT_NE(requests[0].body.find(text), std::string::npos);
      EXPECT_TRUE(answers[0].head.starts_with("HTTP/1.1 200 OK\r\n")) << answers[0].head;
      EXPECT_NE(answers[0].head.find("Content-Encoding: gzip"), std::string::npos);
      EXPECT_NE(answers[0].body.find("<methodResponse>"), std::string::npos);
      EXPECT_NE(answers[0].body.find(text), std::string::npos);
    }
    EXPECT_EQ(client_seen.events[0].peer, server.url());
    EXPECT_TRUE(server_seen.events[0].peer.starts_with("127.0.0.1:"));
  }
}

TEST(WireTrace, ErrorAnswersAreTracedToo) {
  Recorder seen;
  Server server(server_options("127.0.0.1:0", seen));
  bind_echo(server);
  ASSERT_TRUE(server.start());
  testing::RawSocket s(server.port());
  ASSERT_TRUE(s.connected());
  ASSERT_TRUE(
      s.send("POST /elsewhere HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n"
             "Content-Length: 0\r\n\r\n"));
  std::string answer = s.read_all();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 404")) << answer;
  auto answers = seen.of(TraceKind::ServerAnswer);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_TRUE(answers[0].head.starts_with("HTTP/1.1 404 Not Found\r\n")) << answers[0].head;
  EXPECT_NE(answers[0].body.find("/elsewhere"), std::string::npos) << answers[0].body;
  ASSERT_EQ(seen.of(TraceKind::ServerRequest).size(), 1u);
}

TEST(WireTrace, ScgiPacketStreamAndJsonLinesShowTheirBodies) {
  for (const char* listen : {"scgi://127.0.0.1:0", "pstream://127.0.0.1:0"}) {
    SCOPED_TRACE(listen);
    Recorder server_seen, client_seen;
    Server server(server_options(listen, server_seen));
    bind_echo(server);
    ASSERT_TRUE(server.start());
    ClientOptions co;
    co.trace = client_seen.hook();
    Client client(server.url(), co);
    ASSERT_EQ(*client.call<std::string>("echo", "a&b"), "a&b");
    const bool scgi = std::string_view(listen).starts_with("scgi");
    for (const Seen& e : client_seen.events) {
      EXPECT_EQ(e.peer, server.url());
      EXPECT_TRUE(e.body.starts_with("<?xml")) << e.body;  // unescaped, no packet framing
      EXPECT_NE(e.body.find("a&amp;b"), std::string::npos);
    }
    ASSERT_EQ(client_seen.events.size(), 2u);
    ASSERT_EQ(server_seen.events.size(), 2u);
    if (scgi) {
      // The client's netstring head a field a line; the server's CGI answer head as sent.
      EXPECT_TRUE(client_seen.events[0].head.starts_with("CONTENT_LENGTH: "))
          << client_seen.events[0].head;
      EXPECT_NE(client_seen.events[0].head.find("SCGI: 1\r\n"), std::string::npos);
      EXPECT_TRUE(server_seen.events[1].head.starts_with("Status: 200"))
          << server_seen.events[1].head;
    } else {
      for (const Seen& e : client_seen.events) EXPECT_EQ(e.head, "");
      for (const Seen& e : server_seen.events) EXPECT_EQ(e.head, "");
      EXPECT_NE(server_seen.events[1].body.find("a&amp;b"), std::string::npos);
    }
  }

  Recorder seen;
  Server server(server_options("jsonl://127.0.0.1:0", seen));
  ASSERT_TRUE(server.registry().bind("add", [](int a, int b) { return a + b; }));
  ASSERT_TRUE(server.start());
  testing::RawSocket s(server.port());
  ASSERT_TRUE(s.send(R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":1})"
                     "\n"));
  std::string line = s.read_until([](const std::string& got) { return got.ends_with("\n"); });
  ASSERT_EQ(seen.events.size(), 2u);
  EXPECT_EQ(seen.events[0].body, R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":1})");
  EXPECT_EQ(seen.events[1].body + "\n", line);
  EXPECT_EQ(seen.events[1].head, "");
}

// show_sent on bytes built here: what a server or client sends, as the trace shows it.
TEST(WireTrace, ShowSentSplitsHeadsAndUndoesTheFraming) {
  trace::Shown shown;
  Buffer gz;
  ASSERT_TRUE(http::gzip_compress("<xml>hello</xml>", gz));
  std::string http =
      "HTTP/1.1 200 OK\r\nContent-encoding: GZIP\r\nProxy-Authorization: Basic "
      "abc\r\n\r\n" +
      std::string(gz.view());
  trace::show_sent(ConnectionFraming::Http, http, 1 << 20, shown);
  EXPECT_EQ(shown.head,
            "HTTP/1.1 200 OK\r\nContent-encoding: GZIP\r\n"
            "Proxy-Authorization: Basic [hidden]\r\n");
  EXPECT_EQ(shown.body, "<xml>hello</xml>");
  // Over the inflation cap, or not gzip at all: shown as sent.
  trace::show_sent(ConnectionFraming::Http, http, 4, shown);
  EXPECT_EQ(shown.body, gz.view());

  Buffer packet;
  pstream::append_packet(packet, "<a>\x1b</a>");
  trace::show_sent(ConnectionFraming::Pstream, packet.view(), 1 << 20, shown);
  EXPECT_EQ(shown.head, "");
  EXPECT_EQ(shown.body, "<a>\x1b</a>");

  trace::show_sent(ConnectionFraming::JsonLines, "{\"a\":1}\n", 1 << 20, shown);
  EXPECT_EQ(shown.body, "{\"a\":1}");

  // An answer sent while it was written: its chunks' data, the size lines gone.
  trace::show_sent(ConnectionFraming::Http,
                   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n00000005\r\n<xml>"
                   "\r\n0000000B\r\nhello</xml>\r\n0\r\n\r\n",
                   1 << 20, shown);
  EXPECT_EQ(shown.head, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n");
  EXPECT_EQ(shown.body, "<xml>hello</xml>");
}

// Runs `write` with standard error going to a file; returns what was written.
template <class Write>
std::string captured_stderr(Write write) {
  std::fflush(stderr);
  std::string path = ::testing::TempDir() + "callwire-trace-XXXXXX";
  int fd = ::mkstemp(path.data());
  int saved = ::dup(2);
  ::dup2(fd, 2);
  write();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string out;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  ::close(fd);
  ::unlink(path.c_str());
  return out;
}

TEST(WireTrace, TheStderrPrinterEscapesAndCuts) {
  TraceHook hook = trace_to_stderr(8);
  std::string printed = captured_stderr([&] {
    hook(TraceEvent{TraceKind::ServerAnswer, "peer\x1b[31m", "HTTP/1.1 200 OK\r\nA: b\r\n",
                    "gr\xc3\xbc\xc3\x9f"
                    "e \x01\xff and more"});
  });
  std::string whole = captured_stderr([&] {
    trace_to_stderr()(TraceEvent{TraceKind::ClientRequest, "p", "", "a\x01\xff\r\nb\tc"});
  });
  EXPECT_EQ(printed,
            "callwire trace: server answer to peer\\x1B[31m\n"
            "HTTP/1.1 200 OK\nA: b\n\n"
            "gr\xc3\xbc\xc3\x9f"
            "e \n"  // UTF-8 kept; cut after 8 bytes
            "[... 11 more bytes of 19]\n\n");
  // Whole: control bytes and bytes that are not UTF-8 escaped, CR LF as LF, tabs kept.
  EXPECT_EQ(whole, "callwire trace: client request to p\na\\x01\\xFF\nb\tc\n\n");
}

TEST(WireTrace, TheEnvironmentTurnsItOn) {
  testing::set_environment("CALLWIRE_TRACE", nullptr);
  EXPECT_FALSE(trace_from_environment());
  testing::set_environment("CALLWIRE_TRACE", "0");
  EXPECT_FALSE(trace_from_environment());
  testing::set_environment("CALLWIRE_TRACE", "1:5");
  TraceHook hook = trace_from_environment();
  ASSERT_TRUE(hook);

  // A server and a client made now both trace, with no option set.
  ServerOptions so;
  so.listen = {"127.0.0.1:0"};
  so.threads = 1;
  std::string printed = captured_stderr([&] {
    Server server(so);
    bind_echo(server);
    ASSERT_TRUE(server.start());
    Client client(server.url());
    ASSERT_TRUE(client.call<std::string>("echo", "hi"));
  });
  testing::set_environment("CALLWIRE_TRACE", nullptr);
  for (const char* what : {"callwire trace: client request to http://127.0.0.1:",
                           "callwire trace: server request from 127.0.0.1:",
                           "callwire trace: server answer to", "callwire trace: client answer"})
    EXPECT_NE(printed.find(what), std::string::npos) << what << "\n" << printed;
  EXPECT_NE(printed.find("<?xml\n[... "), std::string::npos) << printed;  // cut after 5 bytes
}

struct CTraceSeen {
  std::mutex mutex;
  std::vector<std::pair<int, std::string>> events;  // kind, body (NUL-terminated copy)
};

extern "C" void record_c_trace(const cw_trace_event* e, void* data) {
  auto* seen = static_cast<CTraceSeen*>(data);
  std::lock_guard lock(seen->mutex);
  EXPECT_EQ(e->body[e->body_len], '\0');
  EXPECT_EQ(e->head[e->head_len], '\0');
  EXPECT_EQ(e->peer[e->peer_len], '\0');
  seen->events.emplace_back(int(e->kind), std::string(e->body));
}

TEST(WireTrace, TheCApiCallbacks) {
  CTraceSeen server_seen, client_seen;
  cw_server_options so;
  std::memset(&so, 0, sizeof so);
  so.struct_size = sizeof so;
  so.listen = "127.0.0.1:0";
  so.threads = 1;
  so.trace = record_c_trace;
  so.trace_data = &server_seen;
  cw_error err;
  cw_server* server = nullptr;
  ASSERT_EQ(cw_server_new(&so, &server, &err), CW_OK) << err.message;
  ASSERT_EQ(cw_server_add_method(
                server, "one", [](cw_call* call, void*) { return cw_call_return_int(call, 1); },
                nullptr, "i:", "", &err),
            CW_OK)
      << err.message;
  ASSERT_EQ(cw_server_start(server, &err), CW_OK) << err.message;
  char url[256];
  std::snprintf(url, sizeof url, "http://127.0.0.1:%u/RPC2", unsigned(cw_server_port(server)));
  cw_client_options co;
  std::memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.trace = record_c_trace;
  co.trace_data = &client_seen;
  cw_client* client = nullptr;
  ASSERT_EQ(cw_client_new(url, &co, &client, &err), CW_OK) << err.message;
  cw_value* result = nullptr;
  ASSERT_EQ(cw_client_call(client, "one", nullptr, 0, nullptr, &result, &err), CW_OK)
      << err.message;
  cw_value_free(result);
  cw_client_free(client);
  cw_server_free(server);
  ASSERT_EQ(client_seen.events.size(), 2u);
  EXPECT_EQ(client_seen.events[0].first, CW_TRACE_CLIENT_REQUEST);
  EXPECT_EQ(client_seen.events[1].first, CW_TRACE_CLIENT_ANSWER);
  EXPECT_NE(client_seen.events[1].second.find("<int>1</int>"), std::string::npos);
  ASSERT_EQ(server_seen.events.size(), 2u);
  EXPECT_EQ(server_seen.events[0].first, CW_TRACE_SERVER_REQUEST);
  EXPECT_EQ(server_seen.events[1].first, CW_TRACE_SERVER_ANSWER);
}

}  // namespace
}  // namespace callwire
