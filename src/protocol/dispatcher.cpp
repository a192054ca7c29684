#include "protocol/dispatcher.hpp"

#include "base/ascii.hpp"

namespace callwire::detail {

Protocol protocol_for_content_type(std::string_view content_type) noexcept {
  std::string_view media = base::trim_ows(content_type.substr(0, content_type.find(';')));
  for (std::string_view json :
       {"application/json", "application/json-rpc", "application/jsonrequest"})
    if (base::iequals(media, json)) return Protocol::JsonRpc;
  return Protocol::XmlRpc;
}

std::string_view answer_content_type(Protocol protocol) noexcept {
  return protocol == Protocol::JsonRpc ? "application/json" : "text/xml";
}

}  // namespace callwire::detail
