#include "xml/lexer.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "xml/scan.hpp"
#include "xml/xml_chars.hpp"

namespace callwire::xml {

namespace {

using uchar = unsigned char;

std::string describe_byte(uchar c) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string s = "0x";
  s += kHex[c >> 4];
  s += kHex[c & 15];
  return s;
}

std::string describe_cp(uint32_t cp) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string s = "U+";
  int digits = cp > 0xFFFF ? 6 : 4;
  for (int i = digits - 1; i >= 0; --i) s += kHex[(cp >> (4 * i)) & 15];
  return s;
}

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = char(x - 32);
    if (y >= 'a' && y <= 'z') y = char(y - 32);
    if (x != y) return false;
  }
  return true;
}

}  // namespace

bool Lexer::fail(Errc code, size_t offset, std::string message) {
  if (error_code_ == Errc::Ok) {  // keep the first error: later ones are consequences
    error_code_ = code;
    error_offset_ = offset;
    error_message_ = std::move(message);
  }
  return false;
}

bool Lexer::at(std::string_view literal) const {
  return bytes_left(literal.size()) && std::memcmp(pos_, literal.data(), literal.size()) == 0;
}

// Validates the character at p (which must be < end_): returns its length in `len`.
bool Lexer::check_char(const uchar* p, size_t& len) {
  uchar c = *p;
  if (c < 0x80) {
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
      return fail(Errc::InvalidCharacter, offset_of(p),
                  "character " + describe_cp(c) + " is not allowed in XML");
    len = 1;
    return true;
  }
  if (ascii_only_)
    return fail(Errc::InvalidCharacter, offset_of(p),
                "byte " + describe_byte(c) + " is not US-ASCII, the declared encoding");
  uint32_t cp;
  len = chars::decode_utf8(p, end_, cp);
  if (len == 0)
    return fail(Errc::InvalidCharacter, offset_of(p),
                "invalid UTF-8 (byte " + describe_byte(c) + ")");
  if (!chars::is_xml_char(cp))
    return fail(Errc::InvalidCharacter, offset_of(p),
                "character " + describe_cp(cp) + " is not allowed in XML");
  return true;
}

// ---- the document's start and end ----

bool Lexer::start(std::string_view document, size_t max_elements, bool assume_utf8,
                  DocumentSource* source) {
  begin_ = pos_ = reinterpret_cast<const uchar*>(document.data());
  end_ = final_end_ = begin_ + document.size();
  source_ = source;
  elements_left_ = max_elements_ = max_elements;
  error_code_ = Errc::Ok;
  error_message_.clear();
  open_.clear();
  if (source_ != nullptr) [[unlikely]]
    return start_arriving(assume_utf8);
  return start_prolog(assume_utf8);
}

bool Lexer::start_arriving(bool assume_utf8) {
  take_arrival();
  if (end_ == begin_ && !arrive(1)) return false;
  // The prolog ends where the root's `<` is, told from `<!--`, `<?` and `<!DOCTYPE` by the
  // bytes after it: with fewer than that come, it is read again with a few more; a prolog
  // longer than what came (a long comment) is read again whole.
  constexpr size_t kTellTheRoot = 9;
  for (;;) {
    bool ok = start_prolog(assume_utf8);
    if (end_ == final_end_) return ok;
    if (ok && bytes_left(kTellTheRoot)) return true;
    error_code_ = Errc::Ok;
    error_message_.clear();
    if (!(ok ? arrive(kTellTheRoot) : wait_for_everything())) return false;
  }
}

// Waits for `want` more bytes of a document still arriving. A source that ends it sooner says
// so: the document is then all there, shorter than its storage.
bool Lexer::arrive(size_t want) {
  if (end_ != final_end_) {
    if (Status s = source_->wait(want); !s)
      return fail(s.error().code, offset_of(end_), s.error().message);
    take_arrival();
  }
  return true;
}

