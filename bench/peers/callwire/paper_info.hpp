// The paper's Info as an XML-RPC struct for callwire's typed API; the photo is base64, empty
// when not asked for.
#pragma once

#include <callwire/convert.hpp>

#include "../common/paper.hpp"

template <>
struct callwire::Convert<peers::Info> {
  static constexpr std::string_view type_name = "struct";
  static Value to_value(const peers::Info& info) {
    return Value::structure({{"id", info.id},
                             {"first_name", info.first_name},
                             {"last_name", info.last_name},
                             {"age", info.age},
                             {"email", info.email},
                             {"phone", info.phone},
                             {"newsletter", info.newsletter},
                             {"latitude", info.latitude},
                             {"longitude", info.longitude},
                             {"photo", Value::bytes(info.photo)}});
  }
  // The fast path the server answers with (the same struct, written without a Value tree: the
  // photo is encoded from the record's own bytes).
  static void write(ValueWriter& w, const peers::Info& info) {
    w.begin_struct();
    w.member("id");
    w.int32(info.id);
    w.member("first_name");
    w.string(info.first_name);
    w.member("last_name");
    w.string(info.last_name);
    w.member("age");
    w.int32(info.age);
    w.member("email");
    w.string(info.email);
    w.member("phone");
    w.string(info.phone);
    w.member("newsletter");
    w.boolean(info.newsletter);
    w.member("latitude");
    w.real(info.latitude);
    w.member("longitude");
    w.real(info.longitude);
    w.member("photo");
    w.bytes(info.photo);
    w.end_struct();
  }
  static Result<peers::Info> from_value(const Value& v) {
    if (!v.is_struct()) return type_error(type_name, v);
    peers::Info info;
    // Each member in turn; the first that is missing or of the wrong type is the error.
    auto id = member_as<int32_t>(v, "id");
    if (!id) return id.error();
    auto first_name = member_as<std::string>(v, "first_name");
    if (!first_name) return first_name.error();
    auto last_name = member_as<std::string>(v, "last_name");
    if (!last_name) return last_name.error();
    auto age = member_as<int32_t>(v, "age");
    if (!age) return age.error();
    auto email = member_as<std::string>(v, "email");
    if (!email) return email.error();
    auto phone = member_as<std::string>(v, "phone");
    if (!phone) return phone.error();
    auto newsletter = member_as<bool>(v, "newsletter");
    if (!newsletter) return newsletter.error();
    auto latitude = member_as<float>(v, "latitude");
    if (!latitude) return latitude.error();
    auto longitude = member_as<float>(v, "longitude");
    if (!longitude) return longitude.error();
    auto photo = member_as<std::vector<uint8_t>>(v, "photo");
    if (!photo) return photo.error();
    return peers::Info{*id,     std::move(*first_name), std::move(*last_name),
                       *age,    std::move(*email),      std::move(*phone),
                       *newsletter, *latitude,          *longitude,
                       std::move(*photo)};
  }
  // The fast path for call<Info>: the photo decoded straight into info.photo.
  static Status read(ValueReader& r, peers::Info& info) {
    return read_struct(r, field("id", info.id), field("first_name", info.first_name),
                       field("last_name", info.last_name), field("age", info.age),
                       field("email", info.email), field("phone", info.phone),
                       field("newsletter", info.newsletter), field("latitude", info.latitude),
                       field("longitude", info.longitude), field("photo", info.photo));
  }
};
