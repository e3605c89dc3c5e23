// ParseQuery: Cosmos SQL text -> AST. Expressions are checked through a fully parenthesised
// printout (Print below), so a table row shows both the tree shape and the node kinds.
#include "query/parser/parser.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "common/json.h"
#include "tests/test_support.h"

using cosmos::Json;
using namespace cosmos::query;

namespace {

std::string PrintQuery(const SelectQuery& query);

// Infix with every operator parenthesised; literals as JSON (so 2 and 2.0 differ).
std::string Print(const Expr& e) {
  auto child = [&](size_t i) { return Print(*e.children[i]); };
  auto list = [&](size_t from) {
    std::string out;
    for (size_t i = from; i < e.children.size(); ++i) out += (i > from ? ", " : "") + child(i);
    return out;
  };
  switch (e.kind) {
    case ExprKind::kLiteral: return e.literal_undefined ? "undefined" : e.literal.dump();
    case ExprKind::kParameter:
    case ExprKind::kIdentifier: return e.name;
    case ExprKind::kProperty: return child(0) + "." + e.name;
    case ExprKind::kIndex: return child(0) + "[" + child(1) + "]";
    case ExprKind::kUnary: {
      static const char* const kOps[] = {"NOT ", "-", "+", "~"};
      return std::string("(") + kOps[static_cast<int>(e.unary_op)] + child(0) + ")";
    }
    case ExprKind::kBinary: {
      static const char* const kOps[] = {"OR", "AND", "=",  "!=", "<", "<=", ">",  ">=",  "+",  "-",
                                         "*",  "/",   "%",  "&",  "|", "^",  "<<", ">>", ">>>", "||"};
      return "(" + child(0) + " " + kOps[static_cast<int>(e.binary_op)] + " " + child(1) + ")";
    }
    case ExprKind::kBetween:
      return "(" + child(0) + (e.negated ? " NOT" : "") + " BETWEEN " + child(1) + " AND " + child(2) + ")";
    case ExprKind::kIn: return "(" + child(0) + (e.negated ? " NOT" : "") + " IN (" + list(1) + "))";
    case ExprKind::kLike:
      return "(" + child(0) + (e.negated ? " NOT" : "") + " LIKE " + child(1) +
             (e.children.size() > 2 ? " ESCAPE " + child(2) : "") + ")";
    case ExprKind::kConditional: return "(" + child(0) + " ? " + child(1) + " : " + child(2) + ")";
    case ExprKind::kCoalesce: return "(" + child(0) + " ?? " + child(1) + ")";
    case ExprKind::kFunctionCall: return (e.udf ? "udf." : "") + e.name + "(" + list(0) + ")";
    case ExprKind::kArrayLiteral: return "[" + list(0) + "]";
    case ExprKind::kObjectLiteral: {
      std::string out = "{";
      for (size_t i = 0; i < e.fields.size(); ++i) {
        out += (i > 0 ? ", " : "") + Json(e.fields[i].first).dump() + ": " + Print(*e.fields[i].second);
      }
      return out + "}";
    }
    case ExprKind::kScalarSubquery: return "(" + PrintQuery(*e.subquery) + ")";
    case ExprKind::kExists: return "EXISTS(" + PrintQuery(*e.subquery) + ")";
    case ExprKind::kArraySubquery: return "ARRAY(" + PrintQuery(*e.subquery) + ")";
  }
  return "?";
}

// The query in a normalised form: keywords upper case, written aliases with AS, inferred ones
// in angle brackets, `IN` sources as `x IN coll`.
std::string PrintQuery(const SelectQuery& q) {
  std::string out = "SELECT";
  if (q.distinct) out += " DISTINCT";
  if (q.top) out += " TOP " + Print(*q.top);
  if (q.select_star) out += " *";
  if (q.select_value) out += " VALUE";
  for (size_t i = 0; i < q.items.size(); ++i) {
    out += (i > 0 ? ", " : " ") + Print(*q.items[i].expr);
    if (!q.items[i].alias.empty()) out += " AS " + q.items[i].alias;
  }
  for (size_t i = 0; i < q.from.size(); ++i) {
    const FromSource& s = q.from[i];
    out += i == 0 ? " FROM " : " JOIN ";
    out += s.iterate ? s.alias + " IN " + Print(*s.collection) : Print(*s.collection) + " <" + s.alias + ">";
  }
  if (q.where) out += " WHERE " + Print(*q.where);
  for (size_t i = 0; i < q.group_by.size(); ++i) {
    out += (i == 0 ? " GROUP BY " : ", ") + Print(*q.group_by[i]);
  }
  for (size_t i = 0; i < q.order_by.size(); ++i) {
    out += (i == 0 ? " ORDER BY " : ", ") + Print(*q.order_by[i].expr);
    if (q.order_by[i].explicit_direction) out += q.order_by[i].descending ? " DESC" : " ASC";
  }
  if (q.offset) out += " OFFSET " + Print(*q.offset) + " LIMIT " + Print(*q.limit);
  return out;
}

std::shared_ptr<const SelectQuery> MustParse(const std::string& text) {
  auto parsed = ParseQuery(text);
  INFO(text << "\n" << cosmos_test::MessageOf(parsed));
  REQUIRE(parsed.ok());
  return parsed.value();
}

// The expression of `SELECT VALUE <text>`.
std::string Value(const std::string& text) {
  return Print(*MustParse("SELECT VALUE " + text)->items[0].expr);
}

// The service's error payload of a failed parse.
Json ErrorOf(const std::string& text) {
  auto parsed = ParseQuery(text);
  INFO(text);
  REQUIRE_FALSE(parsed.ok());
  return Json::parse(parsed.status().message())["errors"][0];
}

std::string SpanText(const std::string& text, SourceSpan span) {
  return text.substr(static_cast<size_t>(span.start), static_cast<size_t>(span.end - span.start));
}

struct Case {
  std::string input;
  std::string expected;
};

}  // namespace

