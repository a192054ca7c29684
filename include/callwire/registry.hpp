// callwire: the method registry a server dispatches to, and what a handler sees of its call.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/export.hpp"
#include "callwire/header_field.hpp"
#include "callwire/message.hpp"
#include "callwire/param_stream.hpp"
#include "callwire/value.hpp"

namespace callwire {

/// Thrown by a handler to answer with a fault (code and string). Any other exception a
/// handler lets escape becomes fault -32603 carrying its what().
class CALLWIRE_API FaultError : public std::exception {
 public:
  FaultError(int32_t code, std::string string) : fault_{code, std::move(string)} {}
  /// With JSON-RPC's "data" (see Fault::data).
  FaultError(int32_t code, std::string string, Value data)
      : fault_{code, std::move(string), std::move(data)} {}
  explicit FaultError(Fault fault) : fault_(std::move(fault)) {}
  const Fault& fault() const noexcept { return fault_; }
  const char* what() const noexcept override { return fault_.string.c_str(); }

 private:
  Fault fault_;
};

class ValueWriter;

namespace detail {
struct CallContextAccess;   // the dispatcher sets the method and clears the latch; the
                            // transport sets the deadline
struct ResultWriterAccess;  // a typed handler writes its result straight into the response
class NotifyChannel;        // a connection that carries notifications to its peer
class DropAfterSend;        // a result destroyed once its answer is sent
}  // namespace detail

/// Sends JSON-RPC notifications to the peer of a call, from any thread, for as long as its
/// connection lives: subscriptions, progress, events. A handler gets one from
/// CallContext::notifier() and may keep it (copies share the connection). Only a WebSocket
/// connection carrying JSON-RPC can carry them (docs/websocket.md); for any other, the notifier
/// is empty. Thread-safety: every member from any thread. Ownership: holds the connection's
/// channel, not the connection: a notifier kept after the connection (or the server) is gone
/// only fails.
class CALLWIRE_API Notifier {
 public:
  /// An empty notifier: notify() fails with InvalidArgument.
  Notifier() noexcept = default;

  /// Whether it belongs to a connection (which may have closed since).
  explicit operator bool() const noexcept { return channel_ != nullptr; }
  /// Whether its connection is still open.
  bool connected() const noexcept;
  /// Queues `{"jsonrpc":"2.0","method":METHOD,"params":PARAMS}` for the peer; the server's
  /// event loop sends it as soon as it can, in the order queued (a notify() from a handler
  /// that runs on the event loop itself goes out after that handler's answer). `params` must
  /// be an array or a struct. Errors: InvalidArgument (an empty notifier, or params neither
  /// array nor struct), Unrepresentable (a value JSON cannot carry), ConnectionClosed (the
  /// connection has closed), LimitExceeded (ServerOptions::max_pending_output bytes wait for a
  /// peer that does not read: this notification is dropped, said, and the connection stays).
  Status notify(std::string_view method, const Value& params = Value::array()) const;

 private:
  friend class CallContext;
  explicit Notifier(std::shared_ptr<detail::NotifyChannel> channel) noexcept
      : channel_(std::move(channel)) {}
  std::shared_ptr<detail::NotifyChannel> channel_;
};

/// What a handler can learn about the call it serves. Ownership: every view lives for the
/// handler's call only; copy what must outlive it. Thread-safety: used by one thread, the one
/// running the handler.
class CALLWIRE_API CallContext {
 public:
  /// A context with no peer, user or headers (for tests and transports without them).
  CallContext() noexcept = default;
  /// What a transport knows of the request. Ownership: the views are borrowed and must stay
  /// valid until the dispatch of the request returns.
  CallContext(std::string_view peer, std::string_view user,
              std::span<const HeaderField> headers) noexcept
      : peer_(peer), user_(user), headers_(headers) {}