void Lexer::take_arrival() {
  final_end_ = begin_ + std::min(source_->length(), size_t(final_end_ - begin_));
  end_ = begin_ + std::min(source_->arrived(), size_t(final_end_ - begin_));
}

// The prolog from the document's first byte: its state starts afresh.
[[gnu::noinline]] bool Lexer::start_prolog(bool assume_utf8) {
  pos_ = begin_;
  encoding_ = Encoding::Utf8;
  ascii_only_ = false;
  root_done_ = root_started_ = false;
  off_the_usual_path_ = true;
  apache_namespace_ = false;
  bool bom = false;
  if (bytes_left(3) && pos_[0] == 0xEF && pos_[1] == 0xBB && pos_[2] == 0xBF) {
    pos_ += 3;
    bom = true;
  } else if (bytes_left(2) &&
             ((pos_[0] == 0xFE && pos_[1] == 0xFF) || (pos_[0] == 0xFF && pos_[1] == 0xFE))) {
    return fail(Errc::UnsupportedEncoding, 0, "UTF-16 is not supported; send UTF-8");
  } else if (bytes_left(2) && pos_[0] == 0 && pos_[1] == '<') {
    return fail(Errc::UnsupportedEncoding, 0, "UTF-16 is not supported; send UTF-8");
  }
  if (at("<?xml") && bytes_left(6) && chars::is_space(pos_[5])) {
    if (!lex_declaration(assume_utf8)) return false;
    // US-ASCII is a subset of UTF-8, so only Latin-1 contradicts a UTF-8 byte order mark.
    if (bom && encoding_ == Encoding::Latin1)
      return fail(Errc::UnsupportedEncoding, 0,
                  "the encoding declaration contradicts the UTF-8 byte order mark");
  }
  return skip_misc_outside_root(true);
}

bool Lexer::lex_declaration(bool assume_utf8) {
  // The declarations real peers send, byte for byte (callwire and xmlrpc-c: double quotes;
  // Python: single quotes): accepted whole, with the meaning the general path would give them
  // (version 1.0, and UTF-8 whether declared or by default).
  for (std::string_view common :
       {std::string_view("<?xml version=\"1.0\"?>"), std::string_view("<?xml version='1.0'?>"),
        std::string_view("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")}) {
    if (at(common)) {
      pos_ += common.size();
      if (common.size() > 21 && !assume_utf8) encoding_ = Encoding::Utf8;
      return true;
    }
  }
  const uchar* decl = pos_;
  pos_ += 5;  // "<?xml"
  auto bad = [&](const char* what) {
    return fail(Errc::NotWellFormed, offset_of(pos_),
                std::string("malformed XML declaration: ") + what);
  };
  // Reads  S name S? = S? "value". Absent: the name is not next (nothing consumed); Malformed:
  // the name is there but not the rest (an error: `encoding?>` is not well formed).
  enum class Attr { Absent, Present, Malformed };
  auto pseudo_attribute = [&](std::string_view name, std::string_view& value) -> Attr {
    const uchar* before = pos_;
    skip_space();
    if (!at(name) || pos_ == before) {  // white space is required before it
      pos_ = before;
      return Attr::Absent;
    }
    pos_ += name.size();
    skip_space();
    if (pos_ >= end_ || *pos_ != '=') return Attr::Malformed;
    ++pos_;
    skip_space();
    if (pos_ >= end_ || (*pos_ != '"' && *pos_ != '\'')) return Attr::Malformed;
    uchar quote = *pos_++;
    const uchar* start = pos_;
    while (pos_ < end_ && *pos_ != quote && *pos_ != '<' && *pos_ >= 0x20) ++pos_;
    if (pos_ >= end_ || *pos_ != quote) return Attr::Malformed;
    value = std::string_view(reinterpret_cast<const char*>(start), size_t(pos_ - start));
    ++pos_;
    return Attr::Present;
  };
  std::string_view version, encoding, standalone;
  if (pseudo_attribute("version", version) != Attr::Present) return bad("expected version=\"1.0\"");
  if (version.size() < 3 || version.substr(0, 2) != "1." ||
      version.find_first_not_of("0123456789", 2) != std::string_view::npos)
    return bad("unsupported version");
  Attr encoding_attr = pseudo_attribute("encoding", encoding);
  if (encoding_attr == Attr::Malformed) return bad("expected encoding=\"NAME\"");
  bool has_encoding = encoding_attr == Attr::Present;
  if (has_encoding) {
    bool name_ok = !encoding.empty() && ((encoding[0] >= 'A' && encoding[0] <= 'Z') ||
                                         (encoding[0] >= 'a' && encoding[0] <= 'z'));
    for (char c : encoding) name_ok = name_ok && (chars::is_name_char_ascii(uchar(c)) && c != ':');
    if (!name_ok) return bad("invalid encoding name");
  }
  Attr standalone_attr = pseudo_attribute("standalone", standalone);
  if (standalone_attr == Attr::Malformed ||
      (standalone_attr == Attr::Present && standalone != "yes" && standalone != "no"))
    return bad("standalone must be yes or no");
  skip_space();
  if (!at("?>")) return bad("expected '?>'");
  pos_ += 2;

  if (has_encoding && !assume_utf8) {
    if (equals_ignore_case(encoding, "UTF-8")) {
      encoding_ = Encoding::Utf8;
    } else if (equals_ignore_case(encoding, "US-ASCII")) {
      encoding_ = Encoding::UsAscii;
      ascii_only_ = true;
    } else if (equals_ignore_case(encoding, "ISO-8859-1")) {
      encoding_ = Encoding::Latin1;
    } else {
      return fail(Errc::UnsupportedEncoding, offset_of(decl),
                  "unsupported encoding '" + std::string(encoding) +
                      "'; send UTF-8, US-ASCII or ISO-8859-1");
    }
  }
  return true;
}

