// Vector and full-text policies of a container (engine/catalog/search_policies.h): kept as sent,
// and refused with the service's messages (the Python SDK's tests against the service assert them).
#include "engine/catalog/container_definition.h"

#include <string>

#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::Json;
using cosmos::engine::CheckContainerReplace;
using cosmos::engine::NormalizeContainerDefinition;

namespace {

// A container definition with the given vectorEmbeddingPolicy, vectorIndexes and more (JSON texts).
Json WithVectors(const std::string& embeddings, const std::string& indexes) {
  return Json::parse(R"({"id":"c","partitionKey":{"paths":["/pk"]},
      "vectorEmbeddingPolicy":{"vectorEmbeddings":)" + embeddings + R"(},
      "indexingPolicy":{"excludedPaths":[{"path":"/v1/*"}],"vectorIndexes":)" + indexes + "}}");
}

constexpr char kEmbeddings[] = R"([{"path":"/v1","dataType":"float32","dimensions":256,"distanceFunction":"cosine"},
    {"path":"/v2","dataType":"int8","dimensions":100,"distanceFunction":"dotproduct"}])";

std::string RefusalOf(const Json& definition) {
  auto normalized = NormalizeContainerDefinition(definition);
  if (normalized.ok()) return "accepted";
  CHECK(normalized.status().code() == ErrorCode::kBadRequest);
  return normalized.status().message();
}

}  // namespace

TEST_CASE("vector policies and indexes are kept as sent", "[container][vector]") {
  const Json definition = WithVectors(kEmbeddings, R"([{"path":"/v1","type":"diskANN"},
      {"path":"/v2","type":"quantizedFlat","quantizationByteSize":8,"vectorIndexShardKey":["/city"]}])");
  auto normalized = NormalizeContainerDefinition(definition);
  REQUIRE_OK(normalized);
  CHECK(normalized.value()["vectorEmbeddingPolicy"] == definition["vectorEmbeddingPolicy"]);
  CHECK(normalized.value()["indexingPolicy"]["vectorIndexes"] == definition["indexingPolicy"]["vectorIndexes"]);
}

