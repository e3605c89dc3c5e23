#include "engine/partitioning/partition_key.h"

#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::Json;
using cosmos::engine::PartitionKeyDefinition;
using cosmos::engine::PartitionKeyKind;
using cosmos::engine::PartitionKeyValue;

namespace {
PartitionKeyDefinition Define(const char* json) {
  auto definition = PartitionKeyDefinition::Parse(Json::parse(json));
  REQUIRE_OK(definition);
  return definition.value();
}
}  // namespace

TEST_CASE("partition key definitions are validated", "[partition_key]") {
  auto single = Define(R"({"paths":["/pk"]})");
  CHECK(single.kind == PartitionKeyKind::kHash);
  CHECK_FALSE(single.version);
  auto nested = Define(R"({"paths":["/a/b"],"kind":"Hash","version":2})");
  CHECK(nested.segments[0] == std::vector<std::string>{"a", "b"});
  auto quoted = Define(R"({"paths":["/\"my key\"/x"]})");
  CHECK(quoted.segments[0] == std::vector<std::string>{"my key", "x"});
  auto hierarchical = Define(R"({"paths":["/t","/u","/s"],"kind":"MultiHash","version":2})");
  CHECK(hierarchical.kind == PartitionKeyKind::kMultiHash);

  for (const char* invalid : {R"({"paths":[]})", R"({"paths":["pk"]})", R"({"paths":["/"]})",
                              R"({"paths":["/a","/b"],"kind":"Hash"})", R"({"paths":["/a"],"kind":"Range"})",
                              R"({"paths":["/a","/b","/c","/d"],"kind":"MultiHash","version":2})",
                              R"({"paths":["/a","/b"],"kind":"MultiHash","version":1})",
                              R"({"paths":["/a"],"version":3})", R"("pk")"}) {
    INFO(invalid);
    auto parsed = PartitionKeyDefinition::Parse(Json::parse(invalid));
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == ErrorCode::kBadRequest);
  }
}

TEST_CASE("the document's value is read at the key paths", "[partition_key]") {
  auto definition = Define(R"({"paths":["/a/b"]})");
  auto value = [&](const char* document) {
    return PartitionKeyValue::FromDocument(definition, Json::parse(document)).ToHeaderText();
  };
  CHECK(value(R"({"a":{"b":"x"}})") == R"(["x"])");
  CHECK(value(R"({"a":{"b":5}})") == R"([5])");
  CHECK(value(R"({"a":{"b":null}})") == R"([null])");
  CHECK(value(R"({"a":{"b":false}})") == R"([false])");
  CHECK(value(R"({"a":{}})") == R"([{}])");           // missing: undefined
  CHECK(value(R"({"a":"flat"})") == R"([{}])");
  CHECK(value(R"({"a":{"b":{"c":1}}})") == R"([{}])");  // objects and arrays count as undefined
  CHECK(value(R"({"a":{"b":[1]}})") == R"([{}])");
}

TEST_CASE("header values match document values by value", "[partition_key]") {
  auto definition = Define(R"({"paths":["/pk"]})");
  auto from_header = [&](const char* header) {
    auto parsed = PartitionKeyValue::FromHeader(definition, header);
    REQUIRE_OK(parsed);
    return parsed.value();
  };
  auto from_document = [&](const char* document) {
    return PartitionKeyValue::FromDocument(definition, Json::parse(document));
  };
  CHECK(from_header(R"(["a"])") == from_document(R"({"pk":"a"})"));
  CHECK(from_header(R"([1.0])") == from_document(R"({"pk":1})"));
  CHECK(from_header(R"([{}])") == from_document(R"({"id":"x"})"));
  CHECK(from_header(R"([])") == from_document(R"({"id":"x"})"));
  CHECK_FALSE(from_header(R"([null])") == from_document(R"({"id":"x"})"));
  CHECK_FALSE(from_header(R"(["1"])") == from_document(R"({"pk":1})"));
  CHECK(from_header(R"([1.0])").StorageKey() == from_document(R"({"pk":1})").StorageKey());
  CHECK(from_header(R"(["a"])").StorageKey() != from_header(R"(["b"])").StorageKey());

  for (const char* invalid : {"a", "{}", R"(["a","b"])", R"([[1]])", R"([{"x":1}])"}) {
    INFO(invalid);
    auto parsed = PartitionKeyValue::FromHeader(definition, invalid);
    REQUIRE_FALSE(parsed.ok());
    // A key of the wrong arity is the service's partition-key mismatch (400/1001).
    CHECK(parsed.status().code() ==
          (std::string(invalid) == R"(["a","b"])" ? ErrorCode::kPartitionKeyMismatch : ErrorCode::kBadRequest));
  }
}
