// The paper's benchmark (issue 9, experiment 2; "Some aspects of using RPC", Király, Székely,
// Király, Balla): Database.Request(id, photo) -> Info, the ten fields of its proto, with an
// optional 1 MB photo. Servers hold kRecords records; a client process makes CALLS calls and
// reports their time. bench/peers/python/paper_data.py makes the same records.
//
// C++14, like data.hpp: libjsonrpccpp's headers have dynamic exception specifications, which
// C++17 removed, so its peer is compiled as C++14.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "data.hpp"

namespace peers {

constexpr int kRecords = 100;
constexpr size_t kPhotoSize = 1000000;  // "1MB of binary data"

struct Info {
  int32_t id = 0;
  std::string first_name;
  std::string last_name;
  int32_t age = 0;
  std::string email;
  std::string phone;
  bool newsletter = false;
  float latitude = 0;
  float longitude = 0;
  std::vector<uint8_t> photo;  // empty unless asked for
};

inline const std::vector<uint8_t>& paper_photo() {
  static const std::vector<uint8_t> photo = random_bytes(kPhotoSize, 0x50484f544f);
  return photo;
}

// Record `id` (1..kRecords), with the photo or without.
inline Info make_info(int32_t id, bool with_photo) {
  Info info;
  info.id = id;
  // Appended, not "literal" + std::string: g++ 12 warns falsely (-Wrestrict) on that form.
  std::string number = std::to_string(id);
  info.first_name.append("Sandor").append(number);
  info.last_name.append("Kiraly").append(number);
  info.age = 20 + id % 50;
  info.email.append("user").append(number).append("@example.org");
  info.phone.append("+36-30-").append(std::to_string(1000000 + id * 7919 % 9000000));
  info.newsletter = id % 3 == 0;
  info.latitude = static_cast<float>(47.9 + id / 1000.0);
  info.longitude = static_cast<float>(20.37 + id / 1000.0);
  if (with_photo) info.photo = paper_photo();
  return info;
}

// Empty when `got` is record `id` (with the photo or without), else what differs. Floats
// may have travelled as double or float.
inline std::string info_difference(const Info& got, int32_t id, bool with_photo) {
  Info want = make_info(id, with_photo);
  if (got.id != want.id) return "id " + std::to_string(got.id);
  if (got.first_name != want.first_name) return "first_name " + got.first_name;
  if (got.last_name != want.last_name) return "last_name " + got.last_name;
  if (got.age != want.age) return "age";
  if (got.email != want.email) return "email " + got.email;
  if (got.phone != want.phone) return "phone " + got.phone;
  if (got.newsletter != want.newsletter) return "newsletter";
  if (std::fabs(got.latitude - want.latitude) > 1e-4) return "latitude";
  if (std::fabs(got.longitude - want.longitude) > 1e-4) return "longitude";
  if (got.photo != want.photo) return "photo of " + std::to_string(got.photo.size()) + " bytes";
  return {};
}

inline double process_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The whole main() of a paper client: `paper_PEER_client PORT CALLS PHOTO(0|1)`.
// connect(port) makes the peer's client (a stub, a channel, a connection) and returns a
// callable request(id, photo) -> Info; both are timed, as in the paper's client program
// (not the process start, which bench/peers_run.py measures apart). The last answer is
// checked after the clock stops; a wrong one exits 1. Prints one JSON line:
// {"calls": N, "wall_s": ..., "cpu_s": ...}, the client process's wall and CPU time.
template <class Connect>
int run_paper_client(int argc, char** argv, const char* peer, Connect connect) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PORT CALLS PHOTO(0|1)\n", argv[0]);
    return 2;
  }
  int port = std::atoi(argv[1]);
  int calls = std::atoi(argv[2]);
  bool photo = std::atoi(argv[3]) != 0;
  paper_photo();  // made before the clock starts: it is only for the check

  auto start = std::chrono::steady_clock::now();
  double cpu_start = process_cpu_now();
  auto request = connect(port);
  Info last;
  int last_id = 0;
  for (int i = 0; i < calls; ++i) {
    last_id = 1 + i % kRecords;
    last = request(last_id, photo);
  }
  double cpu = process_cpu_now() - cpu_start;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::string diff = info_difference(last, last_id, photo);
  if (!diff.empty()) {
    std::fprintf(stderr, "%s: WRONG ANSWER for id %d: %s\n", peer, last_id, diff.c_str());
    return 1;
  }
  std::printf("{\"calls\": %d, \"wall_s\": %.9f, \"cpu_s\": %.9f}\n", calls, wall, cpu);
  return 0;
}

// A server's announcement, read by bench/peers_run.py.
inline void announce_port(unsigned port) {
  std::printf("listening on %u\n", port);
  std::fflush(stdout);
}

}  // namespace peers
