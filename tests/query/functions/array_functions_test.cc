// Array system functions. The "documented" cases are the examples of the Cosmos DB NoSQL
// reference pages, with the outputs those pages show.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "query/functions/registry.h"

using cosmos::Json;
using namespace cosmos::query;

namespace {

// An argument from JSON text; the word `undefined` stands for an undefined value.
Value Arg(std::string_view text) {
  return text == "undefined" ? Value() : Value::FromJson(Json::parse(text));
}

Value Call(std::string_view name, std::initializer_list<std::string_view> arg_texts,
           FunctionContext* context = nullptr) {
  const FunctionDef* def = FunctionRegistry::Instance().Find(name);
  REQUIRE(def != nullptr);
  REQUIRE(def->scalar != nullptr);
  std::vector<Value> args;
  for (std::string_view text : arg_texts) args.push_back(Arg(text));
  FunctionContext local;
  return def->scalar(args, context ? *context : local);
}

struct Case {
  const char* function;
  std::initializer_list<std::string_view> args;
  const char* expected;  // JSON text, or "undefined"
};

// Compares the exact JSON text, so that array order and element kinds both count.
void CheckCases(std::initializer_list<Case> cases) {
  for (const Case& c : cases) {
    Value result = Call(c.function, c.args);
    std::string call = std::string(c.function) + "(";
    for (std::string_view a : c.args) call += std::string(a) + ", ";
    std::string expected = std::string_view(c.expected) == "undefined"
                               ? "undefined" : Json::parse(c.expected).dump();
    INFO(call << ")");
    CHECK(result.ToString() == expected);
  }
}

constexpr const char* kScores = "[70, 86, 92, 99, 85, 90, 82]";
constexpr const char* kFruits = R"(["apples", "strawberries", "bananas"])";
constexpr const char* kShirt = R"([{"category": "shirts", "color": "blue"}])";

}  // namespace

TEST_CASE("Array: documented examples of ARRAY_CONCAT and ARRAY_LENGTH", "[query][array]") {
  CheckCases({
      {"ARRAY_CONCAT", {R"(["apples", "strawberries"])", R"(["bananas"])"},
       R"(["apples", "strawberries", "bananas"])"},
      {"ARRAY_LENGTH", {kScores}, "7"},
      {"ARRAY_LENGTH", {"[]"}, "0"},
      {"ARRAY_LENGTH", {"null"}, "undefined"},
  });
}

TEST_CASE("Array: documented examples of ARRAY_CONTAINS", "[query][array]") {
  CheckCases({
      {"ARRAY_CONTAINS", {R"(["coats", "jackets", "sweatshirts"])", R"("coats")"}, "true"},
      {"ARRAY_CONTAINS", {R"(["coats", "jackets", "sweatshirts"])", R"("hoodies")"}, "false"},
      {"ARRAY_CONTAINS", {kShirt, R"({"category": "shirts", "color": "blue"})"}, "true"},
      {"ARRAY_CONTAINS", {kShirt, R"({"category": "shirts"})"}, "false"},
      {"ARRAY_CONTAINS", {kShirt, R"({"category": "shirts"})", "true"}, "true"},
      {"ARRAY_CONTAINS", {kShirt, R"({"category": "shorts", "color": "blue"})", "true"}, "false"},
  });
}

