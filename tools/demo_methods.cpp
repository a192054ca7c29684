// The demo methods of `callwire serve` (see demo_methods.hpp). Every handler reaches its
// parameters only through the checks below, which throw FaultError(-32602) before any access
// could go out of bounds or hit the wrong type.
#include "demo_methods.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace callwire::demo {

namespace {

using namespace std::string_literals;

[[noreturn]] void bad_params(std::string_view method, std::string what) {
  throw FaultError(fault_code::kInvalidParams, std::string(method) + ": " + what);
}

void expect_count(std::string_view method, Params params, size_t n) {
  if (params.size() == n) return;
  bad_params(method, "expected " + std::to_string(n) + (n == 1 ? " parameter" : " parameters") +
                         ", got " + std::to_string(params.size()));
}

// `where` names the value in messages, as a path: params[0]["2000"]["04"].
void expect_type(std::string_view method, const Value& value, Type type, std::string_view where) {
  if (value.type() == type) return;
  bad_params(method, std::string(where) + " must be " + type_name(type) + ", got " +
                         type_name(value.type()));
}

int64_t expect_integer(std::string_view method, const Value& value, std::string_view where) {
  if (auto n = value.try_as_i8()) return *n;  // int or i8
  bad_params(method, std::string(where) + " must be int or i8, got " + type_name(value.type()));
}

std::string member_path(std::string_view where, std::string_view name) {
  return std::string(where) + "[\"" + std::string(name) + "\"]";
}

// The member `name` of `value`, which must be a struct.
const Value& expect_member(std::string_view method, const Value& value, std::string_view name,
                           std::string_view where) {
  expect_type(method, value, Type::Struct, where);
  const Value* member = value.find(name);
  if (!member)
    bad_params(method, std::string(where) + " has no member \"" + std::string(name) + "\"");
  return *member;
}

int64_t integer_member(std::string_view method, const Value& value, std::string_view name,
                       std::string_view where) {
  return expect_integer(method, expect_member(method, value, name, where),
                        member_path(where, name));
}

int64_t add(std::string_view method, int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) bad_params(method, "the sum does not fit in 64 bits");
  return sum;
}

// An int when it fits, else an i8: a result is never wrong, and is an int whenever it can be.
Value integer_result(int64_t n) {
  if (n >= std::numeric_limits<int32_t>::min() && n <= std::numeric_limits<int32_t>::max()) {
    return Value(static_cast<int32_t>(n));
  }
  return Value::i8(n);
}

int64_t sum_stooges(std::string_view method, const Value& value, std::string_view where) {
  int64_t sum = integer_member(method, value, "moe", where);
  sum = add(method, sum, integer_member(method, value, "larry", where));
  return add(method, sum, integer_member(method, value, "curly", where));
}

std::string element_path(std::string_view where, size_t index) {
  return std::string(where) + "[" + std::to_string(index) + "]";
}

// ---------------------------------------------------------------------------------------------

Value sample_add(Params params, CallContext&) {
  constexpr std::string_view kName = "sample.add";
  expect_count(kName, params, 2);
  int64_t a = expect_integer(kName, params[0], "params[0]");
  int64_t b = expect_integer(kName, params[1], "params[1]");
  return integer_result(add(kName, a, b));
}

Value array_of_structs(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.arrayOfStructsTest";
  expect_count(kName, params, 1);
  expect_type(kName, params[0], Type::Array, "params[0]");
  std::span<const Value> items = params[0].as_array();
  int64_t sum = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    sum = add(kName, sum, integer_member(kName, items[i], "curly", element_path("params[0]", i)));
  }
  return integer_result(sum);
}

Value count_entities(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.countTheEntities";
  expect_count(kName, params, 1);
  expect_type(kName, params[0], Type::String, "params[0]");
  int64_t lt = 0, gt = 0, amp = 0, apos = 0, quot = 0;
  for (char c : params[0].as_string()) {
    switch (c) {
      case '<':
        ++lt;
        break;
      case '>':
        ++gt;
        break;
      case '&':
        ++amp;
        break;
      case '\'':
        ++apos;
        break;
      case '"':
        ++quot;
        break;
      default:
        break;
    }
  }
  return Value::structure({{"ctLeftAngleBrackets", integer_result(lt)},
                           {"ctRightAngleBrackets", integer_result(gt)},
                           {"ctAmpersands", integer_result(amp)},
                           {"ctApostrophes", integer_result(apos)},
                           {"ctQuotes", integer_result(quot)}});
}

Value easy_struct(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.easyStructTest";
  expect_count(kName, params, 1);
  return integer_result(sum_stooges(kName, params[0], "params[0]"));
}

Value echo_struct(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.echoStructTest";
  expect_count(kName, params, 1);
  expect_type(kName, params[0], Type::Struct, "params[0]");
  return std::move(params[0]);
}

Value many_types(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.manyTypesTest";
  expect_count(kName, params, 6);
  expect_integer(kName, params[0], "params[0]");
  expect_type(kName, params[1], Type::Boolean, "params[1]");
  expect_type(kName, params[2], Type::String, "params[2]");
  expect_type(kName, params[3], Type::Double, "params[3]");
  expect_type(kName, params[4], Type::DateTime, "params[4]");
  expect_type(kName, params[5], Type::Bytes, "params[5]");
  Value out = Value::array();
  out.reserve(params.size());
  for (Value& param : params) out.push_back(std::move(param));
  return out;
}

