#include "engine/planning/index_lookup.h"

#include <algorithm>

namespace cosmos::engine {
namespace {

using query::IndexPredicate;

// Lower ranks are more selective.
int RankOf(const IndexPredicate& predicate) {
  switch (predicate.kind) {
    case IndexPredicate::Kind::kEquals: return predicate.values.size() == 1 ? 0 : 1;
    case IndexPredicate::Kind::kPrefix:
    case IndexPredicate::Kind::kFullText: return 2;
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
    case IndexPredicate::Kind::kFullText:
      return false;
  }
  return false;
}

// The ranges of one predicate's values; nullopt for a range whose bounds differ in type.
std::optional<IndexLookup> LookupFor(const IndexPredicate& predicate) {
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
      if (!range) return std::nullopt;
      lookup.ranges.push_back(std::move(*range));
      break;
    }
    case IndexPredicate::Kind::kFullText:
      return std::nullopt;  // FullTextLookups
  }
  return lookup;
}

// A full-text predicate on a path with a full-text index: one lookup per distinct term of its
// phrases (the documents holding every term), in its path's language. None for a phrase of stop
// words alone, which FullTextContains finds nowhere: the WHERE clause settles it.
std::vector<IndexLookup> FullTextLookups(const IndexingPolicy& policy, const IndexPredicate& predicate) {
  std::vector<IndexLookup> lookups;
  const FullTextIndexPath* index = policy.search().FullTextIndexOn(IndexPathText(predicate.path));
  if (index == nullptr) return lookups;
  std::vector<std::string> terms;
  bool one_term_each = true;  // then a document holds every phrase exactly when it has every term
  for (const Json& phrase : predicate.values) {
    std::vector<std::string> analyzed = query::AnalyzeText(phrase.get_ref<const std::string&>(), index->language);
    one_term_each = one_term_each && analyzed.size() == 1;
    for (std::string& term : analyzed) {
      if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(std::move(term));
    }
  }
  for (const std::string& term : terms) {
    FullTextTermRange bounds = FullTextTermBounds(term);
    IndexLookup lookup;
    lookup.path = FullTextEntryPath(index->path);
    lookup.ranges.push_back({std::move(bounds.lower), true, std::move(bounds.upper), false});
    lookup.full_text_terms = one_term_each ? terms.size() : 0;
    lookups.push_back(std::move(lookup));
  }
  return lookups;
}

}  // namespace

bool LookupsAnswerAll(const std::vector<IndexLookup>& lookups, const std::vector<query::IndexPredicate>& predicates) {
  std::vector<IndexPredicate> merged = MergeRanges(predicates);
  size_t answered = 0;
  for (const IndexLookup& lookup : lookups) {
    if (!lookup.covers.empty() && !lookup.complete) return false;
    if (lookup.full_text_terms > 0) continue;  // counted with their predicate below
    answered += lookup.covers.empty() ? 1 : lookup.covers.size();
  }
  // A full-text predicate is answered when it alone has lookups on its path's entries, every
  // term of it one, each phrase one term.
  for (const IndexPredicate& predicate : merged) {
    if (predicate.kind != IndexPredicate::Kind::kFullText) continue;
    const std::string path = FullTextEntryPath(IndexPathText(predicate.path));
    size_t on_path = 0, terms = 0;
    for (const IndexLookup& lookup : lookups) {
      if (lookup.path != path) continue;
      ++on_path;
      terms = lookup.full_text_terms;
    }
    const bool alone = std::count_if(merged.begin(), merged.end(), [&](const IndexPredicate& other) {
                         return other.kind == IndexPredicate::Kind::kFullText && other.path == predicate.path;
                       }) == 1;
    if (!alone || terms == 0 || on_path != terms) return false;
    ++answered;
  }
  if (merged.empty() || merged.size() != answered) return false;
  for (const IndexPredicate& predicate : merged) {
    if (predicate.kind == IndexPredicate::Kind::kFullText) continue;
    if (!AnsweredExactly(predicate)) return false;
    std::string path = IndexPathText(predicate.path);
    if (std::none_of(lookups.begin(), lookups.end(), [&](const IndexLookup& lookup) {
          return lookup.path == path || std::find(lookup.covers.begin(), lookup.covers.end(), path) != lookup.covers.end();
        })) {
      return false;
    }
  }
  return true;
}

