// callwire bench: answering a typed handler's large result through the dispatcher, written
// straight into the answer (Convert<T>::write through the protocol's ResultWriter) against
// built as a Value first (Convert<T>::to_value, then the protocol's writer: the path every
// JSON-RPC result took before json::ResultWriter, and still the path of an untyped handler).
//
// Two results, from the codec benches' data (codec_common.hpp): (b) 1000 structs of five
// members (a string array among them), and a 1 MiB blob (base64 in the answer). The handler
// returns data it keeps (a const reference), so what is measured is answering, not building
// the data. Each runs through RequestDispatcher::dispatch in JSON-RPC and in XML-RPC, into a
// reused Buffer; "allocs" is the heap allocations per call (alloc_count.c), bytes/s counts
// the answer's bytes. Both paths' answers are checked equal byte for byte before timing.
#include <string>
#include <string_view>
#include <vector>

#include "callwire/buffer.hpp"
#include "callwire/convert.hpp"
#include "callwire/dispatch.hpp"
#include "callwire/registry.hpp"
#include "codec_common.hpp"

using codec_bench::Person;

template <>
struct callwire::Convert<Person> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const Person& p) {
    const auto& t = p.tags;
    return Value::structure({
        {"id", p.id},
        {"name", p.name},
        {"email", p.email},
        {"score", p.score},
        {"tags", Value::array({t[0], t[1], t[2], t[3], t[4]})},
    });
  }
  static void write(ValueWriter& w, const Person& p) {
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

namespace {

using namespace codec_bench;  // NOLINT: the shared data and timing loop
using callwire::Buffer;
using callwire::CallContext;
using callwire::Convert;
using callwire::Params;

const std::vector<Person>& people() {
  static const std::vector<Person> kPeople = make_people(1000);
  return kPeople;
}

const std::vector<uint8_t>& blob() {
  static const std::vector<uint8_t> kBlob = make_blob(size_t{1} << 20);
  return kBlob;
}

// "<name>.direct": bound, its result written straight into the answer; "<name>.value": the
// same result returned as a Value.
template <class T>
void add_both(callwire::Registry& registry, const std::string& name, const T& (*data)()) {
  check(bool(registry.bind(name + ".direct", [data]() -> const T& { return data(); })), name);
  check(bool(registry.add(name + ".value",
                          [data](Params, CallContext&) { return Convert<T>::to_value(data()); })),
        name);
}

struct Protocol {
  const char* name;
  const char* content_type;
  std::string (*request)(const std::string& method);
};

const Protocol kProtocols[] = {
    {"json", "application/json",
     [](const std::string& m) { return R"({"jsonrpc":"2.0","method":")" + m + R"(","id":1})"; }},
    {"xml", "text/xml",
     [](const std::string& m) {
       return "<?xml version=\"1.0\"?><methodCall><methodName>" + m + "</methodName></methodCall>";
     }},
};

std::string answer(callwire::RequestDispatcher& d, const Protocol& p, const std::string& method) {
  Buffer out;
  CallContext ctx;
  d.dispatch(p.content_type, p.request(method), out, ctx);
  return std::string(out.view());
}

void dispatch(benchmark::State& state, callwire::RequestDispatcher* d, const Protocol* p,
              std::string method) {
  const std::string request = p->request(method);
  Buffer out;  // reused, as a connection reuses its send buffer
  CallContext ctx;
  size_t bytes = 0;
  timed(state, 0, [&] {
    out.clear();
    d->dispatch(p->content_type, request, out, ctx);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check_alloc_counting();

  callwire::Registry registry;
  add_both(registry, "people", &people);
  add_both(registry, "blob", &blob);
  callwire::RequestDispatcher d(registry);
  for (const Protocol& p : kProtocols) {
    for (const char* name : {"people", "blob"}) {
      std::string direct = answer(d, p, std::string(name) + ".direct");
      check(direct == answer(d, p, std::string(name) + ".value"),
            std::string(p.name) + " " + name + ": the two paths answer differently");
      check(direct.find("rror") == std::string::npos && direct.find("fault") == std::string::npos,
            std::string(p.name) + " " + name + ": " + direct.substr(0, 200));
      benchmark::AddCustomContext(std::string(p.name) + "." + name + ".answer_bytes",
                                  std::to_string(direct.size()));
      for (const char* path : {"direct", "value"}) {
        std::string method = std::string(name) + "." + path;
        benchmark::RegisterBenchmark((std::string(p.name) + "/" + method).c_str(), dispatch, &d, &p,
                                     method)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  benchmark::AddCustomContext("compiler", compiler());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
