#include "common/json_parse.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/encoding.h"

namespace cosmos {
namespace {

// Text nested deeper than this is refused: the parser recurses once per level, and so do the
// serializers and evaluators that would get the value.
constexpr int kMaxRecursion = 512;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The length of the well-formed UTF-8 sequence (RFC 3629) starting at `p`, whose first byte is
// 0x80 or above; 0 when it is not well formed.
int Utf8SequenceLength(const unsigned char* p, const unsigned char* end) {
  auto in = [](unsigned char c, unsigned char low, unsigned char high) { return c >= low && c <= high; };
  auto continuation = [&](int index, unsigned char low = 0x80, unsigned char high = 0xBF) {
    return p + index < end && in(p[index], low, high);
  };
  unsigned char lead = p[0];
  if (in(lead, 0xC2, 0xDF)) return continuation(1) ? 2 : 0;
  if (lead == 0xE0) return continuation(1, 0xA0, 0xBF) && continuation(2) ? 3 : 0;
  if (in(lead, 0xE1, 0xEC) || in(lead, 0xEE, 0xEF)) return continuation(1) && continuation(2) ? 3 : 0;
  if (lead == 0xED) return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0;
  if (lead == 0xF0) return continuation(1, 0x90, 0xBF) && continuation(2) && continuation(3) ? 4 : 0;
  if (in(lead, 0xF1, 0xF3)) return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead == 0xF4) return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0;
  return 0;
}

// The bytes a string's text holds as they are: printable ASCII but the quote and the backslash.
// A table, so that the loop over a string's bytes (most of a document) tests one load per byte.
constexpr std::array<bool, 256> kPlainStringByte = [] {
  std::array<bool, 256> plain{};
  for (int byte = 0x20; byte < 0x80; ++byte) plain[byte] = byte != '"' && byte != '\\';
  return plain;
}();

class Parser {
 public:
  explicit Parser(std::string_view text)
      : p_(reinterpret_cast<const unsigned char*>(text.data())), end_(p_ + text.size()) {}

  bool ParseDocument(Json& out) {
    if (end_ - p_ >= 3 && p_[0] == 0xEF && p_[1] == 0xBB && p_[2] == 0xBF) p_ += 3;
    SkipSpace();
    if (!ParseValue(out, 0)) return false;
    SkipSpace();
    return p_ == end_;
  }

 private:
  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool Literal(const char* word, size_t length) {
    if (static_cast<size_t>(end_ - p_) < length || std::memcmp(p_, word, length) != 0) return false;
    p_ += length;
    return true;
  }

  bool ParseValue(Json& out, int depth) {
    if (p_ == end_) return false;
    if ((*p_ == '{' || *p_ == '[') && depth >= kMaxRecursion) return false;
    switch (*p_) {
      case '{':
        return ParseObject(out, depth + 1);
      case '[':
        return ParseArray(out, depth + 1);
      case '"': {
        std::string text;
        if (!ParseString(text)) return false;
        out = std::move(text);
        return true;
      }
      case 't':
        if (!Literal("true", 4)) return false;
        out = true;
        return true;
      case 'f':
        if (!Literal("false", 5)) return false;
        out = false;
        return true;
      case 'n':
        if (!Literal("null", 4)) return false;
        out = nullptr;
        return true;
      default:
        return ParseNumber(out);
    }
  }

  bool ParseObject(Json& out, int depth) {
    ++p_;  // {
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    SkipSpace();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    std::string name;
    for (;;) {
      if (p_ == end_ || *p_ != '"') return false;
      name.clear();
      if (!ParseString(name)) return false;
      SkipSpace();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      SkipSpace();
      Json value;
      if (!ParseValue(value, depth)) return false;
      // ordered_map::emplace leaves `value` alone when the name exists: the later value wins.
      auto [member, inserted] = members.emplace(name, std::move(value));
      if (!inserted) member->second = std::move(value);
      if (Separator next = AfterItem('}'); next != Separator::kComma) return next == Separator::kClose;
    }
  }

  bool ParseArray(Json& out, int depth) {
    ++p_;  // [
    out = Json::array();
    auto& items = out.get_ref<Json::array_t&>();
    SkipSpace();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      items.emplace_back();
      if (!ParseValue(items.back(), depth)) return false;
      if (Separator next = AfterItem(']'); next != Separator::kComma) return next == Separator::kClose;
    }
  }

