#include "protocol/xml_rpc.hpp"

#include <utility>

#include "xml/reader_internals.hpp"
#include "xml/result_writer.hpp"
#include "xml/xml_chars.hpp"

namespace callwire::detail {

std::string xml_safe_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    uint32_t cp = *p;
    size_t len = cp < 0x80 ? 1 : xml::chars::decode_utf8(p, end, cp);
    if (len == 0 || !xml::chars::is_xml_char(cp)) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER: per bad byte, per bad character
      p += len == 0 ? 1 : len;
      continue;
    }
    out.append(reinterpret_cast<const char*>(p), len);
    p += len;
  }
  return out;
}

std::string refusal_text(const Error& read, std::string_view limits_option) {
  if (read.code != Errc::LimitExceeded || limits_option.empty()) return read.message;
  return read.message + ", set in " + std::string(limits_option);
}

namespace {

// A fault document whatever the string holds.
void write_fault_safely(Buffer& out, const Fault& fault, const xml::WriterOptions& options) {
  if (xml::write_fault(out, fault, options)) return;
  // Made safe, the string can be written.
  static_cast<void>(xml::write_fault(out, Fault{fault.code, xml_safe_text(fault.string)}, options));
}

}  // namespace

// The parameters offered to the core for a handler that reads them itself; the writer's
// options set as soon as the request has been read whole, before the handler runs.
class XmlRpcDispatcher::StreamedCall final : public xml::ParamsTaker, public ParamStream {
 public:
  StreamedCall(XmlRpcDispatcher& dispatcher, CallContext& ctx, xml::WriterOptions& options,
               ValueWriter& direct, Value& result, Fault& fault, CallOutcome& outcome)
      : dispatcher_(dispatcher),
        ctx_(ctx),
        options_(options),
        direct_(direct),
        result_(result),
        fault_(fault),
        outcome_(outcome) {}

  Took take(std::string_view method, ParamStream& params) override {
    params_ = &params;
    switch (
        dispatcher_.core_.call_streamed(method, *this, ctx_, &direct_, result_, fault_, outcome_)) {
      case CallCore::Streamed::Left:
        return Took::Nothing;
      case CallCore::Streamed::Abandoned:
        return Took::Abandoned;
      case CallCore::Streamed::Ran:
        break;
    }
    return Took::Answered;
  }

  ValueReader* next() override { return params_->next(); }
  bool failed() const noexcept override { return params_->failed(); }
  bool finish() override {
    if (!params_->finish()) return false;
    options_ = dispatcher_.writer_options(ctx_);
    return true;
  }

 private:
  XmlRpcDispatcher& dispatcher_;
  CallContext& ctx_;
  xml::WriterOptions& options_;
  ValueWriter& direct_;
  Value& result_;
  Fault& fault_;
  CallOutcome& outcome_;
  ParamStream* params_ = nullptr;
};

xml::WriterOptions XmlRpcDispatcher::writer_options(const CallContext& ctx) const noexcept {
  xml::WriterOptions w;
  switch (dialect_) {
    case OutputDialect::I8:
      w.dialect = xml::Dialect::I8;
      break;
    case OutputDialect::Apache:
      w.dialect = xml::Dialect::Apache;
      break;
    case OutputDialect::Auto: {
      bool apache = reader_.last_used_prefixed_types() ||
                    reader_.last_declared_apache_extensions() ||
                    ctx.header("User-Agent").starts_with("Apache XML RPC");
      w.dialect = apache ? xml::Dialect::Apache : xml::Dialect::I8;
      break;
    }
  }
  return w;
}

