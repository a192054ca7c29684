// The client's JSON-lines answer parser alone, fed as a connection feeds it: in pieces of any
// size, dropping what the parser says it is done with after each incomplete parse.
#include <gtest/gtest.h>

#include <string>

#include "client/framing.hpp"
#include "client/url.hpp"

namespace callwire::detail {
namespace {

struct Fed {
  http::ResponseParseResult result;
  std::string body;
  size_t held_most = 0;  // the most bytes the connection held at once
};

// Feeds `bytes` `piece` bytes at a time, as ClientConnection::receive does.
Fed feed(AnswerParser& parser, const std::string& bytes, size_t piece, bool eof = false) {
  Fed out;
  std::string in;
  Buffer unused;
  for (size_t at = 0; at < bytes.size(); at += piece) {
    in += bytes.substr(at, piece);
    out.held_most = std::max(out.held_most, in.size());
    out.result = parser.parse(in, unused);
    if (out.result.status != http::ParseStatus::Incomplete) break;
    in.erase(0, parser.take_consumed());
  }
  if (eof && out.result.status == http::ParseStatus::Incomplete)
    out.result = parser.parse_eof(in, unused);
  if (out.result.status == http::ParseStatus::Complete) out.body = parser.response().body;
  return out;
}

std::unique_ptr<AnswerParser> line_parser(size_t max_line) {
  ClientUrl url = parse_client_url("jsonl://127.0.0.1:1", "").value();
  auto framing = make_client_framing(url, "application/json", false, "", "", {}).value();
  http::ResponseLimits limits;
  limits.max_body = max_line;
  return framing->make_answer_parser(limits);
}

TEST(JsonLineAnswer, OneLineInPiecesOfAnySize) {
  const std::string answer = R"({"jsonrpc":"2.0","result":[1,"a\nb"],"id":3})";
  for (size_t piece : {1, 2, 7, 1000}) {
    SCOPED_TRACE(piece);
    auto parser = line_parser(1 << 20);
    Fed f = feed(*parser, "\n \r\n\t\n" + answer + "\r\n", piece);
    ASSERT_EQ(f.result.status, http::ParseStatus::Complete);
    EXPECT_EQ(f.body, answer);
    EXPECT_EQ(parser->response().status, 200);
    EXPECT_TRUE(parser->response().keep_alive);
  }
}

TEST(JsonLineAnswer, BlankLinesForEverGrowNothing) {
  auto parser = line_parser(64);
  Fed f = feed(*parser, std::string(100000, '\n'), 4096);
  EXPECT_EQ(f.result.status, http::ParseStatus::Incomplete);
  EXPECT_LE(f.held_most, 4096u);
}

TEST(JsonLineAnswer, ALineOverTheLimitIsRefused) {
  auto parser = line_parser(64);
  Fed f = feed(*parser, "\n" + std::string(65, 'x'), 5);
  ASSERT_EQ(f.result.status, http::ParseStatus::Error);
  EXPECT_EQ(f.result.error, http::ResponseError::TooLarge);
  EXPECT_NE(parser->error().find("64 bytes"), std::string_view::npos) << parser->error();
  auto exact = line_parser(64);
  EXPECT_EQ(feed(*exact, std::string(64, 'x') + "\n", 5).result.status,
            http::ParseStatus::Complete);
}

TEST(JsonLineAnswer, TheEndOfTheStream) {
  // A last line without its newline is the answer; the connection is not kept.
  auto last = line_parser(1 << 20);
  Fed f = feed(*last, "\n{\"id\":1}", 3, true);
  ASSERT_EQ(f.result.status, http::ParseStatus::Complete);
  EXPECT_EQ(f.body, "{\"id\":1}");
  EXPECT_FALSE(last->response().keep_alive);
  // Nothing at all: the server never answered (a kept connection's request may be resent).
  auto nothing = line_parser(1 << 20);
  Buffer unused;
  EXPECT_EQ(nothing->parse_eof("", unused).error, http::ResponseError::NoResponse);
  // Blank lines, then the end: cut short.
  auto blank = line_parser(1 << 20);
  Fed cut = feed(*blank, "\n\r\n  ", 2, true);
  ASSERT_EQ(cut.result.status, http::ParseStatus::Error);
  EXPECT_EQ(cut.result.error, http::ResponseError::Truncated);
  // reset() readies it for the next answer.
  blank->reset();
  EXPECT_EQ(feed(*blank, "[]\n", 1).body, "[]");
}

TEST(JsonLineAnswer, TheFramingCarriesJsonAlone) {
  ClientUrl url = parse_client_url("jsonl+unix:/run/x.sock", "").value();
  EXPECT_FALSE(make_client_framing(url, "text/xml", false, "", "", {}));
  EXPECT_FALSE(make_client_framing(url, "application/json", false, "Basic eA==", "", {}));
  auto framing = make_client_framing(url, "application/json", false, "", "", {}).value();
  EXPECT_FALSE(framing->transport().carries_fields);  // no gzip either
  EXPECT_FALSE(framing->transport().answers_notifications);
  EXPECT_TRUE(framing->transport().checked_before_reuse);
  EXPECT_EQ(framing->idle_probe(), "\n");
  Buffer out;
  ASSERT_TRUE(framing->append_head(out, {}));
  out.append("{}");
  framing->finish_request(out, 0);
  EXPECT_EQ(out.view(), "{}\n");
}

}  // namespace
}  // namespace callwire::detail
