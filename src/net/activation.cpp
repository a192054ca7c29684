#include "net/activation.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "net/system.hpp"

#if !defined(_WIN32)
#include <unistd.h>
#endif

namespace callwire::net {

#if defined(_WIN32)

Result<std::vector<InheritedSocket>> take_systemd_sockets() {
  return Error(Errc::InvalidArgument,
               std::string("systemd: socket activation is not available on this system") +
                   sys::kNoInheritedSockets);
}

#else

namespace {

constexpr int kFirstFd = 3;  // SD_LISTEN_FDS_START

std::optional<long> number(const char* text) {
  if (!text) return std::nullopt;
  std::string_view s(text);
  long n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n < 0) return std::nullopt;
  return n;
}

}  // namespace

Result<std::vector<InheritedSocket>> take_systemd_sockets() {
  const char* fds_text = std::getenv("LISTEN_FDS");
  const char* pid_text = std::getenv("LISTEN_PID");
  const char* names_text = std::getenv("LISTEN_FDNAMES");
  std::optional<long> fds = number(fds_text);
  std::optional<long> pid = number(pid_text);
  std::string names = names_text ? names_text : "";
  // Read once: a child started later must not take these for its own.
  unsetenv("LISTEN_FDS");
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDNAMES");
  std::vector<InheritedSocket> sockets;
  if (!fds_text || !pid_text) return sockets;
  if (!fds || !pid) return Error(Errc::InvalidArgument, "LISTEN_FDS or LISTEN_PID is not a number");
  if (*pid != static_cast<long>(getpid())) return sockets;  // meant for another process
  if (*fds > 4096) return Error(Errc::InvalidArgument, "LISTEN_FDS is implausibly large");
  size_t from = 0;
  for (long i = 0; i < *fds; ++i) {
    InheritedSocket s;
    s.fd = kFirstFd + static_cast<int>(i);
    if (!names.empty() && from <= names.size()) {
      size_t colon = names.find(':', from);
      if (colon == std::string::npos) colon = names.size();
      s.name = names.substr(from, colon - from);
      from = colon + 1;
    }
    if (s.name.empty()) s.name = "unknown";
    sys::set_no_inherit(s.fd);
    sockets.push_back(std::move(s));
  }
  return sockets;
}

#endif

Result<Endpoint> ready_listening_socket(int fd) {
  const std::string name = "descriptor " + std::to_string(fd);
  int type = 0;
  if (!sys::get_int_option(fd, SOL_SOCKET, SO_TYPE, type))
    return Error(Errc::InvalidArgument, name + " is not a socket" + sys::kNoInheritedSockets);
  if (type != SOCK_STREAM)
    return Error(Errc::InvalidArgument,
                 name + " is not a stream socket" + sys::kNoInheritedSockets);
  int listening = 0;
  if (!sys::get_int_option(fd, SOL_SOCKET, SO_ACCEPTCONN, listening) || !listening)
    return Error(Errc::InvalidArgument, name + " is not a listening socket");
  sockaddr_storage address{};
  sys::SockLen address_length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &address_length) != 0)
    return Error(Errc::InvalidArgument, errno_message(name + ": getsockname", sys::last_error()));
  Endpoint endpoint;
  char text[INET6_ADDRSTRLEN] = "";
  switch (address.ss_family) {
    case AF_INET: {
      auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
      inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      endpoint.host = text;
      endpoint.port = ntohs(v4->sin_port);
      break;
    }
    case AF_INET6: {
      auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
      inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      endpoint.host = text;
      endpoint.port = ntohs(v6->sin6_port);
      break;
    }
    case AF_UNIX: {
      endpoint.kind = Endpoint::Kind::Unix;
      auto* un = reinterpret_cast<const sockaddr_un*>(&address);
      const size_t length = static_cast<size_t>(address_length);
      size_t max =
          length > offsetof(sockaddr_un, sun_path) ? length - offsetof(sockaddr_un, sun_path) : 0;
      // An abstract socket (a leading NUL) or an unnamed one has no path to show.
      if (max > 0 && un->sun_path[0] != '\0')
        endpoint.path = std::string(un->sun_path, strnlen(un->sun_path, max));
      break;
    }
    default:
      return Error(Errc::InvalidArgument, name + " is neither a TCP nor a Unix socket");
  }
  if (!sys::set_nonblocking(fd, true) || !sys::set_no_inherit(fd))
    return Error(Errc::InvalidArgument,
                 errno_message(name + ": making it non-blocking", sys::last_error()));
  return endpoint;
}

}  // namespace callwire::net
