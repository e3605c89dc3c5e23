// Replays the .NET SDK's query-plan baselines (shared/query-plan-vectors.json, described in
// shared/reference/query-plan-vectors.md) through ParseQuery -> Bind -> BuildQueryPlan:
//  - plans: every queryInfo field the baseline records must match; groupByAliasToAggregateType
//    is compared as a map (the service writes it in its hash-map order);
//  - errors: the same code (SCxxxx, 2206, or the aggregate-composition message);
//  - ranges: FindPartitionKeyTargets in the internal form, compared as sets (the service does
//    not sort its points).
// Cases that need what we do not have are skipped with a reason, and the misses we know of are
// listed with theirs: the test fails on any other miss, and prints the tally either way. Queries
// the binder rejects while the plan alone matches are reported, not failed: that is the binder's.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "query/binder.h"
#include "query/parser/parser.h"
#include "query/plan/query_plan.h"

using cosmos::Json;
using namespace cosmos::query;

namespace {

std::filesystem::path VectorsPath() {
  return std::filesystem::path(__FILE__).parent_path() / "../../../../shared/query-plan-vectors.json";
}

// The vectors live outside the repository (shared/): null when this machine has none.
Json LoadVectors() {
  std::ifstream in(VectorsPath());
  if (!in.good()) {
    WARN("no query-plan vectors at " << VectorsPath().string() << ": nothing checked");
    return Json();
  }
  return Json::parse(in);
}

// "Negative[3]" for the fourth case of QueryPlanBaselineTests.Negative.
std::string CaseName(const Json& c) {
  std::string suite = c["suite"].get<std::string>();
  return suite.substr(suite.rfind('.') + 1) + "[" + std::to_string(c["index"].get<int>()) + "]";
}

// Why a case cannot be checked, or "" when it can.
std::string SkipReason(const Json&) { return ""; }

// The hybridSearchQueryInfo the service answered, or null.
Json ExpectedHybridInfo(const Json& c) {
  if (c.contains("hybridSearchQueryInfo")) return c["hybridSearchQueryInfo"];
  return c.value("serviceInteropOutput", Json::object()).value("hybridSearchQueryInfo", Json());
}

// The features the SDK of a case declared: all, less the hybrid plan optimization unless the
// case says it was on (the baselines ran without it).
QueryFeatureSet CaseFeatures(const Json& c) {
  QueryFeatureSet features;
  for (QueryFeature feature : {QueryFeature::kAggregate, QueryFeature::kCompositeAggregate, QueryFeature::kDistinct,
                               QueryFeature::kGroupBy, QueryFeature::kMultipleAggregates, QueryFeature::kMultipleOrderBy,
                               QueryFeature::kNonValueAggregate, QueryFeature::kOffsetAndLimit, QueryFeature::kOrderBy,
                               QueryFeature::kTop, QueryFeature::kDCount, QueryFeature::kNonStreamingOrderBy,
                               QueryFeature::kListAndSetAggregate, QueryFeature::kCountIf, QueryFeature::kHybridSearch,
                               QueryFeature::kWeightedRankFusion}) {
    features.Add(feature);
  }
  if (c.value("description", "").find("hybridSearchSkipOrderByRewrite=true") != std::string::npos) {
    features.Add(QueryFeature::kHybridSearchSkipOrderByRewrite);
  }
  return features;
}

// Misses we know of and accept, with the reason (plan or error checks).
const std::map<std::string, std::string>& KnownPlanMisses() {
  static const std::map<std::string, std::string> misses = {};
  return misses;
}

// Range misses we know of and accept.
const std::map<std::string, std::string>& KnownRangeMisses() {
  static const std::map<std::string, std::string> misses = {
      {"Subqueries[4]", "the service merges a WHERE subquery's own `c.key = 42` into the outer filter (a quirk)"},
  };
  return misses;
}

std::string RangeSkipReason(const Json& c) {
  if (!c.contains("queryRanges")) return "no ranges recorded";
  for (const Json& flag : c.value("flags", Json::array())) {
    if (flag == "legacyRangePartitioning") return "Range partitioning (legacy, not creatable today)";
  }
  if (c.value("geospatialType", "Geography") == "Geometry") return "geometry spatial semantics (we fold as geography)";
  return "";
}

// The error code of a service error payload: "SC2005", "2206", or the message of the
// {"Errors":["…"]} shape.
std::string ErrorCode(const Json& payload) {
  if (payload.contains("errors") && !payload["errors"].empty()) {
    const Json& code = payload["errors"][0]["code"];
    return code.is_string() ? code.get<std::string>() : code.dump();
  }
  if (payload.contains("Errors") && !payload["Errors"].empty()) return payload["Errors"][0].get<std::string>();
  return payload.dump();
}

std::string ErrorCodeOfStatus(const cosmos::Status& status) {
  Json payload = Json::parse(status.message(), nullptr, false);
  return payload.is_discarded() ? status.message() : ErrorCode(payload);
}

// Differences between the queryInfo we build and the baseline's, "" when none.
std::string CompareQueryInfo(const Json& expected, const Json& actual) {
  std::string diff;
  for (const auto& [key, want] : expected.items()) {
    Json got = actual.value(key, Json());
    bool same;
    if (key == "groupByAliasToAggregateType") {
      std::map<std::string, Json> wanted, gotten;
      for (const auto& [k, v] : want.items()) wanted[k] = v;
      for (const auto& [k, v] : got.items()) gotten[k] = v;
      same = wanted == gotten;
    } else if (key == "hasSelectValue" || key == "hasNonStreamingOrderBy") {
      same = (want.is_number() ? want.get<int>() != 0 : want.get<bool>()) == got.get<bool>();
    } else {
      same = want == got;
    }
    if (!same) diff += "  " + key + ": expected " + want.dump() + "\n  " + key + ": actual   " + got.dump() + "\n";
  }
  return diff;
}

// Differences between the hybridSearchQueryInfo we build and the baseline's, "" when none.
std::string CompareHybridInfo(const Json& expected, const Json& actual) {
  std::string diff;
  for (const auto& [key, want] : expected.items()) {
    Json got = actual.value(key, Json());
    if (key == "componentQueryInfos") {
      if (!got.is_array() || got.size() != want.size()) {
        diff += "  componentQueryInfos: expected " + std::to_string(want.size()) + " components, actual " + got.dump() + "\n";
        continue;
      }
      for (size_t i = 0; i < want.size(); ++i) {
        std::string component = CompareQueryInfo(want[i], got[i]);
        if (!component.empty()) diff += "  component " + std::to_string(i) + ":\n" + component;
      }
    } else if (key == "componentWeights") {
      bool same = got.is_array() && got.size() == want.size();
      for (size_t i = 0; same && i < want.size(); ++i) same = want[i].get<double>() == got[i].get<double>();
      if (!same) diff += "  componentWeights: expected " + want.dump() + "\n  componentWeights: actual   " + got.dump() + "\n";
    } else if (want != got) {
      diff += "  " + key + ": expected " + want.dump() + "\n  " + key + ": actual   " + got.dump() + "\n";
    }
  }
  return diff;
}

// The same ranges in any order (numbers compare by value: 5 equals the baselines' 5.0).
bool SameRanges(const Json& expected, const Json& actual) {
  if (expected.size() != actual.size()) return false;
  std::vector<bool> used(actual.size(), false);
  for (const Json& want : expected) {
    bool found = false;
    for (size_t i = 0; i < actual.size() && !found; ++i) {
      if (!used[i] && actual[i] == want) used[i] = found = true;
    }
    if (!found) return false;
  }
  return true;
}

struct Tally {
  int passed = 0;
  int skipped = 0;
  std::map<std::string, std::vector<std::string>> misses_by_category;
  std::vector<std::string> unexpected;