TEST_CASE("Array: documented examples of ARRAY_CONTAINS_ANY and ARRAY_CONTAINS_ALL", "[query][array]") {
  CheckCases({
      {"ARRAY_CONTAINS_ANY", {R"([1, true, "3", [1,2,3]])", "1", "true", R"("3")", "[1,2,3]"}, "true"},
      {"ARRAY_CONTAINS_ANY", {"[1, 2, 3, 4]", "2", "3", "4", "5"}, "true"},
      {"ARRAY_CONTAINS_ANY", {"[1, 2, 3, 4]", "1", "undefined"}, "true"},
      {"ARRAY_CONTAINS_ANY", {"[1, 2, 3, 4]", "5", "6", "7", "8"}, "false"},
      {"ARRAY_CONTAINS_ANY", {"[]", "1", "2", "3"}, "false"},
      {"ARRAY_CONTAINS_ANY", {"[1, 2, 3, 4]", "5", "undefined"}, "undefined"},
      {"ARRAY_CONTAINS_ALL", {R"([1, true, "3", [1,2,3]])", "1", "true", R"("3")", "[1,2,3]"}, "true"},
      {"ARRAY_CONTAINS_ALL", {"[1, 2, 3, 4]", "2", "3", "4", "5"}, "false"},
      {"ARRAY_CONTAINS_ALL", {"[1, 2, 3, 4]", "1", "undefined"}, "undefined"},
      {"ARRAY_CONTAINS_ALL", {"[1, 2, 3, 4]", "5", "6", "7", "8"}, "false"},
      {"ARRAY_CONTAINS_ALL", {"[]", "1", "2", "3"}, "false"},
      {"ARRAY_CONTAINS_ALL", {"[1, 2, 3, 4]", "5", "undefined"}, "false"},
  });
}

TEST_CASE("Array: documented examples of ARRAY_SLICE", "[query][array]") {
  CheckCases({
      {"ARRAY_SLICE", {kScores, "0"}, "[70, 86, 92, 99, 85, 90, 82]"},
      {"ARRAY_SLICE", {kScores, "1"}, "[86, 92, 99, 85, 90, 82]"},
      {"ARRAY_SLICE", {kScores, "-1"}, "[82]"},
      {"ARRAY_SLICE", {kScores, "-2"}, "[90, 82]"},
      {"ARRAY_SLICE", {kScores, "0", "3"}, "[70, 86, 92]"},
      {"ARRAY_SLICE", {kScores, "0", "12"}, "[70, 86, 92, 99, 85, 90, 82]"},
      {"ARRAY_SLICE", {kScores, "3", "5"}, "[99, 85, 90, 82]"},
      {"ARRAY_SLICE", {kScores, "-2", "1"}, "[90]"},
      {"ARRAY_SLICE", {kFruits, "1"}, R"(["strawberries", "bananas"])"},
      {"ARRAY_SLICE", {kFruits, "1", "1"}, R"(["strawberries"])"},
      {"ARRAY_SLICE", {kFruits, "-2", "1"}, R"(["strawberries"])"},
      {"ARRAY_SLICE", {kFruits, "-2", "2"}, R"(["strawberries", "bananas"])"},
      {"ARRAY_SLICE", {kFruits, "1", "0"}, "[]"},
      {"ARRAY_SLICE", {kFruits, "1", "1000"}, R"(["strawberries", "bananas"])"},
      {"ARRAY_SLICE", {kFruits, "1", "-100"}, "[]"},
  });
}

TEST_CASE("Array: ARRAY_SLICE clamps out-of-range positions", "[query][array]") {
  CheckCases({
      {"ARRAY_SLICE", {kFruits, "-100"}, kFruits},
      {"ARRAY_SLICE", {kFruits, "3"}, "[]"},
      {"ARRAY_SLICE", {kFruits, "100", "2"}, "[]"},
      {"ARRAY_SLICE", {"[]", "0"}, "[]"},
      {"ARRAY_SLICE", {kFruits, "\"1\""}, "undefined"},
      {"ARRAY_SLICE", {kFruits, "1", "null"}, "undefined"},
      {"ARRAY_SLICE", {R"("abc")", "1"}, "undefined"},
  });
}

