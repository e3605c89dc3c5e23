// The JSON library used across the code base (nlohmann/json), under one short name.
#pragma once

#include <nlohmann/json.hpp>

namespace cosmos {
// ordered_json keeps properties in the order the client sent them, as the service does.
using Json = nlohmann::ordered_json;
}  // namespace cosmos
