// Mathematical system functions. The "documented" cases are the examples of the Cosmos DB
// NoSQL reference pages, with the outputs those pages show.
#include <cmath>
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

Value Call(std::string_view name, std::initializer_list<std::string_view> arg_texts) {
  const FunctionDef* def = FunctionRegistry::Instance().Find(name);
  REQUIRE(def != nullptr);
  REQUIRE(def->scalar != nullptr);
  std::vector<Value> args;
  for (std::string_view text : arg_texts) args.push_back(Arg(text));
  FunctionContext ctx;
  return def->scalar(args, ctx);
}

struct Case {
  const char* function;
  std::initializer_list<std::string_view> args;
  const char* expected;  // JSON text, or "undefined"
};

void CheckCases(std::initializer_list<Case> cases) {
  for (const Case& c : cases) {
    Value result = Call(c.function, c.args);
    std::string call = std::string(c.function) + "(";
    for (std::string_view a : c.args) call += std::string(a) + ",";
    INFO(call << ") = " << result.ToString() << ", expected " << c.expected);
    CHECK(SameValue(result, Arg(c.expected)));
  }
}

}  // namespace

TEST_CASE("Math: documented examples of the trigonometric functions", "[query][math]") {
  CheckCases({
      {"ACOS", {"-1"}, "3.141592653589793"},
      {"ASIN", {"-1"}, "-1.5707963267948966"},
      {"ATAN", {"-45.01"}, "-1.5485826962062663"},
      {"ATN2", {"35.175643", "129.44"}, "0.265344532064832"},
      {"COS", {"14.78"}, "-0.5994654261946543"},
      {"COT", {"124.1332"}, "-0.040311998371148884"},
      {"SIN", {"45.175643"}, "0.929607286611012"},
      {"TAN", {"124.1332"}, "-24.80651023035602"},
      {"TAN", {"1.5707963267948966"}, "16331239353195370"},  // TAN(PI()/2)
      {"DEGREES", {"1.5707963267948966"}, "90"},
      {"DEGREES", {"3.141592653589793"}, "180"},
      {"DEGREES", {"4.71238898038469"}, "270"},
      {"DEGREES", {"6.283185307179586"}, "360"},
      {"RADIANS", {"90"}, "1.5707963267948966"},
      {"RADIANS", {"180"}, "3.141592653589793"},
      {"RADIANS", {"270"}, "4.71238898038469"},
      {"RADIANS", {"360"}, "6.283185307179586"},
      {"PI", {}, "3.141592653589793"},
  });
}

TEST_CASE("Math: documented examples of rounding", "[query][math]") {
  CheckCases({
      {"ABS", {"-1"}, "1"},
      {"ABS", {"0"}, "0"},
      {"ABS", {"1"}, "1"},
      {"CEILING", {"123.45"}, "124"},
      {"CEILING", {"-45.72"}, "-45"},
      {"CEILING", {"0"}, "0"},
      {"FLOOR", {"62.6"}, "62"},
      {"FLOOR", {"-145.12"}, "-146"},
      {"FLOOR", {"0.2989"}, "0"},
      {"FLOOR", {"0.0"}, "0"},
      {"FLOOR", {"null"}, "undefined"},
      {"ROUND", {"2.4"}, "2"},
      {"ROUND", {"2.6"}, "3"},
      {"ROUND", {"2.5"}, "3"},
      {"ROUND", {"-2.4"}, "-2"},
      {"ROUND", {"-2.6"}, "-3"},
      // Midpoints round away from zero.
      {"ROUND", {"-6.5"}, "-7"},
      {"ROUND", {"-0.5"}, "-1"},
      {"ROUND", {"0.5"}, "1"},
      {"ROUND", {"6.5"}, "7"},
      {"SIGN", {"-2"}, "-1"},
      {"SIGN", {"-1"}, "-1"},
      {"SIGN", {"0"}, "0"},
      {"SIGN", {"1"}, "1"},
      {"SIGN", {"2"}, "1"},
      {"TRUNC", {"2.37"}, "2"},
      {"TRUNC", {"-2.78"}, "-2"},
      {"TRUNC", {"2"}, "2"},
      {"TRUNC", {"0.0000714"}, "0"},
      {"TRUNC", {"3.141592653589793"}, "3"},  // TRUNC(PI())
  });
}

