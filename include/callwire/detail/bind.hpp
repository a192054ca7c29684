// callwire: the template glue behind Registry::bind and Server::bind. No stability promise;
// include callwire/registry.hpp or callwire/server.hpp instead.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "callwire/convert.hpp"
#include "callwire/detail/drop_after_send.hpp"
#include "callwire/detail/shape.hpp"
#include "callwire/registry.hpp"
#include "callwire/struct.hpp"

namespace callwire::detail {

// The return type and parameter types of a callable with one non-template call operator.
template <class F>
struct CallableTraits;

template <class R, class... A>
struct CallableTraits<R(A...)> {
  using Return = R;
  using Args = std::tuple<A...>;
};
template <class R, class... A>
struct CallableTraits<R(A...) noexcept> : CallableTraits<R(A...)> {};
template <class R, class... A>
struct CallableTraits<R (*)(A...)> : CallableTraits<R(A...)> {};
template <class R, class... A>
struct CallableTraits<R (*)(A...) noexcept> : CallableTraits<R(A...)> {};

#define CALLWIRE_MEMBER_TRAITS(QUALIFIERS)                                       \
  template <class R, class C, class... A>                                        \
  struct CallableTraits<R (C::*)(A...) QUALIFIERS> : CallableTraits<R(A...)> {}; \
  template <class R, class C, class... A>                                        \
  struct CallableTraits<R (C::*)(A...) QUALIFIERS noexcept> : CallableTraits<R(A...)> {};
CALLWIRE_MEMBER_TRAITS()
CALLWIRE_MEMBER_TRAITS(const)
CALLWIRE_MEMBER_TRAITS(&)
CALLWIRE_MEMBER_TRAITS(const&)
#undef CALLWIRE_MEMBER_TRAITS

template <class F>
concept PlainCallable = std::is_function_v<std::remove_pointer_t<F>> || requires {
  &F::operator();
};

template <class F>
struct CallableSignature;
template <class F>
requires std::is_function_v<std::remove_pointer_t<F>>
struct CallableSignature<F> : CallableTraits<std::remove_pointer_t<F>> {
};
template <class F>
requires(!std::is_function_v<std::remove_pointer_t<F>>) struct CallableSignature<F>
    : CallableTraits<decltype(&F::operator())> {
};

template <class T>
inline constexpr bool is_context_v =
    std::is_same_v<T, CallContext&> || std::is_same_v<T, const CallContext&>;

// A parameter is taken by value, by const reference or by rvalue reference; never by a
// non-const lvalue reference (there is nothing of the caller's to write back to).
template <class A>
inline constexpr bool is_param_form_v =
    !std::is_lvalue_reference_v<A> || std::is_const_v<std::remove_reference_t<A>>;

template <class T>
constexpr bool nullable() {
  if constexpr (requires { Convert<T>::nullable; }) return Convert<T>::nullable;
  return false;
}

// The parameters after the optional leading CallContext&.
template <class Args>
struct SplitContext {
  static constexpr bool has_context = false;
  using Params = Args;
};
template <class First, class... Rest>
requires is_context_v<First>
struct SplitContext<std::tuple<First, Rest...>> {
  static constexpr bool has_context = true;
  using Params = std::tuple<Rest...>;
};

// How many parameters a call must pass: all but the trailing run of nullable ones
// (std::optional), which may be left out.
template <class... P>
constexpr size_t required_params() {
  constexpr bool opt[] = {nullable<std::remove_cvref_t<P>>()..., false};
  size_t n = sizeof...(P);
  while (n > 0 && opt[n - 1]) --n;
  return n;
}

// "takes 2 parameters", "takes 1 or 2 parameters", as the dispatcher says it.
inline std::string takes_text(size_t min, size_t max) {
  auto count = [](size_t n) {
    if (n == 0) return std::string("no parameters");
    return std::to_string(n) + (n == 1 ? " parameter" : " parameters");
  };
  std::string out = "takes ";
  for (size_t n = min; n < max; ++n) out += std::to_string(n) + (n + 1 == max ? " or " : ", ");
  return out + count(max);
}

// The signatures introspection shows: the return type then each parameter's, the full form
// first. A nullable parameter (std::optional) adds a variant with "nil" in its slot, and the
// trailing nullable ones may be left out, which adds the shorter forms (longest first). Past
// 64 variants in all, the nullable slots become "any" instead and only the lengths vary (the
// dispatcher then checks those slots no further than the handler does).
// The shapes system.methodHelp shows (MethodInfo::parameter_shapes, result_shape), left empty
// when none says more than the signatures do. A struct is spelled out where it first appears.
template <class R, class... P>
void deduce_shapes(MethodInfo& info) {
  ShapeText shape;
  std::vector<std::string> parameters;
  ((append_shape<P>(shape), parameters.push_back(std::exchange(shape.text, {}))), ...);
  std::string result = "nil";
  if constexpr (!std::is_void_v<R>) {
    append_shape<R>(shape);
    result = std::move(shape.text);
  }
  bool detailed = shape_is_detailed(result);
  for (const std::string& p : parameters) detailed = detailed || shape_is_detailed(p);
  if (!detailed) return;
  info.parameter_shapes = std::move(parameters);
  info.result_shape = std::move(result);
}

template <class R, class... P>
std::vector<std::vector<std::string>> deduced_signatures() {
  constexpr size_t kMaxVariants = 64;
  std::string ret;
  if constexpr (std::is_void_v<R>) {
    ret = "nil";
  } else {
    ret = std::string(Convert<std::remove_cvref_t<R>>::type_name);
  }
  std::vector<std::string> names{std::string(Convert<std::remove_cvref_t<P>>::type_name)...};
  std::vector<bool> opt{nullable<std::remove_cvref_t<P>>()...};
  const size_t required = required_params<P...>();
  // Nullable slots among the first `length` parameters.
  auto nullables = [&](size_t length) {
    size_t k = 0;
    for (size_t i = 0; i < length; ++i) k += opt[i] ? 1 : 0;
    return k;
  };
  size_t variants = 0;
  for (size_t length = required; length <= names.size() && variants <= kMaxVariants; ++length) {
    size_t k = nullables(length);
    variants += k >= 7 ? kMaxVariants + 1 : size_t{1} << k;  // 2^7 > 64: no shift overflow
  }
  std::vector<std::vector<std::string>> out;
  for (size_t length = names.size() + 1; length-- > required;) {
    if (variants > kMaxVariants) {
      std::vector<std::string> sig{ret};
      for (size_t i = 0; i < length; ++i) sig.push_back(opt[i] ? "any" : names[i]);
      out.push_back(std::move(sig));
      continue;
    }
    for (size_t mask = 0; mask < (size_t{1} << nullables(length)); ++mask) {
      std::vector<std::string> sig{ret};
      size_t bit = 0;
      for (size_t i = 0; i < length; ++i) {
        if (opt[i]) {
          sig.push_back((mask >> bit) & 1 ? "nil" : names[i]);
          ++bit;
        } else {
          sig.push_back(names[i]);
        }
      }
      out.push_back(std::move(sig));
    }
  }
  return out;
}

// What a handler's return type answers with: a Result<T> answers T (or a fault), a Status
// answers nil (or a fault), anything else itself.
template <class R>
struct Answer {
  using Type = R;
  static constexpr bool can_fail = false;
};
template <class T>
struct Answer<Result<T>> {
  using Type = T;
  static constexpr bool can_fail = true;
};
template <>
struct Answer<Status> {
  using Type = void;
  static constexpr bool can_fail = true;
};
template <class R>
using AnswerType = typename Answer<std::remove_cvref_t<R>>::Type;

// The fault a handler's returned Error answers with: its own fault code when it carries one
// (every Error built from an Errc does, through errc_fault_code; a downstream call's fault
// keeps the peer's code), else the code errc_fault_code gives its Errc, and -32603 when even
// that is 0 (an Error with Errc::Ok). An empty message becomes the Errc's name.
inline FaultError returned_fault(const Error& e) {
  int32_t code = e.fault_code != 0 ? e.fault_code : errc_fault_code(e.code);
  if (code == 0) code = fault_code::kInternalError;
  std::string string = e.message.empty() ? std::string(errc_name(e.code)) : e.message;
  if (e.data) return FaultError(code, std::move(string), *e.data);
  return FaultError(code, std::move(string));
}

// The response writer the dispatcher offers a call (CallContext::result_writer_): a typed
// handler whose result has Convert<T>::write writes it there, with no Value tree between.
struct ResultWriterAccess {
  static ValueWriter* offered(const CallContext& c) noexcept {
    return c.result_written_ ? nullptr : c.result_writer_;
  }
  static void mark_written(CallContext& c) noexcept { c.result_written_ = true; }
  static bool written(const CallContext& c) noexcept { return c.result_written_; }
  static DropAfterSend* after_send(const CallContext& c) noexcept { return c.after_send_; }
};

// A result the handler returned by value and the call wrote into the answer: destroyed after
// the answer is sent when the transport says when that is, else here and now.
template <class T>
void drop_after_send(CallContext& context, T& t) noexcept {
  if constexpr (DropAfterSend::can_keep<T>) {
    if (!ResultWriterAccess::written(context)) return;  // converted to a Value: done with it
    if (DropAfterSend* keeper = ResultWriterAccess::after_send(context)) keeper->keep(t);
  }
}

// The answer `t` of a handler: written into the response when the dispatcher offers a writer
// and T has the fast path (the Value returned is then a nil placeholder), else converted.
template <class T>
Value answer_with(CallContext& context, const T& t) {
  if constexpr (Writable<T>) {
    if (ValueWriter* w = ResultWriterAccess::offered(context)) {
      Convert<T>::write(*w, t);
      ResultWriterAccess::mark_written(context);
      return Value();
    }
  }
  return Convert<T>::to_value(t);
}

// Whether a parameter of type T may be a value of type `t`, as the signature check the
// dispatcher makes of a parameter converted from a Value says (src/dispatch/signature.cpp): by
// T's type name, and nil where T is nullable. What a slot takes beyond its own type (an i8 for
// an "int", an integer for a "double") is left to Convert<T>, as there.
// (Not constexpr: a user's type_name need not be a constant; the built-ins' fold away.)
template <class T>
bool slot_takes(Type t, bool text_types) noexcept {
  const std::string_view slot = Convert<T>::type_name;
  if (t == Type::Nil && nullable<T>()) return true;
  if (slot == "int" || slot == "i4" || slot == "i8") return t == Type::Int || t == Type::I8;
  if (slot == "double") return t == Type::Double || t == Type::Int || t == Type::I8;
  if (slot == "boolean") return t == Type::Boolean;
  if (slot == "string") return t == Type::String;
  if (slot == "dateTime.iso8601") return t == Type::DateTime || (text_types && t == Type::String);
  if (slot == "base64") return t == Type::Bytes || (text_types && t == Type::String);
  if (slot == "array") return t == Type::Array;
  if (slot == "struct") return t == Type::Struct;
  if (slot == "nil") return t == Type::Nil;
  return slot == "any" || slot == "undef";
}

template <class F, class R, bool Context, class... P>
struct BoundHandler {
  F f;
  std::string name;

