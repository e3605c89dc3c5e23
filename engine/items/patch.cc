#include "engine/items/patch.h"

#include <algorithm>
#include <charconv>

#include "common/json_parse.h"

namespace cosmos::engine {
namespace {

using Kind = PatchOperation::Kind;

std::optional<Kind> KindOf(const std::string& op) {
  if (op == "add") return Kind::kAdd;
  if (op == "set") return Kind::kSet;
  if (op == "replace") return Kind::kReplace;
  if (op == "remove") return Kind::kRemove;
  if (op == "incr") return Kind::kIncr;
  if (op == "move") return Kind::kMove;
  return std::nullopt;
}

// "/a/b~1c/0" -> {"a", "b/c", "0"}. nullopt unless the path is a JSON Pointer below the root.
std::optional<std::vector<std::string>> DecodePath(const std::string& path) {
  if (path.size() < 2 || path.front() != '/') return std::nullopt;
  std::vector<std::string> steps(1);
  for (size_t pos = 1; pos < path.size(); ++pos) {
    char c = path[pos];
    if (c == '/') {
      steps.emplace_back();
    } else if (c == '~') {
      if (pos + 1 == path.size() || (path[pos + 1] != '0' && path[pos + 1] != '1')) return std::nullopt;
      steps.back() += path[++pos] == '0' ? '~' : '/';
    } else {
      steps.back() += c;
    }
  }
  return steps;
}

// The service answers every malformed specification with the same words; the detail says what.
Status InvalidPatch(const std::string& detail) {
  return Status::BadRequest("Invalid patch request: check syntax of patch specification (" + detail + ")");
}

Result<PatchOperation> ParseOperation(const Json& entry) {
  if (!entry.is_object()) return InvalidPatch("each operation must be a JSON object");
  auto op = entry.find("op");
  if (op == entry.end() || !op->is_string()) return InvalidPatch("an operation has no 'op'");
  std::optional<Kind> kind = KindOf(op->get<std::string>());
  if (!kind) {
    std::string detail = "unknown op '";  // built in steps: g++ 12 misreports "lit" + string under -Werror=restrict
    detail += op->get<std::string>();
    detail += "'; use add, set, replace, remove, incr or move";
    return InvalidPatch(detail);
  }
  PatchOperation operation;
  operation.kind = *kind;
  auto path = entry.find("path");
  if (path == entry.end() || !path->is_string()) return InvalidPatch("an operation has no 'path'");
  operation.path = path->get<std::string>();
  std::optional<std::vector<std::string>> steps = DecodePath(operation.path);
  if (!steps) return InvalidPatch("'" + operation.path + "' is not a valid path below the document's root");
  operation.steps = std::move(*steps);
  if (*kind == Kind::kMove) {
    auto from = entry.find("from");
    if (from == entry.end() || !from->is_string()) return InvalidPatch("a move operation needs 'from'");
    std::optional<std::vector<std::string>> from_steps = DecodePath(from->get<std::string>());
    if (!from_steps) {
      return InvalidPatch("'" + from->get<std::string>() + "' is not a valid path below the document's root");
    }
    operation.from = std::move(*from_steps);
    operation.from_path = from->get<std::string>();
    return operation;
  }
  if (*kind == Kind::kRemove) return operation;
  auto value = entry.find("value");
  if (value == entry.end()) return InvalidPatch("the " + op->get<std::string>() + " operation on '" +
                                                operation.path + "' has no 'value'");
  if (*kind == Kind::kIncr && !value->is_number()) {
    return InvalidPatch("the incr operation on '" + operation.path + "' needs a numeric value");
  }
  operation.value = *value;
  return operation;
}

// An array position: digits only, within what a document can hold.
std::optional<size_t> IndexOf(const std::string& step) {
  if (step.empty() || step.size() > 9) return std::nullopt;
  size_t index = 0;
  auto [end, error] = std::from_chars(step.data(), step.data() + step.size(), index);
  if (error != std::errc() || end != step.data() + step.size()) return std::nullopt;
  return index;
}

// The service's words for an operation that cannot apply; `number` counts from 1.
Status OperationFailed(int number, const std::string& text) {
  return Status::BadRequest("For Operation(" + std::to_string(number) + "): " + text);
}

Status NoParent(int number, Kind kind, const std::string& missing) {
  return OperationFailed(number, std::string(kind == Kind::kAdd ? "Add" : "Given") +
                                     " Operation can only create a child object of an existing node(array or object) "
                                     "and cannot create path recursively, no path found beyond: '" +
                                     missing + "'. Learn more: https://aka.ms/cosmosdbpatchdocs");
}

Status OutOfBounds(int number, const std::string& index) {
  return OperationFailed(number, "Index(" + index + ") to operate on is out of array bounds");
}

// The container of the last step: every step before it must exist and be an object or array.
Result<Json*> ParentOf(Json& document, const std::vector<std::string>& steps, Kind kind, int number) {
  Json* node = &document;
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    const std::string& step = steps[i];
    Json* next = nullptr;
    if (node->is_object()) {
      auto found = node->find(step);
      if (found != node->end()) next = &*found;
    } else if (node->is_array()) {
      std::optional<size_t> index = IndexOf(step);
      if (index && *index < node->size()) next = &(*node)[*index];
    }
    if (next == nullptr || (!next->is_object() && !next->is_array() && i + 2 == steps.size())) {
      return NoParent(number, kind, step);
    }
    node = next;
  }
  return node;
}

// `current` + `delta`: integers stay integers (unless the sum leaves int64), anything else is a double.
Result<Json> Increment(const Json& current, const Json& delta, const std::string& path, int number) {
  if (!current.is_number()) return OperationFailed(number, "Node(" + path + ") is not a number.");
  if (current.is_number_integer() && delta.is_number_integer()) {
    int64_t sum = 0;
    if (!__builtin_add_overflow(current.get<int64_t>(), delta.get<int64_t>(), &sum)) return Json(sum);
  }
  return Json(current.get<double>() + delta.get<double>());
}

// Applies one operation that writes a value (add, set, replace, incr) or removes one.
// `path` names the target in messages; `number` is the operation's, counted from 1.
Status ApplyAt(Json& document, Kind kind, const std::vector<std::string>& steps, const std::string& path,
               const Json& value, int number) {
  COSMOS_ASSIGN_OR_RETURN(Json* parent, ParentOf(document, steps, kind, number));
  if (!parent->is_object() && !parent->is_array()) return NoParent(number, kind, steps.front());
  const std::string& last = steps.back();
  if (parent->is_object()) {
    auto found = parent->find(last);
    if (found == parent->end()) {
      if (kind == Kind::kReplace) return OperationFailed(number, "Node(" + path + ") to be replaced is absent.");
      if (kind == Kind::kRemove) {
        return OperationFailed(number, "Node(" + path +
                                           ") to be removed is absent. Note: it may also have been removed earlier "
                                           "in the transaction.");
      }
      (*parent)[last] = value;  // add, set and incr create it
      return Status();
    }
    switch (kind) {
      case Kind::kRemove: parent->erase(found); break;
      case Kind::kIncr: {
        COSMOS_ASSIGN_OR_RETURN(*found, Increment(*found, value, path, number));
        break;
      }
      default: *found = value;
    }
    return Status();
  }
  // An array: "-" is past its end; anything else must be a position in it.
  const size_t size = parent->size();
  std::optional<size_t> index = last == "-" ? std::optional<size_t>(size) : IndexOf(last);
  if (!index) return OutOfBounds(number, last);
  if (kind == Kind::kAdd || (kind == Kind::kSet && *index == size)) {
    if (*index > size) return OutOfBounds(number, last);
    parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(*index), value);
    return Status();
  }
  if (*index >= size) return OutOfBounds(number, last);
  Json& element = (*parent)[*index];
  switch (kind) {
    case Kind::kRemove: parent->erase(parent->begin() + static_cast<std::ptrdiff_t>(*index)); break;
    case Kind::kIncr: {
      COSMOS_ASSIGN_OR_RETURN(element, Increment(element, value, path, number));
      break;
    }
    default: element = value;  // set, replace
  }
  return Status();
}

