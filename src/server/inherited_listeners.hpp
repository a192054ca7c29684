// Internal: listeners on sockets the server did not open (ServerOptions::listen's "systemd:"
// and "fd:N" forms).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "net/activation.hpp"
#include "server/server_core.hpp"

namespace callwire::detail {

/// True for the listen forms this file serves.
bool is_inherited_listener(std::string_view spec) noexcept;

/// Adds to core.listeners the inherited sockets `spec` names: "fd:N" the descriptor N,
/// "systemd:" every socket systemd passed and no earlier spec took, "systemd:NAME" those named
/// NAME (FileDescriptorName=). `systemd` holds what take_systemd_sockets() returned (read on
/// the first use: the environment is read once) minus what was taken. Each is checked
/// (net::ready_listening_socket) and served over HTTP, with TLS on TCP when core.tls is set.
/// Errors: InvalidArgument (a bad form, no such socket, not a listening stream socket, one
/// descriptor named twice).
Status add_inherited_listeners(ServerCore& core, std::string_view spec,
                               std::optional<std::vector<net::InheritedSocket>>& systemd);

}  // namespace callwire::detail
