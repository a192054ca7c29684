// The XML-RPC grammar on top of the lexer: methodCall and methodResponse documents read straight
// into Values. Nested values are built without recursion: finished values wait on `stack_`
// until their array or struct closes, and then move into it with one allocation of the exact
// size.
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "base/assign_text.hpp"
#include "base/base64.hpp"
#include "base/literal.hpp"
#include "callwire/value_reader.hpp"
#include "callwire/xml.hpp"
#include "value/value_build.hpp"
#include "xml/lexer.hpp"
#include "xml/reader_internals.hpp"
#include "xml/scalar_text.hpp"

namespace callwire::xml {

namespace {

using base::is_literal;

// The element types a <value> may hold. Prefixes are ignored (Apache's `ex:i8`, `ex:nil`).
enum class Kind : uint8_t {
  Int,
  I1,
  I2,
  I8,
  Boolean,
  Double,
  String,
  DateTime,
  Base64,
  Nil,
  Array,
  Struct,
  BigInteger,
  BigDecimal,
  Serializable,
  Unknown
};

Kind classify_unprefixed(std::string_view name) {
  switch (name.size()) {
    case 2:
      if (name == "i4") return Kind::Int;
      if (name == "i8") return Kind::I8;
      if (name == "i1") return Kind::I1;
      if (name == "i2") return Kind::I2;
      break;
    case 3:
      if (name == "int") return Kind::Int;
      if (name == "nil") return Kind::Nil;
      break;
    case 5:
      if (name == "array") return Kind::Array;
      if (name == "float") return Kind::Double;
      break;
    case 6:
      if (name == "string") return Kind::String;
      if (name == "double") return Kind::Double;
      if (name == "struct") return Kind::Struct;
      if (name == "base64") return Kind::Base64;
      break;
    case 7:
      if (name == "boolean") return Kind::Boolean;
      break;
    case 8:
      if (name == "dateTime") return Kind::DateTime;
      break;
    case 10:
      if (name == "bigdecimal") return Kind::BigDecimal;
      if (name == "biginteger") return Kind::BigInteger;
      break;
    case 12:
      if (name == "serializable") return Kind::Serializable;
      break;
    case 16:
      if (name == "dateTime.iso8601") return Kind::DateTime;
      break;
    default:
      break;
  }
  return Kind::Unknown;
}

// A type name with a namespace prefix (`ex:i8`): its local part. Sets `prefixed` when that names
// a type, so the server can answer in the dialect the peer spoke.
Kind classify(std::string_view name, bool& prefixed) {
  Kind kind = classify_unprefixed(name);
  if (kind != Kind::Unknown) return kind;
  size_t colon = name.rfind(':');
  if (colon == std::string_view::npos) return Kind::Unknown;
  kind = classify_unprefixed(name.substr(colon + 1));
  if (kind != Kind::Unknown) prefixed = true;
  return kind;
}

bool all_space(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

std::string snippet(std::string_view s) {
  std::string_view t = scalar::trim(s);
  if (t.size() > 24) return std::string(t.substr(0, 24)) + "...";
  return std::string(t);
}

// Where a call's parameters stand once its method name is read.
enum class ParamsAt : uint8_t {
  None,    // no <params>: </methodCall> was read
  Empty,   // <params/>
  Inside,  // after <params>
};

}  // namespace

struct ReaderImpl {
  explicit ReaderImpl(ReaderLimits l) : limits(l) {
    if (limits.max_depth > ReaderLimits::kMaxDepth) limits.max_depth = ReaderLimits::kMaxDepth;
  }

  ReaderLimits limits;
  std::string scratch;       // decoded text (references, CDATA, CR LF)
  std::vector<Value> stack;  // finished values waiting for their container
  struct Frame {
    bool is_struct;
    bool in_member;  // struct: a member's value is done, </member> is due
    uint32_t base;   // where its items start on `stack`
  };
  std::vector<Frame> frames;
  std::string transcoded;  // an ISO-8859-1 document in UTF-8
  std::string_view doc;
  Lexer lexer{scratch};
  bool used_prefixed_types = false;  // the last document named a type as `prefix:type`
  DecodedAhead* ahead = nullptr;     // a <base64> text's start decoded already (typed reads)
  DocumentSource* source = nullptr;  // the document is still arriving (the client's answers)

  // ---- errors ----

  Error error() const {
    size_t offset = lexer.error_offset();
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < doc.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(doc[i]);
      if (c == '\n') {
        ++line;
        column = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++column;
      }
    }
    return Error(lexer.error_code(), std::to_string(line) + ":" + std::to_string(column) + ": " +
                                         lexer.error_message());
  }
  bool fail(const Token& at, std::string message) {
    return lexer.fail(Errc::InvalidRequest, at.offset, std::move(message));
  }
  bool limit(const Token& at, std::string message) {
    return lexer.fail(Errc::LimitExceeded, at.offset, std::move(message));
  }
  // Names the limit and its value, so that whoever reads it knows what to raise.
  bool over_string_limit(const Token& at, std::string_view what, size_t size) {
    return limit(at, std::string(what) + " of " + std::to_string(size) +
                         " bytes exceeds max_string_size (" +
                         std::to_string(limits.max_string_size) + " bytes)");
  }

  // ---- token helpers ----

  // The next token that is not white space; other text is an error in element-only content.
  bool next_element(Token& t, std::string_view context) {
    if (!lexer.next(t)) return false;
    if (t.kind == TokenKind::Text) {
      if (!all_space(t.text))
        return fail(t,
                    "unexpected text '" + snippet(t.text) + "' in <" + std::string(context) + ">");
      if (!lexer.next(t)) return false;
    }
    return true;
  }
  // The start tag `tag` ("<member>"): the lexer's fast path inline (a few times per value),
  // or the general one.
  template <size_t N>
  [[gnu::always_inline]] bool expect_start(Token& t, const char (&tag)[N],
                                           std::string_view context) {
    if (lexer.try_start(tag)) {
      t.kind = TokenKind::StartTag;
      t.self_closing = false;
      // From the literal, not from the open stack just written (a store-forwarding stall).
      t.name = std::string_view(tag + 1, N - 3);
      t.offset = lexer.offset_of(lexer.position()) - (N - 1);
      return true;
    }
    return expect_start_slow(t, std::string_view(tag, N - 1), context);
  }
  bool expect_start_slow(Token& t, std::string_view tag, std::string_view context) {
    if (!next_element(t, context)) return false;
    if (t.kind == TokenKind::StartTag && t.name == tag.substr(1, tag.size() - 2)) return true;
    return unexpected(t, std::string(tag));
  }
  // The end tag of the innermost open element `name` (the lexer checks that it matches).
  template <size_t N>
  [[gnu::always_inline]] bool expect_end(const char (&name)[N]) {
    if (lexer.try_end_literal(name)) return true;
    return expect_end_slow(std::string_view(name, N - 1));
  }
  bool expect_end_slow(std::string_view name) {
    if (lexer.try_end()) return true;
    Token t;
    if (!next_element(t, name)) return false;
    if (t.kind == TokenKind::EndTag) return true;
    return unexpected(t, "</" + std::string(name) + ">");
  }
  bool unexpected(const Token& t, const std::string& expected) {
    std::string got = t.kind == TokenKind::StartTag ? "<" + std::string(t.name) + ">"
                      : t.kind == TokenKind::EndTag ? "</" + std::string(t.name) + ">"
                                                    : "the end of the document";
    return fail(t, "unexpected " + got + ", expected " + expected);
  }
  // Inside <member>: its <name> element, read whole.
  [[gnu::always_inline]] bool member_name(std::string_view& name) {
    Token t;
    if (lexer.try_text_element("<name>", name)) {  // the usual case, in one pass
      t.offset = lexer.offset_of(name.data()) - (std::size("<name>") - 1);
    } else if (!expect_start(t, "<name>", "member") || !element_text(t, name)) {
      return false;
    }
    if (name.size() > limits.max_string_size)
      return over_string_limit(t, "a member name", name.size());
    return true;
  }
  // What a one-pass fast path did: nothing (the general path must look), read, or failed
  // with the error set.
  enum class OnePass : uint8_t { No, Read, Failed };

