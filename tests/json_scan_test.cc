#include "common/json_scan.h"

#include <catch2/catch.hpp>

using cosmos::Json;
using cosmos::ParseSelectedProperties;

TEST_CASE("ParseSelectedProperties keeps only the wanted top-level properties", "[common][json]") {
  std::string text =
      R"( {"id":"a","skip":{"x":[1,{"y":"}]"}],"s":"\"{"},"n":42 , "arr":[1,[2,[3]]],"t\u0041g":"q","z":null} )";
  CHECK(ParseSelectedProperties(text, {"id", "n"}) == Json::parse(R"({"id":"a","n":42})"));
  CHECK(ParseSelectedProperties(text, {"arr", "z"}) == Json::parse(R"({"arr":[1,[2,[3]]],"z":null})"));
  CHECK(ParseSelectedProperties(text, {"tAg"}) == Json::parse(R"({"tAg":"q"})"));  // escaped name
  CHECK(ParseSelectedProperties(text, {"missing"}) == Json::object());
  CHECK(ParseSelectedProperties("{}", {"a"}) == Json::object());
}

TEST_CASE("ParseSelectedProperties falls back on anything but a plain object", "[common][json]") {
  CHECK(ParseSelectedProperties("[1,2]", {"a"}) == Json::parse("[1,2]"));
  CHECK(ParseSelectedProperties("{\"a\":", {"a"}).is_discarded());
  CHECK(ParseSelectedProperties("not json", {"a"}).is_discarded());
}
