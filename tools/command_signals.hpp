// The `callwire` command's signals: Ctrl-C and SIGTERM stop `serve` and interrupt `call` and
// `list`; SIGHUP reloads `serve`'s TLS certificate where there is a SIGHUP (POSIX; Windows has
// none, and its Ctrl-C arrives as SIGINT through the C runtime).
#pragma once

#include <csignal>
#include <thread>

#include "callwire/server.hpp"

namespace callwire::tool {

/// From now on SIGINT and SIGTERM stop `server` (Server::stop is async-signal-safe); nullptr
/// forgets it (the signals then do nothing).
void stop_on_signals(Server* server);

/// SIGINT and SIGTERM set *flag (ClientOptions::interrupt ends the call it waits on).
void interrupt_on_signals(volatile std::sig_atomic_t* flag);

/// Reloads the certificate (Server::reload_tls) on each SIGHUP, saying on stderr what it did,
/// from a thread of its own; an empty thread where there is no SIGHUP.
std::thread reload_on_sighup(Server& server);
/// Ends what reload_on_sighup started.
void stop_reloading(std::thread& reloader);

}  // namespace callwire::tool
