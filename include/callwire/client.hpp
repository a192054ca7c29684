// callwire: the XML-RPC over HTTP(S) client.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/message.hpp"
#include "callwire/value.hpp"
#include "callwire/xml.hpp"

namespace callwire {

/// Everything a client can be told. A plain struct.
struct ClientOptions {
  /// Deadline of a call (connecting, sending and receiving) unless the call gives its own.
  std::chrono::milliseconds timeout{30000};
  /// HTTP Basic credentials; sent with every call when `user` is not empty. Credentials in
  /// the URL ("http://user:password@host/") are used when these are empty.
  std::string user;
  std::string password;
  /// https: check the server's certificate chain and name (on by default; turning it off is
  /// explicit and makes the connection open to interception).
  bool verify_peer = true;
  /// PEM file of trusted CAs; empty: the system's store.
  std::string ca_file;
  /// A response body larger than this (before or after gzip) is refused: Errc::LimitExceeded.
  size_t max_response_size = size_t{32} << 20;
  xml::ReaderLimits reader_limits;
  /// Ask for gzip responses.
  bool accept_gzip = true;
  /// Gzip request bodies at least this large (the server must accept gzip); 0: never.
  size_t gzip_request_min_size = 0;
  /// How i8 and nil are written in calls; Apache for Apache XML-RPC servers.
  xml::Dialect dialect = xml::Dialect::I8;
  /// Connections kept open between calls, and open at once for asynchronous calls.
  size_t max_connections = 8;
  /// The HTTP path for a Unix-socket URL ("unix:/run/app.sock"), which has none of its own.
  std::string unix_path = "/RPC2";
  /// Extra header fields sent with every call.
  std::vector<std::pair<std::string, std::string>> headers;
};

/// Per-call settings.
struct CallOptions {
  /// 0: the client's timeout.
  std::chrono::milliseconds timeout{0};
  /// Extra header fields for this call (after the client's).
  std::vector<std::pair<std::string, std::string>> headers;
};

/// What system.multicall answered for one call: a result, or an Error (Errc::Fault with the
/// fault's code and string).
using CallResult = Result<Value>;

/// An XML-RPC client for one server: "http://host:port/path", "https://...", or
/// "unix:/path/to/socket" (HTTP over a Unix-domain socket, path options.unix_path).
///
/// Errors, the same for every call: Errc::Fault (the server's fault: Error::fault_code and
/// Error::message are its code and string), Timeout, ConnectFailed, ConnectionClosed (reset or
/// closed before the answer), HttpStatus (message "HTTP 404 Not Found"), BadResponse (not
/// HTTP, not gzip, not an XML-RPC response), LimitExceeded (response too large), TlsError,
/// Unrepresentable (a parameter XML-RPC cannot carry), InvalidArgument (a bad header).
///
/// Ownership: owns its connections. Thread-safety: every call may come from any thread at
/// once; idle connections are shared through a pool. Connections are kept alive and reused.
/// The destructor waits for asynchronous calls in flight to end (each ends by its deadline).
class CALLWIRE_API Client {
 public:
  /// Errors: InvalidArgument (a URL it cannot use), TlsError (an unreadable CA file).
  static Result<Client> create(std::string_view url, ClientOptions options = {});
  /// As create(), throwing callwire::Exception.
  explicit Client(std::string_view url, ClientOptions options = {});
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  ~Client();

  /// Calls `method` and waits for its result, up to the deadline.
  Result<Value> call(std::string_view method, std::span<const Value> params,
                     const CallOptions& options = {});
  Result<Value> call(std::string_view method, std::initializer_list<Value> params = {},
                     const CallOptions& options = {}) {
    return call(method, std::span<const Value>(params.begin(), params.size()), options);
  }

  /// Starts a call and returns at once; the future becomes ready with its result.
  std::future<Result<Value>> async_call(std::string_view method, std::vector<Value> params,
                                        const CallOptions& options = {});
  /// Starts a call; `done` runs on the client's I/O thread with the result (keep it short;
  /// it must not wait for another call of this client).
  void async_call(std::string_view method, std::vector<Value> params,
                  std::function<void(Result<Value>)> done, const CallOptions& options = {});

  /// Sends the calls as one system.multicall and returns one result per call, in order.
  /// Accepts servers that answer each entry with a bare result instead of a one-element
  /// array (supervisord). Errors: those of call(), and BadResponse when the answer is not
  /// one entry per call.
  Result<std::vector<CallResult>> multicall(std::span<const MethodCall> calls,
                                            const CallOptions& options = {});

  /// The URL given.
  const std::string& url() const noexcept;

  struct Impl;

 private:
  CALLWIRE_LOCAL explicit Client(std::unique_ptr<Impl> impl) noexcept;  // for create()
  std::unique_ptr<Impl> impl_;
};

}  // namespace callwire