  // A miss that belongs to another stage: reported, but not this test's failure.
  void Note(const std::string& category, const std::string& name) { misses_by_category[category].push_back(name); }

  void Miss(const std::string& category, const std::string& name, const std::string& detail,
            const std::map<std::string, std::string>& known) {
    misses_by_category[category].push_back(name);
    if (!known.count(name)) unexpected.push_back(name + " (" + category + ")\n" + detail);
  }
};

}  // namespace

TEST_CASE("Query plans match the .NET SDK baselines", "[query][plan][vectors]") {
  Json vectors = LoadVectors();
  if (vectors.is_null()) return;
  Tally plans;
  Tally ranges;
  std::map<std::string, int> skip_reasons;
  std::map<std::string, int> range_skip_reasons;

  for (const Json& c : vectors["cases"]) {
    std::string name = CaseName(c);
    std::string text = c["query"].get<std::string>();
    Json parameters = c.value("parameters", Json::array());

    QueryPlanOptions options;
    for (const Json& path : c["partitionKey"]["paths"]) options.partition_key_paths.push_back(path.get<std::string>());
    options.vector_embedding_policy = c.value("vectorEmbeddingPolicy", Json());
    options.supported_features = CaseFeatures(c);

    // What the service answered: a queryInfo (a hybridSearchQueryInfo), or an error code.
    const Json expected_hybrid = ExpectedHybridInfo(c);
    Json expected_info;
    std::string expected_error;
    if (c.contains("queryInfo")) {
      expected_info = c["queryInfo"];
    } else if (c.value("errorKind", "") == "sdkClientValidation" && c.contains("serviceInteropOutput") &&
               c["serviceInteropOutput"].contains("queryInfo")) {
      expected_info = c["serviceInteropOutput"]["queryInfo"];  // the service's plan, rejected by the SDK
    } else if (c.contains("errorParsed")) {
      expected_error = ErrorCode(c["errorParsed"]);
    }

    std::string skip = SkipReason(c);
    if (!skip.empty() || (expected_info.is_null() && expected_hybrid.is_null() && expected_error.empty())) {
      ++plans.skipped;
      ++skip_reasons[skip.empty() ? "nothing to compare" : skip];
      continue;
    }

    cosmos::Result<std::shared_ptr<const SelectQuery>> parsed = ParseQuery(text);
    if (!parsed.ok()) {
      if (!expected_error.empty() && ErrorCodeOfStatus(parsed.status()) == expected_error) {
        ++plans.passed;
      } else {
        plans.Miss("parse", name, "  " + text + "\n  parser: " + parsed.status().message(), KnownPlanMisses());
      }
      continue;
    }

    cosmos::Result<BoundQuery> bound = Bind(*parsed, text);
    cosmos::Result<Json> plan = BuildQueryPlan(**parsed, parameters, options);
    if (!bound.ok() && !expected_error.empty()) {
      if (ErrorCodeOfStatus(bound.status()) == expected_error) {
        ++plans.passed;
      } else if (!plan.ok() && ErrorCodeOfStatus(plan.status()) == expected_error) {
        plans.Note("binder reports another error first (the plan alone matches)", name);
      } else {
        plans.Miss("bind error code", name,
                   "  expected " + expected_error + "\n  binder: " + bound.status().message(), KnownPlanMisses());
      }
      continue;
    }
    if (!bound.ok()) {
      // The plan alone may still be right: say so, the binder is another stage's business.
      bool plan_matches = plan.ok() && CompareQueryInfo(expected_info, (*plan)["queryInfo"]).empty();
      if (plan_matches) {
        plans.Note("binder rejects a valid query (the plan alone matches)", name);
      } else {
        plans.Miss("binder rejects a valid query (the plan alone differs too)", name,
                   "  " + text + "\n  binder: " + bound.status().message(), KnownPlanMisses());
      }
    } else if (!expected_error.empty()) {
      if (!plan.ok() && ErrorCodeOfStatus(plan.status()) == expected_error) {
        ++plans.passed;
      } else {
        plans.Miss("error not raised", name,
                   "  expected " + expected_error + "\n  got " + (plan.ok() ? plan->dump() : plan.status().message()),
                   KnownPlanMisses());
      }
    } else if (!plan.ok()) {
      plans.Miss("plan fails", name, "  " + text + "\n  " + plan.status().message(), KnownPlanMisses());
    } else if (!expected_hybrid.is_null()) {
      if (std::string diff = CompareHybridInfo(expected_hybrid, plan->value("hybridSearchQueryInfo", Json())); !diff.empty()) {
        plans.Miss("hybridSearchQueryInfo differs", name, "  " + text + "\n" + diff, KnownPlanMisses());
      } else {
        ++plans.passed;
      }
    } else if (std::string diff = CompareQueryInfo(expected_info, (*plan)["queryInfo"]); !diff.empty()) {
      plans.Miss("queryInfo differs", name, "  " + text + "\n" + diff, KnownPlanMisses());
    } else {
      ++plans.passed;
    }

    // The partition-key half of queryRanges, in the internal form the baselines record.
    std::string range_skip = RangeSkipReason(c);
    if (!range_skip.empty()) {
      ++ranges.skipped;
      ++range_skip_reasons[range_skip];
      continue;
    }
    Json actual = InternalQueryRanges(FindPartitionKeyTargets(**parsed, parameters, options.partition_key_paths));
    if (SameRanges(c["queryRanges"], actual)) {
      ++ranges.passed;
    } else {
      ranges.Miss("ranges differ", name,
                  "  " + text + "\n  expected " + c["queryRanges"].dump() + "\n  actual   " + actual.dump(),
                  KnownRangeMisses());
    }
  }

  int total = static_cast<int>(vectors["cases"].size());
  std::cout << "query plans: " << plans.passed << "/" << total << " pass, " << plans.skipped << " skipped\n";
  for (const auto& [reason, count] : skip_reasons) std::cout << "  skipped " << count << ": " << reason << "\n";
  for (const auto& [category, names] : plans.misses_by_category) {
    std::cout << "  " << category << " (" << names.size() << "):";
    for (const std::string& n : names) std::cout << " " << n;
    std::cout << "\n";
  }
  std::cout << "partition-key ranges: " << ranges.passed << " pass, " << ranges.skipped << " skipped\n";
  for (const auto& [reason, count] : range_skip_reasons) std::cout << "  skipped " << count << ": " << reason << "\n";
  for (const auto& [category, names] : ranges.misses_by_category) {
    std::cout << "  " << category << " (" << names.size() << "):";
    for (const std::string& n : names) std::cout << " " << n;
    std::cout << "\n";
  }

  for (const std::string& miss : plans.unexpected) {
    UNSCOPED_INFO(miss);
  }
  for (const std::string& miss : ranges.unexpected) {
    UNSCOPED_INFO(miss);
  }
  CHECK(plans.unexpected.empty());
  CHECK(ranges.unexpected.empty());
}

