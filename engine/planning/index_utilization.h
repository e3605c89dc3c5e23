// Index metrics (x-ms-cosmos-populateindexmetrics): which indexes a query's filter and ORDER BY
// use, and which ones it would use if the indexing policy had them, in the service's shape
// (x-ms-cosmos-index-utilization, base64 of this JSON):
//   {"UtilizedSingleIndexes": [{"FilterExpression", "IndexSpec", "FilterPreciseSet",
//     "IndexPreciseSet", "IndexImpactScore"}], "PotentialSingleIndexes": [...],
//    "UtilizedCompositeIndexes": [{"IndexSpecs", "IndexPreciseSet", "IndexImpactScore"}],
//    "PotentialCompositeIndexes": [...]}
// A single index is "/path/?" for each path a WHERE predicate compares (equality, IN, range,
// STARTSWITH) or a lone ORDER BY sorts by; a composite index is the ORDER BY's paths, or an
// equality filter's path followed by the ORDER BY path, as the service recommends them.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/json.h"
#include "engine/indexing/indexing_policy.h"
#include "query/binder.h"

namespace cosmos::engine {

Json IndexUtilization(const IndexingPolicy& policy, const query::BoundQuery& prepared, const Json& parameters);

// The header value: the JSON above, base64-encoded.
std::string IndexUtilizationHeader(const Json& utilization);

}  // namespace cosmos::engine
