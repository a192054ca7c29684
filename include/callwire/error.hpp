// callwire: status codes, errors and results shared by every layer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "callwire/export.hpp"

namespace callwire {

class Value;      // callwire/value.hpp (the value layer sits above this one)
struct HttpHead;  // callwire/client.hpp

/// What went wrong, as one table shared by C and C++ (the C API's `cw_status` has the same
/// numbers). The codec, HTTP and net layers report these in results and never throw.
enum class Errc : int {
  Ok = 0,
  InvalidArgument = 1,      ///< the API was used wrongly (a bad option, a null where one is needed)
  NoMemory = 2,             ///< an allocation failed
  NotWellFormed = 3,        ///< a document that is not well-formed XML or JSON (fault -32700)
  UnsupportedEncoding = 4,  ///< an encoding other than UTF-8, US-ASCII, ISO-8859-1 (fault -32701)
  InvalidCharacter = 5,     ///< bytes invalid for the encoding, or a character XML forbids (-32702)
  InvalidRequest = 6,       ///< a well-formed document that is not a request or response of its
                       ///< protocol (XML that is not XML-RPC; JSON that is not JSON-RPC): -32600
  NotXmlRpc = InvalidRequest,  ///< InvalidRequest's first name, kept for existing code
  LimitExceeded = 7,           ///< a size, depth or count limit was reached (fault -32600)
  TypeMismatch = 8,            ///< a Value accessed as a type it does not hold
  Unrepresentable = 9,         ///< a value the protocol cannot carry (NaN, a control character)
  NotFound = 10,               ///< a struct member or an index that is not there
  // Transport outcomes, reported by clients and servers (fault code -32300 where one is sent).
  Timeout = 11,           ///< a deadline passed (connect, send or receive)
  ConnectFailed = 12,     ///< no connection: refused, unreachable, a name that does not resolve
  ConnectionClosed = 13,  ///< the peer closed or reset the connection before answering
  HttpStatus = 14,        ///< the peer answered with an HTTP status other than 200
  BadResponse = 15,       ///< the peer's answer is not valid HTTP or not an XML-RPC response
  Fault = 16,             ///< the peer answered with a fault; Error::fault_code is its code
  TlsError = 17,          ///< TLS handshake or certificate verification failed
  Stopped = 18,           ///< the client or server was stopped while the call waited
  Cancelled = 19,         ///< the caller cancelled the call (CallOptions::cancel)
};

/// The interop fault codes ("Specification for Fault Code Interoperability", 20010516).
namespace fault_code {
inline constexpr int32_t kParseError = -32700;
inline constexpr int32_t kUnsupportedEncoding = -32701;
inline constexpr int32_t kInvalidCharacter = -32702;
inline constexpr int32_t kInvalidXmlRpc = -32600;
inline constexpr int32_t kMethodNotFound = -32601;
inline constexpr int32_t kInvalidParams = -32602;
inline constexpr int32_t kInternalError = -32603;
inline constexpr int32_t kApplicationError = -32500;
inline constexpr int32_t kSystemError = -32400;
inline constexpr int32_t kTransportError = -32300;
}  // namespace fault_code

/// The short English name of a code ("not well formed", ...). Never null; static storage.
CALLWIRE_API const char* errc_name(Errc code) noexcept;

/// The interop fault code a peer should be sent for `code` (-32700 for NotWellFormed, ...);
/// -32603 (internal error) for codes that have no protocol meaning.
CALLWIRE_API int32_t errc_fault_code(Errc code) noexcept;

/// An error: its code, the fault code that goes on the wire and a message that says what and
/// where. Cheap to move; copying copies the message.
struct Error {
  Errc code = Errc::Ok;
  int32_t fault_code = 0;
  std::string message;
  /// A JSON-RPC error's "data" (Errc::Fault from a JSON-RPC peer that sent one; null
  /// otherwise). Shared, so copying an Error stays cheap; include callwire/value.hpp to read it.
  /// A handler that returns an Error with data answers JSON-RPC with it.
  std::shared_ptr<const Value> data;
  /// Errc::HttpStatus: the status the server answered (401, 404, 503, ...); 0 otherwise.
  int http_status = 0;
  /// Errc::HttpStatus: the answer's status line and header fields (a 401's WWW-Authenticate,
  /// a 503's or 429's Retry-After, a redirect's Location); null otherwise. Shared like
  /// `data`; include callwire/client.hpp to read it.
  std::shared_ptr<const HttpHead> http_head;