  /// The method called (inside system.multicall: the entry's method).
  std::string_view method() const noexcept { return method_; }
  /// The peer: "127.0.0.1:40312", "[::1]:40312", or "unix" for a Unix-domain socket.
  std::string_view peer() const noexcept { return peer_; }
  /// The user name the authentication callback accepted; empty when none.
  std::string_view user() const noexcept { return user_; }
  /// Mutual TLS (ServerOptions::tls, its ca_file or ca_dir): the subject of the client certificate
  /// the handshake verified, in RFC 2253 form ("CN=alice,O=Example"); empty when none.
  std::string_view tls_subject() const noexcept { return tls_subject_; }
  /// The request's header fields; empty for transports without headers.
  std::span<const HeaderField> headers() const noexcept { return headers_; }
  /// The value of the first header field named `name` (ASCII case-insensitive), or empty.
  std::string_view header(std::string_view name) const noexcept;
  /// The first header field named `name` (ASCII case-insensitive), or null: tells a field
  /// sent empty from one not sent. Borrowed like headers().
  const HeaderField* find_header(std::string_view name) const noexcept;

  /// When the call should be answered by: the time its request was complete plus
  /// ServerOptions::call_timeout, or plus the client's `X-Callwire-Timeout` when that is
  /// earlier; time_point::max() when there is neither. Inside a system.multicall every entry
  /// shares the request's deadline. The dispatcher does not start a handler (or a multicall
  /// entry) whose deadline has passed: it answers fault -32300 "deadline exceeded". A handler
  /// that works long may poll expired() and give up (throw FaultError, return an Error).
  std::chrono::steady_clock::time_point deadline() const noexcept { return deadline_; }
  /// The deadline has passed (never when there is none). Reads the clock when there is one.
  bool expired() const noexcept {
    return deadline_ != std::chrono::steady_clock::time_point::max() &&
           std::chrono::steady_clock::now() >= deadline_;
  }
  /// The time left until the deadline: 0 once it has passed, duration::max() when there is
  /// none. Reads the clock when there is one.
  std::chrono::steady_clock::duration remaining() const noexcept {
    using Clock = std::chrono::steady_clock;
    if (deadline_ == Clock::time_point::max()) return Clock::duration::max();
    Clock::time_point now = Clock::now();
    return deadline_ > now ? deadline_ - now : Clock::duration::zero();
  }

  /// Latches a fault for the rest of this request: the remaining entries of a
  /// system.multicall are answered with it without running (e.g. after an authentication
  /// failure, so one POST cannot carry a thousand password guesses). A later latch replaces
  /// an earlier one. Outside a multicall it has no effect.
  void latch_fault(Fault fault) { latched_ = std::move(fault); }
  /// The latched fault, or null.
  const Fault* latched_fault() const noexcept { return latched_ ? &*latched_ : nullptr; }

  /// Sends notifications to this call's peer, now or later, from any thread, while its
  /// connection lives (a WebSocket connection carrying JSON-RPC); empty for any other.
  Notifier notifier() const noexcept;

