#include "dispatch/call_core.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#if defined(__GLIBCXX__)
#include <cxxabi.h>  // abi::__forced_unwind: thread cancellation must not be swallowed
#endif

namespace callwire::detail {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Value multicall_fault_entry(Fault fault) {
  Value v = Value::structure();
  v.reserve(2);
  v.set("faultCode", fault.code);
  v.set("faultString", std::move(fault.string));
  return v;
}

Fault unsendable_result(std::string_view method, const Error& why) {
  return Fault{fault_code::kInternalError,
               "the result of " + shown_method_name(method) + " cannot be sent: " + why.message};
}

std::string shown_method_name(std::string_view name) {
  constexpr size_t kMax = 200;
  if (name.size() <= kMax) return std::string(name);
  size_t n = kMax;
  while (n > 0 && (static_cast<unsigned char>(name[n]) & 0xC0) == 0x80) --n;
  return std::string(name.substr(0, n)) + "...";
}

namespace {

Fault unknown_method(std::string_view name) {
  return Fault{fault_code::kMethodNotFound, "unknown method '" + shown_method_name(name) + "'"};
}

// A method's help, and its parameters' names when it has them (for callers that name them).
// The method's help, then its parameters: their names, or one line each with its shape when
// bind found shapes worth showing (MethodInfo::parameter_shapes), and the result's.
std::string help_text(const MethodInfo& info) {
  const std::vector<std::string>& names = info.parameter_names;
  const std::vector<std::string>& shapes = info.parameter_shapes;
  const bool with_shapes = !info.result_shape.empty();
  if (names.empty() && !with_shapes) return info.help;
  std::string text = info.help;
  if (!text.empty()) text += text.back() == '\n' ? "\n" : "\n\n";
  text += "Parameters:";
  if (!with_shapes) {
    for (size_t i = 0; i < names.size(); ++i) text += (i ? ", " : " ") + names[i];
    return text + ".";
  }
  if (shapes.empty()) text += " none";
  for (size_t i = 0; i < shapes.size(); ++i) {
    text += "\n  ";
    if (i < names.size()) text += names[i] + ": ";
    text += shapes[i];
  }
  return text + "\nResult: " + info.result_shape;
}

Value one_element_array(Value v) {
  Value a = Value::array();
  a.reserve(1);
  a.push_back(std::move(v));
  return a;
}

Value string_array(const std::vector<std::string>& items) {
  Value a = Value::array();
  a.reserve(items.size());
  for (const std::string& s : items) a.push_back(s);
  return a;
}

Value spec(std::string_view url, int32_t version) {
  return Value::structure({{"specUrl", url}, {"specVersion", version}});
}

}  // namespace

// ---- construction ----

CallCore::CallCore(const Registry& registry, CallCoreOptions options)
    : registry_(registry.impl()), options_(std::move(options)) {
  if (!registry.frozen())
    throw Exception(Error(Errc::InvalidArgument, "the dispatcher needs a frozen registry"));

  auto add = [&](SystemId id, std::string_view name, std::vector<std::vector<std::string>> sigs,
                 std::string help) {
    SystemMethod m{id, name, MethodInfo{std::move(sigs), std::move(help)}, {}};
    m.signatures = std::move(parse_signatures(name, m.info.signatures).value());
    system_.push_back(std::move(m));
  };
  if (options_.introspection) {
    add(SystemId::ListMethods, "system.listMethods", {{"array"}},
        "The names of every method this server offers, system ones included.");
    add(SystemId::MethodSignature, "system.methodSignature", {{"array", "string"}},
        "The signatures of the method named by the parameter: an array of arrays of type "
        "names, the return type first; the string \"undef\" when they are not known.");
    add(SystemId::MethodHelp, "system.methodHelp", {{"string", "string"}},
        "The help text of the method named by the parameter.");
    add(SystemId::MethodExist, "system.methodExist", {{"boolean", "string"}},
        "Whether this server offers the method named by the parameter.");
  }
  add(SystemId::Multicall, "system.multicall", {{"array", "array"}},
      "Runs several calls in one request. The parameter is an array of structs "
      "{methodName, params}; the result has one entry per call, in order: a one-element array "
      "holding its result, or a struct {faultCode, faultString}. At most " +
          std::to_string(options_.max_multicall_calls) + " calls; no nesting.");
  add(SystemId::GetCapabilities, "system.getCapabilities", {{"struct"}},
      "The specifications and extensions this server follows: a struct of name -> "
      "{specUrl, specVersion}.");
  if (options_.on_shutdown) {
    add(SystemId::Shutdown, "system.shutdown", {{"int"}, {"int", "string"}},
        "Asks the server to shut down; the optional string says why. Returns 0.");
  }

  for (const auto& m : registry_.methods) streams_ = streams_ || bool(m.streamed);
  streams_ = streams_ && !registry_.preinvoke;

  counter_count_ = registry_.methods.size() + system_.size();
  if (registry_.default_method) default_counter_ = uint32_t(counter_count_++);
  counters_ = std::make_unique<Counters[]>(counter_count_);

  method_list_ = Value::array();
  method_list_.reserve(counter_count_);
  for (const auto& m : registry_.methods) method_list_.push_back(m.name);
  for (const auto& m : system_) method_list_.push_back(m.name);

  // The conventional entries (as xmlrpc-epi, PHP's servers and xmlrpc-c's clients know them).
  // The URLs are historical and some no longer answer; they are names more than links.
  capabilities_ = Value::structure();
  capabilities_.set("xmlrpc", spec("http://www.xmlrpc.com/spec", 1));
  capabilities_.set("faults_interop",
                    spec("http://xmlrpc-epi.sourceforge.net/specs/rfc.fault_codes.php", 20010516));
  if (options_.introspection)
    capabilities_.set(
        "introspection",
        spec("http://xmlrpc-epi.sourceforge.net/specs/rfc.introspection.php", 20010516));
  capabilities_.set("multicall", spec("http://www.xmlrpc.com/discuss/msgReader$1208", 1));
  capabilities_.set("nil", spec("http://www.ontosys.com/xml-rpc/extensions.php", 1));
  // No convention exists for <i8>; xmlrpc-c introduced it and documents it with its other
  // extension types, so that page stands for it.
  capabilities_.set("i8",
                    spec("http://xmlrpc-c.sourceforge.net/doc/libxmlrpc.html#extensiontype", 1));
  // Every method answers JSON-RPC 2.0 too (the same core behind both adapters): a client that
  // asks over XML-RPC learns it may switch.
  capabilities_.set("json-rpc", spec("https://www.jsonrpc.org/specification", 2));
}

CallCore::~CallCore() = default;

// ---- lookup and counting ----

bool CallCore::find(std::string_view name, Target& target) const noexcept {
  uint32_t index = registry_.find(name);
  if (index != Registry::Impl::kNotFound) {
    target = Target{&registry_.methods[index], nullptr, index};
    return true;
  }
  if (!name.starts_with("system.")) return false;
  for (size_t i = 0; i < system_.size(); ++i) {
    if (system_[i].name == name) {
      target = Target{nullptr, &system_[i], uint32_t(registry_.methods.size() + i)};
      return true;
    }
  }
  return false;
}

void CallCore::count(uint32_t counter, bool fault, uint64_t nanos) noexcept {
  Counters& c = counters_[counter];
  constexpr auto relaxed = std::memory_order_relaxed;
  c.calls.store(c.calls.load(relaxed) + 1, relaxed);
  if (fault) c.faults.store(c.faults.load(relaxed) + 1, relaxed);
  c.nanos.store(c.nanos.load(relaxed) + nanos, relaxed);
  // Most calls fall in the first buckets: a linear search from the bottom ends at once.
  size_t bucket = 0;
  while (bucket < MethodStats::kLatencyBounds.size() &&
         nanos > uint64_t(MethodStats::kLatencyBounds[bucket].count()) * 1000)
    ++bucket;
  c.latency[bucket].store(c.latency[bucket].load(relaxed) + 1, relaxed);
}

void CallCore::count_unsent(uint32_t counter) noexcept {
  if (counter == CallOutcome::kNoCounter) return;
  Counters& c = counters_[counter];
  c.faults.store(c.faults.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

std::string CallCore::counter_name(size_t index) const {
  if (index < registry_.methods.size()) return registry_.methods[index].name;
  if (index == default_counter_) return "(default method)";
  return std::string(system_[index - registry_.methods.size()].name);
}

void CallCore::add_stats_to(std::vector<MethodStats>& sums) const {
  if (sums.size() < counter_count_) {
    size_t old = sums.size();
    sums.resize(counter_count_);
    for (size_t i = old; i < counter_count_; ++i) sums[i].name = counter_name(i);
  }
  for (size_t i = 0; i < counter_count_; ++i) {
    const Counters& c = counters_[i];
    sums[i].calls += c.calls.load(std::memory_order_relaxed);
    sums[i].faults += c.faults.load(std::memory_order_relaxed);
    sums[i].total_time += std::chrono::nanoseconds(c.nanos.load(std::memory_order_relaxed));
    for (size_t b = 0; b < c.latency.size(); ++b)
      sums[i].latency_buckets[b] += c.latency[b].load(std::memory_order_relaxed);
  }
}

// ---- one request ----

CallOutcome CallCore::call(std::string_view name, Params params, CallContext& ctx,
                           ValueWriter* direct, Value& result, Fault& fault, const CallForm& form) {
  CallContextAccess::clear_latch(ctx);
  CallContextAccess::set_method(ctx, {});
  multicall_ran_ = false;
  entry_counters_.clear();

  CallOutcome outcome;
  CallContextAccess::offer_writer(ctx, direct);
  outcome.ok = invoke(name, params, ctx, result, fault, outcome.counter, form);
  named_params_.clear();
  outcome.written = direct && CallContextAccess::result_written(ctx);
  CallContextAccess::offer_writer(ctx, nullptr);
  outcome.multicall = multicall_ran_;
  return outcome;
}

bool CallCore::invoke(std::string_view name, Params params, CallContext& ctx, Value& result,
                      Fault& fault, uint32_t& counter, const CallForm& form) {
  Target target;
  bool found = find(name, target);
  if (!found && registry_.default_method && !name.starts_with("system.")) {
    target = Target{nullptr, nullptr, default_counter_, true};
    found = true;
  }
  counter = found ? target.counter : CallOutcome::kNoCounter;
  CallContextAccess::set_method(ctx, name);
  if (registry_.preinvoke) {
    std::span<const Value> seen = form.named ? std::span<const Value>(form.named, 1) : params;
    if (std::optional<Fault> refused = pre_invoke(ctx, seen)) {
      fault = std::move(*refused);
      if (found) count(counter, true, 0);
      return false;
    }
  }
  if (!found) {
    CallContextAccess::set_method(ctx, {});
    fault = unknown_method(name);
    return false;
  }
  const Clock::time_point began = Clock::now();
  bool ok = false;
  if (began >= ctx.deadline()) {
    // Too late to start (it waited in the worker pool's queue, or an earlier multicall entry
    // took the time): the caller has given up or is about to. No deadline is max(): never.
    fault = Fault{fault_code::kTransportError, "deadline exceeded"};
  } else {
    ok = run(target, name, params, ctx, result, fault, form);
  }
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - began);
  count(counter, !ok, uint64_t(nanos.count()));
  return ok;
}

bool CallCore::place_named(const Target& target, std::string_view name, Value& named,
                           Fault& fault) {
  static const std::vector<std::string> kNone;
  const std::vector<std::string>& names =
      target.method ? target.method->info.parameter_names : kNone;
  named_params_.clear();
  if (names.empty()) {  // no names: the struct is the one parameter
    named_params_.push_back(std::move(named));
    return true;
  }
  for (Member& m : named.members()) {
    auto at = std::find(names.begin(), names.end(), m.name());
    if (at == names.end()) {
      fault = Fault{fault_code::kInvalidParams, shown_method_name(name) + " has no parameter '" +
                                                    shown_method_name(m.name()) + "'"};
      return false;
    }
    size_t index = size_t(at - names.begin());
    if (named_params_.size() <= index) named_params_.resize(index + 1);
    named_params_[index] = std::move(m.value());
  }
  return true;
}

std::optional<Fault> CallCore::pre_invoke(CallContext& ctx, std::span<const Value> params) const {
  try {
    return registry_.preinvoke(ctx, params);
  } catch (const FaultError& e) {
    return e.fault();
#if defined(__GLIBCXX__)
  } catch (abi::__forced_unwind&) {
    throw;
#endif
  } catch (const std::exception& e) {
    return Fault{fault_code::kInternalError, e.what()};
  } catch (...) {
    return Fault{fault_code::kInternalError, "unknown exception"};
  }
}

bool CallCore::run(const Target& target, std::string_view name, Params params, CallContext& ctx,
                   Value& result, Fault& fault, const CallForm& form) {
  if (form.named) {
    if (!place_named(target, name, *form.named, fault)) return false;
    params = named_params_;
  }
  static const std::vector<Signature> kUnchecked;  // the default method's parameters
  const std::vector<Signature>& signatures = target.method   ? target.method->signatures
                                             : target.system ? target.system->signatures
                                                             : kUnchecked;
  if (!signatures.empty() &&
      !check_params(name, signatures, params, fault.string, form.text_for_bytes_and_times)) {
    fault.code = fault_code::kInvalidParams;
    // Parameters by name (a JSON object) to a method that has no names for them: the object
    // was taken as its one parameter. Say why it did not fit, and what would.
    if (form.named && target.method && target.method->info.parameter_names.empty())
      fault.string += " (the parameters came by name, as one object, but " +
                      shown_method_name(name) +
                      " takes them by position: send an array, or give the method parameter "
                      "names when it is bound)";
    return false;
  }
  return guarded(
      [&] {
        result = target.method   ? target.method->handler(params, ctx)
                 : target.system ? run_system(*target.system, params, ctx)
                                 : registry_.default_method(params, ctx);
        return true;
      },
      fault);
}

template <class Body>
bool CallCore::guarded(Body&& body, Fault& fault) {
  try {
    return body();
  } catch (const FaultError& e) {
    fault = e.fault();
  } catch (const Exception& e) {
    // A Value used as the wrong type, or a missing member or index: the parameters were wrong.
    bool params_wrong = e.error().code == Errc::TypeMismatch || e.error().code == Errc::NotFound;
    fault = Fault{params_wrong ? fault_code::kInvalidParams : fault_code::kInternalError, e.what()};
#if defined(__GLIBCXX__)
  } catch (abi::__forced_unwind&) {
    throw;
#endif
  } catch (const std::exception& e) {
    fault = Fault{fault_code::kInternalError, e.what()};
  } catch (...) {
    fault = Fault{fault_code::kInternalError, "unknown exception"};
  }
  return false;
}

CallCore::Streamed CallCore::call_streamed(std::string_view name, ParamStream& params,
                                           CallContext& ctx, ValueWriter* direct, Value& result,
                                           Fault& fault, CallOutcome& outcome) {
  uint32_t index = registry_.find(name);
  if (index == Registry::Impl::kNotFound || registry_.preinvoke) return Streamed::Left;
  const Registry::Impl::Method& method = registry_.methods[index];
  if (!method.streamed) return Streamed::Left;
  const Clock::time_point began = Clock::now();
  if (began >= ctx.deadline()) return Streamed::Left;  // call() answers that

  CallContextAccess::clear_latch(ctx);
  CallContextAccess::set_method(ctx, name);
  multicall_ran_ = false;
  entry_counters_.clear();
  CallContextAccess::offer_writer(ctx, direct);
  bool read = true;
  const bool ok = guarded(
      [&] {
        read = method.streamed(params, ctx, result);
        return read;
      },
      fault);
  outcome = CallOutcome{};
  outcome.written = direct && CallContextAccess::result_written(ctx);
  CallContextAccess::offer_writer(ctx, nullptr);
  if (!read) {
    CallContextAccess::set_method(ctx, {});
    return Streamed::Abandoned;
  }
  outcome.ok = ok;
  outcome.counter = index;
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - began);
  count(index, !ok, uint64_t(nanos.count()));
  return Streamed::Ran;
}

// ---- system methods ----

const MethodInfo& CallCore::info_of(const Target& target) const {
  return target.method ? target.method->info : target.system->info;
}

CallCore::Target CallCore::introspected(Params params) const {
  std::string_view name = params[0].as_string();  // the signature made it a string
  Target target;
  if (!find(name, target)) throw FaultError(unknown_method(name));
  return target;
}

Value CallCore::signature_of(const Target& target) const {
  const MethodInfo& info = info_of(target);
  if (info.signatures.empty()) return Value("undef");
  Value out = Value::array();
  out.reserve(info.signatures.size());
  for (const auto& sig : info.signatures) out.push_back(string_array(sig));
  return out;
}

Value CallCore::run_system(const SystemMethod& method, Params params, CallContext& ctx) {
  switch (method.id) {
    case SystemId::ListMethods:
      return method_list_;
    case SystemId::MethodSignature:
      return signature_of(introspected(params));
    case SystemId::MethodHelp:
      return Value(help_text(info_of(introspected(params))));
    case SystemId::MethodExist: {
      Target target;
      return Value(find(params[0].as_string(), target));
    }
    case SystemId::Multicall:
      return multicall(params, ctx);
    case SystemId::GetCapabilities:
      return capabilities_;
    case SystemId::Shutdown:
      options_.on_shutdown(params.empty() ? std::string_view() : params[0].as_string());
      return Value(0);
  }
  throw FaultError(fault_code::kInternalError, "unhandled system method");
}

Value CallCore::multicall(Params params, CallContext& ctx) {
  std::span<Value> calls = params[0].as_array();
  if (calls.size() > options_.max_multicall_calls)
    throw FaultError(fault_code::kInvalidXmlRpc,
                     "system.multicall: " + std::to_string(calls.size()) +
                         " calls exceed the limit of " +
                         std::to_string(options_.max_multicall_calls) + " (max_multicall_calls)");
  multicall_ran_ = true;  // entries are never multicalls: this is the request's own
  CallContextAccess::offer_writer(ctx, nullptr);  // entries' results go into `results`

  Value results = Value::array();
  results.reserve(calls.size());
  entry_counters_.reserve(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    Value result;
    Fault fault;
    uint32_t counter = CallOutcome::kNoCounter;
    bool ok = false;
    Value& entry = calls[i];
    const Value* name = entry.is_struct() ? entry.find("methodName") : nullptr;
    Value* entry_params = entry.is_struct() ? entry.find("params") : nullptr;
    auto malformed = [&](const char* what) {
      fault = Fault{fault_code::kInvalidXmlRpc,
                    "system.multicall: call " + std::to_string(i + 1) + " " + what};
    };
    if (const Fault* latched = ctx.latched_fault()) {
      fault = *latched;
    } else if (!entry.is_struct()) {
      malformed("is not a struct");
    } else if (!name || !name->is_string()) {
      malformed("has no methodName string");
    } else if (!entry_params || !entry_params->is_array()) {
      malformed("has no params array");
    } else if (name->as_string() == "system.multicall") {
      fault = Fault{fault_code::kInvalidXmlRpc, "system.multicall cannot be nested"};
    } else {
      ok = invoke(name->as_string(), entry_params->as_array(), ctx, result, fault, counter, {});
    }
    results.push_back(ok ? one_element_array(std::move(result))
                         : multicall_fault_entry(std::move(fault)));
    entry_counters_.push_back(counter);
  }
  return results;
}

}  // namespace callwire::detail
