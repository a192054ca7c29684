// The `callwire` command: XML-RPC documents to and from their JSON form (docs/json-form.md),
// and a demo server, a client and an introspection dump (net_commands.hpp).
//
// Exit status: 0 done; 1 the document was refused or the server answered with a fault
// (stderr: `fault CODE: message`); 2 a usage, I/O or transport error.
#include <CLI/CLI.hpp>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "callwire/buffer.hpp"
#include "callwire/error.hpp"
#include "callwire/version.h"
#include "callwire/xml.hpp"
#include "json_form.hpp"
#include "net_commands.hpp"

namespace {

constexpr int kRefused = 1;
constexpr int kUsage = 2;

// Reads FILE, or standard input for "-", keeping at most `limit` bytes (more would be refused
// anyway; stopping early keeps a huge input from being read whole). Empty on failure, after
// saying why on stderr.
std::optional<std::string> read_input(const std::string& path, size_t limit) {
  bool use_stdin = path == "-";
  std::FILE* f = use_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "callwire: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    return std::nullopt;
  }
  std::string text;
  char chunk[65536];
  while (text.size() < limit) {
    size_t n = std::fread(chunk, 1, std::min(sizeof chunk, limit - text.size()), f);
    text.append(chunk, n);
    if (n == 0) break;
  }
  bool failed = std::ferror(f);
  int err = errno;
  if (!use_stdin) std::fclose(f);
  if (failed) {
    std::fprintf(stderr, "callwire: cannot read %s: %s\n",
                 use_stdin ? "standard input" : path.c_str(), std::strerror(err));
    return std::nullopt;
  }
  return text;
}

int refused(const callwire::Error& error) {
  std::fprintf(stderr, "fault %d: %s\n", int(error.fault_code), error.message.c_str());
  return kRefused;
}

int write_output(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
      std::fputc('\n', stdout) == EOF || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "callwire: cannot write the output: %s\n", std::strerror(errno));
    return kUsage;
  }
  return 0;
}

int run_decode(const std::string& path, size_t max_size, bool pretty) {
  callwire::xml::ReaderLimits limits;
  limits.max_document_size = max_size;
  // One byte past the limit is enough to know the document is too large.
  auto text = read_input(path, max_size == SIZE_MAX ? max_size : max_size + 1);
  if (!text) return kUsage;
  if (text->size() > max_size) {
    // Said here because the reader, given only the first bytes, would report the wrong size.
    return refused(callwire::Error(
        callwire::Errc::LimitExceeded,
        "document exceeds the limit of " + std::to_string(max_size) + " bytes (--max-size)"));
  }
  callwire::xml::Reader reader(limits);
  auto message = reader.read(*text);
  if (!message) return refused(message.error());
  auto style = pretty ? callwire::json_form::Style::Pretty : callwire::json_form::Style::Compact;
  return write_output(callwire::json_form::to_json(*message, style));
}

int run_encode(const std::string& path, callwire::xml::Dialect dialect) {
  auto text = read_input(path, SIZE_MAX);
  if (!text) return kUsage;
  auto message = callwire::json_form::message_from_json(*text);
  if (!message) return refused(message.error());
  callwire::Buffer out;
  callwire::xml::WriterOptions options;
  options.dialect = dialect;
  if (auto status = callwire::xml::write_message(out, *message, options); !status)
    return refused(status.error());
  return write_output(out.view());
}

// CLI11 splits an argument written "[a,b]" into two values of a list option; a call's
// parameter such as the JSON array '[1,2]' must stay whole. Such arguments after "call" get a
// marker (a byte no parameter holds: 0x1F) that CLI11 does not see through; unprotect() takes
// it off again.
constexpr char kWhole = '\x1f';

std::vector<std::string> protect(int argc, char** argv) {
  std::vector<std::string> args;
  bool in_call = false;
  for (int i = argc - 1; i >= 1; --i) {  // CLI11 takes them last first
    std::string a = argv[i];
    args.push_back(std::move(a));
  }
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    if (!in_call && *it == "call")
      in_call = true;
    else if (in_call && it->size() >= 2 && it->front() == '[' && it->back() == ']')
      it->insert(it->begin(), kWhole);
  }
  return args;
}