  // Into a struct's next member the usual way (lexer.try_member_head), `name` read and its
  // <value> open; Failed for a name over the limit.
  [[gnu::always_inline]] OnePass fast_member_head(bool after_member, std::string_view& name) {
    if (!(after_member ? lexer.try_member_head<true>(name) : lexer.try_member_head<false>(name)))
      return OnePass::No;
    if (name.size() <= limits.max_string_size) return OnePass::Read;
    Token t;
    t.offset = lexer.offset_of(name.data()) - (std::size("<name>") - 1);
    over_string_limit(t, "a member name", name.size());
    return OnePass::Failed;
  }
  // The text content of an element with no children, e.g. <int>, <name>; empty when
  // self-closing.
  bool element_text(const Token& start, std::string_view& text) {
    text = {};
    if (start.self_closing) return true;
    Token t;
    if (lexer.try_plain_text(text)) {
      if (lexer.try_end()) return true;
      return lexer.next(t);  // an end tag: a mismatch is reported, `</x >` accepted
    }
    if (!lexer.next(t)) return false;
    if (t.kind == TokenKind::Text) {
      text = t.text;
      if (!lexer.next(t)) return false;
    }
    if (t.kind != TokenKind::EndTag)
      return fail(
          t, "unexpected <" + std::string(t.name) + "> inside <" + std::string(start.name) + ">");
    return true;
  }

  // ---- documents ----

  bool begin(std::string_view document) {
    stack.clear();
    frames.clear();
    used_prefixed_types = false;
    doc = document;
    if (document.size() > limits.max_document_size) {
      doc = {};
      return lexer.fail(Errc::LimitExceeded, 0,
                        "document of " + std::to_string(document.size()) +
                            " bytes exceeds max_document_size (" +
                            std::to_string(limits.max_document_size) + " bytes)");
    }
    if (!lexer.start(document, limits.max_elements, false, source)) return false;
    if (lexer.encoding() == Encoding::Latin1) {
      if (!lexer.wait_for_everything()) return false;        // transcoded whole
      document = document.substr(0, lexer.document_size());  // a source may end it sooner
      // Every byte is one character: re-encode the whole document as UTF-8 and read that.
      bool high = false;
      for (char c : document) high |= static_cast<unsigned char>(c) >= 0x80;
      if (high) {
        transcoded.clear();
        transcoded.reserve(document.size() + document.size() / 2);
        for (char c : document) {
          auto b = static_cast<unsigned char>(c);
          if (b < 0x80) {
            transcoded.push_back(c);
          } else {
            transcoded.push_back(char(0xC0 | b >> 6));
            transcoded.push_back(char(0x80 | (b & 0x3F)));
          }
        }
        doc = transcoded;
        if (!lexer.start(transcoded, limits.max_elements, true)) return false;
      }
    }
    return true;
  }

  // Reads one document: the root element's start tag, then `body` for the rest.
  template <class T, class Body>
  Result<T> run(std::string_view document, Body body) {
    T out;
    Token root;
    bool ok = begin(document) && lexer.next(root) && body(*this, root, out);
    Result<T> result = ok ? Result<T>(std::move(out)) : Result<T>(error());
    end_read();
    return result;
  }
  // The same into `out`, whose storage is reused.
  template <class T, class Body>
  Status run_into(std::string_view document, T& out, Body body) {
    Token root;
    bool ok = begin(document) && lexer.next(root) && body(*this, root, out);
    Status status = ok ? Status() : Status(error());
    end_read();
    return status;
  }

  // Drops what a failed read left behind, and gives back buffers a large document grew, so an
  // idle Reader holds little memory; small ones are kept for the next document.
  void end_read() {
    stack.clear();
    frames.clear();
    doc = {};
    constexpr size_t kKeepValues = 4096, kKeepBytes = 64 * 1024;
    if (stack.capacity() > kKeepValues) std::vector<Value>().swap(stack);
    lexer.trim();
    if (scratch.capacity() > kKeepBytes) std::string().swap(scratch);
    if (transcoded.capacity() > kKeepBytes) std::string().swap(transcoded);
  }

  bool end_of_document() {
    Token t;
    if (!lexer.next(t)) return false;
    if (t.kind != TokenKind::EndOfDocument) return unexpected(t, "the end of the document");
    return true;
  }

  // With a `taker`, the parameters are offered to it first (ReaderInternals::read_call).
  bool method_call(const Token& root, MethodCall& call, ParamsTaker* taker = nullptr,
                   ParamsTaker::Took* took = nullptr) {
    if (root.self_closing) return fail(root, "empty <methodCall>");
    Token t;
    if (!expect_start(t, "<methodName>", "methodCall")) return false;
    std::string_view name;
    if (!element_text(t, name)) return false;
    if (name.empty()) return fail(t, "empty <methodName>");
    if (name.size() > limits.max_string_size)
      return over_string_limit(t, "methodName", name.size());
    call.method_name.assign(name);
    if (!next_element(t, "methodCall")) return false;
    const bool no_params = t.kind == TokenKind::EndTag;
    if (!no_params && (t.kind != TokenKind::StartTag || !is_literal(t.name, "params")))
      return unexpected(t, "<params>");
    if (taker != nullptr) {
      const ParamsAt at = no_params        ? ParamsAt::None
                          : t.self_closing ? ParamsAt::Empty
                                           : ParamsAt::Inside;
      *took = offer_params(at, call.method_name, *taker);
      if (*took == ParamsTaker::Took::Answered) {
        call.params = Value();  // what the last request's held, released now
        return true;
      }
      if (*took == ParamsTaker::Took::Abandoned) return false;
    }
    if (no_params) {
      call.params = Value::array();
      return end_of_document();
    }
    size_t base = stack.size();
    if (!t.self_closing) {
      for (;;) {
        if (lexer.try_start("<param>")) {
          t.self_closing = false;
        } else if (lexer.try_end()) {
          break;
        } else {
          if (!next_element(t, "params")) return false;
          if (t.kind == TokenKind::EndTag) break;
          if (t.kind != TokenKind::StartTag || !is_literal(t.name, "param"))
            return unexpected(t, "<param>");
        }
        if (!param(t)) return false;
      }
    }
    call.params = Value();  // make_array overwrites: release what a reused call held
    ValueAccess::make_array(call.params, stack.data() + base, stack.size() - base);
    stack.resize(base);
    return expect_end("methodCall") && end_of_document();
  }

