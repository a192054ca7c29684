// Internal to src/net: the system calls whose best form differs by system, each written once
// with its POSIX fallback (chosen by CMake's feature checks; CALLWIRE_PORTABLE takes every
// fallback, so Linux tests them): sockets opened and accepted non-blocking and close-on-exec,
// and sends that never raise SIGPIPE. No #if here: every module sees the same declarations.
#pragma once

#include <cstddef>

#include "net/system.hpp"

namespace callwire::net {

/// socket(family, SOCK_STREAM, 0), close-on-exec and (when `nonblocking`) non-blocking: in one
/// call where the system can (SOCK_CLOEXEC), else after it. Starts Winsock on Windows. -1 with
/// sys::last_error() on failure.
int open_stream_socket(int family, bool nonblocking) noexcept;

/// accept(2) of a connection made non-blocking and close-on-exec: accept4 where there is one,
/// else accept and then the flags. -1 with sys::last_error() as accept sets it.
int accept_nonblocking(int listen_fd, sockaddr* address, sys::SockLen* length) noexcept;

/// send(2) that never raises SIGPIPE (a peer that reset the connection gives EPIPE instead):
/// MSG_NOSIGNAL, else SO_NOSIGPIPE (set on every socket we open or accept), else SIGPIPE
/// blocked on this thread for the call and a SIGPIPE it raised taken before unblocking.
/// Windows has no SIGPIPE. -1 with sys::last_error() on failure.
/// `dont_wait`: MSG_DONTWAIT, for a socket that may be blocking.
ssize_t send_nosignal(int fd, const void* data, size_t size, bool dont_wait) noexcept;

/// Sets what a socket from elsewhere (inherited, adopted) needs to be sent on without
/// SIGPIPE where that is a socket option (SO_NOSIGPIPE); nothing elsewhere.
void prepare_for_send(int fd) noexcept;

}  // namespace callwire::net
