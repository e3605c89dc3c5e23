#include "engine/planning/index_utilization.h"

#include <string>

#include "common/encoding.h"
#include "query/query_cache.h"

#include "tests/test_support.h"

namespace cosmos::engine {
namespace {

IndexingPolicy PolicyOf(const char* policy_text) {
  Json policy = Json::parse(policy_text);
  auto normalized = NormalizeIndexingPolicy(&policy);
  REQUIRE(normalized.ok());
  return IndexingPolicy::FromNormalized(*normalized);
}

Json UtilizationOf(const IndexingPolicy& policy, const std::string& text) {
  static query::PreparedQueryCache cache;
  auto prepared = cache.Prepare(text);
  REQUIRE_OK(prepared);
  return IndexUtilization(policy, **prepared, Json::array({{{"name", "@p"}, {"value", 5}}}));
}

std::vector<std::string> SpecsOf(const Json& entries) {
  std::vector<std::string> specs;
  for (const Json& entry : entries) {
    specs.push_back(entry.contains("IndexSpec") ? entry["IndexSpec"].get<std::string>() : entry["IndexSpecs"].dump());
  }
  return specs;
}

}  // namespace

TEST_CASE("index metrics: filtered paths are utilized when indexed, potential when excluded", "[planning]") {
  Json used = UtilizationOf(PolicyOf("{}"), "SELECT * FROM c WHERE c.n = @p AND c.name > 'b'");
  CHECK(SpecsOf(used["UtilizedSingleIndexes"]) == std::vector<std::string>{"/n/?", "/name/?"});
  CHECK(used["UtilizedSingleIndexes"][0]["FilterExpression"] == "(ROOT.n = 5)");
  CHECK(used["UtilizedSingleIndexes"][1]["FilterExpression"] == "(ROOT.name > \"b\")");
  CHECK(used["PotentialSingleIndexes"].empty());
  CHECK(used["UtilizedCompositeIndexes"].empty());
  CHECK(used["PotentialCompositeIndexes"].empty());

  Json excluded = UtilizationOf(PolicyOf(R"({"excludedPaths":[{"path":"/name/?"}]})"),
                                "SELECT * FROM c WHERE c.n IN (1, 2) AND STARTSWITH(c.name, 'x')");
  CHECK(SpecsOf(excluded["UtilizedSingleIndexes"]) == std::vector<std::string>{"/n/?"});
  CHECK(excluded["UtilizedSingleIndexes"][0]["FilterExpression"] == "(ROOT.n IN (1, 2))");
  CHECK(SpecsOf(excluded["PotentialSingleIndexes"]) == std::vector<std::string>{"/name/?"});
  CHECK(excluded["PotentialSingleIndexes"][0]["FilterExpression"] == "STARTSWITH(ROOT.name, \"x\")");
}

TEST_CASE("index metrics: ORDER BY uses a single or composite index; a filter on another path suggests one",
          "[planning]") {
  Json single = UtilizationOf(PolicyOf("{}"), "SELECT * FROM c ORDER BY c.ts DESC");
  CHECK(SpecsOf(single["UtilizedSingleIndexes"]) == std::vector<std::string>{"/ts/?"});

  IndexingPolicy composite = PolicyOf(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/b","order":"descending"}]]})");
  Json two = UtilizationOf(composite, "SELECT * FROM c ORDER BY c.a, c.b DESC");
  CHECK(SpecsOf(two["UtilizedCompositeIndexes"]) == std::vector<std::string>{R"(["/a ASC","/b DESC"])"});

  Json suggested = UtilizationOf(PolicyOf("{}"), "SELECT * FROM c WHERE c.tenant = 't' ORDER BY c.ts DESC");
  CHECK(SpecsOf(suggested["UtilizedSingleIndexes"]) == std::vector<std::string>{"/tenant/?", "/ts/?"});
  CHECK(SpecsOf(suggested["PotentialCompositeIndexes"]) == std::vector<std::string>{R"(["/tenant DESC","/ts DESC"])"});
  IndexingPolicy covering = PolicyOf(R"({"compositeIndexes":[[{"path":"/tenant","order":"descending"},{"path":"/ts","order":"descending"}]]})");
  CHECK(UtilizationOf(covering, "SELECT * FROM c WHERE c.tenant = 't' ORDER BY c.ts DESC")["PotentialCompositeIndexes"].empty());
}

TEST_CASE("index metrics: the header is the JSON in base64", "[planning]") {
  Json utilization = {{"UtilizedSingleIndexes", Json::array()}};
  std::string header = IndexUtilizationHeader(utilization);
  auto decoded = Base64Decode(header);
  REQUIRE(decoded.has_value());
  CHECK(std::string(decoded->begin(), decoded->end()) == utilization.dump());
}

}  // namespace cosmos::engine
