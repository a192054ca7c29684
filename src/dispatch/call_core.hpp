// Internal: the protocol-neutral heart of a server. A decoded call in (a method name and its
// parameters as Values), a result or a fault out: look up, check the parameters against the
// signatures, run the handler within the call's deadline, answer system.* and multicall, count
// it. It never sees XML or JSON: each protocol's adapter (src/protocol/) reads the request
// document, calls CallCore::call and writes the answer in its own syntax. See
// docs/server-dispatch.md.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/message.hpp"
#include "callwire/registry.hpp"
#include "dispatch/registry_impl.hpp"

namespace callwire::detail {

struct CallCoreOptions {
  /// system.listMethods, methodSignature, methodHelp and methodExist; off: they answer -32601.
  bool introspection = true;
  /// More calls in one system.multicall: the whole call gets fault -32600.
  size_t max_multicall_calls = 1000;
  /// Non-empty: system.shutdown exists and calls it (from the thread running the dispatch)
  /// with the caller's comment, "" when none.
  std::function<void(std::string_view comment)> on_shutdown;
};

/// The core's way into CallContext's private members (adapters and transports use it too).
struct CallContextAccess {
  static void set_method(CallContext& c, std::string_view method) noexcept { c.method_ = method; }
  static void set_tls_subject(CallContext& c, std::string_view subject) noexcept {
    c.tls_subject_ = subject;
  }
  static void clear_latch(CallContext& c) noexcept { c.latched_.reset(); }
  static void set_deadline(CallContext& c, std::chrono::steady_clock::time_point t) noexcept {
    c.deadline_ = t;
  }
  // The writer a typed handler may write its result into (null: return it as a Value).
  static void offer_writer(CallContext& c, ValueWriter* w) noexcept {
    c.result_writer_ = w;
    c.result_written_ = false;
  }
  static bool result_written(const CallContext& c) noexcept { return c.result_written_; }
  // The connection's notification channel (WebSocket with JSON-RPC), or null.
  static void set_notify_channel(CallContext& c, NotifyChannel* channel) noexcept {
    c.notify_ = channel;
  }
  // Where a result written into the answer waits to be destroyed until the transport has sent
  // it (null: destroyed when the dispatch returns).
  static void set_after_send(CallContext& c, DropAfterSend* keeper) noexcept {
    c.after_send_ = keeper;
  }
  // A result the adapter wrote into the answer, moved there (left nil) when it holds storage.
  static void drop_after_send(CallContext& c, Value& result) noexcept {
    if (c.after_send_ && result.type() >= Type::String) c.after_send_->keep(result);
  }
};

/// How a call's parameters came, when not as XML-RPC's: by name, or from a protocol whose
/// only text type stands for bytes and times too (JSON).
struct CallForm {
  /// Not null: the parameters by name, a struct (`params` is then ignored). A method bound
  /// with parameter names (MethodInfo::parameter_names) gets them in its order: a missing
  /// one is nil (so a trailing std::optional may be left out), an unknown name is -32602. A
  /// method without names gets the struct as its one parameter. The struct's values are
  /// moved out.
  Value* named = nullptr;
  /// A string where a signature wants base64 is decoded as base64, and one where it wants
  /// dateTime.iso8601 is read as ISO 8601 (top-level parameters only).
  bool text_for_bytes_and_times = false;
};

/// What one CallCore::call did.
struct CallOutcome {
  static constexpr uint32_t kNoCounter = UINT32_MAX;
  bool ok = false;         ///< a result; else `fault` holds why not
  bool written = false;    ///< (ok) the handler wrote its result through the offered writer
  bool multicall = false;  ///< (ok) the call was system.multicall: the result holds its entries
  uint32_t counter = kNoCounter;  ///< the method's counter; kNoCounter for an unknown method
};

/// Runs calls against one registry. One per thread that runs handlers: not thread-safe, and
/// not reentrant (a handler must not call call() on the core running it), except
/// add_stats_to, which may run on any thread at any time. Several protocol adapters on one
/// thread share one core, so a method's counters hold its calls in every protocol.
///
/// Ownership: `registry` is borrowed and must outlive the core; it must be frozen (the
/// constructor throws callwire::Exception with Errc::InvalidArgument otherwise).
class CallCore {
 public:
  CallCore(const Registry& registry, CallCoreOptions options);
  ~CallCore();
  CallCore(const CallCore&) = delete;
  CallCore& operator=(const CallCore&) = delete;

  /// Runs `name(params)` as the request's call: clears `ctx`'s latch, sets its method for the
  /// handler, and checks its deadline. A typed handler may write its result through `direct`
  /// (when not null) instead of returning it: then outcome.written is set and `result` is
  /// untouched; what a handler wrote before it failed is the adapter's to take back. Every
  /// failure is a fault in `fault` (unknown method -32601, bad parameters -32602, deadline
  /// -32300, the handler's own fault or exception). Never throws except std::bad_alloc.
  CallOutcome call(std::string_view name, Params params, CallContext& ctx, ValueWriter* direct,
                   Value& result, Fault& fault, const CallForm& form = {});

  /// Whether call_streamed() may ever run a call: some method is bound with parameters that
  /// read so, and no pre-invoke hook is set. False: adapters need not offer it.
  bool streams() const noexcept { return streams_; }

