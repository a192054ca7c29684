// Internal: a pull lexer for the subset of XML 1.0 that XML-RPC uses.
//
// It checks well-formedness as it goes (names, attributes, matching tags, references, UTF-8,
// the characters XML forbids, `]]>`, comments, PIs, CDATA) and hands the grammar tags and
// decoded text. Text points into the document when it needs no decoding, into `scratch`
// otherwise. It never allocates on the hot path once its buffers have grown.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "xml/scan.hpp"
#include "xml/xml_chars.hpp"

namespace callwire::xml {

enum class TokenKind : uint8_t { StartTag, EndTag, Text, EndOfDocument };

struct Token {
  TokenKind kind = TokenKind::EndOfDocument;
  bool self_closing = false;  ///< StartTag: `<x/>` (no EndTag follows)
  std::string_view name;      ///< StartTag, EndTag: the element name, prefix included
  std::string_view text;      ///< Text: the character data, references decoded, CR LF -> LF
  size_t offset = 0;          ///< where the token starts in the document
};

enum class Encoding : uint8_t { Utf8, UsAscii, Latin1 };

/// A document still arriving, read while it comes: its storage is whole from the start, and
/// what has come is its first arrived() bytes, which never move. The lexer reads those; a token
/// that runs into their end is lexed again once more has come. The document fills its storage
/// (a length known in advance), or ends where length() says once the source knows (a chunked
/// answer, whose storage is as large as an answer may be). The client's connection is the
/// source of an answer arriving on a socket.
class DocumentSource {
 public:
  virtual ~DocumentSource() = default;
  /// How many of the document's bytes have come.
  virtual size_t arrived() const = 0;
  /// Where the document ends: at or past the end of its storage (the default) while that is
  /// not known yet, then its length.
  virtual size_t length() const { return SIZE_MAX; }
  /// Waits until at least `want` more bytes have come (1 or more), or all of the document if
  /// fewer are left; more may come at once. An error ends the read: the source keeps its own
  /// account of what went wrong.
  virtual Status wait(size_t want) = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string& scratch) : scratch_(scratch) {}

  /// Gives back the memory of an unusually deep document's element stack.
  void trim() { open_.trim(); }

  /// Starts a document: the byte order mark, the XML declaration and the prolog, up to the root
  /// element. `assume_utf8` ignores the declared encoding (the reader transcoded the document).
  /// `source`: the document is still arriving (null: it is all there).
  bool start(std::string_view document, size_t max_elements, bool assume_utf8,
             DocumentSource* source = nullptr);
  /// Waits for the rest of a document still arriving (at once when it is all there); one whose
  /// end its source tells only after its last byte may take a second wait.
  bool wait_for_everything() {
    while (end_ != final_end_)
      if (!arrive(size_t(final_end_ - end_))) return false;
    return true;
  }
  /// The document's length (of its storage while a source has not told where it ends).
  size_t document_size() const { return size_t(final_end_ - begin_); }
  /// The encoding the declaration named (UTF-8 when there is none).
  Encoding encoding() const { return encoding_; }
  /// Whether a start tag so far declared Apache's extensions namespace (any prefix), for the
  /// server's choice of dialect. Checked only on tags with attributes: off the fast paths.
  bool declared_apache_extensions() const { return apache_namespace_; }

  /// The next token. False on an error (see error_*). After the root element closes, only
  /// EndOfDocument follows (or an error for anything but comments, PIs and white space).
  bool next(Token& t);

  // Fast paths for documents written the usual way (compact or indented, no comments or
  // attributes inside the structure). Each consumes exactly what it names and returns true, or
  // consumes nothing and returns false; the caller then falls back to next(), which handles
  // every case and reports every error. They are forced inline: the reader calls them from
  // many places (the tree path and the pull path), and out of line they cost a call per tag.

