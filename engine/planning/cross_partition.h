// Cross-partition queries: the query plan the SDKs ask for (x-ms-cosmos-is-query-plan-request),
// built for a container's partition key and vector policy, and whether the gateway can serve a
// cross-partition query itself or must send the SDK its plan (400/1004) so that the SDK merges
// the partitions' pages (ORDER BY, TOP, OFFSET/LIMIT, aggregates, GROUP BY, DISTINCT).
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "common/json.h"
#include "common/result.h"
#include "engine/shared/container_cache.h"
#include "query/binder.h"

namespace cosmos::engine {

// The PartitionedQueryExecutionInfo of `prepared` on `container`. `supported_features` is the
// raw x-ms-cosmos-supported-query-features header (nullopt: everything).
Result<Json> ContainerQueryPlan(const ResolvedContainer& container, const query::BoundQuery& prepared,
                                const Json& parameters, const std::optional<std::string>& supported_features);

// Whether the SDK must run the query itself across partitions (merge-sort, aggregate, group,
// de-duplicate, skip/take, fuse ranks), as opposed to concatenating what each partition returns.
// `plan`: the whole query plan (a hybrid search plan always needs the SDK).
bool NeedsClientPipeline(const Json& plan);

// A FROM subquery whose rows depend on every partition at once (TOP, OFFSET/LIMIT, ORDER BY,
// DISTINCT, aggregates) has no per-partition rewrite the SDK could merge: the gateway runs such a
// query itself, over every partition.
bool HasWholeContainerSubquery(const query::BoundQuery& query);

}  // namespace cosmos::engine
