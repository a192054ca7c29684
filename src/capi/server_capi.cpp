// callwire: the C API's server (include/callwire/c/server.h): cw_server over callwire::Server;
// cw_call, what a C handler sees of its call (c/handler.h; a C++ Handler adapts it); and
// cw_registry, methods without a server (c/registry.h).

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/ascii.hpp"
#include "base/secure_zero.hpp"
#include "callwire/cgi.hpp"
#include "callwire/dispatch.hpp"
#include "callwire/server.hpp"
#include "capi/capi_internal.hpp"
#include "net/fd.hpp"

using callwire::CallContext;
using callwire::Errc;
using callwire::Error;
using callwire::Fault;
using callwire::Value;
using namespace callwire::capi;

struct cw_server {
  callwire::Server server;
  std::vector<std::string> urls;  // filled by start, so cw_server_url can hand out C strings
  // Set once start has finished: port and url may be polled from another thread while
  // cw_server_run starts (the listeners are being built until then).
  std::atomic<bool> ready{false};

  explicit cw_server(callwire::ServerOptions options) : server(std::move(options)) {}
};

// A registry of its own, for dispatch without a server, and the dispatchers that serve it: one
// per thread dispatching at a moment, kept for the next call (each counts its own calls).
struct cw_registry {
  callwire::Registry registry;
  callwire::CgiOptions options;
  std::mutex mutex;
  std::vector<std::unique_ptr<callwire::RequestDispatcher>> idle;
};

struct cw_call {
  callwire::Params params;
  CallContext& context;
  Value result;                // nil unless a cw_call_return* set it
  std::optional<Fault> fault;  // set by cw_call_fault: wins over everything
  std::string param_error;     // the -32602 message of the last failed cw_call_param_*
  std::string method, peer, user, tls_subject;  // NUL-terminated copies, made when asked for
  // The request's header fields as NUL-terminated copies (name, value), made when first asked
  // for (they are views into the receive buffer). A deque: its strings never move.
  std::deque<std::pair<std::string, std::string>> headers;
  const std::deque<std::pair<std::string, std::string>>& header_copies() {
    if (headers.empty())
      for (const callwire::HeaderField& f : context.headers())
        headers.emplace_back(f.name, f.value);
    return headers;
  }

  cw_call(callwire::Params p, CallContext& c) : params(p), context(c) {}
};

