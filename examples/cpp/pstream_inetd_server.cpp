// pstream_inetd_server: serves sample.add over xmlrpc-c's packet stream on the connection it
// is given as standard input, until the client closes it: callwire's take on xmlrpc-c's
// pstream_inetd_server. It opens no socket of its own; whatever accepted the connection
// started it, one process per connection:
//
//   inetd / xinetd       a "stream tcp nowait" service running this program
//   systemd              a socket unit with Accept=yes and StandardInput=socket
//   for a quick try      systemd-socket-activate --inetd -l 127.0.0.1:8080 ./pstream_inetd_server
//
// then `pstream_client pstream://127.0.0.1:8080`. Standard output is the same socket: this
// program writes nothing there, and errors go to standard error. Exits 0 once the client has
// closed (a client that breaks the framing is closed too); 1 when standard input is no socket.
#include <unistd.h>

#include <callwire/server.hpp>
#include <cstdio>

int main() {
  callwire::ServerOptions options;
  // A packet stream carries one connection's calls in order; answering them on this thread is
  // enough. Limits and timeouts apply as for a listener's connections.
  options.idle_timeout = std::chrono::minutes(10);
  callwire::Server server(options);
  if (auto bound = server.bind(
          "sample.add", [](int a, int b) { return a + b; }, "Adds two integers.");
      !bound) {
    std::fprintf(stderr, "pstream_inetd_server: %s\n", bound.error().message.c_str());
    return 1;
  }

  callwire::Status served =
      server.serve_connection(STDIN_FILENO, callwire::ConnectionFraming::Pstream);
  if (!served) {
    std::fprintf(stderr, "pstream_inetd_server: %s\n", served.error().message.c_str());
    return 1;
  }
  return 0;
}
