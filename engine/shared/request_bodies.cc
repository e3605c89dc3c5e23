#include "engine/shared/request_bodies.h"

#include <algorithm>
#include <string>

#include "common/json_parse.h"
#include "engine/api.h"

namespace cosmos::engine {
namespace {

size_t CodePoints(const std::string& utf8) {
  size_t count = 0;
  for (unsigned char c : utf8) count += (c & 0xC0) != 0x80;
  return count;
}

bool HasForbiddenIdCharacter(const std::string& id) {
  return id.find_first_of("/\\?#") != std::string::npos;
}

// The service's answer to an id it refuses, whatever the reason; SDK tests match its second sentence.
std::string InvalidNameMessage(const std::string& id, size_t limit) {
  return "The input name '" + id + "' is invalid. Ensure to provide a unique non-empty string less than '" +
         std::to_string(limit) + "' characters.";
}

Status CheckDepth(int depth, const char* what) {
  if (depth > kMaxJsonNesting) return Status::BadRequest(std::string("The ") + what + " nests deeper than 128 levels.");
  return Status();
}

}  // namespace

Status CheckNesting(std::string_view text, const char* what) { return CheckDepth(ShapeOfJsonText(text).depth, what); }

Result<Json> ParseObject(std::string_view body, const char* what, bool* compact) {
  JsonTextShape shape = ShapeOfJsonText(body);
  if (compact) *compact = shape.compact;
  COSMOS_RETURN_IF_ERROR(CheckDepth(shape.depth, what));
  Json parsed = ParseJson(body);
  if (parsed.is_discarded()) {
    return Status::BadRequest(std::string("The ") + what + " is not valid JSON.");
  }
  if (!parsed.is_object()) {
    return Status::BadRequest(std::string("The ") + what + " must be a JSON object.");
  }
  return parsed;
}

// Database and container ids.
Status ValidateResourceId(const Json& object) {
  auto id = object.find("id");
  if (id == object.end()) {
    return Status::BadRequest("The input content is invalid because the required properties - 'id; ' - are missing");
  }
  if (!id->is_string() || id->get<std::string>().empty()) {
    return Status::BadRequest("The id must be a non-empty string.");
  }
  const std::string& text = id->get_ref<const std::string&>();
  if (CodePoints(text) > kMaxResourceNameChars || HasForbiddenIdCharacter(text) || text.back() == ' ') {
    return Status::BadRequest(InvalidNameMessage(text, kMaxResourceNameChars));
  }
  return Status();
}

Status ValidateItemId(const Json& document) {
  auto id = document.find("id");
  if (id == document.end()) {
    return Status::BadRequest("The input content is invalid because the required properties - 'id; ' - are missing");
  }
  if (!id->is_string()) return Status::BadRequest("The id of a document must be a string.");
  const std::string& text = id->get_ref<const std::string&>();
  if (text.empty()) return Status::BadRequest("The id of a document cannot be empty.");
  // The documented restriction on '/', '\\', '?' and '#' is not enforced by the service on create:
  // such an item is stored (and found by queries), though its path cannot name it.
  if (text.size() > kMaxItemIdBytes) return Status::BadRequest(InvalidNameMessage(text, kMaxItemIdBytes + 1));
  return Status();
}

}  // namespace cosmos::engine
