// Search queries a search index can serve (engine/indexing/search_indexes.h):
//  - ORDER BY VectorDistance(path, vector) (most similar first) over a path with a vector index,
//    compared with a vector the query gives (a literal or a parameter): the vector index orders
//    the documents (engine/queries/search_sources.h) instead of a scan scoring every one;
//  - ORDER BY RANK FullTextScore(path, ...) and a hybrid plan's ORDER BY _FullTextScore(path,
//    [...], N, words, [hits]) DESC over a path with a full-text index, when each phrase is one
//    term (or none): the index scores and orders them (engine/queries/full_text_sources.h).
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "common/json.h"
#include "engine/indexing/indexing_policy.h"
#include "query/binder.h"
#include "query/functions/registry.h"

namespace cosmos::engine {

struct VectorOrder {
  const VectorIndexPath* index = nullptr;  // the policy's
  std::vector<float> query;                // the vector compared, as float32
  query::VectorMetric metric = query::VectorMetric::kCosine;
};

// The vector order of `query` a vector index of `policy` serves, if any: a select of one FROM
// source, neither grouped nor aggregated nor DISTINCT, whose only ORDER BY item is a similarity
// order (query/vector_search.h) of an indexed path and a vector of its dimensions.
std::optional<VectorOrder> FindVectorOrder(const IndexingPolicy& policy, const query::BoundQuery& query,
                                           const Json& parameters, const Json& vector_embedding_policy);

struct FullTextOrder {
  const query::Expr* call = nullptr;             // the FullTextScore or _FullTextScore call
  const FullTextIndexPath* index = nullptr;      // the policy's
  std::vector<std::string> terms;                // one per phrase, "" for a phrase without a term
  std::optional<query::Bm25Statistics> statistics;  // _FullTextScore's; FullTextScore gathers them
};

std::optional<FullTextOrder> FindFullTextOrder(const IndexingPolicy& policy, const query::BoundQuery& query,
                                               const Json& parameters);

}  // namespace cosmos::engine
