// The query plan ("PartitionedQueryExecutionInfo") the gateway returns to an SDK that sends
// `x-ms-cosmos-is-query-plan-request: True`: what the SDK must do across partitions (merge-sort,
// aggregate, group, de-duplicate, skip/take) and the query each partition runs for it:
//
//   {"partitionedQueryExecutionInfoVersion":2,
//    "queryInfo":{"distinctType":"None","top":null,"offset":null,"limit":null,"orderBy":[],
//                 "orderByExpressions":[],"groupByExpressions":[],"groupByAliases":[],
//                 "aggregates":[],"groupByAliasToAggregateType":{},"rewrittenQuery":"",
//                 "hasSelectValue":false,"dCountInfo":null,"hasNonStreamingOrderBy":false},
//    "queryRanges":[{"min":"","max":"FF","isMinInclusive":true,"isMaxInclusive":false}]}
//
// The rewrites follow the service's (see reference/query-plan-vectors.md, matched against the
// .NET SDK's baselines): ORDER BY queries return `_rid`, `orderByItems` and `payload` with a
// resume-filter placeholder in WHERE; aggregates return partial results ({"item": …}); GROUP BY
// returns `groupByItems` + `payload`; OFFSET n LIMIT m becomes OFFSET 0 LIMIT n+m.
// `rewrittenQuery` "" means "run the original query on each partition".
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "query/ast.h"
#include "query/plan/partition_key_filter.h"
#include "query/plan/query_formatter.h"

namespace cosmos::query {

// The query features an SDK declares it can run (x-ms-cosmos-supported-query-features).
enum class QueryFeature {
  kAggregate,
  kCompositeAggregate,
  kDistinct,
  kGroupBy,
  kMultipleAggregates,
  kMultipleOrderBy,
  kNonValueAggregate,
  kOffsetAndLimit,
  kOrderBy,
  kTop,
  kDCount,
  kNonStreamingOrderBy,
  kListAndSetAggregate,
  kCountIf,
  kHybridSearch,
  kWeightedRankFusion,
  kHybridSearchSkipOrderByRewrite,
};

// The header's spelling: "Aggregate", "OffsetAndLimit", ...
std::string_view QueryFeatureName(QueryFeature feature);

class QueryFeatureSet {
 public:
  static QueryFeatureSet All();
  static QueryFeatureSet None() { return QueryFeatureSet(); }
  // Parses the header: names separated by "," (JS, Python) or ", " (.NET); unknown names are
  // ignored, so that newer SDKs keep working.
  static QueryFeatureSet Parse(std::string_view header);

  bool Has(QueryFeature feature) const { return (bits_ & Bit(feature)) != 0; }
  void Add(QueryFeature feature) { bits_ |= Bit(feature); }

 private:
  static uint32_t Bit(QueryFeature feature) { return 1u << static_cast<unsigned>(feature); }
  uint32_t bits_ = 0;
};

struct QueryPlanOptions {
  // What the client can run. A request without the header is assumed to support everything.
  QueryFeatureSet supported_features = QueryFeatureSet::All();
  // The container's partition-key paths ("/pk"): equality filters on them narrow the query.
  std::vector<std::string> partition_key_paths;
  // A hierarchical (MultiHash) key: filters on its first levels narrow the query ranges too.
  bool hierarchical_partition_key = false;
  // The container's vectorEmbeddingPolicy, or null: the distance function of a vector path
  // decides the direction of ORDER BY VectorDistance(…) (euclidean ascending, others descending).
  Json vector_embedding_policy;
  // Turns the partition-key values the query can reach into effective-partition-key ranges
  // (the partitioning layer hashes them). Unset: the full range, EffectiveQueryRanges.
  std::function<Json(const PartitionKeyTargets&)> query_ranges;
};

// Builds the PartitionedQueryExecutionInfo for a parsed (and bound) query. `parameters` is the
// request's [{"name","value"}] array: TOP/OFFSET/LIMIT parameters are inlined as numbers, as the
// service does. Fails with BadRequest for what the service's plan code rejects (aggregates inside
// other expressions, TOP/OFFSET/LIMIT out of range) and for features the client did not declare.
Result<Json> BuildQueryPlan(const SelectQuery& query, const Json& parameters, const QueryPlanOptions& options);

// The value of parameter `name` ("@p") in the request's [{"name","value"}] array, or null.
const Json* FindParameter(const Json& parameters, std::string_view name);

// A value the query states before any row: a literal, a parameter of `parameters`, a negated
// number literal, or an array literal of such (a vector, search terms); nullopt otherwise.
std::optional<Json> ConstantValue(const Expr& e, const Json& parameters);

// The value of a TOP, OFFSET or LIMIT count (a literal, or a parameter of `parameters`) when it
// is an integer in [0, 2^32); nullopt otherwise (the plan rejects such a count).
std::optional<uint64_t> CountValue(const Expr& count, const Json& parameters);

// The full effective-partition-key range ["", "FF"), for a plan built without a partitioning layer.
Json EffectiveQueryRanges(const PartitionKeyTargets& targets);

}  // namespace cosmos::query
