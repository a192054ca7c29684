#include "net_commands.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "call_params.hpp"
#include "callwire/client.hpp"
#include "callwire/json.hpp"
#include "callwire/server.hpp"
#include "command_signals.hpp"
#include "demo_methods.hpp"
#include "json_form.hpp"
#include "terminal_text.hpp"

namespace callwire::tool {

namespace {

constexpr int kFault = 1;
constexpr int kFailed = 2;

// call and list: Ctrl-C (SIGINT) or SIGTERM interrupts the call (ClientOptions::interrupt) and
// the command exits 130, as a shell expects of a program ended by Ctrl-C.
volatile std::sig_atomic_t g_interrupted = 0;
constexpr int kInterrupted = 130;

// A fault's message is the server's text, and other errors quote what it sent: escaped, so
// it cannot drive the terminal or forge lines.
int print_error(const Error& e) {
  if (e.code == Errc::Cancelled && g_interrupted) {
    std::fprintf(stderr, "callwire: interrupted\n");
    return kInterrupted;
  }
  const std::string message = terminal_text(e.message);
  if (e.code == Errc::Fault) {
    std::fprintf(stderr, "fault %d: %s\n", int(e.fault_code), message.c_str());
    return kFault;
  }
  std::fprintf(stderr, "callwire: %s: %s\n", errc_name(e.code), message.c_str());
  return kFailed;
}

// "2026-11-26T19:50:30.123Z".
std::string rfc3339(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto ms = floor<milliseconds>(t);
  const auto day = floor<days>(ms);
  const year_month_day ymd{day};
  const hh_mm_ss hms{ms - day};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), int(hms.hours().count()),
                int(hms.minutes().count()), int(hms.seconds().count()),
                int(hms.subseconds().count()));
  return text;
}

// "1.2" or "1.3", as the flags' check lets through.
TlsVersion tls_version(const std::string& flag) {
  return flag == "1.3" ? TlsVersion::Tls1_3 : TlsVersion::Tls1_2;
}

// "Name: value" as a header field; the name must not be empty.
Result<std::pair<std::string, std::string>> header_field(const std::string& flag) {
  size_t colon = flag.find(':');
  auto trimmed = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return std::string(s);
  };
  if (colon == std::string::npos || trimmed(std::string_view(flag).substr(0, colon)).empty())
    return Error(Errc::InvalidArgument,
                 "--header " + terminal_text(flag) + ": write it as 'Name: value'");
  return std::pair{trimmed(std::string_view(flag).substr(0, colon)),
                   trimmed(std::string_view(flag).substr(colon + 1))};
}

Result<Client> make_client(const ClientSettingsFlags& flags,
                           NotificationHandler on_notification = nullptr) {
  ClientOptions options;
  options.on_notification = std::move(on_notification);
  for (const std::string& flag : flags.headers) {
    auto field = header_field(flag);
    if (!field) return field.error();
    options.headers.push_back(std::move(*field));
  }
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(flags.timeout_seconds * 1000));
  options.user = flags.user;
  options.password = flags.password;
  options.authorization = flags.authorization;
  options.user_agent = flags.user_agent;
  options.dialect = flags.dialect == "apache" ? xml::Dialect::Apache : xml::Dialect::I8;
  options.tls = flags.tls;
  options.tls.min_version = tls_version(flags.tls_min_version);
  options.verify_peer = !flags.insecure;
  options.accept_gzip = flags.gzip;
  if (flags.trace) options.trace = trace_to_stderr(flags.trace_max);
  options.proxy = flags.proxy;
  options.proxy_from_environment = flags.proxy_from_env;
  if (flags.json_rpc) options.protocol = Protocol::JsonRpc;
  options.interrupt = &g_interrupted;
  interrupt_on_signals(&g_interrupted);
  return Client::create(flags.url, std::move(options));
}

}  // namespace