Value moderate_size_array(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.moderateSizeArrayCheck";
  constexpr size_t kMin = 100, kMax = 200;
  expect_count(kName, params, 1);
  expect_type(kName, params[0], Type::Array, "params[0]");
  std::span<const Value> items = params[0].as_array();
  if (items.size() < kMin || items.size() > kMax) {
    bad_params(kName, "params[0] must hold " + std::to_string(kMin) + " to " +
                          std::to_string(kMax) + " strings, got " + std::to_string(items.size()));
  }
  for (size_t i = 0; i < items.size(); ++i) {
    expect_type(kName, items[i], Type::String, element_path("params[0]", i));
  }
  std::string out(items.front().as_string());
  out += items.back().as_string();
  return Value(out);
}

Value nested_struct(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.nestedStructTest";
  expect_count(kName, params, 1);
  std::string where = "params[0]";
  const Value* at = &params[0];
  for (std::string_view key : {"2000", "04", "01"}) {
    at = &expect_member(kName, *at, key, where);
    where = member_path(where, key);
  }
  return integer_result(sum_stooges(kName, *at, where));
}

Value simple_struct_return(Params params, CallContext&) {
  constexpr std::string_view kName = "validator1.simpleStructReturnTest";
  expect_count(kName, params, 1);
  int64_t n = expect_integer(kName, params[0], "params[0]");
  int64_t times10, times100, times1000;
  if (__builtin_mul_overflow(n, 10, &times10) || __builtin_mul_overflow(n, 100, &times100) ||
      __builtin_mul_overflow(n, 1000, &times1000)) {
    bad_params(kName, "params[0] * 1000 does not fit in 64 bits");
  }
  return Value::structure({{"times10", integer_result(times10)},
                           {"times100", integer_result(times100)},
                           {"times1000", integer_result(times1000)}});
}

Value echo(Params params, CallContext&) {
  Value out = Value::array();
  out.reserve(params.size());
  for (Value& param : params) out.push_back(std::move(param));
  return out;
}

Value notify_ticks(Params params, CallContext& context) {
  constexpr std::string_view kName = "demo.notify";
  expect_count(kName, params, 1);
  int64_t count = expect_integer(kName, params[0], "params[0]");
  if (count < 0 || count > 1000) bad_params(kName, "params[0] must be 0 to 1000");
  Notifier notifier = context.notifier();
  if (!notifier) bad_params(kName, "this connection carries no notifications (WebSocket only)");
  // From another thread, as a handler's worker or a subscription's source would send them.
  Status sent;
  std::thread sender([&] {
    for (int64_t i = 0; i < count && sent; ++i)
      sent = notifier.notify("demo.tick", Value::array({Value(static_cast<int32_t>(i))}));
  });
  sender.join();
  if (!sent) throw FaultError(fault_code::kInternalError, sent.error().message);
  return Value(static_cast<int32_t>(count));
}

using Signature = std::vector<std::string>;

}  // namespace

std::vector<DemoMethod> demo_methods() {
  std::vector<DemoMethod> methods;
  auto add_method = [&](std::string name, Handler handler, std::vector<Signature> signatures,
                        std::string help) {
    methods.push_back(
        {std::move(name), std::move(handler), MethodInfo{std::move(signatures), std::move(help)}});
  };
  add_method("sample.add", sample_add, {{"int", "int", "int"}, {"i8", "i8", "i8"}},
             "Adds two integers. The sum is an int when it fits in 32 bits, else an i8; a sum "
             "beyond 64 bits is fault -32602.");
  add_method("validator1.arrayOfStructsTest", array_of_structs, {{"int", "array"}},
             "Takes an array of structs, each with an integer member curly (the validator also "
             "sends moe and larry); returns the sum of every curly.");
  add_method("validator1.countTheEntities", count_entities, {{"struct", "string"}},
             "Counts the characters of a string that XML escapes as entities; returns a struct "
             "of ints: ctLeftAngleBrackets (<), ctRightAngleBrackets (>), ctAmpersands (&), "
             "ctApostrophes (') and ctQuotes (\").");
  add_method("validator1.easyStructTest", easy_struct, {{"int", "struct"}},
             "Takes a struct with integer members moe, larry and curly; returns their sum.");
  add_method("validator1.echoStructTest", echo_struct, {{"struct", "struct"}},
             "Returns the struct it is given.");
  add_method("validator1.manyTypesTest", many_types,
             {{"array", "int", "boolean", "string", "double", "dateTime.iso8601", "base64"}},
             "Takes an int, a boolean, a string, a double, a dateTime and a base64; returns an "
             "array of the six, in that order.");
  add_method("validator1.moderateSizeArrayCheck", moderate_size_array, {{"string", "array"}},
             "Takes an array of 100 to 200 strings; returns the first and the last "
             "concatenated.");
  add_method("validator1.nestedStructTest", nested_struct, {{"int", "struct"}},
             "Takes a calendar: a struct of years, each a struct of months, each a struct of "
             "days (member names such as \"2000\", \"04\", \"01\"); returns moe + larry + curly "
             "of the day 2000-04-01.");
  add_method("validator1.simpleStructReturnTest", simple_struct_return, {{"struct", "int"}},
             "Takes an integer n; returns a struct {times10, times100, times1000} of n times "
             "10, 100 and 1000.");
  add_method("echo", echo, {}, "Returns its parameters, whatever they are, as an array.");
  return methods;
}

std::vector<DemoMethod> websocket_demo_methods() {
  return {{"demo.notify", notify_ticks,
           MethodInfo{{{"int", "int"}},
                      "Sends COUNT (0 to 1000) notifications demo.tick [i] to the caller over "
                      "WebSocket, from another thread; returns COUNT."}}};
}

}  // namespace callwire::demo
