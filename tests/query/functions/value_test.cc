#include "query/value.h"

#include <catch2/catch.hpp>

using cosmos::Json;
using namespace cosmos::query;

TEST_CASE("Value kinds and views", "[query][value]") {
  Value undefined;
  CHECK(undefined.is_undefined());
  CHECK(undefined.kind() == Kind::kUndefined);
  Value doc = Value::FromJson(Json::parse(R"({"a":{"b":[1,2,3]},"s":"x"})"));
  CHECK(doc.Property("a").Property("b").Element(1).number() == 2);
  CHECK(doc.Property("missing").is_undefined());
  CHECK(doc.Property("a").Property("b").Element(3).is_undefined());
  CHECK(doc.Property("a").Property("b").Element(0.5).is_undefined());
  CHECK(doc.Property("s").Property("x").is_undefined());
}

TEST_CASE("Integral numbers print without a fraction", "[query][value]") {
  CHECK(Value::Number(6.0).ToString() == "6");
  CHECK(Value::Number(2.5).ToString() == "2.5");
  CHECK(Value::Number(-0.0).ToString() == "-0.0");
}

TEST_CASE("Comparisons of different kinds are undefined", "[query][value]") {
  CHECK_FALSE(Equals(Value::Number(1), Value::String("1")).has_value());
  CHECK_FALSE(Equals(Value(), Value::Null()).has_value());
  CHECK(Equals(Value::Number(1), Value::FromJson(Json(1.0))) == true);
  CHECK(Equals(Value::FromJson(Json::parse(R"({"a":1,"b":2})")),
               Value::FromJson(Json::parse(R"({"b":2,"a":1})"))) == true);
  CHECK_FALSE(CompareSameKind(Value::FromJson(Json::array({1})), Value::FromJson(Json::array({1}))).has_value());
  CHECK(CompareSameKind(Value::String("B"), Value::String("a")) < 0);  // code point order
}

TEST_CASE("The total order: undefined < null < false < true < numbers < strings", "[query][value]") {
  std::vector<Value> ordered = {Value(), Value::Null(), Value::Boolean(false), Value::Boolean(true),
                                Value::Number(-1), Value::Number(3), Value::String(""), Value::String("a")};
  for (size_t i = 0; i + 1 < ordered.size(); ++i) {
    INFO(ordered[i].ToString() << " < " << ordered[i + 1].ToString());
    CHECK(CompareTotal(ordered[i], ordered[i + 1]) < 0);
    CHECK(CompareTotal(ordered[i + 1], ordered[i]) > 0);
  }
}

TEST_CASE("SameValue and HashValue agree", "[query][value]") {
  Value a = Value::FromJson(Json::parse(R"({"x":[1,{"y":2}],"z":null})"));
  Value b = Value::FromJson(Json::parse(R"({"z":null,"x":[1.0,{"y":2}]})"));
  CHECK(SameValue(a, b));
  CHECK(HashValue(a) == HashValue(b));
  CHECK(SameValue(Value(), Value()));
  CHECK_FALSE(SameValue(Value(), Value::Null()));
}
