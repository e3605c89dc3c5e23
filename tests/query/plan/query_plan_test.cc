// The query formatter, the plan rewrites and the partition-key filter on hand-built trees, so
// that they are pinned down independently of the parser. The SDK baselines are replayed end to
// end by query_plan_vectors_test.cc.
#include "query/plan/query_plan.h"

#include <catch2/catch.hpp>

using cosmos::Json;
using namespace cosmos::query;

namespace {

ExprPtr Node(ExprKind kind) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  return e;
}

ExprPtr Lit(Json value) {
  ExprPtr e = Node(ExprKind::kLiteral);
  e->literal = std::move(value);
  return e;
}

ExprPtr Id(std::string name) {
  ExprPtr e = Node(ExprKind::kIdentifier);
  e->name = std::move(name);
  return e;
}

ExprPtr Param(std::string name) {
  ExprPtr e = Node(ExprKind::kParameter);
  e->name = std::move(name);
  return e;
}

// c.a.b from ("c", {"a", "b"}).
ExprPtr Path(std::string root, std::initializer_list<std::string> names) {
  ExprPtr e = Id(std::move(root));
  for (const std::string& name : names) {
    ExprPtr property = Node(ExprKind::kProperty);
    property->name = name;
    property->children.push_back(std::move(e));
    e = std::move(property);
  }
  return e;
}

ExprPtr Bin(BinaryOp op, ExprPtr left, ExprPtr right) {
  ExprPtr e = Node(ExprKind::kBinary);
  e->binary_op = op;
  e->children.push_back(std::move(left));
  e->children.push_back(std::move(right));
  return e;
}

template <typename... Args>
ExprPtr Call(std::string name, Args... args) {
  ExprPtr e = Node(ExprKind::kFunctionCall);
  e->name = std::move(name);
  (e->children.push_back(std::move(args)), ...);
  return e;
}

template <typename... Args>
ExprPtr In(ExprPtr needle, Args... items) {
  ExprPtr e = Node(ExprKind::kIn);
  e->children.push_back(std::move(needle));
  (e->children.push_back(std::move(items)), ...);
  return e;
}

FromSource From(std::string collection, std::string alias = "") {
  FromSource source;
  source.alias = alias.empty() ? collection : alias;
  source.collection = Id(std::move(collection));
  return source;
}

SelectItem Item(ExprPtr e, std::string alias = "") {
  SelectItem item;
  item.expr = std::move(e);
  item.alias = std::move(alias);
  return item;
}

// SELECT VALUE <e> FROM c
SelectQuery SelectValue(ExprPtr e) {
  SelectQuery q;
  q.select_value = true;
  q.items.push_back(Item(std::move(e)));
  q.from.push_back(From("c"));
  return q;
}

const Json kNoParameters = Json::array();

Json QueryInfoOf(const SelectQuery& q, const Json& parameters = kNoParameters, QueryPlanOptions options = {}) {
  cosmos::Result<Json> plan = BuildQueryPlan(q, parameters, options);
  REQUIRE(plan.ok());
  return (*plan)["queryInfo"];
}

}  // namespace

TEST_CASE("Numbers print like .NET's round-trip format", "[query][plan]") {
  CHECK(FormatNumber(5) == "5");
  CHECK(FormatNumber(0.5) == "0.5");
  CHECK(FormatNumber(-3) == "-3");
  CHECK(FormatNumber(2147483657.0) == "2147483657");
  CHECK(FormatNumber(0.027338456362485886) == "0.027338456362485886");
  CHECK(FormatNumber(-0.005676387343555689) == "-0.0056763873435556889");
  CHECK(FormatNumber(66408.034483) == "66408.034483");
  CHECK(FormatNumber(1e16) == "1E+16");
  CHECK(FormatNumber(15943368134575530.0) == "15943368134575530");
}

