#include "query/plan/query_plan.h"

#include <cctype>
#include <optional>
#include <utility>

#include "query/binder.h"
#include "query/full_text_search.h"
#include "query/plan/hybrid_plan.h"
#include "query/plan/query_info.h"
#include "query/plan/text_util.h"
#include "query/query_error.h"
#include "query/vector_search.h"

namespace cosmos::query {

std::string plan_internal::SelectPayload(const SelectQuery& q) {
  using plan_internal::Cat;
  using plan_internal::JoinFormatted;
  if (q.select_star) {
    if (q.from.size() == 1) return q.from[0].alias;
    std::string fields =
        JoinFormatted(q.from, [](const FromSource& s) { return Cat({FormatString(s.alias), ": ", s.alias}); });
    return Cat({"{", fields, "}"});
  }
  if (q.select_value) return FormatExpr(*q.items.at(0).expr);
  std::vector<std::string> names = OutputNames(q);
  std::string fields;
  for (size_t i = 0; i < q.items.size(); ++i) {
    if (!fields.empty()) fields += ", ";
    fields += Cat({FormatString(names[i]), ": ", FormatExpr(*q.items[i].expr)});
  }
  return Cat({"{", fields, "}"});
}

namespace {

using plan_internal::Cat;
using plan_internal::EqualsIgnoreCase;
using plan_internal::JoinFormatted;
using plan_internal::kOrderByFilterPlaceholder;
using plan_internal::QueryInfo;
using plan_internal::SelectPayload;


constexpr std::pair<QueryFeature, std::string_view> kFeatureNames[] = {
    {QueryFeature::kAggregate, "Aggregate"},
    {QueryFeature::kCompositeAggregate, "CompositeAggregate"},
    {QueryFeature::kDistinct, "Distinct"},
    {QueryFeature::kGroupBy, "GroupBy"},
    {QueryFeature::kMultipleAggregates, "MultipleAggregates"},
    {QueryFeature::kMultipleOrderBy, "MultipleOrderBy"},
    {QueryFeature::kNonValueAggregate, "NonValueAggregate"},
    {QueryFeature::kOffsetAndLimit, "OffsetAndLimit"},
    {QueryFeature::kOrderBy, "OrderBy"},
    {QueryFeature::kTop, "Top"},
    {QueryFeature::kDCount, "DCount"},
    {QueryFeature::kNonStreamingOrderBy, "NonStreamingOrderBy"},
    {QueryFeature::kListAndSetAggregate, "ListAndSetAggregate"},
    {QueryFeature::kCountIf, "CountIf"},
    {QueryFeature::kHybridSearch, "HybridSearch"},
    {QueryFeature::kWeightedRankFusion, "WeightedRankFusion"},
    {QueryFeature::kHybridSearchSkipOrderByRewrite, "HybridSearchSkipOrderByRewrite"},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// ---- Aggregates --------------------------------------------------------------------------------

// The aggregates the SDKs can combine across partitions, by SQL name and by plan name.
struct AggregateKind {
  std::string_view sql_name;
  std::string_view plan_name;
};

constexpr AggregateKind kAggregates[] = {
    {"COUNT", "Count"}, {"SUM", "Sum"},           {"AVG", "Average"},       {"MIN", "Min"},
    {"MAX", "Max"},     {"MAKELIST", "MakeList"}, {"MAKESET", "MakeSet"}, {"COUNTIF", "CountIf"},
};

const AggregateKind* AsAggregate(const Expr& e) {
  if (e.kind != ExprKind::kFunctionCall || e.udf) return nullptr;
  for (const AggregateKind& kind : kAggregates) {
    if (EqualsIgnoreCase(e.name, kind.sql_name)) return &kind;
  }
  return nullptr;
}

// Aggregates of a subquery belong to the subquery: the search stops there.
bool ContainsAggregate(const Expr& e) {
  if (AsAggregate(e)) return true;
  for (const ExprPtr& child : e.children) {
    if (ContainsAggregate(*child)) return true;
  }
  for (const auto& field : e.fields) {
    if (ContainsAggregate(*field.second)) return true;
  }
  return false;
}

bool ContainsAggregateOrSubquery(const Expr& e) {
  if (AsAggregate(e) || e.subquery) return true;
  for (const ExprPtr& child : e.children) {
    if (ContainsAggregateOrSubquery(*child)) return true;
  }
  for (const auto& field : e.fields) {
    if (ContainsAggregateOrSubquery(*field.second)) return true;
  }
  return false;
}

// {"item": e}: how the rewrites wrap each sort key, group key and partial aggregate.
std::string ItemObject(const std::string& e) { return Cat({R"({"item": )", e, "}"}); }

// What each partition returns for an aggregate so that the SDK can combine the partial results:
// AVG as a sum and a count, MIN/MAX with a count (to tell "no rows" from "undefined").
std::string PartialAggregate(const Expr& call, const AggregateKind& kind) {
  std::string written = FormatExpr(call);
  std::string argument = call.children.empty() ? "" : FormatExpr(*call.children[0]);
  if (kind.plan_name == "Average") {
    return Cat({R"({"item": {"sum": SUM()", argument, R"(), "count": COUNT()", argument, ")}}"});
  }
  if (kind.plan_name == "Min" || kind.plan_name == "Max") {
    std::string_view key = kind.plan_name == "Min" ? "min" : "max";
    return Cat({R"({"item": )", written, R"(, "item2": {")", key, R"(": )", written, R"(, "count": COUNT()", argument,
                ")}}"});
  }
  return ItemObject(written);
}

// The SDKs merge an aggregate's partial results only when the aggregate is a whole select item.
Status CheckSelectAggregates(const SelectQuery& q) {
  for (const SelectItem& item : q.items) {  // SELECT VALUE's expression is items[0]
    const Expr& e = *item.expr;
    if (AsAggregate(e)) {
      for (const ExprPtr& arg : e.children) {
        if (ContainsAggregateOrSubquery(*arg)) {
          return QueryError("SC2101",
                            "Cannot perform an aggregate function on an expression containing an aggregate or a "
                            "subquery.",
                            e.span);
        }
      }
    } else if (ContainsAggregate(e)) {
      return Status::BadRequest(R"({"Errors":["Compositions of aggregates and other expressions are not allowed."]})");
    }
  }
  return Status();
}

// ---- TOP / OFFSET / LIMIT ----------------------------------------------------------------------

enum class CountClause { kTop, kOffset, kLimit };

Status CountError(CountClause clause, SourceSpan span) {
  switch (clause) {
    case CountClause::kTop:
      return QueryError("SC2060", "The count value provided for a TOP clause must be an integer.", span);
    case CountClause::kOffset:
      return QueryError("SC2062", "The OFFSET count value exceeds the maximum allowed value.", span);
    case CountClause::kLimit:
      return QueryError("SC2061", "The LIMIT count value exceeds the maximum allowed value.", span);
  }
  return Status::BadRequest("invalid count");
}

// A TOP, OFFSET or LIMIT count: a literal or a parameter holding an integer in [0, 2^32).
Result<std::optional<uint64_t>> ResolveCount(const ExprPtr& e, const Json& parameters, CountClause clause) {
  if (!e) return std::optional<uint64_t>();
  std::optional<uint64_t> count = CountValue(*e, parameters);
  if (!count) return CountError(clause, e->span);
  return count;
}

struct Counts {
  std::optional<uint64_t> top;
  std::optional<uint64_t> offset;
  std::optional<uint64_t> limit;
};

// ---- Select list -------------------------------------------------------------------------------


// ---- The plan ----------------------------------------------------------------------------------

class Planner {
 public:
  Planner(const SelectQuery& query, const Json& parameters, const QueryPlanOptions& options, Counts counts,
          const PartitionKeyTargets& targets)
      : query_(query), parameters_(parameters), options_(options), counts_(counts), targets_(targets),
        clauses_(FormatClauses(query)) {}

  QueryInfo Plan();

 private:
  void PlanGroupBy();
  void PlanValueAggregate(const Expr& call, const AggregateKind& kind);
  void PlanOrderBy();
  void PlanDistinct();
  void PlanOffsetLimit();
  // Each partition returns the first offset+limit rows; the SDK skips `offset` of the merged rows.
  std::string MergedOffsetLimit() const {
    return Cat({"OFFSET 0 LIMIT ", std::to_string(*counts_.offset + *counts_.limit)});
  }

  const SelectQuery& query_;
  const Json& parameters_;
  const QueryPlanOptions& options_;
  Counts counts_;
  const PartitionKeyTargets& targets_;
  QueryClauses clauses_;
  QueryInfo info_;
};

QueryInfo Planner::Plan() {
  info_.has_select_value = query_.select_value;
  // A query without FROM yields its one row on a single partition: nothing to combine.
  if (query_.from.empty()) return info_;

  info_.top = counts_.top;
  info_.offset = counts_.offset;
  info_.limit = counts_.limit;
  if (query_.distinct) info_.distinct_type = query_.order_by.empty() ? "Unordered" : "Ordered";

  const Expr* value_aggregate = nullptr;
  bool has_aggregates = false;
  for (const SelectItem& item : query_.items) {
    if (AsAggregate(*item.expr)) {
      has_aggregates = true;
      if (query_.select_value) value_aggregate = item.expr.get();
    }
  }
  // Aggregates without VALUE are grouped by nothing: one group, one row of named results.
  if (!query_.group_by.empty() || (has_aggregates && !query_.select_value)) {
    PlanGroupBy();
  } else if (value_aggregate) {
    PlanValueAggregate(*value_aggregate, *AsAggregate(*value_aggregate));
  } else if (!query_.order_by.empty()) {
    PlanOrderBy();
  } else if (query_.distinct) {
    PlanDistinct();
  } else if (counts_.offset) {
    PlanOffsetLimit();
  }
  // TOP alone needs no rewrite: every partition returns its first n rows, the SDK takes n of them.
  return info_;
}

void Planner::PlanGroupBy() {
  std::string select;
  if (!query_.group_by.empty()) {
    select = Cat({"[", JoinFormatted(query_.group_by, [](const ExprPtr& g) { return ItemObject(FormatExpr(*g)); }),
                  "] AS groupByItems, "});
  }
  for (const ExprPtr& g : query_.group_by) info_.group_by_expressions.push_back(FormatExpr(*g));

  std::string payload;
  if (query_.select_value) {
    const Expr& e = *query_.items.at(0).expr;
    if (const AggregateKind* kind = AsAggregate(e)) {
      payload = Cat({"[", PartialAggregate(e, *kind), "]"});
      info_.aggregates.emplace_back(kind->plan_name);
    } else {
      payload = FormatExpr(e);
    }
  } else if (query_.select_star) {
    payload = SelectPayload(query_);  // the binder rejects SELECT * with GROUP BY before this
  } else {
    std::vector<std::string> names = OutputNames(query_);
    std::string fields;
    for (size_t i = 0; i < query_.items.size(); ++i) {
      const Expr& e = *query_.items[i].expr;
      const AggregateKind* kind = AsAggregate(e);
      if (!fields.empty()) fields += ", ";
      fields += Cat({FormatString(names[i]), ": ", kind ? PartialAggregate(e, *kind) : FormatExpr(e)});
      info_.group_by_aliases.push_back(names[i]);
      info_.alias_to_aggregate.emplace_back(names[i],
                                            kind ? std::optional<std::string>(kind->plan_name) : std::nullopt);
    }
    payload = Cat({"{", fields, "}"});
  }
  // The SDK groups, then applies DISTINCT, TOP and OFFSET/LIMIT to the groups.
  clauses_.select = Cat({select, payload, " AS payload"});
  clauses_.offset_limit.clear();
  info_.rewritten_query = AssembleQuery(clauses_);
}

void Planner::PlanValueAggregate(const Expr& call, const AggregateKind& kind) {
  info_.aggregates.emplace_back(kind.plan_name);
  clauses_.select = Cat({"VALUE [", PartialAggregate(call, kind), "]"});
  clauses_.offset_limit.clear();
  info_.rewritten_query = AssembleQuery(clauses_);
}

void Planner::PlanOrderBy() {
  const std::string& root_alias = query_.from[0].alias;
  for (const OrderByItem& item : query_.order_by) {
    bool descending = item.descending;
    if (IsSimilarityOrder(item)) {
      // Most similar first: small euclidean distances, large cosine or dot-product similarities.
      descending = MostSimilarFirstDescends(
          ResolveVectorMetric(*item.expr, root_alias, parameters_, options_.vector_embedding_policy));
      info_.has_non_streaming_order_by = true;
    } else if (IsScoreCall(*item.expr)) {
      info_.has_non_streaming_order_by = true;
    }
    info_.order_by.emplace_back(descending ? "Descending" : "Ascending");
    info_.order_by_expressions.push_back(FormatExpr(*item.expr));
  }

  const Expr* value = query_.select_value ? query_.items.at(0).expr.get() : nullptr;
  std::string payload = SelectPayload(query_);
  std::string items = JoinFormatted(info_.order_by_expressions, ItemObject);
  // With DISTINCT the SDK removes duplicates after the merge: a partition that stopped after n rows
  // could stop short of n distinct ones, so TOP and OFFSET/LIMIT stay with the SDK alone.
  bool cut_per_partition = !query_.distinct;
  std::string top = counts_.top && cut_per_partition ? Cat({"TOP ", std::to_string(*counts_.top), " "}) : "";
  clauses_.select = Cat({top, root_alias, "._rid, [", items, "] AS orderByItems, ", payload, " AS payload"});

  std::string filter(kOrderByFilterPlaceholder);
  if (query_.where) filter = Cat({"(", clauses_.where, " AND ", filter, ")"});
  // An undefined VALUE would vanish from the results and break the merge: leave those rows out.
  if (value) filter = Cat({"(", filter, " AND IS_DEFINED(", FormatExpr(*value), "))"});
  clauses_.where = filter;
  if (counts_.offset) clauses_.offset_limit = cut_per_partition ? MergedOffsetLimit() : "";
  info_.rewritten_query = AssembleQuery(clauses_);
}

void Planner::PlanDistinct() {
  // Unordered DISTINCT runs as written unless TOP or OFFSET/LIMIT would cut the rows before the
  // SDK removes the duplicates across partitions.
  if (!counts_.top && !counts_.offset) return;
  clauses_.select = Cat({"DISTINCT ", FormatSelectSpec(query_)});
  clauses_.offset_limit.clear();
  info_.rewritten_query = AssembleQuery(clauses_);
}

void Planner::PlanOffsetLimit() {
  // One partition-key value means one partition, which applies OFFSET/LIMIT itself.
  if (targets_.kind == PartitionKeyTargets::Kind::kPoints && targets_.points.size() == 1 &&
      targets_.points[0].size() == options_.partition_key_paths.size()) {
    info_.offset.reset();
    info_.limit.reset();
    return;
  }
  clauses_.offset_limit = MergedOffsetLimit();
  info_.rewritten_query = AssembleQuery(clauses_);
}

// The service's message for features the client did not declare: this line, then one line per
// feature (CRLF: the service runs on Windows).
constexpr std::string_view kUnsupportedFeatures =
    "Query contains 1 or more unsupported features. Upgrade your SDK to a version that does support the requested "
    "features:";

std::string UnsupportedFeatureLine(QueryFeature feature) {
  return Cat({"\r\nQuery contained ", QueryFeatureName(feature), ", which the calling client does not support."});
}

// The features the plan asks of the SDK, checked the way the .NET SDK checks them.
Status CheckSupportedFeatures(const QueryInfo& info, const QueryFeatureSet& supported) {
  std::vector<QueryFeature> needed;
  int aggregate_count = static_cast<int>(info.aggregates.size());
  for (const auto& entry : info.alias_to_aggregate) aggregate_count += entry.second ? 1 : 0;
  if (aggregate_count == 1) {
    needed.push_back(info.has_select_value ? QueryFeature::kAggregate : QueryFeature::kNonValueAggregate);
  } else if (aggregate_count > 1) {
    needed.push_back(QueryFeature::kNonValueAggregate);
    needed.push_back(QueryFeature::kMultipleAggregates);
  }
  if (info.distinct_type != "None") needed.push_back(QueryFeature::kDistinct);
  if (info.top) needed.push_back(QueryFeature::kTop);
  if (info.order_by.size() == 1) needed.push_back(QueryFeature::kOrderBy);
  if (info.order_by.size() > 1) needed.push_back(QueryFeature::kMultipleOrderBy);
  if (info.offset || info.limit) needed.push_back(QueryFeature::kOffsetAndLimit);
  if (!info.group_by_expressions.empty()) needed.push_back(QueryFeature::kGroupBy);
  if (info.has_non_streaming_order_by) needed.push_back(QueryFeature::kNonStreamingOrderBy);
  std::vector<std::string_view> aggregate_names(info.aggregates.begin(), info.aggregates.end());
  for (const auto& entry : info.alias_to_aggregate) {
    if (entry.second) aggregate_names.push_back(*entry.second);
  }
  for (std::string_view name : aggregate_names) {
    QueryFeature feature = name == "CountIf" ? QueryFeature::kCountIf : QueryFeature::kListAndSetAggregate;
    if (name != "CountIf" && name != "MakeList" && name != "MakeSet") continue;
    bool listed = false;
    for (QueryFeature f : needed) listed = listed || f == feature;
    if (!listed) needed.push_back(feature);
  }

  std::string message;
  for (QueryFeature feature : needed) {
    if (supported.Has(feature)) continue;
    message += UnsupportedFeatureLine(feature);
  }
  if (message.empty()) return Status();
  return Status::BadRequest(Cat({kUnsupportedFeatures, message}));
}

// ORDER BY RANK (the parser writes its items as RANK(score)) is hybrid search: the client must
// run hybrid plans, and weighted ones if the RRF has weights.
Status CheckHybridSearchFeatures(const SelectQuery& query, const QueryFeatureSet& supported) {
  std::string message;
  if (!supported.Has(QueryFeature::kHybridSearch)) message += UnsupportedFeatureLine(QueryFeature::kHybridSearch);
  if (RankComponentsOf(query).weights != nullptr && !supported.Has(QueryFeature::kWeightedRankFusion)) {
    message += UnsupportedFeatureLine(QueryFeature::kWeightedRankFusion);
  }
  if (message.empty()) return Status();
  return Status::BadRequest(Cat({kUnsupportedFeatures, message}));
}

}  // namespace

const Json* FindParameter(const Json& parameters, std::string_view name) {
  if (!parameters.is_array()) return nullptr;
  for (const Json& parameter : parameters) {
    if (parameter.is_object() && parameter.contains("value") && parameter.value("name", "") == name) {
      return &parameter["value"];
    }
  }
  return nullptr;
}

std::optional<Json> ConstantValue(const Expr& e, const Json& parameters) {
  switch (e.kind) {
    case ExprKind::kLiteral:
      if (e.literal_undefined) return std::nullopt;
      return e.literal;
    case ExprKind::kParameter:
      if (const Json* value = FindParameter(parameters, e.name)) return *value;
      return std::nullopt;
    case ExprKind::kUnary:
      if (e.unary_op == UnaryOp::kNegate && e.children[0]->kind == ExprKind::kLiteral && e.children[0]->literal.is_number()) {
        return Json(-e.children[0]->literal.get<double>());
      }
      return std::nullopt;
    case ExprKind::kArrayLiteral: {
      Json array = Json::array();
      for (const auto& element : e.children) {
        std::optional<Json> value = ConstantValue(*element, parameters);
        if (!value) return std::nullopt;
        array.push_back(std::move(*value));
      }
      return array;
    }
    default:
      return std::nullopt;
  }
}

std::string_view QueryFeatureName(QueryFeature feature) {
  for (const auto& [f, name] : kFeatureNames) {
    if (f == feature) return name;
  }
  return "";
}

QueryFeatureSet QueryFeatureSet::All() {
  QueryFeatureSet all;
  for (const auto& entry : kFeatureNames) all.Add(entry.first);
  return all;
}

QueryFeatureSet QueryFeatureSet::Parse(std::string_view header) {
  QueryFeatureSet features;
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view name = Trim(header.substr(0, comma));
    for (const auto& [feature, feature_name] : kFeatureNames) {
      if (EqualsIgnoreCase(name, feature_name)) features.Add(feature);
    }
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return features;
}

Json EffectiveQueryRanges(const PartitionKeyTargets&) {
  return Json::array({Json{{"min", ""}, {"max", "FF"}, {"isMinInclusive", true}, {"isMaxInclusive", false}}});
}

Result<Json> BuildQueryPlan(const SelectQuery& query, const Json& parameters, const QueryPlanOptions& options) {
  COSMOS_RETURN_IF_ERROR(CheckSelectAggregates(query));
  Counts counts;
  COSMOS_ASSIGN_OR_RETURN(counts.top, ResolveCount(query.top, parameters, CountClause::kTop));
  COSMOS_ASSIGN_OR_RETURN(counts.offset, ResolveCount(query.offset, parameters, CountClause::kOffset));
  COSMOS_ASSIGN_OR_RETURN(counts.limit, ResolveCount(query.limit, parameters, CountClause::kLimit));
  PartitionKeyTargets targets =
      FindPartitionKeyTargets(query, parameters, options.partition_key_paths, options.hierarchical_partition_key);
  Json query_ranges = options.query_ranges ? options.query_ranges(targets) : EffectiveQueryRanges(targets);
  if (RankScore(query) != nullptr) {
    // A hybrid plan has no queryInfo: the SDKs pick their hybrid pipeline by hybridSearchQueryInfo.
    COSMOS_RETURN_IF_ERROR(CheckHybridSearchFeatures(query, options.supported_features));
    COSMOS_ASSIGN_OR_RETURN(Json hybrid, BuildHybridSearchQueryInfo(query, parameters, options, counts.top,
                                                                    counts.offset, counts.limit));
    return Json{{"partitionedQueryExecutionInfoVersion", 2},
                {"hybridSearchQueryInfo", std::move(hybrid)},
                {"queryRanges", std::move(query_ranges)}};
  }
  QueryInfo info = Planner(query, parameters, options, counts, targets).Plan();
  COSMOS_RETURN_IF_ERROR(CheckSupportedFeatures(info, options.supported_features));
  return Json{{"partitionedQueryExecutionInfoVersion", 2},
              {"queryInfo", info.ToJson()},
              {"queryRanges", std::move(query_ranges)}};
}

std::optional<uint64_t> CountValue(const Expr& count, const Json& parameters) {
  const Json* value = nullptr;
  if (count.kind == ExprKind::kLiteral) value = &count.literal;
  if (count.kind == ExprKind::kParameter) value = FindParameter(parameters, count.name);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  double number = value->get<double>();
  if (number < 0 || number > 4294967295.0 || number != static_cast<double>(static_cast<uint64_t>(number))) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(number);
}

}  // namespace cosmos::query