TEST_CASE("Array: documented examples of the set functions", "[query][array]") {
  CheckCases({
      {"SetIntersect", {"[1, 2, 3, 4]", "[3, 4, 5, 6]"}, "[3, 4]"},
      {"SetIntersect", {"[1, 2, 3, 4]", "[]"}, "[]"},
      {"SetIntersect", {"[1, 2, 3, 4]", "[1, 1, 1, 1]"}, "[1]"},
      {"SetIntersect", {"[1, 2, 3, 4]", R"(["A", "B"])"}, "[]"},
      {"SetIntersect", {R"([1, 2, "A", "B"])", R"(["A", 1])"}, R"(["A", 1])"},
      {"SetIntersect", {R"(["Finch", "Mine Shaft", "Rhino"])", R"(["Rhino", "Finch"])"},
       R"(["Rhino", "Finch"])"},
      {"SetUnion", {"[1, 2, 3, 4]", "[3, 4, 5, 6]"}, "[1, 2, 3, 4, 5, 6]"},
      {"SetUnion", {"[1, 2, 3, 4]", "[]"}, "[1, 2, 3, 4]"},
      {"SetUnion", {"[1, 2, 3, 4]", "[1, 1, 1, 1]"}, "[1, 2, 3, 4]"},
      {"SetUnion", {R"([1, 2, "A", "B"])", R"(["A", 1])"}, R"([1, 2, "A", "B"])"},
      {"SetUnion", {R"(["Cutty Sark", "Horizon", "Russet", "Fuscous"])", R"(["Fuscous", "Horizon", "Tacha"])"},
       R"(["Cutty Sark", "Horizon", "Russet", "Fuscous", "Tacha"])"},
      {"SetDifference", {"[1, 2, 3]", "[1, 2, 6, 7]"}, "[3]"},
      {"SetDifference", {"[1, 2, 6, 7]", "[1, 2, 3]"}, "[6, 7]"},
      {"SetDifference", {"[1, 2, 3, 4]", "[1, 2, 3, 4, 5, 6]"}, "[]"},
      {"SetDifference", {"[]", "[1, 2, 3]"}, "[]"},
      {"SetDifference", {"[1, 2, 3]", "[]"}, "[1, 2, 3]"},
      {"SetDifference", {"[1, 1, 1, 1]", "[2, 3, 4]"}, "[1]"},
      {"SetEqual", {"[1, 2, 3]", "[1, 2, 3]"}, "true"},
      {"SetEqual", {"[1, 2, 3]", "[3, 2, 1]"}, "true"},
      {"SetEqual", {"[1, 2, 3, 3]", "[1, 2, 2, 3, 1, 2]"}, "true"},
      {"SetEqual", {"[]", "[1, 2, 3]"}, "false"},
      {"SetEqual", {R"([1, true, "abc"])", R"([true, 1, "abc"])"}, "true"},
      {"SetEqual", {"[1, 1, 1, 1]", "[2, 3, 4]"}, "false"},
  });
}

TEST_CASE("Array: set functions compare values deeply", "[query][array]") {
  CheckCases({
      {"SetUnion", {R"([{"a": 1, "b": [1, 2]}])", R"([{"b": [1.0, 2], "a": 1}, {"a": 2}])"},
       R"([{"a": 1, "b": [1, 2]}, {"a": 2}])"},
      {"SetIntersect", {R"([null, false, 0, ""])", R"([0, null, "0", true])"}, "[0, null]"},
      {"SetEqual", {R"([[1, 2]])", R"([[2, 1]])"}, "false"},
      {"SetIntersect", {"[1]", "1"}, "undefined"},
      {"SetUnion", {"null", "[1]"}, "undefined"},
      {"SetDifference", {"[1]", "undefined"}, "undefined"},
      {"SetEqual", {"{}", "[]"}, "undefined"},
  });
}

