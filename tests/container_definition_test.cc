#include "engine/catalog/container_definition.h"

#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::Json;
using cosmos::engine::CheckContainerReplace;
using cosmos::engine::NormalizeContainerDefinition;
using cosmos::engine::UniqueKeyPolicy;

TEST_CASE("container definitions get the service's defaults", "[container]") {
  auto normalized = NormalizeContainerDefinition(Json::parse(R"({"id":"c","partitionKey":{"paths":["/pk"]}})"));
  REQUIRE_OK(normalized);
  const Json& c = normalized.value();
  CHECK(c["partitionKey"]["kind"] == "Hash");
  CHECK(c["indexingPolicy"]["indexingMode"] == "consistent");
  CHECK(c["indexingPolicy"]["automatic"] == true);
  CHECK(c["indexingPolicy"]["includedPaths"] == Json::parse(R"([{"path":"/*"}])"));
  CHECK(c["indexingPolicy"]["excludedPaths"] == Json::parse(R"([{"path":"/\"_etag\"/?"}])"));
  CHECK(c["uniqueKeyPolicy"] == Json::parse(R"({"uniqueKeys":[]})"));
  CHECK(c["conflictResolutionPolicy"]["mode"] == "LastWriterWins");
  CHECK_FALSE(c.contains("defaultTtl"));
}

TEST_CASE("given policies are kept and completed", "[container]") {
  auto normalized = NormalizeContainerDefinition(Json::parse(R"({"id":"c","partitionKey":{"paths":["/pk"]},
      "indexingPolicy":{"indexingMode":"Consistent","excludedPaths":[{"path":"/big/*"}]},
      "defaultTtl":-1,"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]}})"));
  REQUIRE_OK(normalized);
  const Json& c = normalized.value();
  CHECK(c["indexingPolicy"]["indexingMode"] == "consistent");
  CHECK(c["indexingPolicy"]["excludedPaths"].size() == 2);
  CHECK(c["defaultTtl"] == -1);
  CHECK(c["uniqueKeyPolicy"]["uniqueKeys"][0]["paths"][0] == "/email");
}

TEST_CASE("invalid container definitions are 400", "[container]") {
  for (const char* invalid : {
           R"({"id":"c"})",
           R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":0})",
           R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":"1"})",
           R"({"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"sometimes"}})",
           R"({"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"x"}]}})",
           R"({"id":"c","partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":[]}]}})",
       }) {
    INFO(invalid);
    auto normalized = NormalizeContainerDefinition(Json::parse(invalid));
    REQUIRE_FALSE(normalized.ok());
    CHECK(normalized.status().code() == ErrorCode::kBadRequest);
  }
}

TEST_CASE("a replace may not change the partition key or unique keys", "[container]") {
  auto base = NormalizeContainerDefinition(Json::parse(R"({"id":"c","partitionKey":{"paths":["/pk"]}})"));
  auto ttl = NormalizeContainerDefinition(Json::parse(R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":60})"));
  auto other_key = NormalizeContainerDefinition(Json::parse(R"({"id":"c","partitionKey":{"paths":["/other"]}})"));
  auto unique = NormalizeContainerDefinition(Json::parse(
      R"({"id":"c","partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/e"]}]}})"));
  REQUIRE_OK(CheckContainerReplace(base.value(), ttl.value()));
  CHECK(CheckContainerReplace(base.value(), other_key.value()).code() == ErrorCode::kBadRequest);
  CHECK(CheckContainerReplace(base.value(), unique.value()).code() == ErrorCode::kBadRequest);
}

TEST_CASE("unique key values treat a missing property as null", "[container]") {
  auto definition = NormalizeContainerDefinition(Json::parse(
      R"({"id":"c","partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/a","/b/c"]},{"paths":["/e"]}]}})"));
  REQUIRE_OK(definition);
  UniqueKeyPolicy policy = UniqueKeyPolicy::FromDefinition(definition.value());
  auto values = policy.ValuesOf(Json::parse(R"({"a":1,"b":{"c":"x"}})"));
  REQUIRE(values.size() == 2);
  CHECK(values[0] == R"([1.0,"x"])");
  CHECK(values[1] == "[null]");
  CHECK(policy.ValuesOf(Json::parse(R"({"a":1.0,"b":{"c":"x"}})"))[0] == values[0]);
}