  // Every parameter can be read from the request into a value made empty: bind offers
  // streamed(). Not for views (std::string_view, std::span), which point into a Value.
  static constexpr bool kStreams = ((std::is_default_constructible_v<std::remove_cvref_t<P>> &&
                                     !is_view_v<std::remove_cvref_t<P>>)&&...);

  Value operator()(Params params, CallContext& context) {
    return call(params, context, std::index_sequence_for<P...>{});
  }

  // The parameters read from `params` straight into the handler's types, then the call; false
  // (and the handler not run) at anything the Value path would answer with a fault, so that it
  // does, in its own words.
  bool streamed(ParamStream& params, CallContext& context, Value& result) {
    return streamed(params, context, result, std::index_sequence_for<P...>{});
  }

 private:
  template <size_t... I>
  bool streamed(ParamStream& params, CallContext& context, Value& result,
                std::index_sequence<I...>) {
    std::tuple<std::remove_cvref_t<P>...> args;
    if (!(read_param(params, std::get<I>(args)) && ...) || !params.finish()) return false;
    result = answer(context, std::move(std::get<I>(args))...);
    return true;
  }

  template <class T>
  static bool read_param(ParamStream& params, T& out) {
    ValueReader* r = params.next();
    if (r == nullptr) {
      // Left out: as nil, when T may be (a trailing std::optional), as the Value path reads it.
      if constexpr (nullable<T>()) {
        if (params.failed()) return false;
        Result<T> t = Convert<T>::from_value(Value());
        if (!t) return false;
        out = std::move(*t);
        return true;
      } else {
        return false;
      }
    }
    Result<Type> type = r->peek();
    return type && slot_takes<T>(*type, r->strings_stand_for_bytes_and_times()) &&
           read_value(*r, out).ok();
  }

