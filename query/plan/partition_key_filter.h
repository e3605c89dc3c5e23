// Which partition-key values a query can reach, as far as its WHERE clause tells: the first half
// of the `queryRanges` of a query plan. Equalities, IN lists, OR, ARRAY_CONTAINS over a constant
// array, ABS(k) = n, IS_BOOL(k), IS_NULL(k) and LIKE without wildcards pin the key to a few values;
// AND intersects them (an empty intersection, or a predicate that folds to a constant other than
// true, means no partition at all). Anything else leaves every value possible, as do range
// predicates: the key is hashed, so ranges of values say nothing about ranges of hashes.
// The second half, hashing each value into an effective partition key and mapping the points
// onto physical partitions, belongs to the partitioning layer.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "query/ast.h"

namespace cosmos::query {

// One component of a partition-key value: a string, a number (as a double), a boolean or null,
// or "undefined", which is what the service makes of a comparison with an array or an object.
struct PartitionKeyComponent {
  Json value;
  bool undefined = false;

  bool operator==(const PartitionKeyComponent& other) const {
    return undefined == other.undefined && (undefined || value == other.value);
  }
};

// A whole partition-key value: one component per partition-key path, in path order.
using PartitionKeyValue = std::vector<PartitionKeyComponent>;

struct PartitionKeyTargets {
  enum class Kind {
    kAll,     // any partition-key value may match
    kNone,    // nothing can match (a contradiction), or the query reads no container (no FROM)
    kPoints,  // only the values in `points`
  };
  Kind kind = Kind::kAll;
  // kPoints: de-duplicated, in the order they were found. With prefixes allowed (hierarchical keys),
  // a point may hold only the first components: it stands for every key below that prefix.
  std::vector<PartitionKeyValue> points;
};

// Splits a partition-key path ("/a/b", "/\"x y\"/c") into its property names.
std::vector<std::string> SplitPartitionKeyPath(std::string_view path);

// `parameters` is the request's [{"name":"@p","value":…}] array; parameters compare like literals.
// `allow_prefixes`: the key is hierarchical (MultiHash), so pinning its first levels narrows it too.
PartitionKeyTargets FindPartitionKeyTargets(const SelectQuery& query, const Json& parameters,
                                            const std::vector<std::string>& partition_key_paths,
                                            bool allow_prefixes = false);

// The targets in the service's internal range form (PartitionKeyInternal values, numbers as
// doubles, undefined as {}), as the SDK's query-plan baselines print them:
//   kAll    -> [{"min":[],"max":"Infinity","isMinInclusive":true,"isMaxInclusive":false}]
//   kNone   -> [{"min":[],"max":[],"isMinInclusive":true,"isMaxInclusive":true}]
//   kPoints -> one {"min":[v…],"max":[v…]} per point, both ends inclusive.
Json InternalQueryRanges(const PartitionKeyTargets& targets);

}  // namespace cosmos::query
