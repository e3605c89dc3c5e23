#include "engine/planning/partition_targets.h"

#include <algorithm>
#include <map>
#include <string>

#include "engine/partitioning/effective_partition_key.h"
#include "query/plan/query_plan.h"

namespace cosmos::engine {
namespace {

PartitionKeyValue FromQueryTarget(const query::PartitionKeyValue& target) {
  PartitionKeyValue value;
  for (const query::PartitionKeyComponent& component : target) {
    value.components.push_back(PartitionKeyComponent{component.undefined, component.value});
  }
  return value;
}

// The effective keys of a query's partition-key targets, in key order, each a point (a full key) or
// a prefix (every key below it); a target inside a prefix also listed is dropped, so that no two
// overlap.
struct TargetKey {
  std::string epk;
  bool prefix = false;
  PartitionKeyValue value;
};

std::vector<TargetKey> TargetKeys(const PartitionKeyDefinition& definition, const query::PartitionKeyTargets& targets) {
  std::map<std::string, TargetKey> by_epk;
  for (const query::PartitionKeyValue& target : targets.points) {
    TargetKey key;
    key.value = FromQueryTarget(target);
    key.epk = EffectivePartitionKey(definition, key.value);
    key.prefix = target.size() < definition.paths.size();
    auto [found, inserted] = by_epk.emplace(key.epk, key);
    if (!inserted && key.prefix) found->second = std::move(key);  // a prefix covers the point equal to it
  }
  std::vector<TargetKey> keys;
  for (auto& [epk, key] : by_epk) {
    bool covered = !keys.empty() && keys.back().prefix && epk.compare(0, keys.back().epk.size(), keys.back().epk) == 0;
    if (!covered) keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace

std::optional<std::vector<storage::DocumentScope>> PinnedPartitions(const ResolvedContainer& container,
                                                                    const query::BoundQuery& prepared,
                                                                    const Json& parameters,
                                                                    const storage::DocumentScope& scope,
                                                                    std::vector<int64_t>& range_ids) {
  bool hierarchical = container.partition_key.kind == PartitionKeyKind::kMultiHash;
  query::PartitionKeyTargets targets =
      query::FindPartitionKeyTargets(prepared.root(), parameters, container.partition_key.paths, hierarchical);
  if (targets.kind != query::PartitionKeyTargets::Kind::kPoints) return std::nullopt;
  // In effective-key order, which is storage order, as the document source requires.
  std::vector<storage::DocumentScope> scopes;
  std::vector<int64_t> ranges;
  for (TargetKey& target : TargetKeys(container.partition_key, targets)) {
    if (target.prefix) {
      // Every full key below the prefix, within the request's scope.
      std::string min = std::max(target.epk, scope.min_key);
      std::string max = target.epk + kMaxEffectivePartitionKey;
      if (scope.max_key) max = std::min(max, *scope.max_key);
      if (min >= max) continue;
      for (const RoutingMap::Range* range : container.routing.Overlapping(min, max)) ranges.push_back(range->id);
      scopes.push_back(storage::DocumentScope::KeyRange(min, max));
      continue;
    }
    if (target.epk < scope.min_key || (scope.max_key && target.epk >= *scope.max_key)) continue;
    scopes.push_back(storage::DocumentScope::Partition(StoragePartitionKey(container.partition_key, target.value)));
    if (const RoutingMap::Range* range = container.routing.RangeOf(target.epk)) ranges.push_back(range->id);
  }
  std::sort(ranges.begin(), ranges.end());
  ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
  range_ids = std::move(ranges);
  return scopes;
}

Json EffectiveRangesOf(const PartitionKeyDefinition& definition, const query::PartitionKeyTargets& targets) {
  auto point = [](const std::string& epk) {
    return Json{{"min", epk}, {"max", epk}, {"isMinInclusive", true}, {"isMaxInclusive", true}};
  };
  auto below_prefix = [](const std::string& epk) {
    return Json{{"min", epk}, {"max", epk + kMaxEffectivePartitionKey}, {"isMinInclusive", true},
                {"isMaxInclusive", false}};
  };
  switch (targets.kind) {
    case query::PartitionKeyTargets::Kind::kAll: return query::EffectiveQueryRanges(targets);
    case query::PartitionKeyTargets::Kind::kNone: return Json::array({point("")});
    case query::PartitionKeyTargets::Kind::kPoints: break;
  }
  Json ranges = Json::array();  // the SDK wants them sorted and non-overlapping
  for (const TargetKey& target : TargetKeys(definition, targets)) {
    ranges.push_back(target.prefix ? below_prefix(target.epk) : point(target.epk));
  }
  return ranges;
}

std::vector<int64_t> RangesReached(const RoutingMap& routing, const Json& query_ranges) {
  std::vector<int64_t> ids;
  for (const Json& range : query_ranges) {
    std::string min = range["min"].get<std::string>();
    std::string max = range["max"].get<std::string>();
    // An inclusive end: the smallest string above `max` is max + '\0'.
    if (range["isMaxInclusive"].get<bool>()) max += '\0';
    for (const RoutingMap::Range* found : routing.Overlapping(min, max)) ids.push_back(found->id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace cosmos::engine