int run_serve(const ServeFlags& flags) {
  ServerOptions options;
  options.listen = flags.listen;
  if (!flags.unix_path.empty()) options.listen.push_back("unix:" + flags.unix_path);
  for (const std::string& address : flags.scgi) options.listen.push_back("scgi://" + address);
  if (!flags.scgi_unix_path.empty()) options.listen.push_back("scgi+unix:" + flags.scgi_unix_path);
  for (const std::string& address : flags.pstream) options.listen.push_back("pstream://" + address);
  if (!flags.pstream_unix_path.empty())
    options.listen.push_back("pstream+unix:" + flags.pstream_unix_path);
  for (const std::string& address : flags.jsonl) options.listen.push_back("jsonl://" + address);
  if (!flags.jsonl_unix_path.empty())
    options.listen.push_back("jsonl+unix:" + flags.jsonl_unix_path);
  for (const std::string& address : flags.websocket) options.listen.push_back("ws://" + address);
  options.websocket.allowed_origins = flags.websocket_origins;
  options.websocket.ping_interval = std::chrono::milliseconds(flags.websocket_ping_ms);
  if (options.listen.empty()) options.listen.push_back("127.0.0.1:8080");
  options.reuse_port = flags.reuse_port;
  options.health_path = flags.health_path;
  options.metrics_path = flags.metrics_path;
  options.metrics_authorization = flags.metrics_authorization;
  options.trusted_proxies = flags.trusted_proxies;
  options.threads = flags.threads;
  options.handler_threads = flags.handler_threads;
  options.tls = flags.tls;
  options.tls.min_version = tls_version(flags.tls_min_version);
  options.client_cert_optional = flags.tls_client_cert_optional;
  // Connections dropped without an answer (failed TLS handshakes) are always reported.
  options.error_log = [](const ErrorLogEntry& e) {
    std::fprintf(stderr, "callwire: %.*s: %.*s\n", int(e.peer.size()), e.peer.data(),
                 int(e.message.size()), e.message.data());
  };
  options.enable_shutdown = flags.enable_shutdown;
  options.gzip_min_size = flags.gzip_min_size;
  if (flags.max_connections) options.max_connections = flags.max_connections;
  options.max_requests_per_connection = flags.max_requests_per_connection;
  options.cors_allow_origin = flags.cors_allow_origin;
  options.cors_max_age = std::chrono::seconds(flags.cors_max_age);
  if (flags.max_body) options.max_body = flags.max_body;
  if (flags.max_buffer_memory) options.max_buffer_memory = flags.max_buffer_memory;
  auto millis = [](double seconds) {
    return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000 + 0.5));
  };
  if (flags.request_timeout > 0) options.request_timeout = millis(flags.request_timeout);
  if (flags.idle_timeout > 0) options.idle_timeout = millis(flags.idle_timeout);
  if (flags.write_timeout > 0) options.write_timeout = millis(flags.write_timeout);
  options.dialect = flags.dialect == "i8"       ? OutputDialect::I8
                    : flags.dialect == "apache" ? OutputDialect::Apache
                                                : OutputDialect::Auto;
  if (!flags.user.empty()) {
    options.authenticate = [user = flags.user, password = flags.password](std::string_view u,
                                                                          std::string_view p) {
      // Both compared every time (`&` on ints, not `&&`): how long a refusal takes does not
      // say which of the two was wrong.
      return (int{constant_time_equal(u, user)} & int{constant_time_equal(p, password)}) != 0;
    };
  }
  if (flags.trace) options.trace = trace_to_stderr(flags.trace_max);
  if (flags.access_log) {
    // The peer and the method come escaped (AccessLogEntry): each is one printable word, so a
    // peer can neither forge a line nor reach the terminal through them.
    options.access_log = [](const AccessLogEntry& e) {
      // One line, labelled fields, an RFC 3339 UTC timestamp with milliseconds; the texts
      // come escaped (no spaces), "-" when empty.
      auto text = [](std::string_view s) { return s.empty() ? std::string("-") : std::string(s); };
      std::fprintf(stderr,
                   "%s peer=%s user=%s method=%s status=%d fault=%d in=%zu out=%zu "
                   "duration=%.3fms\n",
                   rfc3339(e.time).c_str(), text(e.peer).c_str(), text(e.user).c_str(),
                   text(e.method).c_str(), e.http_status, int(e.fault_code), e.request_bytes,
                   e.response_bytes, std::chrono::duration<double, std::milli>(e.duration).count());
    };
  }
  Server server(std::move(options));
  std::vector<demo::DemoMethod> methods = demo::demo_methods();
  if (!flags.websocket.empty() || flags.inetd == "websocket")
    for (auto& m : demo::websocket_demo_methods()) methods.push_back(std::move(m));
  for (auto& m : methods) {
    if (Status s = server.add_method(m.name, std::move(m.handler), std::move(m.info)); !s)
      return print_error(s.error());
  }
  if (!flags.inetd.empty()) {
    const ConnectionFraming framing = flags.inetd == "scgi"        ? ConnectionFraming::Scgi
                                      : flags.inetd == "pstream"   ? ConnectionFraming::Pstream
                                      : flags.inetd == "jsonl"     ? ConnectionFraming::JsonLines
                                      : flags.inetd == "websocket" ? ConnectionFraming::WebSocket
                                                                   : ConnectionFraming::Http;
    stop_on_signals(&server);
    Status served = server.serve_connection(0, framing);  // standard input
    stop_on_signals(nullptr);
    return served ? 0 : print_error(served.error());
  }
  if (Status s = server.start(); !s) return print_error(s.error());
  stop_on_signals(&server);
  std::thread reloader;
  if (!flags.tls.cert_file.empty()) reloader = reload_on_sighup(server);
  // Every listener: a "systemd:" address may have brought several sockets.
  for (size_t i = 0; !server.url(i).empty(); ++i)
    std::printf("listening on %s\n", server.url(i).c_str());
  std::fflush(stdout);
  server.wait();
  stop_reloading(reloader);
  stop_on_signals(nullptr);
  return 0;
}

