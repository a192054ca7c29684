// The method registry, and what a handler sees of its call.
#include "callwire/registry.hpp"

#include <algorithm>

#include "base/ascii.hpp"
#include "dispatch/notify_channel.hpp"
#include "dispatch/registry_impl.hpp"

namespace callwire {

const HeaderField* CallContext::find_header(std::string_view name) const noexcept {
  for (const HeaderField& field : headers_)
    if (base::iequals(field.name, name)) return &field;
  return nullptr;
}

std::string_view CallContext::header(std::string_view name) const noexcept {
  const HeaderField* field = find_header(name);
  return field ? field->value : std::string_view();
}

Notifier CallContext::notifier() const noexcept {
  return notify_ ? Notifier(notify_->shared_from_this()) : Notifier();
}

bool Notifier::connected() const noexcept { return channel_ && channel_->open(); }

Status Notifier::notify(std::string_view method, const Value& params) const {
  if (!channel_)
    return Error(Errc::InvalidArgument,
                 "this call's connection carries no notifications (only WebSocket with JSON-RPC)");
  if (!params.is_array() && !params.is_struct())
    return Error(Errc::InvalidArgument, "notification params must be an array or a struct");
  return channel_->send(method, params);
}

namespace {

Status check_parameter_names(const std::string& method, const MethodInfo& info) {
  const std::vector<std::string>& names = info.parameter_names;
  if (names.empty()) return {};
  auto refuse = [&](const std::string& why) {
    return Error(Errc::InvalidArgument, "cannot add method '" + method + "': " + why);
  };
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) return refuse("parameter " + std::to_string(i + 1) + " has no name");
    for (size_t k = 0; k < i; ++k)
      if (names[k] == names[i]) return refuse("two parameters are named '" + names[i] + "'");
  }
  size_t longest = 0;
  for (const auto& sig : info.signatures) longest = std::max(longest, sig.size() - 1);
  if (!info.signatures.empty() && longest != names.size())
    return refuse(std::to_string(names.size()) + " parameter names for " + std::to_string(longest) +
                  " parameters");
  return {};
}

}  // namespace

void Registry::Impl::index_last() {
  const size_t count = methods.size();
  auto place = [](std::vector<uint32_t>& table, std::string_view name, size_t index) {
    const size_t mask = table.size() - 1;
    size_t i = name_hash(name) & mask;
    while (table[i] != 0) i = (i + 1) & mask;
    table[i] = static_cast<uint32_t>(index + 1);
  };
  if (count * 2 <= slots.size()) {
    place(slots, methods.back().name, count - 1);
    return;
  }
  // Twice as many slots, filled anew (into a new table: on bad_alloc nothing has changed).
  std::vector<uint32_t> grown(std::max<size_t>(16, slots.size() * 2), 0);
  for (size_t i = 0; i < count; ++i) place(grown, methods[i].name, i);
  slots.swap(grown);
}

Registry::Registry() : impl_(std::make_unique<Impl>()) {}
Registry::~Registry() = default;

Status Registry::set_default_method(Handler handler) {
  if (impl_->frozen.load(std::memory_order_acquire))
    return Error(Errc::InvalidArgument, "cannot set the default method: the registry is frozen");
  impl_->default_method = std::move(handler);
  return Status();
}

Status Registry::set_preinvoke(PreInvoke hook) {
  if (impl_->frozen.load(std::memory_order_acquire))
    return Error(Errc::InvalidArgument, "cannot set the pre-invoke hook: the registry is frozen");
  impl_->preinvoke = std::move(hook);
  return Status();
}

namespace {

// add() and add_streamed(): the checks, then the method.
Status add_method(Registry::Impl& impl, std::string name, Handler handler, StreamedHandler streamed,
                  MethodInfo info) {
  using Impl = Registry::Impl;
  if (impl.frozen.load(std::memory_order_acquire))
    return Error(Errc::InvalidArgument, "cannot add method '" + name + "': the registry is frozen");
  if (name.empty()) return Error(Errc::InvalidArgument, "a method name cannot be empty");
  if (name.starts_with("system."))
    return Error(Errc::InvalidArgument,
                 "cannot add method '" + name + "': system.* methods are the server's");
  if (!handler)
    return Error(Errc::InvalidArgument, "cannot add method '" + name + "': the handler is empty");
  if (impl.find(name) != Impl::kNotFound)
    return Error(Errc::InvalidArgument, "method '" + name + "' is already registered");
  Result<std::vector<detail::Signature>> signatures =
      detail::parse_signatures(name, info.signatures);
  if (!signatures) return signatures.error();
  if (Status names = check_parameter_names(name, info); !names) return names;
  if (impl.methods.size() >= Impl::kNotFound - 1)
    return Error(Errc::InvalidArgument, "too many methods");

  impl.methods.push_back(Impl::Method{std::move(name), std::move(handler), std::move(info),
                                      std::move(*signatures), std::move(streamed)});
  try {
    impl.index_last();
  } catch (...) {
    impl.methods.pop_back();  // all or nothing
    throw;
  }
  return {};
}

}  // namespace

Status Registry::add(std::string name, Handler handler, MethodInfo info) {
  return add_method(*impl_, std::move(name), std::move(handler), {}, std::move(info));
}

Status Registry::add_streamed(std::string name, Handler handler, StreamedHandler streamed,
                              MethodInfo info) {
  if (!streamed)
    return Error(Errc::InvalidArgument,
                 "cannot add method '" + name + "': the streamed handler is empty");
  return add_method(*impl_, std::move(name), std::move(handler), std::move(streamed),
                    std::move(info));
}

bool Registry::contains(std::string_view name) const noexcept {
  return impl_->find(name) != Impl::kNotFound;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  out.reserve(impl_->methods.size());
  for (const Impl::Method& m : impl_->methods) out.push_back(m.name);
  return out;
}

size_t Registry::size() const noexcept { return impl_->methods.size(); }

void Registry::freeze() noexcept { impl_->frozen.store(true, std::memory_order_release); }
bool Registry::frozen() const noexcept { return impl_->frozen.load(std::memory_order_acquire); }

}  // namespace callwire