TEST_CASE("Expressions print with every operation in parentheses", "[query][plan]") {
  CHECK(FormatExpr(*Call("MIN", Bin(BinaryOp::kAdd, Path("c", {"blah"}), Lit(1)))) == "MIN((c.blah + 1))");
  CHECK(FormatExpr(*Bin(BinaryOp::kEq, Path("c", {"a"}), Lit("it's \"x\""))) == R"((c.a = "it's \"x\""))");
  CHECK(FormatExpr(*In(Path("r", {"key"}), Lit(1), Lit(2.5))) == "(r.key IN (1, 2.5))");
  CHECK(FormatExpr(*Lit(Json::parse(R"({"a":[1,true,null]})"))) == R"({"a": [1, true, null]})");

  ExprPtr object = Node(ExprKind::kObjectLiteral);
  object->fields.emplace_back("age", Path("c", {"age"}));
  object->fields.emplace_back("n", Lit(-0.5));
  CHECK(FormatExpr(*object) == R"({"age": c.age, "n": -0.5})");

  ExprPtr negated = Node(ExprKind::kUnary);
  negated->unary_op = UnaryOp::kNegate;
  negated->children.push_back(Lit(0.25));
  CHECK(FormatExpr(*negated) == "-0.25");
}

TEST_CASE("Queries print one clause per line, subqueries indented", "[query][plan]") {
  auto inner = std::make_shared<SelectQuery>();
  inner->select_value = true;
  inner->items.push_back(Item(Id("s")));
  FromSource iterate;
  iterate.alias = "s";
  iterate.iterate = true;
  iterate.collection = Path("c", {"scores"});
  inner->from.push_back(std::move(iterate));
  inner->group_by.push_back(Id("s"));

  SelectQuery q;
  q.items.push_back(Item(Path("c", {"name"})));
  q.from.push_back(From("Root", "c"));
  FromSource join;
  join.alias = "s";
  join.collection = Node(ExprKind::kScalarSubquery);
  join.collection->subquery = inner;
  q.from.push_back(std::move(join));
  q.where = Bin(BinaryOp::kGt, Path("c", {"age"}), Lit(1));
  OrderByItem order;
  order.expr = Path("c", {"name"});
  order.descending = true;
  order.explicit_direction = true;
  q.order_by.push_back(std::move(order));

  CHECK(FormatQuery(q) ==
        "SELECT c.name\n"
        "FROM Root AS c\n"
        "JOIN (\n"
        "    SELECT VALUE s\n"
        "    FROM s IN c.scores\n"
        "    GROUP BY s\n"
        ") AS s\n"
        "WHERE (c.age > 1)\n"
        "ORDER BY c.name DESC");
}

TEST_CASE("VALUE aggregates return partial results per partition", "[query][plan]") {
  Json info = QueryInfoOf(SelectValue(Call("AVG", Path("c", {"blah"}))));
  CHECK(info["aggregates"] == Json::array({"Average"}));
  CHECK(info["hasSelectValue"] == true);
  CHECK(info["rewrittenQuery"] ==
        "SELECT VALUE [{\"item\": {\"sum\": SUM(c.blah), \"count\": COUNT(c.blah)}}]\nFROM c");

  info = QueryInfoOf(SelectValue(Call("Min", Path("c", {"blah"}))));
  CHECK(info["rewrittenQuery"] ==
        "SELECT VALUE [{\"item\": Min(c.blah), \"item2\": {\"min\": Min(c.blah), \"count\": COUNT(c.blah)}}]\nFROM c");
}

TEST_CASE("Aggregates without VALUE are named $1, $2...", "[query][plan]") {
  SelectQuery q;
  q.items.push_back(Item(Call("SUM", Path("c", {"a"}))));
  q.items.push_back(Item(Call("COUNT", Lit(1)), "n"));
  q.items.push_back(Item(Call("MAX", Path("c", {"a"}))));
  q.from.push_back(From("c"));
  Json info = QueryInfoOf(q);
  CHECK(info["groupByAliases"] == Json::array({"$1", "n", "$2"}));
  CHECK(info["groupByAliasToAggregateType"] == Json::parse(R"({"$1":"Sum","n":"Count","$2":"Max"})"));
  CHECK(info["aggregates"] == Json::array());
  CHECK(info["rewrittenQuery"] ==
        "SELECT {\"$1\": {\"item\": SUM(c.a)}, \"n\": {\"item\": COUNT(1)}, \"$2\": {\"item\": MAX(c.a), "
        "\"item2\": {\"max\": MAX(c.a), \"count\": COUNT(c.a)}}} AS payload\nFROM c");
}

TEST_CASE("An aggregate inside another expression is rejected", "[query][plan]") {
  SelectQuery q = SelectValue(Call("FLOOR", Call("AVG", Path("c", {"a"}))));
  cosmos::Result<Json> plan = BuildQueryPlan(q, kNoParameters, {});
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.status().message() ==
        R"({"Errors":["Compositions of aggregates and other expressions are not allowed."]})");
}

