// ParseJson against nlohmann's parser: the same verdict and the same value (types included) for
// chosen edge cases and for many generated texts, valid and broken.
#include "common/json_parse.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using cosmos::Json;
using cosmos::ParseJson;

namespace {

bool Same(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::object: {
      if (a.size() != b.size()) return false;
      auto left = a.items().begin();
      auto right = b.items().begin();
      for (; left != a.items().end(); ++left, ++right) {
        if (left.key() != right.key() || !Same(left.value(), right.value())) return false;
      }
      return true;
    }
    case Json::value_t::array:
      if (a.size() != b.size()) return false;
      for (size_t index = 0; index < a.size(); ++index) {
        if (!Same(a[index], b[index])) return false;
      }
      return true;
    case Json::value_t::number_float: {
      double x = a.get<double>(), y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;  // -0.0 and 0.0 differ
    }
    default:
      return a == b;
  }
}

void CheckAgreement(const std::string& text) {
  INFO("text: " << text);
  Json expected = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  Json actual = ParseJson(text);
  REQUIRE(actual.is_discarded() == expected.is_discarded());
  if (!expected.is_discarded()) CHECK(Same(actual, expected));
}

// Random JSON text: every kind of value, escapes, multi-byte characters, numbers at the edges
// of 64 bits, repeated names and whitespace between tokens.
class TextGenerator {
 public:
  explicit TextGenerator(uint32_t seed) : random_(seed) {}

  std::string Value(int depth) {
    switch (Pick(depth > 4 ? 5 : 7)) {
      case 0: return Pick(2) ? "true" : "false";
      case 1: return "null";
      case 2: return Number();
      case 3: case 4: return String();
      case 5: return Array(depth);
      default: return Object(depth);
    }
  }

  std::string Mutate(std::string text) {
    static const std::string kBytes = "{}[],:\"\\ 0-.eE+tfnu\x01\x7f\xc3\xa9\xed\xa0\x80\xf4\x90";
    int edits = 1 + Pick(3);
    for (int edit = 0; edit < edits && !text.empty(); ++edit) {
      size_t at = Pick(static_cast<int>(text.size()));
      char byte = kBytes[Pick(static_cast<int>(kBytes.size()))];
      switch (Pick(3)) {
        case 0: text.erase(at, 1); break;
        case 1: text.insert(text.begin() + at, byte); break;
        default: text[at] = byte; break;
      }
    }
    return text;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

  std::string Space() {
    static const char* kSpaces[] = {"", "", "", " ", "\n", "\t ", "\r\n"};
    return kSpaces[Pick(7)];
  }

  std::string Number() {
    static const char* kEdges[] = {"0", "-0", "9223372036854775807", "-9223372036854775808",
                                   "9223372036854775808", "-9223372036854775809", "18446744073709551615",
                                   "18446744073709551616", "1e308", "1e309", "-1e309", "1e-400", "2.5E-3",
                                   "0.1", "-12.75e+2", "123456789012345678901234567890", "4.9e-324"};
    if (Pick(3) == 0) return kEdges[Pick(17)];
    std::string text = Pick(4) == 0 ? "-" : "";
    text += std::to_string(Pick(100000));
    if (Pick(3) == 0) text.append(".").append(std::to_string(Pick(1000)));
    if (Pick(4) == 0) text.append(Pick(2) ? "e" : "E").append(Pick(2) ? "-" : "+").append(std::to_string(Pick(30)));
    return text;
  }

  std::string String() {
    static const char* kPieces[] = {"a", "id", " ", "\\\"", "\\\\", "\\/", "\\b\\f\\n\\r\\t", "\\u0041",
                                    "\\u00e9", "\\u20AC", "\\ud83d\\ude00", "\\u0000", "\xc3\xa9", "\xe2\x82\xac",
                                    "\xf0\x9f\x98\x80", "\x7f", "pad-pad-pad-pad"};
    std::string text = "\"";
    int pieces = Pick(6);
    for (int piece = 0; piece < pieces; ++piece) text += kPieces[Pick(17)];
    return text.append("\"");
  }

  std::string Array(int depth) {
    std::string text = "[";
    text.append(Space());
    int count = Pick(5);
    for (int index = 0; index < count; ++index) {
      if (index > 0) text.append(",").append(Space());
      text.append(Value(depth + 1)).append(Space());
    }
    return text.append("]");
  }

  std::string Object(int depth) {
    static const char* kNames[] = {"\"id\"", "\"pk\"", "\"a\"", "\"\"", "\"\\u0061\"", "\"n\""};
    std::string text = "{";
    text.append(Space());
    int count = Pick(5);
    for (int index = 0; index < count; ++index) {
      if (index > 0) text.append(",").append(Space());
      text.append(kNames[Pick(6)]).append(Space()).append(":").append(Space());
      text.append(Value(depth + 1)).append(Space());
    }
    return text.append("}");
  }

  std::mt19937 random_;
};

}  // namespace