namespace {

// The first cw_server_options had every field up to `realm`.
constexpr size_t kServerOptionsV1 = offsetof(cw_server_options, realm) + sizeof(const char*);

std::chrono::milliseconds ms_or(uint32_t ms, std::chrono::milliseconds fallback) {
  return ms ? std::chrono::milliseconds(ms) : fallback;
}

// By reference: a C caller may put any int in the enum, and loading one outside its range is
// undefined in C++ (enum_bits reads the bits).
bool to_dialect(const cw_dialect& d, callwire::OutputDialect& out) {
  switch (enum_bits(d)) {
    case CW_DIALECT_AUTO:
      out = callwire::OutputDialect::Auto;
      return true;
    case CW_DIALECT_I8:
      out = callwire::OutputDialect::I8;
      return true;
    case CW_DIALECT_APACHE:
      out = callwire::OutputDialect::Apache;
      return true;
    default:
      return false;
  }
}

// The C options over ServerOptions' defaults: zero keeps the default.
cw_status to_server_options(const cw_server_options* o, callwire::ServerOptions& out,
                            cw_error* error) {
  if (!o) return CW_OK;
  if (!options_size_ok(o, kServerOptionsV1)) {
    return set_error(error, Errc::InvalidArgument, "cw_server_options: bad struct_size");
  }
  if (o->listen) out.listen = {o->listen};
  if (o->threads) out.threads = o->threads;
  if (o->handler_threads) out.handler_threads = o->handler_threads;
  if (o->max_connections) out.max_connections = o->max_connections;
  out.request_timeout = ms_or(o->request_timeout_ms, out.request_timeout);
  out.idle_timeout = ms_or(o->idle_timeout_ms, out.idle_timeout);
  out.write_timeout = ms_or(o->write_timeout_ms, out.write_timeout);
  out.stop_grace = ms_or(o->stop_grace_ms, out.stop_grace);
  if (o->max_body) out.max_body = o->max_body;
  if (o->max_multicall_calls) out.max_multicall_calls = o->max_multicall_calls;
  if (!to_dialect(o->dialect, out.dialect))
    return set_error(error, Errc::InvalidArgument, "cw_server_options: unknown dialect");
  out.introspection = o->disable_introspection == 0;
  out.enable_shutdown = o->enable_shutdown != 0;
  if (cw_status st = to_tls_options(o->tls, out.tls, error); st != CW_OK) return st;
  if (o->authenticate) {
    out.authenticate = [fn = o->authenticate, data = o->authenticate_data](
                           std::string_view user, std::string_view password) {
      // Copied so that the callback gets them NUL-terminated; the password's copy is wiped.
      std::string u(user), p(password);
      const bool ok = fn(u.c_str(), u.size(), p.c_str(), p.size(), data) != 0;
      callwire::secure_zero(p.data(), p.size());
      return ok;
    };
  }
  if (o->realm) out.realm = o->realm;
  if (CW_HAS_FIELD(o, cw_server_options, call_timeout_ms)) {
    out.call_timeout = std::chrono::milliseconds(o->call_timeout_ms);
  }
  if (CW_HAS_FIELD(o, cw_server_options, gzip_min_size)) out.gzip_min_size = o->gzip_min_size;
  if (CW_HAS_FIELD(o, cw_server_options, max_buffer_memory) && o->max_buffer_memory)
    out.max_buffer_memory = o->max_buffer_memory;
  if (CW_HAS_FIELD(o, cw_server_options, max_pending_output) && o->max_pending_output)
    out.max_pending_output = o->max_pending_output;
  if (CW_HAS_FIELD(o, cw_server_options, path_count) && o->path_count > 0) {
    if (!o->paths)
      return set_error(error, Errc::InvalidArgument, "cw_server_options: paths is NULL");
    out.paths.clear();
    for (size_t i = 0; i < o->path_count; ++i) {
      if (!o->paths[i]) {
        return set_error(error, Errc::InvalidArgument, "cw_server_options: a NULL path");
      }
      out.paths.emplace_back(o->paths[i]);
    }
  }
  if (CW_HAS_FIELD(o, cw_server_options, listen_count) && o->listen_count > 0) {
    if (!o->listens)
      return set_error(error, Errc::InvalidArgument, "cw_server_options: listens is NULL");
    out.listen.clear();
    for (size_t i = 0; i < o->listen_count; ++i) {
      if (!o->listens[i])
        return set_error(error, Errc::InvalidArgument, "cw_server_options: a NULL listen");
      out.listen.emplace_back(o->listens[i]);
    }
  }
  if (CW_HAS_FIELD(o, cw_server_options, max_header_bytes) && o->max_header_bytes)
    out.max_header_bytes = o->max_header_bytes;
  if (CW_HAS_FIELD(o, cw_server_options, reader_limits))
    apply_reader_limits(o->reader_limits, out.reader_limits);
  if (CW_HAS_FIELD(o, cw_server_options, json_limits))
    apply_json_limits(o->json_limits, out.json_limits);
  if (CW_HAS_FIELD(o, cw_server_options, max_requests_per_connection))
    out.max_requests_per_connection = o->max_requests_per_connection;
  if (CW_HAS_FIELD(o, cw_server_options, cors_allow_origin) && o->cors_allow_origin)
    out.cors_allow_origin = o->cors_allow_origin;
  if (CW_HAS_FIELD(o, cw_server_options, cors_max_age_s))
    out.cors_max_age = std::chrono::seconds(o->cors_max_age_s);
  if (CW_HAS_FIELD(o, cw_server_options, client_cert_optional))
    out.client_cert_optional = o->client_cert_optional != 0;
  if (CW_HAS_FIELD(o, cw_server_options, host_loop)) out.host_loop = o->host_loop != 0;
  if (CW_HAS_FIELD(o, cw_server_options, error_log_data) && o->error_log) {
    out.error_log = [fn = o->error_log,
                     data = o->error_log_data](const callwire::ErrorLogEntry& e) {
      std::string peer(e.peer), message(e.message);  // NUL-terminated copies
      fn(peer.c_str(), message.c_str(), data);
    };
  }
  if (CW_HAS_FIELD(o, cw_server_options, reuse_port)) out.reuse_port = o->reuse_port != 0;
  if (CW_HAS_FIELD(o, cw_server_options, health_path) && o->health_path)
    out.health_path = o->health_path;
  if (CW_HAS_FIELD(o, cw_server_options, metrics_path) && o->metrics_path)
    out.metrics_path = o->metrics_path;
  if (CW_HAS_FIELD(o, cw_server_options, metrics_authorization) && o->metrics_authorization)
    out.metrics_authorization = o->metrics_authorization;
  if (CW_HAS_FIELD(o, cw_server_options, trusted_proxy_count) && o->trusted_proxy_count > 0) {
    if (!o->trusted_proxies)
      return set_error(error, Errc::InvalidArgument, "cw_server_options: trusted_proxies is NULL");
    for (size_t i = 0; i < o->trusted_proxy_count; ++i) {
      if (!o->trusted_proxies[i])
        return set_error(error, Errc::InvalidArgument, "cw_server_options: a NULL trusted proxy");
      out.trusted_proxies.emplace_back(o->trusted_proxies[i]);
    }
  }
  if (CW_HAS_FIELD(o, cw_server_options, trace_data) && o->trace)
    out.trace = c_trace_hook(o->trace, o->trace_data);
  if (CW_HAS_FIELD(o, cw_server_options, on_shutdown_data) && o->on_shutdown) {
    out.on_shutdown = [fn = o->on_shutdown, data = o->on_shutdown_data](std::string_view comment) {
      const std::string text(comment);  // NUL-terminated for C
      fn(text.c_str(), text.size(), data);
    };
  }
  if (CW_HAS_FIELD(o, cw_server_options, access_log_data) && o->access_log) {
    out.access_log = [fn = o->access_log,
                      data = o->access_log_data](const callwire::AccessLogEntry& e) {
      // Copied so that the callback gets them NUL-terminated.
      const std::string peer(e.peer), user(e.user), method(e.method);
      cw_access_log_entry c;
      c.peer = peer.c_str();
      c.peer_len = peer.size();
      c.user = user.c_str();
      c.user_len = user.size();
      c.method = method.c_str();
      c.method_len = method.size();
      c.http_status = e.http_status;
      c.fault_code = e.fault_code;
      c.request_bytes = e.request_bytes;
      c.response_bytes = e.response_bytes;
      c.duration_ns = e.duration.count();
      c.time_unix_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(e.time.time_since_epoch()).count();
      fn(&c, data);
    };
  }
  return CW_OK;
}

// xmlrpc-c's signature notation ("i:ii,s:s") as MethodInfo::signatures. NULL, "" and "?"
// mean none.
cw_status parse_signatures(const char* text, std::vector<std::vector<std::string>>& out,
                           cw_error* error) {
  std::string_view s = view(text);
  if (s.empty() || s == "?") return CW_OK;
  auto type_of = [](char c) -> const char* {
    switch (c) {
      case 'i':
        return "int";
      case 'I':
        return "i8";
      case 'b':
        return "boolean";
      case 'd':
        return "double";
      case 's':
        return "string";
      case '8':
        return "dateTime.iso8601";
      case '6':
        return "base64";
      case 'A':
        return "array";
      case 'S':
        return "struct";
      case 'n':
        return "nil";
      default:
        return nullptr;
    }
  };
  auto bad = [&](std::string why) {
    return set_error(error, Errc::InvalidArgument,
                     "signature \"" + std::string(s) + "\": " + std::move(why));
  };
  size_t pos = 0;
  while (true) {
    size_t end = s.find(',', pos);
    std::string_view one = s.substr(pos, end == std::string_view::npos ? s.npos : end - pos);
    if (one.size() < 2 || one[1] != ':') return bad("each signature is R:PARAMS, as \"i:ii\"");
    std::vector<std::string> types;
    for (size_t i = 0; i < one.size(); ++i) {
      if (i == 1) continue;  // the colon
      const char* name = type_of(one[i]);
      if (!name) return bad(std::string("unknown type letter '") + one[i] + "'");
      types.emplace_back(name);
    }
    out.push_back(std::move(types));
    if (end == std::string_view::npos) return CW_OK;
    pos = end + 1;
  }
}

// Answers the C++ dispatcher for one C handler run (see cw_method_fn for the rules).
Value finish_call(cw_call& call, int status) {
  if (call.fault) throw callwire::FaultError(std::move(*call.fault));
  if (status == CW_OK) return std::move(call.result);
  if (!call.param_error.empty() && (status == CW_TYPE_MISMATCH || status == CW_NOT_FOUND)) {
    throw callwire::FaultError(callwire::fault_code::kInvalidParams, std::move(call.param_error));
  }
  std::string name = status >= 0 && status <= CW_STOPPED
                         ? callwire::errc_name(static_cast<Errc>(status))
                         : "unknown status " + std::to_string(status);
  throw callwire::FaultError(callwire::fault_code::kInternalError,
                             std::string(call.context.method()) + " failed: " + name);
}

// Records the -32602 message for parameter `index`: missing, or not of type `want`.
void record_param_error(cw_call* call, size_t index, const Value* got,
                        callwire::Type want) noexcept {
  try {
    std::string& m = call->param_error;
    m.assign(call->context.method());
    m += ": parameter " + std::to_string(index + 1);
    if (got) {
      m += std::string(" must be ") + callwire::type_name(want) + ", got " +
           callwire::type_name(got->type());
    } else {
      m += " is missing (" + std::to_string(call->params.size()) + " given)";
    }
  } catch (...) {
    call->param_error.clear();  // out of memory: the fault falls back to -32603
  }
}

// Parameter `index` read by `get` (a cw_value_get_* with its outputs bound) when `is` says it
// holds the type `want`; otherwise the -32602 message is recorded.
template <class Get>
cw_status param_as(cw_call* call, size_t index, bool (Value::*is)() const noexcept,
                   callwire::Type want, Get&& get) noexcept {
  if (index >= call->params.size()) {
    record_param_error(call, index, nullptr, want);
    return CW_NOT_FOUND;
  }
  const Value& v = call->params[index];
  if (!(v.*is)()) {
    record_param_error(call, index, &v, want);
    return CW_TYPE_MISMATCH;
  }
  return get(borrow(v));
}

const char* cached(std::string& slot, std::string_view text) noexcept {
  if (slot.empty() && !text.empty()) {
    try {
      slot.assign(text);
    } catch (...) {
      return "";
    }
  }
  return slot.c_str();
}

cw_status set_result(cw_call* call, Value&& v) {
  call->result = std::move(v);
  return CW_OK;
}

// Both take `fd` whatever happens: closed here when they refuse before the server has it.
template <class Serve>
cw_status hand_connection(cw_server* server, int fd, const cw_framing& framing, cw_error* error,
                          Serve serve) {
  clear_error(error);
  callwire::ConnectionFraming f{};
  if (!server || !to_framing(framing, f)) {
    callwire::net::UniqueFd closed(fd);  // -1 is left alone
    return set_error(error, Errc::InvalidArgument,
                     server ? "unknown cw_framing" : "server must not be NULL");
  }
  bool handed = false;
  cw_status st = guard(error, [&] {
    handed = true;
    callwire::Status s = serve(server->server, fd, f);
    return s ? CW_OK : set_error(error, s.error());
  });
  if (!handed) callwire::net::UniqueFd closed(fd);
  return st;
}

// A C method as a registry handler: cw_call over the parameters, the answer as fn says.
callwire::Handler c_handler(cw_method_fn fn, void* user_data) {
  return [fn, user_data](callwire::Params params, CallContext& context) -> Value {
    cw_call call(params, context);
    cw_status status = fn(&call, user_data);
    return finish_call(call, enum_bits(status));
  };
}

cw_status set_c_default_method(callwire::Registry& registry, cw_method_fn fn, void* user_data,
                               cw_error* error) {
  return guard(error, [&] {
    callwire::Handler handler;
    if (fn) handler = c_handler(fn, user_data);
    callwire::Status st = registry.set_default_method(std::move(handler));
    return st ? CW_OK : set_error(error, st.error());
  });
}

cw_status set_c_preinvoke(callwire::Registry& registry, cw_preinvoke_fn fn, void* user_data,
                          cw_error* error) {
  return guard(error, [&] {
    callwire::PreInvoke hook;
    if (fn)
      hook = [fn, user_data](CallContext& context,
                             std::span<const Value> params) -> std::optional<Fault> {
        // The hook only reads the parameters (cw_call_param_* borrow them).
        cw_call call(callwire::Params(const_cast<Value*>(params.data()), params.size()), context);
        cw_status status = fn(&call, user_data);
        if (status == CW_OK && !call.fault) return std::nullopt;
        try {
          finish_call(call, enum_bits(status));  // throws: a fault, or status is not CW_OK
        } catch (const callwire::FaultError& e) {
          return e.fault();
        }
        return Fault{callwire::fault_code::kInternalError, "the pre-invoke hook failed"};
      };
    callwire::Status st = registry.set_preinvoke(std::move(hook));
    return st ? CW_OK : set_error(error, st.error());
  });
}

}  // namespace