  template <class... X>
  Value answer(CallContext& context, X&&... args) {
    if constexpr (std::is_void_v<R>) {
      invoke(context, std::forward<X>(args)...);
      return Value();
    } else if constexpr (Answer<std::remove_cvref_t<R>>::can_fail) {
      auto&& got = invoke(context, std::forward<X>(args)...);
      if (!got) throw returned_fault(got.error());
      if constexpr (std::is_void_v<AnswerType<R>>) {
        return Value();
      } else {
        Value v = answer_with<std::remove_cvref_t<AnswerType<R>>>(context, *got);
        if constexpr (!std::is_reference_v<R> && !std::is_reference_v<AnswerType<R>>)
          drop_after_send(context, *got);
        return v;
      }
    } else if constexpr (std::is_reference_v<R>) {  // the handler's object: nothing to drop
      return answer_with<std::remove_cvref_t<R>>(context,
                                                 invoke(context, std::forward<X>(args)...));
    } else {
      // Not const even when R is (`-> const T`), so that it can be moved into the keeper.
      std::remove_cv_t<R> got = invoke(context, std::forward<X>(args)...);
      Value v = answer_with<std::remove_cv_t<R>>(context, got);
      drop_after_send(context, got);
      return v;
    }
  }

  template <size_t... I>
  Value call(Params params, CallContext& context, std::index_sequence<I...>) {
    // The dispatcher has checked the count against the signatures already; this keeps the
    // handler safe when called directly.
    constexpr size_t kRequired = required_params<P...>();
    if (params.size() < kRequired || params.size() > sizeof...(P)) {
      throw FaultError(fault_code::kInvalidParams, name + " " +
                                                       takes_text(kRequired, sizeof...(P)) +
                                                       ", got " + std::to_string(params.size()));
    }
    // A trailing nullable parameter left out reads as nil: an empty std::optional.
    const Value nil;
    std::tuple<Result<std::remove_cvref_t<P>>...> args{
        Convert<std::remove_cvref_t<P>>::from_value(I < params.size() ? params[I] : nil)...};
    (check(std::get<I>(args), I), ...);
    return answer(context, std::move(*std::get<I>(args))...);
  }

