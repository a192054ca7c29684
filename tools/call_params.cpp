// Command-line parameters in xmlrpc-c's syntax (see call_params.hpp for the grammar and for
// where and why it differs from xmlrpc-c). A recursive descent over the argument: containers
// recurse, bounded by kMaxNesting; scalars are converted by one function shared by the top
// level and the nested values.
#include "call_params.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace callwire::call_params {

namespace {

bool is_delimiter(char c) {
  return c == ',' || c == ':' || c == '(' || c == ')' || c == '{' || c == '}';
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Long arguments are cut in messages; the cut backs off to a UTF-8 character boundary so the
// message stays valid UTF-8 when the argument was.
std::string shorten(std::string_view text) {
  constexpr size_t kMax = 80;
  if (text.size() <= kMax) return std::string(text);
  size_t cut = kMax - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return out;
}

// Decimal integer with an optional sign; false when the text is not one, with `overflow` set
// when it is one but does not fit in T.
template <class T>
bool parse_integer(std::string_view text, T& out, bool& overflow) {
  overflow = false;
  std::string_view digits = text;
  // from_chars takes '-' but not '+'; strtol (what xmlrpc-c uses) takes both.
  size_t sign = !digits.empty() && (digits[0] == '+' || digits[0] == '-') ? 1 : 0;
  if (digits.size() == sign || !is_digit(digits[sign])) return false;
  if (digits[0] == '+') digits.remove_prefix(1);
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, out, 10);
  if (ec == std::errc::result_out_of_range) {
    // from_chars stops at the first non-digit even when out of range: check the rest first so
    // "99999999999x" is "not an integer" rather than "out of range".
    for (const char* p = ptr; p != end; ++p) {
      if (!is_digit(*p)) return false;
    }
    overflow = true;
    return false;
  }
  return ec == std::errc() && ptr == end;
}

// The decimal form XML-RPC's double has, plus an exponent: [sign] (digits [. [digits]] | .
// digits) [(e|E) [sign] digits]. Checked by hand because from_chars also reads "inf", "nan"
// and, in chars_format::general, nothing else we would reject.
bool is_decimal(std::string_view text) {
  size_t i = 0, n = text.size();
  if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < n && is_digit(text[i])) ++i, ++int_digits;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && is_digit(text[i])) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < n && is_digit(text[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Converts a scalar (everything but array/ and struct/, already unescaped) into `out`. Returns
// what is wrong, or nothing.
std::optional<std::string> convert_scalar(std::string_view text, Value& out) {
  auto starts = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  if (text.size() < 2 || text[1] != '/') {
    out = Value(text);  // shortcut syntax: a bare word is a string
    return std::nullopt;
  }
  std::string_view body = text.substr(2);
  if (starts("s/")) {
    out = Value(body);
  } else if (starts("i/") || starts("I/")) {
    bool wide = text[0] == 'I';
    if (body.empty()) return std::string("no number after '") + text[0] + "/'";
    bool overflow;
    if (wide) {
      int64_t n;
      if (!parse_integer(body, n, overflow)) {
        if (overflow) return std::string("out of the 64-bit range of I/");
        return std::string("not an integer");
      }
      out = Value::i8(n);
    } else {
      int32_t n;
      if (!parse_integer(body, n, overflow)) {
        if (overflow) return std::string("out of the 32-bit range of i/ (I/ takes 64 bits)");
        return std::string("not an integer");
      }
      out = Value(n);
    }
  } else if (starts("d/")) {
    if (body.empty()) return std::string("no number after 'd/'");
    if (!is_decimal(body)) {
      std::string word = lowercase(body.substr(body[0] == '+' || body[0] == '-' ? 1 : 0));
      if (word == "inf" || word == "infinity" || word == "nan") {
        return std::string("XML-RPC has no infinity or NaN");
      }
      return std::string("not a decimal number");
    }
    // strtod, not from_chars: libc++ had no from_chars for doubles before LLVM 20. The
    // command never calls setlocale, so its locale is "C" and the point is '.'.
    const std::string digits(body);
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(digits.c_str(), &end);
    if (errno == ERANGE && (d == 0 || std::isinf(d))) {
      return std::string("out of the range of a double");
    }
    if (end != digits.c_str() + digits.size()) return std::string("not a decimal number");
    out = Value(d);
  } else if (starts("b/")) {
    std::string word = lowercase(body);
    if (word == "t" || word == "true" || word == "1") {
      out = Value(true);
    } else if (word == "f" || word == "false" || word == "0") {
      out = Value(false);
    } else {
      return std::string("not a boolean (t, true, 1, f, false or 0)");
    }
  } else if (starts("n/")) {
    if (!body.empty()) return std::string("nothing may follow 'n/'");
    out = Value();
  } else if (starts("h/")) {
    for (size_t i = 0; i < body.size(); ++i) {
      if (hex_value(body[i]) < 0) {
        return "'" + shorten(body.substr(i, 1)) + "' is not a hex digit";
      }
    }
    if (body.size() % 2 != 0) {
      return "an odd number of hex digits (" + std::to_string(body.size()) + ")";
    }
    std::string bytes(body.size() / 2, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = char(hex_value(body[2 * i]) * 16 + hex_value(body[2 * i + 1]));
    }
    out = Value::bytes(bytes.data(), bytes.size());
  } else if (starts("t/")) {
    auto dt = DateTime::parse(body);
    if (!dt) return dt.error().message;
    out = Value(*dt);
  } else {
    out = Value(text);  // "x/..." with an unknown letter: a string, as in xmlrpc-c
  }
  return std::nullopt;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<Value> run() {
    Value out;
    bool ok;
    bool is_array = text_.starts_with("array/");
    if (is_array || text_.starts_with("struct/")) {
      pos_ = is_array ? 6 : 7;
      ok = container(is_array, out, 0, nullptr);
      if (ok && pos_ != text_.size()) {
        ok = fail("unexpected text after the closing '" + std::string(1, text_[pos_ - 1]) + "': '" +
                  shorten(text_.substr(pos_)) + "'");
      }
    } else if (auto problem = convert_scalar(text_, out)) {
      ok = fail(std::move(*problem));  // top-level scalars are verbatim: see the header
    } else {
      ok = true;
    }
    if (!ok) return Error(Errc::InvalidArgument, std::move(error_));
    return out;
  }

 private:
  // A run of text up to the next unescaped delimiter, unescaped, with where it was written.
  struct Token {
    std::string text;
    size_t begin = 0;  // in text_, as written
    size_t end = 0;
    bool last_escaped = false;
    bool empty() const { return begin == end; }
    std::string_view raw(std::string_view all) const { return all.substr(begin, end - begin); }
  };

  bool read_token(Token& token) {
    token.text.clear();
    token.begin = pos_;
    token.last_escaped = false;
    while (pos_ < text_.size() && !is_delimiter(text_[pos_])) {
      if (text_[pos_] == '\\') {
        if (pos_ + 1 == text_.size()) {
          token.end = text_.size();
          return fail_at(token, "nothing after the escape character '\\'");
        }
        token.text += text_[pos_ + 1];
        pos_ += 2;
        token.last_escaped = true;
      } else {
        token.text += text_[pos_++];
        token.last_escaped = false;
      }
    }
    token.end = pos_;
    return true;
  }

  // xmlrpc-c keeps white space next to a delimiter as part of the value; that is almost never
  // what was meant (`array/(i/1, i/2)`), so it must be escaped to count.
  bool check_space(const Token& token) {
    if (token.empty()) return true;
    bool before = is_space(text_[token.begin]);
    bool after = !token.last_escaped && is_space(text_[token.end - 1]);
    if (!before && !after) return true;
    return fail_at(token, std::string("white space at the ") + (before ? "start" : "end") +
                              "; remove it, or escape it as '\\ ' to keep it");
  }

  // One value inside a container, up to (not including) the delimiter after it. `closer` is
  // the container's closing character, for messages.
  bool value(Value& out, size_t depth, char closer) {
    Token token;
    if (!read_token(token)) return false;
    if (token.empty()) {
      if (pos_ == text_.size()) return fail(std::string("missing '") + closer + "'");
      return fail("an empty value at column " + std::to_string(pos_ + 1) +
                  " (write s/ for an empty string)");
    }
    if (!check_space(token)) return false;
    std::string_view text = token.text;
    if (text.starts_with("array/") || text.starts_with("struct/")) {
      // The token ends at the '(' or '{' that opens the container, if anything.
      if (text == "array/" || text == "struct/") {
        return container(text[0] == 'a', out, depth, &token);
      }
      return fail_at(token, std::string("expected '") + (text[0] == 'a' ? '(' : '{') +
                                "' right after '" + (text[0] == 'a' ? "array/" : "struct/") +
                                "' (write s/" + shorten(text) + " for a string)");
    }
    if (auto problem = convert_scalar(text, out)) {
      // A delimiter that cannot end a value here probably cut it short: `t/19980717T14:08:55`
      // inside an array stops at the first ':'.
      if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != closer) {
        char c = text_[pos_];
        *problem += std::string(" (the '") + c + "' at column " + std::to_string(pos_ + 1) +
                    " ends the value; escape it as '\\" + c + "' if it belongs to it)";
      }
      return fail_at(token, std::move(*problem));
    }
    return true;
  }

  // The opening '(' or '{' of a container is due at pos_; `token` is the nested value that
  // named it, or null at the top level. Leaves pos_ after the closing character.
  bool container(bool is_array, Value& out, size_t depth, const Token* token) {
    char opener = is_array ? '(' : '{';
    if (pos_ >= text_.size() || text_[pos_] != opener) {
      std::string problem = std::string("expected '") + opener + "' right after '" +
                            (is_array ? "array/" : "struct/") + "'";
      if (token) return fail_at(*token, std::move(problem));
      return fail(problem + " (write s/" + shorten(text_) + " for a string)");
    }
    if (depth + 1 > kMaxNesting) {
      return fail("arrays and structs nested deeper than " + std::to_string(kMaxNesting) +
                  " levels");
    }
    ++pos_;
    return is_array ? array(out, depth + 1) : structure(out, depth + 1);
  }

  bool array(Value& out, size_t depth) {
    out = Value::array();
    if (pos_ < text_.size() && text_[pos_] == ')') {
      ++pos_;
      return true;
    }
    for (;;) {
      Value item;
      if (!value(item, depth, ')')) return false;
      out.push_back(std::move(item));
      if (pos_ == text_.size()) return fail("missing ')'");
      char c = text_[pos_];
      if (c == ')') {
        ++pos_;
        return true;
      }
      if (c != ',') return unexpected(", or )");
      ++pos_;
    }
  }

  bool structure(Value& out, size_t depth) {
    out = Value::structure();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    for (;;) {
      Token key;
      if (!read_token(key)) return false;
      if (!check_space(key)) return false;
      if (pos_ == text_.size()) {
        if (key.empty()) return fail("missing '}'");
        return fail("missing ':' after the key '" + shorten(key.raw(text_)) + "'");
      }
      if (text_[pos_] != ':') {
        if (key.empty() && (text_[pos_] == ',' || text_[pos_] == '}')) {
          return fail("an empty member at column " + std::to_string(pos_ + 1));
        }
        if (key.empty()) return unexpected("a key");
        return fail("expected ':' after the key '" + shorten(key.raw(text_)) + "' at column " +
                    std::to_string(pos_ + 1) + ", found '" + text_[pos_] + "'");
      }
      ++pos_;
      Value member;
      if (!value(member, depth, '}')) return false;
      // A repeated key: the last value wins, as in xmlrpc-c (xmlrpc_struct_set_value).
      out.set(key.text, std::move(member));
      if (pos_ == text_.size()) return fail("missing '}'");
      char c = text_[pos_];
      if (c == '}') {
        ++pos_;
        return true;
      }
      if (c != ',') return unexpected(", or }");
      ++pos_;
    }
  }

  // Something other than `wanted` at pos_.
  bool unexpected(std::string_view wanted) {
    char c = text_[pos_];
    std::string where = " at column " + std::to_string(pos_ + 1);
    if (is_delimiter(c)) {
      return fail(std::string("unexpected '") + c + "'" + where + " where " + std::string(wanted) +
                  " should be; escape it as '\\" + c + "' if it belongs to a value");
    }
    // Only after a nested container's closing character: text glued to it.
    return fail("unexpected text" + where + " after '" + text_[pos_ - 1] + "': '" +
                shorten(text_.substr(pos_)) + "'");
  }

  bool fail(std::string problem) {
    error_ = shorten(text_) + ": " + problem;
    return false;
  }
  bool fail_at(const Token& token, std::string problem) {
    std::string quoted = "'";  // built by appending: `"'" + ...` set off GCC 12's -Wrestrict
    quoted += shorten(token.raw(text_));
    quoted += "': ";
    quoted += problem;
    return fail(std::move(quoted));
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

Result<Value> parse_param(std::string_view text) { return Parser(text).run(); }

Result<std::vector<Value>> parse_params(std::span<const std::string> args) {
  std::vector<Value> out;
  out.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    auto value = parse_param(args[i]);
    if (!value) {
      return Error(Errc::InvalidArgument,
                   "parameter " + std::to_string(i + 1) + ": " + value.error().message);
    }
    out.push_back(std::move(*value));
  }
  return out;
}

std::string number_as_string_note(std::span<const std::string> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    // A bare word that d/ would read: the number the caller most likely meant.
    if (word.empty() || !parse_param("d/" + word)) continue;
    const bool integral = word.find_first_of(".eE") == std::string::npos;
    return "parameter " + std::to_string(i + 1) + ", " + word + ", is sent as the string \"" +
           word + "\" (write " + (integral ? "i/" : "d/") + word + " for " +
           (integral ? "an int" : "a double") + ", s/" + word + " to keep the string " +
           "and this note quiet)";
  }
  return {};
}

}  // namespace callwire::call_params
