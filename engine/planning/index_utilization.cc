#include "engine/planning/index_utilization.h"

#include <set>
#include <vector>

#include "common/encoding.h"
#include "engine/planning/access_path.h"
#include "query/plan/index_filter.h"

namespace cosmos::engine {
namespace {

using query::IndexPredicate;

std::string IndexSpec(const DocumentPath& path, const char* end) {
  std::string spec;
  for (const std::string& step : path) spec += "/" + step;
  return spec + end;
}

std::string RootPath(const DocumentPath& path) {
  std::string text = "ROOT";
  for (const std::string& step : path) text += step == "[]" ? "[]" : "." + step;
  return text;
}

// The predicate as the service prints it, e.g. "(ROOT.n = 4)".
std::string FilterExpression(const IndexPredicate& predicate) {
  std::string root = RootPath(predicate.path);
  switch (predicate.kind) {
    case IndexPredicate::Kind::kEquals: {
      if (predicate.values.size() == 1) return "(" + root + " = " + predicate.values.front().dump() + ")";
      std::string list;
      for (const Json& value : predicate.values) list += (list.empty() ? "" : ", ") + value.dump();
      return "(" + root + " IN (" + list + "))";
    }
    case IndexPredicate::Kind::kPrefix:
      return "STARTSWITH(" + root + ", " + Json(predicate.prefix).dump() + ")";
    case IndexPredicate::Kind::kFullText: {
      std::string phrases;
      for (const Json& phrase : predicate.values) phrases += ", " + phrase.dump();
      return "FullTextContainsAll(" + root + phrases + ")";
    }
    case IndexPredicate::Kind::kRange: {
      std::string text;
      if (predicate.lower) text += "(" + root + (predicate.lower_inclusive ? " >= " : " > ") + predicate.lower->dump() + ")";
      if (predicate.upper) {
        if (!text.empty()) text += " AND ";
        text += "(" + root + (predicate.upper_inclusive ? " <= " : " < ") + predicate.upper->dump() + ")";
      }
      return text;
    }
  }
  return "";
}

Json SingleIndex(const std::string& filter, const DocumentPath& path) {
  return {{"FilterExpression", filter},
          {"IndexSpec", IndexSpec(path, "/?")},
          {"FilterPreciseSet", true},
          {"IndexPreciseSet", true},
          {"IndexImpactScore", "High"}};
}

Json CompositeIndex(const std::vector<OrderByPath>& paths) {
  Json specs = Json::array();
  for (const OrderByPath& item : paths) specs.push_back(IndexSpec(item.path, item.descending ? " DESC" : " ASC"));
  return {{"IndexSpecs", std::move(specs)}, {"IndexPreciseSet", true}, {"IndexImpactScore", "High"}};
}

}  // namespace

Json IndexUtilization(const IndexingPolicy& policy, const query::BoundQuery& prepared, const Json& parameters) {
  Json utilized_single = Json::array();
  Json potential_single = Json::array();
  Json utilized_composite = Json::array();
  Json potential_composite = Json::array();
  const bool indexing = !policy.indexing_disabled();

  std::vector<IndexPredicate> predicates = query::FindIndexPredicates(prepared.root(), parameters);
  std::set<DocumentPath> filtered;
  for (const IndexPredicate& predicate : predicates) {
    if (!filtered.insert(predicate.path).second) continue;
    Json entry = SingleIndex(FilterExpression(predicate), predicate.path);
    const bool indexed = predicate.kind == IndexPredicate::Kind::kFullText
                             ? policy.search().FullTextIndexOn(IndexPathText(predicate.path)) != nullptr
                             : policy.IsIndexed(predicate.path);
    (indexing && indexed ? utilized_single : potential_single).push_back(std::move(entry));
  }

  std::vector<OrderByPath> order_by = OrderByPaths(prepared.root());
  if (order_by.size() == 1 && !filtered.count(order_by.front().path)) {
    Json entry = SingleIndex("", order_by.front().path);
    (indexing && policy.IsIndexed(order_by.front().path) ? utilized_single : potential_single).push_back(entry);
  }
  if (order_by.size() > 1) {
    (indexing && policy.FindCompositeIndex(order_by) ? utilized_composite : potential_composite)
        .push_back(CompositeIndex(order_by));
  }
  // An equality filter with an ORDER BY on another path reads best from a composite index of the
  // filtered path and the sorted ones, as the service's recommendations put it.
  if (!order_by.empty()) {
    for (const IndexPredicate& predicate : predicates) {
      if (predicate.kind != IndexPredicate::Kind::kEquals || predicate.values.size() != 1) continue;
      if (predicate.path == order_by.front().path) continue;
      std::vector<OrderByPath> composite = {{predicate.path, order_by.front().descending}};
      composite.insert(composite.end(), order_by.begin(), order_by.end());
      if (!(indexing && policy.FindCompositeIndex(composite))) potential_composite.push_back(CompositeIndex(composite));
    }
  }
  return {{"UtilizedSingleIndexes", std::move(utilized_single)},
          {"PotentialSingleIndexes", std::move(potential_single)},
          {"UtilizedCompositeIndexes", std::move(utilized_composite)},
          {"PotentialCompositeIndexes", std::move(potential_composite)}};
}

std::string IndexUtilizationHeader(const Json& utilization) {
  std::string text = utilization.dump();
  return Base64Encode(std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace cosmos::engine
