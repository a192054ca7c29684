// serve_cgi (callwire/cgi.hpp) over a given environment and files: each refusal with its
// status, a call and what its handler sees, a gzipped body.
#include "server/cgi.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "callwire/xml.hpp"
#include "http/gzip.hpp"

namespace callwire::detail {
namespace {

struct TempFile {
  FILE* f = std::tmpfile();
  ~TempFile() { std::fclose(f); }
  int fd() const { return fileno(f); }
};

struct CgiResult {
  int status = 0;  // serve_cgi_on's return
  std::string output;
};

// Runs one CGI request: `env` as the meta-variables, `body` on the input.
CgiResult run(Registry& registry, std::vector<std::string> env, std::string_view body,
              CgiOptions options = {}) {
  TempFile in, out;
  EXPECT_EQ(::write(in.fd(), body.data(), body.size()), ssize_t(body.size()));
  ::lseek(in.fd(), 0, SEEK_SET);
  std::vector<const char*> pointers;
  for (const std::string& e : env) pointers.push_back(e.c_str());
  pointers.push_back(nullptr);
  CgiResult r;
  r.status = serve_cgi_on(registry, options, pointers.data(), in.fd(), out.fd());
  ::lseek(out.fd(), 0, SEEK_SET);
  char chunk[4096];
  for (ssize_t n; (n = ::read(out.fd(), chunk, sizeof chunk)) > 0;)
    r.output.append(chunk, size_t(n));
  return r;
}

std::string call_document(std::string_view method, std::vector<Value> params) {
  Buffer b;
  EXPECT_TRUE(xml::write_call(b, method, params));
  return std::string(b.view());
}

std::vector<std::string> post(size_t length) {
  return {"REQUEST_METHOD=POST", "CONTENT_LENGTH=" + std::to_string(length),
          "CONTENT_TYPE=text/xml"};
}

struct CgiTest : ::testing::Test {
  Registry registry;
  void SetUp() override {
    ASSERT_TRUE(registry.bind("sample.add", [](int a, int b) { return a + b; }));
    ASSERT_TRUE(registry.bind("whoami", [](CallContext& ctx) {
      return std::string(ctx.peer()) + "|" + std::string(ctx.user()) + "|" +
             std::string(ctx.header("User-Agent")) + "|" + std::string(ctx.header("content-type"));
    }));
  }
};

Value result_of(const std::string& output) {
  size_t body = output.find("\r\n\r\n");
  EXPECT_NE(body, std::string::npos) << output;
  xml::Reader reader;
  auto r = reader.read_response(std::string_view(output).substr(body + 4));
  EXPECT_TRUE(r) << output;
  return r && !r->is_fault ? r->result : Value();
}

TEST_F(CgiTest, AnswersACall) {
  std::string body = call_document("sample.add", {2, 3});
  CgiResult r = run(registry, post(body.size()), body);
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.output.starts_with("Status: 200 OK\r\n")) << r.output;
  EXPECT_NE(r.output.find("Content-Type: text/xml"), std::string::npos);
  size_t length = r.output.size() - r.output.find("\r\n\r\n") - 4;
  EXPECT_NE(r.output.find("Content-Length: " + std::to_string(length) + "\r\n"), std::string::npos);
  EXPECT_EQ(result_of(r.output), Value(5));
}

TEST_F(CgiTest, AnswersJsonRpcByContentType) {
  std::string body = R"({"jsonrpc":"2.0","method":"sample.add","params":[2,3],"id":"a"})";
  CgiResult r = run(registry,
                    {"REQUEST_METHOD=POST", "CONTENT_LENGTH=" + std::to_string(body.size()),
                     "CONTENT_TYPE=application/json"},
                    body);
  EXPECT_TRUE(r.output.starts_with("Status: 200 OK\r\nContent-Type: application/json\r\n"))
      << r.output;
  EXPECT_TRUE(
      r.output.ends_with("\r\n\r\n"
                         R"({"jsonrpc":"2.0","result":5,"id":"a"})"))
      << r.output;

  std::string note = R"({"jsonrpc":"2.0","method":"sample.add","params":[2,3]})";
  r = run(registry,
          {"REQUEST_METHOD=POST", "CONTENT_LENGTH=" + std::to_string(note.size()),
           "CONTENT_TYPE=application/json"},
          note);
  EXPECT_EQ(r.output, "Status: 204 No Content\r\n\r\n");
}

TEST_F(CgiTest, HandlersSeePeerUserAndHeaderFields) {
  std::string body = call_document("whoami", {});
  std::vector<std::string> env = post(body.size());
  env.insert(env.end(), {"REMOTE_ADDR=::1", "REMOTE_PORT=4711", "REMOTE_USER=ann",
                         "HTTP_USER_AGENT=test/1.0", "PATH=/bin"});
  EXPECT_EQ(result_of(run(registry, env, body).output), Value("[::1]:4711|ann|test/1.0|text/xml"));
}

TEST_F(CgiTest, RefusesWhatIsNotACall) {
  auto status_line = [](const CgiResult& r) { return r.output.substr(0, r.output.find("\r\n")); };
  CgiResult get = run(registry, {"REQUEST_METHOD=GET"}, "");
  EXPECT_EQ(get.status, 0);
  EXPECT_EQ(status_line(get), "Status: 405 Method Not Allowed");
  EXPECT_NE(get.output.find("Allow: POST\r\n"), std::string::npos);
  EXPECT_EQ(status_line(run(registry, {}, "")), "Status: 405 Method Not Allowed");
  EXPECT_EQ(status_line(run(registry, {"REQUEST_METHOD=POST"}, "x")),
            "Status: 411 Length Required");
  EXPECT_EQ(status_line(run(registry, {"REQUEST_METHOD=POST", "CONTENT_LENGTH=1x"}, "x")),
            "Status: 400 Bad Request");
  EXPECT_EQ(status_line(run(registry, {"REQUEST_METHOD=POST", "CONTENT_LENGTH=-1"}, "x")),
            "Status: 400 Bad Request");
  EXPECT_EQ(status_line(run(registry, {"REQUEST_METHOD=POST", "CONTENT_LENGTH="}, "x")),
            "Status: 400 Bad Request");
  EXPECT_EQ(status_line(run(registry, post(100), "short")), "Status: 400 Bad Request");
  EXPECT_EQ(status_line(run(registry,
                            {"REQUEST_METHOD=POST", "CONTENT_LENGTH=99999999999999999999999"}, "")),
            "Status: 413 Content Too Large");
  CgiOptions small;
  small.max_body = 10;
  EXPECT_EQ(status_line(run(registry, post(11), std::string(11, 'x'), small)),
            "Status: 413 Content Too Large");
  std::vector<std::string> br = post(4);
  br.push_back("HTTP_CONTENT_ENCODING=br");
  EXPECT_EQ(status_line(run(registry, br, "abcd")), "Status: 415 Unsupported Media Type");
  // A well-framed body that is not a call is answered with a fault, as by the server.
  std::string junk = "<methodCall>";
  CgiResult fault = run(registry, post(junk.size()), junk);
  EXPECT_EQ(status_line(fault), "Status: 200 OK");
  EXPECT_NE(fault.output.find("<name>faultCode</name><value><int>-32700</int>"), std::string::npos);
}

TEST_F(CgiTest, InflatesAGzippedBodyWithinTheLimit) {
  std::string body = call_document("sample.add", {20, 22});
  Buffer gz;
  ASSERT_TRUE(http::gzip_compress(body, gz));
  std::vector<std::string> env = post(gz.size());
  env.push_back("HTTP_CONTENT_ENCODING=gzip");
  EXPECT_EQ(result_of(run(registry, env, gz.view()).output), Value(42));

  Buffer bomb;
  ASSERT_TRUE(http::gzip_compress(std::string(1 << 20, ' '), bomb));
  CgiOptions small;
  small.max_body = 64 << 10;
  env = post(bomb.size());
  env.push_back("HTTP_CONTENT_ENCODING=gzip");
  CgiResult r = run(registry, env, bomb.view(), small);
  EXPECT_TRUE(r.output.starts_with("Status: 413 ")) << r.output;
  EXPECT_NE(r.output.find("limit of 65536 bytes (max_body)"), std::string::npos) << r.output;
  env = post(4);
  env.push_back("HTTP_CONTENT_ENCODING=gzip");
  EXPECT_TRUE(run(registry, env, "abcd").output.starts_with("Status: 400 "));
}

TEST_F(CgiTest, ReportsAnOutputThatCannotBeWritten) {
  std::string body = call_document("sample.add", {2, 3});
  TempFile in;
  ASSERT_EQ(::write(in.fd(), body.data(), body.size()), ssize_t(body.size()));
  ::lseek(in.fd(), 0, SEEK_SET);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::close(pipe_fds[0]);  // nobody reads: the write fails (EPIPE; SIGPIPE ignored below)
  signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> env = post(body.size());
  std::vector<const char*> pointers;
  for (const std::string& e : env) pointers.push_back(e.c_str());
  pointers.push_back(nullptr);
  EXPECT_EQ(serve_cgi_on(registry, {}, pointers.data(), in.fd(), pipe_fds[1]), 1);
  ::close(pipe_fds[1]);
}

}  // namespace
}  // namespace callwire::detail