  // A call's parameters handed to `taker` through a ParamStream standing `at` them (defined
  // below, after PullReader).
  ParamsTaker::Took offer_params(ParamsAt at, std::string_view method, ParamsTaker& taker);

  // <param> (start tag consumed) <value>...</value> </param>: pushes the value.
  bool param(const Token& start) {
    if (start.self_closing) return fail(start, "<param> without a <value>");
    Token t;
    if (!expect_start(t, "<value>", "param")) return false;
    return value(t) && expect_end("param");
  }

  // With a `sink`, a result goes to it as it is read (pull_result), and response.result is
  // nil; when the sink fails, its error goes in `sink_status` and reading stops there.
  bool method_response(const Token& root, MethodResponse& response, ValueSink* sink = nullptr,
                       Status* sink_status = nullptr) {
    if (root.self_closing) return fail(root, "empty <methodResponse>");
    Token t;
    if (!next_element(t, "methodResponse")) return false;
    if (t.kind == TokenKind::StartTag && is_literal(t.name, "params") && !t.self_closing) {
      if (!expect_start(t, "<param>", "params")) return false;
      if (sink) {
        if (t.self_closing) return fail(t, "<param> without a <value>");
        if (!expect_start(t, "<value>", "param") || !pull_result(t, *sink, *sink_status))
          return false;
        if (!*sink_status) return true;
        if (!expect_end("param")) return false;
      } else if (!param(t)) {
        return false;
      }
      if (!next_element(t, "params")) return false;
      if (t.kind != TokenKind::EndTag)
        return fail(t, "a methodResponse carries exactly one <param>");
      response.is_fault = false;
      if (sink) {
        response.result = Value();
      } else {
        response.result = std::move(stack.back());
        stack.pop_back();
      }
    } else if (t.kind == TokenKind::StartTag && is_literal(t.name, "fault") && !t.self_closing) {
      Token value_start;
      if (!expect_start(value_start, "<value>", "fault") || !value(value_start)) return false;
      if (!expect_end("fault")) return false;
      Value fault = std::move(stack.back());
      stack.pop_back();
      if (!read_fault(value_start, fault, response.fault)) return false;
      response.is_fault = true;
    } else {
      if (t.kind == TokenKind::StartTag && is_literal(t.name, "params"))
        return fail(t, "a methodResponse carries exactly one <param>");
      return unexpected(t, "<params> or <fault>");
    }
    return expect_end("methodResponse") && end_of_document();
  }

  // The result value whose <value> start tag is `start`, handed to `sink` (defined below,
  // after PullReader). False for a document error; the sink's own error goes in `status`.
  bool pull_result(const Token& start, ValueSink& sink, Status& status);

  bool read_fault(const Token& at, const Value& v, Fault& out) {
    if (!v.is_struct()) return fail(at, "a fault must be a struct");
    const Value* code = v.find("faultCode");
    const Value* string = v.find("faultString");
    // rtorrent sends faultCode as <i8>; Apache adds faultCause, which is ignored.
    if (!code || !code->is_integer()) return fail(at, "a fault needs an integer faultCode");
    int64_t c = code->as_i8();
    if (c < INT32_MIN || c > INT32_MAX) return fail(at, "faultCode out of the int range");
    if (!string || !string->is_string()) return fail(at, "a fault needs a string faultString");
    out.code = int32_t(c);
    out.string.assign(string->as_string());
    return true;
  }

  // ---- values ----

  // What follows a <value> start tag: the start tag of its type element, or, for an untyped
  // value, its text with </value> already consumed (t.kind is then EndTag).
  struct ValueHead {
    Token t;
    Kind kind = Kind::Unknown;
    std::string_view text;
  };

  // Reads a value whose <value> start tag is `start`; pushes it on `stack`.
  bool value(const Token& start) {
    if (start.self_closing) {
      stack.emplace_back(std::string_view());
      return true;
    }
    if (OnePass one = plain_scalar_onto_stack(); one != OnePass::No) return one == OnePass::Read;
    ValueHead head;
    return value_head(head) && value_from(head.t, head.kind, head.text);
  }

  bool value_head(ValueHead& h) { return value_head(h.t, h.kind, h.text); }

  // The start tag `<name>` of an element whose text the lexer read in one pass, for messages.
  Token start_tag_before(std::string_view text, std::string_view name) const {
    Token t;
    t.kind = TokenKind::StartTag;
    t.name = name;
    t.offset = lexer.offset_of(text.data()) - (name.size() + 2);
    return t;
  }

  // Just after a <value> start tag: the usual scalars, <string>, <int>, <i4> and <double> of
  // text that needs no decoding, each read in one pass with its </value>, handed to `put` with
  // the general path's checks and messages. No: the value is none of those, nothing was read.
  template <class Put>
  [[gnu::always_inline]] OnePass plain_scalar(Put put) {
    std::string_view text, name;
    Kind kind = Kind::Int;
    if (lexer.try_text_element("<string>", text)) {
      name = "string";
      kind = Kind::String;
    } else if (lexer.try_text_element("<int>", text)) {
      name = "int";
    } else if (lexer.try_text_element("<double>", text)) {
      name = "double";
      kind = Kind::Double;
    } else if (lexer.try_text_element("<i4>", text)) {
      name = "i4";
    } else {
      return OnePass::No;
    }
    if (!scalar_from_text(start_tag_before(text, name), kind, text, put) || !expect_end("value"))
      return OnePass::Failed;
    return OnePass::Read;
  }
  // plain_scalar onto `stack` (kBuild), or only read and checked.
  template <bool kBuild = true>
  OnePass plain_scalar_onto_stack() {
    if constexpr (kBuild)
      return plain_scalar(
          [this](auto&&... v) { stack.emplace_back(std::forward<decltype(v)>(v)...); });
    else
      return plain_scalar([](auto&&...) {});
  }

  // Just after a <value> start tag: reads the head of the value: the type element's start
  // tag `t` and its `kind`, or, for an untyped value, its `text` with </value> consumed
  // (t.kind is then EndTag). Inlined into the value loop with the head in locals, as it was
  // written before the pull path shared it: a call or a struct per value costs the tree path.
  [[gnu::always_inline]] bool value_head(Token& t, Kind& kind, std::string_view& text) {
    kind = Kind::Unknown;
    text = {};
    lexer.skip_space_before_element();        // indented documents
    if (fast_type_tag(t, kind)) return true;  // the usual case: a type tag written plainly
    if (lexer.try_start_any(t)) {
      kind = classify(t.name, used_prefixed_types);
      return true;
    }
    size_t text_offset = lexer.offset_of(lexer.position());
    bool have_text = !lexer.at_markup() && lexer.try_plain_text(text);
    if (have_text && lexer.try_end()) {  // the fast path for <value>text</value>
      t.kind = TokenKind::EndTag;
      t.offset = text_offset;
    } else if (!lexer.next(t)) {
      return false;
    }
    if (!have_text && t.kind == TokenKind::Text) {  // decoded text, or white space
      text = t.text;
      text_offset = t.offset;
      if (!lexer.next(t)) return false;
    }
    if (t.kind == TokenKind::StartTag && !all_space(text)) {
      Token at;
      at.offset = text_offset;
      return fail(at, "text '" + snippet(text) + "' beside an element in <value>");
    }
    if (t.kind == TokenKind::StartTag) kind = classify(t.name, used_prefixed_types);
    return true;
  }

