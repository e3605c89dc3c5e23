// The query AST: what the parser produces from Cosmos SQL text. ANTLR types never appear here.
// Names are not resolved yet; the binder (query/binder.h) checks and annotates the tree.
// Thread-safety: a finished tree is immutable and may be shared (the parsed-query cache does).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"

namespace cosmos::query {

struct FunctionDef;
struct SelectQuery;

// A position in the query text: 0-based character offset of the first character, and its end
// (exclusive). The service reports errors with these offsets.
struct SourceSpan {
  int start = 0;
  int end = 0;
};

enum class ExprKind {
  kLiteral,          // literal: a JSON value (undefined literal: literal_undefined = true)
  kParameter,        // name = "@p"
  kIdentifier,       // name: an alias introduced by FROM/JOIN (or the container name)
  kProperty,         // children[0].name       (c.name)
  kIndex,            // children[0][children[1]]  (c["a b"], c.arr[0], c[@p])
  kUnary,            // unary_op children[0]
  kBinary,           // children[0] binary_op children[1]
  kBetween,          // children[0] [NOT] BETWEEN children[1] AND children[2]
  kIn,               // children[0] [NOT] IN (children[1..])
  kLike,             // children[0] [NOT] LIKE children[1] [ESCAPE children[2]]
  kConditional,      // children[0] ? children[1] : children[2]
  kCoalesce,         // children[0] ?? children[1]
  kFunctionCall,     // name(children...), udf = true for udf.name(...)
  kArrayLiteral,     // [children...]
  kObjectLiteral,    // {fields...}
  kScalarSubquery,   // (subquery)
  kExists,           // EXISTS(subquery)
  kArraySubquery,    // ARRAY(subquery)
};

enum class UnaryOp { kNot, kNegate, kPlus, kBitNot };

enum class BinaryOp {
  kOr, kAnd,
  kEq, kNotEq, kLt, kLtEq, kGt, kGtEq,
  kAdd, kSub, kMul, kDiv, kMod,
  kBitAnd, kBitOr, kBitXor, kShiftLeft, kShiftRight, kShiftRightZeroFill,
  kConcat,  // ||
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  SourceSpan span;

  Json literal;                    // kLiteral
  bool literal_undefined = false;  // kLiteral: the `undefined` keyword
  std::string name;                // kParameter ("@p"), kIdentifier, kProperty, kFunctionCall (as written)
  UnaryOp unary_op = UnaryOp::kNot;
  BinaryOp binary_op = BinaryOp::kEq;
  bool negated = false;            // NOT IN / NOT LIKE / NOT BETWEEN
  bool udf = false;                // kFunctionCall: udf.name(...)
  // The expansion of a container's computed property: the reference it replaced, as written
  // ("c.cp_name"), which formatted queries (the query plan's rewrittenQuery) print again.
  std::string computed_property;
  std::vector<ExprPtr> children;
  std::vector<std::pair<std::string, ExprPtr>> fields;  // kObjectLiteral, in written order
  std::shared_ptr<SelectQuery> subquery;                // kScalarSubquery, kExists, kArraySubquery

  // Filled in by the binder.
  const FunctionDef* function = nullptr;  // kFunctionCall: the resolved system function
  int slot = -1;                          // kFunctionCall of an aggregate: its accumulator slot
};

// One item of a select list: `expr [AS alias]`.
struct SelectItem {
  ExprPtr expr;
  std::string alias;  // empty when none was written
  SourceSpan span;
};

// One source of FROM or JOIN:
//   `<collection> [[AS] alias]`   — iterate = false: each input yields the collection value once
//   `alias IN <collection>`       — iterate = true:  each input yields every element of the array
// The collection is an expression rooted at an identifier (the container name in the first
// source, an earlier alias in JOINs), or a subquery (kScalarSubquery whose rows are the set).
struct FromSource {
  std::string alias;  // written or inferred (the last property name / the identifier)
  bool iterate = false;
  ExprPtr collection;
  SourceSpan span;
};

struct OrderByItem {
  ExprPtr expr;
  bool descending = false;
  bool explicit_direction = false;  // ASC/DESC written (the query plan echoes only written ones)
};

struct SelectQuery {
  bool distinct = false;
  ExprPtr top;              // number literal or parameter; null when absent
  bool select_star = false;
  bool select_value = false;  // SELECT VALUE expr: items has exactly one element
  std::vector<SelectItem> items;
  std::vector<FromSource> from;  // empty when the query has no FROM; from[1..] are JOINs
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  std::vector<OrderByItem> order_by;
  ExprPtr offset;  // OFFSET and LIMIT come together; number literals or parameters
  ExprPtr limit;
  SourceSpan span;
};

}  // namespace cosmos::query