  Error() = default;
  Error(Errc c, std::string msg)
      : code(c), fault_code(errc_fault_code(c)), message(std::move(msg)) {}
  Error(Errc c, int32_t fault, std::string msg)
      : code(c), fault_code(fault), message(std::move(msg)) {}
};

/// The exception the throwing conveniences raise; carries the Error whole.
class CALLWIRE_API Exception : public std::runtime_error {
 public:
  explicit Exception(Error error);
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
};

/// The Error a successful Status reports (Errc::Ok, no message).
CALLWIRE_API const Error& no_error() noexcept;

/// Either a T or an Error, in the manner of std::expected. `if (result)` tests for success;
/// `value()` throws callwire::Exception on an error; `error()` is the error on failure, and
/// no_error() on success.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : ok_(true) {  // NOLINT: implicit by design
    ::new (static_cast<void*>(&value_)) T(std::move(value));
  }
  Result(Error error) : ok_(false) {  // NOLINT: implicit by design
    ::new (static_cast<void*>(&error_)) Error(std::move(error));
  }
  Result(const Result& other) : ok_(other.ok_) {
    if (ok_)
      ::new (static_cast<void*>(&value_)) T(other.value_);
    else
      ::new (static_cast<void*>(&error_)) Error(other.error_);
  }
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) : ok_(other.ok_) {
    if (ok_)
      ::new (static_cast<void*>(&value_)) T(std::move(other.value_));
    else
      ::new (static_cast<void*>(&error_)) Error(std::move(other.error_));
  }
  Result& operator=(const Result& other) {
    if (this != &other) *this = Result(other);  // a copy that throws leaves this as it was
    return *this;
  }
  Result& operator=(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this == &other) return *this;
    destroy();
    if (!other.ok_) {
      ::new (static_cast<void*>(&error_)) Error(std::move(other.error_));  // noexcept
      ok_ = false;
      return *this;
    }
    if constexpr (std::is_nothrow_move_constructible_v<T>) {
      ::new (static_cast<void*>(&value_)) T(std::move(other.value_));
    } else {
      try {
        ::new (static_cast<void*>(&value_)) T(std::move(other.value_));
      } catch (...) {  // this is left an empty Error
        ::new (static_cast<void*>(&error_)) Error();
        ok_ = false;
        throw;
      }
    }
    ok_ = true;
    return *this;
  }
  // The state tested inline: std::variant's destructor was a call per Result (1% of a typed
  // read, which gets a Result<bool> for every member and element).
  ~Result() { destroy(); }

  explicit operator bool() const noexcept { return ok_; }
  bool ok() const noexcept { return ok_; }

  T& value() & {
    check();
    return value_;
  }
  const T& value() const& {
    check();
    return value_;
  }
  T&& value() && {
    check();
    return std::move(value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const noexcept { return ok_ ? no_error() : error_; }

 private:
  void check() const {
    if (!ok_) throw Exception(error_);
  }
  void destroy() noexcept {
    if (ok_)
      value_.~T();
    else
      error_.~Error();
  }

  union {
    T value_;
    Error error_;
  };
  bool ok_;
};

/// A Result without a value: success, or an Error.
class [[nodiscard]] Status {
 public:
  // User-provided, so that `return {};` does not zero the whole Error first (value-
  // initialisation would: a `rep stos` of 88 bytes on every success a reader returns).
  Status() noexcept {}                               // NOLINT(modernize-use-equals-default)
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  explicit operator bool() const noexcept { return ok(); }
  bool ok() const noexcept { return !error_ || error_->code == Errc::Ok; }
  /// The error; on success one with Errc::Ok and no message.
  const Error& error() const noexcept { return error_ ? *error_ : no_error(); }
  /// Throws callwire::Exception when this holds an error.
  void check() const {
    if (!ok()) throw Exception(*error_);
  }

 private:
  // Empty on success: readers return a Status for every value they read, and an empty one
  // is made and dropped with a flag, where an Error has strings and shared pointers to set up
  // and tear down.
  std::optional<Error> error_;
};

}  // namespace callwire