// The SDK sends the rewritten queries back to us, with the placeholder replaced by its resume
// filter ("true" on the first page); every query we print must also read back as itself.
TEST_CASE("Rewritten and formatted queries parse back", "[query][plan][vectors]") {
  Json vectors = LoadVectors();
  if (vectors.is_null()) return;
  int checked = 0;
  for (const Json& c : vectors["cases"]) {
    std::string text = c["query"].get<std::string>();
    cosmos::Result<std::shared_ptr<const SelectQuery>> parsed = ParseQuery(text);
    if (!parsed.ok()) continue;
    INFO(CaseName(c) << ": " << text);

    std::string formatted = FormatQuery(**parsed);
    cosmos::Result<std::shared_ptr<const SelectQuery>> reparsed = ParseQuery(formatted);
    INFO("formatted: " << formatted);
    REQUIRE(reparsed.ok());
    CHECK(FormatQuery(**reparsed) == formatted);

    QueryPlanOptions options;
    options.vector_embedding_policy = c.value("vectorEmbeddingPolicy", Json());
    cosmos::Result<Json> plan = BuildQueryPlan(**parsed, c.value("parameters", Json::array()), options);
    if (!plan.ok()) continue;
    // The queries the SDK sends: the rewritten one, or a hybrid plan's statistics query and its
    // component queries with the statistics in their placeholders.
    std::vector<std::string> sent;
    if (plan->contains("hybridSearchQueryInfo")) {
      const Json& hybrid = (*plan)["hybridSearchQueryInfo"];
      sent.push_back(hybrid["globalStatisticsQuery"].get<std::string>());
      for (const Json& component : hybrid["componentQueryInfos"]) sent.push_back(component["rewrittenQuery"].get<std::string>());
    } else {
      sent.push_back((*plan)["queryInfo"]["rewrittenQuery"].get<std::string>());
    }
    for (std::string rewritten : sent) {
      if (rewritten.empty()) continue;
      for (const auto& [placeholder, value] : std::vector<std::pair<std::string, std::string>>{
               {"{documentdb-formattableorderbyquery-filter}", "true"},
               {"{documentdb-formattablehybridsearchquery-totaldocumentcount}", "10"},
               {"{documentdb-formattablehybridsearchquery-totalwordcount-0}", "100"},
               {"{documentdb-formattablehybridsearchquery-hitcountsarray-0}", "[1,2]"}}) {
        for (size_t at = rewritten.find(placeholder); at != std::string::npos; at = rewritten.find(placeholder)) {
          rewritten.replace(at, placeholder.size(), value);
        }
      }
      INFO("rewritten: " << rewritten);
      CHECK(ParseQuery(rewritten).ok());
      ++checked;
    }
  }
  CHECK(checked > 100);
}
