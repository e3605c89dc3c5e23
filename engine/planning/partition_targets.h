// Partition targets: which logical and physical partitions a query's filter can reach. A filter
// that pins the partition key (c.pk = 'a', c.pk IN (...), a hierarchical prefix) reads only
// those logical partitions, as an index on the partition key would, and its query plan's
// queryRanges name only their effective keys, so the SDK sends it to those ranges alone.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/json.h"
#include "engine/partitioning/partitioning.h"
#include "engine/shared/container_cache.h"
#include "query/binder.h"
#include "query/plan/partition_key_filter.h"

namespace cosmos::engine {

// Narrows `scope` to the logical partitions the query's filter pins the partition key to:
// returns them in key order (those inside the scope) and sets `range_ids` to the physical
// partitions holding them; nullopt when the filter leaves every value possible.
std::optional<std::vector<storage::DocumentScope>> PinnedPartitions(const ResolvedContainer& container,
                                                                    const query::BoundQuery& prepared,
                                                                    const Json& parameters,
                                                                    const storage::DocumentScope& scope,
                                                                    std::vector<int64_t>& range_ids);

// The effective-partition-key ranges of the partition-key values a query can reach: the whole
// space, nothing, or one point (or prefix range) per value, sorted and non-overlapping, as the
// query plan's queryRanges.
Json EffectiveRangesOf(const PartitionKeyDefinition& definition, const query::PartitionKeyTargets& targets);

// Physical partitions a plan's queryRanges reach, in id order.
std::vector<int64_t> RangesReached(const RoutingMap& routing, const Json& query_ranges);

}  // namespace cosmos::engine