  /// `tag` ("<member>": a literal with its brackets), after optional white space.
  template <size_t N>
  [[gnu::always_inline]] bool try_start(const char (&tag)[N]) {
    return try_start_at(skip_space_from(pos_), tag);
  }
  /// `tag` right here, with nothing skipped.
  template <size_t N>
  [[gnu::always_inline]] bool try_start_here(const char (&tag)[N]) {
    return try_start_at(pos_, tag);
  }
  template <size_t N>
  [[gnu::always_inline]] bool try_start_at(const unsigned char* p, const char (&tag)[N]) {
    constexpr size_t n = N - 1;
    if (size_t(end_ - p) < n || !same_as_literal<n>(p, tag) || elements_left_ == 0) return false;
    --elements_left_;
    open_.push_back(std::string_view(reinterpret_cast<const char*>(p) + 1, n - 2));
    pos_ = p + n;
    return true;
  }
  /// A whole element of plain text, `<name>text</name>` (`tag` is "<name>"), after optional
  /// white space: text needing no decoding (no `&`, no `]`, no control character; UTF-8
  /// checked). The element opens and closes here, so the open elements are as they were. For a
  /// struct member's name, and the usual scalars (ReaderImpl::plain_scalar): once per value.
  template <size_t N>
  [[gnu::always_inline]] bool try_text_element(const char (&tag)[N], std::string_view& text) {
    constexpr size_t n = N - 1;
    const unsigned char* p = skip_space_from(pos_);
    if (size_t(end_ - p) < 2 * n + 1 || !same_as_literal<n>(p, tag) || elements_left_ == 0)
      return false;
    const unsigned char* start = p + n;
    const unsigned char* stop = plain_text_stop(start);
    if (stop == nullptr || size_t(end_ - stop) < n + 1 || stop[0] != '<' || stop[1] != '/' ||
        !same_as_literal<n - 1>(stop + 2, tag + 1))
      return false;
    --elements_left_;
    text = std::string_view(reinterpret_cast<const char*>(start), size_t(stop - start));
    pos_ = stop + n + 1;
    return true;
  }
  /// The way into a struct's next member, written the usual way: `</member>` closing the
  /// member before (kAfterMember), then `<member>`, `<name>`plain text`</name>` and `<value>`,
  /// each after optional white space. One pass with one bounds test per tag, where the tag by
  /// tag path pays each tag's white space, bounds, element count and open-element bookkeeping
  /// on its own: it is most of the markup of a struct-heavy document. All or nothing, as the
  /// other fast paths; the caller checks the name's size.
  template <bool kAfterMember>
  [[gnu::always_inline]] bool try_member_head(std::string_view& name) {
    const unsigned char* p = pos_;
    if constexpr (kAfterMember) {
      p = skip_space_from(p);
      if (size_t(end_ - p) < 9 || !same_as_literal<9>(p, "</member>")) return false;
      p += 9;
    }
    p = skip_space_from(p);
    if (size_t(end_ - p) < 8 + 6 || !same_as_literal<8>(p, "<member>")) return false;
    p = skip_space_from(p + 8);
    if (size_t(end_ - p) < 6 + 7 || !same_as_literal<6>(p, "<name>")) return false;
    const unsigned char* text = p + 6;
    const unsigned char* stop = plain_text_stop(text);
    if (stop == nullptr || size_t(end_ - stop) < 7 || !same_as_literal<7>(stop, "</name>"))
      return false;
    p = skip_space_from(stop + 7);
    if (size_t(end_ - p) < 7 || !same_as_literal<7>(p, "<value>") || elements_left_ < 3)
      return false;
    elements_left_ -= 3;  // member, name, value
    // The member before closed and this one opened: `member` stays the innermost but one.
    if constexpr (!kAfterMember) open_.push_back("member");
    open_.push_back("value");
    name = std::string_view(reinterpret_cast<const char*>(text), size_t(stop - text));
    pos_ = p + 7;
    return true;
  }
  /// Any start tag with an ASCII name and no attributes, right here (no white space skipped).
  bool try_start_any(Token& t) {
    const unsigned char* p = pos_;
    if (end_ - p < 3 || p[0] != '<' || chars::kNameClass[p[1]] != chars::kNameStart) return false;
    const unsigned char* name = p + 1;
    p += 2;
    while (p < end_ && chars::kNameClass[*p] != 0 && *p < 0x80) ++p;
    if (p >= end_ || *p != '>' || elements_left_ == 0) return false;
    --elements_left_;
    t.kind = TokenKind::StartTag;
    t.self_closing = false;
    t.name = std::string_view(reinterpret_cast<const char*>(name), size_t(p - name));
    t.offset = offset_of(pos_);
    open_.push_back(t.name);
    pos_ = p + 1;
    return true;
  }
  /// The end tag of the innermost open element, after optional white space.
  bool try_end() {
    const unsigned char* p = skip_space_from(pos_);
    std::string_view name = open_.back();
    size_t n = name.size();
    if (size_t(end_ - p) < n + 3 || p[0] != '<' || p[1] != '/' || p[n + 2] != '>') return false;
    if (!same_bytes(p + 2, reinterpret_cast<const unsigned char*>(name.data()), n)) return false;
    pos_ = p + n + 3;
    close_element();
    return true;
  }
  /// `</name>` where the grammar knows `name` is the innermost open element (one compare of
  /// the literal), after optional white space.
  template <size_t N>
  [[gnu::always_inline]] bool try_end_literal(const char (&name)[N]) {
    constexpr size_t n = N - 1;
    const unsigned char* p = skip_space_from(pos_);
    if (size_t(end_ - p) < n + 3 || p[0] != '<' || p[1] != '/' || p[n + 2] != '>' ||
        open_.back().size() != n || !same_as_literal<n>(p + 2, name))
      return false;
    pos_ = p + n + 3;
    close_element();
    return true;
  }
  /// Character data that needs no decoding, up to an end tag (which is not consumed).
  [[gnu::always_inline]] bool try_plain_text(std::string_view& text) {
    const unsigned char* stop = plain_text_stop(pos_);
    if (stop == nullptr || end_ - stop < 2 || stop[0] != '<' || stop[1] != '/') return false;
    text = std::string_view(reinterpret_cast<const char*>(pos_), size_t(stop - pos_));
    pos_ = stop;
    return true;
  }
  /// Everything up to the next `<`, which must start an end tag (not consumed), unchecked: for
  /// text whose caller accepts only characters that are valid XML and need no decoding (base64
  /// does; on anything else it calls rewind() and takes the checked path). One memchr, where
  /// try_plain_text tests every byte for five kinds of stop.
  /// Of a document still arriving, it waits for the `<` and the byte after it. `known_plain`:
  /// how many of the first bytes the caller knows hold no `<` (text decoded as it arrived,
  /// which a second search of megabytes would only read again).
  bool try_unchecked_text(std::string_view& text, size_t known_plain = 0) {
    const unsigned char* from = pos_ + std::min(known_plain, size_t(end_ - pos_));
    const auto* stop =
        static_cast<const unsigned char*>(std::memchr(from, '<', size_t(end_ - from)));
    if ((stop == nullptr || end_ - stop < 2) && end_ != final_end_) [[unlikely]]
      stop = find_markup_while_arriving(stop ? stop : end_);
    if (stop == nullptr || end_ - stop < 2 || stop[1] != '/') return false;
    text = std::string_view(reinterpret_cast<const char*>(pos_), size_t(stop - pos_));
    pos_ = stop;
    return true;
  }
  /// Back to `p`, a position() taken before try_unchecked_text (nothing opened or closed since).
  void rewind(const unsigned char* p) { pos_ = p; }
  /// Skips white space when an element's start tag follows it: there it is insignificant.
  void skip_space_before_element() {
    const unsigned char* p = skip_space_from(pos_);
    if (p != pos_ && end_ - p >= 2 && p[0] == '<' && chars::kNameClass[p[1]] == chars::kNameStart)
      pos_ = p;
  }
  size_t bytes_after(const unsigned char* p) const { return size_t(end_ - p); }
  /// Where the lexer is.
  const unsigned char* position() const { return pos_; }
  /// Whether the next byte starts markup (no text before it).
  bool at_markup() const { return pos_ < end_ && *pos_ == '<'; }

