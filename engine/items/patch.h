// Patch: the operations of a partial document update (PATCH .../docs/{id}), as the service
// documents them — add, set, replace, remove, incr and move — on JSON-Pointer paths ("~1" for
// '/', "~0" for '~' in a property name; an array index, or "-" for the end of an array).
// Parsing checks the request's shape; applying runs the operations in order on a copy of the
// stored document, and the first that cannot apply refuses the whole patch (400) with nothing
// changed. What may not be patched (id, the partition key, system properties) is the caller's
// check (items.cc), after the operations ran.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/result.h"

namespace cosmos::engine {

// The service's limit on operations in one patch.
inline constexpr size_t kMaxPatchOperations = 10;

struct PatchOperation {
  enum class Kind { kAdd, kSet, kReplace, kRemove, kIncr, kMove };
  Kind kind = Kind::kAdd;
  std::string path;                // as sent, for messages
  std::vector<std::string> steps;  // `path` decoded into property names and array positions
  Json value;                      // add, set, replace, incr
  std::vector<std::string> from;   // move: where the value comes from, decoded
  std::string from_path;           // ... and as sent
};

struct PatchRequest {
  std::vector<PatchOperation> operations;
  // A filter on the current document ("FROM c WHERE ..."): when it does not hold, 412.
  std::optional<std::string> condition;
};

// Parses {"operations":[{"op","path","value"|"from"}...], "condition"?} or a bare array of
// operations (the JavaScript SDK sends either). kBadRequest for malformed JSON, an unknown op,
// a path that is not a JSON Pointer below the root, a missing value or `from`, an `incr` whose
// value is not a number, no operations, or more than kMaxPatchOperations.
Result<PatchRequest> ParsePatch(std::string_view body);
// The same from an already parsed body (a patch inside a transactional batch).
Result<PatchRequest> ParsePatch(const Json& body);

// Applies `operations` to `document` in order. kBadRequest when one cannot apply (a missing
// parent, replace/remove/move of a missing path, an array index out of bounds, incr of a value
// that is not a number); `document` is then partly changed and must be discarded.
Status ApplyPatch(const std::vector<PatchOperation>& operations, Json& document);

}  // namespace cosmos::engine