std::vector<IndexLookup> CompositeLookups(const IndexingPolicy& policy,
                                          const std::vector<query::IndexPredicate>& predicates) {
  std::vector<IndexLookup> lookups;
  std::vector<IndexPredicate> merged = MergeRanges(predicates);
  // The predicate of a kind on a path; several of one kind there (c.a = 1 AND c.a = 2) are left
  // to single-path lookups.
  auto find = [&](const DocumentPath& path, bool equality) -> const IndexPredicate* {
    const IndexPredicate* found = nullptr;
    for (const IndexPredicate& predicate : merged) {
      if (predicate.path != path || (predicate.kind == IndexPredicate::Kind::kEquals) != equality) continue;
      if (found != nullptr) return nullptr;
      found = &predicate;
    }
    return found;
  };
  for (const std::vector<OrderByPath>& paths : policy.CompositeIndexPaths()) {
    // Tuples of the leading paths' equal values (each with its direction), as long as each
    // path has an equality.
    std::vector<std::vector<std::pair<std::string, bool>>> tuples = {{}};
    IndexLookup lookup;
    lookup.path = CompositeEntryPath(paths);
    size_t covered = 0;
    for (; covered < paths.size(); ++covered) {
      const IndexPredicate* equal = find(paths[covered].path, true);
      if (equal == nullptr || tuples.size() * equal->values.size() > kMostCompositeTuples) break;
      std::vector<std::vector<std::pair<std::string, bool>>> longer;
      for (const auto& tuple : tuples) {
        for (const Json& value : equal->values) {
          longer.push_back(tuple);
          longer.back().emplace_back(*EncodeIndexValue(value), paths[covered].descending);
        }
      }
      tuples = std::move(longer);
      lookup.covers.push_back(IndexPathText(paths[covered].path));
    }
    // The next path's range (or STARTSWITH) bounds each tuple further.
    std::optional<IndexValueRange> last;
    bool last_descending = false;
    if (covered < paths.size()) {
      std::vector<IndexPredicate> on_next;
      for (const IndexPredicate& predicate : merged) {
        if (predicate.path == paths[covered].path && predicate.kind != IndexPredicate::Kind::kEquals) {
          on_next.push_back(predicate);
        }
      }
      if (on_next.size() == 1) {
        std::optional<IndexLookup> single = LookupFor(on_next.front());
        if (single && single->ranges.size() == 1) {
          last = single->ranges.front();
          last_descending = paths[covered].descending;
          lookup.covers.push_back(IndexPathText(paths[covered].path));
          ++covered;
        }
      }
    }
    if (lookup.covers.empty()) continue;
    lookup.complete = covered == paths.size();
    lookup.equality = lookup.complete && !last;
    for (const auto& tuple : tuples) {
      const std::string prefix = EncodeCompositeValue(tuple);
      if (!last) {
        if (lookup.complete) {
          lookup.ranges.push_back({prefix, true, prefix, true});
        } else {
          // Every tuple that starts with the prefix: its last byte (a terminator, 0x01 or 0xFE
          // inverted) raised by one bounds them.
          std::string upper = prefix;
          upper.back() = static_cast<char>(upper.back() + 1);
          lookup.ranges.push_back({prefix, true, std::move(upper), false});
        }
        continue;
      }
      // The bounds as tuples: prefix + the bound's component. An inverted component turns the
      // range around.
      auto tuple_of = [&](const std::string& bound) {
        auto components = tuple;
        components.emplace_back(bound, last_descending);
        return EncodeCompositeValue(components);
      };
      if (!last_descending) {
        lookup.ranges.push_back({tuple_of(last->lower), last->lower_inclusive, tuple_of(last->upper), last->upper_inclusive});
      } else {
        lookup.ranges.push_back({tuple_of(last->upper), last->upper_inclusive, tuple_of(last->lower), last->lower_inclusive});
      }
    }
    std::sort(lookup.ranges.begin(), lookup.ranges.end(),
              [](const IndexValueRange& a, const IndexValueRange& b) { return a.lower < b.lower; });
    lookups.push_back(std::move(lookup));
  }
  return lookups;
}

std::vector<IndexLookup> IndexLookups(const IndexingPolicy& policy, const std::vector<query::IndexPredicate>& predicates) {
  std::vector<IndexLookup> lookups;
  if (policy.indexing_disabled()) return lookups;
  std::vector<IndexPredicate> merged = MergeRanges(predicates);
  std::stable_sort(merged.begin(), merged.end(),
                   [](const IndexPredicate& a, const IndexPredicate& b) { return RankOf(a) < RankOf(b); });
  for (const IndexPredicate& predicate : merged) {
    if (predicate.kind == IndexPredicate::Kind::kFullText) {
      for (IndexLookup& lookup : FullTextLookups(policy, predicate)) lookups.push_back(std::move(lookup));
      continue;
    }
    if (!policy.IsIndexed(predicate.path)) continue;
    if (std::optional<IndexLookup> lookup = LookupFor(predicate)) lookups.push_back(std::move(*lookup));
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