TEST_CASE("Array: documented examples of the ARRAY_ reductions", "[query][array]") {
  CheckCases({
      {"ARRAY_SUM", {"[1, 2, 3, 4]"}, "10"},
      {"ARRAY_SUM", {R"(["abc", "ABC", "aBc", "AbC"])"}, "undefined"},
      {"ARRAY_SUM", {R"([12, "abc", true, false, null])"}, "undefined"},
      {"ARRAY_AVG", {"[1, 2, 3, 4]"}, "2.5"},
      {"ARRAY_AVG", {"[1.0, 2.0, 3.3, 4.7]"}, "2.75"},
      {"ARRAY_AVG", {"[1, -2.7, 3, -4]"}, "-0.675"},
      {"ARRAY_AVG", {R"(["abc", "ABC", "aBc", "AbC"])"}, "undefined"},
      {"ARRAY_AVG", {R"([12, "abc", true, false, null])"}, "undefined"},
      {"ARRAY_MEDIAN", {"[1, 2, 3, 4]"}, "2.5"},
      {"ARRAY_MEDIAN", {"[1.0, 2.0, 3.3, 4.7, 7.8]"}, "3.3"},
      {"ARRAY_MEDIAN", {"[1, -2.7, 3, -4]"}, "-0.8500000000000001"},
      {"ARRAY_MEDIAN", {R"(["abc", "ABC", "aBc", "AbC"])"}, "undefined"},
      {"ARRAY_MEDIAN", {R"([12, "abc", true, false, null])"}, "undefined"},
      {"ARRAY_MAX", {"[1, 2, 3, 4]"}, "4"},
      {"ARRAY_MAX", {R"(["abc", "ABC", "aBc", "AbC"])"}, R"("abc")"},
      {"ARRAY_MAX", {"[true, false]"}, "true"},
      {"ARRAY_MAX", {"[null, null]"}, "null"},
      {"ARRAY_MAX", {R"([12, "abc", true, false, null])"}, R"("abc")"},
      {"ARRAY_MIN", {"[1, 2, 3, 4]"}, "1"},
      {"ARRAY_MIN", {R"(["abc", "ABC", "aBc", "AbC"])"}, R"("ABC")"},
      {"ARRAY_MIN", {"[true, false]"}, "false"},
      {"ARRAY_MIN", {"[null, null]"}, "null"},
      {"ARRAY_MIN", {R"([12, "abc", true, false, null])"}, "null"},
  });
}

TEST_CASE("Array: reductions of empty arrays and of wrong kinds", "[query][array]") {
  CheckCases({
      {"ARRAY_SUM", {"[]"}, "0"},
      {"ARRAY_AVG", {"[]"}, "undefined"},
      {"ARRAY_MEDIAN", {"[]"}, "undefined"},
      {"ARRAY_MAX", {"[]"}, "undefined"},
      {"ARRAY_MIN", {"[]"}, "undefined"},
      {"ARRAY_MEDIAN", {"[3, 1, 2]"}, "2"},
      {"ARRAY_MAX", {"[1, [2]]"}, "undefined"},
      {"ARRAY_MIN", {R"([1, {"a": 1}])"}, "undefined"},
      {"ARRAY_SUM", {"5"}, "undefined"},
      {"ARRAY_MAX", {R"("abc")"}, "undefined"},
  });
}

TEST_CASE("Array: documented examples of CHOOSE", "[query][array]") {
  CheckCases({
      {"CHOOSE", {"1", R"("adventure")", R"("works")", "true", "[1]"}, R"("adventure")"},
      {"CHOOSE", {"0", R"("abc")", "1", "true", "[1]"}, "undefined"},
      {"CHOOSE", {"1", R"("abc")", "1", "true", "[1]"}, R"("abc")"},
      {"CHOOSE", {"2", R"("abc")", "1", "true", "[1]"}, "1"},
      {"CHOOSE", {"3", R"("abc")", "1", "true", "[1]"}, "true"},
      {"CHOOSE", {"4", R"("abc")", "1", "true", "[1]"}, "[1]"},
      {"CHOOSE", {"5", R"("abc")", "1", "true", "[1]"}, "undefined"},
      {"CHOOSE", {"1.5", R"("abc")", "1"}, "undefined"},
      {"CHOOSE", {R"("1")", R"("abc")"}, "undefined"},
      {"CHOOSE", {"2", R"("abc")", "undefined"}, "undefined"},
  });
}

TEST_CASE("Array: arguments of the wrong kind give undefined", "[query][array]") {
  CheckCases({
      {"ARRAY_CONCAT", {"[1]", R"("abc")"}, "undefined"},
      {"ARRAY_CONCAT", {"[1]", "undefined"}, "undefined"},
      {"ARRAY_CONCAT", {"[1]", "[]", "[[2], {\"a\": 3}]"}, R"([1, [2], {"a": 3}])"},
      {"ARRAY_CONTAINS", {R"("abc")", R"("a")"}, "undefined"},
      {"ARRAY_CONTAINS", {"[1, 2]", "undefined"}, "undefined"},
      {"ARRAY_CONTAINS", {"[1, 2]", "1", R"("true")"}, "undefined"},
      {"ARRAY_CONTAINS_ANY", {R"({"a": 1})", "1"}, "undefined"},
      {"ARRAY_CONTAINS_ALL", {"undefined", "1"}, "undefined"},
      {"ARRAY_LENGTH", {R"({"a": 1})"}, "undefined"},
      {"ARRAY_LENGTH", {R"("abc")"}, "undefined"},
  });
}