  Errc error_code() const { return error_code_; }
  const std::string& error_message() const { return error_message_; }
  size_t error_offset() const { return error_offset_; }

  /// Sets an error at `offset` (used by the grammar too); always returns false.
  bool fail(Errc code, size_t offset, std::string message);

  size_t offset_of(const unsigned char* p) const { return size_t(p - begin_); }
  size_t offset_of(const char* p) const {
    return offset_of(reinterpret_cast<const unsigned char*>(p));
  }

 private:
  bool next_off_the_usual_path(Token& t);
  bool next_arriving(Token& t);
  bool end_of_document(Token& t);
  bool lex_inside_root(Token& t);
  void root_closed() {
    root_done_ = true;
    off_the_usual_path_ = true;
  }
  bool again_with_more(Token& t);
  const unsigned char* find_markup_while_arriving(const unsigned char* from);
  bool arrive(size_t want);
  // Takes what the source says has come, and where the document ends once it knows.
  void take_arrival();
  bool start_arriving(bool assume_utf8);
  bool start_prolog(bool assume_utf8);
  bool lex_text(Token& t);
  bool lex_start_tag(Token& t);
  bool lex_end_tag(Token& t);
  bool lex_name(std::string_view& name);
  bool lex_attribute_value();
  bool lex_reference(bool append);
  void decode_burst();
  bool skip_comment();
  bool skip_pi();
  bool lex_cdata();
  bool lex_declaration(bool assume_utf8);
  bool skip_misc_outside_root(bool before_root);
  bool check_char(const unsigned char* p, size_t& len);  // one char at p: validity, length
  bool bytes_left(size_t n) const { return size_t(end_ - pos_) >= n; }
  bool at(std::string_view literal) const;
  // Inline: the first test (compact documents: markup follows at once), and the first sixteen
  // bytes (a line's indentation, most often); longer runs out of line.
  [[gnu::always_inline]] const unsigned char* skip_space_from(const unsigned char* p) const {
    if (p<end_&& * p> ' ') [[likely]]
      return p;
#if defined(__SSE2__)
    if (end_ - p >= 16) {
      if (unsigned others = not_space_mask(p)) return p + __builtin_ctz(others);
      p += 16;
    }
#endif
    return skip_space_scan(p);
  }
#if defined(__SSE2__)
  // Which of the sixteen bytes at p are not white space, a bit each.
  [[gnu::always_inline]] static unsigned not_space_mask(const unsigned char* p) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i space = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
    return ~static_cast<unsigned>(_mm_movemask_epi8(space)) & 0xFFFF;
  }