// White space, comments and PIs before or after the root element.
bool Lexer::skip_misc_outside_root(bool before_root) {
  for (;;) {
    skip_space();
    if (pos_ >= end_) {
      if (before_root) return fail(Errc::NotWellFormed, offset_of(pos_), "no root element");
      return true;
    }
    if (at("<!--")) {
      if (!skip_comment()) return false;
    } else if (at("<?")) {
      if (!skip_pi()) return false;
    } else if (at("<!DOCTYPE")) {
      return fail(Errc::InvalidRequest, offset_of(pos_),
                  "DOCTYPE is not allowed in XML-RPC (no DTDs, no entity declarations)");
    } else if (*pos_ == '<' && before_root) {
      return true;
    } else if (*pos_ == '<') {
      return fail(Errc::NotWellFormed, offset_of(pos_), "content after the root element");
    } else {
      size_t len;
      if (!check_char(pos_, len)) return false;
      return fail(Errc::NotWellFormed, offset_of(pos_),
                  before_root ? "text before the root element" : "text after the root element");
    }
  }
}

// ---- tokens ----

bool Lexer::next(Token& t) {
  if (off_the_usual_path_) [[unlikely]]
    return next_off_the_usual_path(t);
  return lex_inside_root(t);
}

// The root's start tag and what follows the root; every token of a document still arriving.
bool Lexer::next_off_the_usual_path(Token& t) {
  // Calls in tail position only: this is on every document's way.
  if (source_ != nullptr) return next_arriving(t);
  if (root_done_) return end_of_document(t);
  root_started_ = true;
  off_the_usual_path_ = false;  // and back on should the root be `<root/>`
  return lex_start_tag(t);
}

[[gnu::noinline]] bool Lexer::end_of_document(Token& t) {
  // Only white space, comments and PIs may follow: all of it is read before the end.
  if (!wait_for_everything() || !skip_misc_outside_root(false)) return false;
  t.kind = TokenKind::EndOfDocument;
  t.offset = offset_of(pos_);
  return true;
}