namespace {

// Each argument one JSON value, read as a JSON-RPC server reads params.
Result<std::vector<Value>> json_params(const std::vector<std::string>& args) {
  json::Reader reader;
  std::vector<Value> values;
  for (size_t i = 0; i < args.size(); ++i) {
    auto v = reader.read_value(args[i]);
    if (!v)
      return Error(Errc::InvalidArgument, "parameter " + std::to_string(i + 1) + " (" + args[i] +
                                              "): not a JSON value (" + v.error().message +
                                              "; quote a string as '\"text\"')");
    values.push_back(std::move(*v));
  }
  return values;
}

}  // namespace

namespace {

// A file's whole text (std::cin's for "-"). Errors: InvalidArgument naming the file and why.
Result<std::string> read_text(const std::string& path) {
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return Error(Errc::InvalidArgument, "cannot read " + path + ": " + std::strerror(errno));
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  if (f != stdin) std::fclose(f);
  if (failed) return Error(Errc::InvalidArgument, "cannot read " + path);
  return text;
}

// The PARAMs as given, with "@FILE" replaced by the file's text and "-" by standard input's
// (once), each less one final line break (as a shell's $(...) drops it).
Result<std::vector<std::string>> expanded_params(const std::vector<std::string>& params) {
  std::vector<std::string> out;
  bool stdin_used = false;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& p = params[i];
    if (p != "-" && !p.starts_with('@')) {
      out.push_back(p);
      continue;
    }
    const std::string where = "parameter " + std::to_string(i + 1) + " (" + p + ")";
    if (p == "-" && std::exchange(stdin_used, true))
      return Error(Errc::InvalidArgument, where + ": standard input was read already");
    auto text = read_text(p == "-" ? p : p.substr(1));
    if (!text) return Error(Errc::InvalidArgument, where + ": " + text.error().message);
    if (text->ends_with('\n')) text->pop_back();
    if (text->ends_with('\r')) text->pop_back();
    out.push_back(std::move(*text));
  }
  return out;
}