 private:
  friend struct detail::CallContextAccess;
  friend struct detail::ResultWriterAccess;
  std::string_view method_;
  std::string_view peer_;
  std::string_view user_;
  std::string_view tls_subject_;
  std::span<const HeaderField> headers_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  std::optional<Fault> latched_;
  // Offered by the dispatcher for one call's result (never inside a multicall); set once a
  // handler wrote its result there instead of returning it.
  ValueWriter* result_writer_ = nullptr;
  bool result_written_ = false;
  // The connection's, when it carries notifications (shared only when a notifier is asked for:
  // the usual call pays no reference count).
  detail::NotifyChannel* notify_ = nullptr;
  // The transport's, when it sends the answer after the dispatch returns: a result written
  // into the answer is destroyed there, after the send (detail/drop_after_send.hpp).
  detail::DropAfterSend* after_send_ = nullptr;
};

/// A method's parameters, in order. Mutable so a handler may move values out.
using Params = std::span<Value>;

/// A method implementation. Returns the result, throws FaultError for a fault. Called from
/// the server's threads, possibly several at once: it must be thread-safe.
using Handler = std::function<Value(Params params, CallContext& context)>;

/// A handler's second way in (Registry::add_streamed): its parameters read from `params`
/// straight into its own types, then the call. False when it gave up reading (it did not run;
/// the dispatcher reads the request again as Values for the Handler); true with the result in
/// `result`, or an exception as from a Handler. Registry::bind makes one for you.
using StreamedHandler =
    std::function<bool(ParamStream& params, CallContext& context, Value& result)>;

/// Registry::set_preinvoke's hook: nothing to let the call run, or the fault to answer
/// instead. It sees the call's method (context.method()), peer, user, header fields and
/// parameters (by name: the one struct), and may latch a fault for the rest of a multicall.
/// Thread-safety as a Handler's.
using PreInvoke =
    std::function<std::optional<Fault>(CallContext& context, std::span<const Value> params)>;

/// What introspection says of a method.
struct MethodInfo {
  /// Each signature: the return type then the parameter types, as XML-RPC type names
  /// ("int" or "i4", "i8", "boolean", "double", "string", "dateTime.iso8601", "base64",
  /// "array", "struct", "nil"), or "undef"/"any" for a slot that takes anything. Empty:
  /// unknown (system.methodSignature answers "undef") and the parameters are not checked.
  /// Otherwise the dispatcher checks the parameters against them before calling the handler
  /// and answers -32602 when none matches; an "int" slot also takes an i8 in the 32-bit range
  /// and a "double" slot an int or i8 of at most 2^53 in magnitude, converted in place so the
  /// handler sees the declared type (docs/server-dispatch.md).
  std::vector<std::vector<std::string>> signatures;
  std::string help;
  /// The parameters' names, in order, for callers that pass them by name (JSON-RPC's named
  /// params map onto these positions; system.methodHelp lists them). Empty: by position only
  /// (a by-name call then gets its struct as the one parameter). Names must be distinct and
  /// not empty, and as many as the longest signature's parameters when signatures are given.
  std::vector<std::string> parameter_names;
  /// The parameters' and the result's shapes for system.methodHelp, e.g. "Order {id: int,
  /// items: [Item {sku: string, qty: int}], note?: string}": bind fills them in when one says
  /// more than the signatures' type names (a struct's members, an array's element type).
  /// Empty: the signatures say it all.
  std::vector<std::string> parameter_shapes;
  std::string result_shape;
};

/// Calls, faults and time spent in one method, summed over every thread.
struct MethodStats {
  /// The upper bounds of the latency histogram's buckets (Prometheus' default buckets, from
  /// 100 µs to 10 s); a last bucket holds the calls slower than the last bound.
  static constexpr std::array<std::chrono::microseconds, 14> kLatencyBounds{
      std::chrono::microseconds(100),     std::chrono::microseconds(250),
      std::chrono::microseconds(500),     std::chrono::microseconds(1000),
      std::chrono::microseconds(2500),    std::chrono::microseconds(5000),
      std::chrono::microseconds(10000),   std::chrono::microseconds(25000),
      std::chrono::microseconds(50000),   std::chrono::microseconds(100000),
      std::chrono::microseconds(250000),  std::chrono::microseconds(500000),
      std::chrono::microseconds(1000000), std::chrono::microseconds(10000000)};

  std::string name;
  uint64_t calls = 0;
  uint64_t faults = 0;
  std::chrono::nanoseconds total_time{0};
  /// Calls by time taken: latency_buckets[i] counts those at most kLatencyBounds[i] (and
  /// above the bound before it); the last, those slower than every bound. Not cumulative.
  std::array<uint64_t, kLatencyBounds.size() + 1> latency_buckets{};
};

/// The methods one server offers. Never global: each server owns one.
///
/// Thread-safety: add methods before the server starts; once serving, the registry is read
/// from every thread and `add` returns InvalidArgument. Errors: `add` returns InvalidArgument
/// for an empty name, a name already registered, a name starting with "system." (the server
/// provides those), an empty handler, a signature without a return type or with a type name
/// not listed at MethodInfo::signatures, or a call after `freeze()`; nothing is added then.
class CALLWIRE_API Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  Status add(std::string name, Handler handler, MethodInfo info = {});

  /// add() with a second way in: an XML-RPC call whose parameters `streamed` can read (no
  /// pre-invoke hook set, time left before the deadline) is given to it, the parameters read
  /// straight from the request; it must read them all and call ParamStream::finish() before it
  /// runs the call. When it gives up (returns false), or over JSON-RPC, `handler` gets the call
  /// with its parameters as Values, checked against the signatures, and answers any fault.
  /// Both must do the same. Errors: those of add(), and InvalidArgument for an empty
  /// `streamed`.
  Status add_streamed(std::string name, Handler handler, StreamedHandler streamed,
                      MethodInfo info = {});

