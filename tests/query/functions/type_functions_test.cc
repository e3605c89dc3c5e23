// Type checking and conversion functions, pinned to the examples of the Cosmos DB query
// reference: IS_*, IIF, ObjectToArray, StringTo* and ToString.
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "query/functions/registry.h"

using cosmos::Json;
using namespace cosmos::query;

namespace {

// An argument written as JSON text; "undefined", "NaN", "Infinity" and "-Infinity" stand for the
// values JSON cannot spell.
Value Arg(std::string_view text) {
  if (text == "undefined") return Value();
  if (text == "NaN") return Value::Number(std::numeric_limits<double>::quiet_NaN());
  if (text == "Infinity") return Value::Number(std::numeric_limits<double>::infinity());
  if (text == "-Infinity") return Value::Number(-std::numeric_limits<double>::infinity());
  return Value::FromJson(Json::parse(text));
}

Value CallWith(FunctionContext& ctx, std::string_view name, const std::vector<Value>& args) {
  const FunctionDef* def = FunctionRegistry::Instance().Find(name);
  REQUIRE(def != nullptr);
  REQUIRE(def->scalar != nullptr);
  return def->scalar(args, ctx);
}

struct Case {
  const char* function;
  std::vector<const char*> args;  // JSON text each (see Arg)
  const char* expected;           // JSON text, or "undefined"
};

void CheckCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    std::vector<Value> args;
    std::string call = std::string(c.function) + "(";
    for (size_t i = 0; i < c.args.size(); ++i) {
      args.push_back(Arg(c.args[i]));
      call += std::string(i > 0 ? ", " : "") + c.args[i];
    }
    call += ")";
    FunctionContext ctx;
    Value result = CallWith(ctx, c.function, args);
    INFO(call << " returned " << result.ToString() << ", expected " << c.expected);
    CHECK(ctx.error.ok());
    CHECK(SameValue(result, Arg(c.expected)));
  }
}

// The nine inputs of the IS_ARRAY / IS_BOOL examples, in order. The last two are properties
// missing from {skus: [25344, 82947], vendors: null} (".size" and ".vendor"): undefined.
const std::vector<const char*> kSkuInputs = {
    "true", "65", R"("AdventureWorks")", "null", R"({"size": "small"})", "[25344, 82947]",
    "[25344, 82947]", "undefined", "undefined"};

void CheckEachInput(const char* function, const std::vector<const char*>& inputs,
                    const std::vector<const char*>& expected) {
  REQUIRE(inputs.size() == expected.size());
  std::vector<Case> cases;
  for (size_t i = 0; i < inputs.size(); ++i) cases.push_back({function, {inputs[i]}, expected[i]});
  CheckCases(cases);
}

}  // namespace

TEST_CASE("Type functions are registered with their documented arities", "[query][type]") {
  struct Arity {
    const char* name;
    int min_args;
    int max_args;
  };
  const std::vector<Arity> arities = {
      {"IS_ARRAY", 1, 1},         {"IS_BOOL", 1, 1},         {"IS_DEFINED", 1, 1},
      {"IS_FINITE_NUMBER", 1, 1}, {"IS_INTEGER", 1, 1},      {"IS_NULL", 1, 1},
      {"IS_NUMBER", 1, 1},        {"IS_OBJECT", 1, 1},       {"IS_PRIMITIVE", 1, 1},
      {"IS_STRING", 1, 1},        {"IIF", 3, 3},             {"ObjectToArray", 1, 3},
      {"StringToArray", 1, 1},    {"StringToBoolean", 1, 1}, {"StringToNull", 1, 1},
      {"StringToNumber", 1, 1},   {"StringToObject", 1, 1},  {"ToString", 1, 1},
  };
  for (const Arity& a : arities) {
    INFO(a.name);
    const FunctionDef* def = FunctionRegistry::Instance().Find(a.name);
    REQUIRE(def != nullptr);
    CHECK(def->name == a.name);
    CHECK(def->min_args == a.min_args);
    CHECK(def->max_args == a.max_args);
  }
  CHECK(FunctionRegistry::Instance().Find("tostring")->name == "ToString");
  CHECK(FunctionRegistry::Instance().Find("OBJECTTOARRAY")->name == "ObjectToArray");
}

TEST_CASE("IS_ARRAY, IS_BOOL, IS_DEFINED: documented examples", "[query][type]") {
  CheckEachInput("IS_ARRAY", kSkuInputs,
                 {"false", "false", "false", "false", "false", "true", "true", "false", "false"});
  CheckEachInput("IS_BOOL", kSkuInputs,
                 {"true", "false", "false", "false", "false", "false", "false", "false", "false"});
  CheckCases({
      {"IS_DEFINED", {"5"}, "true"},           // { "quantity" : 5 }.quantity
      {"IS_DEFINED", {"undefined"}, "false"},  // { "quantity" : 5 }.name
  });
}

