// The `callwire` command's network subcommands: serve, call, list.
//
// Exit status: 0 done; 1 the server answered with a fault (stderr: `fault CODE: STRING`);
// 2 anything else (usage, transport, HTTP status), with the reason on stderr.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "callwire/tls.hpp"

namespace callwire::tool {

struct ServeFlags {
  std::vector<std::string> listen;
  std::string unix_path;
  std::vector<std::string> scgi;  // HOST:PORT, SCGI (behind a web server's scgi_pass)
  std::string scgi_unix_path;
  std::vector<std::string> pstream;  // HOST:PORT, xmlrpc-c's packet stream
  std::string pstream_unix_path;
  std::vector<std::string> jsonl;  // HOST:PORT, newline-delimited JSON-RPC
  std::string jsonl_unix_path;
  std::vector<std::string> websocket;          // HOST:PORT, HTTP with WebSocket upgrades
  std::vector<std::string> websocket_origins;  // WebSocketOptions::allowed_origins
  int64_t websocket_ping_ms = 30000;           // WebSocketOptions::ping_interval
  bool reuse_port = false;                     // SO_REUSEPORT: several processes on one port
  std::string health_path;            // GET answered 200 "ok" while serving, 503 while stopping
  std::string metrics_path;           // GET answered with the Prometheus page
  std::string metrics_authorization;  // the Authorization value the metrics page requires
  std::vector<std::string> trusted_proxies;  // whose X-Forwarded-For is believed
  // http, scgi, pstream or jsonl: serve the connection on standard input alone (inetd,
  // systemd's Accept=yes, xmlrpc-c's socketexec), print nothing on stdout, exit when it closes.
  std::string inetd;
  unsigned threads = 0;
  unsigned handler_threads = 0;
  TlsOptions tls;                       // --tls-*, but --tls-min-version
  std::string tls_min_version = "1.2";  // "1.2" or "1.3", into tls.min_version
  bool tls_client_cert_optional = false;
  std::string user, password;
  std::string dialect = "auto";
  bool enable_shutdown = false;
  bool access_log = false;
  bool trace = false;    // --trace: every request and answer on stderr
  size_t trace_max = 0;  // --trace-max: each body cut after this many bytes (0: whole)
  size_t gzip_min_size = 0;
  // Limits; 0 keeps the library's default.
  size_t max_connections = 0;
  size_t max_requests_per_connection = 0;
  std::string cors_allow_origin;
  unsigned cors_max_age = 0;
  size_t max_body = 0;
  size_t max_buffer_memory = 0;
  // Timeouts in seconds; 0 keeps the library's default.
  double request_timeout = 0, idle_timeout = 0, write_timeout = 0;
};

struct ClientSettingsFlags {
  std::string url;
  double timeout_seconds = 30;
  std::string user, password;
  std::string authorization, user_agent;
  std::string dialect = "i8";
  TlsOptions tls;                       // --ca-file, --ca-dir, --cert, --key, --tls-*
  std::string tls_min_version = "1.2";  // "1.2" or "1.3", into tls.min_version
  bool insecure = false;
  bool gzip = false;
  std::string proxy;                 // --proxy URL
  bool proxy_from_env = false;       // --proxy-from-env
  bool json_rpc = false;             // --json-rpc: speak JSON-RPC 2.0 (a jsonrpc+ URL does too)
  bool trace = false;                // --trace: every request and answer on stderr
  size_t trace_max = 0;              // --trace-max: each body cut after this many bytes (0: whole)
  std::vector<std::string> headers;  // --header 'Name: value', each sent with every call
};

/// Runs the demo server until SIGINT, SIGTERM or system.shutdown (when enabled). Its first
/// line on stdout is "listening on URL". With --inetd it serves standard input instead,
/// writes nothing on stdout (the connection may be stdout too) and returns when it closes.
int run_serve(const ServeFlags& flags);
/// Calls METHOD with parameters in xmlrpc-c's syntax; prints the result's JSON form. With
/// JSON-RPC (--json-rpc or a jsonrpc+ URL) each parameter is one JSON value (`2`, `"text"`,
/// `[1,2]`, `{"a":null}`) and the result is printed as plain JSON; `notify` sends a
/// notification instead and prints nothing; `named` sends the one struct parameter as the
/// parameters by name (Client::call_named). `listen_seconds` > 0 (WebSocket with JSON-RPC):
/// prints each notification the server sends, a line of JSON, while the call waits and for
/// that long after its answer (^C ends it sooner).
int run_call(const ClientSettingsFlags& flags, const std::string& method,
             const std::vector<std::string>& params, bool pretty, bool notify, bool named,
             double listen_seconds);
/// Prints every method with its signatures and help, through introspection.
int run_list(const ClientSettingsFlags& flags);

}  // namespace callwire::tool
