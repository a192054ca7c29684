// callwire: method parameters written on the command line, in the syntax of xmlrpc-c's `xmlrpc`
// program, so that `callwire call URL sample.add i/3 i/5` means what `xmlrpc URL sample.add i/3
// i/5` means.
//
// The syntax, one command-line argument per parameter:
//
//   i/N        int: decimal, optional sign, leading zeros allowed, must fit in 32 bits
//   I/N        i8: the same in 64 bits
//   s/TEXT     string, possibly empty
//   h/HEX      base64 (bytes): an even number of hex digits, either case; `h/` is no bytes
//   b/B        boolean: t, true, 1 / f, false, 0, in any case
//   d/N        double: [sign] digits [. digits] [e [sign] digits]; no infinity, NaN or hex
//   n/         nil; nothing may follow
//   t/TIME     dateTime.iso8601 in any form DateTime::parse reads (19980717T14:08:55, ...)
//   array/(v,v,...)      array; `array/()` is the empty array
//   struct/{k:v,k:v,...} struct; `struct/{}` is the empty struct; a repeated key keeps its
//                        first position and its last value
//   anything else        a string, as it is ("shortcut syntax")
//
// Type prefixes are case-sensitive (`S/x` is the string "S/x"). Inside `array/(...)` and
// `struct/{...}` the six characters `, : ( ) { }` delimit, and a backslash makes the character
// after it literal (`\,` `\)` `\\` and so on, for any character). At the top level an argument
// that is not an array or a struct is taken as it is, backslashes included.
//
// Differences from xmlrpc-c, all deliberate (checked against its source, tools/xmlrpc/xmlrpc.c,
// and against Debian's xmlrpc 1.33 program):
// - Empty containers: xmlrpc-c cannot write an empty array or struct (`array/()` is an error
//   there, since an element may not be empty); here `array/()` and `struct/{}` are empty.
// - Top-level scalars are taken verbatim (as Debian's xmlrpc 1.33 does: `s/a\,b` is "a\,b" and
//   `s/a,b` is "a,b"). xmlrpc-c's development branch runs even top-level arguments through the
//   nested tokenizer, so there `s/a,b` is an error and `s/a\,b` is "a,b".
// - White space next to a delimiter inside a container is an error, unless escaped (`\ `).
//   xmlrpc-c keeps it as part of the value, so `array/(i/1, i/2)` silently holds the string
//   " i/2" there (its own manual shows `array/(d/3.5, d/2.0)`, which hits this trap).
// - Numbers are strict: no surrounding white space (xmlrpc-c's strtol/strtod skip leading
//   white space), no hex, infinity or NaN in `d/` (xmlrpc-c 1.33 crashes on `d/inf`), no
//   `0x` or spaces in `h/` (sscanf accepts them there). A `d/` that overflows a double is an
//   error rather than infinity.
// - `b/` takes any case and also 1 and 0 (xmlrpc-c: exactly t, f, true, false).
// - `t/` (dateTime) is ours; xmlrpc-c's program has no way to write a dateTime.
// - Containers nest at most kMaxNesting deep.
// Everything else that xmlrpc-c accepts means the same here.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/error.hpp"
#include "callwire/value.hpp"

// Every function here is thread-safe (no shared state) and borrows its arguments for the call.
namespace callwire::call_params {

/// How deep arrays and structs may nest in one parameter (`array/(array/(i/1))` is 2 deep).
inline constexpr size_t kMaxNesting = 64;

/// Reads one parameter. Never throws for bad input: Errc::InvalidArgument with a message that
/// starts with the parameter as written, then the offending part in quotes when it is a nested
/// value, then what is wrong: "i/12x: not an integer",
/// "array/(i/1,i/x): 'i/x': not an integer", "array/(i/1: missing ')'".
/// Throws std::bad_alloc only.
Result<Value> parse_param(std::string_view text);

/// Reads each argument with parse_param, in order. On the first bad one, its error with
/// "parameter N: " (counting from 1) in front of the message.
Result<std::vector<Value>> parse_params(std::span<const std::string> args);

/// The note `callwire call` prints when a bare word that reads as a number (`5`, `-2.5`) is
/// sent as a string, as xmlrpc-c's program sends it too: about the first such argument, with
/// the prefix that sends the number ("parameter 1, 5, is sent as the string "5" (write i/5 for
/// an int, ...)"). Empty when there is none.
std::string number_as_string_note(std::span<const std::string> args);

}  // namespace callwire::call_params