  template <class T>
  void check(const Result<T>& r, size_t index) const {
    if (!r) {
      throw FaultError(
          fault_code::kInvalidParams,
          join_path(name + ": parameter " + std::to_string(index + 1), r.error().message));
    }
  }

  template <class... X>
  decltype(auto) invoke(CallContext& context, X&&... args) {
    if constexpr (Context) {
      return f(context, std::forward<X>(args)...);
    } else {
      (void)context;
      return f(std::forward<X>(args)...);
    }
  }
};

template <class F, class R, bool Context, class Tuple>
struct MakeBound;
template <class F, class R, bool Context, class... P>
struct MakeBound<F, R, Context, std::tuple<P...>> {
  static_assert((is_param_form_v<P> && ...),
                "callwire::bind: take parameters by value or const reference, not by non-const "
                "reference (a CallContext& may come first)");
  static_assert((!is_context_v<P> && ...),
                "callwire::bind: a CallContext& parameter must be the first parameter");
  static_assert((FromValue<std::remove_cvref_t<P>> && ...),
                "callwire::bind: a parameter type has no callwire::Convert<T>::from_value; "
                "specialise callwire::Convert<T> for it (see callwire/convert.hpp)");
  static_assert(std::is_void_v<AnswerType<R>> || ToValue<std::remove_cvref_t<AnswerType<R>>>,
                "callwire::bind: the return type (or the T of a Result<T>) has no "
                "callwire::Convert<T>::to_value; specialise callwire::Convert<T> for it (see "
                "callwire/convert.hpp)");

  static Status add(Registry& registry, std::string name, F f, std::string help,
                    std::vector<std::string> parameter_names = {}) {
    MethodInfo info;
    info.signatures = deduced_signatures<AnswerType<R>, P...>();
    deduce_shapes<AnswerType<R>, P...>(info);
    info.help = std::move(help);
    info.parameter_names = std::move(parameter_names);
    std::string copy = name;
    using Bound = BoundHandler<F, R, Context, P...>;
    if constexpr (Bound::kStreams) {
      // One handler object behind both ways in, so that a callable with state has one state.
      auto bound = std::make_shared<Bound>(Bound{std::move(f), std::move(copy)});
      return registry.add_streamed(
          std::move(name),
          [bound](Params params, CallContext& context) { return (*bound)(params, context); },
          [bound](ParamStream& params, CallContext& context, Value& result) {
            return bound->streamed(params, context, result);
          },
          std::move(info));
    } else {
      return registry.add(std::move(name), Bound{std::move(f), std::move(copy)}, std::move(info));
    }
  }
};

}  // namespace callwire::detail

namespace callwire {

template <class F>
Status Registry::bind(std::string name, F&& callable, std::string help) {
  return bind(std::move(name), std::vector<std::string>{}, std::forward<F>(callable),
              std::move(help));
}

template <class F>
Status Registry::bind(std::string name, std::vector<std::string> parameter_names, F&& callable,
                      std::string help) {
  using Fn = std::decay_t<F>;
  static_assert(detail::PlainCallable<Fn>,
                "callwire::bind: needs a function, a function pointer or an object with one "
                "non-template operator() (a generic lambda's auto parameters cannot be deduced)");
  using Sig = detail::CallableSignature<Fn>;
  using Split = detail::SplitContext<typename Sig::Args>;
  return detail::MakeBound<Fn, typename Sig::Return, Split::has_context,
                           typename Split::Params>::add(*this, std::move(name),
                                                        Fn(std::forward<F>(callable)),
                                                        std::move(help),
                                                        std::move(parameter_names));
}

}  // namespace callwire
