#include "server/inherited_listeners.hpp"

#include <charconv>
#include <string>

namespace callwire::detail {

bool is_inherited_listener(std::string_view spec) noexcept {
  return spec.starts_with("systemd:") || spec.starts_with("fd:");
}

namespace {

Status add_one(ServerCore& core, const std::string& spec, int fd) {
  for (const Listener& l : core.listeners)
    if (l.fd.get() == fd)
      return Error(Errc::InvalidArgument,
                   spec + ": descriptor " + std::to_string(fd) + " is listened on already");
  auto endpoint = net::ready_listening_socket(fd);
  if (!endpoint) return Error(Errc::InvalidArgument, spec + ": " + endpoint.error().message);
  Listener l;
  l.spec = spec;
  l.inherited = true;
  l.unix_socket = endpoint->kind == net::Endpoint::Kind::Unix;
  l.unix_path = endpoint->path;
  l.host = endpoint->host;
  l.port = endpoint->port;
  l.framing = ConnectionFraming::Http;
  l.tls = core.serves_tls && !l.unix_socket;  // as for a TCP listener the server opens
  l.fd = net::UniqueFd(fd);
  core.listeners.push_back(std::move(l));
  return {};
}

}  // namespace

Status add_inherited_listeners(ServerCore& core, std::string_view spec,
                               std::optional<std::vector<net::InheritedSocket>>& systemd) {
  const std::string text(spec);
  if (spec.starts_with("fd:")) {
    std::string_view digits = spec.substr(3);
    int fd = -1;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || fd < 0)
      return Error(Errc::InvalidArgument, text + ": not a descriptor number");
    return add_one(core, text, fd);
  }
  std::string_view name = spec.substr(8);  // after "systemd:"
  if (!systemd) {
    auto taken = net::take_systemd_sockets();
    if (!taken) return taken.error();
    systemd = std::move(*taken);
  }
  size_t added = 0;
  for (auto it = systemd->begin(); it != systemd->end();) {
    if (!name.empty() && it->name != name) {
      ++it;
      continue;
    }
    if (Status s = add_one(core, text, it->fd); !s) return s;
    it = systemd->erase(it);
    ++added;
  }
  if (added == 0)
    return Error(Errc::InvalidArgument,
                 text + ": no listening socket passed by systemd" +
                     (name.empty() ? std::string() : " named " + std::string(name)) +
                     " (LISTEN_FDS and LISTEN_PID unset, for another process, or taken already)");
  return {};
}

}  // namespace callwire::detail
