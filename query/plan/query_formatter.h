// Query text the way the service prints the queries it rewrites for the SDKs (the
// `rewrittenQuery`, `orderByExpressions` and `groupByExpressions` of a query plan):
//  - clauses on their own lines, joined by a single LF: "SELECT …\nFROM c\nWHERE (…)";
//  - every operator expression in parentheses: (c.a + 1), (c.a = "x"), (c.k IN (1, 2)), (NOT c.b);
//  - strings double-quoted, numbers as .NET prints doubles with "R", `FROM Root r` as `FROM Root AS r`;
//  - subqueries over several lines, indented by four spaces per level.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "query/ast.h"

namespace cosmos::query {

std::string FormatExpr(const Expr& e);
std::string FormatQuery(const SelectQuery& q);

// A number as the service writes it: the shortest of 15 significant digits that reads back as the
// same double, otherwise 17 digits ("R" of .NET Framework): 5, 0.5, -0.0056763873435556889, 1E+16.
std::string FormatNumber(double d);
// A double-quoted string literal with JSON escapes.
std::string FormatString(std::string_view s);
// Any JSON value as a query literal: numbers, strings, true/false/null, [a, b], {"k": v}.
std::string FormatJsonLiteral(const Json& value);

// The clauses of a query, already formatted, without their keywords: `select` is what follows
// "SELECT " (DISTINCT, TOP and the select spec), `joins` one entry per JOIN source. Empty clauses
// are left out when the query is assembled. The query-plan rewrites edit these pieces.
struct QueryClauses {
  std::string select;
  std::string from;
  std::vector<std::string> joins;
  std::string where;
  std::string group_by;
  std::string order_by;
  std::string offset_limit;  // "OFFSET 1 LIMIT 2", keywords included
};

QueryClauses FormatClauses(const SelectQuery& q);
std::string AssembleQuery(const QueryClauses& clauses);

// The select spec alone ("*", "VALUE expr", "a, b AS x"), without DISTINCT or TOP.
std::string FormatSelectSpec(const SelectQuery& q);
// An ORDER BY clause body: "c.a, c.b DESC" (ASC/DESC only where written).
std::string FormatOrderBy(const SelectQuery& q);
// A GROUP BY clause body: "c.a, UPPER(c.b)".
std::string FormatGroupBy(const SelectQuery& q);

}  // namespace cosmos::query