// Compact JSON (json::write_value's) indented by two spaces, a member or element a line.
std::string indented_json(std::string_view json) {
  std::string out;
  int depth = 0;
  bool in_string = false;
  auto new_line = [&] {
    out += '\n';
    out.append(size_t(2 * depth), ' ');
  };
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\')
        out += json[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        out += c;
        break;
      case '{':
      case '[':
        out += c;
        if (i + 1 < json.size() && (json[i + 1] == '}' || json[i + 1] == ']')) {
          out += json[++i];
          break;
        }
        ++depth;
        new_line();
        break;
      case '}':
      case ']':
        --depth;
        new_line();
        out += c;
        break;
      case ',':
        out += c;
        new_line();
        break;
      case ':':
        out += ": ";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

namespace {

// --listen: each notification a line of JSON on stdout, as the server sent it (a JSON-RPC
// notification object), at once (stdout may be a pipe).
NotificationHandler print_notifications() {
  return [](std::string_view method, const Value& params) {
    Buffer out;
    if (!json::write_call(out, "", method, params)) return;
    std::printf("%.*s\n", int(out.size()), out.data());
    std::fflush(stdout);
  };
}

}  // namespace

int run_call(const ClientSettingsFlags& flags, const std::string& method,
             const std::vector<std::string>& given, bool pretty, bool notify, bool named,
             double listen_seconds) {
  auto params = expanded_params(given);
  if (!params) {
    std::fprintf(stderr, "callwire: %s\n", terminal_text(params.error().message).c_str());
    return kFailed;
  }
  auto client = make_client(flags, listen_seconds > 0 ? print_notifications() : nullptr);
  if (!client) return print_error(client.error());
  const bool json = client->protocol() == Protocol::JsonRpc;
  auto values = json ? json_params(*params) : call_params::parse_params(*params);
  if (!values) {
    std::fprintf(stderr, "callwire: %s\n", terminal_text(values.error().message).c_str());
    return kFailed;
  }
  if (!json) {
    if (std::string note = call_params::number_as_string_note(*params); !note.empty())
      std::fprintf(stderr, "callwire: note: %s\n", terminal_text(note).c_str());
  }
  if (notify) {
    Status sent = client->notify(method, *values);
    return sent ? 0 : print_error(sent.error());
  }
  if (named && (values->size() != 1 || !(*values)[0].is_struct())) {
    std::fprintf(stderr, "callwire: --named takes one PARAM, a struct%s\n",
                 json ? " (a JSON object)" : " (struct/{k:v,...})");
    return kFailed;
  }
  auto result = named ? client->call_named(method, (*values)[0]) : client->call(method, *values);
  if (!result) return print_error(result.error());
  std::string text;
  if (json) {
    Buffer out;
    if (Status s = json::write_value(out, *result); !s) return print_error(s.error());
    text = pretty ? indented_json(out.view()) : std::string(out.view());
  } else {
    text =
        json_form::to_json(*result, pretty ? json_form::Style::Pretty : json_form::Style::Compact);
  }
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
  // The notifications that come after the answer, until the time is up or ^C.
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(listen_seconds * 1000));
  while (listen_seconds > 0 && !g_interrupted && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return 0;
}

int run_list(const ClientSettingsFlags& flags) {
  auto client = make_client(flags);
  if (!client) return print_error(client.error());
  auto names = client->call("system.listMethods");
  if (!names) return print_error(names.error());
  if (!names->is_array()) {
    std::fprintf(stderr, "callwire: system.listMethods did not answer an array\n");
    return kFailed;
  }
  // Signatures and help for every method in one round trip.
  std::vector<MethodCall> calls;
  for (const Value& name : names->as_array()) {
    if (!name.is_string()) continue;
    calls.push_back({"system.methodSignature", Value::array({name})});
    calls.push_back({"system.methodHelp", Value::array({name})});
  }
  auto answers = client->multicall(calls);
  size_t i = 0;
  // Names, signatures and help are the server's text: escaped, so that none of it drives the
  // terminal or forges a line (help keeps its line breaks, each line indented).
  for (const Value& name : names->as_array()) {
    if (!name.is_string()) continue;
    std::string line = terminal_text(name.as_string());
    std::string help;
    if (answers) {
      const CallResult& sig = (*answers)[i];
      const CallResult& h = (*answers)[i + 1];
      if (sig && sig->is_array()) {
        for (const Value& s : sig->as_array()) {
          if (!s.is_array() || s.empty()) continue;
          std::string text = line + "(";
          for (size_t k = 1; k < s.size(); ++k) {
            if (k > 1) text += ", ";
            text += s[k].is_string() ? terminal_text(s[k].as_string()) : "?";
          }
          text += ") -> " + (s[0].is_string() ? terminal_text(s[0].as_string()) : "?");
          std::printf("%s\n", text.c_str());
        }
        if (sig->empty()) std::printf("%s(...)\n", line.c_str());
      } else {
        std::printf("%s(...)\n", line.c_str());  // "undef": signature unknown
      }
      if (h && h->is_string()) help = std::string(h->as_string());
    } else {
      std::printf("%s\n", line.c_str());
    }
    for (std::string_view rest = help; !rest.empty();) {
      size_t end = std::min(rest.find('\n'), rest.size());
      std::string_view one = rest.substr(0, end);
      if (one.empty())
        std::printf("\n");
      else
        std::printf("    %s\n", terminal_text(one).c_str());
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    i += 2;
  }
  return 0;
}

}  // namespace callwire::tool
