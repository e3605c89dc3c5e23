#include "engine/planning/index_lookup.h"

#include <algorithm>

namespace cosmos::engine {
namespace {

using query::IndexPredicate;

// Lower ranks are more selective.
int RankOf(const IndexPredicate& predicate) {
  switch (predicate.kind) {
    case IndexPredicate::Kind::kEquals: return predicate.values.size() == 1 ? 0 : 1;
    case IndexPredicate::Kind::kPrefix: return 2;
    case IndexPredicate::Kind::kRange: return predicate.lower && predicate.upper ? 3 : 4;
  }
  return 5;
}

// The type byte of an ordered value: numbers and strings.
char TypeOf(const Json& value) { return value.is_number() ? kIndexTypeNumber : kIndexTypeString; }

std::optional<IndexValueRange> RangeOf(const IndexPredicate& predicate) {
  IndexValueRange range;
  const Json& any_bound = predicate.lower ? *predicate.lower : *predicate.upper;
  char type = TypeOf(any_bound);
  if (predicate.lower && predicate.upper && TypeOf(*predicate.upper) != type) return std::nullopt;
  if (predicate.lower) {
    range.lower = *EncodeIndexValue(*predicate.lower);
    range.lower_inclusive = predicate.lower_inclusive || IndexValueCut(*predicate.lower);
  } else {
    range.lower = std::string(1, type);  // the smallest value of the type
  }
  if (predicate.upper) {
    range.upper = *EncodeIndexValue(*predicate.upper);
    range.upper_inclusive = predicate.upper_inclusive || IndexValueCut(*predicate.upper);
  } else {
    range.upper = std::string(1, static_cast<char>(type + 1));  // up to the next type
    range.upper_inclusive = false;
  }
  return range;
}

// Two one-sided ranges on one path (c.n > 1 AND c.n < 5) make one closed range.
std::vector<IndexPredicate> MergeRanges(const std::vector<IndexPredicate>& predicates) {
  std::vector<IndexPredicate> merged;
  for (const IndexPredicate& predicate : predicates) {
    bool absorbed = false;
    if (predicate.kind == IndexPredicate::Kind::kRange) {
      for (IndexPredicate& other : merged) {
        if (other.kind != IndexPredicate::Kind::kRange || other.path != predicate.path) continue;
        const Json& mine = predicate.lower ? *predicate.lower : *predicate.upper;
        const Json& theirs = other.lower ? *other.lower : *other.upper;
        if (TypeOf(mine) != TypeOf(theirs)) continue;
        if (predicate.lower && !other.lower) {
          other.lower = predicate.lower;
          other.lower_inclusive = predicate.lower_inclusive;
          absorbed = true;
        } else if (predicate.upper && !other.upper) {
          other.upper = predicate.upper;
          other.upper_inclusive = predicate.upper_inclusive;
          absorbed = true;
        }
        if (absorbed) break;
      }
    }
    if (!absorbed) merged.push_back(predicate);
  }
  return merged;
}

// A path whose entries hold exactly the scalar at it: property names only (no array element, no
// step that could be an array position).
bool NamesProperties(const std::vector<std::string>& path) {
  return std::none_of(path.begin(), path.end(), [](const std::string& step) {
    return step == "[]" || step.empty() || std::all_of(step.begin(), step.end(), [](char c) { return c >= '0' && c <= '9'; });
  });
}

// Whether `predicate` holds exactly for the documents with an entry in its lookup's ranges.
bool AnsweredExactly(const IndexPredicate& predicate) {
  if (!NamesProperties(predicate.path)) return false;
  switch (predicate.kind) {
    case IndexPredicate::Kind::kEquals:
      return std::none_of(predicate.values.begin(), predicate.values.end(), [](const Json& value) {
        return IndexValueCut(value) || !EncodeIndexValue(value);
      });
    case IndexPredicate::Kind::kRange:
      return (!predicate.lower || predicate.lower->is_number()) && (!predicate.upper || predicate.upper->is_number());
    case IndexPredicate::Kind::kPrefix:
      return false;
  }
  return false;
}

}  // namespace

bool LookupsAnswerAll(const std::vector<IndexLookup>& lookups, const std::vector<query::IndexPredicate>& predicates) {
  std::vector<IndexPredicate> merged = MergeRanges(predicates);
  if (merged.empty() || merged.size() != lookups.size()) return false;
  for (const IndexPredicate& predicate : merged) {
    if (!AnsweredExactly(predicate)) return false;
    std::string path = IndexPathText(predicate.path);
    if (std::none_of(lookups.begin(), lookups.end(), [&](const IndexLookup& lookup) { return lookup.path == path; })) {
      return false;
    }
  }
  return true;
}

std::vector<IndexLookup> IndexLookups(const IndexingPolicy& policy, const std::vector<query::IndexPredicate>& predicates) {
  std::vector<IndexLookup> lookups;
  if (policy.indexing_disabled()) return lookups;
  std::vector<IndexPredicate> merged = MergeRanges(predicates);
  std::stable_sort(merged.begin(), merged.end(),
                   [](const IndexPredicate& a, const IndexPredicate& b) { return RankOf(a) < RankOf(b); });
  for (const IndexPredicate& predicate : merged) {
    if (!policy.IsIndexed(predicate.path)) continue;
    IndexLookup lookup;
    lookup.path = IndexPathText(predicate.path);
    switch (predicate.kind) {
      case IndexPredicate::Kind::kEquals:
        lookup.equality = true;
        for (const Json& value : predicate.values) {
          std::string encoded = *EncodeIndexValue(value);
          lookup.ranges.push_back({encoded, true, encoded, true});
        }
        break;
      case IndexPredicate::Kind::kPrefix: {
        std::string lower = kIndexTypeString + predicate.prefix.substr(0, kIndexedStringBytes);
        // Every string that starts with the prefix sorts below prefix + 0xFF (no UTF-8 byte is 0xFF).
        lookup.ranges.push_back({lower, true, lower + '\xFF', false});
        break;
      }
      case IndexPredicate::Kind::kRange: {
        std::optional<IndexValueRange> range = RangeOf(predicate);
        if (!range) continue;
        lookup.ranges.push_back(std::move(*range));
        break;
      }
    }
    lookups.push_back(std::move(lookup));
  }
  return lookups;
}

std::optional<IndexLookup> ChooseIndexLookup(const IndexingPolicy& policy,
                                             const std::vector<query::IndexPredicate>& predicates) {
  std::vector<IndexLookup> lookups = IndexLookups(policy, predicates);
  if (lookups.empty()) return std::nullopt;
  return std::move(lookups.front());
}

}  // namespace cosmos::engine
