// auth_tls_client: the client side of auth_tls_server: HTTPS with the server's certificate
// checked against a CA file of ours, and HTTP Basic credentials.
//
//   auth_tls_client URL --ca-file CA.pem --user USER --password PASSWORD
//
// Calls auth.whoami and sample.add(5, 3); prints "user USER" and "8". On failure (a certificate
// that does not verify, credentials refused: "HTTP 401 ...") prints the error and exits 1.
#include <callwire/client.hpp>
#include <cstdio>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  std::string url;
  callwire::ClientOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--ca-file" && i + 1 < argc) {
      options.tls.ca_file = argv[++i];  // trust these CAs instead of the system's store
    } else if (arg == "--user" && i + 1 < argc) {
      options.user = argv[++i];  // sent as HTTP Basic credentials with every call
    } else if (arg == "--password" && i + 1 < argc) {
      options.password = argv[++i];
    } else if (url.empty() && !arg.starts_with("--")) {
      url = arg;
    } else {
      url.clear();
      break;
    }
  }
  if (url.empty()) {
    std::fprintf(stderr, "usage: %s URL [--ca-file CA.pem] [--user USER --password PASSWORD]\n",
                 argv[0]);
    return 2;
  }
  // verify_peer stays on (the default): the chain and the name in the URL are checked.

  auto client = callwire::Client::create(url, options);
  if (!client) {  // e.g. a CA file that cannot be read
    std::fprintf(stderr, "%s\n", client.error().message.c_str());
    return 1;
  }

  auto who = client->call<std::string>("auth.whoami");
  if (!who) {
    std::fprintf(stderr, "auth.whoami failed: %s\n", who.error().message.c_str());
    return 1;
  }
  std::printf("user %s\n", who->c_str());

  auto sum = client->call<int>("sample.add", 5, 3);
  if (!sum) {
    std::fprintf(stderr, "sample.add failed: %s\n", sum.error().message.c_str());
    return 1;
  }
  std::printf("%d\n", *sum);
  return 0;
}
