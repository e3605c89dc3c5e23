#include "engine/planning/search_paths.h"

#include <algorithm>
#include <cmath>

#include "query/full_text_analyzer.h"
#include "query/plan/query_plan.h"
#include "query/vector_search.h"

namespace cosmos::engine {

std::optional<VectorOrder> FindVectorOrder(const IndexingPolicy& policy, const query::BoundQuery& bound,
                                           const Json& parameters, const Json& vector_embedding_policy) {
  const query::SelectQuery& q = bound.root();
  const query::SelectInfo& info = bound.info(q);
  if (policy.indexing_disabled() || q.from.size() != 1 || q.order_by.size() != 1 || q.distinct ||
      info.is_grouped() || info.is_aggregate() || info.container_subquery) {
    return std::nullopt;
  }
  const query::OrderByItem& item = q.order_by[0];
  if (!query::IsSimilarityOrder(item)) return std::nullopt;
  const query::Expr& call = *item.expr;
  const std::string& alias = q.from[0].alias;
  // FROM c, not FROM c.sub: the paths are the document's.
  if (q.from[0].collection->kind != query::ExprKind::kIdentifier || call.children.size() < 2) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    const VectorIndexPath* index = policy.search().VectorIndexOn(query::DocumentPolicyPath(*call.children[side], alias));
    if (index == nullptr) continue;
    const std::optional<Json> vector = query::ConstantValue(*call.children[1 - side], parameters);
    if (!vector || !vector->is_array() || vector->size() != index->dimensions) return std::nullopt;
    VectorOrder order{index, {}, query::ResolveVectorMetric(call, alias, parameters, vector_embedding_policy)};
    for (const Json& x : *vector) {
      if (!x.is_number()) return std::nullopt;
      order.query.push_back(static_cast<float>(x.get<double>()));
    }
    return order;
  }
  return std::nullopt;
}

namespace {

// The one term of each phrase of `searches` (strings, or arrays of them); nullopt when one has
// several terms or is not a string.
std::optional<std::vector<std::string>> SingleTerms(const std::vector<Json>& searches, query::TextLanguage language) {
  std::vector<std::string> terms;
  for (const Json& search : searches) {
    std::vector<const Json*> phrases;
    if (search.is_array()) {
      for (const Json& phrase : search) phrases.push_back(&phrase);
    } else {
      phrases.push_back(&search);
    }
    for (const Json* phrase : phrases) {
      if (!phrase->is_string()) return std::nullopt;
      std::vector<std::string> analyzed = query::AnalyzeText(phrase->get_ref<const std::string&>(), language);
      if (analyzed.size() > 1) return std::nullopt;
      terms.push_back(analyzed.empty() ? std::string() : std::move(analyzed.front()));
    }
  }
  return terms;
}

}  // namespace

std::optional<FullTextOrder> FindFullTextOrder(const IndexingPolicy& policy, const query::BoundQuery& bound,
                                               const Json& parameters) {
  const query::SelectQuery& q = bound.root();
  const query::SelectInfo& info = bound.info(q);
  if (policy.indexing_disabled() || q.from.size() != 1 || q.order_by.size() != 1 || q.distinct ||
      info.is_grouped() || info.is_aggregate() || info.container_subquery ||
      q.from[0].collection->kind != query::ExprKind::kIdentifier) {
    return std::nullopt;
  }
  const query::OrderByItem& item = q.order_by[0];
  const query::Expr* call = nullptr;
  bool internal = false;
  if (query::IsSystemCall(*item.expr, "RANK") && query::IsSystemCall(*item.expr->children[0], "FullTextScore")) {
    call = item.expr->children[0].get();
  } else if (query::IsSystemCall(*item.expr, "_FullTextScore") && item.descending) {
    call = item.expr.get();
    internal = true;
  }
  if (call == nullptr || call->children.size() < (internal ? 5u : 2u)) return std::nullopt;
  const FullTextIndexPath* index =
      policy.search().FullTextIndexOn(query::DocumentPolicyPath(*call->children[0], q.from[0].alias));
  if (index == nullptr) return std::nullopt;
  const size_t searches_end = internal ? call->children.size() - 3 : call->children.size();
  std::vector<Json> searches;
  for (size_t i = 1; i < searches_end; ++i) {
    std::optional<Json> search = query::ConstantValue(*call->children[i], parameters);
    if (!search) return std::nullopt;
    searches.push_back(std::move(*search));
  }
  std::optional<std::vector<std::string>> terms = SingleTerms(searches, index->language);
  if (!terms || terms->empty()) return std::nullopt;  // FullTextScore(c.text, []) is the evaluator's 400
  FullTextOrder order{call, index, std::move(*terms), std::nullopt};
  if (internal) {
    const size_t n = call->children.size();
    std::optional<Json> documents = query::ConstantValue(*call->children[n - 3], parameters);
    std::optional<Json> words = query::ConstantValue(*call->children[n - 2], parameters);
    std::optional<Json> hits = query::ConstantValue(*call->children[n - 1], parameters);
    // Statistics as the SDKs gather them: counts. Others (negative, not numbers) are the
    // evaluator's to score.
    const auto count = [](const Json& x) { return x.is_number() && std::isfinite(x.get<double>()) && x.get<double>() >= 0; };
    if (!documents || !words || !hits || !count(*documents) || !count(*words) || !hits->is_array() ||
        !std::all_of(hits->begin(), hits->end(), count)) {
      return std::nullopt;
    }
    query::Bm25Statistics statistics;
    statistics.document_count = documents->get<double>();
    statistics.total_words = words->get<double>();
    for (const Json& h : *hits) statistics.hit_counts.push_back(h.get<double>());
    order.statistics = std::move(statistics);
  }
  return order;
}

}  // namespace cosmos::engine
