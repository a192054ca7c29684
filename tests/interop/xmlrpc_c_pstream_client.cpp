// xmlrpc-c's own C++ packet-stream client (clientXmlTransport_pstream over a socket we connect,
// driven by client_xml + rpc) against a pstream server: the peer test_pstream.py points at
// `callwire serve --pstream`.
//
// Usage: xmlrpc_c_pstream_client HOST PORT
//        xmlrpc_c_pstream_client --unix PATH
//
// Every step runs on ONE connection, in order, and prints one line (test_pstream.py checks them):
//
//   add 8                          sample.add(5, 3)
//   easyStruct 6                   validator1.easyStructTest({moe: 1, larry: 2, curly: 3})
//   echoStruct identical           validator1.echoStructTest(a struct nesting structs, arrays,
//                                  i8, nil, double, boolean, base64, dateTime): the same value back
//   fault CODE STRING              no.such.method: the fault's code and string
//   echoString identical N bytes   echo(a string of every class of character XML allows that
//                                  xmlrpc-c sends: no 4-byte UTF-8, see xml_legal_text)
//   echoBase64 identical N bytes M ESC
//                                  echo(4 MiB of base64 whose bytes hold M 0x1B bytes and the
//                                  pstream control words)
//   add 8                          sample.add(5, 3) again: the connection still serves
//
// No step sends a 0x1B byte inside XML: it is no XML character, and xmlrpc-c 1.33 (Debian 12's)
// writes it into a packet unescaped, breaking the framing (fixed upstream in 1.39.03, "Properly
// escape ESC character in a packet"); test_pstream.py sends those bytes itself.
//
// Exits 0 when every answer is what it should be; 1 with the reason on stderr otherwise (a
// mismatch, an exception). xmlrpc-c's pstream client waits for an answer without a deadline, so
// an alarm bounds the whole run (and the test runs it under a timeout too).
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xmlrpc-c/base.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client.hpp>
#include <xmlrpc-c/client_transport.hpp>

namespace {

constexpr unsigned kAlarmSeconds = 60;
constexpr size_t kBase64Bytes = 4 << 20;

int connect_tcp(const char* host, const char* port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host, port, &hints, &found); rc != 0)
    throw std::runtime_error(std::string("getaddrinfo: ") + gai_strerror(rc));
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error(std::string("connect: ") + std::strerror(errno));
  return fd;
}

int connect_unix(const char* path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (std::strlen(path) >= sizeof addr.sun_path) throw std::runtime_error("socket path too long");
  std::strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error(std::string("connect: ") + std::strerror(errno));
  return fd;
}

// Whether two values are equal, type and content, all the way down.
bool same(const xmlrpc_c::value& a, const xmlrpc_c::value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case xmlrpc_c::value::TYPE_INT:
      return xmlrpc_c::value_int(a).cvalue() == xmlrpc_c::value_int(b).cvalue();
    case xmlrpc_c::value::TYPE_I8:
      return xmlrpc_c::value_i8(a).cvalue() == xmlrpc_c::value_i8(b).cvalue();
    case xmlrpc_c::value::TYPE_BOOLEAN:
      return xmlrpc_c::value_boolean(a).cvalue() == xmlrpc_c::value_boolean(b).cvalue();
    case xmlrpc_c::value::TYPE_DOUBLE:
      return xmlrpc_c::value_double(a).cvalue() == xmlrpc_c::value_double(b).cvalue();
    case xmlrpc_c::value::TYPE_STRING:
      return xmlrpc_c::value_string(a).cvalue() == xmlrpc_c::value_string(b).cvalue();
    case xmlrpc_c::value::TYPE_DATETIME:
      return xmlrpc_c::value_datetime(a).iso8601Value() ==
             xmlrpc_c::value_datetime(b).iso8601Value();
    case xmlrpc_c::value::TYPE_BYTESTRING:
      return xmlrpc_c::value_bytestring(a).vectorUcharValue() ==
             xmlrpc_c::value_bytestring(b).vectorUcharValue();
    case xmlrpc_c::value::TYPE_NIL:
      return true;
    case xmlrpc_c::value::TYPE_ARRAY: {
      std::vector<xmlrpc_c::value> x = xmlrpc_c::value_array(a).vectorValueValue();
      std::vector<xmlrpc_c::value> y = xmlrpc_c::value_array(b).vectorValueValue();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same(x[i], y[i])) return false;
      return true;
    }
    case xmlrpc_c::value::TYPE_STRUCT: {
      std::map<std::string, xmlrpc_c::value> x = xmlrpc_c::value_struct(a);
      std::map<std::string, xmlrpc_c::value> y = xmlrpc_c::value_struct(b);
      if (x.size() != y.size()) return false;
      for (const auto& [name, value] : x) {
        auto it = y.find(name);
        if (it == y.end() || !same(value, it->second)) return false;
      }
      return true;
    }
    default:
      throw std::runtime_error("a type this program does not compare");
  }
}