TEST_CASE("IS_NULL, IS_NUMBER, IS_OBJECT, IS_PRIMITIVE, IS_STRING: documented examples", "[query][type]") {
  // true, 15, "AdventureWorks", null, {price: 85.23}, ["red", "blue", "yellow"], and the
  // properties .quantity, .size (missing) and .vendor of {quantity: 25, vendor: null}.
  CheckEachInput("IS_NULL",
                 {"true", "15", R"("AdventureWorks")", "null", R"({"price": 85.23})",
                  R"(["red", "blue", "yellow"])", "25", "undefined", "null"},
                 {"false", "false", "false", "true", "false", "false", "false", "false", "true"});

  // true, 1, "value", null, {"name": "Tecozow coat"}, its .name, {"quantity": 0}.quantity, {}.category
  CheckEachInput("IS_NUMBER",
                 {"true", "1", R"("value")", "null", R"({"name": "Tecozow coat"})", R"("Tecozow coat")", "0",
                  "undefined"},
                 {"false", "true", "false", "false", "false", "false", "true", "false"});

  // true, 1, "value", ["green", "red", "yellow"], null, {"name": "Tecozow coat"}, its .name,
  // then {"quantity": {"count": 0}}.quantity (IS_OBJECT) or {"onSale": false}.onSale, and {}.category.
  const char* colors = R"(["green", "red", "yellow"])";
  const char* coat = R"({"name": "Tecozow coat"})";
  CheckEachInput("IS_OBJECT",
                 {"true", "1", R"("value")", colors, "null", coat, R"("Tecozow coat")", R"({"count": 0})",
                  "undefined"},
                 {"false", "false", "false", "false", "false", "true", "false", "true", "false"});
  CheckEachInput("IS_PRIMITIVE",
                 {"true", "1", R"("value")", colors, "null", coat, R"("Tecozow coat")", "false", "undefined"},
                 {"true", "true", "true", "false", "true", "false", "true", "true", "false"});
  CheckEachInput("IS_STRING",
                 {"true", "1", R"("value")", colors, "null", coat, R"("Tecozow coat")", "false", "undefined"},
                 {"false", "false", "true", "false", "false", "false", "true", "false", "false"});
}

TEST_CASE("IS_FINITE_NUMBER and IS_INTEGER: documented examples", "[query][type]") {
  CheckCases({
      {"IS_FINITE_NUMBER", {"1234.567"}, "true"},
      {"IS_FINITE_NUMBER", {"Infinity"}, "false"},  // 8.9 / 0.0
      {"IS_FINITE_NUMBER", {"NaN"}, "false"},       // SQRT(-1.0)
      {"IS_FINITE_NUMBER", {"-Infinity"}, "false"},
      {"IS_FINITE_NUMBER", {R"("1")"}, "false"},
      {"IS_FINITE_NUMBER", {"undefined"}, "false"},

      {"IS_INTEGER", {"3454.123"}, "false"},
      {"IS_INTEGER", {"5523432"}, "true"},
      {"IS_INTEGER", {"-9223372036854775808"}, "true"},
      {"IS_INTEGER", {"9223372036854775807"}, "true"},
      {"IS_INTEGER", {"18446744073709551615"}, "false"},
      {"IS_INTEGER", {"4.0"}, "true"},
      {"IS_INTEGER", {"1e19"}, "false"},
      {"IS_INTEGER", {"Infinity"}, "false"},
      {"IS_INTEGER", {R"("7")"}, "false"},
  });
}

TEST_CASE("IIF: documented examples", "[query][type]") {
  CheckCases({
      {"IIF", {"true", "123", "456"}, "123"},
      {"IIF", {"false", "123", "456"}, "456"},
      {"IIF", {"123", "123", "456"}, "456"},
      {"IIF", {R"("ABC")", "123", "456"}, "456"},
      {"IIF", {"[1,2,3]", "123", "456"}, "456"},
      {"IIF", {R"({"name": "Alice", "age": 20})", "123", "456"}, "456"},
      {"IIF", {"undefined", "123", "456"}, "456"},
      {"IIF", {"null", "123", "456"}, "456"},
      // IIF(p.onSale, p.pricing.sale, p.pricing.msrp) over the two documented products.
      {"IIF", {"true", "30.85", "55.95"}, "30.85"},
      {"IIF", {"false", "12.55", "20.15"}, "20.15"},
      {"IIF", {"true", "undefined", "1"}, "undefined"},
  });
}

