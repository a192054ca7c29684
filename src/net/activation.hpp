// Internal: listening sockets a supervisor opened and handed down (systemd's socket
// activation, sd_listen_fds(3)), checked before the server accepts on them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "net/address.hpp"
#include "net/fd.hpp"

namespace callwire::net {

/// One inherited listening socket.
struct InheritedSocket {
  int fd = -1;       ///< not owned: whoever takes it wraps it in a UniqueFd
  std::string name;  ///< its LISTEN_FDNAMES entry (FileDescriptorName=), or "unknown"
};

/// The sockets systemd passed: when LISTEN_PID is this process, LISTEN_FDS descriptors from 3
/// on, named by LISTEN_FDNAMES (colon-separated; "unknown" when absent, as systemd names
/// them). The three variables are unset afterwards whatever they held, as sd_listen_fds(1)
/// does, so that children do not take them for theirs: a second call finds none. Each
/// descriptor is made close-on-exec. Errors: InvalidArgument when LISTEN_FDS or LISTEN_PID is
/// not a number; on Windows always, saying there is no socket activation there.
Result<std::vector<InheritedSocket>> take_systemd_sockets();

/// Checks that `fd` is a listening stream socket (TCP or Unix) and makes it non-blocking and
/// close-on-exec. Returns where it listens (for a Unix socket, its path; empty when it has
/// none). Errors: InvalidArgument naming the descriptor and what is wrong.
Result<Endpoint> ready_listening_socket(int fd);

}  // namespace callwire::net
