#include "client/proxy.hpp"

#include <charconv>
#include <cstring>

#include "client/url.hpp"
#include "http/basic_auth.hpp"
#include "http/response_writer.hpp"

namespace callwire::detail {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// The URL as it may be shown: a password never goes into an error message.
std::string redacted(std::string_view url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t at = url.find('@', start);
  size_t end = url.find_first_of("/?#", start);
  if (at == std::string_view::npos || (end != std::string_view::npos && at > end))
    return std::string(url);
  size_t colon = url.find(':', start);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return std::string(url.substr(0, colon + 1)) + "***" + std::string(url.substr(at));
}

Error bad_proxy(std::string_view url, std::string_view why) {
  return Error(Errc::InvalidArgument, "bad proxy URL '" + redacted(url) + "': " + std::string(why));
}

// An IP literal (IPv6 without brackets) as bytes: 4 or 16 of them, 0 when not a literal.
size_t ip_bytes(std::string_view text, unsigned char (&out)[16]) {
  return net::parse_ip_literal(text, out);
}

// One entry of a no_proxy list against the host (both without brackets).
bool entry_matches(std::string_view entry, std::string_view host) {
  if (entry.starts_with('[')) {  // "[::1]" or "[fd00::]/8"
    size_t close = entry.find(']');
    if (close == std::string_view::npos) return false;
    std::string joined(entry.substr(1, close - 1));
    joined += entry.substr(close + 1);
    return entry_matches(joined, host);
  }
  unsigned char host_ip[16];
  size_t host_len = ip_bytes(host, host_ip);
  size_t slash = entry.find('/');
  if (host_len != 0) {
    unsigned char net[16];
    size_t net_len = ip_bytes(entry.substr(0, slash), net);
    if (net_len != host_len) return false;
    unsigned bits = static_cast<unsigned>(net_len * 8);
    if (slash != std::string_view::npos) {
      std::string_view prefix = entry.substr(slash + 1);
      unsigned given = 0;
      auto [end, ec] = std::from_chars(prefix.data(), prefix.data() + prefix.size(), given);
      if (ec != std::errc() || end != prefix.data() + prefix.size() || given > bits) return false;
      bits = given;
    }
    for (unsigned i = 0; i < bits; ++i) {
      unsigned mask = 0x80u >> (i % 8);
      if ((host_ip[i / 8] & mask) != (net[i / 8] & mask)) return false;
    }
    return true;
  }
  if (slash != std::string_view::npos) return false;  // a range matches addresses only
  if (entry.starts_with('.')) entry.remove_prefix(1);
  if (entry.ends_with('.')) entry.remove_suffix(1);
  if (host.ends_with('.')) host.remove_suffix(1);
  if (entry.empty() || host.size() < entry.size()) return false;
  if (!iequal(host.substr(host.size() - entry.size()), entry)) return false;
  return host.size() == entry.size() || host[host.size() - entry.size() - 1] == '.';
}

// curl's rule for a variable with an upper-case twin: the lower-case one when it is set
// (even empty), else the upper-case one.
const char* lookup(const GetEnv& getenv, const char* lower_name, const char* upper_name,
                   const char*& used) {
  used = lower_name;
  if (const char* v = getenv(lower_name)) return v;
  if (!upper_name) return nullptr;
  used = upper_name;
  return getenv(upper_name);
}

}  // namespace