[[gnu::noinline]] bool Lexer::next_arriving(Token& t) {
  if (root_done_) return end_of_document(t);
  bool lexed = root_started_ ? lex_inside_root(t) : lex_start_tag(t);
  if (!lexed && !again_with_more(t)) return false;
  root_started_ = true;
  return true;
}

// A token of a document still arriving failed: if it ran into the end of what has come, it
// is lexed again from its start (a failed token changes nothing but the position) once more
// has come, at least twice what it had, so a long one is lexed a few times, not once a read.
bool Lexer::again_with_more(Token& t) {
  while (end_ != final_end_) {
    error_code_ = Errc::Ok;
    error_message_.clear();
    pos_ = begin_ + t.offset;
    if (!arrive(std::max(2 * size_t(end_ - pos_), size_t{1}))) return false;
    if (root_started_ ? lex_inside_root(t) : lex_start_tag(t)) return true;
  }
  return false;
}

// The next `<` from `from` on (there is none before it) with the byte after it, in a document
// still arriving: waits for more, each time at least as much as the text so far, and searches
// only what came. Null when the source fails (the checked path meets the same failure).
const unsigned char* Lexer::find_markup_while_arriving(const uchar* from) {
  while (end_ != final_end_) {
    if (!arrive(std::max(2 * size_t(end_ - pos_), size_t{2}))) return nullptr;
    const auto* stop = static_cast<const uchar*>(std::memchr(from, '<', size_t(end_ - from)));
    if (stop != nullptr && end_ - stop >= 2) return stop;
    from = stop != nullptr ? stop : end_;
  }
  return static_cast<const uchar*>(std::memchr(from, '<', size_t(end_ - from)));
}

[[gnu::always_inline]] inline bool Lexer::lex_inside_root(Token& t) {
  // Each failure leaves in t.offset where the token started: it is lexed again from there
  // when it failed for want of bytes still to come.
  for (;;) {
    if (pos_ >= end_) {
      t.offset = offset_of(pos_);
      return fail(Errc::NotWellFormed, offset_of(pos_),
                  "unexpected end of document: <" + std::string(open_.back()) + "> is not closed");
    }
    if (*pos_ == '<') {
      if (!bytes_left(2)) {
        t.offset = offset_of(pos_);
        return fail(Errc::NotWellFormed, offset_of(pos_), "unexpected end of document in a tag");
      }
      uchar c = pos_[1];
      if (c == '/') return lex_end_tag(t);
      if (c != '!' && c != '?') return lex_start_tag(t);
    }
    if (!lex_text(t)) return false;
    if (!t.text.empty()) return true;
    // Only comments or PIs: no text token; go on to the tag.
  }
}

