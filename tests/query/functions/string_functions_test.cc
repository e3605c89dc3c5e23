// String functions, pinned to the examples of the Cosmos DB query reference, plus the UTF-16,
// case-mapping, wrong-kind and regex behaviour the reference describes in prose.
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "query/functions/registry.h"

using cosmos::ErrorCode;
using cosmos::Json;
using namespace cosmos::query;

namespace {

// An argument written as JSON text; "undefined" stands for the undefined value.
Value Arg(std::string_view text) {
  if (text == "undefined") return Value();
  return Value::FromJson(Json::parse(text));
}

Value CallWith(FunctionContext& ctx, std::string_view name, const std::vector<Value>& args) {
  const FunctionDef* def = FunctionRegistry::Instance().Find(name);
  REQUIRE(def != nullptr);
  REQUIRE(def->scalar != nullptr);
  return def->scalar(args, ctx);
}

Value Call(std::string_view name, std::initializer_list<std::string_view> args) {
  std::vector<Value> values;
  for (std::string_view a : args) values.push_back(Arg(a));
  FunctionContext ctx;
  Value result = CallWith(ctx, name, values);
  CHECK(ctx.error.ok());
  return result;
}

struct Case {
  const char* function;
  std::vector<const char*> args;  // JSON text each
  const char* expected;           // JSON text, or "undefined"
};

void CheckCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    std::vector<Value> args;
    std::string call = std::string(c.function) + "(";
    for (const char* a : c.args) {
      args.push_back(Arg(a));
      call += std::string(a) + (a == c.args.back() ? "" : ", ");
    }
    call += ")";
    FunctionContext ctx;
    Value result = CallWith(ctx, c.function, args);
    INFO(call << " returned " << result.ToString() << ", expected " << c.expected);
    CHECK(ctx.error.ok());
    CHECK(SameValue(result, Arg(c.expected)));
  }
}

}  // namespace

TEST_CASE("String functions are registered with their documented arities", "[query][string]") {
  struct Arity {
    const char* name;
    int min_args;
    int max_args;
  };
  const std::vector<Arity> arities = {
      {"CONCAT", 2, -1},         {"CONTAINS", 2, 3},          {"CONTAINS_ALL_CI", 2, -1},
      {"CONTAINS_ALL_CS", 2, -1}, {"CONTAINS_ANY_CI", 2, -1},  {"CONTAINS_ANY_CS", 2, -1},
      {"ENDSWITH", 2, 3},        {"INDEX_OF", 2, 3},          {"LASTINDEXOF", 2, 3},
      {"LASTSUBSTRINGAFTER", 2, 2}, {"LASTSUBSTRINGBEFORE", 2, 2}, {"LEFT", 2, 2},
      {"LENGTH", 1, 1},          {"LOWER", 1, 1},             {"LTRIM", 1, 2},
      {"RegexMatch", 2, 3},      {"REPLACE", 3, 3},           {"REPLICATE", 2, 2},
      {"REVERSE", 1, 1},         {"RIGHT", 2, 2},             {"RTRIM", 1, 2},
      {"STARTSWITH", 2, 3},      {"StringEquals", 2, 3},      {"StringJoin", 2, 2},
      {"StringSplit", 2, 2},     {"SUBSTRING", 3, 3},         {"SUBSTRINGAFTER", 2, 2},
      {"SUBSTRINGBEFORE", 2, 2}, {"TRIM", 1, 2},              {"UPPER", 1, 1},
  };
  for (const Arity& a : arities) {
    INFO(a.name);
    const FunctionDef* def = FunctionRegistry::Instance().Find(a.name);
    REQUIRE(def != nullptr);
    CHECK(def->name == a.name);
    CHECK(def->min_args == a.min_args);
    CHECK(def->max_args == a.max_args);
    CHECK_FALSE(def->is_aggregate());
  }
  // Lookups ignore case; the canonical spelling is kept.
  REQUIRE(FunctionRegistry::Instance().Find("stringequals") != nullptr);
  CHECK(FunctionRegistry::Instance().Find("stringequals")->name == "StringEquals");
  CHECK(FunctionRegistry::Instance().Find("regexMATCH")->name == "RegexMatch");
}