class Session {
 public:
  explicit Session(int fd)
      : transport_(xmlrpc_c::clientXmlTransport_pstream::constrOpt().fd(fd)),
        client_(&transport_) {}

  // Calls `method`; throws on a transport failure. The rpc tells success or fault.
  xmlrpc_c::rpcPtr call(const std::string& method, const xmlrpc_c::paramList& params) {
    xmlrpc_c::rpcPtr rpc(method, params);
    xmlrpc_c::carriageParm_pstream carriage;
    rpc->call(&client_, &carriage);
    return rpc;
  }

  xmlrpc_c::value result(const std::string& method, const xmlrpc_c::paramList& params) {
    xmlrpc_c::rpcPtr rpc = call(method, params);
    if (!rpc->isSuccessful()) {
      xmlrpc_c::fault f = rpc->getFault();
      throw std::runtime_error(method + ": unexpected fault " + std::to_string(f.getCode()) + " " +
                               f.getDescription());
    }
    return rpc->getResult();
  }

 private:
  xmlrpc_c::clientXmlTransport_pstream transport_;
  xmlrpc_c::client_xml client_;
};

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("mismatch: " + what);
}

// echo's answer is its parameters as an array: the one parameter, back.
xmlrpc_c::value echoed(Session& session, const xmlrpc_c::value& sent) {
  xmlrpc_c::paramList params;
  params.add(sent);
  std::vector<xmlrpc_c::value> got =
      xmlrpc_c::value_array(session.result("echo", params)).vectorValueValue();
  expect(got.size() == 1, "echo answered " + std::to_string(got.size()) + " items, not 1");
  return got[0];
}

void add(Session& session) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(5));
  params.add(xmlrpc_c::value_int(3));
  int sum = xmlrpc_c::value_int(session.result("sample.add", params));
  std::printf("add %d\n", sum);
  expect(sum == 8, "sample.add(5, 3) = " + std::to_string(sum));
}

void easy_struct(Session& session) {
  std::map<std::string, xmlrpc_c::value> stooges{{"moe", xmlrpc_c::value_int(1)},
                                                 {"larry", xmlrpc_c::value_int(2)},
                                                 {"curly", xmlrpc_c::value_int(3)}};
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_struct(stooges));
  int sum = xmlrpc_c::value_int(session.result("validator1.easyStructTest", params));
  std::printf("easyStruct %d\n", sum);
  expect(sum == 6, "easyStructTest = " + std::to_string(sum));
}

void echo_struct(Session& session) {
  std::map<std::string, xmlrpc_c::value> deepest{
      {"i8", xmlrpc_c::value_i8(-(int64_t(1) << 40))},
      {"nil", xmlrpc_c::value_nil()},
      {"when", xmlrpc_c::value_datetime("20260102T03:04:05")},
      {"bytes", xmlrpc_c::value_bytestring({0x00, 0x1b, 0xff})}};
  std::map<std::string, xmlrpc_c::value> inner{
      {"list", xmlrpc_c::value_array({xmlrpc_c::value_int(1), xmlrpc_c::value_string("two"),
                                      xmlrpc_c::value_double(2.5), xmlrpc_c::value_boolean(true),
                                      xmlrpc_c::value_struct(deepest)})},
      {"deeper", xmlrpc_c::value_struct(deepest)},
      {"empty", xmlrpc_c::value_struct(std::map<std::string, xmlrpc_c::value>{})}};
  xmlrpc_c::value sent = xmlrpc_c::value_struct(
      {{"name", xmlrpc_c::value_string("nested")}, {"inner", xmlrpc_c::value_struct(inner)}});
  xmlrpc_c::paramList params;
  params.add(sent);
  bool ok = same(session.result("validator1.echoStructTest", params), sent);
  std::printf("echoStruct %s\n", ok ? "identical" : "DIFFERENT");
  expect(ok, "echoStructTest's answer differs from the struct sent");
}

void fault(Session& session) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(1));
  xmlrpc_c::rpcPtr rpc = session.call("no.such.method", params);
  expect(!rpc->isSuccessful(), "no.such.method succeeded");
  xmlrpc_c::fault f = rpc->getFault();
  std::printf("fault %d %s\n", int(f.getCode()), f.getDescription().c_str());
}