std::vector<std::string> unprotect(std::vector<std::string> params) {
  for (std::string& p : params)
    if (!p.empty() && p.front() == kWhole) p.erase(0, 1);
  return params;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(_WIN32)
  // Bytes in and out, as on POSIX: documents keep their line ends, and scripts read the same
  // output from callwire.exe as from callwire.
  _setmode(_fileno(stdin), _O_BINARY);
  _setmode(_fileno(stdout), _O_BINARY);
#endif
  CLI::App app("callwire: XML-RPC and JSON-RPC from the command line", "callwire");
  app.set_version_flag("--version", std::string("callwire ") + callwire_version());
  app.require_subcommand(1);

  std::string decode_path = "-";
  size_t max_size = callwire::xml::ReaderLimits{}.max_document_size;
  bool pretty = false;
  auto* decode =
      app.add_subcommand("decode", "Read an XML-RPC call or response, print its JSON form");
  decode->add_option("FILE", decode_path, "The document; '-' or nothing for standard input");
  // A size: a number with an optional unit (64MiB, 1GiB), never negative.
  const CLI::Validator non_negative(
      [](std::string& s) {
        return s.find('-') == std::string::npos ? std::string() : "must not be negative";
      },
      "", "NonNegative");
  decode->add_option("--max-size", max_size, "Refuse a document larger than this (e.g. 64MiB)")
      ->check(non_negative)
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  decode->add_flag("--pretty", pretty, "Indent the JSON by two spaces");

  std::string encode_path = "-";
  std::string dialect = "i8";
  auto* encode = app.add_subcommand("encode", "Read the JSON form, print the XML-RPC document");
  encode->add_option("FILE", encode_path, "The JSON form; '-' or nothing for standard input");
  encode
      ->add_option("--dialect", dialect, "How to write i8 and nil: <i8>/<nil/> or Apache's <ex:…>")
      ->check(CLI::IsMember({"i8", "apache"}))
      ->capture_default_str();

  callwire::tool::ServeFlags serve_flags;
  auto* serve = app.add_subcommand(
      "serve", "Run a demo server: sample.add, validator1.*, echo and the system methods");
  serve->add_option("--listen", serve_flags.listen,
                    "HOST:PORT, [IPV6]:PORT, systemd: or systemd:NAME (socket activation), "
                    "fd:N (an inherited listening socket); repeatable");
  serve->add_option("--unix", serve_flags.unix_path, "Also listen on this Unix socket");
  serve->add_option("--scgi", serve_flags.scgi,
                    "Also serve SCGI (a web server's scgi_pass) on HOST:PORT (repeatable)");
  serve->add_option("--scgi-unix", serve_flags.scgi_unix_path,
                    "Also serve SCGI on this Unix socket");
  serve->add_option("--pstream", serve_flags.pstream,
                    "Also serve xmlrpc-c's packet stream on HOST:PORT (repeatable)");
  serve->add_option("--pstream-unix", serve_flags.pstream_unix_path,
                    "Also serve the packet stream on this Unix socket");
  serve->add_option("--jsonl", serve_flags.jsonl,
                    "Also serve newline-delimited JSON-RPC on HOST:PORT (repeatable)");
  serve->add_option("--jsonl-unix", serve_flags.jsonl_unix_path,
                    "Also serve newline-delimited JSON-RPC on this Unix socket");
  serve->add_option("--websocket", serve_flags.websocket,
                    "Also serve HTTP that takes WebSocket upgrades (ws://) on HOST:PORT "
                    "(repeatable)");
  serve->add_option("--websocket-origin", serve_flags.websocket_origins,
                    "Let browser pages from this origin open a WebSocket ('*': any; repeatable)");
  serve->add_option("--websocket-ping", serve_flags.websocket_ping_ms,
                    "Ping a quiet WebSocket peer after this many ms, close it if no answer in "
                    "as long again (0: never; default 30000)");
  serve->add_flag("--reuse-port", serve_flags.reuse_port,
                  "SO_REUSEPORT: several servers started with it share each TCP port");
  serve->add_option("--health-path", serve_flags.health_path,
                    "Answer GET PATH (e.g. /healthz) with 200 while serving, 503 while stopping");
  serve->add_option("--metrics-path", serve_flags.metrics_path,
                    "Answer GET PATH (e.g. /metrics) with the metrics in Prometheus' format");
  serve->add_option("--trusted-proxy", serve_flags.trusted_proxies,
                    "Believe X-Forwarded-For from this address or range (repeatable; 'unix')");
  serve->add_option("--metrics-authorization", serve_flags.metrics_authorization,
                    "The whole Authorization value the metrics path requires (e.g. 'Bearer T')");
  serve
      ->add_option("--inetd", serve_flags.inetd,
                   "Serve the connection on standard input alone, in this framing (inetd, "
                   "systemd Accept=yes); nothing is written on stdout")
      ->check(CLI::IsMember({"http", "scgi", "pstream", "jsonl", "websocket"}));
  serve->add_option("--threads", serve_flags.threads, "Event-loop threads (0: one per core)");
  serve->add_option("--handler-threads", serve_flags.handler_threads,
                    "Run handlers on a pool of N threads (0: on the event loops)");
  serve->add_option("--tls-cert", serve_flags.tls.cert_file, "PEM certificate chain: serve HTTPS");
  serve->add_option("--tls-key", serve_flags.tls.key_file, "PEM private key");
  serve->add_option("--tls-client-ca", serve_flags.tls.ca_file,
                    "Mutual TLS: require client certificates from these CAs (PEM)");
  serve->add_option("--tls-client-ca-dir", serve_flags.tls.ca_dir,
                    "Mutual TLS: ... or from this hashed directory (openssl rehash)");
  serve->add_flag("--tls-client-cert-optional", serve_flags.tls_client_cert_optional,
                  "With --tls-client-ca: serve clients without a certificate too");
  serve
      ->add_option("--tls-min-version", serve_flags.tls_min_version,
                   "Oldest TLS version accepted: 1.2 or 1.3")
      ->check(CLI::IsMember({"1.2", "1.3"}))
      ->capture_default_str();
  serve->add_option("--tls-ciphers", serve_flags.tls.ciphers,
                    "OpenSSL cipher list for TLS 1.2 (e.g. ECDHE+AESGCM)");
  serve->add_option("--tls-ciphersuites", serve_flags.tls.ciphersuites,
                    "TLS 1.3 cipher suites (e.g. TLS_AES_256_GCM_SHA384)");
  serve->add_option("--user", serve_flags.user, "Require HTTP Basic authentication as USER");
  serve->add_option("--password", serve_flags.password, "... with this password");
  serve->add_option("--dialect", serve_flags.dialect, "Answers' i8/nil: auto, i8 or apache")
      ->check(CLI::IsMember({"auto", "i8", "apache"}))
      ->capture_default_str();
  serve->add_flag("--enable-shutdown", serve_flags.enable_shutdown,
                  "Let system.shutdown stop the server");
  serve->add_flag("--log", serve_flags.access_log, "Log every request on stderr");
  serve->add_flag("--trace", serve_flags.trace,
                  "Print every request and answer, head and body, on stderr (a wire trace)");
  serve
      ->add_option("--trace-max", serve_flags.trace_max,
                   "With --trace: cut each body after this many bytes (e.g. 4KiB)")
      ->check(non_negative)
      ->transform(CLI::AsSizeValue(false));
  serve
      ->add_option("--gzip-min-size", serve_flags.gzip_min_size,
                   "Gzip answers of at least this many bytes for clients that accept it "
                   "(0: never, the default)")
      ->check(non_negative)
      ->transform(CLI::AsSizeValue(false));
  serve->add_option("--max-connections", serve_flags.max_connections,
                    "Open connections; newcomers beyond get 503 (default 10000)");
  serve->add_option("--cors-allow-origin", serve_flags.cors_allow_origin,
                    "Allow browser pages from this origin (or \"*\") to call: CORS");
  serve->add_option("--cors-max-age", serve_flags.cors_max_age,
                    "Seconds a browser may keep a CORS preflight's answer (0: not sent)");
  serve->add_option("--max-requests-per-connection", serve_flags.max_requests_per_connection,
                    "HTTP requests one keep-alive connection carries before it closes "
                    "(0: no cap, the default)");
  serve
      ->add_option("--max-body", serve_flags.max_body,
                   "How big a request may be (default 32MiB); the readers' limits follow it")
      ->check(non_negative)
      ->transform(CLI::AsSizeValue(false));
  serve
      ->add_option("--max-buffer-memory", serve_flags.max_buffer_memory,
                   "All connections' buffers together (default 512MiB); past it, peers not "
                   "reading their answers are dropped, then new work gets 503")
      ->check(non_negative)
      ->transform(CLI::AsSizeValue(false));
  serve
      ->add_option("--request-timeout", serve_flags.request_timeout,
                   "Seconds from a request's first byte to its last (default 30)")
      ->check(CLI::Range(0.001, 86400.0));
  serve
      ->add_option("--idle-timeout", serve_flags.idle_timeout,
                   "Seconds a kept-alive connection may wait for its next request (default 60)")
      ->check(CLI::Range(0.001, 86400.0));
  serve
      ->add_option("--write-timeout", serve_flags.write_timeout,
                   "Seconds a peer may read nothing of an answer before it is dropped (default 30)")
      ->check(CLI::Range(0.001, 86400.0));

  callwire::tool::ClientSettingsFlags call_flags;
  std::string call_method;
  std::vector<std::string> call_params;
  bool call_pretty = false;
  auto add_client_flags = [&](CLI::App* cmd) {
    cmd->add_option("URL", call_flags.url,
                    "http://HOST:PORT/PATH, https://..., unix:PATH, scgi://HOST:PORT, "
                    "scgi+unix:PATH, pstream://HOST:PORT, pstream+unix:PATH; JSON-RPC: "
                    "jsonrpc+http://..., jsonrpc+https://..., jsonrpc+unix:PATH, "
                    "jsonl://HOST:PORT, jsonl+unix:PATH")
        ->required();
    cmd->add_option("--timeout", call_flags.timeout_seconds, "Seconds to wait for the answer")
        ->capture_default_str();
    cmd->add_option("--user", call_flags.user, "HTTP Basic user");
    cmd->add_option("--password", call_flags.password, "HTTP Basic password");
    cmd->add_option("--authorization", call_flags.authorization,
                    "The whole Authorization value, any scheme (e.g. \"Bearer TOKEN\")");
    cmd->add_option("--user-agent", call_flags.user_agent, "The User-Agent to send");
    cmd->add_option("--ca-file", call_flags.tls.ca_file, "PEM file of CAs to trust (https)");
    cmd->add_option("--ca-dir", call_flags.tls.ca_dir,
                    "Directory of CAs to trust, hashed by openssl rehash (https)");
    cmd->add_option("--tls-min-version", call_flags.tls_min_version,
                    "Oldest TLS version offered: 1.2 or 1.3")
        ->check(CLI::IsMember({"1.2", "1.3"}))
        ->capture_default_str();
    cmd->add_option("--tls-ciphers", call_flags.tls.ciphers,
                    "OpenSSL cipher list for TLS 1.2 (e.g. ECDHE+AESGCM)");
    cmd->add_option("--tls-ciphersuites", call_flags.tls.ciphersuites,
                    "TLS 1.3 cipher suites (e.g. TLS_AES_256_GCM_SHA384)");
    cmd->add_option("--cert", call_flags.tls.cert_file, "Mutual TLS: the client certificate (PEM)");
    cmd->add_option("--key", call_flags.tls.key_file, "Mutual TLS: its private key (PEM)");
    // One value per --header: a vector option would take the URL and method after it too.
    cmd->add_option("--header", call_flags.headers,
                    "A header field sent with every call, 'Name: value' (repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("--gzip", call_flags.gzip, "Ask for a gzipped answer (for slow links)");
    cmd->add_flag("--trace", call_flags.trace,
                  "Print the request and the answer, head and body, on stderr");
    cmd->add_option("--trace-max", call_flags.trace_max,
                    "With --trace: cut each body after this many bytes (e.g. 4KiB)")
        ->check(non_negative)
        ->transform(CLI::AsSizeValue(false));
    cmd->add_flag("--insecure", call_flags.insecure,
                  "Do not verify the server's certificate (https)");
    cmd->add_option(
        "--proxy", call_flags.proxy,
        "An HTTP proxy for http:// and https:// URLs: http://[USER:PASSWORD@]HOST:PORT");
    cmd->add_flag("--proxy-from-env", call_flags.proxy_from_env,
                  "Without --proxy: use http_proxy, https_proxy/HTTPS_PROXY and no_proxy as curl "
                  "does");
  };
  auto* call = app.add_subcommand("call", "Call a method; print the result's JSON form");
  add_client_flags(call);
  call->add_option("METHOD", call_method, "The method's name")->required();
  call->add_option("PARAM", call_params,
                   "i/N I/N s/TEXT h/HEX b/t|f d/N n/ t/DATETIME array/(...) struct/{k:v,...} "
                   "or a bare word (a string); with --json-rpc, one JSON value each. @FILE: "
                   "the parameter written in FILE; -: written on standard input");
  call->add_option("--dialect", call_flags.dialect, "How to send i8 and nil: i8 or apache")
      ->check(CLI::IsMember({"i8", "apache"}))
      ->capture_default_str();
  bool call_notify = false;
  call->add_flag("--pretty", call_pretty, "Indent the JSON by two spaces");
  call->add_flag(
      "--json-rpc", call_flags.json_rpc,
      "Speak JSON-RPC 2.0 (as a jsonrpc+http:// URL does): each PARAM is one JSON value (2, "
      "'\"text\"', '[1,2]', '{\"a\":null}'); the result is printed as plain JSON");
  bool call_named = false;
  auto* named_flag = call->add_flag(
      "--named", call_named,
      "Send the parameters by name: one PARAM, a struct (a JSON object with --json-rpc), sent as "
      "JSON-RPC's \"params\" object (XML-RPC: as the one parameter)");
  auto* notify_flag =
      call->add_flag("--notify", call_notify,
                     "Send a notification (JSON-RPC: no answer is awaited beyond the HTTP status, "
                     "and none at all over jsonl://; "
                     "XML-RPC: the call is made and its result dropped); print nothing");
  named_flag->excludes(notify_flag);
  double call_listen = 0;
  call->add_option("--listen", call_listen,
                   "WebSocket with JSON-RPC (jsonrpc+ws://): print each notification the server "
                   "sends, a line of JSON, while the call waits and for SECONDS after its answer")
      ->check(CLI::NonNegativeNumber)
      ->excludes(notify_flag);
  // Parameters may start with '-' (i/-5 does not, but a bare word might).
  call->positionals_at_end();

  auto* list = app.add_subcommand("list", "List a server's methods with signatures and help");
  add_client_flags(list);

  try {
    std::vector<std::string> args = protect(argc, argv);
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints help, the version, or the error with a hint
    return code == 0 ? 0 : kUsage;
  }

  try {
    if (decode->parsed()) return run_decode(decode_path, max_size, pretty);
    if (serve->parsed()) return callwire::tool::run_serve(serve_flags);
    if (call->parsed())
      return callwire::tool::run_call(call_flags, call_method, unprotect(call_params), call_pretty,
                                      call_notify, call_named, call_listen);
    if (list->parsed()) return callwire::tool::run_list(call_flags);
    return run_encode(encode_path, dialect == "apache" ? callwire::xml::Dialect::Apache
                                                       : callwire::xml::Dialect::I8);
  } catch (const std::exception& e) {  // std::bad_alloc: nothing a document says gets here
    std::fprintf(stderr, "callwire: %s\n", e.what());
    return kUsage;
  }
}
