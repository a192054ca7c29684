// The wire floor of rpclib's suite: the same calls over one loopback TCP connection to a
// server thread, with no RPC library. A request is an opcode byte and a 64-bit argument; an
// answer is a 64-bit length and the bytes. get_blob is written straight from the source (the
// one copy is the kernel's); get_structs is the students in a plain length-prefixed binary
// form, encoded on every call and decoded into native structs, as a serializer would.
// put_blob's argument is the length of the bytes that follow it, which the server reads into
// a fresh buffer of its own, as get_blob's client does, and answers their digest in 8 bytes.
// What an RPC library cannot beat on this machine: any call costs at least this.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "../common/suite.hpp"
#include "wire.hpp"

namespace {

using namespace peers;
using raw::read_all;
using raw::write_all;

enum Op : uint8_t { kAnswer = 0, kBlob = 1, kStructs = 2, kUpload = 3 };

#pragma pack(push, 1)
struct Request {
  uint8_t op;
  uint64_t argument;
};
#pragma pack(pop)

// The students, field by field: numbers in host order, strings and lists after a 32-bit count.
struct Encoder {
  std::string out;
  template <class T>
  void number(T value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void text(const std::string& s) {
    number(static_cast<uint32_t>(s.size()));
    out += s;
  }
  void texts(const std::vector<std::string>& list) {
    number(static_cast<uint32_t>(list.size()));
    for (const auto& s : list) text(s);
  }
  void date(const Date& d) {
    number(d.year);
    number(d.month);
    number(d.day);
  }
  void address(const Address& a) {
    text(a.city);
    number(a.zipcode);
    text(a.street);
    number(a.number);
  }
  void student(const Student& s) {
    text(s.name);
    number(s.friends);
    address(s.home_address);
    address(s.birth_place);
    date(s.birth);
    number(static_cast<uint32_t>(s.favorite_subjects.size()));
    for (const auto& subject : s.favorite_subjects) {
      number(subject.id);
      text(subject.title);
      text(subject.code);
    }
    texts(s.email_addresses);
    number(static_cast<uint32_t>(s.schools.size()));
    for (const auto& school : s.schools) {
      text(school.name);
      address(school.address);
      date(school.foundation);
      texts(school.email_addresses);
    }
  }
};

// Trusts its input: both ends are this program.
struct Decoder {
  const char* p;
  template <class T>
  void number(T& value) {
    std::memcpy(&value, p, sizeof value);
    p += sizeof value;
  }
  uint32_t count() {
    uint32_t n = 0;
    number(n);
    return n;
  }
  void text(std::string& s) {
    uint32_t n = count();
    s.assign(p, n);
    p += n;
  }
  void texts(std::vector<std::string>& list) {
    list.resize(count());
    for (auto& s : list) text(s);
  }
  void date(Date& d) {
    number(d.year);
    number(d.month);
    number(d.day);
  }
  void address(Address& a) {
    text(a.city);
    number(a.zipcode);
    text(a.street);
    number(a.number);
  }
  void student(Student& s) {
    text(s.name);
    number(s.friends);
    address(s.home_address);
    address(s.birth_place);
    date(s.birth);
    s.favorite_subjects.resize(count());
    for (auto& subject : s.favorite_subjects) {
      number(subject.id);
      text(subject.title);
      text(subject.code);
    }
    texts(s.email_addresses);
    s.schools.resize(count());
    for (auto& school : s.schools) {
      text(school.name);
      address(school.address);
      date(school.foundation);
      texts(school.email_addresses);
    }
  }
};

// Received bytes (an answer's, an upload's), not zeroed first (a vector would add a memory pass
// the floor must not).
struct Bytes {
  std::unique_ptr<uint8_t[]> bytes;
  size_t length = 0;
  const uint8_t* data() const { return bytes.get(); }
  size_t size() const { return length; }
};

// A head and the bytes after it in one system call, so a small message is one segment and one
// wake-up.
bool write_two(int fd, const void* head, size_t head_size, const void* data, size_t size) {
  iovec parts[2] = {{const_cast<void*>(head), head_size}, {const_cast<void*>(data), size}};
  size_t left = head_size + size;
  while (left > 0) {
    ssize_t n = ::writev(fd, parts, 2);
    if (n <= 0) return false;
    left -= static_cast<size_t>(n);
    for (auto& part : parts) {
      size_t done = std::min(part.iov_len, static_cast<size_t>(n));
      part.iov_base = static_cast<char*>(part.iov_base) + done;
      part.iov_len -= done;
      n -= static_cast<ssize_t>(done);
    }
  }
  return true;
}

bool answer(int fd, const void* data, uint64_t size) {
  return write_two(fd, &size, sizeof size, data, size);
}

void serve(int fd) {
  Request request{};
  while (read_all(fd, &request, sizeof request)) {
    bool ok = false;
    switch (request.op) {
      case kAnswer: {
        int32_t n = get_answer_direct(static_cast<int32_t>(request.argument));
        ok = answer(fd, &n, sizeof n);
        break;
      }
      case kBlob:
        ok = answer(fd, blob_source().data(), request.argument);
        break;
      case kStructs: {
        Encoder e;
        e.number(static_cast<uint32_t>(students_source().size()));
        for (const auto& s : students_source()) e.student(s);
        ok = answer(fd, e.out.data(), e.out.size());
        break;
      }
      case kUpload: {
        Bytes received;
        received.length = request.argument;
        received.bytes.reset(new uint8_t[received.length]);
        if (!read_all(fd, received.bytes.get(), received.length)) break;
        int64_t digest = blob_digest(received.data(), received.size());
        ok = answer(fd, &digest, sizeof digest);
        break;
      }
    }
    if (!ok) break;
  }
  ::close(fd);
}

class RawPeer {
 public:
  RawPeer() {
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      std::perror("raw suite: listen");
      std::exit(1);
    }
    client_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(client_, reinterpret_cast<sockaddr*>(&address), length) != 0) {
      std::perror("raw suite: connect");
      std::exit(1);
    }
    int server = ::accept(listener, nullptr, nullptr);
    ::close(listener);
    raw::set_nodelay(client_);
    raw::set_nodelay(server);
    server_ = std::thread(serve, server);
  }
  ~RawPeer() {
    ::shutdown(client_, SHUT_WR);  // the server sees the end and returns
    server_.join();
    ::close(client_);
  }