// The value at `steps`, or nullptr.
const Json* Find(const Json& document, const std::vector<std::string>& steps) {
  const Json* node = &document;
  for (const std::string& step : steps) {
    if (node->is_object()) {
      auto found = node->find(step);
      if (found == node->end()) return nullptr;
      node = &*found;
    } else if (node->is_array()) {
      std::optional<size_t> index = IndexOf(step);
      if (!index || *index >= node->size()) return nullptr;
      node = &(*node)[*index];
    } else {
      return nullptr;
    }
  }
  return node;
}

Status Move(Json& document, const PatchOperation& operation, int number) {
  const std::vector<std::string>& from = operation.from;
  if (operation.steps.size() > from.size() && std::equal(from.begin(), from.end(), operation.steps.begin())) {
    return OperationFailed(number, "Path(" + operation.path + ") cannot be a child of the 'from' location.");
  }
  const Json* source = Find(document, from);
  if (source == nullptr) return OperationFailed(number, "Node(" + operation.from_path + ") to be moved is absent.");
  Json value = *source;
  COSMOS_RETURN_IF_ERROR(ApplyAt(document, Kind::kRemove, from, operation.from_path, Json(), number));
  return ApplyAt(document, Kind::kAdd, operation.steps, operation.path, value, number);
}

}  // namespace

Result<PatchRequest> ParsePatch(const Json& body) {
  const Json* operations = &body;
  PatchRequest request;
  if (body.is_object()) {
    auto found = body.find("operations");
    if (found == body.end()) return InvalidPatch("the body has no 'operations'");
    operations = &*found;
    if (auto condition = body.find("condition"); condition != body.end() && !condition->is_null()) {
      if (!condition->is_string()) return InvalidPatch("'condition' must be a string");
      request.condition = condition->get<std::string>();
    }
  }
  if (!operations->is_array()) return InvalidPatch("'operations' must be an array");
  if (operations->empty()) return InvalidPatch("there are no operations");
  if (operations->size() > kMaxPatchOperations) {
    return Status::BadRequest("The number of patch operations cannot exceed 10");
  }
  for (const Json& entry : *operations) {
    COSMOS_ASSIGN_OR_RETURN(auto operation, ParseOperation(entry));
    request.operations.push_back(std::move(operation));
  }
  return request;
}

Result<PatchRequest> ParsePatch(std::string_view body) {
  Json parsed = ParseJson(body);
  if (parsed.is_discarded()) return InvalidPatch("the body is not valid JSON");
  return ParsePatch(parsed);
}

Status ApplyPatch(const std::vector<PatchOperation>& operations, Json& document) {
  int number = 0;
  for (const PatchOperation& operation : operations) {
    ++number;
    if (operation.kind == Kind::kMove) {
      COSMOS_RETURN_IF_ERROR(Move(document, operation, number));
    } else {
      COSMOS_RETURN_IF_ERROR(
          ApplyAt(document, operation.kind, operation.steps, operation.path, operation.value, number));
    }
  }
  return Status();
}

}  // namespace cosmos::engine
