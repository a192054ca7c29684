#include "callwire/error.hpp"

namespace callwire {

const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::Ok:
      return "ok";
    case Errc::InvalidArgument:
      return "invalid argument";
    case Errc::NoMemory:
      return "out of memory";
    case Errc::NotWellFormed:
      return "not well formed";
    case Errc::UnsupportedEncoding:
      return "unsupported encoding";
    case Errc::InvalidCharacter:
      return "invalid character";
    case Errc::InvalidRequest:
      return "invalid request";
    case Errc::LimitExceeded:
      return "limit exceeded";
    case Errc::TypeMismatch:
      return "type mismatch";
    case Errc::Unrepresentable:
      return "unrepresentable value";
    case Errc::NotFound:
      return "not found";
    case Errc::Timeout:
      return "timed out";
    case Errc::ConnectFailed:
      return "cannot connect";
    case Errc::ConnectionClosed:
      return "connection closed";
    case Errc::HttpStatus:
      return "HTTP error status";
    case Errc::BadResponse:
      return "bad response";
    case Errc::Fault:
      return "fault";
    case Errc::TlsError:
      return "TLS error";
    case Errc::Stopped:
      return "stopped";
    case Errc::Cancelled:
      return "cancelled";
  }
  return "unknown error";
}

int32_t errc_fault_code(Errc code) noexcept {
  switch (code) {
    case Errc::Ok:
      return 0;
    case Errc::NotWellFormed:
      return fault_code::kParseError;
    case Errc::UnsupportedEncoding:
      return fault_code::kUnsupportedEncoding;
    case Errc::InvalidCharacter:
      return fault_code::kInvalidCharacter;
    case Errc::InvalidRequest:
    case Errc::LimitExceeded:
      return fault_code::kInvalidXmlRpc;
    case Errc::TypeMismatch:
      return fault_code::kInvalidParams;
    case Errc::Timeout:
    case Errc::ConnectFailed:
    case Errc::ConnectionClosed:
    case Errc::HttpStatus:
    case Errc::BadResponse:
    case Errc::TlsError:
    case Errc::Stopped:
    case Errc::Cancelled:
      return fault_code::kTransportError;
    default:
      return fault_code::kInternalError;
  }
}

Exception::Exception(Error error)
    : std::runtime_error(error.message.empty() ? errc_name(error.code) : error.message),
      error_(std::move(error)) {}

const Error& no_error() noexcept {
  static const Error& none = *new Error();  // never destroyed: usable from any destructor
  return none;
}

}  // namespace callwire
