#include "query/plan/hybrid_plan.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "query/binder.h"
#include "query/full_text_search.h"
#include "query/plan/query_info.h"
#include "query/plan/query_plan.h"
#include "query/plan/text_util.h"
#include "query/vector_search.h"

namespace cosmos::query {
namespace {

using plan_internal::Cat;
using plan_internal::JoinFormatted;
using plan_internal::kOrderByFilterPlaceholder;
using plan_internal::QueryInfo;

constexpr std::string_view kDocumentCountPlaceholder = "{documentdb-formattablehybridsearchquery-totaldocumentcount}";
constexpr std::string_view kWordCountPlaceholder = "{documentdb-formattablehybridsearchquery-totalwordcount-";
constexpr std::string_view kHitCountsPlaceholder = "{documentdb-formattablehybridsearchquery-hitcountsarray-";
// The service's stand-ins for a missing score, the least relevant in each direction.
constexpr std::string_view kLowestDouble = "-1.79769e+308";
constexpr std::string_view kHighestDouble = "1.79769e+308";
// Every component keeps at least this many rows (the service's plans).
constexpr uint64_t kMinimumComponentRows = 120;

// One score of the RANK, as its component query ranks by it.
struct Component {
  std::string score;     // the internal form, placeholders included
  bool descending;       // most relevant first (or reversed by a negative weight)
  bool written_order;    // whether the rewritten ORDER BY writes ASC/DESC
  std::string missing;   // what `componentScores` holds for a row without the score
};

// The phrases a FullTextScore searches for, as string literals: its literal strings, arrays of
// strings and parameters holding either.
Result<std::vector<std::string>> SearchPhrases(const Expr& call, const Json& parameters) {
  std::vector<std::string> phrases;
  auto add = [&](const Json& value) -> Status {
    if (value.is_string()) {
      phrases.push_back(FormatString(value.get_ref<const std::string&>()));
      return Status();
    }
    if (value.is_array() && !value.empty() &&
        std::all_of(value.begin(), value.end(), [](const Json& v) { return v.is_string(); })) {
      for (const Json& v : value) phrases.push_back(FormatString(v.get_ref<const std::string&>()));
      return Status();
    }
    return Status::BadRequest("The second through last arguments of the FullTextScore function must be string literals.");
  };
  for (size_t i = 1; i < call.children.size(); ++i) {
    COSMOS_RETURN_IF_ERROR(add(ConstantValue(*call.children[i], parameters).value_or(Json())));
  }
  return phrases;
}

// The rows a component keeps for n the query asks: twice as many, never below the minimum.
uint64_t ComponentRows(uint64_t n) { return std::max<uint64_t>(kMinimumComponentRows, 2 * n); }
// The service keeps the count in 32 bits (its plans print TOP's before that, LIMIT's after).
uint64_t As32Bits(uint64_t n) { return n & 0xFFFFFFFFull; }

}  // namespace

Result<Json> BuildHybridSearchQueryInfo(const SelectQuery& query, const Json& parameters,
                                        const QueryPlanOptions& options, std::optional<uint64_t> top,
                                        std::optional<uint64_t> offset, std::optional<uint64_t> limit) {
  const RankComponents ranked = RankComponentsOf(query);
  const std::string& root_alias = query.from.at(0).alias;
  std::vector<double> weights(ranked.scores.size(), 1.0);
  if (ranked.weights != nullptr) {
    for (size_t i = 0; i < weights.size() && i < ranked.weights->children.size(); ++i) {
      const Expr* number = ranked.weights->children[i].get();
      const bool negated = number->kind == ExprKind::kUnary && number->unary_op == UnaryOp::kNegate;
      if (number->kind == ExprKind::kUnary) number = number->children[0].get();
      weights[i] = (negated ? -1 : 1) * number->literal.get<double>();
    }
  }

  std::vector<Component> components;
  std::vector<std::string> statistics;  // one {"totalWordCount", "hitCounts"} per FullTextScore
  for (size_t i = 0; i < ranked.scores.size(); ++i) {
    const Expr& call = *ranked.scores[i];
    const bool reversed = weights[i] < 0;
    if (IsSystemCall(call, "FullTextScore")) {
      const std::string text = FormatExpr(*call.children[0]);
      COSMOS_ASSIGN_OR_RETURN(std::vector<std::string> phrases, SearchPhrases(call, parameters));
      const std::string index = std::to_string(i);
      std::string score = Cat({"_FullTextScore(", text, ", [", JoinFormatted(phrases, [](const std::string& p) { return p; }),
                               "], ", kDocumentCountPlaceholder, ", ", kWordCountPlaceholder, index, "}, ",
                               kHitCountsPlaceholder, index, "})"});
      components.push_back({std::move(score), !reversed, true, reversed ? std::string(kHighestDouble) : "-1"});
      std::string hits = JoinFormatted(phrases, [&](const std::string& phrase) {
        return Cat({"COUNTIF(FullTextContains(", text, ", ", phrase, "))"});
      });
      statistics.push_back(
          Cat({R"({"totalWordCount": SUM(_FullTextWordCount()", text, R"()), "hitCounts": [)", hits, "]}"}));
    } else {
      // VectorDistance(a, b, ...): the document's vector and the one compared with it.
      const size_t path = DocumentPolicyPath(*call.children[0], root_alias).empty() ? 1 : 0;
      const bool most_similar_first_descends = MostSimilarFirstDescends(
          ResolveVectorMetric(call, root_alias, parameters, options.vector_embedding_policy));
      const bool descending = most_similar_first_descends != reversed;
      // The options the query wrote (a distance function) go along: the engine scores with them.
      std::string options;
      for (size_t i = 2; i < call.children.size(); ++i) options += Cat({", ", FormatExpr(*call.children[i])});
      std::string score = Cat({"_VectorScore(", FormatExpr(*call.children[path]), ", ",
                               FormatExpr(*call.children[1 - path]), options, ")"});
      components.push_back({std::move(score), descending, reversed,
                            std::string(descending ? kLowestDouble : kHighestDouble)});
    }
  }

  QueryClauses clauses = FormatClauses(query);
  std::string filter(kOrderByFilterPlaceholder);
  if (query.where) filter = Cat({"(", clauses.where, " AND ", filter, ")"});
  // Clients that declare HybridSearchSkipOrderByRewrite get flat component rows ({_rid, payload,
  // componentScores}, negative weights applied to the scores) which they rank themselves, and a
  // lone component no scores at all; the others get ORDER BY rewrites whose payload nests the
  // scores.
  const bool skip_order_by_rewrite = options.supported_features.Has(QueryFeature::kHybridSearchSkipOrderByRewrite);
  const bool flat = skip_order_by_rewrite && components.size() > 1;
  std::string component_scores;
  if (!skip_order_by_rewrite || flat) {
    component_scores = JoinFormatted(components, [&](const Component& c) {
      // Flat components have no sort order: the SDK ranks every one by descending score, so
      // those sorted ascending (euclidean, or reversed by a negative weight) give negated scores.
      std::string score = Cat({"(", c.score, " ?? ", c.missing, ")"});
      return flat && !c.descending ? Cat({"(-1 * ", score, ")"}) : score;
    });
  }
  const std::string payload = plan_internal::SelectPayload(query);
  std::optional<uint64_t> component_rows;
  if (top) component_rows = ComponentRows(*top);
  if (limit) component_rows = ComponentRows(offset.value_or(0) + *limit);

  Json component_infos = Json::array();
  for (const Component& component : components) {
    QueryInfo info;
    QueryClauses rewritten = clauses;
    std::string top_rows;
    rewritten.offset_limit.clear();
    if (component_rows && limit) {
      rewritten.offset_limit = Cat({"OFFSET 0 LIMIT ", std::to_string(As32Bits(*component_rows))});
    } else if (component_rows) {
      top_rows = Cat({"TOP ", std::to_string(*component_rows), " "});
    }
    rewritten.order_by = component.score;
    if (component.written_order) rewritten.order_by += component.descending ? " DESC" : " ASC";
    if (flat) {
      rewritten.select = Cat({top_rows, root_alias, "._rid, ", payload, " AS payload, [", component_scores,
                              "] AS componentScores"});
    } else {
      info.order_by.emplace_back(component.descending ? "Descending" : "Ascending");
      info.order_by_expressions.push_back(component.score);
      info.has_non_streaming_order_by = true;
      if (component_rows && limit) {
        info.offset = 0;
        info.limit = As32Bits(*component_rows);
      } else if (component_rows) {
        info.top = As32Bits(*component_rows);
      }
      rewritten.select = Cat({top_rows, root_alias, R"(._rid, [{"item": )", component.score, "}] AS orderByItems, ",
                              R"({"payload": )", payload, R"(, "componentScores": [)", component_scores,
                              "]} AS payload"});
      rewritten.where = filter;
    }
    info.rewritten_query = AssembleQuery(rewritten);
    component_infos.push_back(info.ToJson());
  }

  QueryClauses statistics_query;
  statistics_query.select =
      Cat({"COUNT(1) AS documentCount, [", JoinFormatted(statistics, [](const std::string& s) { return s; }),
           "] AS fullTextStatistics"});
  statistics_query.from = clauses.from;  // every document: no JOIN, no WHERE

  Json component_weights = Json::array();
  if (ranked.weights != nullptr) {
    for (double weight : weights) component_weights.push_back(std::abs(weight));
  }
  auto count = [](const std::optional<uint64_t>& n) { return n ? Json(*n) : Json(); };
  return Json{{"globalStatisticsQuery", AssembleQuery(statistics_query)},
              {"componentQueryInfos", std::move(component_infos)},
              {"componentWithoutPayloadQueryInfos", Json::array()},
              {"projectionQueryInfo", nullptr},
              {"componentWeights", std::move(component_weights)},
              {"skip", limit ? count(offset) : Json()},
              {"take", limit ? count(limit) : count(top)},
              {"requiresGlobalStatistics", !statistics.empty()}};
}

}  // namespace cosmos::query
