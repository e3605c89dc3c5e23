// Partition keys: a container's definition (paths, kind, version), the value a document carries
// at those paths, and the value a request names in x-ms-documentdb-partitionkey.
// Pure functions and value types; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"

namespace cosmos::engine {

enum class PartitionKeyKind { kHash, kMultiHash };

struct PartitionKeyDefinition {
  std::vector<std::string> paths;                   // as given, e.g. "/tenant/id"
  std::vector<std::vector<std::string>> segments;   // parsed, e.g. {"tenant", "id"}
  PartitionKeyKind kind = PartitionKeyKind::kHash;
  std::optional<int> version;                       // absent means version 1
  // A legacy non-partitioned container's key: /_partitionKey, which its documents do not carry, so
  // they all share one logical partition; requests name it with [] or not at all.
  bool system_key = false;

  // Parses and validates the `partitionKey` property of a container definition.
  // Returns kBadRequest when paths, kind or version are invalid.
  static Result<PartitionKeyDefinition> Parse(const Json& definition);
  Json ToJson() const;
};

// One component of a partition key value. `undefined` is the value of a missing property
// (the header spells it `{}`); otherwise `value` is a string, number, boolean or null.
struct PartitionKeyComponent {
  bool undefined = true;
  Json value;

  bool operator==(const PartitionKeyComponent& other) const;
};

// A full partition key value: one component per definition path.
struct PartitionKeyValue {
  std::vector<PartitionKeyComponent> components;

  // Reads the value a document carries at the definition's paths. A missing property, or one
  // holding an object or array, is the undefined component.
  static PartitionKeyValue FromDocument(const PartitionKeyDefinition& definition,
                                        const Json& document);
  // Parses x-ms-documentdb-partitionkey (a JSON array; `[]` means every component undefined).
  // Returns kBadRequest when malformed or when the component count disagrees with the definition.
  // With `allow_prefix` (queries and feeds), a hierarchical key may name only its first levels.
  static Result<PartitionKeyValue> FromHeader(const PartitionKeyDefinition& definition,
                                              const std::string& header, bool allow_prefix = false);

  // Canonical text naming the logical partition in storage. Equal values give equal text.
  std::string StorageKey() const;
  // The value as the header spells it, for messages: e.g. ["a",1] or [{}].
  std::string ToHeaderText() const;

  bool operator==(const PartitionKeyValue& other) const { return components == other.components; }
};

}  // namespace cosmos::engine
