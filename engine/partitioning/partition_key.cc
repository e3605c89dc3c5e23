#include "engine/partitioning/partition_key.h"

#include "common/json_parse.h"

namespace cosmos::engine {
namespace {

constexpr size_t kMaxHierarchicalPaths = 3;
// The service's limit on a partition key value (containers with large partition keys, the default).
constexpr size_t kMaxPartitionKeyValueBytes = 2048;

// Splits "/a/b" or "/\"a b\"/c" into its property names.
Result<std::vector<std::string>> ParsePath(const std::string& path) {
  if (path.size() < 2 || path[0] != '/') {
    return Status::BadRequest("Partition key path '" + path + "' is invalid: it must start with '/'");
  }
  std::vector<std::string> segments;
  size_t pos = 1;
  while (pos <= path.size()) {
    std::string segment;
    if (pos < path.size() && path[pos] == '"') {
      size_t close = path.find('"', pos + 1);
      if (close == std::string::npos) {
        return Status::BadRequest("Partition key path '" + path + "' has an unterminated quote");
      }
      segment = path.substr(pos + 1, close - pos - 1);
      pos = close + 1;
      if (pos < path.size() && path[pos] != '/') {
        return Status::BadRequest("Partition key path '" + path + "' is invalid");
      }
    } else {
      size_t slash = path.find('/', pos);
      if (slash == std::string::npos) slash = path.size();
      segment = path.substr(pos, slash - pos);
      pos = slash;
    }
    if (segment.empty() || segment == "*" || segment == "?" || segment == "[]") {
      return Status::BadRequest("Partition key path '" + path + "' is invalid");
    }
    segments.push_back(std::move(segment));
    ++pos;  // skip '/'
  }
  return segments;
}

Json CanonicalValue(const PartitionKeyComponent& component) {
  if (component.undefined) return Json::object();
  // Numbers compare by value: 1 and 1.0 name the same logical partition.
  if (component.value.is_number()) return Json(component.value.get<double>());
  return component.value;
}

}  // namespace

Result<PartitionKeyDefinition> PartitionKeyDefinition::Parse(const Json& definition) {
  if (!definition.is_object()) return Status::BadRequest("partitionKey must be an object");
  PartitionKeyDefinition result;
  auto paths = definition.find("paths");
  if (paths == definition.end() || !paths->is_array() || paths->empty()) {
    return Status::BadRequest("partitionKey.paths must be a non-empty array of paths");
  }
  for (const Json& path : *paths) {
    if (!path.is_string()) return Status::BadRequest("partitionKey.paths must hold strings");
    COSMOS_ASSIGN_OR_RETURN(auto segments, ParsePath(path.get<std::string>()));
    result.paths.push_back(path.get<std::string>());
    result.segments.push_back(std::move(segments));
  }
  auto kind = definition.find("kind");
  if (kind != definition.end() && !kind->is_null()) {
    if (!kind->is_string()) return Status::BadRequest("partitionKey.kind must be a string");
    if (*kind == "Hash") {
      result.kind = PartitionKeyKind::kHash;
    } else if (*kind == "MultiHash") {
      result.kind = PartitionKeyKind::kMultiHash;
    } else {
      return Status::BadRequest("partitionKey.kind '" + kind->get<std::string>() +
                                "' is not supported; use Hash or MultiHash");
    }
  } else if (result.paths.size() > 1) {
    result.kind = PartitionKeyKind::kMultiHash;
  }
  if (auto system_key = definition.find("systemKey"); system_key != definition.end() && !system_key->is_null()) {
    if (!system_key->is_boolean()) return Status::BadRequest("partitionKey.systemKey must be a boolean");
    result.system_key = system_key->get<bool>();
  }
  auto version = definition.find("version");
  if (version != definition.end() && !version->is_null()) {
    // The Java SDK writes its PartitionKeyDefinitionVersion enum by name ("V1", "V2"), which the
    // service accepts as the numbers.
    if (version->is_string() && (*version == "V1" || *version == "V2")) {
      result.version = version->get<std::string>() == "V2" ? 2 : 1;
    } else if (!version->is_number_integer() || (*version != 1 && *version != 2)) {
      return Status::BadRequest("partitionKey.version must be 1 or 2");
    } else {
      result.version = version->get<int>();
    }
  }
  if (result.kind == PartitionKeyKind::kHash && result.paths.size() != 1) {
    return Status::BadRequest("A partition key of kind Hash must have exactly one path");
  }
  if (result.kind == PartitionKeyKind::kMultiHash) {
    if (result.paths.size() > kMaxHierarchicalPaths) {
      return Status::BadRequest("A hierarchical partition key can have at most 3 paths");
    }
    if (result.version.value_or(1) != 2) {
      return Status::BadRequest("A partition key of kind MultiHash requires version 2");
    }
  }
  return result;
}

Json PartitionKeyDefinition::ToJson() const {
  Json json = {{"paths", paths}, {"kind", kind == PartitionKeyKind::kHash ? "Hash" : "MultiHash"}};
  if (version) json["version"] = *version;
  if (system_key) json["systemKey"] = true;
  return json;
}

bool PartitionKeyComponent::operator==(const PartitionKeyComponent& other) const {
  return CanonicalValue(*this) == CanonicalValue(other);
}

PartitionKeyValue PartitionKeyValue::FromDocument(const PartitionKeyDefinition& definition,
                                                  const Json& document) {
  PartitionKeyValue result;
  for (const auto& segments : definition.segments) {
    const Json* node = &document;
    for (const std::string& segment : segments) {
      if (!node->is_object()) {
        node = nullptr;
        break;
      }
      auto child = node->find(segment);
      if (child == node->end()) {
        node = nullptr;
        break;
      }
      node = &*child;
    }
    PartitionKeyComponent component;
    if (node != nullptr && !node->is_object() && !node->is_array()) {
      component.undefined = false;
      component.value = *node;
    }
    result.components.push_back(std::move(component));
  }
  return result;
}

Result<PartitionKeyValue> PartitionKeyValue::FromHeader(const PartitionKeyDefinition& definition,
                                                        const std::string& header, bool allow_prefix) {
  Json parsed = ParseJson(header);
  if (parsed.is_discarded() || !parsed.is_array()) {
    return Status::BadRequest("Partition key '" + header +
                              "' is invalid: x-ms-documentdb-partitionkey must be a JSON array");
  }
  PartitionKeyValue result;
  if (parsed.empty()) {  // PartitionKey.None: every component undefined
    result.components.resize(definition.paths.size());
    return result;
  }
  bool is_prefix = allow_prefix && definition.kind == PartitionKeyKind::kMultiHash &&
                   parsed.size() < definition.paths.size();
  if (parsed.size() != definition.paths.size() && !is_prefix) {
    // A key of the wrong arity (a hierarchical prefix where the full key is needed) is the
    // service's partition-key mismatch, 400/1001.
    return Status::PartitionKeyMismatch(
        "Partition key provided either doesn't correspond to definition in the collection or "
        "doesn't match partition key field values specified in the document.");
  }
  for (const Json& element : parsed) {
    PartitionKeyComponent component;
    if (element.is_object() && element.empty()) {
      component.undefined = true;
    } else if (element.is_object() || element.is_array()) {
      return Status::BadRequest("Partition key '" + header +
                                "' is invalid: components must be strings, numbers, booleans, "
                                "null or {}");
    } else if (element.is_string() && element.get_ref<const std::string&>().size() > kMaxPartitionKeyValueBytes) {
      return Status::BadRequest("Partition key value is too large: a component may hold at most " +
                                std::to_string(kMaxPartitionKeyValueBytes) + " bytes.");
    } else {
      component.undefined = false;
      component.value = element;
    }
    result.components.push_back(std::move(component));
  }
  return result;
}

std::string PartitionKeyValue::StorageKey() const {
  Json array = Json::array();
  for (const auto& component : components) array.push_back(CanonicalValue(component));
  return array.dump();
}

std::string PartitionKeyValue::ToHeaderText() const {
  Json array = Json::array();
  for (const auto& component : components) {
    array.push_back(component.undefined ? Json::object() : component.value);
  }
  return array.dump();
}

}  // namespace cosmos::engine