TEST_CASE("Array: ARRAY_CONTAINS compares deeply and by kind", "[query][array]") {
  CheckCases({
      {"ARRAY_CONTAINS", {R"([1, "1", null])", R"("1")"}, "true"},
      {"ARRAY_CONTAINS", {R"([1, null])", "false"}, "false"},
      {"ARRAY_CONTAINS", {"[1.0, 2]", "1"}, "true"},
      {"ARRAY_CONTAINS", {"[[1, 2], [3]]", "[1, 2]"}, "true"},
      {"ARRAY_CONTAINS", {"[[1, 2], [3]]", "[2, 1]"}, "false"},
      {"ARRAY_CONTAINS", {R"([{"a": {"b": 1}, "c": 2}])", R"({"c": 2, "a": {"b": 1}})"}, "true"},
      // A partial match needs every property of the pattern; values compare as a whole.
      {"ARRAY_CONTAINS", {R"([{"a": {"b": 1, "x": 0}, "c": 2}])", R"({"a": {"b": 1, "x": 0}})", "true"}, "true"},
      {"ARRAY_CONTAINS", {R"([{"a": {"b": 1, "x": 0}, "c": 2}])", R"({"d": null})", "true"}, "false"},
      {"ARRAY_CONTAINS", {R"([{"a": 1}])", "{}", "true"}, "true"},
      {"ARRAY_CONTAINS", {R"([{"a": 1}])", "{}", "false"}, "false"},
      {"ARRAY_CONTAINS", {R"([1, "x"])", R"("x")", "true"}, "true"},
  });
}

TEST_CASE("Array: registry names and arities", "[query][array]") {
  struct Arity {
    const char* name;
    int min_args;
    int max_args;
  };
  for (const Arity& a : std::initializer_list<Arity>{
           {"ARRAY_CONCAT", 2, -1},   {"ARRAY_CONTAINS", 2, 3},   {"ARRAY_CONTAINS_ANY", 2, -1},
           {"ARRAY_CONTAINS_ALL", 2, -1}, {"ARRAY_LENGTH", 1, 1}, {"ARRAY_SLICE", 2, 3},
           {"SetIntersect", 2, 2},    {"SetUnion", 2, 2},         {"SetDifference", 2, 2},
           {"SetEqual", 2, 2},        {"ARRAY_SUM", 1, 1},        {"ARRAY_AVG", 1, 1},
           {"ARRAY_MEDIAN", 1, 1},    {"ARRAY_MIN", 1, 1},        {"ARRAY_MAX", 1, 1},
           {"CHOOSE", 2, -1},
       }) {
    INFO(a.name);
    const FunctionDef* def = FunctionRegistry::Instance().Find(a.name);
    REQUIRE(def != nullptr);
    CHECK(def->name == a.name);
    CHECK(def->min_args == a.min_args);
    CHECK(def->max_args == a.max_args);
    CHECK_FALSE(def->is_aggregate());
  }
  CHECK(FunctionRegistry::Instance().Find("setintersect") != nullptr);
  CHECK(FunctionRegistry::Instance().Find("array_contains") != nullptr);
}

TEST_CASE("Array: the work charged grows with the elements visited", "[query][array]") {
  FunctionContext short_scan, long_scan;
  Call("ARRAY_CONTAINS", {"[1, 2]", "9"}, &short_scan);
  Call("ARRAY_CONTAINS", {"[1, 2, 3, 4, 5, 6, 7, 8]", "9"}, &long_scan);
  CHECK(short_scan.work >= 1);
  CHECK(long_scan.work > short_scan.work);
  FunctionContext union_work;
  Call("SetUnion", {"[1, 2, 3]", "[4, 5]"}, &union_work);
  CHECK(union_work.work >= 6);
}
