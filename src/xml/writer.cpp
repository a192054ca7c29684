// The XML-RPC document writers (callwire/xml.hpp) on XmlWriter (xml_writer.hpp).
#include "callwire/xml.hpp"
#include "xml/result_writer.hpp"
#include "xml/xml_writer.hpp"

namespace callwire::xml {

namespace {

// Runs `body` on a writer; on failure restores `out` to its size before (unless `progress` sent
// part of it) and returns the error.
template <class Body>
Status write_document(Buffer& out, const WriterOptions& options, Body body,
                      detail::AnswerProgress* progress = nullptr) {
  size_t before = out.size();
  XmlWriter w(out, options);
  w.report_to(progress);
  if (body(w)) return {};
  if (!w.sent_any()) out.truncate(before);
  return w.take_error();
}

}  // namespace

Status write_call(Buffer& out, std::string_view method_name, std::span<const Value> params,
                  const WriterOptions& options) {
  return write_document(out, options, [&](XmlWriter& w) {
    if (method_name.empty()) return w.fail("empty method name");
    w.root_start("methodCall");
    w.raw("<methodName>");
    if (!w.text(method_name)) return false;
    w.raw("</methodName><params>");
    for (const Value& p : params) {
      w.raw("<param>");
      if (!w.value(p)) return false;
      w.raw("</param>");
    }
    w.raw("</params></methodCall>");
    return true;
  });
}

Status write_response(Buffer& out, const Value& result, const WriterOptions& options,
                      detail::AnswerProgress* progress) {
  return write_document(
      out, options,
      [&](XmlWriter& w) {
        w.root_start("methodResponse");
        w.raw("<params><param>");
        // A blob answer: the last value, which may leave while it is encoded.
        if (result.is_bytes() ? !w.bytes(result.as_bytes(), true) : !w.value(result)) return false;
        w.raw(kResponseEnd);
        return true;
      },
      progress);
}

Status write_response(Buffer& out, const Value& result, const WriterOptions& options) {
  return write_response(out, result, options, nullptr);
}

Status write_fault(Buffer& out, const Fault& fault, const WriterOptions& options) {
  return write_document(out, options, [&](XmlWriter& w) {
    w.root_start("methodResponse");
    w.raw("<fault><value><struct><member><name>faultCode</name><value><int>");
    w.number(fault.code);
    w.raw("</int></value></member><member><name>faultString</name><value><string>");
    if (!w.text(fault.string)) return false;
    w.raw("</string></value></member></struct></value></fault></methodResponse>");
    return true;
  });
}

Status write_message(Buffer& out, const Message& message, const WriterOptions& options) {
  if (message.kind == Message::Kind::Call) {
    if (!message.call.params.is_array())
      return Error(Errc::InvalidArgument, "MethodCall::params must be an array");
    return write_call(out, message.call.method_name, message.call.params.as_array(), options);
  }
  if (message.response.is_fault) return write_fault(out, message.response.fault, options);
  return write_response(out, message.response.result, options);
}

}  // namespace callwire::xml
