#include "protocol/json_rpc.hpp"

#include <span>
#include <string>

#include "json/result_writer.hpp"
#include "protocol/xml_rpc.hpp"  // xml_safe_text: a fault string any syntax can carry

namespace callwire::detail {

namespace {

// A refusal of the reader's (the document, or one request of it): the spec's short message,
// with the reader's account of what was wrong as the error's data.
// `limits_option`: where the reader's limits were set (refusal_text).
void write_refusal(json::BatchWriter* batch, Buffer& out, std::string_view id, const Error& error,
                   std::string_view limits_option) {
  const char* message = json::standard_message(error.fault_code);
  auto write = [&](const Value& detail) {
    return batch ? batch->error(id, error.fault_code, message, &detail)
                 : json::write_error(out, id, error.fault_code, message, &detail);
  };
  const std::string account = refusal_text(error, limits_option);
  if (write(Value(account))) return;
  // The account may quote input that is not UTF-8; made safe, it can be written.
  static_cast<void>(write(Value(xml_safe_text(account))));
}

Status write_result(json::BatchWriter* batch, Buffer& out, std::string_view id,
                    const Value& result) {
  return batch ? batch->result(id, result) : json::write_result(out, id, result);
}

void write_fault(json::BatchWriter* batch, Buffer& out, std::string_view id, const Fault& fault) {
  auto write = [&](std::string_view string, const Value* data) {
    return batch ? batch->error(id, fault.code, string, data)
                 : json::write_error(out, id, fault.code, string, data);
  };
  const Value* data = fault.data ? &*fault.data : nullptr;
  if (write(fault.string, data)) return;
  // A handler's fault string that is not UTF-8: say it with what can be said (which can be
  // written: it is valid UTF-8). Data JSON cannot carry (a NaN) is left out rather than lose
  // the fault.
  const std::string safe = xml_safe_text(fault.string);
  if (data && write(safe, data)) return;
  static_cast<void>(write(safe, nullptr));
}

}  // namespace

DispatchOutcome JsonRpcDispatcher::handle(std::string_view body, CallContext& ctx, Buffer& out,
                                          size_t readable_after, AnswerProgress*) {
  const size_t start = out.size();
  try {
    DispatchOutcome outcome;
    Status read = readable_after >= json::kPadding ? reader_.read_request_padded(body, request_)
                                                   : reader_.read_request(body, request_);
    if (!read) {
      CallContextAccess::clear_latch(ctx);
      CallContextAccess::set_method(ctx, {});
      write_refusal(nullptr, out, json::kNullId, read.error(), limits_option_);
      outcome.is_fault = true;
      outcome.fault_code = read.error().fault_code;
      return outcome;
    }
    outcome.no_answer = true;
    if (!request_.batch) {
      answer(request_.calls.front(), ctx, nullptr, out, outcome);
    } else {
      json::BatchWriter batch(out);
      for (json::Call& call : request_.calls) answer(call, ctx, &batch, out, outcome);
      batch.finish();
    }
    if (!request_.calls.empty()) outcome.method = request_.calls.front().method;
    return outcome;
  } catch (...) {  // std::bad_alloc: nothing else escapes the core or the writers
    out.truncate(start);
    throw;
  }
}

void JsonRpcDispatcher::answer(json::Call& call, CallContext& ctx, json::BatchWriter* batch,
                               Buffer& out, DispatchOutcome& outcome) {
  // The outcome reports the first request's: its fault code, or 0.
  const bool first = &call == &request_.calls.front();
  auto note = [&](int32_t fault_code) {
    if (!first) return;
    outcome.is_fault = fault_code != 0;
    outcome.fault_code = fault_code;
  };
  if (!call.ok()) {
    note(call.error.fault_code);
    if (call.is_notification()) return;  // a notification's -32602: never answered
    outcome.no_answer = false;
    write_refusal(batch, out, call.id, call.error, limits_option_);
    return;
  }
  Value result;
  Fault fault;
  CallOutcome done;
  // A typed handler writes its result straight into the response (no Value tree); anything
  // else returns it. What a handler wrote and then failed or threw is taken back. A
  // notification's result is not sent, so it is not offered the writer.
  json::ResultWriter direct(out, call.id, batch);
  ValueWriter* offered = call.is_notification() ? nullptr : &direct;
  if (call.method.starts_with("rpc.")) {
    fault = Fault{fault_code::kMethodNotFound, "method names beginning with 'rpc.' are reserved"};
  } else {
    // Named params go by the method's parameter names (or, without names, as one struct);
    // strings stand for bytes and times where the signature wants them.
    CallForm form;
    form.named = call.params.is_struct() ? &call.params : nullptr;
    form.text_for_bytes_and_times = true;
    std::span<Value> params = form.named ? std::span<Value>() : call.params.as_array();
    done = core_.call(call.method, params, ctx, offered, result, fault, form);
  }
  if (!done.ok || !done.written) direct.discard();
  note(done.ok ? 0 : fault.code);
  if (call.is_notification()) return;
  outcome.no_answer = false;
  if (done.ok) {
    Status written = done.written ? direct.finish() : write_result(batch, out, call.id, result);
    if (written) {
      CallContextAccess::drop_after_send(ctx, result);
      return;
    }
    // A result JSON cannot carry (NaN, a string that is not UTF-8), or a typed result written
    // as pieces that are not one value.
    core_.count_unsent(done.counter);
    fault = unsendable_result(call.method, written.error());
    note(fault.code);
  }
  write_fault(batch, out, call.id, fault);
}

}  // namespace callwire::detail
