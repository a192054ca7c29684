// rpclib's suite with callwire: typed bind on the server, call<R> on the client, one client
// (its connections kept alive) for every call. Default options apart from the size limits,
// which the 16 MiB blob (22.4 MB of base64) passes. The structs are declared with
// CALLWIRE_STRUCT, one line each, as docs/typed-api.md teaches: the server writes them straight
// into the answer and call<R> reads them straight out of it. Date alone has a hand-written
// Convert: its month and day are `char`, which XML-RPC has no type for.
//
// Five peers: "callwire" with the defaults (no gzip on either side); "callwire-gzip", with
// gzip turned on at both ends (the server gzips answers from 4 KiB, the client asks for it),
// to show what opting in costs on loopback; "callwire-copies", the defaults with the
// handlers a newcomer writes first: each returns its answer by value, a fresh
// std::vector<uint8_t> or std::vector<Student> copied from the source on every call, where
// "callwire" returns a view of the blob and a reference to the students; and put_blob's
// handler takes the upload as a std::vector<uint8_t>, where "callwire" takes a std::span. The
// gap between the two is what that copy costs. "callwire-json" and "callwire-json-copies" are the
// same two over JSON-RPC (a jsonrpc+http:// URL, the same server and handlers): the blob as base64
// text, the students as JSON objects.
#include <callwire/client.hpp>
#include <callwire/server.hpp>
#include <memory>

#include "../common/suite.hpp"
#include "must.hpp"

using peers::Date;
using peers::Student;

namespace callwire {

template <>
struct Convert<Date> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const Date& d) {
    // XML-RPC has no char: month and day travel as ints.
    return Value::structure({{"year", d.year}, {"month", int{d.month}}, {"day", int{d.day}}});
  }
  static void write(ValueWriter& w, const Date& d) {
    w.begin_struct();
    w.member("year");
    w.int32(d.year);
    w.member("month");
    w.int32(d.month);
    w.member("day");
    w.int32(d.day);
    w.end_struct();
  }
  static Result<Date> from_value(const Value& v) {
    Date d;
    TreeReader reader(v);
    if (Status s = read(reader, d); !s) return s.error();
    return d;
  }
  // The fast path for call<R>: straight out of the answer, no Value tree in between.
  static Status read(ValueReader& r, Date& d) {
    int32_t year = 0;
    int8_t month = 0, day = 0;
    Status s = read_struct(r, field("year", year), field("month", month), field("day", day));
    d = Date{year, static_cast<char>(month), static_cast<char>(day)};
    return s;
  }
};

}  // namespace callwire

// The rest as the tutorial teaches: one line each (callwire/struct.hpp).
namespace peers {
CALLWIRE_STRUCT(Address, city, zipcode, street, number);
CALLWIRE_STRUCT(School, name, address, foundation, email_addresses);
CALLWIRE_STRUCT(Subject, id, title, code);
CALLWIRE_STRUCT(Student, name, friends, home_address, birth_place, birth, favorite_subjects,
                email_addresses, schools);
}  // namespace peers

namespace {

callwire::xml::ReaderLimits raised_limits() {
  callwire::xml::ReaderLimits limits;
  limits.max_document_size = peers::kMessageLimit;
  limits.max_string_size = peers::kMessageLimit;
  return limits;
}

template <class T>
T value_or_die(callwire::Result<T> r, const char* method) {
  if (!r) peers::wrong_answer(method, r.error().message);
  return std::move(*r);
}

enum class Variant { Defaults, Gzip, Copies, Json, JsonCopies };

callwire::Result<std::span<const uint8_t>> blob_view(int64_t size) {
  const auto& source = peers::blob_source();
  if (size < 0 || static_cast<uint64_t>(size) > source.size())
    return callwire::Error(callwire::Errc::InvalidArgument, "too large");
  return std::span<const uint8_t>(source.data(), static_cast<size_t>(size));
}

template <Variant kVariant>
class CallwirePeer {
 public:
  static constexpr bool kGzip = kVariant == Variant::Gzip;
  static constexpr bool kCopies = kVariant == Variant::Copies || kVariant == Variant::JsonCopies;
  static constexpr bool kJson = kVariant == Variant::Json || kVariant == Variant::JsonCopies;

