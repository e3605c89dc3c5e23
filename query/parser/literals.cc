#include "query/parser/literals.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace cosmos::query::parser_internal {
namespace {

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

Json HexLiteral(std::string_view digits) {
  uint64_t value = 0;
  double approximate = 0;  // used once the value no longer fits 64 bits
  bool fits = true;
  for (char c : digits) {
    int digit = HexDigitValue(c);
    approximate = approximate * 16 + digit;
    if (value > (std::numeric_limits<uint64_t>::max() >> 4)) fits = false;
    value = (value << 4) | static_cast<uint64_t>(digit);
  }
  if (fits && value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Json(static_cast<int64_t>(value));
  }
  return Json(approximate);
}

double ParseDouble(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc()) return value;
  // Out of range: strtod gives the IEEE answer (inf or a denormal/zero). The token only has
  // digits, '.', 'e' and signs, so the locale's decimal point is the only thing that could
  // differ; from_chars already handled every in-range value.
  return std::strtod(std::string(text).c_str(), nullptr);
}

void AppendUtf8(char32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

char32_t FourHexDigits(std::string_view text) {
  char32_t value = 0;
  for (char c : text.substr(0, 4)) value = (value << 4) | static_cast<char32_t>(HexDigitValue(c));
  return value;
}

bool IsHighSurrogate(char32_t c) { return c >= 0xD800 && c <= 0xDBFF; }
bool IsLowSurrogate(char32_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

}  // namespace

Json NumberLiteral(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return HexLiteral(text.substr(2));
  }
  if (text.find_first_of(".eE") == std::string_view::npos) {
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return Json(value);
  }
  return Json(ParseDouble(text));
}

std::string StringLiteral(std::string_view quoted) {
  std::string_view body = quoted.substr(1, quoted.size() - 2);
  std::string out;
  out.reserve(body.size());
  size_t pos = 0;
  while (pos < body.size()) {
    size_t backslash = body.find('\\', pos);
    if (backslash == std::string_view::npos) {
      out.append(body.substr(pos));
      break;
    }
    out.append(body.substr(pos, backslash - pos));
    char kind = body[backslash + 1];
    pos = backslash + 2;
    switch (kind) {
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        char32_t unit = FourHexDigits(body.substr(pos));
        pos += 4;
        if (IsHighSurrogate(unit) && body.substr(pos, 2) == "\\u") {
          char32_t low = FourHexDigits(body.substr(pos + 2));
          if (IsLowSurrogate(low)) {
            AppendUtf8(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), &out);
            pos += 6;
            break;
          }
        }
        AppendUtf8(IsHighSurrogate(unit) || IsLowSurrogate(unit) ? 0xFFFD : unit, &out);
        break;
      }
      default: out.push_back(kind); break;  // \' \" \\ \/
    }
  }
  return out;
}

}  // namespace cosmos::query::parser_internal