  // Reads the rest of the value whose head value_head read; pushes it on `stack`. Iterative:
  // arrays and structs push a frame and continue with their first child. `depth_offset`: the
  // containers the value is already inside, for the depth limit. Without kBuild the value is
  // read with every check and message, and nothing is built (what a typed read leaves).
  template <bool kBuild = true>
  bool value_from(Token t, Kind kind, std::string_view text, size_t depth_offset = 0) {
    const size_t frame_base = frames.size();
    for (;;) {
      if (t.kind == TokenKind::EndTag) {  // <value>text</value>: an untyped string
        if (text.size() > limits.max_string_size)
          return over_string_limit(t, "a string", text.size());
        if constexpr (kBuild) stack.emplace_back(text);
      } else {
        if (kind == Kind::Array || kind == Kind::Struct) {
          if (frames.size() - frame_base + depth_offset >= limits.max_depth)
            return limit(
                t, "nesting depth exceeds max_depth (" + std::to_string(limits.max_depth) + ")");
          if (!container_start<kBuild>(t, kind)) return false;
        } else {
          if (!scalar<kBuild>(t, kind) || !expect_end("value")) return false;
        }
      }
      // A value is complete, or a container has opened: close containers as far as they end,
      // or go on with the next child (the usual scalars in one pass, the rest by their head).
      for (;;) {
        if (!container_next<kBuild>(frame_base, t)) return false;
        if (frames.size() == frame_base) return true;
        OnePass one = plain_scalar_onto_stack<kBuild>();
        if (one == OnePass::Failed) return false;
        if (one == OnePass::No) break;
      }
      if (!value_head(t, kind, text)) return false;
    }
  }

  // The common type tags, recognised by their bytes without scanning a name. Inlined (with
  // `take`) into value_head: once per value.
  [[gnu::always_inline]] bool fast_type_tag(Token& t, Kind& kind) {
    const unsigned char* p = lexer.position();
    if (!lexer.at_markup() || lexer.bytes_after(p) < 2) return false;
    auto take = [&](const auto& tag, Kind k) __attribute__((always_inline)) {
      if (!lexer.try_start_here(tag)) return false;
      kind = k;
      t.name = std::string_view(tag + 1, sizeof tag - 3);
      return true;
    };
    bool found = false;
    switch (p[1]) {
      case 's':
        found = take("<string>", Kind::String) || take("<struct>", Kind::Struct);
        break;
      case 'i':
        found = take("<int>", Kind::Int) || take("<i4>", Kind::Int) || take("<i8>", Kind::I8);
        break;
      case 'd':
        found = take("<double>", Kind::Double) || take("<dateTime.iso8601>", Kind::DateTime);
        break;
      case 'a':
        found = take("<array>", Kind::Array);
        break;
      case 'b':
        found = take("<boolean>", Kind::Boolean) || take("<base64>", Kind::Base64);
        break;
      default:
        break;
    }
    if (!found) return false;
    t.kind = TokenKind::StartTag;
    t.self_closing = false;
    t.offset = lexer.offset_of(p);
    return true;
  }

  // After <array> or <struct>: an empty one is finished here (pushed, </value> consumed);
  // otherwise a frame is pushed for its children.
  template <bool kBuild = true>
  bool container_start(const Token& start, Kind kind) {
    auto push_empty = [&]() {
      if constexpr (kBuild) {
        Value v;
        if (kind == Kind::Array)
          ValueAccess::make_array(v, nullptr, 0);
        else
          ValueAccess::make_struct(v, nullptr, 0);
        stack.push_back(std::move(v));
      }
      return expect_end("value");
    };
    if (start.self_closing) return push_empty();
    if (kind == Kind::Struct) {
      frames.push_back({true, false, uint32_t(stack.size())});
      return true;
    }
    if (lexer.try_start("<data>")) {  // the usual case
      frames.push_back({false, false, uint32_t(stack.size())});
      return true;
    }
    Token t;
    if (!next_element(t, "array")) return false;
    if (t.kind == TokenKind::EndTag) return push_empty();  // <array></array>
    if (t.kind != TokenKind::StartTag || !is_literal(t.name, "data"))
      return unexpected(t, "<data>");
    if (t.self_closing) return expect_end("array") && push_empty();
    frames.push_back({false, false, uint32_t(stack.size())});
    return true;
  }

  // With the innermost frame's last child complete (or none yet): consumes closing tags of
  // finished containers until a new child <value> starts (left in `t`, frames above
  // frame_base) or the outermost container is done (frames back at frame_base).
  template <bool kBuild = true>
  bool container_next(size_t frame_base, Token& t) {
    while (frames.size() > frame_base) {
      Frame& f = frames.back();
      if (!f.is_struct) {
        if (lexer.try_start("<value>")) return true;
        if (!lexer.try_end()) {
          if (!next_element(t, "data")) return false;
          if (t.kind == TokenKind::StartTag && is_literal(t.name, "value")) {
            if (!t.self_closing) return true;
            if constexpr (kBuild) stack.emplace_back(std::string_view());
            continue;
          }
          if (t.kind != TokenKind::EndTag) return unexpected(t, "<value> or </data>");
        }
        // </data> is consumed.
        if (!expect_end("array")) return false;
        close_container<kBuild>(f);
        if (!expect_end("value")) return false;
        continue;
      }
      std::string_view name;
      if (OnePass head = fast_member_head(f.in_member, name); head != OnePass::No) {
        if (head == OnePass::Failed) return false;
        if constexpr (kBuild) stack.emplace_back(name);
        f.in_member = true;
        return true;
      }
      if (f.in_member) {
        if (!expect_end("member")) return false;
        f.in_member = false;
      }
      bool member = lexer.try_start("<member>");
      if (!member && !lexer.try_end()) {
        if (!next_element(t, "struct")) return false;
        if (t.kind == TokenKind::StartTag && is_literal(t.name, "member")) {
          if (t.self_closing) return fail(t, "empty <member>");
          member = true;
        } else if (t.kind != TokenKind::EndTag) {
          return unexpected(t, "<member> or </struct>");
        }
      }
      if (!member) {  // </struct> is consumed
        close_container<kBuild>(f);
        if (!expect_end("value")) return false;
        continue;
      }
      if (!member_name(name)) return false;
      if constexpr (kBuild) stack.emplace_back(name);
      f.in_member = true;
      if (!expect_start(t, "<value>", "member")) return false;
      if (!t.self_closing) return true;
      if constexpr (kBuild) stack.emplace_back(std::string_view());
    }
    return true;
  }

  // Moves the innermost frame's children into one array or struct value.
  template <bool kBuild = true>
  [[gnu::always_inline]] void close_container(const Frame& f) {
    if constexpr (kBuild) {
      size_t count = stack.size() - f.base;
      Value v;
      if (f.is_struct)
        ValueAccess::make_struct(v, stack.data() + f.base, count / 2);
      else
        ValueAccess::make_array(v, stack.data() + f.base, count);
      stack.resize(f.base);
      stack.push_back(std::move(v));
    }
    frames.pop_back();
  }

