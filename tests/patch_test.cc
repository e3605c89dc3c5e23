#include "engine/items/patch.h"

#include "tests/test_support.h"

namespace cosmos::engine {
namespace {

// Applies the patch `body` to `document` (both JSON text); the result, or the failure's status.
Result<Json> Patched(const char* document, const char* body) {
  COSMOS_ASSIGN_OR_RETURN(PatchRequest patch, ParsePatch(std::string_view(body)));
  Json result = Json::parse(document);
  COSMOS_RETURN_IF_ERROR(ApplyPatch(patch.operations, result));
  return result;
}

// The result of a patch that must apply.
Json Applied(const char* document, const char* body) {
  Result<Json> result = Patched(document, body);
  REQUIRE_OK(result);
  return *result;
}

bool Refused(const char* document, const char* body) {
  Result<Json> result = Patched(document, body);
  return !result.ok() && result.status().code() == ErrorCode::kBadRequest;
}

}  // namespace

TEST_CASE("patch: the documented example", "[patch]") {
  auto result = Patched(
      R"({"id":"e","name":"R-410","price":455.95,"inventory":{"quantity":15},"used":false,"tags":["r-series"]})",
      R"([{"op":"add","path":"/color","value":"silver"},{"op":"remove","path":"/used"},
          {"op":"set","path":"/price","value":355.45},{"op":"incr","path":"/inventory/quantity","value":10},
          {"op":"add","path":"/tags/-","value":"featured-bikes"},{"op":"move","from":"/color","path":"/inventory/color"}])");
  REQUIRE_OK(result);
  CHECK(*result == Json::parse(R"({"id":"e","name":"R-410","price":355.45,"inventory":{"quantity":25,"color":"silver"},
                                   "tags":["r-series","featured-bikes"]})"));
}

TEST_CASE("patch: add and set on objects and arrays", "[patch]") {
  CHECK(Applied(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/0","value":0}])") == Json::parse(R"({"a":[0,1,2]})"));
  CHECK(Applied(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/2","value":3}])") == Json::parse(R"({"a":[1,2,3]})"));
  CHECK(Applied(R"({"a":[1,2]})", R"([{"op":"set","path":"/a/0","value":9}])") == Json::parse(R"({"a":[9,2]})"));
  CHECK(Applied(R"({"a":[1,2]})", R"([{"op":"set","path":"/a/-","value":3}])") == Json::parse(R"({"a":[1,2,3]})"));
  CHECK(Applied(R"({"a":1})", R"([{"op":"add","path":"/a","value":{"b":[]}}])") == Json::parse(R"({"a":{"b":[]}})"));
  CHECK(Applied(R"({"a":{}})", R"([{"op":"set","path":"/a/b","value":null}])") == Json::parse(R"({"a":{"b":null}})"));
  CHECK(Applied(R"({})", R"([{"op":"add","path":"/a~1b~0c","value":1}])") == Json::parse(R"({"a/b~c":1})"));
  CHECK(Refused(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/3","value":0}])"));
  CHECK(Refused(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/x","value":0}])"));
  CHECK(Refused(R"({"a":1})", R"([{"op":"add","path":"/a/b","value":0}])"));        // the parent is a number
  CHECK(Refused(R"({})", R"([{"op":"set","path":"/missing/b","value":0}])"));         // no parent
}

TEST_CASE("patch: replace and remove need an existing path", "[patch]") {
  CHECK(Applied(R"({"a":1,"b":[1,2,3]})", R"([{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/b/1"}])") ==
        Json::parse(R"({"a":2,"b":[1,3]})"));
  CHECK(Refused(R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])"));
  CHECK(Refused(R"({"a":1})", R"([{"op":"remove","path":"/b"}])"));
  CHECK(Refused(R"({"a":[1]})", R"([{"op":"remove","path":"/a/1"}])"));
  CHECK(Refused(R"({"a":[1]})", R"([{"op":"replace","path":"/a/-","value":1}])"));
}

TEST_CASE("patch: incr adds integers as integers and anything else as a double", "[patch]") {
  auto integral = Patched(R"({"n":5})", R"([{"op":"incr","path":"/n","value":-7}])");
  REQUIRE_OK(integral);
  CHECK((*integral)["n"].is_number_integer());
  CHECK((*integral)["n"] == -2);
  auto fractional = Patched(R"({"n":5})", R"([{"op":"incr","path":"/n","value":0.5}])");
  REQUIRE_OK(fractional);
  CHECK((*fractional)["n"].is_number_float());
  CHECK((*fractional)["n"].get<double>() == 5.5);
  CHECK(Applied(R"({})", R"([{"op":"incr","path":"/n","value":3}])") == Json::parse(R"({"n":3})"));
  CHECK(Applied(R"({"a":[1]})", R"([{"op":"incr","path":"/a/0","value":3}])") == Json::parse(R"({"a":[4]})"));
  auto overflow = Patched(R"({"n":9223372036854775807})", R"([{"op":"incr","path":"/n","value":1}])");
  REQUIRE_OK(overflow);
  CHECK((*overflow)["n"].is_number_float());
  CHECK(Refused(R"({"n":"5"})", R"([{"op":"incr","path":"/n","value":1}])"));
  CHECK(Refused(R"({"n":5})", R"([{"op":"incr","path":"/n","value":"1"}])"));
}

TEST_CASE("patch: move takes the value from one path to another", "[patch]") {
  CHECK(Applied(R"({"a":{"b":1},"c":2})", R"([{"op":"move","from":"/a/b","path":"/c"}])") ==
        Json::parse(R"({"a":{},"c":1})"));
  CHECK(Applied(R"({"a":[1,2,3]})", R"([{"op":"move","from":"/a/0","path":"/a/-"}])") ==
        Json::parse(R"({"a":[2,3,1]})"));
  CHECK(Refused(R"({"a":1})", R"([{"op":"move","from":"/b","path":"/c"}])"));
  CHECK(Refused(R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/b/c"}])"));  // into itself
}

TEST_CASE("patch: the request's shape", "[patch]") {
  auto wrapped = ParsePatch(std::string_view(R"({"operations":[{"op":"remove","path":"/a"}],"condition":"from c"})"));
  REQUIRE_OK(wrapped);
  CHECK(wrapped->operations.size() == 1);
  CHECK(wrapped->condition == "from c");
  auto bare = ParsePatch(std::string_view(R"([{"op":"set","path":"/a","value":1}])"));
  REQUIRE_OK(bare);
  CHECK_FALSE(bare->condition);
  std::string eleven = "[";
  for (int i = 0; i < 11; ++i) eleven += std::string(i ? "," : "") + R"({"op":"set","path":"/a","value":1})";
  eleven += "]";
  CHECK_FALSE(ParsePatch(std::string_view(eleven)).ok());
  for (const char* bad : {"", "{", "[]", "{}", R"({"operations":{}})", R"([1])", R"([{"op":"set","value":1}])",
                          R"([{"op":"set","path":"/a"}])", R"([{"op":"nope","path":"/a","value":1}])",
                          R"([{"op":"set","path":"a","value":1}])", R"([{"op":"set","path":"/","value":1}])",
                          R"([{"op":"set","path":"/a~2","value":1}])", R"([{"op":"move","path":"/a"}])",
                          R"({"operations":[{"op":"remove","path":"/a"}],"condition":5})"}) {
    INFO(bad);
    auto parsed = ParsePatch(std::string_view(bad));
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == ErrorCode::kBadRequest);
  }
}

}  // namespace cosmos::engine