#endif
  [[gnu::noinline]] const unsigned char* skip_space_scan(const unsigned char* p) const {
#if defined(__SSE2__)
    // Long runs: sixteen bytes a step.
    while (end_ - p >= 16) {
      if (unsigned others = not_space_mask(p)) return p + __builtin_ctz(others);
      p += 16;
    }
#endif
    while (p < end_ && chars::kSpaceTable.c[*p]) ++p;
    return p;
  }
  // Whether the n bytes at a and b are equal: word compares, overlapping at the end, never
  // reading outside either range.
  [[gnu::always_inline]] static bool same_bytes(const unsigned char* a, const unsigned char* b,
                                                size_t n) {
    auto load8 = [](const unsigned char* p) {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    };
    auto load4 = [](const unsigned char* p) {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    };
    if (n >= 8) {
      for (size_t i = 0; i + 8 < n; i += 8)
        if (load8(a + i) != load8(b + i)) return false;
      return load8(a + n - 8) == load8(b + n - 8);
    }
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  // Where text from `p` that needs no decoding stops (at markup, or the end of what has come),
  // or null where the general path must read it (a reference, `]`, a control character, bad
  // UTF-8). Valid UTF-8 stays on the fast path.
  [[gnu::always_inline]] const unsigned char* plain_text_stop(const unsigned char* p) const {
    for (;;) {
      p = scan_until<'<', '&', ']'>(p, end_);
      if (p >= end_ || *p < 0x80) return p;
      uint32_t cp;
      size_t len = ascii_only_ ? 0 : chars::decode_utf8(p, end_, cp);
      if (len == 0 || !chars::is_xml_char(cp)) return nullptr;
      p += len;
    }
  }
  // Whether the n bytes at p are the literal's: with n a constant, same_bytes inlines to a
  // word compare or two, where memcmp stays a call (the literal reaches it by reference).
  template <size_t n>
  [[gnu::always_inline]] static bool same_as_literal(const unsigned char* p, const char* literal) {
    return same_bytes(p, reinterpret_cast<const unsigned char*>(literal), n);
  }
  void skip_space() { pos_ = skip_space_from(pos_); }
  void close_element() {
    open_.pop_back();
    if (open_.empty()) root_closed();
  }
  void flush_segment(const unsigned char* from) {
    scratch_.append(reinterpret_cast<const char*>(from), size_t(pos_ - from));
  }

  // The names of the open elements, innermost last. A plain array: pushed and popped on every
  // tag, so it must inline to a store and an increment.
  class OpenElements {
   public:
    bool empty() const { return size_ == 0; }
    std::string_view back() const { return data_[size_ - 1]; }
    [[gnu::always_inline]] void push_back(std::string_view name) {
      if (size_ == capacity_) grow();
      data_[size_++] = name;
    }
    void pop_back() { --size_; }
    void clear() { size_ = 0; }
    void trim() {
      if (capacity_ > kKeep) {
        data_.reset();
        size_ = capacity_ = 0;
      }
    }

   private:
    static constexpr size_t kKeep = 256;
    void grow() {
      size_t capacity = capacity_ ? capacity_ * 2 : 64;
      auto data = std::make_unique<std::string_view[]>(capacity);
      for (size_t i = 0; i < size_; ++i) data[i] = data_[i];
      data_ = std::move(data);
      capacity_ = capacity;
    }
    std::unique_ptr<std::string_view[]> data_;
    size_t size_ = 0, capacity_ = 0;
  };

  std::string& scratch_;
  OpenElements open_;
  const unsigned char* begin_ = nullptr;
  const unsigned char* pos_ = nullptr;
  const unsigned char* end_ = nullptr;  // of what has come (of the document, when it is all there)
  const unsigned char* final_end_ = nullptr;  // of a document still arriving
  DocumentSource* source_ = nullptr;
  size_t elements_left_ = 0;
  size_t max_elements_ = 0;  // for the message when they run out
  Encoding encoding_ = Encoding::Utf8;
  bool ascii_only_ = false;
  bool root_done_ = false;
  bool root_started_ = false;
  // next() takes its general path: before the root's start tag, after its end, and while the
  // document arrives. One test of one byte per token on the usual path.
  bool off_the_usual_path_ = true;
  bool apache_namespace_ = false;
  Errc error_code_ = Errc::Ok;
  std::string error_message_;
  size_t error_offset_ = 0;
};

}  // namespace callwire::xml
