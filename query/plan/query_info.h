// Plan-internal pieces shared by the query plan (query_plan.cc) and the hybrid search plan
// (hybrid_plan.cc): the queryInfo object and the projection a rewrite wraps in `payload`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/json.h"
#include "query/ast.h"

namespace cosmos::query::plan_internal {

// Where the SDK puts its resume filter ("true" on the first page, `c.key > …` afterwards).
constexpr std::string_view kOrderByFilterPlaceholder = "({documentdb-formattableorderbyquery-filter})";

// The queryInfo of a plan, in wire order.
struct QueryInfo {
  std::string distinct_type = "None";
  std::optional<uint64_t> top;
  std::optional<uint64_t> offset;
  std::optional<uint64_t> limit;
  std::vector<std::string> order_by;  // "Ascending" / "Descending"
  std::vector<std::string> order_by_expressions;
  std::vector<std::string> group_by_expressions;
  std::vector<std::string> group_by_aliases;
  std::vector<std::string> aggregates;
  std::vector<std::pair<std::string, std::optional<std::string>>> alias_to_aggregate;
  std::string rewritten_query;
  bool has_select_value = false;
  bool has_non_streaming_order_by = false;

  Json ToJson() const {
    auto count = [](const std::optional<uint64_t>& n) { return n ? Json(*n) : Json(); };
    Json alias_map = Json::object();
    for (const auto& [alias, aggregate] : alias_to_aggregate) alias_map[alias] = aggregate ? Json(*aggregate) : Json();
    return Json{{"distinctType", distinct_type},
                {"top", count(top)},
                {"offset", count(offset)},
                {"limit", count(limit)},
                {"orderBy", order_by},
                {"orderByExpressions", order_by_expressions},
                {"groupByExpressions", group_by_expressions},
                {"groupByAliases", group_by_aliases},
                {"aggregates", aggregates},
                {"groupByAliasToAggregateType", alias_map},
                {"rewrittenQuery", rewritten_query},
                {"hasSelectValue", has_select_value},
                {"dCountInfo", nullptr},
                {"hasNonStreamingOrderBy", has_non_streaming_order_by}};
  }
};

// The select list as one value, the `payload` of ORDER BY rewrites: the document (or every alias
// of the FROM clause when there are JOINs) for SELECT *, the expression of SELECT VALUE, else an
// object of the output names.
std::string SelectPayload(const SelectQuery& q);

}  // namespace cosmos::query::plan_internal
