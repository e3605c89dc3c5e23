#include "query/parser/source_text.h"

namespace cosmos::query::parser_internal {
namespace {

// Decodes one UTF-8 sequence at `pos`; returns its length, or 0 when it is malformed (bad lead
// or continuation byte, truncated, overlong, a surrogate or above U+10FFFF).
size_t DecodeOne(std::string_view text, size_t pos, char32_t* out) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  size_t length;
  char32_t value;
  char32_t minimum;
  if (lead < 0x80) {
    *out = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, value = lead & 0x1F, minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, value = lead & 0x0F, minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, value = lead & 0x07, minimum = 0x10000;
  } else {
    return 0;
  }
  if (pos + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 0;
    value = (value << 6) | (byte(pos + i) & 0x3F);
  }
  if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  *out = value;
  return length;
}

}  // namespace

std::optional<SourceText> SourceText::Decode(std::string_view utf8, int* error_offset) {
  SourceText source;
  source.utf8_ = utf8;
  source.code_points_.reserve(utf8.size());
  for (unsigned char c : utf8) {
    if (c >= 0x80) {
      source.ascii_ = false;
      break;
    }
  }
  if (source.ascii_) {
    source.code_points_.assign(utf8.begin(), utf8.end());
    return source;
  }
  source.byte_offsets_.reserve(utf8.size() + 1);
  source.utf16_offsets_.reserve(utf8.size() + 1);
  uint32_t utf16 = 0;
  size_t pos = 0;
  while (pos < utf8.size()) {
    char32_t code_point;
    size_t length = DecodeOne(utf8, pos, &code_point);
    if (length == 0) {
      *error_offset = static_cast<int>(utf16);
      return std::nullopt;
    }
    source.code_points_.push_back(code_point);
    source.byte_offsets_.push_back(static_cast<uint32_t>(pos));
    source.utf16_offsets_.push_back(utf16);
    pos += length;
    utf16 += code_point >= 0x10000 ? 2 : 1;  // a surrogate pair in UTF-16
  }
  source.byte_offsets_.push_back(static_cast<uint32_t>(pos));
  source.utf16_offsets_.push_back(utf16);
  return source;
}

}  // namespace cosmos::query::parser_internal
