// Physical partitions: where a document is stored, how many partition key ranges a container
// starts with, and which ranges a request reaches.
//
// Documents are stored under "<effective partition key> <logical key>" (StoragePartitionKey), so
// storage order is effective-key order and every range of effective keys is one range of
// storage keys: a physical partition is read with one index range scan, and splitting one needs
// no data movement.
// Thread-safety: pure functions; a RoutingMap is immutable after construction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "engine/partitioning/partition_key.h"
#include "storage/store.h"

namespace cosmos::engine {

// The top of the effective-key space: every effective partition key sorts below it.
inline constexpr char kMaxEffectivePartitionKey[] = "FF";
// The service gives each physical partition at most this much provisioned throughput.
inline constexpr int64_t kThroughputPerPhysicalPartition = 10000;

// The storage text of a partition key value. The space sorts below every hex digit, so an
// effective key that is a prefix of another still sorts first, as in ordinal comparison.
std::string StoragePartitionKey(const PartitionKeyDefinition& definition, const PartitionKeyValue& value);

// Physical partitions of a new container: ceil(throughput / 10,000), at least 1 and at least
// `min_physical_partitions`. `throughput` is the manual RU/s or the autoscale maximum (0: none).
int InitialRangeCount(int64_t throughput, int min_physical_partitions);

// The ranges of a new container, ids 0..n-1, tiling ["", "FF") for its hash version.
std::vector<storage::PartitionKeyRangeRecord> InitialRanges(const PartitionKeyDefinition& definition, int count);

// A container's partition key ranges, gone ones included, with lookups over the online ones.
class RoutingMap {
 public:
  using Range = storage::PartitionKeyRangeRecord;

  RoutingMap() = default;
  explicit RoutingMap(std::vector<Range> ranges);

  const std::vector<Range>& all() const { return ranges_; }
  // Online ranges in effective-key order.
  std::vector<const Range*> online() const;
  size_t online_count() const { return online_.size(); }
  // Any range, gone ones included; nullptr for an id that never existed.
  const Range* FindById(int64_t id) const;
  // The online range holding an effective partition key.
  const Range* RangeOf(std::string_view epk) const;
  // Online ranges overlapping [min, max_exclusive), in effective-key order.
  std::vector<const Range*> Overlapping(std::string_view min, std::string_view max_exclusive) const;
  // Grows by one with every split; the etag of the ranges feed.
  int64_t version() const { return version_; }
  int64_t next_id() const { return next_id_; }

 private:
  std::vector<Range> ranges_;   // id order
  std::vector<size_t> online_;  // indexes into ranges_, by min_inclusive
  int64_t version_ = 0;
  int64_t next_id_ = 0;
};

// The documents a query or feed request reads, and the physical partitions they live in.
struct RequestScope {
  storage::DocumentScope documents;
  std::vector<int64_t> range_ids;  // online ranges reached, in effective-key order
  bool by_partition_key = false;   // narrowed by a partition key (header or prefix)
  bool by_range_id = false;        // addressed to one range by x-ms-documentdb-partitionkeyrangeid
};

// What a request names, as the SDKs send it.
struct ScopeRequest {
  std::optional<std::string> partition_key_header;    // x-ms-documentdb-partitionkey
  std::optional<std::string> partition_key_range_id;  // x-ms-documentdb-partitionkeyrangeid
  std::optional<std::string> start_epk;               // x-ms-start-epk (with a range id)
  std::optional<std::string> end_epk;                 // x-ms-end-epk
};

// Resolves the scope of a request on a container. kPartitionKeyRangeGone for a range that was
// split, kBadRequest for a malformed header, kNotFound for a range id that never existed.
Result<RequestScope> ResolveScope(const PartitionKeyDefinition& definition, const RoutingMap& routing,
                                  const ScopeRequest& request);

// Splits `range` in the middle of its hash space. Returns the two children (ids next_id and
// next_id + 1, parents = the range and its own parents, version + 1), or kBadRequest when the
// range is too narrow to split.
Result<std::vector<storage::PartitionKeyRangeRecord>> SplitRange(const PartitionKeyDefinition& definition,
                                                                 const RoutingMap& routing,
                                                                 const storage::PartitionKeyRangeRecord& range);

}  // namespace cosmos::engine