  // A scalar element (start tag `t`): converts its text and pushes the value (kBuild), or only
  // checks it.
  template <bool kBuild = true>
  bool scalar(const Token& t, Kind kind) {
    if (kind == Kind::Base64) {
      if constexpr (kBuild)
        return base64_value(t);
      else
        return base64_skipped(t);
    }
    if constexpr (kBuild)
      return scalar_into(
          t, kind, [this](auto&&... v) { stack.emplace_back(std::forward<decltype(v)>(v)...); });
    else
      return scalar_into(t, kind, [](auto&&...) {});
  }
  // A scalar other than base64: its text read and checked, and the Value's constructor
  // arguments handed to `put` (onto the stack, or straight into a typed read's Value).
  template <class Put>
  [[gnu::always_inline]] bool scalar_into(const Token& t, Kind kind, Put put) {
    if (kind == Kind::Serializable)
      return fail(t, "<" + std::string(t.name) +
                         "> is refused: Java deserialization is unsafe (CVE-2016-5003)");
    if (kind == Kind::Unknown || kind == Kind::Array || kind == Kind::Struct ||
        kind == Kind::Base64)
      return fail(t, "unknown type <" + std::string(t.name) + ">");
    std::string_view raw;
    if (!element_text(t, raw)) return false;
    return scalar_from_text(t, kind, raw, put);
  }
  // The same once the element's text `raw` is read (its end tag too).
  template <class Put>
  [[gnu::always_inline]] bool scalar_from_text(const Token& t, Kind kind, std::string_view raw,
                                               Put put) {
    std::string_view text = scalar::trim(raw);
    auto invalid = [&](const char* what) {
      return fail(t, std::string("invalid ") + what + " <" + std::string(t.name) + ">" +
                         snippet(raw) + "</" + std::string(t.name) + ">");
    };
    int64_t n;
    switch (kind) {
      case Kind::String:
        if (raw.size() > limits.max_string_size)
          return over_string_limit(t, "a string", raw.size());
        put(raw);
        return true;
      case Kind::Int:
        if (!scalar::parse_integer(text, INT32_MIN, INT32_MAX, n)) return invalid("32-bit integer");
        put(int32_t(n));
        return true;
      case Kind::I1:
        if (!scalar::parse_integer(text, INT8_MIN, INT8_MAX, n)) return invalid("8-bit integer");
        put(int32_t(n));
        return true;
      case Kind::I2:
        if (!scalar::parse_integer(text, INT16_MIN, INT16_MAX, n)) return invalid("16-bit integer");
        put(int32_t(n));
        return true;
      case Kind::I8:
      case Kind::BigInteger:
        if (!scalar::parse_integer(text, INT64_MIN, INT64_MAX, n)) return invalid("64-bit integer");
        put(Value::i8(n));
        return true;
      case Kind::Boolean:
        if (text != "0" && text != "1") return invalid("boolean (0 or 1)");
        put(text == "1");
        return true;
      case Kind::Double:
      case Kind::BigDecimal: {
        double d;
        if (!scalar::parse_double(text, d)) return invalid("double");
        put(d);
        return true;
      }
      case Kind::DateTime: {
        Result<DateTime> dt = DateTime::parse(text);
        if (!dt) return fail(t, dt.error().message);
        put(*dt);
        return true;
      }
      case Kind::Nil:
        if (!text.empty()) return fail(t, "<nil/> must be empty");
        put();
        return true;
      case Kind::Serializable:
      case Kind::Base64:
      case Kind::Array:
      case Kind::Struct:
      case Kind::Unknown:
        break;
    }
    return false;  // not reached: refused above
  }

  // Blobs are the bulk of large documents: their text is found with one memchr and checked by
  // the decoder alone, which accepts only the alphabet, '=' and white space (all valid XML,
  // none needing decoding, CR ignored as the XML rule CR LF -> LF would leave LF). Anything
  // else (a reference, CDATA, a comment, a bad character, a size over the limit, a wrong end
  // tag) goes back to the checked path, which reads it or reports it as before.
  //
  // `decode(text, error_at)` decodes into wherever the bytes go (a Value, a caller's vector):
  // their count, or -1 with `error_at` set.
  template <class Decode>
  bool base64_unchecked(Decode&& decode) {
    const unsigned char* start = lexer.position();
    // Text decoded ahead is base64 characters only: no `<` to look for in it.
    size_t plain = 0;
    if (ahead && reinterpret_cast<const unsigned char*>(ahead->text) == start)
      plain = ahead->text_length;
    std::string_view text;
    if (!lexer.try_unchecked_text(text, plain)) return false;
    if (!base64_too_long(text.size())) {
      size_t error_at = 0;
      long n = decode(text, error_at);
      if (n >= 0 && size_t(n) <= limits.max_string_size && lexer.try_end()) return true;
    }
    lexer.rewind(start);
    return false;
  }

  template <class Decode>
  bool base64_checked(const Token& t, std::string_view text, Decode&& decode) {
    if (base64_too_long(text.size()))
      return over_string_limit(t, "base64 text", text.size() / 4 * 3);
    size_t error_at = 0;
    long n = decode(text, error_at);
    if (n < 0) {
      Token at = t;
      return fail(at, error_at < text.size()
                          ? "invalid base64: unexpected character '" +
                                snippet(text.substr(error_at, 1)) + "' at offset " +
                                std::to_string(error_at) + " of <base64>"
                          : std::string("invalid base64: the text ends mid-quantum"));
    }
    if (size_t(n) > limits.max_string_size) return over_string_limit(t, "base64", size_t(n));
    return true;
  }

  // The bytes of the <base64> element whose start tag is `t`, through `decode`.
  template <class Decode>
  bool base64_element(const Token& t, Decode&& decode) {
    if (!t.self_closing && base64_unchecked(decode)) return true;
    std::string_view raw;
    return element_text(t, raw) && base64_checked(t, raw, decode);
  }

  bool base64_value(const Token& t) {
    Value v;
    auto into_value = [&v](std::string_view text, size_t& error_at) {
      v = Value();  // make_text does not release what a first, failed try made
      char* out = ValueAccess::make_text(v, Type::Bytes, base64::max_decoded_size(text.size()));
      long n = base64::decode(text, reinterpret_cast<unsigned char*>(out), error_at);
      if (n >= 0) ValueAccess::shrink_text(v, size_t(n));
      return n;
    };
    if (!base64_element(t, into_value)) return false;
    stack.push_back(std::move(v));
    return true;
  }

  // A <base64> nobody reads: decoded with every check, its bytes kept nowhere (a skipped
  // 16 MiB blob costs no 12 MiB).
  bool base64_skipped(const Token& t) {
    return base64_element(
        t, [](std::string_view text, size_t& error_at) { return base64::check(text, error_at); });
  }

