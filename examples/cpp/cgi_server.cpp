// cgi_server: sample.add as a CGI program, in C++. Any web server that runs CGI programs runs it
// once per request (lighttpd's mod_cgi, Apache's mod_cgi, nginx through fcgiwrap); it does the
// HTTP, TLS and authentication, and this program answers the one call. docs/cgi.md shows a
// lighttpd configuration. Try it by hand:
//
//   REQUEST_METHOD=POST CONTENT_LENGTH=$(wc -c <call.xml) ./cgi_server <call.xml
#include <callwire/cgi.hpp>
#include <cstdio>
#include <string>

int main() {
  callwire::Registry registry;
  callwire::Status added = registry.bind(
      "sample.add", [](int a, int b) { return a + b; }, "Adds two integers.");
  if (added) {
    added = registry.bind(
        "whoami",
        [](callwire::CallContext& call) {
          // What the web server passed on: the peer, an authenticated user, header fields.
          return std::string(call.peer()) + " " + std::string(call.header("User-Agent"));
        },
        "The caller's address and User-Agent.");
  }
  if (!added) {
    std::fprintf(stderr, "cgi_server: %s\n", added.error().message.c_str());  // the error log
    return 1;
  }
  return callwire::serve_cgi(registry);
}