TEST_CASE("CONCAT, CONTAINS, STARTSWITH, ENDSWITH and StringEquals: documented examples", "[query][string]") {
  CheckCases({
      {"CONCAT", {R"("Ferpal")", R"("Ropes")"}, R"("FerpalRopes")"},
      {"CONCAT", {R"("adventure")", R"("works")"}, R"("adventureworks")"},
      {"CONCAT", {R"("66403")", R"("-")", R"("gear-climb-ropes")"}, R"("66403-gear-climb-ropes")"},
      {"CONCAT",
       {R"("duonovi-pro-coat")", R"("-")", R"("heavy-coats")", R"("-")", R"("8061")"},
       R"("duonovi-pro-coat-heavy-coats-8061")"},

      {"CONTAINS", {R"("AdventureWorks")", R"("Adventure")"}, "true"},
      {"CONTAINS", {R"("AdventureWorks")", R"("Works")"}, "true"},
      {"CONTAINS", {R"("AdventureWorks")", R"("adventure")"}, "false"},
      {"CONTAINS", {R"("AdventureWorks")", R"("adventure")", "false"}, "false"},
      {"CONTAINS", {R"("AdventureWorks")", R"("works")", "true"}, "true"},
      {"CONTAINS", {R"("AdventureWorks")", R"("Contoso")"}, "false"},

      {"STARTSWITH", {R"("AdventureWorks")", R"("Works")"}, "false"},
      {"STARTSWITH", {R"("AdventureWorks")", R"("Adventure")"}, "true"},
      {"STARTSWITH", {R"("AdventureWorks")", R"("adventure")"}, "false"},
      {"STARTSWITH", {R"("AdventureWorks")", R"("adventure")", "true"}, "true"},

      {"ENDSWITH", {R"("AdventureWorks")", R"("Adventure")"}, "false"},
      {"ENDSWITH", {R"("AdventureWorks")", R"("Works")"}, "true"},
      {"ENDSWITH", {R"("AdventureWorks")", R"("works")"}, "false"},
      {"ENDSWITH", {R"("AdventureWorks")", R"("works")", "true"}, "true"},

      {"StringEquals", {R"("AdventureWorks")", R"("AdventureWorks")"}, "true"},
      {"StringEquals", {R"("AdventureWorks")", R"("adventureworks")"}, "false"},
      {"StringEquals", {R"("AdventureWorks")", R"("adventureworks")", "true"}, "true"},
  });
}