DispatchOutcome XmlRpcDispatcher::handle(std::string_view body, CallContext& ctx, Buffer& out,
                                         size_t /*readable_after: the XML reader copies nothing*/,
                                         AnswerProgress* progress) {
  const size_t start = out.size();
  try {
    // The dialect follows the request, so the options are known once it is read: inside the
    // read when a typed handler reads its parameters from it (StreamedCall).
    xml::WriterOptions options;
    Value result;
    Fault fault;
    CallOutcome outcome;
    // A typed handler writes its result straight into the response (no Value tree); anything
    // else returns it. What a handler wrote and then failed or threw is taken back.
    xml::ResultWriter direct(out, options, progress);
    Status read;
    auto took = xml::ParamsTaker::Took::Nothing;
    if (core_.streams()) {
      StreamedCall streamed{*this, ctx, options, direct, result, fault, outcome};
      read = xml::ReaderInternals::read_call(reader_, body, call_, streamed, took);
      if (took == xml::ParamsTaker::Took::Abandoned) read = reader_.read_call(body, call_);
    } else {
      read = reader_.read_call(body, call_);
    }
    if (took != xml::ParamsTaker::Took::Answered) options = writer_options(ctx);
    if (!read) {
      CallContextAccess::clear_latch(ctx);
      CallContextAccess::set_method(ctx, {});
      write_fault_safely(
          out, Fault{read.error().fault_code, refusal_text(read.error(), limits_option_)}, options);
      return DispatchOutcome{{}, true, read.error().fault_code};
    }

    if (took != xml::ParamsTaker::Took::Answered)
      outcome = core_.call(call_.method_name, call_.params.as_array(), ctx, &direct, result, fault);
    bool ok = outcome.ok;
    if (ok && outcome.written) {
      Status written = direct.finish();
      if (written) return DispatchOutcome{call_.method_name, false, 0};
      ok = false;
      fault = unsendable_result(call_.method_name, written.error());
      core_.count_unsent(outcome.counter);
    } else {
      direct.discard();
    }
    // Part of the answer went out before it failed: no fault can take its place now.
    if (!ok && progress != nullptr && progress->started())
      return DispatchOutcome{call_.method_name, true, fault.code, false, true};
    if (ok) {
      // A multicall's entries may need repairing and writing again: it is written whole.
      Status written =
          xml::write_response(out, result, options, outcome.multicall ? nullptr : progress);
      if (!written && progress != nullptr && progress->started()) {
        fault = unsendable_result(call_.method_name, written.error());
        core_.count_unsent(outcome.counter);
        return DispatchOutcome{call_.method_name, true, fault.code, false, true};
      }
      if (!written && outcome.multicall) {
        // A system.multicall result: one entry cannot be written; answer the others.
        repair_multicall(result, options);
        written = xml::write_response(out, result, options);
      }
      if (!written) {
        ok = false;
        fault = unsendable_result(call_.method_name, written.error());
        core_.count_unsent(outcome.counter);
      }
    }
    if (ok) CallContextAccess::drop_after_send(ctx, result);
    if (!ok) write_fault_safely(out, fault, options);
    return DispatchOutcome{call_.method_name, !ok, ok ? 0 : fault.code};
  } catch (...) {  // std::bad_alloc: nothing else escapes the core
    out.truncate(start);
    throw;
  }
}

void XmlRpcDispatcher::repair_multicall(Value& results, const xml::WriterOptions& options) {
  std::span<Value> entries = results.as_array();
  for (size_t i = 0; i < entries.size(); ++i) {
    scratch_.clear();
    Status ok = xml::write_response(scratch_, entries[i], options);
    if (ok) continue;
    if (entries[i].is_struct()) {  // a fault whose string XML cannot carry
      Value* string = entries[i].find("faultString");
      *string = Value(xml_safe_text(string->as_string()));
    } else {
      entries[i] = multicall_fault_entry(
          Fault{fault_code::kInternalError, "the result cannot be sent: " + ok.error().message});
      core_.count_unsent(core_.multicall_entry_counter(i));
    }
  }
  scratch_ = Buffer();  // rare: do not keep a large result's worth of memory
}

}  // namespace callwire::detail
