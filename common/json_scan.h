// Reading a few top-level properties of a JSON object without parsing the rest of it.
// Queries that touch only c.id and c.n need not build a tree for a whole stored document: the
// scanner skips the other values (strings, nested objects, arrays) at byte speed and parses
// only the wanted ones.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"

namespace cosmos {

// An object holding the properties of `object_text` (valid JSON text of an object) whose names are
// in `names`, in the document's order. Falls back to a full parse filtered afterwards when the
// text is not a plain object. Returns a discarded value when the text is not valid JSON.
Json ParseSelectedProperties(std::string_view object_text, const std::vector<std::string>& names);

}  // namespace cosmos