bool Lexer::lex_text(Token& t) {
  t.kind = TokenKind::Text;
  t.offset = offset_of(pos_);
  const uchar* segment = pos_;  // the run not yet copied to scratch
  bool in_scratch = false;
  // From the first comment, PI, CDATA section, reference or CR on, the text is assembled in
  // scratch_: the plain run so far is copied there.
  auto decode_from_here = [&] {
    if (!in_scratch) scratch_.clear();
    in_scratch = true;
    flush_segment(segment);
  };
  for (;;) {
    pos_ = scan_until<'<', '&', ']'>(pos_, end_);  // ']' for "]]>"
    if (pos_ >= end_)
      return fail(Errc::NotWellFormed, offset_of(pos_),
                  "unexpected end of document: <" + std::string(open_.back()) + "> is not closed");
    uchar c = *pos_;
    if (c == '<') {
      // Which markup this is takes up to nine bytes ("<![CDATA["): of a document still
      // arriving, fewer than that means lexing it again once more has come.
      if (!bytes_left(9) && end_ != final_end_) [[unlikely]]
        return fail(Errc::NotWellFormed, offset_of(pos_), "unexpected end of document");
      bool markup_in_text = at("<!--") || at("<?") || at("<![CDATA[");
      if (markup_in_text) {
        decode_from_here();
        bool ok = at("<!--") ? skip_comment() : at("<?") ? skip_pi() : lex_cdata();
        if (!ok) return false;
        segment = pos_;
        continue;
      }
      if (bytes_left(2) && pos_[1] == '!')
        return fail(Errc::NotWellFormed, offset_of(pos_),
                    at("<!DOCTYPE") ? "DOCTYPE inside the document" : "invalid markup '<!'");
      // A tag: the text ends here.
      if (in_scratch) {
        flush_segment(segment);
        t.text = scratch_;
      } else {
        t.text = std::string_view(reinterpret_cast<const char*>(segment), size_t(pos_ - segment));
      }
      return true;
    }
    if (c == '&' || c == '\r') {
      decode_from_here();
      if (c == '&') {
        if (!lex_reference(true)) return false;
      } else {  // CR LF and lone CR both become LF
        scratch_.push_back('\n');
        ++pos_;
        if (pos_ < end_ && *pos_ == '\n') ++pos_;
      }
      decode_burst();
      segment = pos_;
      continue;
    }
    if (c == ']') {
      if (bytes_left(3) && pos_[1] == ']' && pos_[2] == '>')
        return fail(Errc::NotWellFormed, offset_of(pos_), "']]>' is not allowed in text");
      ++pos_;
      continue;
    }
    size_t len;
    if (!check_char(pos_, len)) return false;
    pos_ += len;
  }
}

// The bytes of &lt;, &gt; or &amp; at `p` (up to `end`), the character in `c`; 0 for anything
// else. The three a writer escapes with: text dense with markup is mostly these.
namespace {
size_t predefined_escape(const unsigned char* p, const unsigned char* end, char& c) {
  if (end - p >= 4 && p[2] == 't' && p[3] == ';' && (p[1] == 'l' || p[1] == 'g')) {
    c = p[1] == 'l' ? '<' : '>';
    return 4;
  }
  if (end - p >= 5 && p[1] == 'a' && p[2] == 'm' && p[3] == 'p' && p[4] == ';') {
    c = '&';
    return 5;
  }
  return 0;
}
}  // namespace

// After a reference in text, the next bytes one at a time straight into scratch_, while they
// are plain or &lt;, &gt; and &amp; (text dense with markup, such as an HTML page, decoded
// without a call per reference). Anything else is left to lex_text. Each step writes one byte
// and reads at least one, so a burst never writes more than the room made for it.
void Lexer::decode_burst() {
  constexpr size_t kBurst = 64;
  const bool* stop = kStopTable<'<', '&', ']'>.stop;
  size_t room = std::min(kBurst, size_t(end_ - pos_));
  size_t base = scratch_.size();
  scratch_.resize(base + room);
  char* out = scratch_.data() + base;
  // Locals: stores through `out` could alias the members.
  const uchar *p = pos_, *end = end_;
  for (const uchar* burst_end = p + room; p < burst_end;) {
    uchar c = *p;
    char escaped;
    if (!stop[c]) {
      *out++ = char(c);
      ++p;
    } else if (size_t n = c == '&' ? predefined_escape(p, end, escaped) : 0) {
      *out++ = escaped;
      p += n;
    } else {
      break;
    }
  }
  pos_ = p;
  scratch_.resize(size_t(out - scratch_.data()));
}

