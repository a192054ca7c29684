#include "protocol/dispatcher.hpp"

#include "base/ascii.hpp"

namespace callwire::detail {

Protocol protocol_for_content_type(std::string_view content_type) noexcept {
  // string_views, not a braced list of literals: that is a list of const char*, and each
  // request paid a strlen per name.
  static constexpr std::string_view kJsonTypes[] = {"application/json", "application/json-rpc",
                                                    "application/jsonrequest"};
  // The media type is part of the field, and the shortest JSON one comes first: a shorter
  // field (XML-RPC's usual text/xml) is decided without looking into it.
  if (content_type.size() < kJsonTypes[0].size()) return Protocol::XmlRpc;
  std::string_view media = base::trim_ows(content_type.substr(0, content_type.find(';')));
  for (std::string_view json : kJsonTypes)
    if (base::iequals(media, json)) return Protocol::JsonRpc;
  return Protocol::XmlRpc;
}

Protocol protocol_for_request(std::string_view content_type, std::string_view body) noexcept {
  if (!content_type.empty()) return protocol_for_content_type(content_type);
  size_t i = body.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && (body[i] == '{' || body[i] == '[') ? Protocol::JsonRpc
                                                                           : Protocol::XmlRpc;
}

}  // namespace callwire::detail