TEST_CASE("ORDER BY returns sort keys and payload behind a resume filter", "[query][plan]") {
  SelectQuery q = SelectValue(Path("c", {"a"}));
  q.where = Bin(BinaryOp::kEq, Path("c", {"d"}), Lit(true));
  q.top = Param("@n");
  OrderByItem order;
  order.expr = Path("c", {"b"});
  q.order_by.push_back(std::move(order));
  Json info = QueryInfoOf(q, Json::parse(R"([{"name":"@n","value":7}])"));
  CHECK(info["top"] == 7);
  CHECK(info["orderBy"] == Json::array({"Ascending"}));
  CHECK(info["orderByExpressions"] == Json::array({"c.b"}));
  CHECK(info["rewrittenQuery"] ==
        "SELECT TOP 7 c._rid, [{\"item\": c.b}] AS orderByItems, c.a AS payload\n"
        "FROM c\n"
        "WHERE (((c.d = true) AND ({documentdb-formattableorderbyquery-filter})) AND IS_DEFINED(c.a))\n"
        "ORDER BY c.b");
}

TEST_CASE("OFFSET/LIMIT become OFFSET 0 LIMIT n unless one partition key is targeted", "[query][plan]") {
  SelectQuery q;
  q.select_star = true;
  q.from.push_back(From("c"));
  q.offset = Lit(1);
  q.limit = Param("@l");
  Json parameters = Json::parse(R"([{"name":"@l","value":2}])");
  Json info = QueryInfoOf(q, parameters);
  CHECK(info["offset"] == 1);
  CHECK(info["limit"] == 2);
  CHECK(info["rewrittenQuery"] == "SELECT *\nFROM c\nOFFSET 0 LIMIT 3");

  q.where = Bin(BinaryOp::kEq, Path("c", {"pk"}), Lit("x"));
  QueryPlanOptions options;
  options.partition_key_paths = {"/pk"};
  info = QueryInfoOf(q, parameters, options);
  CHECK(info["offset"].is_null());
  CHECK(info["rewrittenQuery"] == "");
}

TEST_CASE("Counts beyond 32 bits are rejected with the service's codes", "[query][plan]") {
  SelectQuery q;
  q.select_star = true;
  q.from.push_back(From("c"));
  q.top = Lit(4294967296.0);
  cosmos::Result<Json> plan = BuildQueryPlan(q, kNoParameters, {});
  REQUIRE_FALSE(plan.ok());
  CHECK(Json::parse(plan.status().message())["errors"][0]["code"] == "SC2060");
}

TEST_CASE("Features the client did not declare fail the plan", "[query][plan]") {
  QueryFeatureSet features = QueryFeatureSet::Parse("Aggregate, Distinct,Top ,OffsetAndLimit");
  CHECK(features.Has(QueryFeature::kTop));
  CHECK(features.Has(QueryFeature::kDistinct));
  CHECK_FALSE(features.Has(QueryFeature::kOrderBy));

  SelectQuery q;
  q.select_star = true;
  q.from.push_back(From("c"));
  OrderByItem order;
  order.expr = Path("c", {"b"});
  q.order_by.push_back(std::move(order));
  QueryPlanOptions options;
  options.supported_features = features;
  cosmos::Result<Json> plan = BuildQueryPlan(q, kNoParameters, options);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.status().message() ==
        "Query contains 1 or more unsupported features. Upgrade your SDK to a version that does support the "
        "requested features:\r\nQuery contained OrderBy, which the calling client does not support.");
}

TEST_CASE("The plan JSON has the wire layout", "[query][plan]") {
  cosmos::Result<Json> plan = BuildQueryPlan(SelectValue(Path("c", {"a"})), kNoParameters, {});
  REQUIRE(plan.ok());
  CHECK(plan->dump() ==
        R"({"partitionedQueryExecutionInfoVersion":2,"queryInfo":{"distinctType":"None","top":null,"offset":null,)"
        R"("limit":null,"orderBy":[],"orderByExpressions":[],"groupByExpressions":[],"groupByAliases":[],)"
        R"("aggregates":[],"groupByAliasToAggregateType":{},"rewrittenQuery":"","hasSelectValue":true,)"
        R"("dCountInfo":null,"hasNonStreamingOrderBy":false},)"
        R"("queryRanges":[{"min":"","max":"FF","isMinInclusive":true,"isMaxInclusive":false}]})");
}