  // Base64 text that cannot decode to max_string_size bytes or fewer (even with white space).
  bool base64_too_long(size_t n) const {
    return n > limits.max_string_size + limits.max_string_size / 3 + 4;
  }
};

// ---- reading a result without a tree ----

namespace {

// The type a value of each Kind reads as (PullReader::peek); kRefused for those refused.
constexpr uint8_t kRefused = 0xFF;
constexpr uint8_t type_for(Kind kind) {
  switch (kind) {
    case Kind::Int:
    case Kind::I1:
    case Kind::I2:
      return uint8_t(Type::Int);
    case Kind::I8:
    case Kind::BigInteger:
      return uint8_t(Type::I8);
    case Kind::Boolean:
      return uint8_t(Type::Boolean);
    case Kind::Double:
    case Kind::BigDecimal:
      return uint8_t(Type::Double);
    case Kind::String:
      return uint8_t(Type::String);
    case Kind::DateTime:
      return uint8_t(Type::DateTime);
    case Kind::Base64:
      return uint8_t(Type::Bytes);
    case Kind::Nil:
      return uint8_t(Type::Nil);
    case Kind::Array:
      return uint8_t(Type::Array);
    case Kind::Struct:
      return uint8_t(Type::Struct);
    case Kind::Serializable:
    case Kind::Unknown:
      break;
  }
  return kRefused;
}
// type_for by Kind, worked out at compile time: a typed read asks for every value's type.
constexpr auto kTypeOfKind = [] {
  std::array<uint8_t, size_t(Kind::Unknown) + 1> table{};
  for (size_t k = 0; k < table.size(); ++k) table[k] = type_for(Kind(k));
  return table;
}();

// A ValueReader over the document ReaderImpl is reading, standing just after a <value> start
// tag: each call reads on as far as it must, with the same checks and messages as the tree
// path (ReaderImpl::value). Once the lexer has failed, every call returns its error.
class PullReader final : public ValueReader {
 public:
  // `empty`: the <value/> start tag was self-closing (an empty string).
  PullReader(ReaderImpl& r, bool empty) : r_(r), at_(At::Value), empty_(empty) {}

  bool broken() const noexcept { return broken_; }

  Result<Type> peek() override {
    Type type;
    if (!head_type(type)) return failure().error();
    return type;
  }

  Status read(Value& out) override {
    if (Status done; plain_scalar(out, done)) return done;
    if (!head()) return failure();
    // A typed scalar straight into `out` (numbers, mostly: typed reads take them this way),
    // with the tree path's checks; the rest through the tree path.
    if (head_.t.kind != TokenKind::EndTag && head_.kind != Kind::Array &&
        head_.kind != Kind::Struct && head_.kind != Kind::Base64) {
      auto into_out = [&out](auto&&... v) { out = Value(std::forward<decltype(v)>(v)...); };
      if (!r_.scalar_into(head_.t, head_.kind, into_out) || !r_.expect_end("value")) return stop();
      at_ = At::Nothing;
      return {};
    }
    if (!r_.value_from(head_.t, head_.kind, head_.text, frames_.size())) return stop();
    out = std::move(r_.stack.back());
    r_.stack.pop_back();
    at_ = At::Nothing;
    return {};
  }

  Status read_string(std::string& out) override {
    if (std::string_view text; untouched() && r_.lexer.try_text_element("<string>", text)) {
      // The usual string, <string>text</string>, read in one pass.
      if (text.size() > r_.limits.max_string_size) {
        r_.over_string_limit(r_.start_tag_before(text, "string"), "a string", text.size());
        return stop();
      }
      assign_text(out, text);
      return end_of_value(true);
    }
    Type type;
    if (!head_type(type)) return failure();
    if (type != Type::String) return misuse("read_string() needs a string", type);
    std::string_view text = head_.text;
    if (head_.t.kind != TokenKind::EndTag && !r_.element_text(head_.t, text)) return stop();
    if (text.size() > r_.limits.max_string_size) {
      r_.over_string_limit(head_.t, "a string", text.size());
      return stop();
    }
    assign_text(out, text);
    return end_of_value(head_.t.kind != TokenKind::EndTag);
  }

  Status read_bytes(std::vector<uint8_t>& out) override {
    Type type;
    if (!head_type(type)) return failure();
    if (type != Type::Bytes) return misuse("read_bytes() needs base64", type);
    // resize zeroes what the decoder then overwrites: one memset pass, where a Value would
    // cost a second block and a copy.
    auto into_vector = [this, &out](std::string_view text, size_t& error_at) -> long {
      // The text's start decoded while the answer arrived: those bytes are taken as they
      // are (a retry of this read finds them at the front of `out` still).
      size_t done = 0;
      if (DecodedAhead* a = r_.ahead;
          a && a->text == text.data() && a->text_length <= text.size()) {
        if (!a->taken) out.swap(a->bytes);
        a->taken = true;
        done = a->text_length;
      }
      const size_t have = done / 4 * 3;
      out.resize(have + base64::max_decoded_size(text.size() - done));
      long n = base64::decode(text.substr(done), out.data() + have, error_at);
      if (n < 0) {
        error_at += done;
        return n;
      }
      out.resize(have + size_t(n));
      return long(have) + n;
    };
    if (!r_.base64_element(head_.t, into_vector)) return stop();
    return end_of_value(true);
  }

  Status enter_array() override {
    Type type;
    if (!head_type(type)) return failure();
    if (type != Type::Array) return misuse("enter_array() needs an array", type);
    if (!deeper()) return stop();
    at_ = At::Nothing;
    const Token& start = head_.t;
    bool empty = start.self_closing;
    if (!empty && !r_.lexer.try_start("<data>")) {  // <data> is the usual case
      Token t;
      if (!r_.next_element(t, "array")) return stop();
      if (t.kind == TokenKind::EndTag) {  // <array></array>
        empty = true;
      } else if (t.kind != TokenKind::StartTag || !is_literal(t.name, "data")) {
        r_.unexpected(t, "<data>");
        return stop();
      } else if (t.self_closing) {  // <data/>
        if (!r_.expect_end("array")) return stop();
        empty = true;
      }
    }
    if (empty && !r_.expect_end("value")) return stop();
    frames_.push_back({false, empty, false});
    return {};
  }

  Result<bool> next_element() override {
    if (broken_) return failure().error();
    if (frames_.empty() || frames_.back().is_struct)
      return Error(Errc::InvalidArgument, "next_element() outside an array");
    if (Status skipped = skip_unread(); !skipped) return skipped.error();
    return next_in_array();
  }

  // The array's next element or its end, nothing of the element before left unread.
  Result<bool> next_in_array() {
    Frame& f = frames_.back();
    if (!f.ended) {
      if (r_.lexer.try_start("<value>")) return element(false);
      if (!r_.lexer.try_end_literal("data") && !r_.lexer.try_end()) {
        Token t;
        if (!r_.next_element(t, "data")) return stop().error();
        if (t.kind == TokenKind::StartTag && is_literal(t.name, "value"))
          return element(t.self_closing);
        if (t.kind != TokenKind::EndTag) {
          r_.unexpected(t, "<value> or </data>");
          return stop().error();
        }
      }
      // </data> is consumed.
      if (!r_.expect_end("array") || !r_.expect_end("value")) return stop().error();
    }
    frames_.pop_back();
    return false;
  }

