// ParseJson: JSON text to a Json value, several times faster than nlohmann's own parser, which
// reads a character at a time through a lexer that also keeps every token's text for its error
// messages. Documents are parsed on every write and on every document a query reads, so this is
// the parser for them.
//
// It accepts exactly what nlohmann::json::parse accepts and builds the same value: a leading
// UTF-8 byte order mark is skipped; strings must be valid UTF-8 with no raw control characters;
// \u escapes must pair their surrogates; a non-negative integer is number_unsigned, a negative
// one number_integer, and one past 64 bits, a fraction or an exponent make number_float; of
// duplicate names the last value wins, at the first one's position.
// Thread-safety: pure function.
#pragma once

#include <string_view>

#include "common/json.h"

namespace cosmos {

// The service's nesting limit for documents, which cosmolite applies to every JSON value a request
// brings (bodies, query parameters, text a query parses): deeper values would make serializers
// and evaluators, which recurse, run out of stack.
inline constexpr int kMaxJsonNesting = 128;

// Returns a discarded value (is_discarded()) when `text` is not valid JSON, or nests objects and
// arrays deeper than 512 levels (callers that must say why check ShapeOfJsonText first).
Json ParseJson(std::string_view text);

struct JsonTextShape {
  int depth = 0;        // deepest nesting of objects and arrays
  bool compact = true;  // no whitespace outside strings
};
// One pass over JSON text (valid or not), ignoring what is inside strings; never recurses.
JsonTextShape ShapeOfJsonText(std::string_view text);

}  // namespace cosmos
