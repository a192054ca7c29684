// Internal: the I/O-free heart of a server. One <methodCall> document in, one complete
// <methodResponse> document out: read, look up, check the parameters, run the handler, turn
// whatever happened into a result or a fault, count it. The transports (HTTP, pstream) own
// the sockets and call Dispatcher::handle; see docs/server-dispatch.md.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/dispatch.hpp"
#include "callwire/message.hpp"
#include "callwire/registry.hpp"
#include "callwire/xml.hpp"
#include "server/registry_impl.hpp"

namespace callwire::detail {

/// The dialect of the responses: always one, or (Auto) the one the request spoke.
enum class DialectChoice : uint8_t { I8, Apache, Auto };

inline DialectChoice dialect_choice(OutputDialect d) noexcept {
  return d == OutputDialect::I8       ? DialectChoice::I8
         : d == OutputDialect::Apache ? DialectChoice::Apache
                                      : DialectChoice::Auto;
}

struct DispatchOptions {
  xml::ReaderLimits limits;
  /// Auto: Apache when the request used a prefixed type name (`<ex:i8>`), declared Apache's
  /// extensions namespace, or came with a User-Agent starting "Apache XML RPC"; else I8.
  DialectChoice dialect = DialectChoice::Auto;
  /// system.listMethods, methodSignature, methodHelp and methodExist; off: they answer -32601.
  bool introspection = true;
  /// More calls in one system.multicall: the whole call gets fault -32600.
  size_t max_multicall_calls = 1000;
  /// Non-empty: system.shutdown exists and calls it (from the thread running the dispatch).
  std::function<void()> on_shutdown;
};

/// What a handle() did, for logs and metrics.
struct DispatchOutcome {
  std::string_view
      method;  ///< as called (empty when the body could not be read); valid until the next handle()
  bool is_fault = false;   ///< the response is a fault
  int32_t fault_code = 0;  ///< its code, when is_fault
};

/// The dispatcher's way into CallContext's private members.
struct CallContextAccess {
  static void set_method(CallContext& c, std::string_view method) noexcept { c.method_ = method; }
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
};

/// Dispatches calls to one registry. One per thread that runs handlers: not thread-safe, and
/// not reentrant (a handler must not call handle() on the dispatcher running it), except
/// add_stats_to, which may run on any thread at any time.
///
/// Ownership: `registry` is borrowed and must outlive the dispatcher; it must be frozen
/// (the constructor throws callwire::Exception with Errc::InvalidArgument otherwise).
class Dispatcher {
 public:
  Dispatcher(const Registry& registry, DispatchOptions options);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// Reads the <methodCall> in `body`, runs it, appends one complete <methodResponse> document
  /// to `out` (a result or a fault, in every case). `ctx` carries what the transport knows;
  /// its latch is cleared first and its method set for the handler. Never throws except
  /// std::bad_alloc, and then `out` is as it was.
  DispatchOutcome handle(std::string_view body, CallContext& ctx, Buffer& out);

  /// Adds this dispatcher's per-method counters to `sums`: indexed like the registry, then
  /// the system methods this dispatcher offers, in the order of system.listMethods. Entries
  /// `sums` lacks are appended with their names. Safe to call from another thread while
  /// handle() runs (the counts are then a moment's snapshot, each one exact).
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
  };
  static constexpr uint32_t kNoCounter = UINT32_MAX;

  // A method by name: a registered one or an offered system one, and its counter.
  struct Target {
    const Registry::Impl::Method* method = nullptr;
    const SystemMethod* system = nullptr;
    uint32_t counter = kNoCounter;
  };
  bool find(std::string_view name, Target& target) const noexcept;

  // Runs one call (the request's, or a multicall entry): true with `result`, or false with
  // `fault`. Sets `counter` to the method's counter (kNoCounter for an unknown method).
  bool invoke(std::string_view name, Params params, CallContext& ctx, Value& result, Fault& fault,
              uint32_t& counter);
  bool run(const Target& target, std::string_view name, Params params, CallContext& ctx,
           Value& result, Fault& fault);
  Value run_system(const SystemMethod& method, Params params, CallContext& ctx);
  Value multicall(Params params, CallContext& ctx);
  // After a multicall result failed to write: replaces the entries that cannot be written.
  void repair_multicall(Value& results, const xml::WriterOptions& options);
  Value signature_of(const Target& target) const;
  const MethodInfo& info_of(const Target& target) const;
  Target introspected(Params params) const;  // params[0] names a method, or FaultError -32601

  void count(uint32_t counter, bool fault, uint64_t nanos) noexcept;
  void count_fault(uint32_t counter) noexcept;
  std::string counter_name(size_t index) const;
  xml::WriterOptions writer_options(const CallContext& ctx) const noexcept;

  const Registry::Impl& registry_;
  DispatchOptions options_;
  xml::Reader reader_;
  MethodCall call_;                   // reused from call to call
  std::vector<SystemMethod> system_;  // the offered ones, in a fixed order
  std::unique_ptr<Counters[]> counters_;
  size_t counter_count_ = 0;
  Value method_list_;                     // system.listMethods
  Value capabilities_;                    // system.getCapabilities
  bool multicall_ran_ = false;            // this request is a system.multicall
  std::vector<uint32_t> entry_counters_;  // its entries' counters, in order
  Buffer scratch_;                        // repair_multicall
};

/// `s` with every byte sequence that is not UTF-8 or not an XML character replaced by U+FFFD:
/// a fault string that can always be written.
std::string xml_safe_text(std::string_view s);

}  // namespace callwire::detail
