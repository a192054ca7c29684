// Hash flooding: a peer names a struct's members, so it must not be able to choose names that
// pile up in one slot of the member index (quadratic work, a stalled event loop).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "callwire/xml.hpp"
#include "value/value_build.hpp"

namespace callwire {
namespace {

// The unkeyed FNV-1a slot hash the index used before: anyone could compute it.
uint64_t old_fnv_hash(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

// `count` names that all land in one slot of a `slots`-slot index under old_fnv_hash.
std::vector<std::string> colliding_names(size_t count, uint64_t slots) {
  std::vector<std::string> names;
  for (uint64_t i = 0; names.size() < count; ++i) {
    std::string name = "m" + std::to_string(i);
    if ((old_fnv_hash(name) & (slots - 1)) == 0) names.push_back(std::move(name));
  }
  return names;
}

TEST(StructIndex, NamesChosenToCollideCostWhatRandomNamesCost) {
  constexpr size_t kMembers = 2000;  // an index of 4096 slots
  std::vector<std::string> names = colliding_names(kMembers, 4096);
  std::string xml = "<methodCall><methodName>m</methodName><params><param><value><struct>";
  for (const std::string& n : names)
    xml += "<member><name>" + n + "</name><value><int>1</int></value></member>";
  xml += "</struct></value></param></params></methodCall>";

  xml::Reader reader;
  auto call = reader.read_call(xml);
  ASSERT_TRUE(call) << call.error().message;
  const Value& s = call->params[0];
  ASSERT_EQ(s.size(), kMembers);
  // Linear probing at a load under one half averages about 1.5 probes a member; all in one
  // slot would be kMembers / 2 (1,000) a member.
  uint64_t probes = detail::struct_index_probes(s);
  EXPECT_GT(probes, 0u);
  EXPECT_LT(probes, 4 * kMembers);
  for (const std::string& n : names) ASSERT_NE(s.find(n), nullptr) << n;
  EXPECT_EQ(s.find("m-absent"), nullptr);

  // Built member by member, and copied: the same bound.
  Value built = Value::structure({});
  for (const std::string& n : names) built.set(n, Value(1));
  EXPECT_LT(detail::struct_index_probes(built), 4 * kMembers);
  Value copy = built;
  EXPECT_LT(detail::struct_index_probes(copy), 4 * kMembers);
}

}  // namespace
}  // namespace callwire
