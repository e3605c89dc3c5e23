// Bind: checks a parsed query against the rules of the language and prepares it for execution.
//  - every identifier names an alias in scope (FROM/JOIN aliases, and the aliases of enclosing
//    queries inside subqueries): SC2001 otherwise;
//  - every function is a known system function with a valid number of arguments (SC2005, SC2050);
//  - aggregates appear only in a select list and never inside another aggregate (SC2101);
//  - with GROUP BY, the select list uses only grouped expressions and aggregates (SC2102), and
//    never `*` (SC2041);
//  - ORDER BY items are document paths (2206); TOP/OFFSET/LIMIT literals are in range.
// It annotates the tree in place (Expr::slot for identifiers and aggregates, Expr::function),
// so it runs once on a freshly parsed tree, before the tree is shared.
// Thread-safety: a BoundQuery is immutable after Bind and may be shared across threads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "query/ast.h"

namespace cosmos::query {

// What the executor needs to know about one SELECT (the top-level query or a subquery).
struct SelectInfo {
  // Row layout: slots [0, first_slot) belong to enclosing queries; the FROM/JOIN source i of this
  // query is slot first_slot + i. The top-level query also keeps the document in slot 0, so
  // its sources start at 1.
  int first_slot = 0;
  int slot_count = 0;  // total slots a row of this query needs (enclosing ones included)
  // Output property names of a non-VALUE select list: the alias, the inferred name (last
  // property name), or $1, $2... for items without either.
  std::vector<std::string> output_names;
  // Aggregate calls of the select list, indexed by Expr::slot.
  std::vector<const Expr*> aggregates;
  bool is_aggregate() const { return !aggregates.empty(); }
  bool is_grouped() const { return is_grouped_query; }
  bool is_grouped_query = false;
  // FROM (SELECT ... FROM c) x at the top: the subquery is evaluated over the whole container
  // and its rows are the input of this select.
  bool container_subquery = false;
};

class BoundQuery {
 public:
  const SelectQuery& root() const { return *root_; }
  const std::shared_ptr<const SelectQuery>& root_ptr() const { return root_; }
  const SelectInfo& info(const SelectQuery& query) const { return infos_.at(&query); }

  // True when rows can be produced one document at a time, in storage order, and a page can stop
  // early: no ORDER BY, GROUP BY, aggregate, DISTINCT or container subquery at the top level.
  bool is_streaming() const { return streaming_; }

  // The top-level properties of each document the query reads (c.id, c["n"]...), so that the
  // storage layer can parse only those; nullopt when the query uses whole documents (SELECT *,
  // SELECT c, a function of c, c[@param]...).
  const std::optional<std::vector<std::string>>& document_properties() const { return document_properties_; }
  // The same, leaving out the top-level WHERE clause: an empty list means that once a document is
  // known to pass the filter, nothing of it is read (SELECT VALUE COUNT(1) FROM c WHERE ...).
  const std::optional<std::vector<std::string>>& properties_outside_where() const {
    return properties_outside_where_;
  }
  // The same, leaving out ORDER BY: what a source that gives each document's sort keys
  // (SourceDocument::order_keys) must still parse.
  const std::optional<std::vector<std::string>>& properties_outside_order_by() const {
    return properties_outside_order_by_;
  }

  // The user-defined functions the query calls (udf.name), once each; the runner must supply them
  // (query::UserFunctions).
  const std::vector<std::string>& user_functions() const { return user_functions_; }

 private:
  friend Result<BoundQuery> Bind(std::shared_ptr<const SelectQuery> parsed, std::string_view text);
  std::shared_ptr<const SelectQuery> root_;
  std::unordered_map<const SelectQuery*, SelectInfo> infos_;
  bool streaming_ = false;
  std::optional<std::vector<std::string>> document_properties_;
  std::optional<std::vector<std::string>> properties_outside_where_;
  std::optional<std::vector<std::string>> properties_outside_order_by_;
  std::vector<std::string> user_functions_;
};

// `text` is the query text the tree was parsed from (for error locations).
Result<BoundQuery> Bind(std::shared_ptr<const SelectQuery> parsed, std::string_view text);

// True for an expression the service can map to a document path: an identifier followed by
// property names and literal indexes (c.a, c["a b"], c.arr[0]).
bool IsDocumentPath(const Expr& e);
// The steps from `alias` to a document path expression, array indexes written "[]":
// c.a["b"][0] rooted at c gives {"a", "b", "[]"}. nullopt for any other expression or root.
std::optional<std::vector<std::string>> DocumentPathSteps(const Expr& e, std::string_view alias);
// The same path as container policies write it, "/a/b"; empty for any other expression or root.
std::string DocumentPolicyPath(const Expr& e, std::string_view alias);
// Calls visit(e, root_alias) for every expression of `query`, subqueries included, with the top
// query's FROM alias (under which the paths of its subqueries are the document's too).
void ForEachExpression(const SelectQuery& query, const std::function<void(const Expr&, std::string_view)>& visit);
// The property names a non-VALUE select list produces: the alias, the inferred name (the last
// property name of c.a or c["a"], or the alias itself), or $1, $2... for the other items.
std::vector<std::string> OutputNames(const SelectQuery& q);
// The path as written by the service in messages: c.a.b, c["a b"], c.arr[0].
std::string PathText(const Expr& e);

}  // namespace cosmos::query