// `&...;` at pos_. Appends the character to scratch_ when `append`.
bool Lexer::lex_reference(bool append) {
  char escaped;
  if (size_t n = predefined_escape(pos_, end_, escaped)) {  // the common three, taken whole
    if (append) scratch_.push_back(escaped);
    pos_ += n;
    return true;
  }
  const uchar* amp = pos_;
  ++pos_;
  if (pos_ < end_ && *pos_ == '#') {
    ++pos_;
    bool hex = pos_ < end_ && *pos_ == 'x';
    if (hex) ++pos_;
    uint32_t cp = 0;
    const uchar* digits = pos_;
    while (pos_ < end_ && *pos_ != ';') {
      uchar d = *pos_;
      uint32_t v;
      if (d >= '0' && d <= '9')
        v = d - '0';
      else if (hex && d >= 'a' && d <= 'f')
        v = d - 'a' + 10;
      else if (hex && d >= 'A' && d <= 'F')
        v = d - 'A' + 10;
      else
        return fail(Errc::NotWellFormed, offset_of(amp), "malformed character reference");
      cp = cp * (hex ? 16 : 10) + v;
      if (cp > 0x10FFFF) cp = 0x110000;  // stays out of range without overflowing
      ++pos_;
    }
    if (pos_ >= end_ || pos_ == digits)
      return fail(Errc::NotWellFormed, offset_of(amp), "malformed character reference");
    ++pos_;                       // ';'
    if (!chars::is_xml_char(cp))  // the same code as the character sent raw
      return fail(Errc::InvalidCharacter, offset_of(amp),
                  "character reference to " + describe_cp(cp > 0x10FFFF ? 0x110000 : cp) +
                      ", which XML does not allow");
    if (append) {
      char buf[4];
      scratch_.append(buf, chars::encode_utf8(cp, buf));
    }
    return true;
  }
  const uchar* name = pos_;
  while (pos_ < end_ && chars::is_name_char_ascii(*pos_)) ++pos_;
  std::string_view n(reinterpret_cast<const char*>(name), size_t(pos_ - name));
  if (n.empty() || !chars::is_name_start_ascii(uchar(n[0])))
    return fail(Errc::NotWellFormed, offset_of(amp),
                "'&' must start a reference (write &amp; for a literal '&')");
  if (pos_ >= end_ || *pos_ != ';')
    return fail(Errc::NotWellFormed, offset_of(amp),
                "reference &" + std::string(n.substr(0, 32)) + " is missing its ';'");
  ++pos_;
  char c;
  if (n == "lt")
    c = '<';
  else if (n == "gt")
    c = '>';
  else if (n == "amp")
    c = '&';
  else if (n == "apos")
    c = '\'';
  else if (n == "quot")
    c = '"';
  else
    return fail(Errc::NotWellFormed, offset_of(amp),
                "undefined entity &" + std::string(n.substr(0, 32)) +
                    "; (XML-RPC has only the five predefined ones)");
  if (append) scratch_.push_back(c);
  return true;
}

bool Lexer::skip_comment() {
  const uchar* start = pos_;
  pos_ += 4;  // "<!--"
  for (;;) {
    if (pos_ >= end_) return fail(Errc::NotWellFormed, offset_of(start), "unterminated comment");
    if (*pos_ == '-' && bytes_left(2) && pos_[1] == '-') {
      if (bytes_left(3) && pos_[2] == '>') {
        pos_ += 3;
        return true;
      }
      return fail(Errc::NotWellFormed, offset_of(pos_), "'--' is not allowed inside a comment");
    }
    size_t len;
    if (!check_char(pos_, len)) return false;
    pos_ += len;
  }
}

bool Lexer::skip_pi() {
  const uchar* start = pos_;
  pos_ += 2;  // "<?"
  std::string_view target;
  if (!lex_name(target)) return false;
  if (equals_ignore_case(target, "xml"))
    return fail(Errc::NotWellFormed, offset_of(start),
                "XML declaration not at the start of the document");
  if (at("?>")) {
    pos_ += 2;
    return true;
  }
  if (pos_ >= end_ || !chars::is_space(*pos_))
    return fail(Errc::NotWellFormed, offset_of(pos_), "malformed processing instruction");
  for (;;) {
    if (pos_ >= end_)
      return fail(Errc::NotWellFormed, offset_of(start), "unterminated processing instruction");
    if (*pos_ == '?' && bytes_left(2) && pos_[1] == '>') {
      pos_ += 2;
      return true;
    }
    size_t len;
    if (!check_char(pos_, len)) return false;
    pos_ += len;
  }
}