TEST_CASE("Math: documented examples of powers and logarithms", "[query][math]") {
  CheckCases({
      {"EXP", {"0"}, "1"},
      {"EXP", {"10"}, "22026.465794806718"},
      {"EXP", {"20"}, "485165195.4097903"},
      {"LOG", {"5"}, "1.6094379124341003"},
      {"LOG", {"2", "10"}, "0.3010299956639812"},
      {"LOG10", {"5"}, "0.6989700043360189"},
      {"LOG10", {"2"}, "0.3010299956639812"},
      {"LOG10", {"100"}, "2"},
      {"POWER", {"1", "1"}, "1"},
      {"POWER", {"2", "2"}, "4"},
      {"POWER", {"3", "3"}, "27"},
      {"POWER", {"4", "4"}, "256"},
      {"POWER", {"5", "5"}, "3125"},
      {"POWER", {"0", "2"}, "0"},
      {"POWER", {"null", "3"}, "undefined"},
      {"POWER", {"2", "null"}, "undefined"},
      {"SQRT", {"0"}, "0"},
      {"SQRT", {"1"}, "1"},
      {"SQRT", {"4"}, "2"},
      {"SQRT", {"17"}, "4.123105625617661"},
      {"SQRT", {"25"}, "5"},
      {"SQUARE", {"0"}, "0"},
      {"SQUARE", {"1"}, "1"},
      {"SQUARE", {"2"}, "4"},
      {"SQUARE", {"3"}, "9"},
      {"SQUARE", {"null"}, "undefined"},
  });
}

TEST_CASE("Math: documented examples of NumberBin", "[query][math]") {
  CheckCases({
      {"NumberBin", {"37.752", "-100"}, "100"},
      {"NumberBin", {"37.752", "10"}, "30"},
      {"NumberBin", {"37.752", "1"}, "37"},
      {"NumberBin", {"37.752", "0"}, "undefined"},
      {"NumberBin", {"37.752", "0.1"}, "37.7"},
      {"NumberBin", {"37.752", "0.01"}, "37.75"},
      {"NumberBin", {"155.23478", "0.01"}, "155.23"},
      // The bin size defaults to 1.
      {"NumberBin", {"37.752"}, "37"},
      {"NumberBin", {"-0.5"}, "-1"},
      {"NumberBin", {"\"37\""}, "undefined"},
      {"NumberBin", {"37", "\"1\""}, "undefined"},
  });
}

TEST_CASE("Math: documented examples of the Int functions", "[query][math]") {
  CheckCases({
      {"IntAdd", {"20", "10"}, "30"},
      {"IntAdd", {"20", "0"}, "20"},
      {"IntAdd", {"20", "0.10"}, "undefined"},
      {"IntSub", {"25", "50"}, "-25"},
      {"IntSub", {"25", "15"}, "10"},
      {"IntSub", {"25", "25"}, "0"},
      {"IntSub", {"25", "0"}, "25"},
      {"IntSub", {"25", "2.5"}, "undefined"},
      {"IntMul", {"5", "2"}, "10"},
      {"IntMul", {"5", "-2"}, "-10"},
      {"IntMul", {"-5", "-2"}, "10"},
      {"IntMul", {"5", "5"}, "25"},
      {"IntMul", {"5", "25"}, "125"},  // IntMul(5, IntMul(5, 5))
      {"IntMul", {"5", "0"}, "0"},
      {"IntMul", {"5", "0.5"}, "undefined"},
      {"IntDiv", {"10", "2"}, "5"},
      {"IntDiv", {"10", "-2"}, "-5"},
      {"IntDiv", {"-10", "-2"}, "5"},
      {"IntDiv", {"10", "10"}, "1"},
      {"IntDiv", {"10", "0"}, "undefined"},
      {"IntDiv", {"10", "0.1"}, "undefined"},
      {"IntMod", {"12", "5"}, "2"},
      {"IntMod", {"12", "-5"}, "2"},
      {"IntMod", {"-12", "-5"}, "-2"},
      {"IntMod", {"15", "5"}, "0"},
      {"IntMod", {"12", "0"}, "undefined"},
      {"IntMod", {"12", "0.2"}, "undefined"},
      {"IntBitAnd", {"15", "25"}, "9"},
      {"IntBitAnd", {"15", "0"}, "0"},
      {"IntBitAnd", {"15", "15"}, "15"},
      {"IntBitAnd", {"15", "1.5"}, "undefined"},
      {"IntBitOr", {"56", "100"}, "124"},
      {"IntBitOr", {"56", "56"}, "56"},
      {"IntBitOr", {"56", "0"}, "56"},
      {"IntBitOr", {"56", "0.1"}, "undefined"},
      {"IntBitXor", {"56", "100"}, "92"},
      {"IntBitXor", {"56", "56"}, "0"},
      {"IntBitXor", {"56", "0"}, "56"},
      {"IntBitXor", {"56", "0.1"}, "undefined"},
      {"IntBitNot", {"65"}, "-66"},
      {"IntBitNot", {"0"}, "-1"},
      {"IntBitNot", {"0.1"}, "undefined"},
      {"IntBitLeftShift", {"16", "4"}, "256"},
      {"IntBitLeftShift", {"16", "0.4"}, "undefined"},
      {"IntBitRightShift", {"16", "4"}, "1"},
      {"IntBitRightShift", {"16", "0.4"}, "undefined"},
  });
}