TEST_CASE("ParseJson agrees with nlohmann on edge cases", "[common][json]") {
  for (const char* text : {
           "", " ", "{}", "[]", "0", "-0", "-", "01", "1.", ".5", "+1", "1e", "1e+", "-0.0", "1E400", "1e-400",
           "true", "tru", "nul", "null x", "\"\"", "\"a", "\"\\x\"", "\"\\u12\"", "\"\\uD800\"", "\"\\uDC00\"",
           "\"\\uD83D\\u0041\"", "\"\\uD83D\\uDE00\"", "\"\x01\"", "\"\xc0\xaf\"", "\"\xe0\x80\x80\"",
           "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xf0\x9f\x98\x80\"", "\xef\xbb\xbf{\"a\":1}",
           "{\"a\":1,\"a\":2,\"b\":3}", "{\"a\" 1}", "{\"a\":1,}", "[1,]", "[1 2]", "{,}", "[[[[]]]]",
           " {\"id\" : \"x\" , \"n\" : [ 1 , 2.5 , -3 , {\"k\":null} ] } ", "18446744073709551616",
           "-9223372036854775809", "{\"a\":{\"b\":{\"c\":[true,false,null]}}}"}) {
    CheckAgreement(text);
  }
}

TEST_CASE("ParseJson agrees with nlohmann on generated texts, valid and broken", "[common][json]") {
  TextGenerator generator(20261204);
  for (int round = 0; round < 3000; ++round) {
    std::string text = generator.Value(0);
    CheckAgreement(text);
    CheckAgreement(generator.Mutate(text));
  }
}

TEST_CASE("ParseJson refuses text nested deeper than 512 levels, however deep, without recursing", "[common][json]") {
  auto nested = [](size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CheckAgreement(nested(512));
  CHECK(ParseJson(nested(513)).is_discarded());
  CHECK(ParseJson(nested(1000000)).is_discarded());
  CHECK(ParseJson(std::string(1000000, '{')).is_discarded());
  cosmos::JsonTextShape shape = cosmos::ShapeOfJsonText(nested(1000000));
  CHECK(shape.depth == 1000000);
  shape = cosmos::ShapeOfJsonText(R"({"a": "[[[[", "b": [{}]})");
  CHECK(shape.depth == 3);
  CHECK_FALSE(shape.compact);
}

namespace {

// ShapeOfJsonText as it was written first, a character at a time: the reference for the one that
// jumps over strings.
cosmos::JsonTextShape ShapeOneCharacterAtATime(std::string_view text) {
  cosmos::JsonTextShape shape;
  int depth = 0;
  bool in_string = false;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    char c = text[pos];
    if (in_string) {
      if (c == '\\') {
        ++pos;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
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

}  // namespace

TEST_CASE("ShapeOfJsonText skips strings by their unescaped closing quote", "[common][json]") {
  CHECK(cosmos::ShapeOfJsonText(R"({"a":"x\"[[","b":1})").depth == 1);      // an escaped quote
  CHECK(cosmos::ShapeOfJsonText(R"({"a":"x\\","b":[1]})").depth == 2);      // an escaped backslash
  CHECK(cosmos::ShapeOfJsonText(R"({"a":"\\\"[","b":{}})").depth == 2);     // both, then a bracket inside
  CHECK(cosmos::ShapeOfJsonText(R"({"a":"unterminated [[)").depth == 1);
  CHECK(cosmos::ShapeOfJsonText(R"({"a b":"c d"})").compact);               // spaces inside strings
  // Every text of these characters, up to 7 long, shapes as the character-at-a-time reference.
  const std::string alphabet = "\"\\{}[] a";
  std::vector<std::string> texts = {""};
  for (int length = 1; length <= 7; ++length) {
    std::vector<std::string> longer;
    for (const std::string& text : texts) {
      if (text.size() + 1 != static_cast<size_t>(length)) continue;
      for (char c : alphabet) longer.push_back(text + c);
    }
    for (const std::string& text : longer) {
      cosmos::JsonTextShape expected = ShapeOneCharacterAtATime(text);
      cosmos::JsonTextShape shaped = cosmos::ShapeOfJsonText(text);
      INFO(text);
      REQUIRE(shaped.depth == expected.depth);
      REQUIRE(shaped.compact == expected.compact);
    }
    texts.insert(texts.end(), longer.begin(), longer.end());
  }
}