bool Lexer::lex_cdata() {
  const uchar* start = pos_;
  pos_ += 9;  // "<![CDATA["
  const uchar* segment = pos_;
  for (;;) {
    // Sixteen bytes a step to the next ']', CR, control or non-ASCII byte: a large CDATA
    // section (a peer's blob of markup) is mostly plain.
    pos_ = scan_until<']', ']', ']'>(pos_, end_);
    if (pos_ >= end_)
      return fail(Errc::NotWellFormed, offset_of(start), "unterminated CDATA section");
    uchar c = *pos_;
    if (c == ']' && bytes_left(3) && pos_[1] == ']' && pos_[2] == '>') {
      flush_segment(segment);
      pos_ += 3;
      return true;
    }
    if (c == '\r') {
      flush_segment(segment);
      scratch_.push_back('\n');
      ++pos_;
      if (pos_ < end_ && *pos_ == '\n') ++pos_;
      segment = pos_;
      continue;
    }
    if (c >= 0x20 && c < 0x80) {
      ++pos_;
      continue;
    }
    size_t len;
    if (!check_char(pos_, len)) return false;
    pos_ += len;
  }
}

bool Lexer::lex_name(std::string_view& name) {
  const uchar* start = pos_;
  // Fast path: an ASCII name followed by an ASCII delimiter.
  if (pos_ < end_ && chars::kNameClass[*pos_] == chars::kNameStart) {
    const uchar* p = pos_ + 1;
    while (p < end_ && chars::kNameClass[*p] != 0) ++p;
    if (p < end_ && *p < 0x80) {
      pos_ = p;
      name = std::string_view(reinterpret_cast<const char*>(start), size_t(p - start));
      return true;
    }
  }
  bool first = true;
  while (pos_ < end_) {
    uchar c = *pos_;
    if (c < 0x80) {
      if (first ? !chars::is_name_start_ascii(c) : !chars::is_name_char_ascii(c)) break;
      ++pos_;
    } else {
      uint32_t cp;
      size_t len = ascii_only_ ? 0 : chars::decode_utf8(pos_, end_, cp);
      if (len == 0) {
        size_t ignored;
        check_char(pos_, ignored);  // reports the encoding error
        return false;
      }
      if (first ? !chars::is_name_start_nonascii(cp) : !chars::is_name_char_nonascii(cp)) break;
      pos_ += len;
    }
    first = false;
  }
  if (pos_ == start) {
    if (pos_ >= end_)
      return fail(Errc::NotWellFormed, offset_of(pos_), "unexpected end of document");
    return fail(Errc::NotWellFormed, offset_of(pos_), "expected a name");
  }
  name = std::string_view(reinterpret_cast<const char*>(start), size_t(pos_ - start));
  return true;
}