  // The usual element, <value><string>text</string></value>, read in one pass each; the
  // texts (plain, so in the document) gathered first so `out` grows once.
  Result<bool> read_string_elements(std::vector<std::string>& out) override {
    if (broken_) return failure().error();
    if (frames_.empty() || frames_.back().is_struct)
      return Error(Errc::InvalidArgument, "read_string_elements() outside an array");
    if (Status skipped = skip_unread(); !skipped) return skipped.error();
    TextBatch texts(out);
    bool stopped_at_element = false;
    if (!frames_.back().ended) {
      while (r_.lexer.try_start("<value>")) {
        std::string_view text;
        if (!r_.lexer.try_text_element("<string>", text)) {
          (void)element(false);  // some other value, left for the caller
          stopped_at_element = true;
          break;
        }
        if (text.size() > r_.limits.max_string_size) {
          r_.over_string_limit(r_.start_tag_before(text, "string"), "a string", text.size());
          return stop().error();
        }
        texts.add(text);
        if (!r_.expect_end("value")) return stop().error();
      }
    }
    texts.flush();
    if (stopped_at_element) return false;
    // The step past what stopped the run (the usual </data>), in place: no virtual call.
    Result<bool> more = next_in_array();
    if (!more) return more;
    return !*more;
  }

  Status enter_struct() override {
    Type type;
    if (!head_type(type)) return failure();
    if (type != Type::Struct) return misuse("enter_struct() needs a struct", type);
    if (!deeper()) return stop();
    at_ = At::Nothing;
    bool empty = head_.t.self_closing;
    if (empty && !r_.expect_end("value")) return stop();
    frames_.push_back({true, empty, false});
    return {};
  }

  Result<bool> next_member(std::string_view& name) override {
    if (broken_) return failure().error();
    if (frames_.empty() || !frames_.back().is_struct)
      return Error(Errc::InvalidArgument, "next_member() outside a struct");
    if (Status skipped = skip_unread(); !skipped) return skipped.error();
    Frame& f = frames_.back();
    if (!f.ended) {
      if (auto head = r_.fast_member_head(f.in_member, name); head != ReaderImpl::OnePass::No) {
        if (head == ReaderImpl::OnePass::Failed) return stop().error();
        f.in_member = true;
        at_ = At::Value;
        empty_ = false;
        return true;
      }
      if (f.in_member) {
        if (!r_.expect_end("member")) return stop().error();
        f.in_member = false;
      }
      bool member = r_.lexer.try_start("<member>");
      if (!member && !r_.lexer.try_end_literal("struct") && !r_.lexer.try_end()) {
        Token t;
        if (!r_.next_element(t, "struct")) return stop().error();
        if (t.kind == TokenKind::StartTag && is_literal(t.name, "member")) {
          if (t.self_closing) {
            r_.fail(t, "empty <member>");
            return stop().error();
          }
          member = true;
        } else if (t.kind != TokenKind::EndTag) {
          r_.unexpected(t, "<member> or </struct>");
          return stop().error();
        }
      }
      if (member) {
        Token t;
        if (!r_.member_name(name) || !r_.expect_start(t, "<value>", "member"))
          return stop().error();
        f.in_member = true;
        at_ = At::Value;
        empty_ = t.self_closing;
        return true;
      }
      // </struct> is consumed.
      if (!r_.expect_end("value")) return stop().error();
    }
    frames_.pop_back();
    return false;
  }

  // After the sink: skips whatever it left unread, so the document reads on to its end.
  Status finish() {
    for (;;) {
      if (broken_) return failure();
      if (Status skipped = skip_unread(); !skipped) return skipped;
      if (frames_.empty()) return {};
      std::string_view name;
      Result<bool> more = frames_.back().is_struct ? next_member(name) : next_element();
      if (!more) return more.error();
    }
  }

 private:
  enum class At : uint8_t {
    Nothing,  // no value is before the reader (read, or inside a container before next_*)
    Value,    // just after a <value> start tag
    Head,     // its head read into head_
  };
  struct Frame {
    bool is_struct;
    bool ended;      // empty, or its end already consumed
    bool in_member;  // struct: a member's value is before or behind the reader; </member> due
  };

  // Whether the reader stands just after a <value> start tag with nothing of the value read:
  // where the one-pass reads of the usual scalars may try.
  bool untouched() const { return at_ == At::Value && !empty_ && !broken_; }
  // The usual scalars read in one pass into `out` (ReaderImpl::plain_scalar): true when the
  // value was one (`status` says how it went), false with nothing read otherwise.
  bool plain_scalar(Value& out, Status& status) {
    return one_pass([&out](auto&&... v) { out = Value(std::forward<decltype(v)>(v)...); }, status);
  }
  // plain_scalar, the value handed to `put` (a Value's constructor arguments).
  template <class Put>
  bool one_pass(Put put, Status& status) {
    if (!untouched()) return false;
    switch (r_.plain_scalar(put)) {
      case ReaderImpl::OnePass::No:
        return false;
      case ReaderImpl::OnePass::Read:
        at_ = At::Nothing;
        status = Status();
        return true;
      case ReaderImpl::OnePass::Failed:
        break;
    }
    status = stop();
    return true;
  }

  // The type of the value before the reader (its head read, once): false when there is none,
  // the document failed, or its type element is refused (reported with the tree path's
  // message).
  bool head_type(Type& type) {
    if (!head()) return false;
    if (head_.t.kind == TokenKind::EndTag) {  // an untyped <value>text</value>
      type = Type::String;
      return true;
    }
    const uint8_t t = kTypeOfKind[static_cast<size_t>(head_.kind)];
    if (t == kRefused) {
      r_.scalar(head_.t, head_.kind);  // refuses it with the tree path's message
      broken_ = true;
      return false;
    }
    type = static_cast<Type>(t);
    return true;
  }
  // Reads the head of the value before the reader, once.
  bool head() {
    if (broken_ || at_ == At::Nothing) return false;
    if (at_ == At::Head) return true;
    if (empty_) {
      head_.t = Token();
      head_.t.kind = TokenKind::EndTag;  // as an untyped empty text whose </value> is read
      head_.kind = Kind::Unknown;
      head_.text = {};
    } else if (!r_.value_head(head_)) {
      broken_ = true;
      return false;
    }
    at_ = At::Head;
    return true;
  }
  Status failure() const {
    if (broken_) return r_.error();
    return Error(Errc::InvalidArgument, "no value is before the reader");
  }
  // Marks the document failed (the lexer holds where and why) and returns its error.
  Status stop() {
    broken_ = true;
    return r_.error();
  }
  Status misuse(const char* what, Type type) const {
    return Error(Errc::InvalidArgument,
                 std::string(what) + ", the value is " + callwire::type_name(type));
  }
  // After a scalar's end tag (`typed`: there was a type element): </value>.
  Status end_of_value(bool typed) {
    at_ = At::Nothing;
    if (typed && !r_.expect_end("value")) return stop();
    return {};
  }
  bool deeper() {
    if (frames_.size() < r_.limits.max_depth) return true;
    r_.limit(head_.t,
             "nesting depth exceeds max_depth (" + std::to_string(r_.limits.max_depth) + ")");
    return false;
  }
  Result<bool> element(bool empty) {
    at_ = At::Value;
    empty_ = empty;
    return true;
  }
  // The value before the reader, left unread: read to its end with every check the tree path
  // makes, and nothing built.
  Status skip_unread() {
    if (at_ == At::Nothing) return {};
    return skip_value();
  }
  // Out of line: the calls that pass through skip_unread() with nothing to skip stay small.
  [[gnu::noinline]] Status skip_value() {
    if (Status status; one_pass([](auto&&...) {}, status)) return status;
    if (!head()) return failure();
    if (!r_.value_from<false>(head_.t, head_.kind, head_.text, frames_.size())) return stop();
    at_ = At::Nothing;
    return {};
  }