  // What follows an object member or array item: the container's `close`, or a comma and more.
  enum class Separator { kClose, kComma, kInvalid };
  Separator AfterItem(char close) {
    SkipSpace();
    if (p_ == end_ || (*p_ != close && *p_ != ',')) return Separator::kInvalid;
    bool closed = *p_++ == close;
    if (!closed) SkipSpace();
    return closed ? Separator::kClose : Separator::kComma;
  }

  bool ParseString(std::string& out) {
    ++p_;  // opening quote
    for (;;) {
      const unsigned char* run = p_;
      while (p_ < end_ && kPlainStringByte[*p_]) ++p_;
      out.append(reinterpret_cast<const char*>(run), p_ - run);
      if (p_ == end_) return false;
      unsigned char c = *p_;
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c < 0x20) return false;  // raw control characters must be escaped
      if (c == '\\') {
        if (!ParseEscape(out)) return false;
        continue;
      }
      int length = Utf8SequenceLength(p_, end_);
      if (length == 0) return false;
      out.append(reinterpret_cast<const char*>(p_), length);
      p_ += length;
    }
  }

  bool ParseHex4(uint32_t& code) {
    if (end_ - p_ < 4) return false;
    code = 0;
    for (int index = 0; index < 4; ++index) {
      int digit = HexValue(static_cast<char>(p_[index]));
      if (digit < 0) return false;
      code = code * 16 + static_cast<uint32_t>(digit);
    }
    p_ += 4;
    return true;
  }

  bool ParseEscape(std::string& out) {
    ++p_;  // backslash
    if (p_ == end_) return false;
    switch (*p_++) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': {
        uint32_t code = 0;
        if (!ParseHex4(code)) return false;
        if (code >= 0xD800 && code <= 0xDBFF) {  // a high surrogate needs its low one next
          uint32_t low = 0;
          if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
          p_ += 2;
          if (!ParseHex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          return false;
        }
        AppendUtf8(out, code);
        return true;
      }
      default:
        return false;
    }
  }

  bool ParseNumber(Json& out) {
    const char* start = reinterpret_cast<const char*>(p_);
    bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_) return false;
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      while (p_ < end_ && IsDigit(static_cast<char>(*p_))) ++p_;
    } else {
      return false;
    }
    bool integral = true;
    if (p_ < end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (p_ == end_ || !IsDigit(static_cast<char>(*p_))) return false;
      while (p_ < end_ && IsDigit(static_cast<char>(*p_))) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !IsDigit(static_cast<char>(*p_))) return false;
      while (p_ < end_ && IsDigit(static_cast<char>(*p_))) ++p_;
    }
    const char* stop = reinterpret_cast<const char*>(p_);
    if (integral) {
      if (negative) {
        int64_t value = 0;
        if (std::from_chars(start, stop, value).ec == std::errc()) {
          out = value;
          return true;
        }
      } else {
        uint64_t value = 0;
        if (std::from_chars(start, stop, value).ec == std::errc()) {
          out = value;
          return true;
        }
      }
      // Past 64 bits: a float, as nlohmann makes it.
    }
    double value = 0;
    if (std::from_chars(start, stop, value).ec != std::errc()) {
      // Out of range: strtod says whether it underflowed (a valid tiny or zero value) or
      // overflowed (infinite, which nlohmann refuses).
      std::string text(start, stop);
      value = std::strtod(text.c_str(), nullptr);
    }
    if (!std::isfinite(value)) return false;
    out = value;
    return true;
  }

  const unsigned char* p_;
  const unsigned char* const end_;
};

}  // namespace

Json ParseJson(std::string_view text) {
  Parser parser(text);
  Json value;
  if (parser.ParseDocument(value)) return value;
  return Json(Json::value_t::discarded);
}

JsonTextShape ShapeOfJsonText(std::string_view text) {
  JsonTextShape shape;
  int depth = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c == '"') {
      // Jump over the string (most of a document's bytes) with memchr: it ends at the first quote
      // not escaped, i.e. not after an odd run of backslashes.
      const size_t start = pos + 1;
      for (;;) {
        const void* quote = std::memchr(text.data() + pos + 1, '"', text.size() - pos - 1);
        if (quote == nullptr) return shape;  // unterminated: the parser will refuse it
        pos = static_cast<size_t>(static_cast<const char*>(quote) - text.data());
        size_t backslashes = 0;
        while (pos - backslashes > start && text[pos - backslashes - 1] == '\\') ++backslashes;
        if (backslashes % 2 == 0) break;
      }
    } else if (c == '{' || c == '[') {
      shape.depth = std::max(shape.depth, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      shape.compact = false;
    }
  }
  return shape;
}

}  // namespace cosmos