TEST_CASE("ObjectToArray: documented examples", "[query][type]") {
  const char* object = R"({"a": "12345", "b": "67890"})";
  CheckCases({
      {"ObjectToArray", {object}, R"([{"k": "a", "v": "12345"}, {"k": "b", "v": "67890"}])"},
      {"ObjectToArray", {object, R"("name")"}, R"([{"name": "a", "v": "12345"}, {"name": "b", "v": "67890"}])"},
      {"ObjectToArray",
       {object, R"("key")", R"("value")"},
       R"([{"key": "a", "value": "12345"}, {"key": "b", "value": "67890"}])"},
      {"ObjectToArray",
       {R"({"small": 15, "medium": 24, "large": 2, "xlarge": 0})", R"("size")", R"("quantity")"},
       R"([{"size": "small", "quantity": 15}, {"size": "medium", "quantity": 24},
           {"size": "large", "quantity": 2}, {"size": "xlarge", "quantity": 0}])"},
      {"ObjectToArray", {"{}"}, "[]"},
      {"ObjectToArray", {R"({"nested": {"x": [1]}})"}, R"([{"k": "nested", "v": {"x": [1]}}])"},
      // Wrong kinds.
      {"ObjectToArray", {"[1, 2]"}, "undefined"},
      {"ObjectToArray", {"undefined"}, "undefined"},
      {"ObjectToArray", {object, "1"}, "undefined"},
      {"ObjectToArray", {object, R"("key")", "null"}, "undefined"},
  });
  // The pairs keep the object's property order.
  FunctionContext ctx;
  Value pairs = CallWith(ctx, "ObjectToArray", {Arg(R"({"z": 1, "a": 2, "m": 3})")});
  REQUIRE(pairs.size() == 3);
  CHECK(pairs.At(0).Property("k").string() == "z");
  CHECK(pairs.At(2).Property("k").string() == "m");
  CHECK(pairs.ToString() == R"([{"k":"z","v":1},{"k":"a","v":2},{"k":"m","v":3}])");
}

