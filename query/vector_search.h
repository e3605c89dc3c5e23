// Vector search: what a query's VectorDistance calls take from their container, resolved once per
// query execution (and per query plan): the distance function of each call, and so the order of
// ORDER BY VectorDistance(...), which lists the most similar first whatever direction is written.
#pragma once

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/json.h"
#include "common/status.h"
#include "query/ast.h"
#include "query/functions/registry.h"

namespace cosmos::query {

// The distance function of the VectorDistance(a, b [, bruteForce [, options]]) `call`: the
// options' distanceFunction when written (an object literal or a parameter of `parameters`, the
// request's [{"name","value"}] array), else the container's `vector_embedding_policy` entry for
// the document path compared (a or b, under `root_alias`), else cosine.
VectorMetric ResolveVectorMetric(const Expr& call, std::string_view root_alias, const Json& parameters,
                                 const Json& vector_embedding_policy);

// Every VectorDistance call of `query` (subqueries included), with its distance function.
std::unordered_map<const Expr*, VectorMetric> ResolveVectorMetrics(const SelectQuery& query, const Json& parameters,
                                                                   const Json& vector_embedding_policy);

// The VectorDistance calls of `query` that compare a path of the policy's embeddings: their
// vectors count as float32, as the container stores them (FunctionContext::packed_vector_calls).
std::unordered_set<const Expr*> PackedVectorCalls(const SelectQuery& query, const Json& vector_embedding_policy);

// Checks the vectors `query` compares with a vector path of the policy: a literal or parameter must
// be an array of as many numbers as the policy's dimensions (400 otherwise, as the service refuses
// a query vector that does not fit its embedding).
Status CheckQueryVectors(const SelectQuery& query, const Json& parameters, const Json& vector_embedding_policy);

// Most similar first: ascending euclidean distances, descending cosine and dot-product scores.
inline bool MostSimilarFirstDescends(VectorMetric metric) { return metric != VectorMetric::kEuclidean; }

// True for a call to the system function `name` (any case).
bool IsSystemCall(const Expr& e, std::string_view name);

// An ORDER BY item sorted most similar first whatever direction is written: VectorDistance(...),
// and the hybrid plan's _VectorScore(...) when no direction is written (a component whose weight
// is negative writes the direction that reverses it).
bool IsSimilarityOrder(const OrderByItem& item);

// Whether a sort by `item` leaves out the rows without a score: VectorDistance and _VectorScore in
// either direction (a document without a vector has none), and a hybrid plan's reversed
// _FullTextScore ... ASC, whose unscored rows would otherwise come first and fill its TOP.
bool DropsUnscoredRows(const OrderByItem& item);

// A score a sort can only be computed by evaluating: VectorDistance, FullTextScore and their
// internal forms (the SDKs merge such sorts as non-streaming ORDER BY).
bool IsScoreCall(const Expr& e);

}  // namespace cosmos::query
