// The paper's Info as an XML-RPC struct for callwire's typed API, declared in one line (the
// server writes it straight into the answer, call<Info> reads it straight out); the photo is
// base64, empty when not asked for.
#pragma once

#include <callwire/struct.hpp>

#include "../common/paper.hpp"

namespace peers {
CALLWIRE_STRUCT(Info, id, first_name, last_name, age, email, phone, newsletter, latitude, longitude,
                photo);
}  // namespace peers
