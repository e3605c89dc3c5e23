// Text encodings shared across the code base: base64, hex, percent-decoding, UTF-8 encoding.
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

// Bytes as lowercase hex digits, two per byte.
std::string HexEncode(std::string_view bytes);
// Returns nullopt for text that is not an even number of hex digits (either case).
std::optional<std::string> HexDecode(std::string_view text);

// Decodes %XX escapes (and nothing else: '+' stays '+', as in URL paths).
// Returns nullopt for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view text);
// Percent-encodes every byte but the unreserved ones (letters, digits, '-', '_', '.', '~'), as
// JavaScript's encodeURIComponent does, and those of `also_safe`.
std::string PercentEncode(std::string_view text, std::string_view also_safe = {});

// "a=1&b=2" split at each `separator` into its names and values (views into `text`); an entry
// without '=' has no value (has_value false). A value may itself hold '='.
struct NameValue {
  std::string_view name;
  std::string_view value;
  bool has_value = false;
};
std::vector<NameValue> SplitNameValues(std::string_view text, char separator);

// Appends the UTF-8 encoding of one code point (at most U+10FFFF).
void AppendUtf8(std::string& out, char32_t code_point);

std::string ToLowerAscii(std::string_view text);
bool EqualsIgnoreCaseAscii(std::string_view a, std::string_view b);

}  // namespace cosmos