  /// Adds a typed method: the parameter and return types are deduced from `callable` (a
  /// function, a function pointer, a lambda, a std::function or any object with one
  /// non-template operator()). Parameters are taken by value or const reference and converted
  /// with callwire::Convert<T> (callwire/convert.hpp); a `CallContext&` (or const) may be the
  /// first parameter and is not an XML-RPC parameter. The signatures for introspection and
  /// for the dispatcher's check are deduced (a std::optional parameter gives one with its type
  /// and one with nil); a void result answers nil. Trailing std::optional parameters may be
  /// left out by the caller: `[](int a, std::optional<int> b)` takes (a), (a, nil) and
  /// (a, b), and a left-out one is an empty optional; the deduced signatures include the
  /// shorter forms (docs/typed-api.md says how the count is capped at 64 variants).
  ///
  /// A call with the wrong number of parameters or a parameter that does not convert is
  /// answered with fault -32602: "sample.add takes 2 parameters, got 1" ("f takes 1 or 2
  /// parameters, got 0" with a trailing optional), "sample.add: parameter 2 must be int, got
  /// string",
  /// "f: parameter 1[2] must be int, got string" (element 2 from 0 of an array),
  /// "f: parameter 1 must be int in 0..255, got int 300". The callable may throw FaultError;
  /// other exceptions map as for any handler (docs/server-dispatch.md). A result that
  /// Convert cannot write (an unsigned 64-bit above INT64_MAX) is fault -32603.
  ///
  /// The callable may return callwire::Result<T>: a value answers T (the signature shows T's
  /// type name), an Error answers a fault; or callwire::Status: success answers nil, an Error
  /// a fault. The fault's code is the Error's fault_code when it is not 0 (every Error built
  /// from an Errc has one, from errc_fault_code; build it as Error(Errc::Fault, 42, "...") to
  /// choose it), else errc_fault_code(code), and -32603 when that is 0 too; its string is the
  /// message, or errc_name(code) when the message is empty.
  ///
  /// Ownership: `callable` is moved or copied into the registry. Thread-safety: as add();
  /// the callable runs on the server's threads, possibly several at once. Errors: those of
  /// add(). A type with no Convert specialisation fails to compile with a static_assert
  /// naming the fix.
  template <class F>
  Status bind(std::string name, F&& callable, std::string help = {});
  /// The same, with the parameters' names (MethodInfo::parameter_names), one per parameter
  /// of `callable` (a CallContext& not counted): `registry.bind("add", {"a", "b"}, fn)` takes
  /// `{"a": 1, "b": 2}` from JSON-RPC as well as `[1, 2]`. InvalidArgument when the count
  /// differs or a name is empty or repeated.
  template <class F>
  Status bind(std::string name, std::vector<std::string> parameter_names, F&& callable,
              std::string help = {});

  /// The handler of every call to a method nobody registered (xmlrpc-c's
  /// set_default_method): a proxy, a scripting bridge, a catch-all that logs. It gets the
  /// call's parameters unchecked, and context.method() says what was called; it answers as
  /// any handler (throw FaultError(-32601, ...) to refuse a name). system.* names stay the
  /// server's, and introspection does not list what it serves. Its calls are counted under
  /// "(default method)" in the stats. An empty handler removes it. Errors: InvalidArgument
  /// once frozen.
  Status set_default_method(Handler handler);
  /// A hook run before every call, each system.multicall entry too and calls to unknown
  /// methods (xmlrpc-c's set_preinvoke_method): one place for authorisation by method,
  /// logging or rate limits. It returns nothing to let the call go on, or the fault to answer
  /// instead (counted as the method's fault; a FaultError it throws does the same, any other
  /// exception is -32603). Before the deadline and signature checks. An empty hook removes it.
  /// Errors: InvalidArgument once frozen.
  Status set_preinvoke(PreInvoke hook);

  /// True when `name` is registered (system methods excluded).
  bool contains(std::string_view name) const noexcept;
  /// The registered names in registration order (system methods excluded).
  std::vector<std::string> names() const;
  size_t size() const noexcept;

  /// Makes the registry read-only (the server calls it when it starts).
  void freeze() noexcept;
  bool frozen() const noexcept;

  struct Impl;  // src/dispatch/registry_impl.hpp
  Impl& impl() noexcept { return *impl_; }
  const Impl& impl() const noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace callwire

#include "callwire/detail/bind.hpp"  // Registry::bind's definition