TEST_CASE("StringToArray, StringToBoolean, StringToNull: documented examples", "[query][type]") {
  CheckCases({
      {"StringToArray", {R"("[]")"}, "[]"},
      {"StringToArray", {R"("[ \"coats\", \"gloves\", \"hats\" ]")"}, R"(["coats", "gloves", "hats"])"},
      {"StringToArray",
       {R"("[ { \"types\": [ \"coats\", \"gloves\" ] }, [ \"hats\" ], 76, false, null ]")"},
       R"([{"types": ["coats", "gloves"]}, ["hats"], 76, false, null])"},
      {"StringToArray",
       {R"("[ [ \"coats\", \"gloves\" ], [ \"hats\" ] ]")"},
       R"([["coats", "gloves"], ["hats"]])"},
      {"StringToArray", {R"("[ 'coats', 'gloves', 'hats' ]")"}, "undefined"},
      {"StringToArray", {"undefined"}, "undefined"},
      {"StringToArray", {"null"}, "undefined"},

      {"StringToBoolean", {R"("true")"}, "true"},
      {"StringToBoolean", {R"("true  ")"}, "true"},
      {"StringToBoolean", {R"("  false")"}, "false"},
      {"StringToBoolean", {R"("  false  ")"}, "false"},
      {"StringToBoolean", {"true"}, "undefined"},
      {"StringToBoolean", {"undefined"}, "undefined"},
      {"StringToBoolean", {"null"}, "undefined"},

      {"StringToNull", {R"("null")"}, "null"},
      {"StringToNull", {R"("null  ")"}, "null"},
      {"StringToNull", {R"("  null")"}, "null"},
      {"StringToNull", {R"("  null  ")"}, "null"},
      {"StringToNull", {R"("NULL")"}, "undefined"},
      {"StringToNull", {R"("Null")"}, "undefined"},
      {"StringToNull", {"null"}, "undefined"},
      {"StringToNull", {"undefined"}, "undefined"},
  });
}

TEST_CASE("StringToNumber and StringToObject: documented examples", "[query][type]") {
  CheckCases({
      {"StringToNumber", {R"("100")"}, "100"},
      {"StringToNumber", {R"("3.14")"}, "3.14"},
      {"StringToNumber", {R"("   60   ")"}, "60"},
      {"StringToNumber", {R"("-1.79769e+308")"}, "-1.79769e+308"},
      {"StringToNumber", {R"("Hello")"}, "undefined"},
      {"StringToNumber", {"undefined"}, "undefined"},
      {"StringToNumber", {"null"}, "undefined"},
      {"StringToNumber", {"NaN"}, "undefined"},
      {"StringToNumber", {"Infinity"}, "undefined"},

      {"StringToObject", {R"("{}")"}, "{}"},
      {"StringToObject", {R"("{\"isAvailable\": true}")"}, R"({"isAvailable": true})"},
      {"StringToObject", {R"("{\"division\": {\"name\": \"Sales\"}}")"}, R"({"division": {"name": "Sales"}})"},
      {"StringToObject", {R"("{'price': 27.55}")"}, "undefined"},
      {"StringToObject", {"undefined"}, "undefined"},
      {"StringToObject", {"null"}, "undefined"},
  });
}

TEST_CASE("StringTo* accept only JSON of the wanted kind", "[query][type]") {
  CheckCases({
      {"StringToBoolean", {R"("TRUE")"}, "undefined"},
      {"StringToBoolean", {R"("1")"}, "undefined"},
      {"StringToBoolean", {R"("\ttrue\n")"}, "true"},
      {"StringToNumber", {R"("0x10")"}, "undefined"},
      {"StringToNumber", {R"("1,000")"}, "undefined"},
      {"StringToNumber", {R"("1e400")"}, "undefined"},
      {"StringToNumber", {R"("-0.5e-3")"}, "-0.0005"},
      {"StringToNumber", {R"("[1]")"}, "undefined"},
      {"StringToNumber", {R"("")"}, "undefined"},
      {"StringToNumber", {"42"}, "undefined"},
      {"StringToArray", {R"("[1, 2] extra")"}, "undefined"},
      {"StringToArray", {R"("{}")"}, "undefined"},
      {"StringToObject", {R"("[]")"}, "undefined"},
      {"StringToObject", {R"("{\"a\": 1,}")"}, "undefined"},
      {"StringToNull", {R"("")"}, "undefined"},
  });
}

TEST_CASE("ToString: documented examples", "[query][type]") {
  CheckCases({
      {"ToString", {"125"}, R"("125")"},
      {"ToString", {"0.1234"}, R"("0.1234")"},
      {"ToString", {"false"}, R"("false")"},
      {"ToString", {"[ 1, 2, 3 ]"}, R"("[1,2,3]")"},
      {"ToString", {R"({ "department": "Bicycles" })"}, R"("{\"department\":\"Bicycles\"}")"},
      {"ToString", {R"("Hello World")"}, R"("Hello World")"},
      {"ToString", {"undefined"}, "undefined"},
      {"ToString", {"NaN"}, R"("NaN")"},
      {"ToString", {"Infinity"}, R"("Infinity")"},
  });
}

TEST_CASE("ToString prints numbers as the service does", "[query][type]") {
  CheckCases({
      {"ToString", {"1.0"}, R"("1")"},  // integral doubles have no fraction
      {"ToString", {"-2.5"}, R"("-2.5")"},
      {"ToString", {"0.1"}, R"("0.1")"},
      {"ToString", {"1e21"}, R"("1e+21")"},
      {"ToString", {"1e20"}, R"("100000000000000000000")"},
      {"ToString", {"1.5e-7"}, R"("1.5e-7")"},
      {"ToString", {"0.000001"}, R"("0.000001")"},
      {"ToString", {"123456789012"}, R"("123456789012")"},
      {"ToString", {"-0.0"}, R"("0")"},
      {"ToString", {"-Infinity"}, R"("-Infinity")"},
      {"ToString", {"1.7976931348623157e308"}, R"("1.7976931348623157e+308")"},
      {"ToString", {"null"}, R"("null")"},
      {"ToString", {"[1.0, 2.50, \"x\", null, {\"y\": 3.0}]"}, R"("[1,2.5,\"x\",null,{\"y\":3}]")"},
      {"ToString", {R"({"quote": "a\"b", "é": "ü\n"})"}, R"("{\"quote\":\"a\\\"b\",\"é\":\"ü\\n\"}")"},
  });
}

TEST_CASE("Type functions charge work", "[query][type]") {
  FunctionContext ctx;
  CallWith(ctx, "IS_STRING", {Value::String("x")});
  CHECK(ctx.work >= 1);
  FunctionContext long_ctx;
  CallWith(long_ctx, "StringToArray", {Value::String("[" + std::string(6400, ' ') + "]")});
  CHECK(long_ctx.work >= 100);
}
