// The JSON library used across the code base (nlohmann/json), under one short name.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cosmos {
// ordered_json keeps properties in the order the client sent them, as the service does.
using Json = nlohmann::ordered_json;

// The value at `steps` (property names) of `document`, or null when a step is missing or not
// under an object.
inline const Json* ValueAtSteps(const Json& document, const std::vector<std::string>& steps) {
  const Json* at = &document;
  for (const std::string& step : steps) {
    if (!at->is_object()) return nullptr;
    auto next = at->find(step);
    if (next == at->end()) return nullptr;
    at = &*next;
  }
  return at;
}
}  // namespace cosmos