Result<ProxyRoute> parse_proxy_url(std::string_view url, bool schemeless) {
  std::string text(url);
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) {
    if (!schemeless) return bad_proxy(url, "expected http://host:port");
    text = "http://" + text;
  } else if (!iequal(url.substr(0, scheme), "http")) {
    return bad_proxy(
        url, "a proxy is reached by http:// only, not " + std::string(url.substr(0, scheme + 3)));
  } else {
    text = "http://" + text.substr(scheme + 3);  // "HTTP://" as well
  }
  std::string_view rest = std::string_view(text).substr(7);
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  if (end != std::string_view::npos && rest.substr(end) != "/")
    return bad_proxy(url, "a proxy URL has no path");
  std::string_view host_port = authority.substr(authority.rfind('@') + 1);
  bool has_port = host_port.starts_with('[') ? host_port.find("]:") != std::string_view::npos
                                             : host_port.find(':') != std::string_view::npos;
  if (!has_port) text.insert(7 + authority.size(), ":1080");
  auto parsed = parse_client_url(text, "");
  if (!parsed) {
    // Its message quotes the URL, credentials included: keep only the reason.
    const std::string& m = parsed.error().message;
    size_t why = m.find("': ");
    return bad_proxy(url, why == std::string::npos ? m : m.substr(why + 3));
  }
  ProxyRoute route;
  route.endpoint = parsed->endpoint;
  route.name = route.endpoint.to_string();
  if (!parsed->user.empty() || !parsed->password.empty()) {
    auto value = http::make_basic_auth(parsed->user, parsed->password);
    if (!value) return bad_proxy(url, value.error().message);
    route.authorization = std::move(*value);
  }
  return route;
}

bool no_proxy_matches(std::string_view no_proxy, std::string_view host) {
  size_t i = 0;
  while (i < no_proxy.size()) {
    size_t end = no_proxy.find_first_of(", \t", i);
    if (end == std::string_view::npos) end = no_proxy.size();
    std::string_view entry = no_proxy.substr(i, end - i);
    i = end + 1;
    if (entry.empty()) continue;
    if (entry == "*") return true;
    if (entry_matches(entry, host)) return true;
  }
  return false;
}

std::optional<EnvironmentProxy> proxy_from_environment(const ClientUrl& url, const GetEnv& getenv) {
  if (url.framing != ConnectionFraming::Http || url.endpoint.kind != net::Endpoint::Kind::Tcp)
    return std::nullopt;
  EnvironmentProxy found;
  const char* value = url.tls ? lookup(getenv, "https_proxy", "HTTPS_PROXY", found.variable)
                              : lookup(getenv, "http_proxy", nullptr, found.variable);
  if (!value || !*value) return std::nullopt;
  const char* unused = nullptr;
  if (const char* no = lookup(getenv, "no_proxy", "NO_PROXY", unused);
      no && no_proxy_matches(no, url.host))
    return std::nullopt;
  found.url = value;
  return found;
}

Result<std::optional<ProxyRoute>> choose_proxy(const ClientUrl& url, std::string_view proxy,
                                               bool from_environment, std::string_view user_agent,
                                               const GetEnv& getenv) {
  const bool proxiable =
      url.framing == ConnectionFraming::Http && url.endpoint.kind == net::Endpoint::Kind::Tcp;
  std::optional<ProxyRoute> route;
  if (!proxy.empty()) {
    if (!proxiable)
      return Error(Errc::InvalidArgument,
                   "a proxy carries http:// and https:// calls only, not Unix-socket, SCGI, "
                   "packet-stream, JSON-lines or WebSocket ones");
    auto parsed = parse_proxy_url(proxy);
    if (!parsed) return parsed.error();
    route = std::move(*parsed);
  } else if (from_environment) {
    std::optional<EnvironmentProxy> env = proxy_from_environment(url, getenv);
    if (!env) return route;
    auto parsed = parse_proxy_url(env->url, true);
    if (!parsed)
      return Error(Errc::InvalidArgument,
                   std::string(env->variable) + ": " + parsed.error().message);
    route = std::move(*parsed);
  } else {
    return route;
  }
  route->tunnel = url.tls;
  if (route->tunnel) {
    Buffer connect;
    if (Status s = http::append_connect_request(
            connect, url.host, url.port,
            user_agent.empty() ? http::RequestHead().user_agent : user_agent, route->authorization);
        !s)
      return s.error();
    route->connect_request = std::string(connect.view());
  }
  return route;
}

}  // namespace callwire::detail
