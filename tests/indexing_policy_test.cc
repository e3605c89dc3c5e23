#include "engine/indexing_policy.h"

#include "tests/test_support.h"

namespace cosmos::engine {
namespace {

Json Normalized(const char* policy_text) {
  Json policy = Json::parse(policy_text);
  auto normalized = NormalizeIndexingPolicy(&policy);
  REQUIRE(normalized.ok());
  return *normalized;
}

bool Rejected(const char* policy_text) {
  Json policy = Json::parse(policy_text);
  auto normalized = NormalizeIndexingPolicy(&policy);
  return !normalized.ok() && normalized.status().code() == ErrorCode::kBadRequest;
}

IndexingPolicy PolicyOf(const char* policy_text) { return IndexingPolicy::FromNormalized(Normalized(policy_text)); }

}  // namespace

TEST_CASE("indexing policy: defaults are the service's", "[indexing]") {
  auto absent = NormalizeIndexingPolicy(nullptr);
  REQUIRE(absent.ok());
  CHECK(*absent == Json::parse(R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],
      "excludedPaths":[{"path":"/\"_etag\"/?"}],"compositeIndexes":[],"spatialIndexes":[]})"));
  Json none = Normalized(R"({"indexingMode":"None"})");
  CHECK(none["indexingMode"] == "none");
  CHECK(none["automatic"] == false);
  CHECK(none["includedPaths"].empty());
  // An explicit root exclusion is kept, and /* is not added to the included paths.
  Json narrow = Normalized(R"({"includedPaths":[{"path":"/name/?"}],"excludedPaths":[{"path":"/*"}]})");
  CHECK(narrow["includedPaths"].size() == 1);
  CHECK(narrow["excludedPaths"].size() == 2);
}

TEST_CASE("indexing policy: invalid policies are 400", "[indexing]") {
  CHECK(Rejected(R"({"indexingMode":"sometimes"})"));
  CHECK(Rejected(R"({"automatic":"yes"})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"name/?"}]})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"/name"}]})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"/*"},{"path":"/*"}]})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/*"}]})"));
  // The root must be in one of the sets once paths are given.
  CHECK(Rejected(R"({"includedPaths":[{"path":"/name/?"}]})"));
  CHECK(Rejected(R"({"indexingMode":"none","includedPaths":[{"path":"/*"}]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"}]]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/b/?"}]]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/b","order":"up"}]]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/a"}]]})"));
  CHECK(Rejected(R"({"spatialIndexes":[{"path":"/loc/?","types":["Point"]}]})"));
  CHECK(Rejected(R"({"spatialIndexes":[{"path":"/loc/*","types":["Circle"]}]})"));
  CHECK_FALSE(Rejected(R"({"spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon"]}]})"));
}

TEST_CASE("indexing policy: the most specific path decides", "[indexing]") {
  IndexingPolicy policy = PolicyOf(R"({"includedPaths":[{"path":"/*"},{"path":"/food/ingredients/nutrition/?"}],
      "excludedPaths":[{"path":"/food/*"},{"path":"/tags/[]/?"}]})");
  CHECK(policy.IsIndexed({"name"}));
  CHECK(policy.IsIndexed({"address", "city"}));
  CHECK_FALSE(policy.IsIndexed({"food", "name"}));
  CHECK(policy.IsIndexed({"food", "ingredients", "nutrition"}));
  CHECK_FALSE(policy.IsIndexed({"food", "ingredients", "nutrition", "kcal"}));
  CHECK_FALSE(policy.IsIndexed({"tags", "[]"}));
  CHECK(policy.IsIndexed({"tags", "[]", "label"}));
  CHECK_FALSE(policy.IsIndexed({"_etag"}));

  IndexingPolicy narrow = PolicyOf(R"({"includedPaths":[{"path":"/name/?"}],"excludedPaths":[{"path":"/*"}]})");
  CHECK(narrow.IsIndexed({"name"}));
  CHECK_FALSE(narrow.IsIndexed({"city"}));
  CHECK(narrow.IsIndexed({"id"}));  // id and _ts are always indexed
  CHECK(narrow.IsIndexed({"_ts"}));
  CHECK_FALSE(PolicyOf(R"({"indexingMode":"none"})").IsIndexed({"id"}));
}

TEST_CASE("indexing policy: index terms follow the included paths", "[indexing]") {
  Json document = Json::parse(R"({"id":"1","pk":"a","name":"n","tags":["x","y","z"],
      "address":{"city":"c","zip":1},"_rid":"r","_ts":5,"_etag":"e","_self":"s","_attachments":"a"})");
  CHECK(PolicyOf("{}").CountIndexedTerms(document) == 8);  // id pk name 3 tags city zip
  CHECK(PolicyOf(R"({"includedPaths":[{"path":"/name/?"}],"excludedPaths":[{"path":"/*"}]})")
            .CountIndexedTerms(document) == 2);  // id, name
  CHECK(PolicyOf(R"({"excludedPaths":[{"path":"/tags/*"}]})").CountIndexedTerms(document) == 5);
  CHECK(PolicyOf(R"({"indexingMode":"none"})").CountIndexedTerms(document) == 0);
}

TEST_CASE("indexing policy: ORDER BY needs a range or composite index", "[indexing]") {
  IndexingPolicy policy = PolicyOf(R"({"excludedPaths":[{"path":"/secret/?"}],
      "compositeIndexes":[[{"path":"/cat","order":"ascending"},{"path":"/n","order":"descending"}]]})");
  CHECK(policy.CheckOrderBy({}).ok());
  CHECK(policy.CheckOrderBy({{{"n"}, true}}).ok());
  auto excluded = policy.CheckOrderBy({{{"secret"}, false}});
  CHECK(excluded.code() == ErrorCode::kBadRequest);
  CHECK(excluded.message().find("range index") != std::string::npos);
  CHECK(policy.CheckOrderBy({{{"cat"}, false}, {{"n"}, true}}).ok());
  CHECK(policy.CheckOrderBy({{{"cat"}, true}, {{"n"}, false}}).ok());  // all inverted
  auto mixed = policy.CheckOrderBy({{{"cat"}, false}, {{"n"}, false}});
  CHECK(mixed.code() == ErrorCode::kBadRequest);
  CHECK(mixed.message().find("composite index") != std::string::npos);
  CHECK(policy.CheckOrderBy({{{"n"}, true}, {{"cat"}, false}}).code() == ErrorCode::kBadRequest);
  CHECK(PolicyOf(R"({"indexingMode":"none"})").CheckOrderBy({{{"n"}, false}}).code() == ErrorCode::kBadRequest);
}

}  // namespace cosmos::engine