  /// What call_streamed() did.
  enum class Streamed {
    Left,       ///< nothing: `params` untouched; read them as Values and call()
    Abandoned,  ///< the handler gave up reading partway and did not run: read the request
                ///< again as Values and call()
    Ran,        ///< the call ran (or failed) as call() would have: `outcome` says how
  };
  /// call() for a request whose parameters a bound handler reads straight from `params` into
  /// its own types (StreamedHandler), when nothing stands between the request and
  /// that handler: no pre-invoke hook (it sees Values), a registered method bound with such
  /// parameters, and time left before the deadline. Anything else is Left for call(), and
  /// whatever the handler gives up on (a parameter of the wrong type, a malformed document)
  /// is Abandoned without a count: call() then answers it in its usual words. The method's
  /// time includes reading its parameters. Never throws except std::bad_alloc.
  Streamed call_streamed(std::string_view name, ParamStream& params, CallContext& ctx,
                         ValueWriter* direct, Value& result, Fault& fault, CallOutcome& outcome);

  /// The adapter could not send what call() answered for `counter` (a string the syntax
  /// cannot carry): counts a fault for it. kNoCounter is ignored.
  void count_unsent(uint32_t counter) noexcept;
  /// The counter of the multicall entry `index` of the last call() (kNoCounter when unknown).
  uint32_t multicall_entry_counter(size_t index) const noexcept {
    return index < entry_counters_.size() ? entry_counters_[index] : CallOutcome::kNoCounter;
  }

  /// Adds this core's per-method counters to `sums`: indexed like the registry, then the
  /// system methods this core offers, in the order of system.listMethods. Entries `sums`
  /// lacks are appended with their names. Safe to call from another thread while call() runs
  /// (the counts are then a moment's snapshot, each one exact).
  void add_stats_to(std::vector<MethodStats>& sums) const;

 private:
  enum class SystemId : uint8_t {
    ListMethods,
    MethodSignature,
    MethodHelp,
    MethodExist,
    Multicall,
    GetCapabilities,
    Shutdown
  };
  struct SystemMethod {
    SystemId id;
    std::string_view name;
    MethodInfo info;
    std::vector<Signature> signatures;
  };
  // One writer (the dispatching thread): plain load and store, no read-modify-write.
  struct Counters {
    std::atomic<uint64_t> calls{0};
    std::atomic<uint64_t> faults{0};
    std::atomic<uint64_t> nanos{0};
    std::array<std::atomic<uint64_t>, MethodStats::kLatencyBounds.size() + 1> latency{};
  };

  // A method by name: a registered one or an offered system one, and its counter.
  struct Target {
    const Registry::Impl::Method* method = nullptr;
    const SystemMethod* system = nullptr;
    uint32_t counter = CallOutcome::kNoCounter;
    bool fallback = false;  // Registry::set_default_method's handler
  };
  // The pre-invoke hook's word on a call: a fault, or nothing (also without a hook).
  std::optional<Fault> pre_invoke(CallContext& ctx, std::span<const Value> params) const;
  bool find(std::string_view name, Target& target) const noexcept;

  // Runs one call (the request's, or a multicall entry): true with `result`, or false with
  // `fault`. Sets `counter` to the method's counter (kNoCounter for an unknown method).
  bool invoke(std::string_view name, Params params, CallContext& ctx, Value& result, Fault& fault,
              uint32_t& counter, const CallForm& form);
  bool run(const Target& target, std::string_view name, Params params, CallContext& ctx,
           Value& result, Fault& fault, const CallForm& form);
  // Runs `body` (a handler), turning what it throws into `fault`: false then.
  template <class Body>
  static bool guarded(Body&& body, Fault& fault);
  // The named parameters in `form` as positions of `target` into named_params_; false with
  // `fault` when a name is not the method's.
  bool place_named(const Target& target, std::string_view name, Value& named, Fault& fault);
  Value run_system(const SystemMethod& method, Params params, CallContext& ctx);
  Value multicall(Params params, CallContext& ctx);
  Value signature_of(const Target& target) const;
  const MethodInfo& info_of(const Target& target) const;
  Target introspected(Params params) const;  // params[0] names a method, or FaultError -32601

  void count(uint32_t counter, bool fault, uint64_t nanos) noexcept;
  std::string counter_name(size_t index) const;

  const Registry::Impl& registry_;
  CallCoreOptions options_;
  std::vector<SystemMethod> system_;  // the offered ones, in a fixed order
  std::unique_ptr<Counters[]> counters_;
  size_t counter_count_ = 0;
  uint32_t default_counter_ = CallOutcome::kNoCounter;  // the default method's, when it has one
  Value method_list_;                                   // system.listMethods
  Value capabilities_;                                  // system.getCapabilities
  bool multicall_ran_ = false;                          // the request is a system.multicall
  std::vector<uint32_t> entry_counters_;                // its entries' counters, in order
  std::vector<Value> named_params_;                     // a by-name call's parameters, placed
  bool streams_ = false;                                // streams()
};

/// A system.multicall entry for a call that failed: {faultCode, faultString}.
Value multicall_fault_entry(Fault fault);

/// The fault for a result the adapter's syntax cannot carry (-32603, naming the method).
Fault unsendable_result(std::string_view method, const Error& why);

/// A method name as shown in a fault message: cut after 200 bytes (on a character boundary)
/// with "..." appended, since a peer may send a long one.
std::string shown_method_name(std::string_view name);

}  // namespace callwire::detail
