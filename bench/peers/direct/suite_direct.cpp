// The floor of rpclib's suite: the same functions called directly. get_blob and get_structs
// return copies, as an RPC's answer would be, and put_blob copies its bytes, as a server
// receives them: one copy is the least any peer does.
#include "../common/suite.hpp"

namespace {

struct DirectPeer {
  // Kept out of line, so the call is a call and not a constant.
  [[gnu::noinline]] int get_answer(int n) { return peers::get_answer_direct(n); }
  [[gnu::noinline]] std::vector<uint8_t> get_blob(size_t size) {
    const auto& source = peers::blob_source();
    return std::vector<uint8_t>(source.begin(), source.begin() + static_cast<ptrdiff_t>(size));
  }
  [[gnu::noinline]] std::vector<peers::Student> get_structs() { return peers::students_source(); }
  [[gnu::noinline]] int64_t put_blob(std::span<const uint8_t> bytes) {
    std::vector<uint8_t> received(bytes.begin(), bytes.end());
    return peers::blob_digest(received.data(), received.size());
  }
};

}  // namespace

int main(int argc, char** argv) { return peers::run_suite<DirectPeer>(argc, argv, "direct"); }
