#include "engine/partitioning/partitioning.h"

#include <algorithm>
#include <charconv>

#include "common/json.h"
#include "engine/partitioning/effective_partition_key.h"

namespace cosmos::engine {

std::string StoragePartitionKey(const PartitionKeyDefinition& definition, const PartitionKeyValue& value) {
  std::string key = EffectivePartitionKey(definition, value);
  key += ' ';
  key += value.StorageKey();
  return key;
}

int InitialRangeCount(int64_t throughput, int min_physical_partitions) {
  int64_t by_throughput = (throughput + kThroughputPerPhysicalPartition - 1) / kThroughputPerPhysicalPartition;
  return static_cast<int>(std::max<int64_t>({1, by_throughput, min_physical_partitions}));
}

std::vector<storage::PartitionKeyRangeRecord> InitialRanges(const PartitionKeyDefinition& definition, int count) {
  std::vector<std::string> boundaries = InitialRangeBoundaries(definition, count);
  std::vector<storage::PartitionKeyRangeRecord> ranges;
  for (size_t index = 0; index + 1 < boundaries.size(); ++index) {
    storage::PartitionKeyRangeRecord range;
    range.id = static_cast<int64_t>(index);
    range.min_inclusive = boundaries[index];
    range.max_exclusive = boundaries[index + 1];
    range.version = 1;
    ranges.push_back(std::move(range));
  }
  return ranges;
}

RoutingMap::RoutingMap(std::vector<Range> ranges) : ranges_(std::move(ranges)) {
  std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.id < b.id; });
  for (size_t index = 0; index < ranges_.size(); ++index) {
    version_ = std::max(version_, ranges_[index].version);
    next_id_ = std::max(next_id_, ranges_[index].id + 1);
    if (!ranges_[index].gone) online_.push_back(index);
  }
  std::sort(online_.begin(), online_.end(),
            [&](size_t a, size_t b) { return ranges_[a].min_inclusive < ranges_[b].min_inclusive; });
}

std::vector<const RoutingMap::Range*> RoutingMap::online() const {
  std::vector<const Range*> result;
  for (size_t index : online_) result.push_back(&ranges_[index]);
  return result;
}

const RoutingMap::Range* RoutingMap::FindById(int64_t id) const {
  for (const Range& range : ranges_) {
    if (range.id == id) return &range;
  }
  return nullptr;
}

const RoutingMap::Range* RoutingMap::RangeOf(std::string_view epk) const {
  for (size_t index : online_) {
    const Range& range = ranges_[index];
    if (range.min_inclusive <= epk && epk < range.max_exclusive) return &range;
  }
  return nullptr;
}

std::vector<const RoutingMap::Range*> RoutingMap::Overlapping(std::string_view min, std::string_view max_exclusive) const {
  std::vector<const Range*> result;
  for (size_t index : online_) {
    const Range& range = ranges_[index];
    if (std::string_view(range.min_inclusive) < max_exclusive && min < std::string_view(range.max_exclusive)) {
      result.push_back(&range);
    }
  }
  return result;
}

namespace {

// A storage key range for [min, max) of effective keys: "" and "FF" leave that end open.
storage::DocumentScope KeyRangeScope(const std::string& min, const std::string& max) {
  std::optional<std::string> upper;
  if (max < kMaxEffectivePartitionKey) upper = max;
  return storage::DocumentScope::KeyRange(min, std::move(upper));
}

// x-ms-documentdb-partitionkeyrangeid is the range id; older clients prefix it with
// "<collection rid>,".
Result<int64_t> ParseRangeId(const std::string& header) {
  std::string_view text = header;
  if (size_t comma = text.rfind(','); comma != std::string_view::npos) text.remove_prefix(comma + 1);
  int64_t id = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size() || id < 0) {
    return Status::BadRequest("The partition key range id '" + header + "' is invalid.");
  }
  return id;
}

}  // namespace

Result<RequestScope> ResolveScope(const PartitionKeyDefinition& definition, const RoutingMap& routing,
                                  const ScopeRequest& request) {
  RequestScope scope;
  std::string min = "";
  std::string max = kMaxEffectivePartitionKey;
  if (request.partition_key_range_id) {
    COSMOS_ASSIGN_OR_RETURN(int64_t id, ParseRangeId(*request.partition_key_range_id));
    const RoutingMap::Range* range = routing.FindById(id);
    if (range == nullptr) {
      return Status::NotFound("The partition key range '" + *request.partition_key_range_id + "' does not exist.");
    }
    if (range->gone) {
      return Status::PartitionKeyRangeGone("The requested partition key range " + std::to_string(id) +
                                           " is gone: it was split. Refresh the partition key ranges.");
    }
    min = range->min_inclusive;
    max = range->max_exclusive;
    // A client resuming an old range's continuation on a child names the part it still needs.
    if (request.start_epk && *request.start_epk > min) min = *request.start_epk;
    if (request.end_epk && !request.end_epk->empty() && *request.end_epk < max) max = *request.end_epk;
    scope.by_range_id = true;
  }
  if (request.partition_key_header && !request.partition_key_header->empty()) {
    COSMOS_ASSIGN_OR_RETURN(auto value, PartitionKeyValue::FromHeader(definition, *request.partition_key_header,
                                                                      /*allow_prefix=*/true));
    scope.by_partition_key = true;
    std::string epk = EffectivePartitionKey(definition, value);
    if (value.components.size() == definition.paths.size()) {
      bool inside = min <= epk && epk < max;
      const RoutingMap::Range* range = routing.RangeOf(epk);
      if (inside && range != nullptr) scope.range_ids.push_back(range->id);
      // Outside the named range nothing can match: an empty key range says so.
      scope.documents = inside ? storage::DocumentScope::Partition(StoragePartitionKey(definition, value))
                               : storage::DocumentScope::KeyRange("0", "0");
      return scope;
    }
    // A prefix of a hierarchical key: every full key below it.
    min = std::max(min, epk);
    max = std::min(max, epk + kMaxEffectivePartitionKey);
  }
  for (const RoutingMap::Range* range : routing.Overlapping(min, max)) scope.range_ids.push_back(range->id);
  scope.documents = min < max ? KeyRangeScope(min, max) : storage::DocumentScope::KeyRange("0", "0");
  return scope;
}

Result<std::vector<storage::PartitionKeyRangeRecord>> SplitRange(const PartitionKeyDefinition& definition,
                                                                 const RoutingMap& routing,
                                                                 const storage::PartitionKeyRangeRecord& range) {
  std::optional<std::string> middle = SplitPoint(definition, range.min_inclusive, range.max_exclusive);
  if (!middle) {
    return Status::BadRequest("The partition key range " + std::to_string(range.id) + " is too narrow to split.");
  }
  Json parents = Json::parse(range.parents, nullptr, /*allow_exceptions=*/false);
  if (!parents.is_array()) parents = Json::array();
  parents.insert(parents.begin(), std::to_string(range.id));
  std::vector<storage::PartitionKeyRangeRecord> children(2);
  children[0].id = routing.next_id();
  children[0].min_inclusive = range.min_inclusive;
  children[0].max_exclusive = *middle;
  children[1].id = routing.next_id() + 1;
  children[1].min_inclusive = *middle;
  children[1].max_exclusive = range.max_exclusive;
  for (auto& child : children) {
    child.parents = parents.dump();
    child.version = routing.version() + 1;
  }
  return children;
}

}  // namespace cosmos::engine
