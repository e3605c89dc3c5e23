// ComputedProperties: a container's computedProperties, [{"name": "cp_lower", "query": "SELECT
// VALUE LOWER(c.name) FROM c"}], as the service defines them: a property a query may name on the
// root document (c.cp_lower) in its filter, projection or ORDER BY, evaluated from the document
// when the query runs, never stored and never part of SELECT *.
// Thread-safety: immutable once parsed; Expand writes only the query it is given.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "query/ast.h"

namespace cosmos::query {

class ComputedProperties {
 public:
  // Validates a container's computedProperties (null or absent: none) as the service does: at
  // most 20, unique names that are not system properties, each query a SELECT VALUE over a single
  // FROM alias without WHERE, GROUP BY, ORDER BY, TOP, DISTINCT, OFFSET LIMIT, JOIN or subquery,
  // and naming no other computed property. kBadRequest with the reason otherwise.
  static Result<std::shared_ptr<const ComputedProperties>> Parse(const Json& definitions);

  bool empty() const { return properties_.empty(); }
  // Distinguishes one set of definitions from another (prepared queries are cached by it).
  const std::string& signature() const { return signature_; }
  // Rewrites every `<root alias>.<name>` of `query` (subqueries included) into its definition.
  void Expand(SelectQuery& query) const;

 private:
  struct Property {
    std::string name;
    std::shared_ptr<const SelectQuery> definition;  // SELECT VALUE <expression> FROM <alias>
  };
  std::vector<Property> properties_;
  std::string signature_;
};

}  // namespace cosmos::query
