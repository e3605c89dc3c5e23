// The SDKs' hybrid search (HybridQueryExecutionContext of @azure/cosmos) as the client pipeline
// (client_pipeline.h) models it: the plan's statistics query on every range, summed; each
// component query with the statistics in its placeholders, merged in its order; the rows of all
// components, once each by _rid, ranked by reciprocal rank fusion (k = 60, the plan's weights,
// dense ranks; a single component keeps its order); then skip and take. Nested (ORDER BY
// rewrite) and flat component rows are both read.
// Thread-compatible: one call runs one query.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"

namespace cosmos_sql_test {

// Runs `query` on the ranges `query_ranges` overlaps and appends its rows: merged by their
// orderByItems in `order` (whole rows, as a hybrid component hands them on), or range after
// range when nullopt.
using RangeRunner = std::function<cosmos::Status(const std::string& query, const cosmos::Json& query_ranges,
                                                 std::optional<std::vector<bool>> order, std::vector<cosmos::Json>& rows)>;

// The rows of a query whose plan is `hybrid_info` (its hybridSearchQueryInfo) over `query_ranges`.
cosmos::Result<std::vector<cosmos::Json>> RunHybridSearch(const cosmos::Json& hybrid_info,
                                                          const cosmos::Json& query_ranges, const RangeRunner& run_ranges);

}  // namespace cosmos_sql_test
