// The public face of the dispatcher: options in the public vocabulary, a deadline per call.
#include "callwire/dispatch.hpp"
#include "protocol/dispatcher.hpp"

namespace callwire {

namespace {

detail::DispatchOptions internal_options(const DispatcherOptions& o) {
  detail::DispatchOptions d;
  d.xml_rpc.limits = o.reader_limits;
  d.xml_rpc.limits_option = "DispatcherOptions::reader_limits";
  d.xml_rpc.dialect = o.dialect;
  d.json_rpc.limits = o.json_limits;
  d.json_rpc.limits_option = "DispatcherOptions::json_limits";
  d.core.introspection = o.introspection;
  d.core.max_multicall_calls = o.max_multicall_calls;
  return d;
}

}  // namespace

struct RequestDispatcher::Impl {
  Impl(const Registry& registry, const DispatcherOptions& o)
      : call_timeout(o.call_timeout), dispatcher(registry, internal_options(o)) {}
  std::chrono::milliseconds call_timeout;
  detail::Dispatcher dispatcher;
};

RequestDispatcher::RequestDispatcher(Registry& registry, DispatcherOptions options) {
  registry.freeze();
  impl_ = std::make_unique<Impl>(registry, options);
}
RequestDispatcher::~RequestDispatcher() = default;
RequestDispatcher::RequestDispatcher(RequestDispatcher&&) noexcept = default;
RequestDispatcher& RequestDispatcher::operator=(RequestDispatcher&&) noexcept = default;

void RequestDispatcher::dispatch(std::string_view request, Buffer& response, CallContext& context) {
  dispatch("text/xml", request, response, context);
}

std::string_view RequestDispatcher::dispatch(std::string_view content_type,
                                             std::string_view request, Buffer& response,
                                             CallContext& context) {
  auto deadline = std::chrono::steady_clock::time_point::max();
  if (impl_->call_timeout.count() > 0)
    deadline = std::chrono::steady_clock::now() + impl_->call_timeout;
  detail::CallContextAccess::set_deadline(context, deadline);
  const detail::Protocol protocol = detail::protocol_for_request(content_type, request);
  detail::DispatchOutcome outcome = impl_->dispatcher.handle(protocol, request, context, response);
  return outcome.no_answer ? std::string_view() : detail::answer_content_type(protocol);
}

std::string RequestDispatcher::dispatch(std::string_view request) {
  Buffer out;
  CallContext context;
  dispatch(request, out, context);
  return std::string(out.view());
}

std::vector<MethodStats> RequestDispatcher::stats() const {
  std::vector<MethodStats> sums;
  impl_->dispatcher.add_stats_to(sums);
  return sums;
}

}  // namespace callwire
