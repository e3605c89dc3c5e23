// Container definitions: validation and the service's defaults for a container's properties
// (partition key, indexing policy, unique keys, conflict resolution, TTL), and the unique-key
// values a document carries. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "engine/partitioning/partition_key.h"

namespace cosmos::engine {

// Validates a container definition as sent by a client and returns it with the service's
// defaults filled in (user properties only; system properties are added by the Account).
// Returns kBadRequest for an invalid definition.
Result<Json> NormalizeContainerDefinition(const Json& definition);

// The partition key the service reports for a legacy non-partitioned container.
inline constexpr char kLegacyPartitionKey[] = R"({"paths":["/_partitionKey"],"kind":"Hash","systemKey":true})";

// Checks that `replacement` (already normalized) changes only what may change after creation.
// Returns kBadRequest if it alters the partition key, the unique key policy, or the vector
// policies (search_policies.h).
Status CheckContainerReplace(const Json& current, const Json& replacement);

// geospatialConfig: Geography (the default) or Geometry, whose spatial indexes each need a
// boundingBox, as the service requires.
Status CheckGeospatialConfig(const Json& config, const Json& indexing_policy);

// The unique keys of a container: each is a list of property paths, already parsed.
struct UniqueKeyPolicy {
  std::vector<std::vector<std::vector<std::string>>> keys;  // key -> path -> segments

  static UniqueKeyPolicy FromDefinition(const Json& normalized_definition);
  // One canonical text per unique key: the tuple of values the document holds at the key's
  // paths, a missing value counting as null (as the service does).
  std::vector<std::string> ValuesOf(const Json& document) const;
};

}  // namespace cosmos::engine
