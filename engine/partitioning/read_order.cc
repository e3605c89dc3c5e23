#include "engine/partitioning/read_order.h"

#include <algorithm>

namespace cosmos::engine {
namespace {

// The part of `scope` inside [min_key, max_key), if any.
std::optional<storage::DocumentScope> Clip(const storage::DocumentScope& scope, const std::string& min_key,
                                           const std::string& max_key) {
  if (scope.partition_key) {
    // Stored keys start with the effective key, so they compare with bounds as it does.
    const std::string& key = *scope.partition_key;
    if (key < min_key || key >= max_key) return std::nullopt;
    return scope;
  }
  std::string min = std::max(scope.min_key, min_key);
  std::string max = scope.max_key ? std::min(*scope.max_key, max_key) : max_key;
  if (min >= max) return std::nullopt;
  std::optional<std::string> upper;
  if (max < kMaxEffectivePartitionKey) upper = std::move(max);
  return storage::DocumentScope::KeyRange(std::move(min), std::move(upper));
}

}  // namespace

bool ReadSegment::Holds(const std::string& partition_key) const {
  for (const storage::DocumentScope& scope : scopes) {
    if (scope.partition_key ? partition_key == *scope.partition_key
                            : partition_key >= scope.min_key && (!scope.max_key || partition_key < *scope.max_key)) {
      return true;
    }
  }
  return false;
}

std::vector<ReadSegment> ReadSegments(const RoutingMap& routing, const std::vector<storage::DocumentScope>& scopes) {
  std::vector<std::pair<std::string, std::string>> bounds;
  for (const RoutingMap::Range* range : routing.online()) bounds.emplace_back(range->min_inclusive, range->max_exclusive);
  if (bounds.empty()) bounds.emplace_back("", kMaxEffectivePartitionKey);
  std::vector<ReadSegment> segments;
  for (auto& [min_key, max_key] : bounds) {
    ReadSegment segment{min_key, max_key, {}};
    for (const storage::DocumentScope& scope : scopes) {
      if (auto clipped = Clip(scope, min_key, max_key)) segment.scopes.push_back(std::move(*clipped));
    }
    if (!segment.scopes.empty()) segments.push_back(std::move(segment));
  }
  return segments;
}

Json ReadPosition::ToJson() const { return Json::array({seq, min_key, max_key}); }

std::optional<ReadPosition> ReadPosition::FromJson(const Json& json) {
  if (!json.is_array() || json.size() != 3 || !json[0].is_number_integer() || !json[1].is_string() ||
      !json[2].is_string() || json[1].get_ref<const std::string&>() >= json[2].get_ref<const std::string&>()) {
    return std::nullopt;
  }
  return ReadPosition{json[0].get<int64_t>(), json[1].get<std::string>(), json[2].get<std::string>()};
}

std::vector<SegmentRead> SegmentsToRead(const std::vector<ReadSegment>& segments,
                                        const std::optional<ReadPosition>& resume) {
  std::vector<SegmentRead> reads;
  std::optional<size_t> resumed;  // the segment standing for the position's bounds, once made
  for (const ReadSegment& segment : segments) {
    if (!resume || segment.min_key >= resume->max_key) {  // not reached yet
      reads.push_back({segment, 0});
    } else if (segment.max_key > resume->min_key) {  // inside the bounds
      if (!resumed) {
        resumed = reads.size();
        reads.push_back({ReadSegment{resume->min_key, resume->max_key, {}}, resume->seq});
      }
      auto& scopes = reads[*resumed].segment.scopes;
      scopes.insert(scopes.end(), segment.scopes.begin(), segment.scopes.end());
    }
  }
  return reads;
}

}  // namespace cosmos::engine
