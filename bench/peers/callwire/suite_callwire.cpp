// rpclib's suite with callwire: typed bind on the server, call<R> on the client, one client
// (its connections kept alive) for every call. Default options apart from the size limits,
// which the 16 MiB blob (22.4 MB of base64) passes. The structs convert through Convert
// specialisations built on member_as, as docs/typed-api.md shows for a user type, with the
// read fast path (read_struct) that decodes call<R>'s result straight into the structs.
//
// Two peers: "callwire" with the defaults (no gzip on either side), and "callwire-gzip", with
// gzip turned on at both ends (the server gzips answers from 4 KiB, the client asks for it),
// to show what opting in costs on loopback.
#include <callwire/client.hpp>
#include <callwire/server.hpp>

#include <memory>

#include "../common/suite.hpp"
#include "must.hpp"

using peers::Address;
using peers::Date;
using peers::School;
using peers::Student;
using peers::Subject;

namespace callwire {

// A Result<T> from member_as, or return its error from the enclosing from_value.
#define PEERS_MEMBER(var, type, value, name) \
  auto var = member_as<type>(value, name);   \
  if (!var) return var.error()

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
    if (!v.is_struct()) return type_error(type_name, v);
    PEERS_MEMBER(year, int32_t, v, "year");
    PEERS_MEMBER(month, int8_t, v, "month");
    PEERS_MEMBER(day, int8_t, v, "day");
    return Date{*year, static_cast<char>(*month), static_cast<char>(*day)};
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

template <>
struct Convert<Address> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const Address& a) {
    return Value::structure({{"city", a.city},
                             {"zipcode", a.zipcode},
                             {"street", a.street},
                             {"number", int{a.number}}});
  }
  static void write(ValueWriter& w, const Address& a) {
    w.begin_struct();
    w.member("city");
    w.string(a.city);
    w.member("zipcode");
    w.int32(a.zipcode);
    w.member("street");
    w.string(a.street);
    w.member("number");
    w.int32(a.number);
    w.end_struct();
  }
  static Result<Address> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    PEERS_MEMBER(city, std::string, v, "city");
    PEERS_MEMBER(zipcode, int32_t, v, "zipcode");
    PEERS_MEMBER(street, std::string, v, "street");
    PEERS_MEMBER(number, int16_t, v, "number");
    return Address{std::move(*city), *zipcode, std::move(*street), *number};
  }
  static Status read(ValueReader& r, Address& a) {
    return read_struct(r, field("city", a.city), field("zipcode", a.zipcode),
                       field("street", a.street), field("number", a.number));
  }
};

template <>
struct Convert<School> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const School& s) {
    return Value::structure({{"name", s.name},
                             {"address", Convert<Address>::to_value(s.address)},
                             {"foundation", Convert<Date>::to_value(s.foundation)},
                             {"email_addresses",
                              Convert<std::vector<std::string>>::to_value(s.email_addresses)}});
  }
  static void write(ValueWriter& w, const School& s) {
    w.begin_struct();
    w.member("name");
    w.string(s.name);
    w.member("address");
    write_value(w, s.address);
    w.member("foundation");
    write_value(w, s.foundation);
    w.member("email_addresses");
    write_value(w, s.email_addresses);
    w.end_struct();
  }
  static Result<School> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    PEERS_MEMBER(name, std::string, v, "name");
    PEERS_MEMBER(address, Address, v, "address");
    PEERS_MEMBER(foundation, Date, v, "foundation");
    PEERS_MEMBER(emails, std::vector<std::string>, v, "email_addresses");
    return School{std::move(*name), std::move(*address), *foundation, std::move(*emails)};
  }
  static Status read(ValueReader& r, School& s) {
    return read_struct(r, field("name", s.name), field("address", s.address),
                       field("foundation", s.foundation),
                       field("email_addresses", s.email_addresses));
  }
};

template <>
struct Convert<Subject> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const Subject& s) {
    return Value::structure({{"id", s.id}, {"title", s.title}, {"code", s.code}});
  }
  static void write(ValueWriter& w, const Subject& s) {
    w.begin_struct();
    w.member("id");
    w.int32(s.id);
    w.member("title");
    w.string(s.title);
    w.member("code");
    w.string(s.code);
    w.end_struct();
  }
  static Result<Subject> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    PEERS_MEMBER(id, int32_t, v, "id");
    PEERS_MEMBER(title, std::string, v, "title");
    PEERS_MEMBER(code, std::string, v, "code");
    return Subject{*id, std::move(*title), std::move(*code)};
  }
  static Status read(ValueReader& r, Subject& s) {
    return read_struct(r, field("id", s.id), field("title", s.title), field("code", s.code));
  }
};

