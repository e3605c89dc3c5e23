#include "engine/catalog/container_definition.h"

#include <cstdint>

#include "engine/catalog/search_policies.h"
#include "engine/indexing/indexing_policy.h"
#include "query/computed_properties.h"

namespace cosmos::engine {
namespace {

constexpr size_t kMaxUniqueKeys = 10;
constexpr size_t kMaxUniqueKeyPaths = 16;
constexpr int64_t kMaxTtlSeconds = 2147483647;

Result<Json> NormalizeUniqueKeyPolicy(const Json* given) {
  if (!given) return Json{{"uniqueKeys", Json::array()}};
  auto keys = given->is_object() ? given->find("uniqueKeys") : given->end();
  if (!given->is_object() || (keys != given->end() && !keys->is_array())) {
    return Status::BadRequest("uniqueKeyPolicy must be an object with a uniqueKeys array");
  }
  Json policy = *given;
  if (keys == given->end()) policy["uniqueKeys"] = Json::array();
  if (policy["uniqueKeys"].size() > kMaxUniqueKeys) {
    return Status::BadRequest("uniqueKeyPolicy allows at most 10 unique keys");
  }
  for (const Json& key : policy["uniqueKeys"]) {
    auto paths = key.is_object() ? key.find("paths") : key.end();
    if (!key.is_object() || paths == key.end() || !paths->is_array() || paths->empty() ||
        paths->size() > kMaxUniqueKeyPaths) {
      return Status::BadRequest("each unique key needs 1 to 16 paths");
    }
    for (const Json& path : *paths) {
      if (!path.is_string() || path.get<std::string>().size() < 2 ||
          path.get<std::string>()[0] != '/') {
        return Status::BadRequest("unique key paths must be strings starting with '/'");
      }
    }
  }
  return policy;
}

Status ValidateDefaultTtl(const Json& ttl) {
  if (!ttl.is_number_integer()) return Status::BadRequest("defaultTtl must be an integer");
  int64_t value = ttl.get<int64_t>();
  if (value == 0 || value < -1 || value > kMaxTtlSeconds) {
    return Status::BadRequest("defaultTtl must be -1 or a number of seconds from 1 to 2147483647");
  }
  return Status();
}

// Numbers compare by value in unique keys as in partition keys: 1 and 1.0 collide.
Json CanonicalScalar(const Json& value) {
  return value.is_number() ? Json(value.get<double>()) : value;
}

}  // namespace

Result<Json> NormalizeContainerDefinition(const Json& definition) {
  if (!definition.is_object()) return Status::BadRequest("The container definition must be a JSON object");
  Json result = definition;
  for (const char* system : {"_rid", "_self", "_etag", "_ts", "_docs", "_sprocs", "_triggers",
                             "_udfs", "_conflicts"}) {
    result.erase(system);
  }

  auto pk = definition.find("partitionKey");
  if (pk == definition.end() || pk->is_null()) {
    return Status::BadRequest("The container definition needs a partitionKey with paths");
  }
  COSMOS_ASSIGN_OR_RETURN(auto pk_definition, PartitionKeyDefinition::Parse(*pk));
  Json pk_json = *pk;
  pk_json["kind"] = pk_definition.kind == PartitionKeyKind::kHash ? "Hash" : "MultiHash";
  result["partitionKey"] = pk_json;

  auto indexing = definition.find("indexingPolicy");
  COSMOS_ASSIGN_OR_RETURN(result["indexingPolicy"],
                          NormalizeIndexingPolicy(indexing == definition.end() ? nullptr : &*indexing));
  auto unique = definition.find("uniqueKeyPolicy");
  COSMOS_ASSIGN_OR_RETURN(result["uniqueKeyPolicy"],
                          NormalizeUniqueKeyPolicy(unique == definition.end() ? nullptr : &*unique));
  if (!result.contains("conflictResolutionPolicy")) {
    result["conflictResolutionPolicy"] = {{"mode", "LastWriterWins"},
                                          {"conflictResolutionPath", "/_ts"},
                                          {"conflictResolutionProcedure", ""}};
  }
  if (!result.contains("geospatialConfig")) result["geospatialConfig"] = {{"type", "Geography"}};
  if (auto computed = query::ComputedProperties::Parse(result.value("computedProperties", Json())); !computed.ok()) {
    return computed.status();
  }
  COSMOS_RETURN_IF_ERROR(CheckGeospatialConfig(result["geospatialConfig"], result["indexingPolicy"]));
  COSMOS_RETURN_IF_ERROR(CheckVectorPolicies(result));
  COSMOS_RETURN_IF_ERROR(CheckFullTextPolicies(result));
  if (auto ttl = definition.find("defaultTtl"); ttl != definition.end()) {
    if (ttl->is_null()) {
      result.erase("defaultTtl");
    } else {
      COSMOS_RETURN_IF_ERROR(ValidateDefaultTtl(*ttl));
    }
  }
  return result;
}

Status CheckGeospatialConfig(const Json& config, const Json& indexing_policy) {
  std::string type = config.is_object() && config.value("type", Json()).is_string() ? config["type"].get<std::string>()
                                                                                      : "";
  if (type != "Geography" && type != "Geometry") {
    return Status::BadRequest("geospatialConfig.type must be 'Geography' or 'Geometry'.");
  }
  // Geometry coordinates live on a plane the container must bound: every spatial index needs a
  // boundingBox {xmin, ymin, xmax, ymax} with min below max; Geography needs none.
  for (const Json& index : indexing_policy.value("spatialIndexes", Json::array())) {
    auto box = index.find("boundingBox");
    if (type == "Geography") continue;
    std::string path = index.value("path", "");
    if (box == index.end() || !box->is_object()) {
      return Status::BadRequest("The spatial index on path '" + path +
                                "' requires a boundingBox when geospatialConfig.type is Geometry.");
    }
    for (const char* corner : {"xmin", "ymin", "xmax", "ymax"}) {
      if (!box->contains(corner) || !(*box)[corner].is_number()) {
        return Status::BadRequest("The boundingBox of the spatial index on path '" + path + "' needs a number " +
                                  corner + ".");
      }
    }
    if ((*box)["xmin"].get<double>() >= (*box)["xmax"].get<double>() ||
        (*box)["ymin"].get<double>() >= (*box)["ymax"].get<double>()) {
      return Status::BadRequest("The boundingBox of the spatial index on path '" + path +
                                "' must have xmin < xmax and ymin < ymax.");
    }
  }
  return Status();
}

Status CheckContainerReplace(const Json& current, const Json& replacement) {
  if (current["partitionKey"]["paths"] != replacement["partitionKey"]["paths"] ||
      current["partitionKey"]["kind"] != replacement["partitionKey"]["kind"] ||
      current["partitionKey"].value("version", 1) != replacement["partitionKey"].value("version", 1)) {
    return Status::BadRequest("The partition key of a container cannot be changed");
  }
  if (current["uniqueKeyPolicy"] != replacement["uniqueKeyPolicy"]) {
    return Status::BadRequest("The unique key policy of a container cannot be changed");
  }
  return CheckSearchPolicyReplace(current, replacement);
}

UniqueKeyPolicy UniqueKeyPolicy::FromDefinition(const Json& normalized_definition) {
  UniqueKeyPolicy policy;
  for (const Json& key : normalized_definition["uniqueKeyPolicy"]["uniqueKeys"]) {
    std::vector<std::vector<std::string>> paths;
    for (const Json& path : key["paths"]) paths.push_back(SplitIndexPath(path.get<std::string>()));
    policy.keys.push_back(std::move(paths));
  }
  return policy;
}

std::vector<std::string> UniqueKeyPolicy::ValuesOf(const Json& document) const {
  std::vector<std::string> values;
  for (const auto& key : keys) {
    Json tuple = Json::array();
    for (const auto& segments : key) {
      const Json* node = &document;
      for (const std::string& segment : segments) {
        auto child = node->is_object() ? node->find(segment) : node->end();
        if (!node->is_object() || child == node->end()) {
          node = nullptr;
          break;
        }
        node = &*child;
      }
      tuple.push_back(node ? CanonicalScalar(*node) : Json(nullptr));
    }
    values.push_back(tuple.dump());
  }
  return values;
}

}  // namespace cosmos::engine
