// The checks every resource body goes through before anything else: JSON syntax, an object,
// the service's nesting limit (128), and the rules for ids (databases and containers: at most
// 255 characters; documents: at most 1,023 bytes; never '/', '\', '?' or '#').
// Pure functions; thread-safe.
#pragma once

#include <string_view>

#include "common/json.h"
#include "common/result.h"

namespace cosmos::engine {

// Parses a JSON object; `what` names it in the error ("document", "container definition").
// `compact`, when given, tells whether the text has no whitespace outside strings (then it can be
// extended in place instead of re-serialized).
Result<Json> ParseObject(std::string_view body, const char* what, bool* compact = nullptr);

// kBadRequest when JSON text nests deeper than the service's 128 levels (a patched document).
Status CheckNesting(std::string_view text, const char* what);

// The id of a database or container definition.
Status ValidateResourceId(const Json& object);
// The id of a document.
Status ValidateItemId(const Json& document);

}  // namespace cosmos::engine
