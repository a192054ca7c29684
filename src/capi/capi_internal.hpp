// callwire: what the C API's translation units share (src/capi/ only; never installed).
// Every extern "C" entry point is noexcept and funnels C++ exceptions through guard():
// std::bad_alloc becomes CW_NO_MEMORY, callwire::Exception its own code, anything else
// CW_INVALID_ARGUMENT. Nothing here aborts.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "callwire.h"
#include "callwire/error.hpp"
#include "callwire/json.hpp"
#include "callwire/tls.hpp"
#include "callwire/trace.hpp"
#include "callwire/value.hpp"
#include "callwire/xml.hpp"

// A handle is a Value and nothing else, so a Value inside an array or struct (or a handler's
// parameter) can be handed out as a borrowed `const cw_value*` (a standard-layout struct is
// pointer-interconvertible with its first member) without wrapping.
struct cw_value {
  callwire::Value value;
};

namespace callwire::capi {

static_assert(std::is_standard_layout_v<cw_value> && sizeof(cw_value) == sizeof(Value));

inline const cw_value* borrow(const Value& v) noexcept {
  return reinterpret_cast<const cw_value*>(&v);
}

// A new handle owning `v`, in *out. Throws std::bad_alloc (inside guard()).
cw_status make_handle(Value&& v, cw_value** out);

// A NUL-terminated copy of `bytes` that cw_free releases, in *out (and its length in *len_out
// when not NULL). From value storage, so the allocation-failure tests reach it. Throws
// std::bad_alloc (inside guard()).
void copy_out(std::string_view bytes, char** out, size_t* len_out);

// A call's method and parameters, checked (no NULL) and copied into `values`: for the client
// before any I/O, and for cw_encode_call.
cw_status copy_params(const char* method, const cw_value* const* params, size_t param_count,
                      std::vector<Value>& values, cw_error* error);

// `size` bytes that cw_free releases, from the same storage. Throws std::bad_alloc.
void* alloc_out(size_t size);

// A C caller may put any int in an enum; in C++ loading a value outside the enum's range is
// undefined (UBSan's -fsanitize=enum says so), so enums from C are read as their bits.
template <class E>
int enum_bits(const E& e) noexcept {
  static_assert(sizeof(E) == sizeof(int));
  int n;
  std::memcpy(&n, &e, sizeof n);
  return n;
}

inline cw_status to_status(Errc code) noexcept { return static_cast<cw_status>(code); }

// cw_datetime to DateTime: false for a field out of range or an unknown zone.
inline bool from_c_datetime(const cw_datetime& c, DateTime& d) noexcept {
  d.year = c.year;
  d.month = c.month;
  d.day = c.day;
  d.hour = c.hour;
  d.minute = c.minute;
  d.second = c.second;
  d.fraction_digits = c.fraction_digits;
  d.nanosecond = c.nanosecond;
  switch (enum_bits(c.zone)) {
    case CW_ZONE_NONE:
      d.zone = DateTime::Zone::None;
      break;
    case CW_ZONE_UTC:
      d.zone = DateTime::Zone::Utc;
      break;
    case CW_ZONE_OFFSET:
      d.zone = DateTime::Zone::Offset;
      break;
    default:
      return false;
  }
  d.offset_minutes = c.offset_minutes;
  return d.valid();
}

inline cw_datetime to_c_datetime(const DateTime& d) noexcept {
  cw_datetime c;
  std::memset(&c, 0, sizeof c);
  c.year = d.year;
  c.month = d.month;
  c.day = d.day;
  c.hour = d.hour;
  c.minute = d.minute;
  c.second = d.second;
  c.fraction_digits = d.fraction_digits;
  c.nanosecond = d.nanosecond;
  c.zone = d.zone == DateTime::Zone::Utc      ? CW_ZONE_UTC
           : d.zone == DateTime::Zone::Offset ? CW_ZONE_OFFSET
                                              : CW_ZONE_NONE;
  c.offset_minutes = d.offset_minutes;
  return c;
}

// Builds the Value `arg` describes (src/capi/described_capi.cpp). `where` names it in error
// messages ("params[1]"; empty for a value of its own).
cw_status build_described(const cw_arg& arg, Value& out, std::string where, cw_error* error);

inline void clear_error(cw_error* error) noexcept {
  if (!error) return;
  error->status = CW_OK;
  error->fault_code = 0;
  error->message[0] = '\0';
  error->http_status = 0;
}

// Copies `message` into cw_error's fixed buffer. One that does not fit keeps its start (what
// failed, where) and its end (usually the cause: "...: connection refused"), joined by " ... ",
// each cut on a UTF-8 character boundary so the text stays valid UTF-8.
template <size_t N>
void copy_message(char (&out)[N], std::string_view message) noexcept {
  static_assert(N > 64);
  if (message.size() < N) {
    std::memcpy(out, message.data(), message.size());
    out[message.size()] = '\0';
    return;
  }
  constexpr std::string_view kJoin = " ... ";
  auto is_continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  size_t tail = (N - 1 - kJoin.size()) / 3;  // a third for the end, the rest for the start
  size_t head = N - 1 - kJoin.size() - tail;
  while (head > 0 && is_continuation(message[head])) --head;  // message[head] starts the cut
  size_t tail_start = message.size() - tail;
  while (tail_start < message.size() && is_continuation(message[tail_start])) ++tail_start;
  char* p = out;
  std::memcpy(p, message.data(), head);
  p += head;
  std::memcpy(p, kJoin.data(), kJoin.size());
  p += kJoin.size();
  std::memcpy(p, message.data() + tail_start, message.size() - tail_start);
  p[message.size() - tail_start] = '\0';
}

inline cw_status set_error(cw_error* error, cw_status status, int32_t fault_code,
                           std::string_view message) noexcept {
  if (error) {
    error->status = status;
    error->fault_code = fault_code;
    copy_message(error->message, message);
    error->http_status = 0;
  }
  return status;
}

inline cw_status set_error(cw_error* error, Errc code, std::string_view message) noexcept {
  return set_error(error, to_status(code), errc_fault_code(code), message);
}

inline cw_status set_error(cw_error* error, const Error& e) noexcept {
  set_error(error, to_status(e.code), e.fault_code, e.message);
  if (error) error->http_status = e.http_status;
  return to_status(e.code);
}

// Runs `body` (which returns a cw_status) and turns any exception into a status; `error`, when
// given, receives the message.
template <class Body>
cw_status guard(cw_error* error, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return set_error(error, Errc::NoMemory, "out of memory");
  } catch (const Exception& e) {
    return set_error(error, e.error());
  } catch (...) {
    // Not expected from the core; reported rather than let through.
    return set_error(error, Errc::InvalidArgument, "unexpected internal error");
  }
}

