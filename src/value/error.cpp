#include "callwire/error.hpp"

namespace callwire {

const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::Ok: return "ok";
    case Errc::InvalidArgument: return "invalid argument";
    case Errc::NoMemory: return "out of memory";
    case Errc::NotWellFormed: return "not well formed";
    case Errc::UnsupportedEncoding: return "unsupported encoding";
    case Errc::InvalidCharacter: return "invalid character";
    case Errc::NotXmlRpc: return "not XML-RPC";
    case Errc::LimitExceeded: return "limit exceeded";
    case Errc::TypeMismatch: return "type mismatch";
    case Errc::Unrepresentable: return "unrepresentable value";
    case Errc::NotFound: return "not found";
  }
  return "unknown error";
}

int32_t errc_fault_code(Errc code) noexcept {
  switch (code) {
    case Errc::Ok: return 0;
    case Errc::NotWellFormed: return fault_code::kParseError;
    case Errc::UnsupportedEncoding: return fault_code::kUnsupportedEncoding;
    case Errc::InvalidCharacter: return fault_code::kInvalidCharacter;
    case Errc::NotXmlRpc:
    case Errc::LimitExceeded: return fault_code::kInvalidXmlRpc;
    case Errc::TypeMismatch: return fault_code::kInvalidParams;
    default: return fault_code::kInternalError;
  }
}

Exception::Exception(Error error)
    : std::runtime_error(error.message.empty() ? errc_name(error.code) : error.message),
      error_(std::move(error)) {}

}  // namespace callwire
