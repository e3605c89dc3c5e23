// The predicates of a query's WHERE clause that an index can answer, so that the engine reads
// only the documents an index lookup names instead of scanning. Only top-level AND conjuncts over
// a path of the FROM alias count: path = constant, constant = path, path IN (constants), path
// </<=/>/>= constant, path BETWEEN constants, STARTSWITH(path, "prefix"), and
// FullTextContains(path, "phrase") / FullTextContainsAll(path, "phrase", ...). The lookup may name
// more documents than match (the WHERE clause still runs on each), never fewer.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "query/ast.h"

namespace cosmos::query {

struct IndexPredicate {
  // kFullText: FullTextContains(path, phrase) or FullTextContainsAll(path, phrases...), each
  // phrase in `values` (strings): a full-text index names the documents holding all their terms,
  // a superset of the matches (the phrase's order and fuzzy terms are the WHERE clause's).
  enum class Kind { kEquals, kRange, kPrefix, kFullText };
  Kind kind = Kind::kEquals;
  std::vector<std::string> path;  // steps from the FROM alias, "[]" for an array element
  std::vector<Json> values;       // kEquals: the values (one, or an IN list)
  std::optional<Json> lower;      // kRange: the bounds (a missing bound is open)
  bool lower_inclusive = false;
  std::optional<Json> upper;
  bool upper_inclusive = false;
  std::string prefix;             // kPrefix
};

// `parameters`: the request's [{"name": "@p", "value": ...}] array.
std::vector<IndexPredicate> FindIndexPredicates(const SelectQuery& query, const Json& parameters);

// Whether the query's WHERE clause is nothing but a conjunction of predicates FindIndexPredicates
// finds (each conjunct one of them): a document passes it exactly when it passes them.
bool WhereIsIndexPredicates(const SelectQuery& query, const Json& parameters);

// The document paths a query reads outside its WHERE clause (in first-read order, at most
// kMostPathsRead), when that is all it reads there: every reference to the FROM alias in the
// select list and GROUP BY is one of them, of property names only (c.n, c.a.b; never c,
// c.tags[0] or c["0"]), none inside another (c.a with c.a.b), with no subquery, JOIN or ORDER BY.
// nullopt otherwise. Such a query can be answered from the paths' index entries
// (SELECT c.deviceId, AVG(c.temperature) FROM c GROUP BY c.deviceId).
std::optional<std::vector<std::vector<std::string>>> PathsRead(const SelectQuery& query);
inline constexpr size_t kMostPathsRead = 4;

}  // namespace cosmos::query