TEST_CASE("Partition-key filters pin the query to points", "[query][plan]") {
  std::vector<std::string> paths = {"/key"};
  SelectQuery q;
  q.select_star = true;
  q.from.push_back(From("c"));

  q.where = In(Path("c", {"key"}), Lit(1), Lit("a"), Lit(Json::array({7})), Lit(1.0));
  CHECK(InternalQueryRanges(FindPartitionKeyTargets(q, kNoParameters, paths)) ==
        Json::parse(R"([{"min":[1.0],"max":[1.0],"isMinInclusive":true,"isMaxInclusive":true},
                        {"min":["a"],"max":["a"],"isMinInclusive":true,"isMaxInclusive":true},
                        {"min":[{}],"max":[{}],"isMinInclusive":true,"isMaxInclusive":true}])"));

  q.where = Bin(BinaryOp::kAnd, Bin(BinaryOp::kEq, Path("c", {"key"}), Lit(1)),
                Bin(BinaryOp::kEq, Path("c", {"key"}), Lit(2)));
  CHECK(FindPartitionKeyTargets(q, kNoParameters, paths).kind == PartitionKeyTargets::Kind::kNone);

  q.where = Bin(BinaryOp::kOr, Bin(BinaryOp::kEq, Path("c", {"key"}), Param("@k")),
                Bin(BinaryOp::kGt, Path("c", {"other"}), Lit(2)));
  CHECK(FindPartitionKeyTargets(q, Json::parse(R"([{"name":"@k","value":"x"}])"), paths).kind ==
        PartitionKeyTargets::Kind::kAll);

  q.where = Bin(BinaryOp::kEq, Path("c", {"key"}), Param("@k"));
  PartitionKeyTargets targets = FindPartitionKeyTargets(q, Json::parse(R"([{"name":"@k","value":"x"}])"), paths);
  REQUIRE(targets.kind == PartitionKeyTargets::Kind::kPoints);
  CHECK(targets.points.at(0).at(0).value == "x");

  q.where = Lit(false);
  CHECK(FindPartitionKeyTargets(q, kNoParameters, paths).kind == PartitionKeyTargets::Kind::kNone);
}

TEST_CASE("A hierarchical key is narrowed by its first levels alone", "[query][plan]") {
  std::vector<std::string> paths = {"/tenant", "/user"};
  SelectQuery q;
  q.select_star = true;
  q.from.push_back(From("c"));
  q.where = Bin(BinaryOp::kEq, Path("c", {"tenant"}), Lit("t1"));
  CHECK(FindPartitionKeyTargets(q, kNoParameters, paths).kind == PartitionKeyTargets::Kind::kAll);
  PartitionKeyTargets prefix = FindPartitionKeyTargets(q, kNoParameters, paths, /*allow_prefixes=*/true);
  REQUIRE(prefix.kind == PartitionKeyTargets::Kind::kPoints);
  REQUIRE(prefix.points.size() == 1);
  CHECK(prefix.points[0].size() == 1);
  CHECK(prefix.points[0][0].value == "t1");

  // Only the second level pinned: nothing to hash, every key stays possible.
  q.where = Bin(BinaryOp::kEq, Path("c", {"user"}), Lit("u1"));
  CHECK(FindPartitionKeyTargets(q, kNoParameters, paths, true).kind == PartitionKeyTargets::Kind::kAll);

  // Both levels: a full point.
  q.where = Bin(BinaryOp::kAnd, Bin(BinaryOp::kEq, Path("c", {"tenant"}), Lit("t1")),
                Bin(BinaryOp::kEq, Path("c", {"user"}), Lit("u1")));
  PartitionKeyTargets full = FindPartitionKeyTargets(q, kNoParameters, paths, true);
  REQUIRE(full.kind == PartitionKeyTargets::Kind::kPoints);
  CHECK(full.points.at(0).size() == 2);
}

TEST_CASE("Partition-key paths split into property names", "[query][plan]") {
  CHECK(SplitPartitionKeyPath("/a/b") == std::vector<std::string>{"a", "b"});
  CHECK(SplitPartitionKeyPath("/\"x/y\"/c") == std::vector<std::string>{"x/y", "c"});
}
