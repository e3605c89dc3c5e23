#include "engine/planning/cross_partition.h"

#include "engine/planning/partition_targets.h"
#include "query/plan/query_plan.h"

namespace cosmos::engine {

Result<Json> ContainerQueryPlan(const ResolvedContainer& container, const query::BoundQuery& prepared,
                                const Json& parameters, const std::optional<std::string>& supported_features) {
  query::QueryPlanOptions options;
  if (supported_features) options.supported_features = query::QueryFeatureSet::Parse(*supported_features);
  options.partition_key_paths = container.partition_key.paths;
  options.hierarchical_partition_key = container.partition_key.kind == PartitionKeyKind::kMultiHash;
  if (container.properties.contains("vectorEmbeddingPolicy")) {
    options.vector_embedding_policy = container.properties["vectorEmbeddingPolicy"];
  }
  const PartitionKeyDefinition& definition = container.partition_key;
  options.query_ranges = [&definition](const query::PartitionKeyTargets& targets) {
    return EffectiveRangesOf(definition, targets);
  };
  return query::BuildQueryPlan(prepared.root(), parameters, options);
}

bool NeedsClientPipeline(const Json& plan) {
  if (plan.contains("hybridSearchQueryInfo")) return true;
  const Json& query_info = plan["queryInfo"];
  return query_info["distinctType"] != "None" || !query_info["top"].is_null() || !query_info["offset"].is_null() ||
         !query_info["limit"].is_null() || !query_info["orderBy"].empty() || !query_info["aggregates"].empty() ||
         !query_info["groupByExpressions"].empty() || !query_info["groupByAliasToAggregateType"].empty() ||
         !query_info["dCountInfo"].is_null() || query_info["hasNonStreamingOrderBy"] == true ||
         query_info["rewrittenQuery"] != "";
}

bool HasWholeContainerSubquery(const query::BoundQuery& query) {
  const query::SelectQuery* select = &query.root();
  while (query.info(*select).container_subquery) {
    const query::SelectQuery& inner = *select->from[0].collection->subquery;
    const query::SelectInfo& info = query.info(inner);
    if (inner.top || inner.offset || inner.limit || !inner.order_by.empty() || inner.distinct || info.is_grouped() ||
        info.is_aggregate()) {
      return true;
    }
    select = &inner;
  }
  return false;
}

}  // namespace cosmos::engine
