// callwire bench: document (b)'s people as C++ structs, converted two ways, for the typed
// benchmarks of both codecs (read: a response's result straight into them, as call<R> reads
// it; write: a bound handler's result written straight into the answer, as the server does).
//
// HandPerson has the hand-written Convert the docs showed before CALLWIRE_STRUCT (read_struct
// for the read, member by member for the write); DeclaredPerson is the same struct declared in
// one line. The pair shows what the one-line form costs against the best hand-written one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/dispatch.hpp"
#include "callwire/registry.hpp"
#include "callwire/struct.hpp"
#include "callwire/value_reader.hpp"
#include "codec_common.hpp"

namespace codec_bench {

struct HandPerson {
  int id = 0;
  std::string name;
  std::string email;
  double score = 0;
  std::vector<std::string> tags;
};

struct DeclaredPerson {
  int id = 0;
  std::string name;
  std::string email;
  double score = 0;
  std::vector<std::string> tags;
};
CALLWIRE_STRUCT(DeclaredPerson, id, name, email, score, tags);

// Only each person's id: a typed read that keeps one member of five, as a client that needs a
// few fields of a large answer declares them. The rest is checked, not kept.
struct PersonId {
  int id = 0;
};
CALLWIRE_STRUCT(PersonId, id);

}  // namespace codec_bench

template <>
struct callwire::Convert<codec_bench::HandPerson> {
  static constexpr std::string_view type_name = "struct";
  static Result<codec_bench::HandPerson> from_value(const Value& v) {
    codec_bench::HandPerson p;
    TreeReader reader(v);
    if (Status s = read(reader, p); !s) return s.error();
    return p;
  }
  static Status read(ValueReader& r, codec_bench::HandPerson& p) {
    return read_struct(r, field("id", p.id), field("name", p.name), field("email", p.email),
                       field("score", p.score), field("tags", p.tags));
  }
  static Value to_value(const codec_bench::HandPerson& p) {
    return Value::structure({{"id", p.id},
                             {"name", p.name},
                             {"email", p.email},
                             {"score", p.score},
                             {"tags", Convert<std::vector<std::string>>::to_value(p.tags)}});
  }
  static void write(ValueWriter& w, const codec_bench::HandPerson& p) {
    w.begin_struct();
    w.member("id");
    w.int32(p.id);
    w.member("name");
    w.string(p.name);
    w.member("email");
    w.string(p.email);
    w.member("score");
    w.real(p.score);
    w.member("tags");
    w.begin_array();
    for (const std::string& tag : p.tags) w.string(tag);
    w.end_array();
    w.end_struct();
  }
};

namespace codec_bench {

// The people of a document (b) result, as T.
template <class T>
std::vector<T> typed_people(const Value& result) {
  auto people = callwire::Convert<std::vector<T>>::from_value(result);
  if (!people) die("typed people: " + people.error().message);
  return std::move(*people);
}

// What a typed read of `result` into Person gives, as a Value: the whole result for the Persons
// that declare every member, only the declared members for PersonId.
template <class Person>
Value expected_people(const Value& result) {
  if constexpr (std::is_same_v<Person, PersonId>)
    return callwire::Convert<std::vector<Person>>::to_value(typed_people<Person>(result));
  else
    return result;
}

// The typed result of a response document (b) or (c): what a typed call's sink reads into.
template <class Person>
struct TypedResult final : callwire::ValueSink {
  bool blob = false;  // else the structs
  std::vector<Person> people;
  std::vector<uint8_t> bytes;
  callwire::Status read(callwire::ValueReader& r) override {
    return blob ? callwire::read_value(r, bytes) : callwire::read_value(r, people);
  }
};

// Which documents the typed benchmarks take: every response is read typed; (b) is written.
template <class Document>
bool has_typed_read(const Document& d) {
  return !d.is_call && d.id != "markup";  // a page of text: nothing typed to read it into
}
template <class Document>
bool has_typed_write(const Document& d) {
  return d.id == "structs";
}

// A server answering "people" with the people as T, written straight into the answer (the
// typed write); its answers are the body a server sends.
template <class T>
class TypedPeopleServer {
 public:
  explicit TypedPeopleServer(const Value& result) : people_(typed_people<T>(result)) {
    check(bool(registry_.bind("people", [this]() -> const std::vector<T>& { return people_; })),
          "bind people");
    dispatcher_.emplace(registry_);
  }
  // The answer to `request` (of type `content_type`) into `out`, cleared first.
  void answer(std::string_view content_type, std::string_view request, callwire::Buffer& out) {
    out.clear();
    callwire::CallContext ctx;
    dispatcher_->dispatch(content_type, request, out, ctx);
  }

 private:
  std::vector<T> people_;
  callwire::Registry registry_;
  std::optional<callwire::RequestDispatcher> dispatcher_;
};

}  // namespace codec_bench
