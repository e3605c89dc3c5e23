// Computed properties: definitions validated as the service does, and their names expanded in a
// query before it is bound, printed back as written in formatted (rewritten) queries.
#include "query/computed_properties.h"

#include <catch2/catch.hpp>

#include "query/parser/parser.h"
#include "query/plan/query_formatter.h"
#include "query/query_cache.h"

namespace cosmos::query {
namespace {

std::shared_ptr<const ComputedProperties> Define(const char* definitions) {
  auto computed = ComputedProperties::Parse(Json::parse(definitions));
  REQUIRE(computed.ok());
  return *computed;
}

bool Refused(const char* definitions) {
  auto computed = ComputedProperties::Parse(Json::parse(definitions));
  return !computed.ok() && computed.status().code() == ErrorCode::kBadRequest;
}

std::string Expanded(const ComputedProperties& computed, const char* text) {
  auto parsed = ParseQuery(text);
  REQUIRE(parsed.ok());
  auto query = std::const_pointer_cast<SelectQuery>(*parsed);
  computed.Expand(*query);
  return FormatQuery(*query);
}

}  // namespace

TEST_CASE("computed properties: definitions are validated", "[computed]") {
  CHECK(Define("null")->empty());
  CHECK_FALSE(Define(R"([{"name":"cp","query":"SELECT VALUE LOWER(c.name) FROM c"}])")->empty());
  CHECK(Refused(R"({"name":"cp"})"));
  CHECK(Refused(R"([{"name":"cp","query":"SELECT LOWER(c.name) FROM c"}])"));           // no VALUE
  CHECK(Refused(R"([{"name":"cp","query":"SELECT VALUE c.a FROM c WHERE c.a > 1"}])"));
  CHECK(Refused(R"([{"name":"cp","query":"SELECT VALUE c.a FROM c ORDER BY c.a"}])"));
  CHECK(Refused(R"([{"name":"cp","query":"SELECT VALUE t FROM c JOIN t IN c.tags"}])"));
  CHECK(Refused(R"([{"name":"cp","query":"SELECT VALUE (SELECT VALUE 1) FROM c"}])"));
  CHECK(Refused(R"([{"name":"cp","query":"SELECT VALUE udf.f(c.a) FROM c"}])"));
  CHECK(Refused(R"([{"name":"_ts","query":"SELECT VALUE c.a FROM c"}])"));
  CHECK(Refused(R"([{"name":"cp","query":"SELECT VALUE c.a FROM c"},{"name":"cp","query":"SELECT VALUE c.b FROM c"}])"));
  CHECK(Refused(R"([{"name":"a","query":"SELECT VALUE c.x FROM c"},{"name":"b","query":"SELECT VALUE c.a FROM c"}])"));
  CHECK(Refused(R"([{"name":"cp","query":"SELECT VALUE FROM c"}])"));
}

TEST_CASE("computed properties: names on the root document expand, aliases follow the query", "[computed]") {
  auto computed = Define(R"([{"name":"cp_lower","query":"SELECT VALUE LOWER(x.name) FROM x"}])");
  auto query = ParseQuery("SELECT r.cp_lower FROM root r WHERE r.cp_lower = 'a' ORDER BY r.cp_lower");
  REQUIRE(query.ok());
  auto expanded = std::const_pointer_cast<SelectQuery>(*query);
  computed->Expand(*expanded);
  CHECK(expanded->items[0].alias == "cp_lower");  // the projection keeps its name
  REQUIRE(expanded->where->children[0]->kind == ExprKind::kFunctionCall);
  CHECK(expanded->where->children[0]->children[0]->children[0]->name == "r");  // x became r
  // Formatted (the query plan's rewritten query), the reference is printed as written.
  CHECK(Expanded(*computed, "SELECT VALUE c.cp_lower FROM c ORDER BY c.cp_lower") ==
        Expanded(*Define("null"), "SELECT VALUE c.cp_lower FROM c ORDER BY c.cp_lower"));
  // Not on the root document, not expanded: a JOIN alias, an index, a name that is no property.
  CHECK(Expanded(*computed, "SELECT VALUE t.cp_lower FROM c JOIN t IN c.tags").find("LOWER") == std::string::npos);

  PreparedQueryCache cache;
  auto with = cache.Prepare("SELECT VALUE c.cp_lower FROM c ORDER BY c.cp_lower", computed.get());
  REQUIRE(with.ok());  // ORDER BY a computed property binds
  auto without = cache.Prepare("SELECT VALUE c.cp_lower FROM c ORDER BY c.cp_lower");
  REQUIRE(without.ok());
  CHECK(with->get() != without->get());  // cached apart
}

}  // namespace cosmos::query
