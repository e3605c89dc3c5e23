// The plan of ORDER BY RANK (full-text and hybrid search): instead of a queryInfo, a
// hybridSearchQueryInfo, which the SDKs run in three steps (read in their sources:
// HybridQueryExecutionContext of @azure/cosmos, HybridSearchCrossPartitionQueryPipelineStage of
// the .NET SDK):
//  1. globalStatisticsQuery on every partition, summed by the SDK: the document count, and for
//     each FullTextScore its text's total word count and the documents holding each phrase;
//     `requiresGlobalStatistics` says whether there is any FullTextScore to gather for;
//  2. one component query per score, with the statistics put in its placeholders
//     ({documentdb-formattablehybridsearchquery-totaldocumentcount}, ...-totalwordcount-<i> and
//     ...-hitcountsarray-<i>, <i> the component's position): the score's internal form
//     (_FullTextScore(text, [phrases], N, words, [hits]) or _VectorScore(path, vector)), most
//     relevant first, each row carrying its `_rid` and the scores of all components;
//  3. reciprocal rank fusion of the components' rows (k = 60, `componentWeights`, a negative
//     weight reversing its component's order), then `skip` and `take`.
// Each component keeps max(120, 2 * (skip + take)) rows, as the service's plans do.
#pragma once

#include <cstdint>
#include <optional>

#include "common/json.h"
#include "common/result.h"
#include "query/ast.h"

namespace cosmos::query {

struct QueryPlanOptions;

// The hybridSearchQueryInfo of a query whose ORDER BY is RANK (query/full_text_search.h).
Result<Json> BuildHybridSearchQueryInfo(const SelectQuery& query, const Json& parameters,
                                        const QueryPlanOptions& options, std::optional<uint64_t> top,
                                        std::optional<uint64_t> offset, std::optional<uint64_t> limit);

}  // namespace cosmos::query