TEST_CASE("Math: Int functions use 64-bit two's complement arithmetic", "[query][math]") {
  CheckCases({
      // Wrap-around on overflow, as in C++.
      {"IntAdd", {"9223372036854775807", "1"}, "-9223372036854775808"},
      {"IntSub", {"-9223372036854775808", "1"}, "9223372036854775807"},
      {"IntMul", {"4611686018427387904", "2"}, "-9223372036854775808"},
      {"IntDiv", {"-9223372036854775808", "-1"}, "-9223372036854775808"},
      {"IntMod", {"-9223372036854775808", "-1"}, "0"},
      {"IntBitLeftShift", {"1", "63"}, "-9223372036854775808"},
      {"IntBitRightShift", {"-16", "2"}, "-4"},  // arithmetic shift keeps the sign
      // Division truncates toward zero; the remainder takes the dividend's sign.
      {"IntDiv", {"-7", "2"}, "-3"},
      {"IntMod", {"-7", "2"}, "-1"},
      // Integral values written with a fraction are still integers.
      {"IntAdd", {"2.0", "3"}, "5"},
      // Outside the 64-bit range, or not numbers: undefined.
      {"IntAdd", {"18446744073709551615", "0"}, "undefined"},
      {"IntAdd", {"\"1\"", "1"}, "undefined"},
      {"IntAdd", {"true", "1"}, "undefined"},
      {"IntBitNot", {"null"}, "undefined"},
  });
  // Results beyond 2^53 keep every digit.
  CHECK(Call("IntAdd", {"9007199254740992", "1"}).ToString() == "9007199254740993");
  CHECK(Call("IntBitNot", {"-9223372036854775808"}).ToString() == "9223372036854775807");
}

TEST_CASE("Math: arguments that are not numbers give undefined", "[query][math]") {
  for (const char* name : {"ABS", "ACOS", "ASIN", "ATAN", "CEILING", "COS", "COT", "DEGREES", "EXP",
                           "FLOOR", "LOG", "LOG10", "RADIANS", "ROUND", "SIGN", "SIN", "SQRT",
                           "SQUARE", "TAN", "TRUNC", "NumberBin"}) {
    for (const char* arg : {"\"1\"", "true", "null", "[1]", "{\"a\":1}", "undefined"}) {
      INFO(name << "(" << arg << ")");
      CHECK(Call(name, {arg}).is_undefined());
    }
  }
  CheckCases({
      {"ATN2", {"1", "\"1\""}, "undefined"},
      {"ATN2", {"undefined", "1"}, "undefined"},
      {"LOG", {"8", "\"2\""}, "undefined"},
      {"POWER", {"\"2\"", "2"}, "undefined"},
  });
}