  ReaderImpl& r_;
  At at_;
  bool empty_;
  bool broken_ = false;
  ReaderImpl::ValueHead head_;
  std::vector<Frame> frames_;
};

}  // namespace

namespace {

// A call's parameters, each a PullReader over its <value>, for a server's typed handlers.
class XmlParamStream final : public ParamStream {
 public:
  XmlParamStream(ReaderImpl& r, ParamsAt at) : r_(r), at_(at), inside_(at == ParamsAt::Inside) {}

  ValueReader* next() override {
    if (!close_param() || !inside_) return nullptr;
    Token t;
    if (r_.lexer.try_start("<param>")) {  // the usual case
      t.self_closing = false;
    } else if (r_.lexer.try_end()) {
      inside_ = false;
      return nullptr;
    } else {
      if (!r_.next_element(t, "params")) return broke();
      if (t.kind == TokenKind::EndTag) {
        inside_ = false;
        return nullptr;
      }
      if (t.kind != TokenKind::StartTag || !is_literal(t.name, "param")) {
        r_.unexpected(t, "<param>");
        return broke();
      }
    }
    if (t.self_closing) {
      r_.fail(t, "<param> without a <value>");
      return broke();
    }
    Token v;
    if (!r_.expect_start(v, "<value>", "param")) return broke();
    value_.emplace(r_, v.self_closing);
    return &*value_;
  }

  bool failed() const noexcept override { return failed_; }

  bool finish() override {
    if (next() != nullptr || failed_) return false;  // a parameter more than were read
    bool ok = at_ == ParamsAt::None ? r_.end_of_document()
                                    : r_.expect_end("methodCall") && r_.end_of_document();
    failed_ = !ok;
    return ok;
  }

 private:
  ValueReader* broke() {
    failed_ = true;
    return nullptr;
  }
  // The parameter lent last, read to its end (what the handler left), and its </param>.
  bool close_param() {
    if (failed_) return false;
    if (!value_) return true;
    bool ok = value_->finish().ok() && r_.expect_end("param");
    value_.reset();
    failed_ = !ok;
    return ok;
  }

  ReaderImpl& r_;
  ParamsAt at_;
  bool inside_;  // within <params>, before its end tag
  bool failed_ = false;
  std::optional<PullReader> value_;
};

}  // namespace

ParamsTaker::Took ReaderImpl::offer_params(ParamsAt at, std::string_view method,
                                           ParamsTaker& taker) {
  XmlParamStream params(*this, at);
  return taker.take(method, params);
}

bool ReaderImpl::pull_result(const Token& start, ValueSink& sink, Status& status) {
  PullReader pull(*this, start.self_closing);
  status = sink.read(pull);
  if (pull.broken()) return false;  // the document's error, whatever the sink made of it
  if (!status) return true;
  // Skipping what the sink left unread fails only where the document does.
  return pull.finish().ok();
}

// ---- Reader ----

Reader::Reader(ReaderLimits limits) : impl_(std::make_unique<ReaderImpl>(limits)) {}
Reader::~Reader() = default;
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;

const ReaderLimits& Reader::limits() const noexcept { return impl_->limits; }

Result<MethodCall> Reader::read_call(std::string_view document) {
  return impl_->run<MethodCall>(document, [](ReaderImpl& r, const Token& root, MethodCall& call) {
    if (!is_literal(root.name, "methodCall")) return r.unexpected(root, "<methodCall>");
    return r.method_call(root, call);
  });
}

Status Reader::read_call(std::string_view document, MethodCall& call) {
  return impl_->run_into(document, call, [](ReaderImpl& r, const Token& root, MethodCall& c) {
    if (!is_literal(root.name, "methodCall")) return r.unexpected(root, "<methodCall>");
    return r.method_call(root, c);
  });
}

Status ReaderInternals::read_call(Reader& reader, std::string_view document, MethodCall& call,
                                  ParamsTaker& taker, ParamsTaker::Took& took) {
  took = ParamsTaker::Took::Nothing;
  return reader.impl_->run_into(document, call,
                                [&](ReaderImpl& r, const Token& root, MethodCall& c) {
                                  if (!is_literal(root.name, "methodCall"))
                                    return r.unexpected(root, "<methodCall>");
                                  return r.method_call(root, c, &taker, &took);
                                });
}

bool Reader::last_used_prefixed_types() const noexcept { return impl_->used_prefixed_types; }

bool Reader::last_declared_apache_extensions() const noexcept {
  return impl_->lexer.declared_apache_extensions();
}

Result<MethodResponse> Reader::read_response(std::string_view document) {
  return impl_->run<MethodResponse>(document,
                                    [](ReaderImpl& r, const Token& root, MethodResponse& response) {
                                      if (!is_literal(root.name, "methodResponse"))
                                        return r.unexpected(root, "<methodResponse>");
                                      return r.method_response(root, response);
                                    });
}

Status Reader::read_response(std::string_view document, MethodResponse& response, ValueSink& sink,
                             Status& sink_status) {
  sink_status = Status();
  return impl_->run_into(document, response,
                         [&](ReaderImpl& r, const Token& root, MethodResponse& out) {
                           if (!is_literal(root.name, "methodResponse"))
                             return r.unexpected(root, "<methodResponse>");
                           return r.method_response(root, out, &sink, &sink_status);
                         });
}

Status ReaderInternals::read_response(Reader& reader, std::string_view document,
                                      MethodResponse& response, ValueSink& sink,
                                      Status& sink_status, DecodedAhead* ahead,
                                      DocumentSource* source) {
  reader.impl_->ahead = ahead;
  reader.impl_->source = source;
  Status status = reader.read_response(document, response, sink, sink_status);
  reader.impl_->ahead = nullptr;
  reader.impl_->source = nullptr;
  return status;
}

Result<MethodResponse> ReaderInternals::read_response(Reader& reader, std::string_view document,
                                                      DocumentSource* source) {
  reader.impl_->source = source;
  Result<MethodResponse> response = reader.read_response(document);
  reader.impl_->source = nullptr;
  return response;
}

Result<Message> Reader::read(std::string_view document) {
  return impl_->run<Message>(document, [](ReaderImpl& r, const Token& root, Message& message) {
    if (is_literal(root.name, "methodCall")) {
      message.kind = Message::Kind::Call;
      return r.method_call(root, message.call);
    }
    if (is_literal(root.name, "methodResponse")) {
      message.kind = Message::Kind::Response;
      return r.method_response(root, message.response);
    }
    return r.unexpected(root, "<methodCall> or <methodResponse>");
  });
}

}  // namespace callwire::xml