  CallwirePeer() : server_(server_options()) {
    peers::must(server_.bind("get_answer", [](int n) { return peers::get_answer_direct(n); }));
    if constexpr (kCopies) {
      // What a handler that builds its answer looks like: a fresh vector, returned by value.
      peers::must(
          server_.bind("get_blob", [](int64_t size) -> callwire::Result<std::vector<uint8_t>> {
            auto view = blob_view(size);
            if (!view) return view.error();
            return std::vector<uint8_t>(view->begin(), view->end());
          }));
      peers::must(server_.bind("get_structs",
                               []() -> std::vector<Student> { return peers::students_source(); }));
      // An upload taken as the vector a newcomer asks for first.
      peers::must(server_.bind("put_blob", [](std::vector<uint8_t> bytes) {
        return peers::blob_digest(bytes.data(), bytes.size());
      }));
    } else {
      // As the other peers' servers do, the answers are written from the source data itself
      // (a view of the blob, a reference to the students), each copied once: into the reply.
      peers::must(server_.bind("get_blob", blob_view));
      peers::must(server_.bind(
          "get_structs", []() -> const std::vector<Student>& { return peers::students_source(); }));
      // An upload seen where it was decoded.
      peers::must(server_.bind("put_blob", [](std::span<const uint8_t> bytes) {
        return peers::blob_digest(bytes.data(), bytes.size());
      }));
    }
    if (auto started = server_.start(); !started)
      peers::wrong_answer("callwire", started.error().message);
    callwire::ClientOptions options;
    options.max_response_size = peers::kMessageLimit;
    options.reader_limits = raised_limits();
    if (kGzip) options.accept_gzip = true;
    client_ =
        std::make_unique<callwire::Client>((kJson ? "jsonrpc+" : "") + server_.url(), options);
  }
  ~CallwirePeer() {
    client_.reset();
    server_.stop();
    server_.wait();
  }

  int get_answer(int n) { return value_or_die(client_->call<int>("get_answer", n), "get_answer"); }
  std::vector<uint8_t> get_blob(size_t size) {
    return value_or_die(client_->call<std::vector<uint8_t>>("get_blob", int64_t(size)), "get_blob");
  }
  int64_t put_blob(std::span<const uint8_t> bytes) {
    return value_or_die(client_->call<int64_t>("put_blob", bytes), "put_blob");
  }
  std::vector<Student> get_structs() {
    return value_or_die(client_->call<std::vector<Student>>("get_structs"), "get_structs");
  }

 private:
  static callwire::ServerOptions server_options() {
    callwire::ServerOptions options;
    options.listen = {"127.0.0.1:0"};
    options.max_body = peers::kMessageLimit;
    options.reader_limits = raised_limits();
    if (kGzip) options.gzip_min_size = 4096;
    return options;
  }

  callwire::Server server_;
  std::unique_ptr<callwire::Client> client_;
};

}  // namespace

int main(int argc, char** argv) {
  // Both peers in one process, one after the other, so each starts its server only once.
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  peers::blob_source();
  peers::students_source();
  int status = 0;
  {
    CallwirePeer<Variant::Defaults> defaults;
    CallwirePeer<Variant::Gzip> with_gzip;
    CallwirePeer<Variant::Copies> copies;
    CallwirePeer<Variant::Json> json;
    CallwirePeer<Variant::JsonCopies> json_copies;
    peers::register_suite("callwire", defaults);
    peers::register_suite("callwire-gzip", with_gzip);
    peers::register_suite("callwire-copies", copies);
    peers::register_suite("callwire-json", json);
    peers::register_suite("callwire-json-copies", json_copies);
    if (benchmark::RunSpecifiedBenchmarks() == 0) status = 1;
  }
  benchmark::Shutdown();
  return status;
}