template <class Body>
cw_status guard(Body&& body) noexcept {
  return guard(nullptr, static_cast<Body&&>(body));
}

// Options structs begin with `struct_size`: a caller built against an older header passes a
// smaller struct, and the fields past its end take their defaults. A size smaller than the
// first version's or larger than ours (a newer header: options this library cannot honour) is
// refused rather than half-applied.
template <class Options>
bool options_size_ok(const Options* o, size_t first_version_size) noexcept {
  return o->struct_size >= first_version_size && o->struct_size <= sizeof(Options);
}

// True when the caller's struct reaches `field` (see options_size_ok).
#define CW_HAS_FIELD(options, type, field) \
  ((options)->struct_size >= offsetof(type, field) + sizeof((options)->field))

// The C TLS options over the C++ ones, for servers and clients alike: NULL or zero keeps
// the default. CW_INVALID_ARGUMENT for a bad struct_size (tls_capi.cpp).
cw_status to_tls_options(const cw_tls_options* o, TlsOptions& out, cw_error* error);

// The C reader limits over the C++ ones: zero keeps the default (the reader clamps the depth).
inline void apply_reader_limits(const cw_reader_limits& c, xml::ReaderLimits& limits) noexcept {
  if (c.max_document_size) limits.max_document_size = c.max_document_size;
  if (c.max_depth) limits.max_depth = c.max_depth;
  if (c.max_elements) limits.max_elements = c.max_elements;
  if (c.max_string_size) limits.max_string_size = c.max_string_size;
}

// The same for JSON-RPC documents.
inline void apply_json_limits(const cw_json_limits& c, json::JsonLimits& limits) noexcept {
  if (c.max_document_size) limits.max_document_size = c.max_document_size;
  if (c.max_depth) limits.max_depth = c.max_depth;
  if (c.max_string_size) limits.max_string_size = c.max_string_size;
  if (c.max_batch_size) limits.max_batch_size = c.max_batch_size;
  if (c.max_elements) limits.max_elements = c.max_elements;
}

// A NUL-terminated C string as a view; NULL is empty.
inline std::string_view view(const char* s) noexcept { return s ? std::string_view(s) : ""; }

static_assert(int(TraceKind::ClientRequest) == CW_TRACE_CLIENT_REQUEST &&
              int(TraceKind::ClientAnswer) == CW_TRACE_CLIENT_ANSWER &&
              int(TraceKind::ServerRequest) == CW_TRACE_SERVER_REQUEST &&
              int(TraceKind::ServerAnswer) == CW_TRACE_SERVER_ANSWER);

/// A C trace callback as a TraceHook: each string copied once so the callback gets it
/// NUL-terminated.
inline TraceHook c_trace_hook(cw_trace_fn fn, void* data) {
  return [fn, data](const TraceEvent& e) {
    const std::string peer(e.peer), head(e.head), body(e.body);
    cw_trace_event c;
    c.kind = static_cast<cw_trace_kind>(e.kind);
    c.peer = peer.c_str();
    c.peer_len = peer.size();
    c.head = head.c_str();
    c.head_len = head.size();
    c.body = body.c_str();
    c.body_len = body.size();
    fn(&c, data);
  };
}

// By reference, as to_dialect.
inline bool to_framing(const cw_framing& f, callwire::ConnectionFraming& out) {
  switch (enum_bits(f)) {
    case CW_FRAMING_HTTP:
      out = callwire::ConnectionFraming::Http;
      return true;
    case CW_FRAMING_SCGI:
      out = callwire::ConnectionFraming::Scgi;
      return true;
    case CW_FRAMING_PSTREAM:
      out = callwire::ConnectionFraming::Pstream;
      return true;
    case CW_FRAMING_JSON_LINES:
      out = callwire::ConnectionFraming::JsonLines;
      return true;
    case CW_FRAMING_WEBSOCKET:
      out = callwire::ConnectionFraming::WebSocket;
      return true;
    default:
      return false;
  }
}

}  // namespace callwire::capi