extern "C" {

cw_status cw_server_set_default_method(cw_server* server, cw_method_fn fn, void* user_data,
                                       cw_error* error) {
  clear_error(error);
  if (!server) return set_error(error, Errc::InvalidArgument, "server must not be NULL");
  return set_c_default_method(server->server.registry(), fn, user_data, error);
}

cw_status cw_server_set_preinvoke(cw_server* server, cw_preinvoke_fn fn, void* user_data,
                                  cw_error* error) {
  clear_error(error);
  if (!server) return set_error(error, Errc::InvalidArgument, "server must not be NULL");
  return set_c_preinvoke(server->server.registry(), fn, user_data, error);
}

cw_status cw_registry_set_default_method(cw_registry* registry, cw_method_fn fn, void* user_data,
                                         cw_error* error) {
  clear_error(error);
  if (!registry) return set_error(error, Errc::InvalidArgument, "registry must not be NULL");
  return set_c_default_method(registry->registry, fn, user_data, error);
}

cw_status cw_registry_set_preinvoke(cw_registry* registry, cw_preinvoke_fn fn, void* user_data,
                                    cw_error* error) {
  clear_error(error);
  if (!registry) return set_error(error, Errc::InvalidArgument, "registry must not be NULL");
  return set_c_preinvoke(registry->registry, fn, user_data, error);
}

int cw_constant_time_equal(const char* given, size_t given_len, const char* expected,
                           size_t expected_len) {
  if ((!given && given_len) || (!expected && expected_len)) return 0;
  return callwire::constant_time_equal({given ? given : "", given_len},
                                       {expected ? expected : "", expected_len});
}

void cw_server_options_init(cw_server_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

cw_status cw_server_new(const cw_server_options* options, cw_server** out, cw_error* error) {
  clear_error(error);
  if (!out) return set_error(error, Errc::InvalidArgument, "out must not be NULL");
  return guard(error, [&] {
    callwire::ServerOptions o;
    if (cw_status st = to_server_options(options, o, error); st != CW_OK) return st;
    *out = new cw_server(std::move(o));
    return CW_OK;
  });
}

void cw_server_free(cw_server* server) { delete server; }

namespace {

// Registers a C method. `names`: NULL, or the parameters' names ended by NULL
// (cw_server_add_named_method).
cw_status add_c_method(callwire::Registry& registry, const char* method, cw_method_fn fn,
                       void* user_data, const char* signature, const char* help,
                       const char* const* names, cw_error* error) {
  return guard(error, [&] {
    callwire::MethodInfo info;
    if (cw_status st = parse_signatures(signature, info.signatures, error); st != CW_OK) {
      return st;
    }
    info.help = view(help);
    for (; names && *names; ++names) info.parameter_names.emplace_back(*names);
    callwire::Status st = registry.add(method, c_handler(fn, user_data), std::move(info));
    return st ? CW_OK : set_error(error, st.error());
  });
}

}  // namespace

cw_status cw_server_add_method(cw_server* server, const char* method, cw_method_fn fn,
                               void* user_data, const char* signature, const char* help,
                               cw_error* error) {
  clear_error(error);
  if (!server || !method || !fn) {
    return set_error(error, Errc::InvalidArgument, "server, method and fn must not be NULL");
  }
  return add_c_method(server->server.registry(), method, fn, user_data, signature, help, nullptr,
                      error);
}

cw_status cw_server_add_named_method(cw_server* server, const char* method,
                                     const char* const* parameter_names, cw_method_fn fn,
                                     void* user_data, const char* signature, const char* help,
                                     cw_error* error) {
  clear_error(error);
  if (!server || !method || !parameter_names || !fn) {
    return set_error(error, Errc::InvalidArgument,
                     "server, method, parameter_names and fn must not be NULL");
  }
  return add_c_method(server->server.registry(), method, fn, user_data, signature, help,
                      parameter_names, error);
}

cw_status cw_server_start(cw_server* server, cw_error* error) {
  clear_error(error);
  if (!server) return set_error(error, Errc::InvalidArgument, "server must not be NULL");
  return guard(error, [&] {
    callwire::Status st = server->server.start();
    if (!st) return set_error(error, st.error());
    for (size_t i = 0; !server->server.url(i).empty(); ++i)
      server->urls.push_back(server->server.url(i));
    server->ready.store(true, std::memory_order_release);
    return CW_OK;
  });
}

void cw_server_wait(cw_server* server) {
  if (server) server->server.wait();
}

cw_status cw_server_run(cw_server* server, cw_error* error) {
  cw_status st = cw_server_start(server, error);
  if (st == CW_OK) server->server.wait();
  return st;
}

void cw_server_stop(cw_server* server) {
  if (server) server->server.stop();
}

cw_status cw_server_reload_tls(cw_server* server, cw_error* error) {
  if (!server) return set_error(error, Errc::InvalidArgument, "cw_server_reload_tls: NULL server");
  return guard(error, [&] {
    callwire::Status reloaded = server->server.reload_tls();
    return reloaded ? CW_OK : set_error(error, reloaded.error());
  });
}

int cw_server_loop_fd(const cw_server* server) { return server ? server->server.loop_fd() : -1; }

int cw_server_loop_timeout_ms(cw_server* server) {
  return server ? static_cast<int>(server->server.loop_timeout().count()) : -1;
}

int cw_server_process(cw_server* server) {
  if (!server) return 0;
  try {
    return server->server.process() ? 1 : 0;
  } catch (const std::bad_alloc&) {
    return 1;  // out of memory for now: the host comes back
  }
}

uint16_t cw_server_port(const cw_server* server) { return cw_server_listener_port(server, 0); }

const char* cw_server_url(const cw_server* server) { return cw_server_listener_url(server, 0); }

uint16_t cw_server_listener_port(const cw_server* server, size_t index) {
  if (!server || !server->ready.load(std::memory_order_acquire)) return 0;
  return server->server.port(index);
}

const char* cw_server_listener_url(const cw_server* server, size_t index) {
  if (!server || !server->ready.load(std::memory_order_acquire)) return "";
  return index < server->urls.size() ? server->urls[index].c_str() : "";
}

cw_status cw_server_adopt_connection(cw_server* server, int fd, cw_framing framing,
                                     cw_error* error) {
  return hand_connection(server, fd, framing, error,
                         [](callwire::Server& s, int fd, callwire::ConnectionFraming f) {
                           return s.adopt_connection(fd, f);
                         });
}

cw_status cw_server_serve_connection(cw_server* server, int fd, cw_framing framing,
                                     cw_error* error) {
  return hand_connection(server, fd, framing, error,
                         [](callwire::Server& s, int fd, callwire::ConnectionFraming f) {
                           return s.serve_connection(fd, f);
                         });
}

// ---- cw_call ----

struct cw_notifier {
  callwire::Notifier notifier;
};

cw_notifier* cw_call_notifier(cw_call* call) {
  if (!call) return nullptr;
  callwire::Notifier n = call->context.notifier();
  if (!n) return nullptr;
  return new (std::nothrow) cw_notifier{std::move(n)};
}

cw_status cw_notifier_send(const cw_notifier* notifier, const char* method, const cw_value* params,
                           cw_error* error) {
  clear_error(error);
  if (!notifier || !method)
    return set_error(error, Errc::InvalidArgument, "notifier and method must not be NULL");
  return guard(error, [&] {
    callwire::Status s = params ? notifier->notifier.notify(method, params->value)
                                : notifier->notifier.notify(method);
    return s ? CW_OK : set_error(error, s.error());
  });
}

int cw_notifier_connected(const cw_notifier* notifier) {
  return notifier && notifier->notifier.connected() ? 1 : 0;
}

void cw_notifier_free(cw_notifier* notifier) { delete notifier; }

const char* cw_call_method(cw_call* call) {
  return call ? cached(call->method, call->context.method()) : "";
}

const char* cw_call_peer(cw_call* call) {
  return call ? cached(call->peer, call->context.peer()) : "";
}

const char* cw_call_user(cw_call* call) {
  return call ? cached(call->user, call->context.user()) : "";
}

const char* cw_call_tls_subject(cw_call* call) {
  return call ? cached(call->tls_subject, call->context.tls_subject()) : "";
}

cw_status cw_call_header(cw_call* call, const char* name, const char** value_out, size_t* len_out) {
  if (!call || !name || !value_out || !len_out) return CW_INVALID_ARGUMENT;
  for (const auto& [field_name, value] : call->header_copies()) {
    if (!callwire::base::iequals(field_name, name)) continue;
    *value_out = value.c_str();
    *len_out = value.size();
    return CW_OK;
  }
  return CW_NOT_FOUND;
}

size_t cw_call_header_count(cw_call* call) { return call ? call->context.headers().size() : 0; }

cw_status cw_call_header_at(cw_call* call, size_t index, const char** name_out,
                            size_t* name_len_out, const char** value_out, size_t* value_len_out) {
  if (!call || !name_out || !name_len_out || !value_out || !value_len_out) {
    return CW_INVALID_ARGUMENT;
  }
  const auto& fields = call->header_copies();
  if (index >= fields.size()) return CW_NOT_FOUND;
  *name_out = fields[index].first.c_str();
  *name_len_out = fields[index].first.size();
  *value_out = fields[index].second.c_str();
  *value_len_out = fields[index].second.size();
  return CW_OK;
}

int64_t cw_call_remaining_ms(cw_call* call) {
  if (!call) return 0;
  auto left = call->context.remaining();
  if (left == std::chrono::steady_clock::duration::max()) return INT64_MAX;
  // Rounded up: 0 must mean the deadline has passed, not that less than 1 ms is left (a
  // handler polling for 0 would stop early, and the calls after it still run).
  return std::chrono::ceil<std::chrono::milliseconds>(left).count();
}

size_t cw_call_param_count(cw_call* call) { return call ? call->params.size() : 0; }

cw_status cw_call_param(cw_call* call, size_t index, const cw_value** out) {
  if (!call || !out) return CW_INVALID_ARGUMENT;
  if (index >= call->params.size()) return CW_NOT_FOUND;
  *out = borrow(call->params[index]);
  return CW_OK;
}

cw_status cw_call_param_bool(cw_call* call, size_t index, int* out) {
  if (!call || !out) return CW_INVALID_ARGUMENT;
  return param_as(call, index, &Value::is_bool, callwire::Type::Boolean,
                  [&](const cw_value* v) { return cw_value_get_bool(v, out); });
}

cw_status cw_call_param_int(cw_call* call, size_t index, int32_t* out) {
  if (!call || !out) return CW_INVALID_ARGUMENT;
  return param_as(call, index, &Value::is_int, callwire::Type::Int,
                  [&](const cw_value* v) { return cw_value_get_int(v, out); });
}

cw_status cw_call_param_i8(cw_call* call, size_t index, int64_t* out) {
  if (!call || !out) return CW_INVALID_ARGUMENT;
  return param_as(call, index, &Value::is_integer, callwire::Type::I8,
                  [&](const cw_value* v) { return cw_value_get_i8(v, out); });
}

cw_status cw_call_param_double(cw_call* call, size_t index, double* out) {
  if (!call || !out) return CW_INVALID_ARGUMENT;
  return param_as(call, index, &Value::is_double, callwire::Type::Double,
                  [&](const cw_value* v) { return cw_value_get_double(v, out); });
}

cw_status cw_call_param_string(cw_call* call, size_t index, const char** data_out,
                               size_t* len_out) {
  if (!call || !data_out || !len_out) return CW_INVALID_ARGUMENT;
  return param_as(call, index, &Value::is_string, callwire::Type::String,
                  [&](const cw_value* v) { return cw_value_get_string(v, data_out, len_out); });
}

cw_status cw_call_param_datetime(cw_call* call, size_t index, cw_datetime* out) {
  if (!call || !out) return CW_INVALID_ARGUMENT;
  return param_as(call, index, &Value::is_datetime, callwire::Type::DateTime,
                  [&](const cw_value* v) { return cw_value_get_datetime(v, out); });
}

cw_status cw_call_param_bytes(cw_call* call, size_t index, const void** data_out, size_t* len_out) {
  if (!call || !data_out || !len_out) return CW_INVALID_ARGUMENT;
  return param_as(call, index, &Value::is_bytes, callwire::Type::Bytes,
                  [&](const cw_value* v) { return cw_value_get_bytes(v, data_out, len_out); });
}

cw_status cw_call_return(cw_call* call, const cw_value* result) {
  if (!call || !result) return CW_INVALID_ARGUMENT;
  return guard([&] { return set_result(call, Value(result->value)); });
}

cw_status cw_call_return_take(cw_call* call, cw_value* result) {
  if (!call || !result) {
    cw_value_free(result);
    return CW_INVALID_ARGUMENT;
  }
  call->result = std::move(result->value);  // a move: cannot fail
  cw_value_free(result);
  return CW_OK;
}

cw_status cw_call_return_nil(cw_call* call) {
  if (!call) return CW_INVALID_ARGUMENT;
  return set_result(call, Value());
}

cw_status cw_call_return_bool(cw_call* call, int b) {
  if (!call) return CW_INVALID_ARGUMENT;
  return set_result(call, Value(b != 0));
}

cw_status cw_call_return_int(cw_call* call, int32_t n) {
  if (!call) return CW_INVALID_ARGUMENT;
  return set_result(call, Value(n));
}

cw_status cw_call_return_i8(cw_call* call, int64_t n) {
  if (!call) return CW_INVALID_ARGUMENT;
  return set_result(call, Value::i8(n));
}

cw_status cw_call_return_double(cw_call* call, double d) {
  if (!call) return CW_INVALID_ARGUMENT;
  return set_result(call, Value(d));
}

cw_status cw_call_return_string(cw_call* call, const char* data, size_t len) {
  if (!call || (!data && len > 0)) return CW_INVALID_ARGUMENT;
  return guard([&] { return set_result(call, Value(std::string_view(data ? data : "", len))); });
}

cw_status cw_server_metrics_text(const cw_server* server, char** text_out, size_t* len_out) {
  if (!server || !text_out) return CW_INVALID_ARGUMENT;
  return guard([&] {
    copy_out(server->server.metrics_text(), text_out, len_out);
    return CW_OK;
  });
}

cw_status cw_server_method_stats(const cw_server* server, cw_method_stats** stats_out,
                                 size_t* count_out) {
  if (!server || !stats_out || !count_out) return CW_INVALID_ARGUMENT;
  return guard([&] {
    std::vector<callwire::MethodStats> stats = server->server.method_stats();
    // One block: the entries, then their names, so that one cw_free releases it all.
    size_t bytes = stats.size() * sizeof(cw_method_stats);
    for (const auto& m : stats) bytes += m.name.size() + 1;
    char* block = static_cast<char*>(alloc_out(bytes > 0 ? bytes : 1));
    auto* entries = reinterpret_cast<cw_method_stats*>(block);
    char* names = block + stats.size() * sizeof(cw_method_stats);
    for (size_t i = 0; i < stats.size(); ++i) {
      std::memcpy(names, stats[i].name.c_str(), stats[i].name.size() + 1);
      entries[i].name = names;
      entries[i].calls = stats[i].calls;
      entries[i].faults = stats[i].faults;
      entries[i].total_ns = static_cast<uint64_t>(stats[i].total_time.count());
      names += stats[i].name.size() + 1;
    }
    *stats_out = entries;
    *count_out = stats.size();
    return CW_OK;
  });
}

cw_status cw_call_return_cstring(cw_call* call, const char* s) {
  if (!s) return CW_INVALID_ARGUMENT;
  return cw_call_return_string(call, s, std::strlen(s));
}

cw_status cw_call_return_arg(cw_call* call, cw_arg arg) {
  if (!call) return CW_INVALID_ARGUMENT;
  return guard([&] {
    Value v;
    if (cw_status st = build_described(arg, v, "result", nullptr)) return st;
    return set_result(call, std::move(v));
  });
}

cw_status cw_call_fault(cw_call* call, int32_t code, const char* message) {
  return cw_call_fault_data(call, code, message, nullptr);
}

cw_status cw_call_fault_data(cw_call* call, int32_t code, const char* message,
                             const cw_value* data) {
  if (!call) return CW_INVALID_ARGUMENT;
  return guard([&] {
    Fault fault{code, std::string(view(message))};
    if (data) fault.data = data->value;
    call->fault.emplace(std::move(fault));
    return CW_FAULT;
  });
}

cw_status cw_call_latch_fault(cw_call* call, int32_t code, const char* message) {
  if (!call) return CW_INVALID_ARGUMENT;
  return guard([&] {
    call->context.latch_fault(Fault{code, std::string(view(message))});
    return CW_OK;
  });
}

// ---- a registry without a server ----

namespace {

// The C options over the defaults of CgiOptions (and its DispatcherOptions): zero keeps one.
cw_status to_cgi_options(const cw_dispatch_options* o, callwire::CgiOptions& out, cw_error* error) {
  if (!o) return CW_OK;
  constexpr size_t kFirstVersion = offsetof(cw_dispatch_options, max_body) + sizeof(size_t);
  if (!options_size_ok(o, kFirstVersion)) {
    return set_error(error, Errc::InvalidArgument, "cw_dispatch_options: bad struct_size");
  }
  callwire::DispatcherOptions& d = out.dispatch;
  if (o->max_multicall_calls) d.max_multicall_calls = o->max_multicall_calls;
  if (!to_dialect(o->dialect, d.dialect))
    return set_error(error, Errc::InvalidArgument, "cw_dispatch_options: unknown dialect");
  d.introspection = o->disable_introspection == 0;
  d.call_timeout = std::chrono::milliseconds(o->call_timeout_ms);
  if (o->max_body) out.max_body = o->max_body;
  if (CW_HAS_FIELD(o, cw_dispatch_options, reader_limits))
    apply_reader_limits(o->reader_limits, d.reader_limits);
  if (CW_HAS_FIELD(o, cw_dispatch_options, json_limits))
    apply_json_limits(o->json_limits, d.json_limits);
  return CW_OK;
}

}  // namespace

void cw_dispatch_options_init(cw_dispatch_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

cw_status cw_registry_new(const cw_dispatch_options* options, cw_registry** out, cw_error* error) {
  clear_error(error);
  if (!out) return set_error(error, Errc::InvalidArgument, "out must not be NULL");
  return guard(error, [&] {
    callwire::CgiOptions o;
    if (cw_status st = to_cgi_options(options, o, error); st != CW_OK) return st;
    auto registry = std::make_unique<cw_registry>();
    registry->options = std::move(o);
    *out = registry.release();
    return CW_OK;
  });
}

void cw_registry_free(cw_registry* registry) { delete registry; }

cw_status cw_registry_add_method(cw_registry* registry, const char* method, cw_method_fn fn,
                                 void* user_data, const char* signature, const char* help,
                                 cw_error* error) {
  clear_error(error);
  if (!registry || !method || !fn) {
    return set_error(error, Errc::InvalidArgument, "registry, method and fn must not be NULL");
  }
  return add_c_method(registry->registry, method, fn, user_data, signature, help, nullptr, error);
}

cw_status cw_registry_add_named_method(cw_registry* registry, const char* method,
                                       const char* const* parameter_names, cw_method_fn fn,
                                       void* user_data, const char* signature, const char* help,
                                       cw_error* error) {
  clear_error(error);
  if (!registry || !method || !parameter_names || !fn) {
    return set_error(error, Errc::InvalidArgument,
                     "registry, method, parameter_names and fn must not be NULL");
  }
  return add_c_method(registry->registry, method, fn, user_data, signature, help, parameter_names,
                      error);
}

}  // extern "C"

namespace {

// Runs `answer` with one of the registry's idle dispatchers (a new one when none is idle), and
// gives it back after: a dispatcher serves one call at a time, the registry many threads.
template <class Answer>
void with_dispatcher(cw_registry& registry, Answer&& answer) {
  std::unique_ptr<callwire::RequestDispatcher> dispatcher;
  {
    std::lock_guard lock(registry.mutex);
    if (!registry.idle.empty()) {
      dispatcher = std::move(registry.idle.back());
      registry.idle.pop_back();
    }
  }
  if (!dispatcher) {
    dispatcher =
        std::make_unique<callwire::RequestDispatcher>(registry.registry, registry.options.dispatch);
  }
  answer(*dispatcher);
  std::lock_guard lock(registry.mutex);
  registry.idle.push_back(std::move(dispatcher));
}

}  // namespace

extern "C" {

cw_status cw_registry_dispatch(cw_registry* registry, const char* request, size_t request_len,
                               char** response_out, size_t* response_len_out, cw_error* error) {
  clear_error(error);
  if (!registry || !response_out || (!request && request_len > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "registry and response_out must not be NULL, nor request with a length");
  }
  return guard(error, [&] {
    callwire::Buffer response;
    with_dispatcher(*registry, [&](callwire::RequestDispatcher& dispatcher) {
      CallContext context;
      dispatcher.dispatch(std::string_view(request ? request : "", request_len), response, context);
    });
    copy_out(response.view(), response_out, response_len_out);
    return CW_OK;
  });
}

cw_status cw_registry_dispatch_content(cw_registry* registry, const char* content_type,
                                       const char* request, size_t request_len, char** response_out,
                                       size_t* response_len_out, const char** response_type_out,
                                       cw_error* error) {
  clear_error(error);
  if (!registry || !response_out || !response_type_out || (!request && request_len > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "registry, response_out and response_type_out must not be NULL, nor "
                     "request with a length");
  }
  return guard(error, [&] {
    callwire::Buffer response;
    std::string_view type;
    with_dispatcher(*registry, [&](callwire::RequestDispatcher& dispatcher) {
      CallContext context;
      type = dispatcher.dispatch(view(content_type),
                                 std::string_view(request ? request : "", request_len), response,
                                 context);
    });
    if (type.empty()) {  // nothing to answer: notifications only
      *response_out = nullptr;
      if (response_len_out) *response_len_out = 0;
      *response_type_out = nullptr;
      return CW_OK;
    }
    copy_out(response.view(), response_out, response_len_out);
    // The dispatcher's types are literals; C gets them NUL-terminated.
    *response_type_out = type == "application/json" ? "application/json" : "text/xml";
    return CW_OK;
  });
}

int cw_serve_cgi(cw_registry* registry) {
  if (!registry) return 1;
  try {
    return callwire::serve_cgi(registry->registry, registry->options);
  } catch (...) {
    return 1;  // out of memory: no response could be written
  }
}

}  // extern "C"