// Every class of character XML 1.0 allows in text that xmlrpc-c will send: TAB, LF, CR, printable
// ASCII (with the five that markup escapes), and UTF-8 of 2 and 3 bytes up to the edges (U+D7FF,
// U+E000, U+FFFD). Not 4-byte UTF-8 (U+10000 and up): xmlrpc-c refuses to send it ("UTF-8 string
// contains a character not in the Basic Multilingual Plane"), so test_pstream.py sends that in raw
// bytes. 0x1B, like every other C0 control but TAB, LF and CR, is no XML character.
std::string xml_legal_text() {
  std::string s = "tab\t lf\n cr\r crlf\r\n ";
  for (int c = 0x20; c < 0x7f; ++c) s += char(c);
  s += " <&>'\" ]]> &amp; ";
  s += "\xc2\x80 \xc3\xa9 \xdf\xbf ";              // U+0080, é, U+07FF
  s += "\xe0\xa0\x80 \xe2\x82\xac \xed\x9f\xbf ";  // U+0800, €, U+D7FF
  s += "\xee\x80\x80 \xef\xbf\xbd";                // U+E000, U+FFFD
  return s;
}

// `text` with every line end (CRLF, CR) made LF: how xmlrpc-c's value_string::cvalue() gives a
// string it received.
std::string lf_line_ends(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
    } else {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    }
  }
  return out;
}

void echo_string(Session& session) {
  std::string text = xml_legal_text();
  // nlCode_lf: CR is a character of the string, sent as &#x0d; (by default xmlrpc-c takes CR and
  // CRLF for line ends and sends LF). xmlrpc-c's accessors give no string as received: cvalue()
  // makes every CR and CRLF an LF (crlfValue() makes them CRLF), so a CR the server kept (it
  // answers &#13;) reads as LF, and one it lost would read as nothing.
  xmlrpc_c::value_string value(text, xmlrpc_c::value_string::nlCode_lf);
  std::string got = xmlrpc_c::value_string(echoed(session, value)).cvalue();
  std::string sent = lf_line_ends(text);
  bool ok = got == sent;
  std::printf("echoString %s %zu bytes\n", ok ? "identical" : "DIFFERENT", sent.size());
  if (!ok) {
    size_t at = 0;
    while (at < sent.size() && at < got.size() && sent[at] == got[at]) ++at;
    std::fprintf(stderr, "first difference at byte %zu (sent %zu bytes, got %zu)\n", at,
                 sent.size(), got.size());
  }
  expect(ok, "echo of the XML-legal string");
}

// 4 MiB whose bytes hold the pstream control words and a 0x1B every few bytes; base64 carries
// them as ASCII, so the XML stays legal whatever the bytes are.
void echo_base64(Session& session) {
  static const char kWords[] =
      "\x1bPKT\x1b"
      "END\x1b"
      "ESC\x1bNOP\x1b\x1b";
  std::vector<unsigned char> sent(kBase64Bytes);
  size_t esc = 0;
  for (size_t i = 0; i < sent.size(); ++i) {
    size_t k = i % 64;
    unsigned char b = k < sizeof kWords - 1 ? kWords[k]
                      : k % 3 == 0          ? 0x1b
                                            : static_cast<unsigned char>(i * 131 + i / 64);
    sent[i] = b;
    esc += b == 0x1b;
  }
  std::vector<unsigned char> got =
      xmlrpc_c::value_bytestring(echoed(session, xmlrpc_c::value_bytestring(sent)))
          .vectorUcharValue();
  bool ok = got == sent;
  std::printf("echoBase64 %s %zu bytes %zu ESC\n", ok ? "identical" : "DIFFERENT", sent.size(),
              esc);
  expect(ok, "echo of 4 MiB of base64 (got " + std::to_string(got.size()) + " bytes)");
}

}  // namespace

int main(int argc, char** argv) {
  bool unix_socket = argc == 3 && std::strcmp(argv[1], "--unix") == 0;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s HOST PORT | --unix PATH\n", argv[0]);
    return 2;
  }
  alarm(kAlarmSeconds);
  // xmlrpc-c refuses XML over 512 KiB by default (a process-wide limit); the 4 MiB echo answer
  // is about 5.7 MB of XML.
  xmlrpc_limit_set(XMLRPC_XML_SIZE_LIMIT_ID, 64 << 20);
  try {
    int fd = unix_socket ? connect_unix(argv[2]) : connect_tcp(argv[1], argv[2]);
    {
      Session session(fd);  // one connection for every step
      add(session);
      easy_struct(session);
      echo_struct(session);
      fault(session);
      echo_string(session);
      echo_base64(session);
      add(session);
    }
    close(fd);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "xmlrpc_c_pstream_client: %s\n", e.what());
    return 1;
  }
  return 0;
}
