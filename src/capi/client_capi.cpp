// callwire: the C API's client (include/callwire/c/client.h): cw_client over callwire::Client.
#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "callwire/client.hpp"
#include "capi/capi_internal.hpp"
#include "net/fd.hpp"

using callwire::Errc;
using callwire::Value;
using namespace callwire::capi;

struct cw_client {
  callwire::Client client;
};

struct cw_http_head {
  callwire::HttpHead head;
};

struct cw_cancel {
  std::stop_source source;
};

namespace {

constexpr size_t kClientOptionsV1 = offsetof(cw_client_options, unix_path) + sizeof(const char*);
constexpr size_t kCallOptionsV1 = offsetof(cw_call_options, header_count) + sizeof(size_t);

// Header fields as the C++ options keep them. Their contents are checked when a request is
// built (a CR or LF in one is refused there).
cw_status copy_headers(const cw_header* headers, size_t count,
                       std::vector<std::pair<std::string, std::string>>& out, cw_error* error) {
  if (count > 0 && !headers) return set_error(error, Errc::InvalidArgument, "headers is NULL");
  for (size_t i = 0; i < count; ++i) {
    if (!headers[i].name || !headers[i].value) {
      return set_error(error, Errc::InvalidArgument, "a header with a NULL name or value");
    }
    out.emplace_back(headers[i].name, headers[i].value);
  }
  return CW_OK;
}

cw_status to_client_options(const cw_client_options* o, callwire::ClientOptions& out,
                            cw_error* error) {
  if (!o) return CW_OK;
  if (!options_size_ok(o, kClientOptionsV1)) {
    return set_error(error, Errc::InvalidArgument, "cw_client_options: bad struct_size");
  }
  if (o->timeout_ms) out.timeout = std::chrono::milliseconds(o->timeout_ms);
  if (o->user) out.user = o->user;
  if (o->password) out.password = o->password;
  out.verify_peer = o->insecure_skip_verify == 0;
  if (cw_status st = to_tls_options(o->tls, out.tls, error); st != CW_OK) return st;
  if (o->max_response_size) out.max_response_size = o->max_response_size;
  out.accept_gzip = o->accept_gzip != 0;
  out.gzip_request_min_size = o->gzip_request_min_size;
  switch (enum_bits(o->dialect)) {
    case CW_DIALECT_AUTO:
    case CW_DIALECT_I8:
      out.dialect = callwire::xml::Dialect::I8;
      break;
    case CW_DIALECT_APACHE:
      out.dialect = callwire::xml::Dialect::Apache;
      break;
    default:
      return set_error(error, Errc::InvalidArgument, "cw_client_options: unknown dialect");
  }
  if (o->max_connections) out.max_connections = o->max_connections;
  if (o->unix_path) out.unix_path = o->unix_path;
  if (CW_HAS_FIELD(o, cw_client_options, send_timeout)) out.send_timeout = o->send_timeout != 0;
  if (CW_HAS_FIELD(o, cw_client_options, header_count) && o->header_count > 0) {
    if (cw_status st = copy_headers(o->headers, o->header_count, out.headers, error); st != CW_OK) {
      return st;
    }
  }
  if (CW_HAS_FIELD(o, cw_client_options, reader_limits))
    apply_reader_limits(o->reader_limits, out.reader_limits);
  if (CW_HAS_FIELD(o, cw_client_options, json_limits))
    apply_json_limits(o->json_limits, out.json_limits);
  if (CW_HAS_FIELD(o, cw_client_options, pipeline_depth) && o->pipeline_depth)
    out.pipeline_depth = o->pipeline_depth;
  if (CW_HAS_FIELD(o, cw_client_options, authorization) && o->authorization)
    out.authorization = o->authorization;
  if (CW_HAS_FIELD(o, cw_client_options, user_agent) && o->user_agent)
    out.user_agent = o->user_agent;
  if (CW_HAS_FIELD(o, cw_client_options, proxy) && o->proxy) out.proxy = o->proxy;
  if (CW_HAS_FIELD(o, cw_client_options, host_loop)) out.host_loop = o->host_loop != 0;
  if (CW_HAS_FIELD(o, cw_client_options, trace_data) && o->trace)
    out.trace = c_trace_hook(o->trace, o->trace_data);
  if (CW_HAS_FIELD(o, cw_client_options, interrupt)) out.interrupt = o->interrupt;
  if (CW_HAS_FIELD(o, cw_client_options, notification_data) && o->on_notification) {
    out.on_notification = [fn = o->on_notification, data = o->notification_data](
                              std::string_view method, const callwire::Value& params) {
      const std::string name(method);  // NUL-terminated for C
      fn(name.c_str(), borrow(params), data);
    };
  }
  if (CW_HAS_FIELD(o, cw_client_options, proxy_from_environment))
    out.proxy_from_environment = o->proxy_from_environment != 0;
  return CW_OK;
}

// Where the call's fault data goes (cw_call_options.fault_data): one slot per call of it.
cw_value** fault_data_of(const cw_call_options* o) noexcept {
  return o && CW_HAS_FIELD(o, cw_call_options, fault_data) ? o->fault_data : nullptr;
}

// Fills `slot` (when there is one) with a fault's data as a new value, or NULL. A copy that
// cannot be allocated leaves NULL: the fault itself is still reported.
void give_fault_data(cw_value** slot, const callwire::Error& e) noexcept {
  if (!slot) return;
  *slot = nullptr;
  if (e.code != Errc::Fault || !e.data) return;
  try {
    make_handle(Value(*e.data), slot);
  } catch (const std::bad_alloc&) {
    *slot = nullptr;
  }
}

// A failed call's error, and its fault data into `slot`: what every failed call reports.
cw_status call_failed(cw_error* error, cw_value** slot, const callwire::Error& e) noexcept {
  give_fault_data(slot, e);
  return set_error(error, e);
}

// Checks the caller's options and copies them; `calls` fault data slots are set to NULL.
cw_status to_call_options(const cw_call_options* o, callwire::CallOptions& out, cw_error* error,
                          size_t calls = 1) {
  if (!o) return CW_OK;
  if (!options_size_ok(o, kCallOptionsV1)) {
    return set_error(error, Errc::InvalidArgument, "cw_call_options: bad struct_size");
  }
  if (cw_value** slots = fault_data_of(o)) std::fill(slots, slots + calls, nullptr);
  out.timeout = std::chrono::milliseconds(o->timeout_ms);
  if (CW_HAS_FIELD(o, cw_call_options, disable_stale_resend))
    out.resend_if_stale = o->disable_stale_resend == 0;
  if (CW_HAS_FIELD(o, cw_call_options, response_head) && o->response_head)
    out.response_head = &o->response_head->head;
  if (CW_HAS_FIELD(o, cw_call_options, cancel) && o->cancel)
    out.cancel = o->cancel->source.get_token();
  return copy_headers(o->headers, o->header_count, out.headers, error);
}

// What cw_client_call and cw_client_call_async check and copy before any I/O.
cw_status prepare(const char* method, const cw_value* const* params, size_t param_count,
                  const cw_call_options* options, std::vector<Value>& values,
                  callwire::CallOptions& call_options, cw_error* error) {
  if (cw_status st = copy_params(method, params, param_count, values, error); st != CW_OK) {
    return st;
  }
  return to_call_options(options, call_options, error);
}

// The synchronous call itself, once the parameters are values: the result handed out.
cw_status call_and_return(cw_client& client, const char* method, const std::vector<Value>& values,
                          const callwire::CallOptions& call_options, cw_value** fault_data,
                          cw_value** result_out, cw_error* error) {
  callwire::Result<Value> r = client.client.call(
      method, std::span<const Value>(values.data(), values.size()), call_options);
  if (!r) {
    return call_failed(error, fault_data, r.error());
  }
  return make_handle(std::move(*r), result_out);
}

// One C call's method and parameters as a MethodCall, checked and copied.
cw_status to_method_call(const char* method, const cw_value* const* params, size_t param_count,
                         callwire::MethodCall& out, cw_error* error) {
  std::vector<Value> values;
  if (cw_status st = copy_params(method, params, param_count, values, error); st != CW_OK) {
    return st;
  }
  out.method_name = method;
  out.params.reserve(values.size());
  for (Value& v : values) out.params.push_back(std::move(v));
  return CW_OK;
}

// Fills results[i] from answers[i], where an entry without an answer (a notification) is null.
// Every handle is made first, so a failure part way leaves `results` untouched.
void hand_out(std::vector<std::optional<callwire::CallResult>>& answers,
              cw_multicall_result* results, cw_value** fault_data) {
  std::vector<cw_value*> handles(answers.size(), nullptr);
  try {
    for (size_t i = 0; i < answers.size(); ++i) {
      if (answers[i] && *answers[i]) make_handle(std::move(**answers[i]), &handles[i]);
    }
  } catch (...) {
    for (cw_value* h : handles) cw_value_free(h);
    throw;
  }
  for (size_t i = 0; i < answers.size(); ++i) {
    results[i].result = handles[i];
    clear_error(&results[i].error);
    if (answers[i] && !*answers[i]) {
      call_failed(&results[i].error, fault_data ? &fault_data[i] : nullptr, answers[i]->error());
    }
  }
}

}  // namespace

