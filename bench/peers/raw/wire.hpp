// The floor of the paper's benchmark: Info in a plain binary form over raw TCP, with no RPC
// library at all. A request is 8 bytes (id, photo as int32, host order: both ends are this
// machine); an answer is a 4-byte length and the fields in a row, strings and the photo each
// after a 4-byte length.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "../common/paper.hpp"

namespace peers::raw {

inline void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

inline bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

inline bool read_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

template <class T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}
inline void put_bytes(std::string& out, const void* data, size_t size) {
  put(out, static_cast<uint32_t>(size));
  out.append(static_cast<const char*>(data), size);
}

// The answer, length first, ready for one write.
inline void encode(std::string& out, const Info& info, const std::vector<uint8_t>* photo) {
  out.clear();
  put(out, uint32_t{0});
  put(out, info.id);
  put(out, info.age);
  put(out, static_cast<uint8_t>(info.newsletter));
  put(out, info.latitude);
  put(out, info.longitude);
  for (const std::string* s : {&info.first_name, &info.last_name, &info.email, &info.phone})
    put_bytes(out, s->data(), s->size());
  if (photo != nullptr)
    put_bytes(out, photo->data(), photo->size());
  else
    put_bytes(out, nullptr, 0);
  uint32_t length = static_cast<uint32_t>(out.size() - 4);
  std::memcpy(&out[0], &length, 4);
}

class Decoder {
 public:
  explicit Decoder(const std::string& in) : p_(in.data()), end_(in.data() + in.size()) {}
  template <class T>
  T get() {
    T value;
    take(&value, sizeof value);
    return value;
  }
  std::string get_string() {
    std::string s(get<uint32_t>(), '\0');
    take(&s[0], s.size());
    return s;
  }
  std::vector<uint8_t> get_bytes() {
    std::vector<uint8_t> b(get<uint32_t>());
    take(b.data(), b.size());
    return b;
  }

 private:
  void take(void* out, size_t size) {
    if (static_cast<size_t>(end_ - p_) < size) throw std::runtime_error("short answer");
    if (size > 0) std::memcpy(out, p_, size);
    p_ += size;
  }
  const char* p_;
  const char* end_;
};

inline Info decode(const std::string& in) {
  Decoder d(in);
  Info info;
  info.id = d.get<int32_t>();
  info.age = d.get<int32_t>();
  info.newsletter = d.get<uint8_t>() != 0;
  info.latitude = d.get<float>();
  info.longitude = d.get<float>();
  info.first_name = d.get_string();
  info.last_name = d.get_string();
  info.email = d.get_string();
  info.phone = d.get_string();
  info.photo = d.get_bytes();
  return info;
}

}  // namespace peers::raw
