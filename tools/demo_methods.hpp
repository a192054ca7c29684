// callwire: the methods `callwire serve` offers, for trying clients against: sample.add, the
// eight methods of UserLand's validator1 interop suite, and echo.
//
// Every handler checks the number and the types of its parameters and answers a wrong shape
// (too few or too many, a wrong type, a missing struct member) with fault -32602 and a message
// that names the method and what is wrong; none can crash or read out of bounds whatever it is
// given. Where a signature says int, an i8 is taken as well (rtorrent and others send every
// integer as i8). An integer result is an int when it fits in 32 bits and an i8 otherwise, so
// no sum is ever wrong; a result beyond 64 bits is fault -32602.
//
// Handlers keep no state: each is thread-safe. They move values out of their parameters
// (echo, echoStructTest, manyTypesTest), as Params allows.
#pragma once

#include <string>
#include <vector>

#include "callwire/registry.hpp"

namespace callwire::demo {

/// One method: the name to register, the handler and what introspection says of it.
struct DemoMethod {
  std::string name;
  Handler handler;
  MethodInfo info;
};

/// The demo methods, in this order:
/// - `sample.add(int a, int b)`: a + b (signatures int,int→int and i8,i8→i8).
/// - `validator1.arrayOfStructsTest(array)`: the sum of the `curly` members of an array of
///   structs.
/// - `validator1.countTheEntities(string)`: a struct of ints ctLeftAngleBrackets,
///   ctRightAngleBrackets, ctAmpersands, ctApostrophes, ctQuotes: how many `<`, `>`, `&`, `'`
///   and `"` the string holds.
/// - `validator1.easyStructTest(struct)`: moe + larry + curly.
/// - `validator1.echoStructTest(struct)`: the struct.
/// - `validator1.manyTypesTest(int, boolean, string, double, dateTime.iso8601, base64)`: an
///   array of the six.
/// - `validator1.moderateSizeArrayCheck(array)`: an array of 100 to 200 strings → the first and
///   the last concatenated.
/// - `validator1.nestedStructTest(struct)`: in a calendar struct year → month → day (member
///   names "2000", "04", "01"), moe + larry + curly of the struct at 2000/04/01.
/// - `validator1.simpleStructReturnTest(int n)`: {times10, times100, times1000} of n.
/// - `echo(...)`: its parameters as an array; no signature (introspection says "undef").
/// Throws std::bad_alloc only.
std::vector<DemoMethod> demo_methods();

/// What a server with WebSocket listeners adds: demo.notify(count), which sends `count` (at
/// most 1000) JSON-RPC notifications "demo.tick" with params [i] to its caller from another
/// thread, then answers `count`. Fault -32602 on a connection that carries no notifications.
std::vector<DemoMethod> websocket_demo_methods();

}  // namespace callwire::demo