extern "C" {

void cw_client_options_init(cw_client_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

cw_status cw_client_new(const char* url, const cw_client_options* options, cw_client** out,
                        cw_error* error) {
  clear_error(error);
  if (!url || !out) return set_error(error, Errc::InvalidArgument, "url and out must not be NULL");
  return guard(error, [&] {
    callwire::ClientOptions o;
    if (cw_status st = to_client_options(options, o, error); st != CW_OK) return st;
    callwire::Result<callwire::Client> c = callwire::Client::create(url, std::move(o));
    if (!c) return set_error(error, c.error());
    *out = new cw_client{std::move(*c)};
    return CW_OK;
  });
}

cw_status cw_client_new_group(const char* const* urls, size_t url_count,
                              const cw_client_options* options, const cw_failover_options* failover,
                              cw_client** out, cw_error* error) {
  clear_error(error);
  if (!urls || url_count == 0 || !out)
    return set_error(error, Errc::InvalidArgument, "urls (at least one) and out must not be NULL");
  return guard(error, [&] {
    callwire::ClientOptions o;
    if (cw_status st = to_client_options(options, o, error); st != CW_OK) return st;
    std::vector<std::string> list;
    for (size_t i = 0; i < url_count; ++i) {
      if (!urls[i]) return set_error(error, Errc::InvalidArgument, "a NULL URL");
      list.emplace_back(urls[i]);
    }
    callwire::FailoverOptions f;
    if (failover) {
      if (!options_size_ok(failover, sizeof(cw_failover_options)))
        return set_error(error, Errc::InvalidArgument, "cw_failover_options: bad struct_size");
      if (failover->backoff_ms) f.backoff = std::chrono::milliseconds(failover->backoff_ms);
      if (failover->idempotent_count > 0 && !failover->idempotent_methods)
        return set_error(error, Errc::InvalidArgument, "idempotent_methods is NULL");
      for (size_t i = 0; i < failover->idempotent_count; ++i) {
        if (!failover->idempotent_methods[i])
          return set_error(error, Errc::InvalidArgument, "a NULL idempotent method");
        f.idempotent_methods.emplace_back(failover->idempotent_methods[i]);
      }
      f.all_idempotent = failover->all_idempotent != 0;
    }
    callwire::Result<callwire::Client> c =
        callwire::Client::create_group(list, std::move(o), std::move(f));
    if (!c) return set_error(error, c.error());
    *out = new cw_client{std::move(*c)};
    return CW_OK;
  });
}

cw_status cw_client_adopt(int fd, cw_framing framing, const cw_client_options* options,
                          cw_client** out, cw_error* error) {
  clear_error(error);
  callwire::net::UniqueFd owned(fd);  // ours in every case, as the server's adopt
  callwire::ConnectionFraming f{};
  if (!out || !to_framing(framing, f))
    return set_error(error, Errc::InvalidArgument, "out must not be NULL; a known framing");
  return guard(error, [&] {
    callwire::ClientOptions o;
    if (cw_status st = to_client_options(options, o, error); st != CW_OK) return st;
    callwire::Result<callwire::Client> c =
        callwire::Client::adopt(owned.release(), f, std::move(o));
    if (!c) return set_error(error, c.error());
    *out = new cw_client{std::move(*c)};
    return CW_OK;
  });
}

void cw_client_free(cw_client* client) { delete client; }

void cw_client_set_interrupt(cw_client* client, volatile sig_atomic_t* flag) {
  if (client) client->client.set_interrupt(flag);
}

cw_status cw_client_wait_async(cw_client* client, uint32_t timeout_ms, cw_error* error) {
  if (!client) return set_error(error, Errc::InvalidArgument, "cw_client_wait_async: NULL client");
  return guard(error, [&] {
    callwire::Status ended = client->client.wait_async(std::chrono::milliseconds(timeout_ms));
    return ended ? CW_OK : set_error(error, ended.error());
  });
}

size_t cw_client_probe(cw_client* client, uint32_t wait_ms) {
  if (!client) return 0;
  return client->client.probe(std::chrono::milliseconds(wait_ms));
}

int cw_client_loop_fd(cw_client* client) { return client ? client->client.loop_fd() : -1; }

int cw_client_loop_timeout_ms(cw_client* client) {
  return client ? static_cast<int>(client->client.loop_timeout().count()) : -1;
}

cw_status cw_client_process(cw_client* client) {
  if (!client || client->client.loop_fd() < 0) return CW_INVALID_ARGUMENT;
  try {
    client->client.process();
  } catch (const std::bad_alloc&) {
    return CW_NO_MEMORY;
  }
  return CW_OK;
}

cw_status cw_http_head_new(cw_http_head** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  *out = new (std::nothrow) cw_http_head();
  return *out ? CW_OK : CW_NO_MEMORY;
}

void cw_http_head_free(cw_http_head* head) { delete head; }

int cw_http_head_status(const cw_http_head* head) { return head ? head->head.status : 0; }

const char* cw_http_head_field(const cw_http_head* head, const char* name) {
  if (!head || !name) return nullptr;
  // HttpHead::field views a whole std::string: its data is NUL-terminated.
  std::optional<std::string_view> value = head->head.field(name);
  return value ? value->data() : nullptr;
}

size_t cw_http_head_field_count(const cw_http_head* head) {
  return head ? head->head.fields.size() : 0;
}

cw_status cw_http_head_field_at(const cw_http_head* head, size_t index, const char** name_out,
                                const char** value_out) {
  if (!head || !name_out || !value_out) return CW_INVALID_ARGUMENT;
  if (index >= head->head.fields.size()) return CW_NOT_FOUND;
  *name_out = head->head.fields[index].first.c_str();
  *value_out = head->head.fields[index].second.c_str();
  return CW_OK;
}

cw_status cw_cancel_new(cw_cancel** out) {
  if (!out) return CW_INVALID_ARGUMENT;
  try {
    *out = new cw_cancel();  // std::stop_source allocates its shared state too
  } catch (const std::bad_alloc&) {
    *out = nullptr;
    return CW_NO_MEMORY;
  }
  return CW_OK;
}

void cw_cancel_request(cw_cancel* cancel) {
  if (cancel) cancel->source.request_stop();
}

int cw_cancel_requested(const cw_cancel* cancel) {
  return cancel && cancel->source.stop_requested() ? 1 : 0;
}

void cw_cancel_free(cw_cancel* cancel) { delete cancel; }

cw_status cw_client_call(cw_client* client, const char* method, const cw_value* const* params,
                         size_t param_count, const cw_call_options* options, cw_value** result_out,
                         cw_error* error) {
  clear_error(error);
  if (!client || !result_out) {
    return set_error(error, Errc::InvalidArgument, "client and result_out must not be NULL");
  }
  return guard(error, [&] {
    std::vector<Value> values;
    callwire::CallOptions call_options;
    cw_status st = prepare(method, params, param_count, options, values, call_options, error);
    if (st != CW_OK) return st;
    return call_and_return(*client, method, values, call_options, fault_data_of(options),
                           result_out, error);
  });
}

cw_status cw_client_call_args(cw_client* client, const char* method, const cw_arg* params,
                              size_t param_count, const cw_call_options* options,
                              cw_value** result_out, cw_error* error) {
  clear_error(error);
  if (!client || !result_out || !method || (!params && param_count > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "client, method and result_out must not be NULL, nor params with "
                     "param_count > 0");
  }
  return guard(error, [&] {
    std::vector<Value> values(param_count);
    for (size_t i = 0; i < param_count; ++i) {
      cw_status st =
          build_described(params[i], values[i], "params[" + std::to_string(i) + "]", error);
      if (st != CW_OK) return st;
    }
    callwire::CallOptions call_options;
    if (cw_status st = to_call_options(options, call_options, error); st != CW_OK) return st;
    return call_and_return(*client, method, values, call_options, fault_data_of(options),
                           result_out, error);
  });
}

cw_status cw_client_multicall(cw_client* client, const cw_multicall_entry* calls, size_t count,
                              const cw_call_options* options, cw_multicall_result* results,
                              cw_error* error) {
  clear_error(error);
  if (!client || (!calls && count > 0) || (!results && count > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "client must not be NULL, nor calls or results with count > 0");
  }
  return guard(error, [&] {
    callwire::CallOptions call_options;
    if (cw_status st = to_call_options(options, call_options, error, count); st != CW_OK) return st;
    std::vector<callwire::MethodCall> batch(count);
    for (size_t i = 0; i < count; ++i) {
      const cw_multicall_entry& c = calls[i];
      cw_status st = to_method_call(c.method, c.params, c.param_count, batch[i], error);
      if (st != CW_OK) return st;
    }
    auto answers = client->client.multicall(batch, call_options);
    if (!answers) return set_error(error, answers.error());
    std::vector<std::optional<callwire::CallResult>> all(count);
    for (size_t i = 0; i < count; ++i) all[i] = std::move((*answers)[i]);
    hand_out(all, results, fault_data_of(options));
    return CW_OK;
  });
}

cw_status cw_client_notify(cw_client* client, const char* method, const cw_value* const* params,
                           size_t param_count, const cw_call_options* options, cw_error* error) {
  clear_error(error);
  if (!client) return set_error(error, Errc::InvalidArgument, "client must not be NULL");
  return guard(error, [&] {
    std::vector<Value> values;
    callwire::CallOptions call_options;
    cw_status st = prepare(method, params, param_count, options, values, call_options, error);
    if (st != CW_OK) return st;
    callwire::Status sent = client->client.notify(
        method, std::span<const Value>(values.data(), values.size()), call_options);
    if (sent) return CW_OK;
    return call_failed(error, fault_data_of(options), sent.error());
  });
}

cw_status cw_client_call_named(cw_client* client, const char* method, const cw_value* named,
                               const cw_call_options* options, cw_value** result_out,
                               cw_error* error) {
  clear_error(error);
  if (!client || !method || !named || !result_out) {
    return set_error(error, Errc::InvalidArgument,
                     "client, method, named and result_out must not be NULL");
  }
  return guard(error, [&] {
    callwire::CallOptions call_options;
    if (cw_status st = to_call_options(options, call_options, error); st != CW_OK) return st;
    callwire::Result<Value> r = client->client.call_named(method, named->value, call_options);
    if (!r) {
      return call_failed(error, fault_data_of(options), r.error());
    }
    return make_handle(std::move(*r), result_out);
  });
}

cw_status cw_client_batch(cw_client* client, const cw_batch_entry* entries, size_t count,
                          const cw_call_options* options, cw_multicall_result* results,
                          cw_error* error) {
  clear_error(error);
  if (!client || (!entries && count > 0) || (!results && count > 0)) {
    return set_error(error, Errc::InvalidArgument,
                     "client must not be NULL, nor entries or results with count > 0");
  }
  return guard(error, [&] {
    callwire::CallOptions call_options;
    if (cw_status st = to_call_options(options, call_options, error, count); st != CW_OK) return st;
    callwire::Batch batch = client->client.batch();
    for (size_t i = 0; i < count; ++i) {
      const cw_batch_entry& e = entries[i];
      if (e.named) {
        if (!e.method || e.param_count > 0) {
          return set_error(
              error, Errc::InvalidArgument,
              "entries[" + std::to_string(i) + "]: a NULL method, or both params and named");
        }
        if (e.notification) {
          batch.notify_named(e.method, e.named->value);
        } else {
          batch.call_named(e.method, e.named->value);
        }
        continue;
      }
      std::vector<Value> values;
      cw_status st = copy_params(e.method, e.params, e.param_count, values, error);
      if (st != CW_OK) return st;
      std::span<const Value> params(values.data(), values.size());
      if (e.notification) {
        batch.notify(e.method, params);
      } else {
        batch.call(e.method, params);
      }
    }
    auto answers = batch.send(call_options);
    if (!answers) return set_error(error, answers.error());
    // send() answers the calls only: spread them back over the entries.
    std::vector<std::optional<callwire::CallResult>> all(count);
    size_t next = 0;
    for (size_t i = 0; i < count; ++i) {
      if (!entries[i].notification) all[i] = std::move((*answers)[next++]);
    }
    hand_out(all, results, fault_data_of(options));
    return CW_OK;
  });
}

cw_status cw_client_call_async(cw_client* client, const char* method, const cw_value* const* params,
                               size_t param_count, const cw_call_options* options,
                               cw_call_done_fn done, void* user_data, cw_error* error) {
  clear_error(error);
  if (!client || !done) {
    return set_error(error, Errc::InvalidArgument, "client and done must not be NULL");
  }
  return guard(error, [&] {
    std::vector<Value> values;
    callwire::CallOptions call_options;
    cw_status st = prepare(method, params, param_count, options, values, call_options, error);
    if (st != CW_OK) return st;
    // From here on `done` owns the outcome: it runs exactly once.
    client->client.async_call(
        method, std::move(values),
        [done, user_data, fault_data = fault_data_of(options)](callwire::Result<Value> r) noexcept {
          cw_error e;
          clear_error(&e);
          if (r) {
            done(CW_OK, borrow(*r), &e, user_data);
          } else {
            done(call_failed(&e, fault_data, r.error()), nullptr, &e, user_data);
          }
        },
        call_options);
    return CW_OK;
  });
}

}  // extern "C"