TEST_CASE("CONTAINS_ANY_* and CONTAINS_ALL_*: documented examples", "[query][string]") {
  const char* text = R"("Have a nice day!")";
  CheckCases({
      {"CONTAINS_ANY_CI", {text, R"("have")", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ANY_CI", {text, R"("HAVE")", R"("NICE")", R"("DAY!")"}, "true"},
      {"CONTAINS_ANY_CI", {text, R"("had")", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ANY_CI", {text, "undefined", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ANY_CI", {text, "undefined", R"("had")"}, "undefined"},

      {"CONTAINS_ANY_CS", {text, R"("have")", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ANY_CS", {text, R"("HAVE")", R"("NICE")", R"("DAY!")"}, "false"},
      {"CONTAINS_ANY_CS", {text, R"("had")", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ANY_CS", {text, "undefined", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ANY_CS", {text, "undefined", R"("had")"}, "undefined"},

      {"CONTAINS_ALL_CI", {text, R"("have")", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ALL_CI", {text, R"("HAVE")", R"("NICE")", R"("DAY!")"}, "true"},
      {"CONTAINS_ALL_CI", {text, R"("had")", R"("nice")", R"("day!")"}, "false"},
      {"CONTAINS_ALL_CI", {text, "undefined", R"("nice")", R"("day!")"}, "undefined"},
      {"CONTAINS_ALL_CI", {text, "undefined", R"("had")"}, "false"},

      // The reference shows true here, which contradicts its own definition (the AND of
      // case-sensitive CONTAINS, and CONTAINS("Have a nice day!", "have") is false); we follow
      // the definition.
      {"CONTAINS_ALL_CS", {text, R"("have")", R"("nice")", R"("day!")"}, "false"},
      {"CONTAINS_ALL_CS", {text, R"("Have")", R"("nice")", R"("day!")"}, "true"},
      {"CONTAINS_ALL_CS", {text, R"("HAVE")", R"("NICE")", R"("DAY!")"}, "false"},
      {"CONTAINS_ALL_CS", {text, R"("had")", R"("nice")", R"("day!")"}, "false"},
      {"CONTAINS_ALL_CS", {text, "undefined", R"("nice")", R"("day!")"}, "undefined"},
      {"CONTAINS_ALL_CS", {text, "undefined", R"("had")"}, "false"},
  });
}

TEST_CASE("INDEX_OF, LASTINDEXOF, LEFT, RIGHT, SUBSTRING, LENGTH: documented examples", "[query][string]") {
  const char* aw = R"("AdventureWorks")";
  CheckCases({
      {"INDEX_OF", {aw, R"("A")"}, "0"},
      {"INDEX_OF", {aw, R"("s")"}, "13"},
      {"INDEX_OF", {aw, R"("Adventure")"}, "0"},
      {"INDEX_OF", {aw, R"("Works")"}, "9"},
      {"INDEX_OF", {aw, R"("tureW")"}, "5"},
      {"INDEX_OF", {aw, R"("Cosmos")"}, "-1"},
      {"INDEX_OF", {aw, R"("Works")", "5"}, "9"},
      {"INDEX_OF", {aw, R"("Adventure")", "5"}, "-1"},
      {"INDEX_OF", {aw, R"("aD")"}, "-1"},

      {"LASTINDEXOF", {R"("abcdeabc")", R"("abc")"}, "5"},
      {"LASTINDEXOF", {R"("abcdeabc")", R"("abc")", "6"}, "0"},
      {"LASTINDEXOF", {R"("abcdeabc")", R"("abc")", "7"}, "5"},
      {"LASTINDEXOF", {R"("abcdeabc")", R"("fg")"}, "-1"},

      {"LEFT", {aw, "0"}, R"("")"},
      {"LEFT", {aw, "1"}, R"("A")"},
      {"LEFT", {aw, "5"}, R"("Adven")"},
      {"LEFT", {aw, "14"}, aw},
      {"LEFT", {aw, "100"}, aw},

      {"RIGHT", {aw, "0"}, R"("")"},
      {"RIGHT", {aw, "1"}, R"("s")"},
      {"RIGHT", {aw, "5"}, R"("Works")"},
      {"RIGHT", {aw, "14"}, aw},
      {"RIGHT", {aw, "100"}, aw},

      {"SUBSTRING", {aw, "0", "9"}, R"("Adventure")"},
      {"SUBSTRING", {aw, "9", "5"}, R"("Works")"},
      {"SUBSTRING", {aw, "0", "14"}, aw},
      {"SUBSTRING", {aw, "0", "-1"}, R"("")"},

      {"LENGTH", {aw}, "14"},
      {"LENGTH", {R"("")"}, "0"},
  });
}

TEST_CASE("LOWER, UPPER, LTRIM, RTRIM, TRIM: documented examples", "[query][string]") {
  CheckCases({
      {"LOWER", {R"("adventureworks")"}, R"("adventureworks")"},
      {"LOWER", {R"("ADVENTUREWORKS")"}, R"("adventureworks")"},
      {"LOWER", {R"("adventureWorks")"}, R"("adventureworks")"},
      {"LOWER", {R"("AdventureWorks")"}, R"("adventureworks")"},
      {"LOWER", {R"("ADVENTURE_WORKS")"}, R"("adventure_works")"},

      {"UPPER", {R"("adventureworks")"}, R"("ADVENTUREWORKS")"},
      {"UPPER", {R"("ADVENTUREWORKS")"}, R"("ADVENTUREWORKS")"},
      {"UPPER", {R"("adventureWorks")"}, R"("ADVENTUREWORKS")"},
      {"UPPER", {R"("AdventureWorks")"}, R"("ADVENTUREWORKS")"},
      {"UPPER", {R"("ADVENTURE_WORKS")"}, R"("ADVENTURE_WORKS")"},

      {"LTRIM", {R"("  AdventureWorks")"}, R"("AdventureWorks")"},
      {"LTRIM", {R"("  AdventureWorks  ")"}, R"("AdventureWorks  ")"},
      {"LTRIM", {R"("AdventureWorks  ")"}, R"("AdventureWorks  ")"},
      {"LTRIM", {R"("AdventureWorks")"}, R"("AdventureWorks")"},
      {"LTRIM", {R"("AdventureWorks")", R"("Works")"}, R"("AdventureWorks")"},
      {"LTRIM", {R"("AdventureWorks")", R"("Adventure")"}, R"("Works")"},
      {"LTRIM", {R"("AdventureWorks")", R"("AdventureWorks")"}, R"("")"},
      {"LTRIM", {R"("AdventureWorks")", R"("")"}, R"("AdventureWorks")"},

      {"RTRIM", {R"("  AdventureWorks")"}, R"("  AdventureWorks")"},
      {"RTRIM", {R"("  AdventureWorks  ")"}, R"("  AdventureWorks")"},
      {"RTRIM", {R"("AdventureWorks  ")"}, R"("AdventureWorks")"},
      {"RTRIM", {R"("AdventureWorks")"}, R"("AdventureWorks")"},
      {"RTRIM", {R"("AdventureWorks")", R"("Works")"}, R"("Adventure")"},
      {"RTRIM", {R"("AdventureWorks")", R"("Adventure")"}, R"("AdventureWorks")"},
      {"RTRIM", {R"("AdventureWorks")", R"("AdventureWorks")"}, R"("")"},
      {"RTRIM", {R"("AdventureWorks")", R"("")"}, R"("AdventureWorks")"},

      {"TRIM", {R"("   AdventureWorks")"}, R"("AdventureWorks")"},
      {"TRIM", {R"("AdventureWorks   ")"}, R"("AdventureWorks")"},
      {"TRIM", {R"("   AdventureWorks   ")"}, R"("AdventureWorks")"},
      {"TRIM", {R"("---AdventureWorks---")"}, R"("---AdventureWorks---")"},
      {"TRIM", {R"("___AdventureWorks___")", R"("_")"}, R"("AdventureWorks")"},
      {"TRIM", {R"("---AdventureWorks---")", R"("-")"}, R"("AdventureWorks")"},
      {"TRIM", {R"("-- AdventureWorks --")", R"("-")"}, R"(" AdventureWorks ")"},
      {"TRIM", {R"("-_-AdventureWorks-_-")", R"("-_")"}, R"("AdventureWorks")"},
  });
}

TEST_CASE("REPLACE, REPLICATE, REVERSE, StringJoin, StringSplit: documented examples", "[query][string]") {
  CheckCases({
      {"REPLACE", {R"("AdventureWorksLT")", R"("LT")", R"("LT2")"}, R"("AdventureWorksLT2")"},

      {"REPLICATE", {R"("Cosmic")", "3"}, R"("CosmicCosmicCosmic")"},

      {"REVERSE", {R"("AdventureWorks")"}, R"("skroWerutnevdA")"},
      {"REVERSE", {R"("skroWerutnevdA")"}, R"("AdventureWorks")"},

      {"StringJoin", {R"(["Iropa", "Mountain", "Bike"])", R"(" ")"}, R"("Iropa Mountain Bike")"},
      {"StringJoin", {R"(["Iropa", "Mountain", "Bike"])", R"("")"}, R"("IropaMountainBike")"},
      {"StringJoin", {R"(["Iropa", "Mountain", "Bike"])", "undefined"}, "undefined"},
      {"StringJoin", {R"(["6", "7", "4", "3"])", R"("A")"}, R"("6A7A4A3")"},
      {"StringJoin", {R"(["Adventure", "LT"])", R"("Works")"}, R"("AdventureWorksLT")"},

      {"StringSplit", {R"("Handlebar")", R"("e")"}, R"(["Handl", "bar"])"},
      {"StringSplit", {R"("CARBON_STEEL_BIKE_WHEEL")", R"("_")"}, R"(["CARBON", "STEEL", "BIKE", "WHEEL"])"},
      {"StringSplit", {R"("Road Bike")", R"(" ")"}, R"(["Road", "Bike"])"},
      {"StringSplit", {R"("xenmoun mountain bike")", R"("moun")"}, R"(["xen", " ", "tain bike"])"},
      {"StringSplit", {R"("AluminumBikeFrame")", "undefined"}, "undefined"},
      {"StringSplit", {R"("Helmet")", R"("")"}, R"(["Helmet"])"},
      {"StringSplit", {R"("")", R"("")"}, R"([""])"},
  });
  // REVERSE(REVERSE(x)) is x.
  Value once = Call("REVERSE", {R"("AdventureWorks")"});
  FunctionContext ctx;
  CHECK(SameValue(CallWith(ctx, "REVERSE", {once}), Value::String("AdventureWorks")));
}

TEST_CASE("SUBSTRINGBEFORE/AFTER and LASTSUBSTRINGBEFORE/AFTER: documented examples", "[query][string]") {
  CheckCases({
      {"SUBSTRINGAFTER", {R"("contoso|north|2026")", R"("|")"}, R"("north|2026")"},
      {"SUBSTRINGAFTER", {R"("a/b/c")", R"("/")"}, R"("b/c")"},
      {"SUBSTRINGAFTER", {R"("bike::touring::frame")", R"("::")"}, R"("touring::frame")"},
      {"SUBSTRINGBEFORE", {R"("contoso|north|2026")", R"("|")"}, R"("contoso")"},
      {"SUBSTRINGBEFORE", {R"("a/b/c")", R"("/")"}, R"("a")"},
      {"SUBSTRINGBEFORE", {R"("bike::touring::frame")", R"("::")"}, R"("bike")"},
      {"LASTSUBSTRINGAFTER", {R"("/products/shoes/boots")", R"("/")"}, R"("boots")"},
      {"LASTSUBSTRINGAFTER", {R"("A-B-C")", R"("-")"}, R"("C")"},
      {"LASTSUBSTRINGAFTER", {R"("bike::touring::frame")", R"("::")"}, R"("frame")"},
      {"LASTSUBSTRINGBEFORE", {R"("/products/shoes/boots")", R"("/")"}, R"("/products/shoes")"},
      {"LASTSUBSTRINGBEFORE", {R"("A-B-C")", R"("-")"}, R"("A-B")"},
      {"LASTSUBSTRINGBEFORE", {R"("bike::touring::frame")", R"("::")"}, R"("bike::touring")"},
      // Not documented: a missing delimiter gives "" (XPath's substring-before/after).
      {"SUBSTRINGAFTER", {R"("abc")", R"("|")"}, R"("")"},
      {"LASTSUBSTRINGBEFORE", {R"("abc")", R"("|")"}, R"("")"},
  });
}

TEST_CASE("RegexMatch: documented examples", "[query][string]") {
  CheckCases({
      {"RegexMatch", {R"("abcd")", R"("ABC")"}, "false"},
      {"RegexMatch", {R"("abcd")", R"("ABC")", R"("i")"}, "true"},
      {"RegexMatch", {R"("abcd")", R"("ab.")", R"("")"}, "true"},
      {"RegexMatch", {R"("abcd")", R"("ab c")", R"("x")"}, "true"},
      {"RegexMatch", {R"("abcd")", R"("aB c")", R"("ix")"}, "true"},
      {"RegexMatch", {R"("03a")", R"("[0-9]")"}, "true"},
      {"RegexMatch", {R"("salt3824908")", R"("salt{1}")"}, "true"},
      {"RegexMatch", {R"("shame")", R"("s....")", R"("i")"}, "true"},
  });
}

TEST_CASE("RegexMatch modifiers m and s, PCRE spellings, and code points", "[query][string]") {
  CheckCases({
      // m: ^ and $ also match at line breaks.
      {"RegexMatch", {R"("first\nsecond")", R"("^second$")"}, "false"},
      {"RegexMatch", {R"("first\nsecond")", R"("^second$")", R"("m")"}, "true"},
      // s: '.' also matches a newline.
      {"RegexMatch", {R"("a\nb")", R"("a.b")"}, "false"},
      {"RegexMatch", {R"("a\nb")", R"("a.b")", R"("s")"}, "true"},
      {"RegexMatch", {R"("a\nb")", R"("a[.]b")", R"("s")"}, "false"},  // a class '.' stays literal
      // x: whitespace and comments in the pattern are ignored, but not inside a class.
      {"RegexMatch", {R"("ab")", "\"a b # trailing comment\"", R"("x")"}, "true"},
      {"RegexMatch", {R"("a b")", R"("a[ ]b")", R"("x")"}, "true"},
      // Inline flags and PCRE anchors.
      {"RegexMatch", {R"("ABC")", R"("(?i)abc")"}, "true"},
      {"RegexMatch", {R"("abc")", R"("\\Aabc\\z")"}, "true"},
      {"RegexMatch", {R"("2024-01")", R"json("(?<year>\\d{4})-(?P<month>\\d{2})")json"}, "true"},
      {"RegexMatch", {R"("abab")", R"("^(ab)\\1$")"}, "true"},
      // Patterns see characters, not bytes.
      {"RegexMatch", {R"("日本")", R"("^..$")"}, "true"},
      {"RegexMatch", {R"("😀")", R"("^.$")"}, "true"},
      // Arguments of the wrong kind: undefined, and no error.
      {"RegexMatch", {"1", R"("a")"}, "undefined"},
      {"RegexMatch", {R"("a")", "null"}, "undefined"},
      {"RegexMatch", {R"("a")", R"("a")", "true"}, "undefined"},
  });
}

TEST_CASE("RegexMatch: an invalid pattern or modifier fails the query", "[query][string]") {
  for (auto [pattern, modifiers] : std::vector<std::pair<const char*, const char*>>{
           {"[a", ""}, {"(unclosed", ""}, {"a{2,1}", ""}, {"abc", "g"}}) {
    INFO(pattern << " / " << modifiers);
    FunctionContext ctx;
    Value result =
        CallWith(ctx, "RegexMatch", {Value::String("abc"), Value::String(pattern), Value::String(modifiers)});
    CHECK(result.is_undefined());
    CHECK(ctx.error.code() == ErrorCode::kBadRequest);
  }
}

TEST_CASE("RegexMatch runs in bounded stack on long strings", "[query][string]") {
  FunctionContext ctx;
  std::string long_text(200000, 'a');
  CHECK(IsTrue(CallWith(ctx, "RegexMatch", {Value::String(long_text + "b"), Value::String("^a*b$")})));
  CHECK(IsTrue(CallWith(ctx, "RegexMatch", {Value::String(long_text), Value::String("(a|b)*$")})));
  CHECK(ctx.error.ok());
}

TEST_CASE("Strings are counted and indexed in UTF-16 code units", "[query][string]") {
  CheckCases({
      {"LENGTH", {R"("é")"}, "1"},
      {"LENGTH", {R"("日本語")"}, "3"},
      {"LENGTH", {R"("😀")"}, "2"},  // outside the BMP: a surrogate pair
      {"LENGTH", {R"("a😀b")"}, "4"},
      {"SUBSTRING", {R"("日本語")", "1", "1"}, R"("本")"},
      {"SUBSTRING", {R"("a😀b")", "1", "2"}, R"("😀")"},
      {"SUBSTRING", {R"("a😀b")", "3", "1"}, R"("b")"},
      {"LEFT", {R"("😀a")", "2"}, R"("😀")"},
      {"LEFT", {R"("😀a")", "1"}, R"("\ufffd")"},  // half a pair cannot be encoded in UTF-8
      {"RIGHT", {R"("naïve")", "3"}, R"("ïve")"},
      {"INDEX_OF", {R"("😀abc")", R"("a")"}, "2"},
      {"INDEX_OF", {R"("日本語日本語")", R"("語")", "3"}, "5"},
      {"LASTINDEXOF", {R"("日本語日本語")", R"("日本")"}, "3"},
      {"REVERSE", {R"("a😀b")"}, R"("b😀a")"},  // the pair stays one character
      {"REVERSE", {R"("añb")"}, R"("bña")"},
      {"REPLICATE", {R"("😀")", "5001"}, "undefined"},  // the 10,000-character cap counts UTF-16 units
  });
  CHECK(Call("REPLICATE", {R"("😀")", "5000"}).string().size() == 5000 * 4);
}

TEST_CASE("Case mapping and case-insensitive comparison go beyond ASCII", "[query][string]") {
  CheckCases({
      {"LOWER", {R"("ÀÉÎÕÜ ÇÑ")"}, R"("àéîõü çñ")"},
      {"UPPER", {R"("àéîõü çñ ÿ")"}, R"("ÀÉÎÕÜ ÇÑ Ÿ")"},
      {"UPPER", {R"("straße")"}, R"("STRAßE")"},  // no one-to-one upper case for ß
      {"LOWER", {R"("ŁÓDŹ ČESKÝ Šťastný")"}, R"("łódź český šťastný")"},
      {"UPPER", {R"("łódź český šťastný")"}, R"("ŁÓDŹ ČESKÝ ŠŤASTNÝ")"},
      {"LOWER", {R"("ΑΘΗΝΑ")"}, R"("αθηνα")"},
      {"UPPER", {R"("ςσ")"}, R"("ΣΣ")"},
      {"LOWER", {R"("МОСКВА Ёж")"}, R"("москва ёж")"},
      {"UPPER", {R"("москва ёж")"}, R"("МОСКВА ЁЖ")"},
      {"UPPER", {R"("日本")"}, R"("日本")"},
      {"CONTAINS", {R"("Ärger")", R"("ärg")", "true"}, "true"},
      {"STARTSWITH", {R"("Ελλάδα")", R"("ελλ")", "true"}, "true"},
      {"StringEquals", {R"("MÜNCHEN")", R"("münchen")", "true"}, "true"},
      {"StringEquals", {R"("MÜNCHEN")", R"("münchen")", "false"}, "false"},
  });
}

TEST_CASE("TRIM removes Unicode whitespace", "[query][string]") {
  CheckCases({
      {"TRIM", {R"("\t\n\r abc \u00a0\u3000")"}, R"("abc")"},
      {"LTRIM", {R"("\u2003abc")"}, R"("abc")"},
      {"TRIM", {R"("ééabcé")", R"("é")"}, R"("abc")"},
  });
}

TEST_CASE("String functions return undefined for arguments of the wrong kind", "[query][string]") {
  CheckCases({
      {"CONCAT", {R"("a")", "1"}, "undefined"},
      {"CONCAT", {R"("a")", "undefined"}, "undefined"},
      {"CONTAINS", {"1", R"("1")"}, "undefined"},
      {"CONTAINS", {R"("abc")", R"("a")", R"("yes")"}, "undefined"},
      {"STARTSWITH", {"null", R"("a")"}, "undefined"},
      {"ENDSWITH", {R"("abc")", "[]"}, "undefined"},
      {"StringEquals", {R"("a")", "{}"}, "undefined"},
      {"INDEX_OF", {R"("abc")", R"("b")", R"("1")"}, "undefined"},
      {"LENGTH", {"null"}, "undefined"},
      {"LENGTH", {"undefined"}, "undefined"},
      {"LENGTH", {"[1, 2]"}, "undefined"},
      {"LOWER", {"true"}, "undefined"},
      {"UPPER", {"1"}, "undefined"},
      {"LEFT", {R"("abc")", R"("1")"}, "undefined"},
      {"RIGHT", {"123", "1"}, "undefined"},
      {"SUBSTRING", {R"("abc")", "0", "null"}, "undefined"},
      {"TRIM", {R"("abc")", "1"}, "undefined"},
      {"REPLACE", {R"("abc")", R"("a")", "1"}, "undefined"},
      {"REPLICATE", {R"("a")", R"("2")"}, "undefined"},
      {"REVERSE", {"{}"}, "undefined"},
      {"StringJoin", {R"(["a", 1])", R"(",")"}, "undefined"},
      {"StringJoin", {R"("a,b")", R"(",")"}, "undefined"},
      {"StringSplit", {"1", R"(",")"}, "undefined"},
      {"SUBSTRINGAFTER", {R"("a/b")", "undefined"}, "undefined"},
      {"CONTAINS_ANY_CS", {"1", R"("1")"}, "undefined"},
      {"CONTAINS_ALL_CS", {"1", R"("1")"}, "undefined"},
  });
}

TEST_CASE("Edge cases of positions, counts and empty strings", "[query][string]") {
  CheckCases({
      {"SUBSTRING", {R"("abc")", "1", "100"}, R"("bc")"},
      {"SUBSTRING", {R"("abc")", "5", "1"}, R"("")"},
      {"SUBSTRING", {R"("abc")", "-1", "2"}, R"("ab")"},
      {"SUBSTRING", {R"("abc")", "1.9", "1.9"}, R"("b")"},  // positions truncate toward zero
      {"LEFT", {R"("abc")", "-1"}, R"("")"},
      {"RIGHT", {R"("abc")", "-1"}, R"("")"},
      {"INDEX_OF", {R"("abc")", R"("c")", "10"}, "-1"},
      {"INDEX_OF", {R"("abc")", R"("")"}, "0"},
      {"LASTINDEXOF", {R"("abc")", R"("a")", "-1"}, "-1"},
      {"LASTINDEXOF", {R"("abcabc")", R"("abc")", "100"}, "3"},
      {"REPLACE", {R"("aaa")", R"("a")", R"("bb")"}, R"("bbbbbb")"},
      {"REPLACE", {R"("abc")", R"("")", R"("x")"}, R"("abc")"},
      {"REPLICATE", {R"("ab")", "0"}, R"("")"},
      {"REPLICATE", {R"("ab")", "2.9"}, R"("abab")"},
      {"REPLICATE", {R"("ab")", "-1"}, "undefined"},
      {"StringSplit", {R"("a,,b,")", R"(",")"}, R"(["a", "", "b", ""])"},
      {"StringJoin", {"[]", R"(",")"}, R"("")"},
      {"CONCAT", {R"("")", R"("")"}, R"("")"},
  });
  CHECK(Call("REPLICATE", {R"("a")", "10000"}).string().size() == 10000);
  CHECK(Call("REPLICATE", {R"("a")", "10001"}).is_undefined());
  CHECK(Call("REPLICATE", {R"("ab")", "5000"}).string().size() == 10000);
  CHECK(Call("REPLICATE", {R"("ab")", "5001"}).is_undefined());
  FunctionContext ctx;
  CHECK(CallWith(ctx, "REPLICATE", {Value::String("a"), Value::Number(INFINITY)}).is_undefined());
  CHECK(CallWith(ctx, "SUBSTRING", {Value::String("abc"), Value::Number(NAN), Value::Number(1)}).is_undefined());
}

TEST_CASE("String functions charge work in proportion to the text they touch", "[query][string]") {
  FunctionContext short_ctx, long_ctx;
  CallWith(short_ctx, "UPPER", {Value::String("abc")});
  CallWith(long_ctx, "UPPER", {Value::String(std::string(6400, 'a'))});
  CHECK(short_ctx.work >= 1);
  CHECK(long_ctx.work >= short_ctx.work + 100);
}
