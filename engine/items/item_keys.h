// The partition key a point operation names in its header, and the physical partition that holds
// a stored document. Shared by the point operations, batches and stored procedures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/partitioning/partition_key.h"
#include "engine/shared/container_cache.h"

namespace cosmos::engine {

// The value of x-ms-documentdb-partitionkey, required on every item operation (400 without it).
Result<PartitionKeyValue> HeaderPartitionKey(const ResolvedContainer& container,
                                             const std::optional<std::string>& header);

// The physical partition holding a storage key ("<EPK> <partition key>"), as a list for Admit.
std::vector<int64_t> RangeOfKey(const ResolvedContainer& container, const std::string& storage_key);

}  // namespace cosmos::engine