bool Lexer::lex_start_tag(Token& t) {
  t.kind = TokenKind::StartTag;
  t.offset = offset_of(pos_);
  ++pos_;  // '<'
  if (!lex_name(t.name)) return false;
  if (elements_left_ == 0)
    return fail(Errc::LimitExceeded, t.offset,
                "more elements than max_elements (" + std::to_string(max_elements_) + ")");
  if (pos_ < end_ && *pos_ == '>') {  // the usual case: no attributes
    ++pos_;
    --elements_left_;
    t.self_closing = false;
    open_.push_back(t.name);
    return true;
  }

  constexpr size_t kMaxAttributes = 32;  // XML-RPC needs a namespace declaration or two
  struct Attribute {
    const char* data;
    size_t size;
  };
  Attribute attributes[kMaxAttributes];  // left uninitialised: most tags have none
  size_t attribute_count = 0;
  for (;;) {
    const uchar* before_space = pos_;
    skip_space();
    if (pos_ >= end_)
      return fail(Errc::NotWellFormed, t.offset, "unexpected end of document inside a tag");
    if (*pos_ == '>') {
      ++pos_;
      t.self_closing = false;
      break;
    }
    if (*pos_ == '/') {
      if (!bytes_left(2) || pos_[1] != '>')
        return fail(Errc::NotWellFormed, offset_of(pos_), "expected '/>'");
      pos_ += 2;
      t.self_closing = true;
      break;
    }
    if (pos_ == before_space)
      return fail(Errc::NotWellFormed, offset_of(pos_), "expected white space before an attribute");
    std::string_view attr;
    if (!lex_name(attr)) return false;
    for (size_t i = 0; i < attribute_count; ++i)
      if (std::string_view(attributes[i].data, attributes[i].size) == attr)
        return fail(Errc::NotWellFormed, offset_of(attr.data()),
                    "duplicate attribute '" + std::string(attr) + "'");
    if (attribute_count == kMaxAttributes)
      return fail(Errc::LimitExceeded, offset_of(attr.data()),
                  "too many attributes on one element");
    attributes[attribute_count++] = {attr.data(), attr.size()};
    skip_space();
    if (pos_ >= end_ || *pos_ != '=')
      return fail(Errc::NotWellFormed, offset_of(pos_),
                  "expected '=' after attribute '" + std::string(attr) + "'");
    ++pos_;
    skip_space();
    const uchar* value_start = pos_;
    if (!lex_attribute_value()) return false;
    // `xmlns:ex="..."` (or a default namespace) naming Apache's extensions: the value is
    // compared as written, since the URI needs no character references.
    constexpr std::string_view kApacheUri = "http://ws.apache.org/xmlrpc/namespaces/extensions";
    if (attr.starts_with("xmlns") && (attr.size() == 5 || attr[5] == ':') &&
        std::string_view(reinterpret_cast<const char*>(value_start) + 1,
                         size_t(pos_ - value_start) - 2) == kApacheUri)
      apache_namespace_ = true;
  }
  --elements_left_;  // counted once the tag is whole: one cut short is lexed again
  if (t.self_closing) {
    if (open_.empty()) root_closed();
  } else {
    open_.push_back(t.name);
  }
  return true;
}

// A quoted attribute value: checked, not kept (XML-RPC reads no attribute).
bool Lexer::lex_attribute_value() {
  if (pos_ >= end_ || (*pos_ != '"' && *pos_ != '\''))
    return fail(Errc::NotWellFormed, offset_of(pos_), "attribute value must be quoted");
  uchar quote = *pos_++;
  for (;;) {
    if (pos_ >= end_)
      return fail(Errc::NotWellFormed, offset_of(pos_), "unterminated attribute value");
    uchar c = *pos_;
    if (c == quote) {
      ++pos_;
      return true;
    }
    if (c == '<') return fail(Errc::NotWellFormed, offset_of(pos_), "'<' in an attribute value");
    if (c == '&') {
      if (!lex_reference(false)) return false;
      continue;
    }
    size_t len;
    if (!check_char(pos_, len)) return false;
    pos_ += len;
  }
}

bool Lexer::lex_end_tag(Token& t) {
  t.kind = TokenKind::EndTag;
  t.offset = offset_of(pos_);
  pos_ += 2;  // "</"
  if (!lex_name(t.name)) return false;
  skip_space();
  if (pos_ >= end_ || *pos_ != '>')
    return fail(Errc::NotWellFormed, offset_of(pos_),
                "expected '>' to end </" + std::string(t.name));
  ++pos_;
  if (t.name != open_.back())
    return fail(Errc::NotWellFormed, t.offset,
                "mismatched end tag </" + std::string(t.name) + ">, expected </" +
                    std::string(open_.back()) + ">");
  close_element();
  return true;
}

}  // namespace callwire::xml