  int get_answer(int n) {
    send(kAnswer, static_cast<uint64_t>(n));
#pragma pack(push, 1)
    struct {
      uint64_t size;
      int32_t value;
    } answer{};
#pragma pack(pop)
    read_exactly(&answer, sizeof answer);  // one read: length and value came together
    return answer.value;
  }
  Bytes get_blob(size_t size) {
    Bytes blob;
    blob.length = call(kBlob, size);
    blob.bytes.reset(new uint8_t[blob.length]);
    read_exactly(blob.bytes.get(), blob.length);
    return blob;
  }
  int64_t put_blob(std::span<const uint8_t> bytes) {
    Request request{kUpload, bytes.size()};
    if (!write_two(client_, &request, sizeof request, bytes.data(), bytes.size())) {
      std::perror("raw suite: send");
      std::exit(1);
    }
#pragma pack(push, 1)
    struct {
      uint64_t size;
      int64_t value;
    } answer{};
#pragma pack(pop)
    read_exactly(&answer, sizeof answer);
    return answer.value;
  }
  std::vector<Student> get_structs() {
    std::unique_ptr<char[]> buffer(new char[call(kStructs, 0)]);
    read_exactly(buffer.get(), last_size_);
    Decoder d{buffer.get()};
    std::vector<Student> students(d.count());
    for (auto& s : students) d.student(s);
    return students;
  }

 private:
  void send(Op op, uint64_t argument) {
    Request request{op, argument};
    if (!write_all(client_, &request, sizeof request)) {
      std::perror("raw suite: send");
      std::exit(1);
    }
  }
  // Sends the request and reads the answer's length.
  uint64_t call(Op op, uint64_t argument) {
    send(op, argument);
    read_exactly(&last_size_, sizeof last_size_);
    return last_size_;
  }
  void read_exactly(void* data, size_t size) {
    if (!read_all(client_, data, size)) {
      std::perror("raw suite: read");
      std::exit(1);
    }
  }

  int client_ = -1;
  uint64_t last_size_ = 0;
  std::thread server_;
};

}  // namespace

int main(int argc, char** argv) { return peers::run_suite<RawPeer>(argc, argv, "raw-tcp"); }