TEST_CASE("Operator precedence and associativity", "[query][parser]") {
  const Case cases[] = {
      {"1 + 2 * 3", "(1 + (2 * 3))"},
      {"1 * 2 + 3 % 4 / 5", "((1 * 2) + ((3 % 4) / 5))"},
      {"1 - 2 - 3", "((1 - 2) - 3)"},
      {"1 << 2 + 3", "(1 << (2 + 3))"},
      {"1 >> 2 >>> 3", "((1 >> 2) >>> 3)"},
      {"a < b = c >= d", "((a < b) = (c >= d))"},
      {"a != b <> c", "((a != b) != c)"},
      {"a = b & c = d", "((a = b) & (c = d))"},
      {"a & b ^ c | d", "(((a & b) ^ c) | d)"},
      {"a | b || c", "((a | b) || c)"},
      {"a || b = c", "(a || (b = c))"},
      {"a || b || c", "((a || b) || c)"},
      {"NOT a = b", "((NOT a) = b)"},
      {"NOT a AND b OR c", "(((NOT a) AND b) OR c)"},
      {"a OR b AND c", "(a OR (b AND c))"},
      {"a AND b AND c", "((a AND b) AND c)"},
      {"NOT NOT a", "(NOT (NOT a))"},
      {"-a * b", "((-a) * b)"},
      {"~a.b[0]", "(~a.b[0])"},
      {"a ?? b ?? c", "(a ?? (b ?? c))"},
      {"a OR b ?? c", "((a OR b) ?? c)"},
      {"a ? b : c ? d : e", "(a ? b : (c ? d : e))"},
      {"a ? b ? c : d : e", "(a ? (b ? c : d) : e)"},
      {"a ?? b ? c : d", "((a ?? b) ? c : d)"},
      {"a ? b : c ?? d", "(a ? b : (c ?? d))"},
      {"a = 1 ? 'x' : 'y'", "((a = 1) ? \"x\" : \"y\")"},
      {"(1 + 2) * 3", "((1 + 2) * 3)"},
      {"a BETWEEN 1 AND 2 AND b", "((a BETWEEN 1 AND 2) AND b)"},
      {"a NOT BETWEEN 1 + 1 AND 2 * 3 OR c", "((a NOT BETWEEN (1 + 1) AND (2 * 3)) OR c)"},
      {"a || b IN ('x', 'y')", "((a || b) IN (\"x\", \"y\"))"},
      {"a = 1 AND b NOT IN (1, 2 + 3)", "((a = 1) AND (b NOT IN (1, (2 + 3))))"},
      {"NOT a IN (1)", "((NOT a) IN (1))"},
      {"a LIKE 'x%' OR b NOT LIKE @p ESCAPE '!'", "((a LIKE \"x%\") OR (b NOT LIKE @p ESCAPE \"!\"))"},
      {"c.a * -1", "(c.a * -1)"},
      {"1 - -2", "(1 - -2)"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(Value(c.input) == c.expected);
  }
}

TEST_CASE("Literals", "[query][parser]") {
  const Case cases[] = {
      {"0", "0"},
      {"42", "42"},
      {"1.5", "1.5"},
      {"2.0", "2.0"},
      {"5.", "5.0"},
      {".25", "0.25"},
      {"1e3", "1000.0"},
      {"1.5E-2", "0.015"},
      {"0x1F", "31"},
      {"0XfF", "255"},
      {"9223372036854775807", "9223372036854775807"},
      {"9223372036854775808", "9.223372036854776e+18"},
      {"-9223372036854775807", "-9223372036854775807"},
      {"-3", "-3"},
      {"- 2.5", "-2.5"},
      {"+7", "7"},
      {"-(-3)", "3"},
      {"-'a'", "(-\"a\")"},
      {"true", "true"},
      {"false", "false"},
      {"null", "null"},
      {"undefined", "undefined"},
      {"TRUE", "TRUE"},  // the constants are case-sensitive: upper case is an identifier
      {"'single'", "\"single\""},
      {"\"double\"", "\"double\""},
      {"''", "\"\""},
      {R"('it\'s')", R"("it's")"},
      {R"("say \"hi\"")", R"("say \"hi\"")"},
      {R"('a\\b\/c')", R"("a\\b/c")"},
      {R"('\b\f\n\r\t')", R"("\b\f\n\r\t")"},
      {R"('\u00e9\u4F60')", "\"\xC3\xA9\xE4\xBD\xA0\""},
      {R"('\uD83D\uDE00')", "\"\xF0\x9F\x98\x80\""},  // a surrogate pair is one code point
      {R"('\uD83D')", "\"\xEF\xBF\xBD\""},            // a lone surrogate is U+FFFD
      {"'\xE3\x81\x93\xE3\x81\xAB'", "\"\xE3\x81\x93\xE3\x81\xAB\""},
      {"\"it's\"", "\"it's\""},
      {"'a--b'", "\"a--b\""},
      {"1.e2", "100.0"},
      {"[]", "[]"},
      {"[1, 'a', [true]]", "[1, \"a\", [true]]"},
      {"{}", "{}"},
      {R"({"k": 1, k2: c.x, 'k 3': [2]})", R"({"k": 1, "k2": c.x, "k 3": [2]})"},
      {"{dataType:'Float32'}", R"({"dataType": "Float32"})"},
      {"@param_1", "@param_1"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(Value(c.input) == c.expected);
  }
}

TEST_CASE("Accessors, calls and subqueries", "[query][parser]") {
  const Case cases[] = {
      {"c.a.b", "c.a.b"},
      {"r. field3", "r.field3"},
      {"c['a b']", "c[\"a b\"]"},
      {"c[\"value\"]", "c[\"value\"]"},
      {"c.arr[0][@i]", "c.arr[0][@i]"},
      {"c.rank", "c.rank"},
      {"ARRAY_CONTAINS(c.tags, 'x', true)", "ARRAY_CONTAINS(c.tags, \"x\", true)"},
      {"GetCurrentDateTime()", "GetCurrentDateTime()"},
      {"LEFT('hello', 2) || RIGHT('hello', 2)", "(LEFT(\"hello\", 2) || RIGHT(\"hello\", 2))"},
      {"udf.func1(r.a, 2)", "udf.func1(r.a, 2)"},
      {"ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [1, -2.5]})",
       "ST_DISTANCE(c.loc, {\"type\": \"Point\", \"coordinates\": [1, -2.5]})"},
      {"(SELECT VALUE 1)", "(SELECT VALUE 1)"},
      {"EXISTS(SELECT * FROM t IN c.tags)", "EXISTS(SELECT * FROM t IN c.tags)"},
      {"ARRAY(SELECT VALUE t.name FROM t IN c.tags WHERE t.x > 1)",
       "ARRAY(SELECT VALUE t.name FROM t IN c.tags WHERE (t.x > 1))"},
      {"(SELECT VALUE 1).x", "(SELECT VALUE 1).x"},
      {"NOT EXISTS (SELECT VALUE 1)", "(NOT EXISTS(SELECT VALUE 1))"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(Value(c.input) == c.expected);
  }
}

TEST_CASE("Query clauses", "[query][parser]") {
  const Case cases[] = {
      {"SELECT * FROM c", "SELECT * FROM c <c>"},
      {"select * from c", "SELECT * FROM c <c>"},
      {"SeLeCt DiStInCt VaLuE c.a FrOm c", "SELECT DISTINCT VALUE c.a FROM c <c>"},
      {"SELECT 5", "SELECT 5"},
      {"SELECT TOP 2 5", "SELECT TOP 2 5"},
      {"SELECT TOP @n *", "SELECT TOP @n *"},
      {"SELECT DISTINCT TOP 5 VALUE c.name FROM c", "SELECT DISTINCT TOP 5 VALUE c.name FROM c <c>"},
      {"SELECT VALUE c.a AS x FROM c", "SELECT VALUE c.a AS x FROM c <c>"},
      {"SELECT c.a, c.b AS bee, c.c cee, 1 FROM c", "SELECT c.a, c.b AS bee, c.c AS cee, 1 FROM c <c>"},
      {"SELECT c.id, COUNT(1) AS count, c.x AS VectorDistance FROM c",
       "SELECT c.id, COUNT(1) AS count, c.x AS VectorDistance FROM c <c>"},
      {"SELECT * FROM Root r", "SELECT * FROM Root <r>"},
      {"SELECT * FROM Root AS r", "SELECT * FROM Root <r>"},
      {"SELECT * FROM c.children", "SELECT * FROM c.children <children>"},
      {"SELECT * FROM c.a[\"b c\"]", "SELECT * FROM c.a[\"b c\"] <b c>"},
      {"SELECT * FROM c.a[1]", "SELECT * FROM c.a[1] <>"},
      {"SELECT * FROM c.a.b x", "SELECT * FROM c.a.b <x>"},
      {"SELECT * FROM ch IN c.children", "SELECT * FROM ch IN c.children"},
      {"SELECT VALUE AVG(c.age) FROM Root r JOIN c in r.children WHERE c.age > 1 ORDER BY c.name",
       "SELECT VALUE AVG(c.age) FROM Root <r> JOIN c IN r.children WHERE (c.age > 1) ORDER BY c.name"},
      {"SELECT * FROM c JOIN t IN c.tags JOIN c.x y JOIN c.z",
       "SELECT * FROM c <c> JOIN t IN c.tags JOIN c.x <y> JOIN c.z <z>"},
      {"SELECT s FROM c JOIN (SELECT VALUE s FROM s IN c.scores GROUP BY s) s",
       "SELECT s FROM c <c> JOIN (SELECT VALUE s FROM s IN c.scores GROUP BY s) <s>"},
      {"SELECT * FROM (SELECT VALUE 1)", "SELECT * FROM (SELECT VALUE 1) <>"},
      {"SELECT * FROM c WHERE c.a = 1 AND c.b", "SELECT * FROM c <c> WHERE ((c.a = 1) AND c.b)"},
      {"SELECT c.a FROM c GROUP BY c.a, UPPER(c.b)", "SELECT c.a FROM c <c> GROUP BY c.a, UPPER(c.b)"},
      {"SELECT * FROM c ORDER BY c.a", "SELECT * FROM c <c> ORDER BY c.a"},
      {"SELECT * FROM c ORDER BY c.a ASC, c.b desc, c.c",
       "SELECT * FROM c <c> ORDER BY c.a ASC, c.b DESC, c.c"},
      {"SELECT * FROM c ORDER BY rank", "SELECT * FROM c <c> ORDER BY rank"},
      {"SELECT * FROM c ORDER BY rank DESC, rank(1)", "SELECT * FROM c <c> ORDER BY rank DESC, rank(1)"},
      {"select * from c where c.a between 1 and 2 order by c.a desc offset 1 limit 1",
       "SELECT * FROM c <c> WHERE (c.a BETWEEN 1 AND 2) ORDER BY c.a DESC OFFSET 1 LIMIT 1"},
      {"SELECT * FROM c ORDER BY RANK FullTextScore(c.text, 'swim')",
       "SELECT * FROM c <c> ORDER BY RANK(FullTextScore(c.text, \"swim\"))"},
      {"SELECT TOP 10 * FROM c ORDER BY RANK RRF(FullTextScore(c.t, 'a'), VectorDistance(c.v, [1, 2]))",
       "SELECT TOP 10 * FROM c <c> "
       "ORDER BY RANK(RRF(FullTextScore(c.t, \"a\"), VectorDistance(c.v, [1, 2])))"},
      {"SELECT * FROM c OFFSET 1 LIMIT 2", "SELECT * FROM c <c> OFFSET 1 LIMIT 2"},
      {"SELECT * FROM c OFFSET @o LIMIT @l", "SELECT * FROM c <c> OFFSET @o LIMIT @l"},
      {"SELECT c.name FROM c WHERE c.key = 5 GROUP BY c.name ORDER BY c.name OFFSET 1 LIMIT 2",
       "SELECT c.name FROM c <c> WHERE (c.key = 5) GROUP BY c.name ORDER BY c.name OFFSET 1 LIMIT 2"},
      {"SELECT -- the projection\n  c.a -- trailing\nFROM c--end", "SELECT c.a FROM c <c>"},
      {"\n\tSELECT\r\n*\fFROM\vc ", "SELECT * FROM c <c>"},
      {"SELECT (SELECT * FROM c WHERE c.key = 42) FROM c",
       "SELECT (SELECT * FROM c <c> WHERE (c.key = 42)) FROM c <c>"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(PrintQuery(*MustParse(c.input)) == c.expected);
  }
}

TEST_CASE("Query shape details", "[query][parser]") {
  auto query = MustParse("SELECT DISTINCT TOP 3 VALUE c.a FROM c ORDER BY c.a DESC");
  CHECK(query->distinct);
  CHECK(query->select_value);
  CHECK_FALSE(query->select_star);
  REQUIRE(query->items.size() == 1);
  CHECK(query->top->literal == Json(3));
  CHECK(query->order_by[0].descending);
  CHECK(query->order_by[0].explicit_direction);

  auto star = MustParse("SELECT * FROM c");
  CHECK(star->select_star);
  CHECK(star->items.empty());
  CHECK(star->from.size() == 1);
  CHECK_FALSE(star->from[0].iterate);
  CHECK(star->from[0].collection->kind == ExprKind::kIdentifier);

  auto no_from = MustParse("SELECT 1");
  CHECK(no_from->from.empty());
  CHECK(no_from->top == nullptr);
  CHECK(no_from->where == nullptr);
  CHECK(no_from->offset == nullptr);

  // Number types: integers stay integers, anything with a fraction or exponent is a double.
  CHECK(MustParse("SELECT VALUE 7")->items[0].expr->literal.is_number_integer());
  CHECK(MustParse("SELECT VALUE 7.0")->items[0].expr->literal.is_number_float());
  double huge = MustParse("SELECT VALUE 1e400")->items[0].expr->literal.get<double>();
  CHECK(huge == std::numeric_limits<double>::infinity());

  auto udf = MustParse("SELECT udf.f(1)")->items[0].expr.get();
  CHECK(udf->udf);
  CHECK(udf->name == "f");
}

TEST_CASE("Spans are character offsets into the query text", "[query][parser]") {
  std::string text =
      "SELECT c.a + 1 AS x, BADFUNC(r.age) FROM Root r JOIN t IN r.tags WHERE (c.b) ORDER BY -c.d";
  auto query = MustParse(text);
  CHECK(SpanText(text, query->span) == text);
  CHECK(SpanText(text, query->items[0].span) == "c.a + 1 AS x");
  CHECK(SpanText(text, query->items[0].expr->span) == "c.a + 1");
  CHECK(SpanText(text, query->items[0].expr->children[0]->span) == "c.a");
  CHECK(SpanText(text, query->items[1].expr->span) == "BADFUNC(r.age)");
  CHECK(query->items[1].expr->span.start == 21);
  CHECK(SpanText(text, query->from[0].span) == "Root r");
  CHECK(SpanText(text, query->from[0].collection->span) == "Root");
  CHECK(SpanText(text, query->from[1].span) == "t IN r.tags");
  CHECK(SpanText(text, query->from[1].collection->span) == "r.tags");
  CHECK(SpanText(text, query->where->span) == "c.b");  // parentheses only group
  CHECK(SpanText(text, query->order_by[0].expr->span) == "-c.d");

  std::string leading = "\n   SELECT VALUE [1, {\"a\": @p}] ";
  auto value = MustParse(leading);
  CHECK(SpanText(leading, value->span) == "SELECT VALUE [1, {\"a\": @p}]");
  CHECK(SpanText(leading, value->items[0].span) == "[1, {\"a\": @p}]");
  CHECK(SpanText(leading, value->items[0].expr->children[1]->fields[0].second->span) == "@p");

  std::string sub = "SELECT * FROM c WHERE EXISTS(SELECT VALUE 1) AND (SELECT VALUE 2) = 2 OFFSET 5 LIMIT @n";
  auto subquery = MustParse(sub);
  CHECK(SpanText(sub, subquery->where->children[0]->span) == "EXISTS(SELECT VALUE 1)");
  CHECK(SpanText(sub, subquery->where->children[0]->subquery->span) == "SELECT VALUE 1");
  CHECK(SpanText(sub, subquery->where->children[1]->children[0]->span) == "(SELECT VALUE 2)");
  CHECK(SpanText(sub, subquery->offset->span) == "5");
  CHECK(SpanText(sub, subquery->limit->span) == "@n");

  // Offsets count UTF-16 code units, as the service's strings do: 'é' is one, '😀' is two.
  auto unicode = MustParse("SELECT VALUE '\xC3\xA9\xF0\x9F\x98\x80' || c.x");
  CHECK(unicode->items[0].expr->children[1]->span.start == 22);
  CHECK(unicode->items[0].expr->children[1]->span.end == 25);
}

TEST_CASE("Syntax errors come back in the service's shape", "[query][parser]") {
  struct ErrorCase {
    std::string query;
    std::string message;
    int start;
    int end;
  };
  const ErrorCase cases[] = {
      {"SELECT c.name FROM c OFFSET -1 LIMIT 10", "Syntax error, incorrect syntax near '-'.", 28, 29},
      {"SELECT TOP -1 c.name FROM c", "Syntax error, incorrect syntax near '-'.", 11, 12},
      {"SELECT c.a, FROM c", "Syntax error, incorrect syntax near 'FROM'.", 12, 16},
      {"SELECT c.value FROM c", "Syntax error, incorrect syntax near 'value'.", 9, 14},
      {"SELECT * FROM c WHERE c.order = 1", "Syntax error, incorrect syntax near 'order'.", 24, 29},
      {"SELECT *, c.id FROM c", "Syntax error, incorrect syntax near ','.", 8, 9},
      {"SELECT VALUE * FROM c", "Syntax error, incorrect syntax near '*'.", 13, 14},
      {"SELECT * FROM c WHERE", "Syntax error, unexpected end-of-file.", 21, 21},
      {"SELECT * FROM c WHERE c.a = ", "Syntax error, unexpected end-of-file.", 28, 28},
      {"", "Syntax error, unexpected end-of-file.", 0, 0},
      {"SELECT # FROM c", "Syntax error, incorrect syntax near '#'.", 7, 8},
      {"SELECT 'abc FROM c", "Syntax error, incorrect syntax near '''.", 7, 8},
      {"SELECT '\\x' FROM c", "Syntax error, incorrect syntax near '''.", 7, 8},
      {"SELECT * FROM c ORDER c.a", "Syntax error, incorrect syntax near 'c'.", 22, 23},
      {"SELECT * FROM c WHERE c.a BETWEEN 1", "Syntax error, unexpected end-of-file.", 35, 35},
      {"SELECT * FROM c WHERE c.a IN ()", "Syntax error, incorrect syntax near ')'.", 30, 31},
      {"SELECT * FROM c c2 c3", "Syntax error, incorrect syntax near 'c3'.", 19, 21},
      {"SELECT * FROM c.a[@p]", "Syntax error, incorrect syntax near '@p'.", 18, 20},
      {"SELECT * FROM c OFFSET 1", "Syntax error, unexpected end-of-file.", 24, 24},
      {"SELECT * FROM c WHERE c.a = 1 2", "Syntax error, incorrect syntax near '2'.", 30, 31},
      {"SELECT 1 FROM c WHERE x LIKE 'a' ESCAPE c.x", "Syntax error, incorrect syntax near 'c'.", 40, 41},
      {"SELECT UDF.f(1)", "Syntax error, incorrect syntax near '('.", 12, 13},
      {"SELECT \xC3\xA9", "Syntax error, incorrect syntax near '\xC3\xA9'.", 7, 8},
  };
  for (const ErrorCase& c : cases) {
    INFO(c.query);
    Json error = ErrorOf(c.query);
    CHECK(error["severity"] == "Error");
    CHECK(error["code"] == "SC1001");
    CHECK(error["message"] == c.message);
    CHECK(error["location"]["start"] == c.start);
    CHECK(error["location"]["end"] == c.end);
  }

  Json utf8 = ErrorOf("SELECT '\xC3\xA9' \xFF");
  CHECK(utf8["message"] == "Syntax error, the query text is not valid UTF-8.");
  CHECK(utf8["location"]["start"] == 11);
}

TEST_CASE("Nesting is bounded so a hostile query cannot exhaust the stack", "[query][parser]") {
  auto nested = [](int depth) {
    return "SELECT VALUE " + std::string(static_cast<size_t>(depth), '(') + "1" +
           std::string(static_cast<size_t>(depth), ')');
  };
  REQUIRE_OK(ParseQuery(nested(500)));
  Json error = ErrorOf(nested(100000));
  CHECK(error["message"] == "Syntax error, the query is nested too deeply.");

  std::string long_or = "SELECT * FROM c WHERE c.id = 'x0'";
  for (int i = 1; i <= 500; ++i) long_or += " OR c.id = 'x" + std::to_string(i) + "'";
  REQUIRE_OK(ParseQuery(long_or));
  std::string list = "SELECT * FROM c WHERE c.id IN (0";
  for (int i = 1; i < 16000; ++i) list += ", " + std::to_string(i);
  REQUIRE_OK(ParseQuery(list + ")"));

  // Postfix accessor chains nest the AST too, though each bracket closes at once.
  for (std::string piece : {"['a']", "[1]", "(1)"}) {
    std::string chain = "SELECT VALUE c";
    for (int i = 0; i < 10000; ++i) chain += piece;
    INFO(piece);
    CHECK(ErrorOf(chain)["message"] == "Syntax error, the query is nested too deeply.");
  }
  std::string calls = "SELECT * FROM c WHERE IS_DEFINED(c.a)";
  for (int i = 0; i < 500; ++i) calls += " AND IS_DEFINED(c['a'])";
  REQUIRE_OK(ParseQuery(calls));

  for (std::string piece : {"- ", "NOT ", "1 + ", "a ? b : ", "a ?? ", "c.a."}) {
    std::string chain = "SELECT VALUE ";
    for (int i = 0; i < 20000; ++i) chain += piece;
    INFO(piece);
    CHECK(ErrorOf(chain + "1")["message"] == "Syntax error, the query is nested too deeply.");
  }
}

TEST_CASE("The limits the account advertises are enforced", "[query][parser]") {
  auto repeated = [](std::string head, const std::string& piece, int times, const std::string& tail = "") {
    for (int i = 0; i < times; ++i) head += piece;
    return head + tail;
  };
  CHECK(ErrorOf("SELECT VALUE '" + std::string(262144, 'x') + "'")["message"] ==
        "The query text is 262159 characters long; at most 262144 are allowed.");
  REQUIRE_OK(ParseQuery(repeated("SELECT VALUE 1 FROM c", " JOIN t IN c.a", 10)));
  CHECK(ErrorOf(repeated("SELECT VALUE 1 FROM c", " JOIN t IN c.a", 11))["message"] ==
        "The query has 11 JOINs; at most 10 are allowed.");
  CHECK(ErrorOf(repeated("SELECT * FROM c WHERE true", " AND true", 501))["message"] ==
        "The query has 501 AND operators; at most 500 are allowed.");
  CHECK(ErrorOf(repeated("SELECT * FROM c WHERE true", " OR true", 501))["message"] ==
        "The query has 501 OR operators; at most 500 are allowed.");
  CHECK(ErrorOf(repeated("SELECT * FROM c WHERE c.n IN (0", ", 1", 16000, ")"))["message"] ==
        "An IN list has 16001 items; at most 16000 are allowed.");
}

TEST_CASE("Concurrent parses are independent", "[query][parser]") {
  const std::vector<std::string> queries = {
      "SELECT c.a, c.b FROM c WHERE c.x BETWEEN 1 AND 10 ORDER BY c.a DESC",
      "SELECT VALUE ARRAY(SELECT VALUE t FROM t IN c.tags WHERE t LIKE 'a%') FROM c",
      "SELECT TOP 5 * FROM c JOIN t IN c.tags WHERE t.a ?? t.b ? 1 : 2 OFFSET 1 LIMIT 2",
      "SELECT * FROM c WHERE c.a.b.c = 'x' OR NOT IS_DEFINED(c.d) AND c.e IN (1, 2, 3)",
  };
  std::vector<std::string> expected;
  for (const std::string& q : queries) expected.push_back(PrintQuery(*MustParse(q)));
  std::atomic<int> mismatches = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        size_t which = static_cast<size_t>(i + t) % queries.size();
        auto parsed = ParseQuery(queries[which]);
        if (!parsed.ok() || PrintQuery(*parsed.value()) != expected[which]) ++mismatches;
        if (ParseQuery(queries[which] + " WHERE").ok()) ++mismatches;  // the error path too
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(mismatches == 0);
}

// The SDK's query-plan baselines (see ../shared/reference/query-plan-vectors.md): every query the
// service planned must parse, and every SC1001 it reported must fail the same way.
TEST_CASE("Query-plan vectors: parse outcomes match the service", "[query][parser]") {
  std::filesystem::path path =
      std::filesystem::path(__FILE__).parent_path() / "../../../../shared/query-plan-vectors.json";
  std::ifstream file(path);
  if (!file) {
    WARN("skipped: " << path << " is not there");
    return;
  }
  Json vectors = Json::parse(file);
  int planned = 0;
  int syntax_errors = 0;
  int exact_locations = 0;
  for (const Json& c : vectors["cases"]) {
    std::string query = c["query"];
    INFO(c["suite"].get<std::string>() << " #" << c["index"] << ": " << query);
    auto parsed = ParseQuery(query);
    Json expected_error;
    if (c.contains("error")) {
      Json payload = Json::parse(c["error"].get<std::string>(), nullptr, false);
      if (payload.contains("errors") && payload["errors"][0]["code"] == "SC1001") {
        expected_error = payload["errors"][0];
      }
    }
    if (expected_error.is_null()) {
      // A plan, or an error found after parsing (binder, plan, SDK checks): the parse succeeds.
      CHECK(parsed.ok());
      planned += c.contains("error") ? 0 : 1;
      continue;
    }
    ++syntax_errors;
    REQUIRE_FALSE(parsed.ok());
    Json error = Json::parse(parsed.status().message())["errors"][0];
    CHECK(error["code"] == "SC1001");
    CHECK(error["message"] == expected_error["message"]);
    if (error["location"] == expected_error["location"]) ++exact_locations;
    CHECK(error["location"] == expected_error["location"]);
  }
  CHECK(planned > 300);
  CHECK(syntax_errors == 7);
  CHECK(exact_locations == syntax_errors);
}
