// auth_tls_server: a server that speaks HTTPS and asks for HTTP Basic credentials, the parts of
// xmlrpc-c's Abyss configuration most servers need. Offers sample.add and auth.whoami (the
// user the call was made as).
//
//   auth_tls_server --cert CERT.pem --key KEY.pem --user USER --password PASSWORD
//                   [--listen ADDRESS]
//
// A throwaway certificate for 127.0.0.1, valid one day (one command line):
//   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1
//     -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout key.pem -out cert.pem
// and a client that trusts it: auth_tls_client URL --ca-file cert.pem --user ... --password ...
//
// A password on the command line is visible to other users of the machine (ps); a real server
// would check a file of salted hashes, or a PAM or LDAP service, in the same callback.
#include <callwire/server.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace {

callwire::Server* g_server = nullptr;

extern "C" void on_signal(int) {
  if (g_server != nullptr) g_server->stop();  // async-signal-safe
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0", cert, key, user, password;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string* target = arg == "--listen"     ? &listen
                          : arg == "--cert"     ? &cert
                          : arg == "--key"      ? &key
                          : arg == "--user"     ? &user
                          : arg == "--password" ? &password
                                                : nullptr;
    if (target == nullptr || i + 1 == argc) {
      cert.clear();  // show the usage
      break;
    }
    *target = argv[++i];
  }
  if (cert.empty() || key.empty() || user.empty() || password.empty()) {
    std::fprintf(stderr,
                 "usage: %s --cert CERT.pem --key KEY.pem --user USER --password PASSWORD "
                 "[--listen ADDRESS]\n",
                 argv[0]);
    return 2;
  }

  callwire::ServerOptions options;
  options.listen = {listen};
  // Both set: every TCP listener speaks TLS 1.2 or later.
  options.tls.cert_file = cert;
  options.tls.key_file = key;
  // Every request must carry credentials this accepts, else 401. It runs on the server's
  // threads, possibly several at once: it only reads `user` and `password` here. The
  // comparison takes the same time wherever a guess goes wrong.
  options.authenticate = [&user, &password](std::string_view u, std::string_view p) {
    bool user_ok = callwire::constant_time_equal(u, user);  // both compared, always
    bool password_ok = callwire::constant_time_equal(p, password);
    return user_ok && password_ok;
  };
  options.realm = "callwire example";
  callwire::Server server(options);

  callwire::Status bound = server.bind(
      "sample.add", [](int a, int b) { return a + b; }, "Adds two integers.");
  // The call context comes first and is not an XML-RPC parameter: auth.whoami takes none.
  if (bound) {
    bound = server.bind(
        "auth.whoami", [](callwire::CallContext& ctx) { return std::string(ctx.user()); },
        "The user name this call was authenticated as.");
  }
  if (!bound) {
    std::fprintf(stderr, "cannot bind: %s\n", bound.error().message.c_str());
    return 1;
  }

  // An unreadable certificate or key, or a key that does not match, is reported here.
  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "cannot start: %s\n", started.error().message.c_str());
    return 1;
  }
  g_server = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  std::printf("listening on %s\n", server.url().c_str());  // https://...
  std::fflush(stdout);
  server.wait();
  g_server = nullptr;
  std::printf("stopped\n");
  return 0;
}