template <>
struct Convert<Student> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const Student& s) {
    return Value::structure(
        {{"name", s.name},
         {"friends", s.friends},
         {"home_address", Convert<Address>::to_value(s.home_address)},
         {"birth_place", Convert<Address>::to_value(s.birth_place)},
         {"birth", Convert<Date>::to_value(s.birth)},
         {"favorite_subjects", Convert<std::vector<Subject>>::to_value(s.favorite_subjects)},
         {"email_addresses", Convert<std::vector<std::string>>::to_value(s.email_addresses)},
         {"schools", Convert<std::vector<School>>::to_value(s.schools)}});
  }
  static void write(ValueWriter& w, const Student& s) {
    w.begin_struct();
    w.member("name");
    w.string(s.name);
    w.member("friends");
    w.int32(s.friends);
    w.member("home_address");
    write_value(w, s.home_address);
    w.member("birth_place");
    write_value(w, s.birth_place);
    w.member("birth");
    write_value(w, s.birth);
    w.member("favorite_subjects");
    write_value(w, s.favorite_subjects);
    w.member("email_addresses");
    write_value(w, s.email_addresses);
    w.member("schools");
    write_value(w, s.schools);
    w.end_struct();
  }
  static Result<Student> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    PEERS_MEMBER(name, std::string, v, "name");
    PEERS_MEMBER(friends, int32_t, v, "friends");
    PEERS_MEMBER(home, Address, v, "home_address");
    PEERS_MEMBER(birth_place, Address, v, "birth_place");
    PEERS_MEMBER(birth, Date, v, "birth");
    PEERS_MEMBER(subjects, std::vector<Subject>, v, "favorite_subjects");
    PEERS_MEMBER(emails, std::vector<std::string>, v, "email_addresses");
    PEERS_MEMBER(schools, std::vector<School>, v, "schools");
    return Student{std::move(*name),     *friends,           std::move(*home),
                   std::move(*birth_place), *birth,          std::move(*subjects),
                   std::move(*emails),   std::move(*schools)};
  }
  static Status read(ValueReader& r, Student& s) {
    return read_struct(r, field("name", s.name), field("friends", s.friends),
                       field("home_address", s.home_address),
                       field("birth_place", s.birth_place), field("birth", s.birth),
                       field("favorite_subjects", s.favorite_subjects),
                       field("email_addresses", s.email_addresses), field("schools", s.schools));
  }
};

#undef PEERS_MEMBER

}  // namespace callwire

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

template <bool kGzip>
class CallwirePeer {
 public:
  CallwirePeer() : server_(server_options()) {
    peers::must(server_.bind("get_answer", [](int n) { return peers::get_answer_direct(n); }));
    // As the other peers' servers do, the answers are written from the source data itself
    // (a view of the blob, a reference to the students), each copied once: into the reply.
    peers::must(server_.bind("get_blob", [](int64_t size) -> callwire::Result<std::span<const uint8_t>> {
      const auto& source = peers::blob_source();
      if (size < 0 || static_cast<uint64_t>(size) > source.size())
        return callwire::Error(callwire::Errc::InvalidArgument, "too large");
      return std::span<const uint8_t>(source.data(), static_cast<size_t>(size));
    }));
    peers::must(server_.bind("get_structs",
                 []() -> const std::vector<Student>& { return peers::students_source(); }));
    if (auto started = server_.start(); !started) peers::wrong_answer("callwire", started.error().message);
    callwire::ClientOptions options;
    options.max_response_size = peers::kMessageLimit;
    options.reader_limits = raised_limits();
    if (kGzip) options.accept_gzip = true;
    client_ = std::make_unique<callwire::Client>(server_.url(), options);
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
    CallwirePeer<false> defaults;
    CallwirePeer<true> with_gzip;
    peers::register_suite("callwire", defaults);
    peers::register_suite("callwire-gzip", with_gzip);
    if (benchmark::RunSpecifiedBenchmarks() == 0) status = 1;
  }
  benchmark::Shutdown();
  return status;
}