TEST_CASE("Math: results outside the finite range stay numbers", "[query][math]") {
  // The service evaluates these to NaN or infinity: IS_FINITE_NUMBER(SQRT(-1)) is documented
  // as false.
  Value nan = Call("SQRT", {"-1"});
  REQUIRE(nan.is_number());
  CHECK(std::isnan(nan.number()));
  CHECK(std::isnan(Call("ACOS", {"2"}).number()));
  CHECK(std::isnan(Call("LOG", {"-1"}).number()));
  CHECK(Call("LOG", {"0"}).number() == -INFINITY);
  CHECK(Call("LOG10", {"0"}).number() == -INFINITY);
  CHECK(Call("EXP", {"1000"}).number() == INFINITY);
  CHECK(Call("POWER", {"0", "-1"}).number() == INFINITY);
}

TEST_CASE("Math: other values", "[query][math]") {
  CheckCases({
      {"LOG", {"8", "2"}, "3"},
      {"POWER", {"2", "-1"}, "0.5"},
      {"POWER", {"9", "0.5"}, "3"},
      {"ATN2", {"1", "0"}, "1.5707963267948966"},
      {"ABS", {"-2.5"}, "2.5"},
      {"SIGN", {"-0.001"}, "-1"},
  });
  // Rounding up to zero from below gives 0, not -0 (which would print as -0.0).
  CHECK(Call("CEILING", {"-0.5"}).ToString() == "0");
  CHECK(Call("ROUND", {"-0.4"}).ToString() == "0");
  CHECK(Call("TRUNC", {"-0.7"}).ToString() == "0");
}

TEST_CASE("Math: RAND returns numbers from zero to one", "[query][math]") {
  for (int i = 0; i < 100; ++i) {
    Value r = Call("RAND", {});
    REQUIRE(r.is_number());
    CHECK(r.number() >= 0);
    CHECK(r.number() < 1);
  }
}

TEST_CASE("Math: registry names and arities", "[query][math]") {
  struct Arity {
    const char* name;
    int min_args;
    int max_args;
  };
  for (const Arity& a : std::initializer_list<Arity>{
           {"ABS", 1, 1},           {"ACOS", 1, 1},          {"ASIN", 1, 1},
           {"ATAN", 1, 1},          {"ATN2", 2, 2},          {"CEILING", 1, 1},
           {"COS", 1, 1},           {"COT", 1, 1},           {"DEGREES", 1, 1},
           {"EXP", 1, 1},           {"FLOOR", 1, 1},         {"LOG", 1, 2},
           {"LOG10", 1, 1},         {"PI", 0, 0},            {"POWER", 2, 2},
           {"RADIANS", 1, 1},       {"RAND", 0, 0},          {"ROUND", 1, 1},
           {"SIGN", 1, 1},          {"SIN", 1, 1},           {"SQRT", 1, 1},
           {"SQUARE", 1, 1},        {"TAN", 1, 1},           {"TRUNC", 1, 1},
           {"NumberBin", 1, 2},     {"IntAdd", 2, 2},        {"IntBitAnd", 2, 2},
           {"IntBitLeftShift", 2, 2}, {"IntBitNot", 1, 1},   {"IntBitOr", 2, 2},
           {"IntBitRightShift", 2, 2}, {"IntBitXor", 2, 2},  {"IntDiv", 2, 2},
           {"IntMod", 2, 2},        {"IntMul", 2, 2},        {"IntSub", 2, 2},
       }) {
    INFO(a.name);
    const FunctionDef* def = FunctionRegistry::Instance().Find(a.name);
    REQUIRE(def != nullptr);
    CHECK(def->name == a.name);
    CHECK(def->min_args == a.min_args);
    CHECK(def->max_args == a.max_args);
    CHECK_FALSE(def->is_aggregate());
  }
  // Lookups ignore case.
  CHECK(FunctionRegistry::Instance().Find("numberbin") == FunctionRegistry::Instance().Find("NUMBERBIN"));
  CHECK(FunctionRegistry::Instance().Find("intadd") != nullptr);
}

TEST_CASE("Math: calls are counted as work", "[query][math]") {
  FunctionContext ctx;
  std::vector<Value> args = {Value::Number(2)};
  FunctionRegistry::Instance().Find("SQRT")->scalar(args, ctx);
  FunctionRegistry::Instance().Find("ABS")->scalar(args, ctx);
  CHECK(ctx.work == 2);
}