TEST_CASE("invalid vector policies get the service's messages", "[container][vector]") {
  using Case = std::pair<Json, std::string>;
  const std::vector<Case> cases = {
      {WithVectors("[]", R"([{"path":"/vector1","type":"flat"}])"), "vector1 not matching in Embedding's path"},
      {WithVectors(kEmbeddings, R"([{"path":"/v1","type":"notFlat"}])"), "Index Type::notFlat is invalid"},
      {WithVectors(kEmbeddings, R"([{"path":"/v3","type":"flat"}])"), "v3 not matching in Embedding's path"},
      {WithVectors(kEmbeddings, R"([{"path":"/v1","type":"quantizedFlat","quantizationByteSize":0}])"),
       "The Vector Indexing Policy parameter QuantizationByteSize value :: 0 is out of range. The allowed range is "
       "between 1 and 256."},
      {WithVectors(kEmbeddings, R"([{"path":"/v1","type":"diskANN","indexingSearchListSize":5}])"),
       "IndexingSearchListSize value :: 5 is out of range. The allowed range is between 25 and 500."},
      {WithVectors(kEmbeddings, R"([{"path":"/v1","type":"diskANN","vectorIndexShardKey":["country"]}])"),
       "The Vector Indexing Policy has an invalid Shard Path: country."},
      {WithVectors(kEmbeddings, R"([{"path":"/v1","type":"diskANN","vectorIndexShardKey":["/a","/b","/c"]}])"),
       "The number of shard paths defined in the Vector Indexing Policy: 3 exceeds the maximum: 1."},
      {WithVectors(kEmbeddings, R"([{"path":"/v1","type":"diskANN","vectorIndexShardKey":"/city"}])"),
       "One of the specified inputs is invalid"},
      {WithVectors(R"([{"path":"/v","dataType":"float32","dimensions":550}])",
                   R"([{"path":"/v","type":"quantizedFlat","quantizationByteSize":513}])"),
       "The Vector Indexing Policy parameter QuantizationByteSize value :: 513 is out of range."},
      {WithVectors(R"([{"path":"/v","dataType":"float33","dimensions":8}])", "[]"),
       "Vector Embedding Policy has an invalid DataType"},
      {WithVectors(R"([{"path":"/v","dataType":"float32","dimensions":8000}])", "[]"),
       "Vector Embedding Policy has Dimensions:8000 which is more than the maximum supported value"},
      {WithVectors(R"([{"path":"/v","dataType":"float32","dimensions":-1}])", "[]"),
       "The Vector Embedding Policy has Dimensions:-1"},
      {WithVectors(R"([{"path":"/v","dimensions":8,"distanceFunction":"handMeasured"}])", "[]"),
       "The Vector Embedding Policy has an invalid DistanceFunction:handMeasured"},
      {WithVectors(R"([{"path":"/v","dimensions":600}])", R"([{"path":"/v","type":"flat"}])"),
       "Index Type::flat supports at most 505 dimensions"},
      {WithVectors(R"([{"path":"/v/*","dimensions":8}])", "[]"), "The Vector Embedding Policy has an invalid Path:/v/*"},
  };
  for (const auto& [definition, message] : cases) {
    INFO(definition.dump());
    const std::string refusal = RefusalOf(definition);
    INFO(refusal);
    CHECK(refusal.find(message) != std::string::npos);
  }
}

TEST_CASE("vector policies cannot change on replace; full-text ones can", "[container][vector][fulltext]") {
  auto current = NormalizeContainerDefinition(WithVectors(kEmbeddings, R"([{"path":"/v1","type":"flat"}])"));
  REQUIRE_OK(current);
  REQUIRE_OK(CheckContainerReplace(current.value(), current.value()));
  auto other_index = NormalizeContainerDefinition(WithVectors(kEmbeddings, R"([{"path":"/v1","type":"quantizedFlat"}])"));
  REQUIRE_OK(other_index);
  CHECK(CheckContainerReplace(current.value(), other_index.value()).code() == ErrorCode::kBadRequest);
  // Replaced without the policy its indexes need: refused as the definition is checked.
  Json without_policy = WithVectors(kEmbeddings, R"([{"path":"/v1","type":"quantizedFlat"}])");
  without_policy.erase("vectorEmbeddingPolicy");
  CHECK(RefusalOf(without_policy) == "The Vector Indexing Policy's path::/v1 not matching in Embedding's path.");

  Json with_text = current.value();
  with_text["fullTextPolicy"] = Json::parse(R"({"defaultLanguage":"en-US","fullTextPaths":[{"path":"/text"}]})");
  with_text["indexingPolicy"]["fullTextIndexes"] = Json::parse(R"([{"path":"/text"}])");
  auto replaced = NormalizeContainerDefinition(with_text);
  REQUIRE_OK(replaced);
  REQUIRE_OK(CheckContainerReplace(current.value(), replaced.value()));
}

TEST_CASE("invalid full-text policies get the service's messages", "[container][fulltext]") {
  auto with_text = [](const std::string& policy, const std::string& indexes) {
    return Json::parse(R"({"id":"c","partitionKey":{"paths":["/pk"]},"fullTextPolicy":)" + policy +
                       R"(,"indexingPolicy":{"fullTextIndexes":)" + indexes + "}}");
  };
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"en-US","fullTextPaths":[{"path":"/abstract","language":"en-US"}]})",
                            R"([{"path":"/abstract"}])")) == "accepted");
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"en-US"})", "[]")) == "accepted");
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"en-US","fullTextPaths":[{"path":"abstract"}]})", "[]"))
            .find("The Full Text Policy contains an invalid Path: abstract") != std::string::npos);
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"spa-SPA"})", "[]"))
            .find("The Full Text Policy contains an unsupported language spa-SPA. Supported languages are:") !=
        std::string::npos);
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"en-US","fullTextPaths":[{"path":"/a","language":"spa-SPA"}]})", "[]"))
            .find("unsupported language spa-SPA") != std::string::npos);
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"en-US","fullTextPaths":[{"path":"/a"}]})", R"([{"path":"/path"}])"))
            .find("The path of the Full Text Index /path does not match the path specified in the Full Text Policy") !=
        std::string::npos);
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"en-US","fullTextPaths":[{"path":"/a"}]})", R"([{"path":"abstract"}])"))
            .find("Full-text index specification at index (0) contains invalid path") != std::string::npos);
  CHECK(RefusalOf(with_text(R"({"defaultLanguage":"en-US","fullTextPaths":[{"path":"/a"}]})", R"([{}])"))
            .find("Missing path in full-text index specification at index (0)") != std::string::npos);
}
