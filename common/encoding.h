// Text encodings shared by the server and the engine: base64 and percent-decoding.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos {

std::string Base64Encode(const std::vector<uint8_t>& bytes);
// Returns nullopt for text that is not canonical padded base64.
std::optional<std::vector<uint8_t>> Base64Decode(std::string_view text);

// Decodes %XX escapes (and nothing else: '+' stays '+', as in URL paths).
// Returns nullopt for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view text);

std::string ToLowerAscii(std::string_view text);
bool EqualsIgnoreCaseAscii(std::string_view a, std::string_view b);

}  // namespace cosmos
