#include "tests/sql_logic/hybrid_pipeline.h"

#include <algorithm>
#include <string_view>

namespace cosmos_sql_test {
namespace {

using cosmos::Json;
using cosmos::Result;
using cosmos::Status;

// The placeholder of an ORDER BY rewrite; the SDK puts `true` there on a fresh query.
constexpr std::string_view kOrderByFilterPlaceholder = "{documentdb-formattableorderbyquery-filter}";

Status PipelineError(const std::string& message) { return Status::Internal("client pipeline: " + message); }

constexpr std::string_view kDocumentCountPlaceholder = "{documentdb-formattablehybridsearchquery-totaldocumentcount}";
constexpr std::string_view kWordCountPlaceholder = "{documentdb-formattablehybridsearchquery-totalwordcount-";
constexpr std::string_view kHitCountsPlaceholder = "{documentdb-formattablehybridsearchquery-hitcountsarray-";

void ReplaceAll(std::string& text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// The numbers of a statistics row, summed into `total` element by element.
Status AddStatistics(const Json& row, Json& total) {
  if (!row.is_object() || !row.value("documentCount", Json()).is_number() ||
      !row.value("fullTextStatistics", Json()).is_array()) {
    return PipelineError("a range returned a statistics row without documentCount and fullTextStatistics: " + row.dump());
  }
  if (total.is_null()) {
    total = row;
    return Status();
  }
  total["documentCount"] = total["documentCount"].get<double>() + row["documentCount"].get<double>();
  for (size_t k = 0; k < row["fullTextStatistics"].size() && k < total["fullTextStatistics"].size(); ++k) {
    Json& sum = total["fullTextStatistics"][k];
    const Json& add = row["fullTextStatistics"][k];
    sum["totalWordCount"] = sum["totalWordCount"].get<double>() + add["totalWordCount"].get<double>();
    for (size_t j = 0; j < add["hitCounts"].size() && j < sum["hitCounts"].size(); ++j) {
      sum["hitCounts"][j] = sum["hitCounts"][j].get<double>() + add["hitCounts"][j].get<double>();
    }
  }
  return Status();
}

// The statistics in a component's placeholders, mapped as the SDKs map them today: the k-th
// component that has word-count placeholders takes the k-th statistics entry.
std::string WithStatistics(std::string text, const Json& statistics, size_t components) {
  if (statistics.is_null()) return text;
  ReplaceAll(text, kDocumentCountPlaceholder, statistics["documentCount"].dump());
  size_t entry = 0;
  for (size_t i = 0; i < components; ++i) {
    std::string words(kWordCountPlaceholder);
    words.append(std::to_string(i)).append("}");
    std::string hits_placeholder(kHitCountsPlaceholder);
    hits_placeholder.append(std::to_string(i)).append("}");
    if (text.find(words) == std::string::npos || entry >= statistics["fullTextStatistics"].size()) continue;
    const Json& of_entry = statistics["fullTextStatistics"][entry++];
    std::string hits = "[";
    for (const Json& h : of_entry["hitCounts"]) {
      if (hits.size() > 1) hits.append(",");
      hits.append(h.dump());
    }
    hits.append("]");
    ReplaceAll(text, words, of_entry["totalWordCount"].dump());
    ReplaceAll(text, hits_placeholder, hits);
  }
  return text;
}

}  // namespace

Result<std::vector<Json>> RunHybridSearch(const Json& hybrid, const Json& query_ranges, const RangeRunner& run_ranges) {
  Json statistics;
  if (hybrid.value("requiresGlobalStatistics", false)) {
    std::vector<Json> rows;
    const Json every_range = Json::array({Json{{"min", ""}, {"max", "FF"}, {"isMinInclusive", true}, {"isMaxInclusive", false}}});
    COSMOS_RETURN_IF_ERROR(run_ranges(hybrid["globalStatisticsQuery"].get<std::string>(), every_range, std::nullopt, rows));
    for (const Json& row : rows) COSMOS_RETURN_IF_ERROR(AddStatistics(row, statistics));
    if (statistics.is_null() || statistics["documentCount"] == 0) return PipelineError("GlobalStats validation failed");
  }

  const Json& components = hybrid["componentQueryInfos"];
  struct Hit {
    std::string rid;
    std::vector<double> scores;
    Json data;
  };
  std::vector<Hit> hits;
  std::vector<bool> ascending;
  for (const Json& component : components) {
    std::string query = WithStatistics(component["rewrittenQuery"].get<std::string>(), statistics, components.size());
    if (size_t at = query.find(kOrderByFilterPlaceholder); at != std::string::npos) {
      query.replace(at, kOrderByFilterPlaceholder.size(), "true");
    }
    // A component with an ORDER BY is merged in its order; a flat one (no orderBy: the scores
    // are already signed so that larger is better) is read range after range.
    std::vector<bool> descending;
    for (const Json& direction : component["orderBy"]) descending.push_back(direction == "Descending");
    ascending.push_back(!descending.empty() && !descending[0]);
    std::vector<Json> rows;
    COSMOS_RETURN_IF_ERROR(run_ranges(query, query_ranges,
                                      descending.empty() ? std::nullopt : std::optional(descending), rows));
    for (Json& row : rows) {
      // Nested rows {_rid, orderByItems, payload: {payload, componentScores}}, or flat ones.
      const Json outer = row.value("payload", Json());
      const bool nested = row.contains("orderByItems");
      const Json scores = nested ? outer.value("componentScores", Json()) : row.value("componentScores", Json());
      if (!row.value("_rid", Json()).is_string() || (nested && !outer.is_object()) || !scores.is_array()) {
        return PipelineError("a hybrid search component returned a row without _rid, payload and componentScores: " +
                             row.dump());
      }
      const std::string rid = row["_rid"].get<std::string>();
      if (std::any_of(hits.begin(), hits.end(), [&](const Hit& hit) { return hit.rid == rid; })) continue;
      Hit hit{rid, {}, nested ? outer.value("payload", Json()) : outer};
      for (const Json& score : scores) hit.scores.push_back(score.is_number() ? score.get<double>() : 0);
      hits.push_back(std::move(hit));
    }
  }

  if (components.size() > 1 && hits.size() > 1) {
    // Reciprocal rank fusion: dense ranks per component in its order, weight / (60 + rank).
    const Json weights = hybrid.value("componentWeights", Json::array());
    std::vector<double> fused(hits.size(), 0);
    std::vector<size_t> order(hits.size());
    for (size_t c = 0; c < components.size(); ++c) {
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return ascending[c] ? hits[a].scores[c] < hits[b].scores[c] : hits[a].scores[c] > hits[b].scores[c];
      });
      const double weight = weights.is_array() && c < weights.size() ? weights[c].get<double>() : 1.0;
      double rank = 1;
      for (size_t i = 0; i < order.size(); ++i) {
        if (i > 0 && hits[order[i]].scores[c] != hits[order[i - 1]].scores[c]) ++rank;
        fused[order[i]] += weight / (60 + rank);
      }
    }
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fused[a] > fused[b]; });
    std::vector<Hit> ranked;
    for (size_t i : order) ranked.push_back(std::move(hits[i]));
    hits = std::move(ranked);
  }
  std::vector<Json> result;
  const uint64_t skip = hybrid.value("skip", Json()).is_number() ? hybrid["skip"].get<uint64_t>() : 0;
  const Json take = hybrid.value("take", Json());
  for (size_t i = skip; i < hits.size(); ++i) {
    if (take.is_number() && i - skip >= take.get<uint64_t>()) break;
    result.push_back(std::move(hits[i].data));
  }
  return result;
}

}  // namespace cosmos_sql_test
